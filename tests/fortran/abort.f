! MPI_ABORT from Fortran (MPI-1.1 7.5): rank 1 writes a line to unit 6 (a
! pipe), then ends the job with code 5; the line must reach the job's
! output, and the job's status must be 5.
      PROGRAM ABORT
      INCLUDE 'mpif.h'
      INTEGER RANK, IERR
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 1) THEN
        WRITE (6, '(A)') 'abort: rank 1 wrote this before MPI_ABORT'
        CALL MPI_ABORT(MPI_COMM_WORLD, 5, IERR)
      END IF
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      END
