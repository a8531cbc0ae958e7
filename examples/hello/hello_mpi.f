! A Fortran 77 MPI program, built with the installed mpif77 (docs/mpi.md):
! each rank sends its rank to the right on a ring and adds every rank with
! MPI_ALLREDUCE. Prints one line on rank 0 if both checks passed; stops
! with status 1 otherwise.
      PROGRAM HELLO
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, LEFT, RIGHT, GOT, ISUM, OK, ALLOK
      INTEGER STATUS(MPI_STATUS_SIZE)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      RIGHT = MOD(RANK + 1, NPROCS)
      LEFT = MOD(RANK + NPROCS - 1, NPROCS)
      CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, RIGHT, 0,
     &                  GOT, 1, MPI_INTEGER, LEFT, 0,
     &                  MPI_COMM_WORLD, STATUS, IERR)
      CALL MPI_ALLREDUCE(RANK, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      OK = 1
      IF (GOT .NE. LEFT) OK = 0
      IF (ISUM .NE. NPROCS * (NPROCS - 1) / 2) OK = 0
      CALL MPI_ALLREDUCE(OK, ALLOK, 1, MPI_INTEGER, MPI_MIN,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0 .AND. ALLOK .EQ. 1) THEN
        PRINT '(A,I0,A)', 'hello_mpi.f: ', NPROCS,
     &        ' ranks, ring and sum ok'
      END IF
      CALL MPI_FINALIZE(IERR)
      IF (ALLOK .NE. 1) STOP 1
      END
