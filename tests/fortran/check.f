! Shared by the Fortran test programs: CHECK counts and reports a failed
! condition; FINISH sums the failures over all ranks, prints
! "NAME: N ranks ok" on rank 0 if there were none, and ends the job --
! with MPI_ABORT (a nonzero exit) if there were.
      SUBROUTINE CHECK(OK, WHAT, NBAD)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      LOGICAL OK
      CHARACTER*(*) WHAT
      INTEGER NBAD, RANK, IERR
      IF (.NOT. OK) THEN
        CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
        PRINT *, 'rank ', RANK, ': check failed: ', WHAT
        NBAD = NBAD + 1
      END IF
      END

      SUBROUTINE FINISH(NAME, NBAD)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CHARACTER*(*) NAME
      INTEGER NBAD, TOTAL, RANK, NPROCS, IERR
      CALL MPI_ALLREDUCE(NBAD, TOTAL, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      IF (TOTAL .NE. 0) THEN
        IF (RANK .EQ. 0) PRINT *, NAME, ': ', TOTAL, ' checks failed'
        CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      IF (RANK .EQ. 0) WRITE (*, '(A, A, I0, A)') NAME, ': ', NPROCS,
     &     ' ranks ok'
      CALL MPI_FINALIZE(IERR)
      END
