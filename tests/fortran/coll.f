! Collectives from Fortran (MPI-1.1 §4): broadcast, gather(v), scatter(v),
! allgather, alltoall, reductions over the Fortran types (INTEGER,
! REAL, DOUBLE PRECISION, COMPLEX sums, LOGICAL MPI_LAND/MPI_LOR,
! MPI_MAXLOC on MPI_2DOUBLE_PRECISION), a Fortran user operation, MPI_SCAN,
! MPI_REDUCE_SCATTER and MPI_ALLREDUCE with MPI_IN_PLACE; MPI-2.2's
! MPI_EXSCAN, MPI_REDUCE_SCATTER_BLOCK, MPI_ALLTOALLW and
! MPI_OP_COMMUTATIVE; MPI-3.1's
! nonblocking collectives, completed by MPI_WAIT and MPI_WAITALL.
      PROGRAM COLL
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER MAXP
      PARAMETER (MAXP = 16)
      INTEGER IERR, RANK, NPROCS, NBAD, I, ROOT, IV, ISUM
      INTEGER ALL(MAXP), CNTS(MAXP), DISP(MAXP), A2A(MAXP), MYOP
      INTEGER TYPES(MAXP), BDSP(MAXP), REQ, REQS(4), IW(4)
      INTEGER STATS(MPI_STATUS_SIZE, 4)
      REAL R, RMAX
      DOUBLE PRECISION PAIR(2), BEST(2), D(3)
      COMPLEX Z, ZP
      LOGICAL L, LAND, LOR, FLAG
      EXTERNAL IMAXABS
      NBAD = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      ROOT = NPROCS - 1
!     Broadcast three DOUBLE PRECISION from the last rank.
      DO I = 1, 3
        D(I) = 0
        IF (RANK .EQ. ROOT) D(I) = I * 1.5D0
      END DO
      CALL MPI_BCAST(D, 3, MPI_DOUBLE_PRECISION, ROOT, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECK(D(3) .EQ. 4.5D0, 'bcast', NBAD)
!     Gather ranks at the root; scatter them back doubled.
      CALL MPI_GATHER(RANK, 1, MPI_INTEGER, ALL, 1, MPI_INTEGER, ROOT,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. ROOT) THEN
        DO I = 1, NPROCS
          CALL CHECK(ALL(I) .EQ. I - 1, 'gather', NBAD)
          ALL(I) = 2 * ALL(I)
        END DO
      END IF
      CALL MPI_SCATTER(ALL, 1, MPI_INTEGER, IV, 1, MPI_INTEGER, ROOT,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(IV .EQ. 2 * RANK, 'scatter', NBAD)
!     Gatherv with one element per rank at reversed displacements.
      DO I = 1, NPROCS
        CNTS(I) = 1
        DISP(I) = NPROCS - I
      END DO
      CALL MPI_GATHERV(RANK, 1, MPI_INTEGER, ALL, CNTS, DISP,
     &     MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
        CALL CHECK(ALL(1) .EQ. NPROCS - 1 .AND. ALL(NPROCS) .EQ. 0,
     &       'gatherv', NBAD)
      END IF
      CALL MPI_SCATTERV(ALL, CNTS, DISP, MPI_INTEGER, IV, 1,
     &     MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(IV .EQ. RANK, 'scatterv', NBAD)
!     Allgather and alltoall.
      CALL MPI_ALLGATHER(RANK * 3, 1, MPI_INTEGER, ALL, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(ALL(NPROCS) .EQ. 3 * (NPROCS - 1), 'allgather', NBAD)
      DO I = 1, NPROCS
        A2A(I) = RANK * 100 + I - 1
      END DO
      CALL MPI_ALLTOALL(A2A, 1, MPI_INTEGER, ALL, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, IERR)
      DO I = 1, NPROCS
        CALL CHECK(ALL(I) .EQ. (I - 1) * 100 + RANK, 'alltoall', NBAD)
      END DO
!     Reductions over the Fortran types.
      CALL MPI_REDUCE(RANK + 1, ISUM, 1, MPI_INTEGER, MPI_SUM, ROOT,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. ROOT) THEN
        CALL CHECK(ISUM .EQ. NPROCS * (NPROCS + 1) / 2, 'reduce', NBAD)
      END IF
      R = REAL(RANK) * 0.5
      CALL MPI_ALLREDUCE(R, RMAX, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECK(RMAX .EQ. (NPROCS - 1) * 0.5, 'real max', NBAD)
      Z = CMPLX(1.0, 1.0)
      CALL MPI_ALLREDUCE(Z, ZP, 1, MPI_COMPLEX, MPI_PROD,
     &     MPI_COMM_WORLD, IERR)
      Z = (1.0, 1.0) ** NPROCS
      CALL CHECK(ABS(ZP - Z) .LT. 1E-3, 'complex prod', NBAD)
      L = RANK .NE. 0
      CALL MPI_ALLREDUCE(L, LAND, 1, MPI_LOGICAL, MPI_LAND,
     &     MPI_COMM_WORLD, IERR)
      CALL MPI_ALLREDUCE(L, LOR, 1, MPI_LOGICAL, MPI_LOR,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(.NOT. LAND, 'logical land', NBAD)
      CALL CHECK(LOR .EQV. (NPROCS .GT. 1), 'logical lor', NBAD)
!     MAXLOC: the largest (value, index) pair; ties go to the lower index.
      PAIR(1) = MOD(RANK, 2)
      PAIR(2) = RANK
      CALL MPI_ALLREDUCE(PAIR, BEST, 1, MPI_2DOUBLE_PRECISION,
     &     MPI_MAXLOC, MPI_COMM_WORLD, IERR)
      IF (NPROCS .GT. 1) THEN
        CALL CHECK(BEST(1) .EQ. 1 .AND. BEST(2) .EQ. 1, 'maxloc', NBAD)
      END IF
!     A user operation written in Fortran: the value largest in magnitude.
      CALL MPI_OP_CREATE(IMAXABS, .TRUE., MYOP, IERR)
      IV = RANK
      IF (MOD(RANK, 2) .EQ. 1) IV = -RANK
      CALL MPI_ALLREDUCE(IV, ISUM, 1, MPI_INTEGER, MYOP,
     &     MPI_COMM_WORLD, IERR)
      IF (MOD(NPROCS - 1, 2) .EQ. 1) THEN
        CALL CHECK(ISUM .EQ. -(NPROCS - 1), 'user op', NBAD)
      ELSE
        CALL CHECK(ISUM .EQ. NPROCS - 1, 'user op', NBAD)
      END IF
!     MPI_OP_COMMUTATIVE (MPI-2.2): as created, and .TRUE. for MPI_SUM.
      FLAG = .FALSE.
      CALL MPI_OP_COMMUTATIVE(MYOP, FLAG, IERR)
      CALL CHECK(FLAG .AND. IERR .EQ. MPI_SUCCESS, 'op_commutative',
     &     NBAD)
      CALL MPI_OP_FREE(MYOP, IERR)
      CALL CHECK(MYOP .EQ. MPI_OP_NULL, 'op_free', NBAD)
      CALL MPI_OP_CREATE(IMAXABS, .FALSE., MYOP, IERR)
      FLAG = .TRUE.
      CALL MPI_OP_COMMUTATIVE(MYOP, FLAG, IERR)
      CALL CHECK(.NOT. FLAG, 'op_commutative of a non-commutative op',
     &     NBAD)
      CALL MPI_OP_FREE(MYOP, IERR)
      CALL MPI_OP_COMMUTATIVE(MPI_SUM, FLAG, IERR)
      CALL CHECK(FLAG, 'op_commutative of MPI_SUM', NBAD)
!     Scan, reduce_scatter, and an in-place allreduce.
      CALL MPI_SCAN(1, IV, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECK(IV .EQ. RANK + 1, 'scan', NBAD)
      DO I = 1, NPROCS
        A2A(I) = I
        CNTS(I) = 1
      END DO
      CALL MPI_REDUCE_SCATTER(A2A, IV, CNTS, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(IV .EQ. (RANK + 1) * NPROCS, 'reduce_scatter', NBAD)
!     Exscan of RANK + 1: rank r gets 1 + ... + r; rank 0 keeps its -1.
      IV = -1
      CALL MPI_EXSCAN(RANK + 1, IV, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(IV .EQ. RANK * (RANK + 1) / 2 .OR.
     &     (RANK .EQ. 0 .AND. IV .EQ. -1), 'exscan', NBAD)
      CALL MPI_REDUCE_SCATTER_BLOCK(A2A, IV, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(IV .EQ. (RANK + 1) * NPROCS, 'reduce_scatter_block',
     &     NBAD)
!     Alltoallw: one INTEGER to each rank, byte displacements, the
!     blocks received in reverse order.
      DO I = 1, NPROCS
        A2A(I) = 100 * RANK + I - 1
        CNTS(I) = 1
        TYPES(I) = MPI_INTEGER
        DISP(I) = 4 * (I - 1)
        BDSP(I) = 4 * (NPROCS - I)
      END DO
      CALL MPI_ALLTOALLW(A2A, CNTS, DISP, TYPES, ALL, CNTS, BDSP,
     &     TYPES, MPI_COMM_WORLD, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'alltoallw', NBAD)
      DO I = 1, NPROCS
        CALL CHECK(ALL(NPROCS - I + 1) .EQ. 100 * (I - 1) + RANK,
     &       'alltoallw', NBAD)
      END DO
      IV = RANK
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, IV, 1, MPI_INTEGER, MPI_MAX,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(IV .EQ. NPROCS - 1, 'in_place allreduce', NBAD)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'barrier', NBAD)
!     Nonblocking: four at once, completed by MPI_WAITALL.
      IW(1) = RANK
      IW(2) = -1
      IF (RANK .EQ. ROOT) IW(2) = 42
      IW(3) = -1
      IW(4) = -1
      CALL MPI_IALLREDUCE(MPI_IN_PLACE, IW(1), 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, REQS(1), IERR)
      CALL MPI_IBCAST(IW(2), 1, MPI_INTEGER, ROOT, MPI_COMM_WORLD,
     &     REQS(2), IERR)
      CALL MPI_ISCAN(1, IW(3), 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD,
     &     REQS(3), IERR)
      CALL MPI_IBARRIER(MPI_COMM_WORLD, REQS(4), IERR)
      CALL MPI_WAITALL(4, REQS, STATS, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'waitall', NBAD)
      CALL CHECK(IW(1) .EQ. NPROCS * (NPROCS - 1) / 2, 'iallreduce',
     &     NBAD)
      CALL CHECK(IW(2) .EQ. 42, 'ibcast', NBAD)
      CALL CHECK(IW(3) .EQ. RANK + 1, 'iscan', NBAD)
      CALL CHECK(REQS(4) .EQ. MPI_REQUEST_NULL, 'ibarrier', NBAD)
      DO I = 1, NPROCS
        ALL(I) = -1
        A2A(I) = 100 * RANK + I - 1
      END DO
      CALL MPI_IALLGATHER(RANK, 1, MPI_INTEGER, ALL, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, REQ, IERR)
      CALL MPI_WAIT(REQ, STATS, IERR)
      DO I = 1, NPROCS
        CALL CHECK(ALL(I) .EQ. I - 1, 'iallgather', NBAD)
      END DO
      CALL MPI_IALLTOALL(A2A, 1, MPI_INTEGER, ALL, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, REQ, IERR)
      CALL MPI_WAIT(REQ, STATS, IERR)
      DO I = 1, NPROCS
        CALL CHECK(ALL(I) .EQ. 100 * (I - 1) + RANK, 'ialltoall', NBAD)
      END DO
      IV = -1
      CALL MPI_IREDUCE(RANK + 1, IV, 1, MPI_INTEGER, MPI_PROD, ROOT,
     &     MPI_COMM_WORLD, REQ, IERR)
      CALL MPI_WAIT(REQ, STATS, IERR)
      IF (RANK .EQ. ROOT) THEN
        ISUM = 1
        DO I = 1, NPROCS
          ISUM = ISUM * I
        END DO
        CALL CHECK(IV .EQ. ISUM, 'ireduce', NBAD)
      END IF
      CALL FINISH('coll', NBAD)
      END

! INOUTVEC(I) becomes whichever of INVEC(I), INOUTVEC(I) is larger in
! magnitude (MPI-1.1 §4.9.4's Fortran user function).
      SUBROUTINE IMAXABS(INVEC, INOUTVEC, LEN, TYPE)
      INTEGER LEN, TYPE, INVEC(LEN), INOUTVEC(LEN), I
      DO I = 1, LEN
        IF (ABS(INVEC(I)) .GT. ABS(INOUTVEC(I))) INOUTVEC(I) = INVEC(I)
      END DO
      END
