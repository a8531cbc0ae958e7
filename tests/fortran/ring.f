! The issue's Fortran 77 program: a ring of MPI_SENDRECV, an MPI_ALLREDUCE
! of INTEGER, DOUBLE PRECISION and COMPLEX sums, and an MPI_CART_SHIFT on a
! periodic 1-D grid whose neighbours exchange their ranks.
! Prints "ring: N ranks ok" on rank 0, or fails with the checks that failed.
      PROGRAM RING
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, LEFT, RIGHT, GOT, NBAD
      INTEGER STATUS(MPI_STATUS_SIZE), ISUM, COUNT
      DOUBLE PRECISION DSUM
      COMPLEX Z, ZSUM
      INTEGER CART, DIMS(1), SRC, DST, FROMSRC
      LOGICAL PERIODS(1)
      NBAD = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
!     The ring: each rank sends its rank right and receives from the left.
      RIGHT = MOD(RANK + 1, NPROCS)
      LEFT = MOD(RANK + NPROCS - 1, NPROCS)
      CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, RIGHT, 7, GOT, 1,
     &     MPI_INTEGER, LEFT, 7, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'sendrecv ierror', NBAD)
      CALL CHECK(GOT .EQ. LEFT, 'ring value', NBAD)
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. LEFT, 'status source', NBAD)
      CALL CHECK(STATUS(MPI_TAG) .EQ. 7, 'status tag', NBAD)
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, COUNT, IERR)
      CALL CHECK(COUNT .EQ. 1, 'get_count', NBAD)
!     Allreduce: sums of 1..N as INTEGER, of rank/2 as DOUBLE PRECISION,
!     and of (rank, 1) as COMPLEX.
      CALL MPI_ALLREDUCE(RANK + 1, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(ISUM .EQ. NPROCS * (NPROCS + 1) / 2, 'int sum', NBAD)
      CALL MPI_ALLREDUCE(DBLE(RANK) / 2D0, DSUM, 1,
     &     MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, IERR)
      CALL CHECK(ABS(DSUM - NPROCS * (NPROCS - 1) / 4D0) .LT. 1D-12,
     &     'double sum', NBAD)
      Z = CMPLX(REAL(RANK), 1.0)
      CALL MPI_ALLREDUCE(Z, ZSUM, 1, MPI_COMPLEX, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(ABS(REAL(ZSUM) - NPROCS * (NPROCS - 1) / 2.0) .LT.
     &     1E-5 .AND. ABS(AIMAG(ZSUM) - NPROCS) .LT. 1E-5,
     &     'complex sum', NBAD)
!     Cart shift on a periodic ring; the source's rank arrives from it.
      DIMS(1) = NPROCS
      PERIODS(1) = .TRUE.
      CALL MPI_CART_CREATE(MPI_COMM_WORLD, 1, DIMS, PERIODS, .FALSE.,
     &     CART, IERR)
      CALL MPI_CART_SHIFT(CART, 0, 1, SRC, DST, IERR)
      CALL CHECK(SRC .EQ. LEFT .AND. DST .EQ. RIGHT, 'cart shift', NBAD)
      CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, DST, 9, FROMSRC, 1,
     &     MPI_INTEGER, SRC, 9, CART, MPI_STATUS_IGNORE, IERR)
      CALL CHECK(FROMSRC .EQ. SRC, 'cart exchange', NBAD)
      CALL MPI_COMM_FREE(CART, IERR)
      CALL CHECK(CART .EQ. MPI_COMM_NULL, 'comm_free', NBAD)
      CALL FINISH('ring', NBAD)
      END
