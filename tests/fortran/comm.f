! Groups, communicators, intercommunicators and attributes from Fortran
! (MPI-1.1 §5): MPI_COMM_SPLIT into even and odd ranks, group algebra and
! rank translation, MPI_COMM_CREATE, MPI_COMM_COMPARE, an intercommunicator
! between the halves (of different sizes on an odd count) with traffic
! across it (blocking and nonblocking collectives too) and
! MPI_INTERCOMM_MERGE, attribute copy and delete callbacks
! written in Fortran and counted exactly, MPI_TAG_UB, and names;
! MPI_COMM_SPLIT_TYPE, MPI_COMM_SET/GET_INFO, MPI_UNIVERSE_SIZE,
! MPI_COMM_GET_PARENT and MPI_GET_LIBRARY_VERSION.
      PROGRAM COMM
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, NBAD, I, HALF, HRANK, HSIZE
      INTEGER WGRP, EGRP, OGRP, UGRP, GRP, NEWC, DUPC, RES, SZ
      INTEGER RANKS(16), OUT(16), RANGES(3, 1)
      INTEGER INTER, MERGED, RSIZE, PEERV, KEY, VAL, TAGUB
      INTEGER ISUM, IWANT, IROOT, REQ
      LOGICAL FLAG
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      CHARACTER*(MPI_MAX_LIBRARY_VERSION_STRING) LIBV
      INTEGER SHARED, INFO
      INTEGER NCOPY, NDEL
      COMMON /COUNTS/ NCOPY, NDEL
      EXTERNAL COPYFN, DELFN
      NBAD = 0
      NCOPY = 0
      NDEL = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
!     Even and odd halves.
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, MOD(RANK, 2), RANK, HALF,
     &     IERR)
      CALL MPI_COMM_RANK(HALF, HRANK, IERR)
      CALL MPI_COMM_SIZE(HALF, HSIZE, IERR)
      CALL CHECK(HRANK .EQ. RANK / 2, 'split rank', NBAD)
      CALL CHECK(HSIZE .EQ. (NPROCS + 1 - MOD(RANK, 2)) / 2,
     &     'split size', NBAD)
!     Group algebra: evens by MPI_GROUP_RANGE_INCL, odds by EXCL of them.
      CALL MPI_COMM_GROUP(MPI_COMM_WORLD, WGRP, IERR)
      RANGES(1, 1) = 0
      RANGES(2, 1) = NPROCS - 1
      RANGES(3, 1) = 2
      CALL MPI_GROUP_RANGE_INCL(WGRP, 1, RANGES, EGRP, IERR)
      CALL MPI_GROUP_SIZE(EGRP, SZ, IERR)
      CALL CHECK(SZ .EQ. (NPROCS + 1) / 2, 'range_incl', NBAD)
      CALL MPI_GROUP_DIFFERENCE(WGRP, EGRP, OGRP, IERR)
      CALL MPI_GROUP_SIZE(OGRP, SZ, IERR)
      CALL CHECK(SZ .EQ. NPROCS / 2, 'difference', NBAD)
      CALL MPI_GROUP_UNION(OGRP, EGRP, UGRP, IERR)
      CALL MPI_GROUP_COMPARE(UGRP, WGRP, RES, IERR)
      IF (NPROCS .GT. 2) THEN
        CALL CHECK(RES .EQ. MPI_SIMILAR, 'union similar', NBAD)
      END IF
      DO I = 1, (NPROCS + 1) / 2
        RANKS(I) = I - 1
      END DO
      CALL MPI_GROUP_TRANSLATE_RANKS(EGRP, (NPROCS + 1) / 2, RANKS,
     &     WGRP, OUT, IERR)
      DO I = 1, (NPROCS + 1) / 2
        CALL CHECK(OUT(I) .EQ. 2 * (I - 1), 'translate', NBAD)
      END DO
      CALL MPI_GROUP_INCL(WGRP, 1, RANKS, GRP, IERR)
      CALL MPI_GROUP_RANK(GRP, I, IERR)
      IF (RANK .NE. 0) CALL CHECK(I .EQ. MPI_UNDEFINED, 'incl', NBAD)
      CALL MPI_GROUP_FREE(GRP, IERR)
      CALL CHECK(GRP .EQ. MPI_GROUP_NULL, 'group_free', NBAD)
!     MPI_COMM_CREATE over the evens: MPI_COMM_NULL on the odds.
      CALL MPI_COMM_CREATE(MPI_COMM_WORLD, EGRP, NEWC, IERR)
      IF (MOD(RANK, 2) .EQ. 0) THEN
        CALL MPI_COMM_COMPARE(NEWC, HALF, RES, IERR)
        CALL CHECK(RES .EQ. MPI_CONGRUENT, 'create congruent', NBAD)
        CALL MPI_COMM_FREE(NEWC, IERR)
      ELSE
        CALL CHECK(NEWC .EQ. MPI_COMM_NULL, 'create null', NBAD)
      END IF
!     The intercommunicator between the halves; leaders are world 0 and 1.
      IF (NPROCS .GT. 1) THEN
        CALL MPI_INTERCOMM_CREATE(HALF, 0, MPI_COMM_WORLD,
     &       1 - MOD(RANK, 2), 99, INTER, IERR)
        CALL MPI_COMM_TEST_INTER(INTER, FLAG, IERR)
        CALL CHECK(FLAG, 'test_inter', NBAD)
        CALL MPI_COMM_REMOTE_SIZE(INTER, RSIZE, IERR)
        CALL CHECK(RSIZE .EQ. NPROCS - HSIZE, 'remote size', NBAD)
!       Local rank 0 of each side sends its world rank to remote rank 0.
        IF (HRANK .EQ. 0) THEN
          CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, 0, 5, PEERV, 1,
     &         MPI_INTEGER, 0, 5, INTER, MPI_STATUS_IGNORE, IERR)
          CALL CHECK(PEERV .EQ. 1 - RANK, 'intercomm traffic', NBAD)
        END IF
!       Collectives between the halves (MPI-2.2 5.2.2): each side gets the
!       sum of the other side's world ranks; world rank 0 broadcasts to
!       the odd half (MPI_ROOT there, MPI_PROC_NULL beside it).
        CALL MPI_ALLREDUCE(RANK, ISUM, 1, MPI_INTEGER, MPI_SUM, INTER,
     &       IERR)
        IWANT = 0
        DO I = 0, NPROCS - 1
          IF (MOD(I, 2) .NE. MOD(RANK, 2)) IWANT = IWANT + I
        END DO
        CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. ISUM .EQ. IWANT,
     &       'intercomm allreduce', NBAD)
        IROOT = 0
        IF (RANK .EQ. 0) IROOT = MPI_ROOT
        IF (MOD(RANK, 2) .EQ. 0 .AND. RANK .NE. 0) IROOT = MPI_PROC_NULL
        VAL = -1
        IF (RANK .EQ. 0) VAL = 4242
        CALL MPI_BCAST(VAL, 1, MPI_INTEGER, IROOT, INTER, IERR)
        IF (MOD(RANK, 2) .EQ. 1 .OR. RANK .EQ. 0) THEN
          CALL CHECK(VAL .EQ. 4242, 'intercomm bcast', NBAD)
        ELSE
          CALL CHECK(VAL .EQ. -1, 'intercomm bcast (not a receiver)',
     &         NBAD)
        END IF
!       The nonblocking forms (MPI-3.1 5.12) on it: MPI_IALLREDUCE of
!       twice the world rank, completed by a test loop, and MPI_IBARRIER.
        VAL = 2 * RANK
        CALL MPI_IALLREDUCE(VAL, ISUM, 1, MPI_INTEGER, MPI_SUM, INTER,
     &       REQ, IERR)
        FLAG = .FALSE.
        DO WHILE (.NOT. FLAG)
          CALL MPI_TEST(REQ, FLAG, MPI_STATUS_IGNORE, IERR)
        END DO
        CALL CHECK(ISUM .EQ. 2 * IWANT, 'intercomm iallreduce', NBAD)
        CALL MPI_IBARRIER(INTER, REQ, IERR)
        CALL MPI_WAIT(REQ, MPI_STATUS_IGNORE, IERR)
        CALL CHECK(IERR .EQ. MPI_SUCCESS, 'intercomm ibarrier', NBAD)
        CALL MPI_INTERCOMM_MERGE(INTER, MOD(RANK, 2) .EQ. 1, MERGED,
     &       IERR)
        CALL MPI_COMM_RANK(MERGED, I, IERR)
        IF (MOD(RANK, 2) .EQ. 0) THEN
          CALL CHECK(I .EQ. HRANK, 'merge low', NBAD)
        ELSE
          CALL CHECK(I .EQ. (NPROCS + 1) / 2 + HRANK, 'merge high',
     &         NBAD)
        END IF
        CALL MPI_COMM_FREE(MERGED, IERR)
        CALL MPI_COMM_FREE(INTER, IERR)
      END IF
!     Attributes: the copy callback runs on each dup, the delete callback
!     on each free and on MPI_ATTR_DELETE.
      CALL MPI_KEYVAL_CREATE(COPYFN, DELFN, KEY, 5, IERR)
      CALL MPI_ATTR_PUT(HALF, KEY, 42, IERR)
      CALL MPI_COMM_DUP(HALF, DUPC, IERR)
      CALL MPI_ATTR_GET(DUPC, KEY, VAL, FLAG, IERR)
      CALL CHECK(FLAG .AND. VAL .EQ. 43, 'copied attribute', NBAD)
      CALL CHECK(NCOPY .EQ. 1, 'copy callback count', NBAD)
      CALL MPI_COMM_FREE(DUPC, IERR)
      CALL CHECK(NDEL .EQ. 1, 'delete on free', NBAD)
      CALL MPI_ATTR_DELETE(HALF, KEY, IERR)
      CALL CHECK(NDEL .EQ. 2, 'delete on attr_delete', NBAD)
      CALL MPI_ATTR_GET(HALF, KEY, VAL, FLAG, IERR)
      CALL CHECK(.NOT. FLAG, 'deleted attribute', NBAD)
      CALL MPI_KEYVAL_FREE(KEY, IERR)
      CALL CHECK(KEY .EQ. MPI_KEYVAL_INVALID, 'keyval_free', NBAD)
!     MPI_DUP_FN keeps the value; MPI_NULL_COPY_FN drops it.
      CALL MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, KEY, 0,
     &     IERR)
      CALL MPI_ATTR_PUT(HALF, KEY, 9, IERR)
      CALL MPI_COMM_DUP(HALF, DUPC, IERR)
      CALL MPI_ATTR_GET(DUPC, KEY, VAL, FLAG, IERR)
      CALL CHECK(FLAG .AND. VAL .EQ. 9, 'MPI_DUP_FN', NBAD)
      CALL MPI_COMM_FREE(DUPC, IERR)
      CALL MPI_KEYVAL_FREE(KEY, IERR)
      CALL MPI_KEYVAL_CREATE(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, KEY,
     &     0, IERR)
      CALL MPI_ATTR_PUT(HALF, KEY, 9, IERR)
      CALL MPI_COMM_DUP(HALF, DUPC, IERR)
      CALL MPI_ATTR_GET(DUPC, KEY, VAL, FLAG, IERR)
      CALL CHECK(.NOT. FLAG, 'MPI_NULL_COPY_FN', NBAD)
      CALL MPI_COMM_FREE(DUPC, IERR)
      CALL MPI_ATTR_DELETE(HALF, KEY, IERR)
      CALL MPI_KEYVAL_FREE(KEY, IERR)
!     The predefined MPI_TAG_UB reads as a value, at least 32767.
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, TAGUB, FLAG, IERR)
      CALL CHECK(FLAG .AND. TAGUB .GE. 32767, 'MPI_TAG_UB', NBAD)
!     Names.
      CALL MPI_COMM_GET_NAME(MPI_COMM_WORLD, NAME, I, IERR)
      CALL CHECK(NAME .EQ. 'MPI_COMM_WORLD' .AND. I .EQ. 14,
     &     'world name', NBAD)
      CALL MPI_COMM_SET_NAME(HALF, 'half', IERR)
      CALL MPI_COMM_GET_NAME(HALF, NAME, I, IERR)
      CALL CHECK(NAME .EQ. 'half' .AND. I .EQ. 4, 'set name', NBAD)
      CALL MPI_GROUP_FREE(WGRP, IERR)
      CALL MPI_GROUP_FREE(EGRP, IERR)
      CALL MPI_GROUP_FREE(OGRP, IERR)
      CALL MPI_GROUP_FREE(UGRP, IERR)
      CALL MPI_COMM_FREE(HALF, IERR)
!     One host here: the shared communicator is the world, by key.
      CALL MPI_COMM_SPLIT_TYPE(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED,
     &     -RANK, MPI_INFO_NULL, SHARED, IERR)
      CALL MPI_COMM_SIZE(SHARED, SZ, IERR)
      CALL MPI_COMM_RANK(SHARED, I, IERR)
      CALL CHECK(SZ .EQ. NPROCS .AND. I .EQ. NPROCS - 1 - RANK,
     &     'comm_split_type', NBAD)
      CALL MPI_COMM_FREE(SHARED, IERR)
!     No hint is read: the hints in use are none.
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL MPI_INFO_SET(INFO, 'mpi_assert_no_any_tag', 'true', IERR)
      CALL MPI_COMM_SET_INFO(MPI_COMM_WORLD, INFO, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'comm_set_info', NBAD)
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL MPI_COMM_GET_INFO(MPI_COMM_WORLD, INFO, IERR)
      CALL MPI_INFO_GET_NKEYS(INFO, I, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. I .EQ. 0,
     &     'comm_get_info', NBAD)
      CALL MPI_INFO_FREE(INFO, IERR)
!     Nothing can be spawned: the universe is the job.
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, VAL, FLAG,
     &     IERR)
      CALL CHECK(FLAG .AND. VAL .EQ. NPROCS, 'universe_size', NBAD)
      CALL MPI_COMM_GET_PARENT(I, IERR)
      CALL CHECK(I .EQ. MPI_COMM_NULL, 'comm_get_parent', NBAD)
      CALL MPI_GET_LIBRARY_VERSION(LIBV, I, IERR)
      CALL CHECK(LIBV(1:6) .EQ. 'meshmp' .AND. I .GT. 6,
     &     'get_library_version', NBAD)
      CALL FINISH('comm', NBAD)
      END

! The copy callback: keeps value + 1 in the new communicator; counted.
      SUBROUTINE COPYFN(OLDCOMM, KEYVAL, EXTRA, VALIN, VALOUT, FLAG,
     &     IERR)
      INTEGER OLDCOMM, KEYVAL, EXTRA, VALIN, VALOUT, IERR
      LOGICAL FLAG
      INTEGER NCOPY, NDEL
      COMMON /COUNTS/ NCOPY, NDEL
      NCOPY = NCOPY + 1
      VALOUT = VALIN + 1
      FLAG = EXTRA .EQ. 5
      IERR = 0
      END

! The delete callback: counted, checks the extra state it was given.
      SUBROUTINE DELFN(COMM, KEYVAL, VAL, EXTRA, IERR)
      INTEGER COMM, KEYVAL, VAL, EXTRA, IERR
      INTEGER NCOPY, NDEL
      COMMON /COUNTS/ NCOPY, NDEL
      IF (EXTRA .EQ. 5) NDEL = NDEL + 1
      IERR = 0
      END
