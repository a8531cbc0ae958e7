! Point-to-point from Fortran (MPI-1.1 §3): blocking sends of each mode with
! statuses, nonblocking and persistent requests with 1-based MPI_WAITANY /
! MPI_WAITSOME indices, probes, MPI_STATUS(ES)_IGNORE left untouched, and a
! buffered send through an attached buffer. Rank r exchanges with r XOR 1;
! an odd last rank talks to itself through MPI_PROC_NULL. MPI-3's matched
! probe: MPI_IMPROBE, MPI_MPROBE, MPI_MRECV and MPI_IMRECV. MPI-2's
! generalized requests with Fortran callbacks (GQUERY, GFREE, GCANCEL).
      PROGRAM P2P
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, PEER, NBAD, I, N, IDX, OUTCNT
      INTEGER STATUS(MPI_STATUS_SIZE), STATS(MPI_STATUS_SIZE, 4)
      INTEGER REQS(4), IDXS(4), SBUF(4), RBUF(4), COUNT
      DOUBLE PRECISION DX(10), DY(10)
      INTEGER BSIZE
      PARAMETER (BSIZE = 1000)
      CHARACTER BUF(BSIZE)
      LOGICAL FLAG
      INTEGER MSG
!     EXTRA in COMMON: changed by callbacks during MPI calls that do
!     not name it, which a compiler then does not assume of a local.
      INTEGER(KIND=MPI_ADDRESS_KIND) EXTRA
      COMMON /GREQ/ EXTRA
      EXTERNAL GQUERY, GFREE, GCANCEL
      NBAD = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      PEER = IEOR(RANK, 1)
      IF (PEER .GE. NPROCS) PEER = MPI_PROC_NULL
!     Standard, synchronous and ready sends of 10 DOUBLE PRECISION; the
!     receiver checks source, tag and count (a shorter message is fine).
      DO I = 1, 10
        DX(I) = RANK * 100 + I
        DY(I) = -1
      END DO
      IF (PEER .NE. MPI_PROC_NULL) THEN
        IF (MOD(RANK, 2) .EQ. 0) THEN
          CALL MPI_SEND(DX, 10, MPI_DOUBLE_PRECISION, PEER, 1,
     &         MPI_COMM_WORLD, IERR)
          CALL MPI_SSEND(DX, 5, MPI_DOUBLE_PRECISION, PEER, 2,
     &         MPI_COMM_WORLD, IERR)
          CALL MPI_RECV(COUNT, 1, MPI_INTEGER, PEER, 3,
     &         MPI_COMM_WORLD, STATUS, IERR)
          CALL MPI_RSEND(DX, 3, MPI_DOUBLE_PRECISION, PEER, 4,
     &         MPI_COMM_WORLD, IERR)
        ELSE
          CALL MPI_RECV(DY, 10, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE,
     &         MPI_ANY_TAG, MPI_COMM_WORLD, STATUS, IERR)
          CALL CHECK(STATUS(MPI_SOURCE) .EQ. PEER, 'source', NBAD)
          CALL CHECK(STATUS(MPI_TAG) .EQ. 1, 'tag', NBAD)
          CALL CHECK(DY(10) .EQ. PEER * 100 + 10, 'send data', NBAD)
          CALL MPI_RECV(DY, 10, MPI_DOUBLE_PRECISION, PEER, 2,
     &         MPI_COMM_WORLD, STATUS, IERR)
          CALL MPI_GET_COUNT(STATUS, MPI_DOUBLE_PRECISION, COUNT, IERR)
          CALL CHECK(COUNT .EQ. 5, 'ssend count', NBAD)
          CALL MPI_GET_ELEMENTS(STATUS, MPI_DOUBLE_PRECISION, COUNT,
     &         IERR)
          CALL CHECK(COUNT .EQ. 5, 'get_elements', NBAD)
!         Post the receive for the ready send, then say so.
          CALL MPI_IRECV(DY, 10, MPI_DOUBLE_PRECISION, PEER, 4,
     &         MPI_COMM_WORLD, REQS(1), IERR)
          CALL MPI_SEND(0, 1, MPI_INTEGER, PEER, 3, MPI_COMM_WORLD,
     &         IERR)
          CALL MPI_WAIT(REQS(1), STATUS, IERR)
!         MPI-3.1 §17.1.8: DY is not read from a register kept across
!         the wait.
          CALL MPI_F_SYNC_REG(DY)
          CALL CHECK(REQS(1) .EQ. MPI_REQUEST_NULL, 'wait', NBAD)
          CALL MPI_GET_COUNT(STATUS, MPI_DOUBLE_PRECISION, COUNT, IERR)
          CALL CHECK(COUNT .EQ. 3, 'rsend count', NBAD)
        END IF
      END IF
!     Four nonblocking exchanges; WAITANY and WAITSOME give 1-based indices.
      DO I = 1, 4
        SBUF(I) = RANK * 10 + I
        RBUF(I) = -1
      END DO
      DO I = 1, 2
        CALL MPI_IRECV(RBUF(I), 1, MPI_INTEGER, PEER, I,
     &       MPI_COMM_WORLD, REQS(I), IERR)
        CALL MPI_ISEND(SBUF(I), 1, MPI_INTEGER, PEER, I,
     &       MPI_COMM_WORLD, REQS(I + 2), IERR)
      END DO
      N = 0
      DO I = 1, 4
        CALL MPI_WAITANY(4, REQS, IDX, STATUS, IERR)
        CALL CHECK(IDX .GE. 1 .AND. IDX .LE. 4, 'waitany index', NBAD)
        IF (IDX .GE. 1 .AND. IDX .LE. 4) THEN
          CALL CHECK(REQS(IDX) .EQ. MPI_REQUEST_NULL, 'waitany req',
     &         NBAD)
        END IF
      END DO
      CALL MPI_WAITANY(4, REQS, IDX, STATUS, IERR)
      CALL CHECK(IDX .EQ. MPI_UNDEFINED, 'waitany all null', NBAD)
      IF (PEER .NE. MPI_PROC_NULL) THEN
        CALL CHECK(RBUF(1) .EQ. PEER * 10 + 1 .AND.
     &       RBUF(2) .EQ. PEER * 10 + 2, 'isend data', NBAD)
      END IF
      DO I = 1, 2
        CALL MPI_IRECV(RBUF(I), 1, MPI_INTEGER, PEER, 10 + I,
     &       MPI_COMM_WORLD, REQS(I), IERR)
        CALL MPI_ISSEND(SBUF(I), 1, MPI_INTEGER, PEER, 10 + I,
     &       MPI_COMM_WORLD, REQS(I + 2), IERR)
      END DO
      N = 0
      DO WHILE (N .LT. 4)
        CALL MPI_WAITSOME(4, REQS, OUTCNT, IDXS, STATS, IERR)
        DO I = 1, OUTCNT
          CALL CHECK(IDXS(I) .GE. 1 .AND. IDXS(I) .LE. 4,
     &         'waitsome index', NBAD)
        END DO
        N = N + OUTCNT
      END DO
!     Persistent requests, started twice; then WAITALL ignoring statuses.
      CALL MPI_RECV_INIT(RBUF(3), 1, MPI_INTEGER, PEER, 20,
     &     MPI_COMM_WORLD, REQS(1), IERR)
      CALL MPI_SEND_INIT(SBUF(3), 1, MPI_INTEGER, PEER, 20,
     &     MPI_COMM_WORLD, REQS(2), IERR)
      DO I = 1, 2
        SBUF(3) = RANK + 1000 * I
        CALL MPI_STARTALL(2, REQS, IERR)
        CALL MPI_WAITALL(2, REQS, MPI_STATUSES_IGNORE, IERR)
        IF (PEER .NE. MPI_PROC_NULL) THEN
          CALL CHECK(RBUF(3) .EQ. PEER + 1000 * I, 'persistent', NBAD)
        END IF
      END DO
      CALL CHECK(REQS(1) .NE. MPI_REQUEST_NULL, 'persistent kept',
     &     NBAD)
      CALL MPI_REQUEST_FREE(REQS(1), IERR)
      CALL MPI_REQUEST_FREE(REQS(2), IERR)
      CALL CHECK(REQS(1) .EQ. MPI_REQUEST_NULL, 'request_free', NBAD)
      CALL CHECK(MPI_STATUSES_IGNORE(MPI_SOURCE, 1) .EQ. 0 .AND.
     &     MPI_STATUS_IGNORE(MPI_TAG) .EQ. 0, 'ignore untouched', NBAD)
!     Probe, then receive what was probed; Iprobe finds nothing after.
      IF (PEER .NE. MPI_PROC_NULL) THEN
        CALL MPI_SEND(SBUF, 4, MPI_INTEGER, PEER, 30, MPI_COMM_WORLD,
     &       IERR)
        CALL MPI_PROBE(PEER, 30, MPI_COMM_WORLD, STATUS, IERR)
        CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, COUNT, IERR)
        CALL CHECK(COUNT .EQ. 4, 'probe count', NBAD)
        CALL MPI_RECV(RBUF, COUNT, MPI_INTEGER, STATUS(MPI_SOURCE),
     &       STATUS(MPI_TAG), MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
        CALL MPI_IPROBE(PEER, 30, MPI_COMM_WORLD, FLAG, STATUS, IERR)
        CALL CHECK(.NOT. FLAG, 'iprobe empty', NBAD)
      END IF
!     A buffered send through an attached buffer; TEST until it arrives.
      CALL MPI_BUFFER_ATTACH(BUF, BSIZE, IERR)
      CALL MPI_IRECV(RBUF(4), 1, MPI_INTEGER, PEER, 40,
     &     MPI_COMM_WORLD, REQS(1), IERR)
      CALL MPI_BSEND(RANK, 1, MPI_INTEGER, PEER, 40, MPI_COMM_WORLD,
     &     IERR)
      FLAG = .FALSE.
      DO WHILE (.NOT. FLAG)
        CALL MPI_TEST(REQS(1), FLAG, STATUS, IERR)
      END DO
      IF (PEER .NE. MPI_PROC_NULL) THEN
        CALL CHECK(RBUF(4) .EQ. PEER, 'bsend data', NBAD)
      ELSE
        CALL CHECK(STATUS(MPI_SOURCE) .EQ. MPI_PROC_NULL,
     &       'proc_null status', NBAD)
      END IF
      CALL MPI_BUFFER_DETACH(BUF, N, IERR)
      CALL CHECK(N .EQ. BSIZE, 'buffer_detach size', NBAD)
!     SENDRECV_REPLACE with MPI_PROC_NULL leaves the buffer alone.
      SBUF(1) = 77
      CALL MPI_SENDRECV_REPLACE(SBUF, 1, MPI_INTEGER, MPI_PROC_NULL,
     &     1, MPI_PROC_NULL, 1, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECK(SBUF(1) .EQ. 77, 'sendrecv_replace', NBAD)
!     Matched probe: each rank sends two INTEGERs to its peer, probes,
!     takes the message and receives it by its handle.
      SBUF(1) = RANK
      SBUF(2) = RANK + 1000
      CALL MPI_ISEND(SBUF, 2, MPI_INTEGER, PEER, 50, MPI_COMM_WORLD,
     &     REQS(1), IERR)
      FLAG = .FALSE.
      DO WHILE (.NOT. FLAG)
        CALL MPI_IMPROBE(PEER, 50, MPI_COMM_WORLD, FLAG, MSG, STATUS,
     &       IERR)
      END DO
      RBUF(1) = -1
      RBUF(2) = -1
      CALL MPI_MRECV(RBUF, 2, MPI_INTEGER, MSG, STATUS, IERR)
      CALL CHECK(MSG .EQ. MPI_MESSAGE_NULL, 'mrecv message', NBAD)
      IF (PEER .NE. MPI_PROC_NULL) THEN
        CALL CHECK(RBUF(2) .EQ. PEER + 1000 .AND.
     &       STATUS(MPI_SOURCE) .EQ. PEER, 'mrecv data', NBAD)
      ELSE
        CALL CHECK(STATUS(MPI_SOURCE) .EQ. MPI_PROC_NULL,
     &       'mrecv proc_null', NBAD)
      END IF
      CALL MPI_WAIT(REQS(1), STATUS, IERR)
      CALL MPI_ISEND(SBUF, 2, MPI_INTEGER, PEER, 51, MPI_COMM_WORLD,
     &     REQS(1), IERR)
      CALL MPI_MPROBE(PEER, 51, MPI_COMM_WORLD, MSG, STATUS, IERR)
      CALL MPI_IMRECV(RBUF, 2, MPI_INTEGER, MSG, REQS(2), IERR)
      CALL MPI_WAITALL(2, REQS, STATS, IERR)
      IF (PEER .NE. MPI_PROC_NULL) THEN
        CALL CHECK(RBUF(1) .EQ. PEER, 'imrecv data', NBAD)
      END IF
!     A generalized request: incomplete until MPI_GREQUEST_COMPLETE;
!     the wait takes its status from GQUERY, then GFREE runs. The
!     callbacks get EXTRA itself: GQUERY reports it as the tag, GFREE
!     adds 100, GCANCEL 1000 if the request was complete.
      EXTRA = 7
      CALL MPI_GREQUEST_START(GQUERY, GFREE, GCANCEL, EXTRA, REQS(1),
     &     IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'grequest_start', NBAD)
      CALL MPI_TEST(REQS(1), FLAG, STATUS, IERR)
      CALL CHECK(.NOT. FLAG, 'grequest incomplete', NBAD)
      CALL MPI_GREQUEST_COMPLETE(REQS(1), IERR)
      CALL MPI_CANCEL(REQS(1), IERR)
      CALL CHECK(EXTRA .EQ. 1007, 'grequest cancel_fn', NBAD)
      CALL MPI_WAIT(REQS(1), STATUS, IERR)
      CALL CHECK(REQS(1) .EQ. MPI_REQUEST_NULL, 'grequest freed', NBAD)
      CALL CHECK(STATUS(MPI_TAG) .EQ. 1007, 'grequest query_fn', NBAD)
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, COUNT, IERR)
      CALL CHECK(COUNT .EQ. 2, 'grequest count', NBAD)
      CALL CHECK(EXTRA .EQ. 1107, 'grequest free_fn', NBAD)
!     Freed before it is complete: GFREE runs at completion.
      CALL MPI_GREQUEST_START(GQUERY, GFREE, GCANCEL, EXTRA, REQS(1),
     &     IERR)
      IDX = REQS(1)
      CALL MPI_REQUEST_FREE(REQS(1), IERR)
      CALL CHECK(EXTRA .EQ. 1107, 'grequest freed early', NBAD)
      CALL MPI_GREQUEST_COMPLETE(IDX, IERR)
      CALL CHECK(EXTRA .EQ. 1207, 'grequest free_fn at complete', NBAD)
      CALL FINISH('p2p', NBAD)
      END

      SUBROUTINE GQUERY(EXTRA, STATUS, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER(KIND=MPI_ADDRESS_KIND) EXTRA
      INTEGER STATUS(MPI_STATUS_SIZE), IERR
      STATUS(MPI_SOURCE) = MPI_UNDEFINED
      STATUS(MPI_TAG) = INT(EXTRA)
      CALL MPI_STATUS_SET_ELEMENTS(STATUS, MPI_INTEGER, 2, IERR)
      CALL MPI_STATUS_SET_CANCELLED(STATUS, .FALSE., IERR)
      IERR = MPI_SUCCESS
      END

      SUBROUTINE GFREE(EXTRA, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER(KIND=MPI_ADDRESS_KIND) EXTRA
      INTEGER IERR
      EXTRA = EXTRA + 100
      IERR = MPI_SUCCESS
      END

      SUBROUTINE GCANCEL(EXTRA, COMPLETE, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER(KIND=MPI_ADDRESS_KIND) EXTRA
      LOGICAL COMPLETE
      INTEGER IERR
      IF (COMPLETE) EXTRA = EXTRA + 1000
      IERR = MPI_SUCCESS
      END
