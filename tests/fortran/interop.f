! Datatypes across languages (MPI-2.2 §16.3.6, MPI-3.1 §17.2.6):
! MPI_GET_ADDRESS returns the address C's MPI_Get_address does, so a
! type of absolute addresses built in Fortran is sent from C's
! MPI_BOTTOM -- the standard's example of R(5) passed to a C_ROUTINE,
! as MPICH's f77/datatype/bottom -- and one built in C from Fortran's.
! Statuses across languages (MPI-2.2 §16.3.5): a Fortran status read in
! C through MPI_Status_f2c and written back through MPI_Status_c2f, and
! Fortran's MPI_STATUS_IGNORE seen in C as MPI_F_STATUS_IGNORE.
! Rank r sends to rank r XOR 1 (an odd last rank to itself).
      PROGRAM INTEROP
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER R(5), GOT(3), IERR, RANK, NPROCS, PEER, NBAD, CBAD, I
      INTEGER TYPE, CTYPE, AOBLEN(1), AOTYPE(1)
      INTEGER(KIND=MPI_ADDRESS_KIND) AODISP(1)
      INTEGER STATUS(MPI_STATUS_SIZE), COUNT
      NBAD = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      PEER = IEOR(RANK, 1)
      IF (PEER .GE. NPROCS) PEER = RANK
      DO I = 1, 5
        R(I) = RANK * 10 + I
      END DO
!     An absolute datatype for R, made here, used in C.
      AOBLEN(1) = 5
      CALL MPI_GET_ADDRESS(R, AODISP(1), IERR)
      AOTYPE(1) = MPI_INTEGER
      CALL MPI_TYPE_CREATE_STRUCT(1, AOBLEN, AODISP, AOTYPE, TYPE,
     &     IERR)
      CBAD = 0
      CALL C_ROUTINE(TYPE, R, PEER, CBAD)
      CALL CHECK(CBAD .EQ. 0, 'Fortran type sent from C MPI_BOTTOM',
     &     NBAD)
      CALL MPI_TYPE_FREE(TYPE, IERR)
!     An absolute datatype for a C array, made in C, used here.
      CALL C_ABSOLUTE_TYPE(RANK, CTYPE)
      CALL MPI_SENDRECV(MPI_BOTTOM, 1, CTYPE, PEER, 3, GOT, 3,
     &     MPI_INTEGER, PEER, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE,
     &     IERR)
      DO I = 1, 3
        CALL CHECK(GOT(I) .EQ. PEER * 100 + I,
     &       'C type sent from Fortran MPI_BOTTOM', NBAD)
      END DO
      CALL MPI_TYPE_FREE(CTYPE, IERR)
!     A status received here, read and rewritten in C.
      CALL MPI_SENDRECV(R, 3, MPI_INTEGER, PEER, 4, GOT, 3,
     &     MPI_INTEGER, PEER, 4, MPI_COMM_WORLD, STATUS, IERR)
      CBAD = 0
      CALL C_STATUS(STATUS, PEER, CBAD)
      CALL CHECK(CBAD .EQ. 0, 'the status read in C', NBAD)
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, COUNT, IERR)
      CALL CHECK(STATUS(MPI_TAG) .EQ. 99 .AND. COUNT .EQ. 2,
     &     'the status C wrote', NBAD)
      CBAD = 0
      CALL C_STATUS_IGNORE(MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE,
     &     CBAD)
      CALL CHECK(CBAD .EQ. 0, 'MPI_F_STATUS(ES)_IGNORE', NBAD)
      CALL FINISH('interop', NBAD)
      END
