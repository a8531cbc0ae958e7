! 8-byte MPI_SEND/MPI_RECV ping-pong from Fortran 77 (the Fortran bindings'
! cost over bench/mpi_pingpong.c's C loop). Usage: mpi_pingpong_f ITERS;
! runs the loop twice (the first warms up) and prints the one-way
! latency in microseconds.
      PROGRAM PPF
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, I, J, N
      DOUBLE PRECISION X, T0, T1
      CHARACTER*16 ARG
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL GETARG(1, ARG)
      READ (ARG, *) N
      X = 1
      DO J = 1, 2
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      T0 = MPI_WTIME()
      DO I = 1, N
        IF (RANK .EQ. 0) THEN
          CALL MPI_SEND(X, 1, MPI_DOUBLE_PRECISION, 1, 0,
     &         MPI_COMM_WORLD, IERR)
          CALL MPI_RECV(X, 1, MPI_DOUBLE_PRECISION, 1, 0,
     &         MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
        ELSE
          CALL MPI_RECV(X, 1, MPI_DOUBLE_PRECISION, 0, 0,
     &         MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
          CALL MPI_SEND(X, 1, MPI_DOUBLE_PRECISION, 0, 0,
     &         MPI_COMM_WORLD, IERR)
        END IF
      END DO
      T1 = MPI_WTIME()
      END DO
      IF (RANK .EQ. 0) PRINT '(A, F8.3)', 'fortran 8B us ',
     &     (T1 - T0) / (2 * N) * 1D6
      CALL MPI_FINALIZE(IERR)
      END
