! The chapters meshmp refuses at run time, from Fortran: one-sided
! communication (MPI-3.1 chapter 11) and parallel I/O (chapter 13) link,
! and each call returns MPI_ERR_UNSUPPORTED_OPERATION under
! MPI_ERRORS_RETURN, naming itself; the creating calls leave
! MPI_WIN_NULL and MPI_FILE_NULL; MPI goes on.
      PROGRAM REFUSED
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, NBAD, WIN, FH, BUF(4), SUM, NPROCS, KEY
      INTEGER(KIND=MPI_ADDRESS_KIND) WSIZE, DISP
      INTEGER(KIND=MPI_OFFSET_KIND) OFF
      INTEGER STATUS(MPI_STATUS_SIZE)
      LOGICAL REFUSE
      EXTERNAL REFUSE
      NBAD = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &     IERR)
      WIN = 7
      WSIZE = 16
      DISP = 0
      CALL MPI_WIN_CREATE(BUF, WSIZE, 4, MPI_INFO_NULL,
     &     MPI_COMM_WORLD, WIN, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_Win_create: one-sided'),
     &     'win_create', NBAD)
      CALL CHECK(WIN .EQ. MPI_WIN_NULL, 'win null', NBAD)
      CALL MPI_WIN_FENCE(MPI_MODE_NOPRECEDE, WIN, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_Win_fence: one-sided'),
     &     'win_fence', NBAD)
      CALL MPI_PUT(BUF, 1, MPI_INTEGER, 0, DISP, 1, MPI_INTEGER, WIN,
     &     IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_Put: one-sided'), 'put', NBAD)
      CALL MPI_ACCUMULATE(BUF, 1, MPI_INTEGER, 0, DISP, 1, MPI_INTEGER,
     &     MPI_REPLACE, WIN, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_Accumulate: one-sided'),
     &     'accumulate', NBAD)
      CALL MPI_WIN_LOCK(MPI_LOCK_SHARED, 0, 0, WIN, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_Win_lock: one-sided'),
     &     'win_lock', NBAD)
      CALL MPI_WIN_CREATE_KEYVAL(MPI_WIN_DUP_FN,
     &     MPI_WIN_NULL_DELETE_FN, KEY, DISP, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_Win_create_keyval: one-sided'),
     &     'win_create_keyval', NBAD)
      CALL MPI_WIN_CREATE_KEYVAL(MPI_WIN_NULL_COPY_FN,
     &     MPI_WIN_NULL_DELETE_FN, KEY, DISP, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_Win_create_keyval: one-sided'),
     &     'win_create_keyval null', NBAD)
      CALL MPI_WIN_FREE(WIN, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_Win_free: one-sided'),
     &     'win_free', NBAD)
      FH = 7
      CALL MPI_FILE_OPEN(MPI_COMM_WORLD, 'cfg.lime',
     &     MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, FH, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_File_open: parallel I/O'),
     &     'file_open', NBAD)
      CALL CHECK(FH .EQ. MPI_FILE_NULL, 'file null', NBAD)
      CALL MPI_FILE_SET_VIEW(FH, MPI_DISPLACEMENT_CURRENT, MPI_INTEGER,
     &     MPI_INTEGER, 'native', MPI_INFO_NULL, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_File_set_view: parallel I/O'),
     &     'file_set_view', NBAD)
      OFF = 0
      CALL MPI_FILE_WRITE_AT_ALL(FH, OFF, BUF, 4, MPI_INTEGER, STATUS,
     &     IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_File_write_at_all: parallel I/O'),
     &     'file_write_at_all', NBAD)
      CALL MPI_REGISTER_DATAREP('mine', MPI_CONVERSION_FN_NULL,
     &     MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, DISP, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_Register_datarep: parallel I/O'),
     &     'register_datarep', NBAD)
      CALL MPI_FILE_CLOSE(FH, IERR)
      CALL CHECK(REFUSE(IERR, 'MPI_File_close: parallel I/O'),
     &     'file_close', NBAD)
      CALL MPI_ALLREDUCE(1, SUM, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. SUM .EQ. NPROCS,
     &     'MPI goes on', NBAD)
      CALL FINISH('refused', NBAD)
      END

! Whether CODE is of class MPI_ERR_UNSUPPORTED_OPERATION and its string
! starts with START.
      LOGICAL FUNCTION REFUSE(CODE, START)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER CODE, CLS, MLEN, IERR
      CHARACTER*(*) START
      CHARACTER*(MPI_MAX_ERROR_STRING) MSG
      CALL MPI_ERROR_CLASS(CODE, CLS, IERR)
      CALL MPI_ERROR_STRING(CODE, MSG, MLEN, IERR)
      REFUSE = CLS .EQ. MPI_ERR_UNSUPPORTED_OPERATION .AND.
     &     MSG(1:LEN(START)) .EQ. START
      IF (.NOT. REFUSE) PRINT *, 'code ', CODE, ': ', MSG(1:MLEN)
      END
