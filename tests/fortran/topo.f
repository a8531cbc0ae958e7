! Process topologies from Fortran (MPI-1.1 §6): MPI_DIMS_CREATE, a periodic
! 2-D Cartesian grid with MPI_CART_GET / _COORDS / _RANK / _SHIFT and
! MPI_CART_SUB into rows, and a ring as a graph topology; MPI-3's
! MPI_NEIGHBOR_ALLGATHER on both and MPI_NEIGHBOR_ALLTOALL on the grid,
! the latter also as MPI_INEIGHBOR_ALLTOALL and MPI_WAIT; a distributed
! graph (the ring's successor, unweighted) and its queries.
      PROGRAM TOPO
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, NBAD, I, R
      INTEGER DIMS(2), COORDS(2), C2(2), CART, ROWC, RSIZE, NDIMS, ST
      INTEGER SRC, DST, GRAPH, IDX(16), EDGES(32), NN, NE, NB(2)
      LOGICAL PERIODS(2), PER(2), REMAIN(2)
      INTEGER NBR(4), SB(4), RB(4), REQ, STAT(MPI_STATUS_SIZE)
      INTEGER DG, SUCC(1), INDEG, OUTDEG
      LOGICAL WTD
      NBAD = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      DIMS(1) = 0
      DIMS(2) = 0
      CALL MPI_DIMS_CREATE(NPROCS, 2, DIMS, IERR)
      CALL CHECK(DIMS(1) * DIMS(2) .EQ. NPROCS .AND.
     &     DIMS(1) .GE. DIMS(2), 'dims_create', NBAD)
      PERIODS(1) = .TRUE.
      PERIODS(2) = .FALSE.
      CALL MPI_CART_CREATE(MPI_COMM_WORLD, 2, DIMS, PERIODS, .FALSE.,
     &     CART, IERR)
      CALL MPI_TOPO_TEST(CART, ST, IERR)
      CALL CHECK(ST .EQ. MPI_CART, 'topo_test', NBAD)
      CALL MPI_CARTDIM_GET(CART, NDIMS, IERR)
      CALL CHECK(NDIMS .EQ. 2, 'cartdim_get', NBAD)
      CALL MPI_CART_GET(CART, 2, C2, PER, COORDS, IERR)
      CALL CHECK(C2(1) .EQ. DIMS(1) .AND. PER(1) .AND. .NOT. PER(2),
     &     'cart_get', NBAD)
      CALL MPI_CART_COORDS(CART, RANK, 2, C2, IERR)
      CALL CHECK(C2(1) .EQ. COORDS(1) .AND. C2(2) .EQ. COORDS(2),
     &     'cart_coords', NBAD)
!     Row-major: rank = x * dims(2) + y (MPI-1.1 §6.5.1).
      CALL CHECK(RANK .EQ. COORDS(1) * DIMS(2) + COORDS(2),
     &     'row-major', NBAD)
      CALL MPI_CART_RANK(CART, COORDS, R, IERR)
      CALL CHECK(R .EQ. RANK, 'cart_rank', NBAD)
      CALL MPI_CART_SHIFT(CART, 0, 1, SRC, DST, IERR)
      C2(1) = MOD(COORDS(1) + 1, DIMS(1))
      C2(2) = COORDS(2)
      CALL MPI_CART_RANK(CART, C2, R, IERR)
      CALL CHECK(DST .EQ. R, 'shift periodic', NBAD)
      CALL MPI_CART_SHIFT(CART, 1, 1, SRC, DST, IERR)
      IF (COORDS(2) .EQ. DIMS(2) - 1) THEN
        CALL CHECK(DST .EQ. MPI_PROC_NULL, 'shift edge', NBAD)
      END IF
      REMAIN(1) = .FALSE.
      REMAIN(2) = .TRUE.
      CALL MPI_CART_SUB(CART, REMAIN, ROWC, IERR)
      CALL MPI_COMM_SIZE(ROWC, RSIZE, IERR)
      CALL CHECK(RSIZE .EQ. DIMS(2), 'cart_sub', NBAD)
      CALL MPI_COMM_FREE(ROWC, IERR)
!     Neighbour blocks: -1 and +1 of dimension 1, then of dimension 2;
!     an open edge's block stays -7.
      CALL MPI_CART_SHIFT(CART, 0, 1, NBR(1), NBR(2), IERR)
      CALL MPI_CART_SHIFT(CART, 1, 1, NBR(3), NBR(4), IERR)
      DO I = 1, 4
        RB(I) = -7
        SB(I) = 10 * RANK + I
      END DO
      CALL MPI_NEIGHBOR_ALLGATHER(RANK, 1, MPI_INTEGER, RB, 1,
     &     MPI_INTEGER, CART, IERR)
      DO I = 1, 4
        IF (NBR(I) .EQ. MPI_PROC_NULL) THEN
          CALL CHECK(RB(I) .EQ. -7, 'neighbor_allgather edge', NBAD)
        ELSE
          CALL CHECK(RB(I) .EQ. NBR(I), 'neighbor_allgather', NBAD)
        END IF
        RB(I) = -7
      END DO
!     Block I comes from neighbour I, which sent it as its opposite block.
      CALL MPI_NEIGHBOR_ALLTOALL(SB, 1, MPI_INTEGER, RB, 1,
     &     MPI_INTEGER, CART, IERR)
      DO I = 1, 4
        IF (NBR(I) .NE. MPI_PROC_NULL) THEN
          R = I + 1
          IF (MOD(I, 2) .EQ. 0) R = I - 1
          CALL CHECK(RB(I) .EQ. 10 * NBR(I) + R, 'neighbor_alltoall',
     &         NBAD)
        END IF
      END DO
      DO I = 1, 4
        RB(I) = -7
      END DO
      CALL MPI_INEIGHBOR_ALLTOALL(SB, 1, MPI_INTEGER, RB, 1,
     &     MPI_INTEGER, CART, REQ, IERR)
      CALL MPI_WAIT(REQ, STAT, IERR)
      DO I = 1, 4
        R = I + 1
        IF (MOD(I, 2) .EQ. 0) R = I - 1
        IF (NBR(I) .NE. MPI_PROC_NULL) THEN
          CALL CHECK(RB(I) .EQ. 10 * NBR(I) + R, 'ineighbor_alltoall',
     &         NBAD)
        ELSE
          CALL CHECK(RB(I) .EQ. -7, 'ineighbor_alltoall edge', NBAD)
        END IF
      END DO
      CALL MPI_COMM_FREE(CART, IERR)
!     A ring as a graph: node i's neighbours are i-1 and i+1.
      DO I = 1, NPROCS
        IDX(I) = 2 * I
        EDGES(2 * I - 1) = MOD(I - 2 + NPROCS, NPROCS)
        EDGES(2 * I) = MOD(I, NPROCS)
      END DO
      CALL MPI_GRAPH_CREATE(MPI_COMM_WORLD, NPROCS, IDX, EDGES,
     &     .FALSE., GRAPH, IERR)
      CALL MPI_TOPO_TEST(GRAPH, ST, IERR)
      CALL CHECK(ST .EQ. MPI_GRAPH, 'graph topo_test', NBAD)
      CALL MPI_GRAPHDIMS_GET(GRAPH, NN, NE, IERR)
      CALL CHECK(NN .EQ. NPROCS .AND. NE .EQ. 2 * NPROCS,
     &     'graphdims_get', NBAD)
      CALL MPI_GRAPH_NEIGHBORS_COUNT(GRAPH, RANK, NN, IERR)
      CALL MPI_GRAPH_NEIGHBORS(GRAPH, RANK, 2, NB, IERR)
      CALL CHECK(NN .EQ. 2 .AND. NB(1) .EQ. MOD(RANK - 1 + NPROCS,
     &     NPROCS) .AND. NB(2) .EQ. MOD(RANK + 1, NPROCS),
     &     'graph_neighbors', NBAD)
      CALL MPI_NEIGHBOR_ALLGATHER(RANK, 1, MPI_INTEGER, RB, 1,
     &     MPI_INTEGER, GRAPH, IERR)
      CALL CHECK(RB(1) .EQ. NB(1) .AND. RB(2) .EQ. NB(2),
     &     'graph neighbor_allgather', NBAD)
      CALL MPI_COMM_FREE(GRAPH, IERR)
      SUCC(1) = MOD(RANK + 1, NPROCS)
      CALL MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, SUCC,
     &     MPI_UNWEIGHTED, 1, SUCC, MPI_UNWEIGHTED, MPI_INFO_NULL,
     &     .FALSE., DG, IERR)
      CALL MPI_TOPO_TEST(DG, ST, IERR)
      CALL CHECK(ST .EQ. MPI_DIST_GRAPH, 'dist graph topo_test', NBAD)
      CALL MPI_DIST_GRAPH_NEIGHBORS_COUNT(DG, INDEG, OUTDEG, WTD,
     &     IERR)
      CALL CHECK(INDEG .EQ. 1 .AND. OUTDEG .EQ. 1 .AND. .NOT. WTD,
     &     'dist_graph_neighbors_count', NBAD)
      CALL MPI_DIST_GRAPH_NEIGHBORS(DG, 1, NB, MPI_UNWEIGHTED, 1,
     &     NB(2), MPI_UNWEIGHTED, IERR)
      CALL CHECK(NB(1) .EQ. SUCC(1) .AND. NB(2) .EQ. SUCC(1),
     &     'dist_graph_neighbors', NBAD)
      CALL MPI_COMM_FREE(DG, IERR)
      CALL FINISH('topo', NBAD)
      END
