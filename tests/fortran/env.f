! The environment from Fortran (MPI-1.1 §7): MPI_INITIALIZED, MPI_WTIME and
! MPI_WTICK, MPI_GET_PROCESSOR_NAME, MPI_GET_VERSION, and a Fortran error
! handler that receives the code of each deliberate error (bad rank, tag,
! count, datatype, communicator, root, operation, truncation) while the job
! goes on; MPI_ERROR_CLASS and MPI_ERROR_STRING on those codes; and
! MPI_ERRORS_RETURN; MPI-2.2's info objects with CHARACTER keys and values.
      PROGRAM ENV
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, NBAD, EH, LEN, V, SV, X(4)
      INTEGER NCALLS, LASTCODE
      COMMON /HANDLED/ NCALLS, LASTCODE
      LOGICAL FLAG
      DOUBLE PRECISION T0, T1
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) HOST
      CHARACTER*(MPI_MAX_ERROR_STRING) MSG
      CHARACTER*(MPI_MAX_INFO_KEY) KEY
      CHARACTER*8 VAL
      INTEGER INFO, NKEYS, VLEN, MYCLS, MYCODE, CLS
      EXTERNAL HANDLER
      NBAD = 0
      NCALLS = 0
      CALL MPI_INITIALIZED(FLAG, IERR)
      CALL CHECK0(.NOT. FLAG, NBAD)
      CALL MPI_INIT(IERR)
      CALL MPI_INITIALIZED(FLAG, IERR)
      CALL CHECK(FLAG, 'initialized', NBAD)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      T0 = MPI_WTIME()
      T1 = MPI_WTIME()
      CALL CHECK(T1 .GE. T0 .AND. MPI_WTICK() .GT. 0, 'wtime', NBAD)
      CALL MPI_GET_PROCESSOR_NAME(HOST, LEN, IERR)
      CALL CHECK(LEN .GT. 0 .AND. HOST(LEN+1:) .EQ. ' ',
     &     'processor name', NBAD)
      CALL MPI_GET_VERSION(V, SV, IERR)
      CALL CHECK(V .EQ. 1 .AND. SV .EQ. 1, 'version', NBAD)
!     A user handler on the world; each error reaches it with its code.
      CALL MPI_ERRHANDLER_CREATE(HANDLER, EH, IERR)
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, EH, IERR)
      CALL MPI_SEND(X, 1, MPI_INTEGER, NPROCS, 0, MPI_COMM_WORLD, IERR)
      CALL EXPECT(IERR, MPI_ERR_RANK, 'bad rank', NBAD)
      CALL MPI_SEND(X, 1, MPI_INTEGER, 0, -5, MPI_COMM_WORLD, IERR)
      CALL EXPECT(IERR, MPI_ERR_TAG, 'bad tag', NBAD)
      CALL MPI_SEND(X, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, IERR)
      CALL EXPECT(IERR, MPI_ERR_COUNT, 'bad count', NBAD)
      CALL MPI_SEND(X, 1, 12345, 0, 0, MPI_COMM_WORLD, IERR)
      CALL EXPECT(IERR, MPI_ERR_TYPE, 'bad datatype', NBAD)
      CALL MPI_BCAST(X, 1, MPI_INTEGER, NPROCS, MPI_COMM_WORLD, IERR)
      CALL EXPECT(IERR, MPI_ERR_ROOT, 'bad root', NBAD)
      CALL MPI_ALLREDUCE(X, X(2), 1, MPI_LOGICAL, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL EXPECT(IERR, MPI_ERR_OP, 'sum of logicals', NBAD)
!     Truncation: 4 INTEGERs into room for 1, on this rank alone.
      CALL MPI_SENDRECV(X, 4, MPI_INTEGER, RANK, 3, X, 1, MPI_INTEGER,
     &     RANK, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      CALL EXPECT(IERR, MPI_ERR_TRUNCATE, 'truncation', NBAD)
      CALL CHECK(NCALLS .EQ. 7, 'handler calls', NBAD)
      CALL MPI_ERROR_STRING(LASTCODE, MSG, LEN, IERR)
      CALL CHECK(LEN .GT. 0 .AND. INDEX(MSG, 'MPI_Sendrecv') .GT. 0,
     &     'error string', NBAD)
!     MPI_ERRORS_RETURN: the code comes back and no handler runs.
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_NULL, V, IERR)
      CALL EXPECT(IERR, MPI_ERR_COMM, 'null communicator', NBAD)
      CALL CHECK(NCALLS .EQ. 7, 'no handler call', NBAD)
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, V, IERR)
      CALL CHECK(V .EQ. MPI_ERRORS_RETURN, 'errhandler_get', NBAD)
      CALL MPI_ERRHANDLER_FREE(EH, IERR)
      CALL CHECK(EH .EQ. MPI_ERRHANDLER_NULL, 'errhandler_free', NBAD)
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL,
     &     IERR)
!     Info: blanks around keys and values are dropped going in; values
!     come back blank-padded, at most VALUELEN characters.
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL MPI_INFO_SET(INFO, ' cb_nodes ', '16', IERR)
      CALL MPI_INFO_SET(INFO, 'striping_unit', '1048576', IERR)
      CALL MPI_INFO_GET_NKEYS(INFO, NKEYS, IERR)
      CALL CHECK(NKEYS .EQ. 2, 'info_get_nkeys', NBAD)
      CALL MPI_INFO_GET_NTHKEY(INFO, 1, KEY, IERR)
      CALL CHECK(KEY .EQ. 'striping_unit', 'info_get_nthkey', NBAD)
      CALL MPI_INFO_GET(INFO, 'cb_nodes', 8, VAL, FLAG, IERR)
      CALL CHECK(FLAG .AND. VAL .EQ. '16', 'info_get', NBAD)
      CALL MPI_INFO_GET(INFO, 'striping_unit', 3, VAL, FLAG, IERR)
      CALL CHECK(FLAG .AND. VAL .EQ. '104', 'info_get valuelen', NBAD)
      CALL MPI_INFO_GET_VALUELEN(INFO, 'striping_unit', VLEN, FLAG,
     &     IERR)
      CALL CHECK(FLAG .AND. VLEN .EQ. 7, 'info_get_valuelen', NBAD)
      CALL MPI_INFO_DELETE(INFO, 'cb_nodes', IERR)
      CALL MPI_INFO_GET(INFO, 'cb_nodes', 8, VAL, FLAG, IERR)
      CALL CHECK(.NOT. FLAG, 'info_delete', NBAD)
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL CHECK(INFO .EQ. MPI_INFO_NULL, 'info_free', NBAD)
!     An error class and code of the program's own, with their text.
      CALL MPI_ADD_ERROR_CLASS(MYCLS, IERR)
      CALL MPI_ADD_ERROR_CODE(MYCLS, MYCODE, IERR)
      CALL MPI_ADD_ERROR_STRING(MYCODE, 'solver diverged', IERR)
      CALL MPI_ERROR_CLASS(MYCODE, CLS, IERR)
      CALL CHECK(CLS .EQ. MYCLS, 'add_error_code class', NBAD)
      CALL MPI_ERROR_STRING(MYCODE, MSG, LEN, IERR)
      CALL CHECK(MSG .EQ. 'solver diverged' .AND. LEN .EQ. 15,
     &     'add_error_string', NBAD)
      CALL FINISH('env', NBAD)
      END

! Counts the errors that reach it and keeps the last code.
      SUBROUTINE HANDLER(COMM, CODE)
      INTEGER COMM, CODE
      INTEGER NCALLS, LASTCODE
      COMMON /HANDLED/ NCALLS, LASTCODE
      NCALLS = NCALLS + 1
      LASTCODE = CODE
      END

! Checks that IERR is of class WANT.
      SUBROUTINE EXPECT(IERR, WANT, WHAT, NBAD)
      INCLUDE 'mpif.h'
      INTEGER IERR, WANT, NBAD, CLS, E
      CHARACTER*(*) WHAT
      CALL MPI_ERROR_CLASS(IERR, CLS, E)
      CALL CHECK(IERR .NE. MPI_SUCCESS .AND. CLS .EQ. WANT, WHAT, NBAD)
      END

! A check before MPI_INIT (CHECK itself needs MPI to print the rank).
      SUBROUTINE CHECK0(OK, NBAD)
      LOGICAL OK
      INTEGER NBAD
      IF (.NOT. OK) THEN
        PRINT *, 'check failed: initialized before MPI_INIT'
        NBAD = NBAD + 1
      END IF
      END
