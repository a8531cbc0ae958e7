! A free-form Fortran 90 program built with mpif90 against the `mpi` module:
! each rank adds its rank into an MPI_ALLREDUCE and passes a token around a
! ring with MPI_SENDRECV; MPI_SIZEOF of scalars and arrays of several types
! and kinds agrees with storage_size and MPI_TYPE_SIZE; the module's
! feature flags and C++ types. Prints
! "use_mpi: N ranks ok" on rank 0.
program use_mpi_test
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, total, token, status(MPI_STATUS_SIZE)
  integer :: nbad, bytes, tsize
  integer(kind=1) :: i1
  integer(kind=8) :: i8(3)
  real :: r4(2, 2)
  real(kind=16) :: r16
  double precision :: d
  complex(kind=8) :: z(4)
  logical :: l
  character(len=5) :: ch
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(rank + 1, nprocs), 0, token, 1, MPI_INTEGER, &
                    mod(rank + nprocs - 1, nprocs), 0, MPI_COMM_WORLD, status, ierr)
  if (total /= nprocs * (nprocs - 1) / 2 .or. token /= mod(rank + nprocs - 1, nprocs) .or. &
      status(MPI_SOURCE) /= token) then
    print *, 'use_mpi: rank', rank, 'got total', total, 'token', token
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  nbad = 0
  call MPI_Sizeof(i1, bytes, ierr)
  if (bytes /= 1 .or. ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_Sizeof(i8, bytes, ierr)
  if (bytes /= storage_size(i8) / 8) nbad = nbad + 1
  call MPI_Sizeof(r4, bytes, ierr)
  call MPI_Type_size(MPI_REAL, tsize, ierr)
  if (bytes /= tsize) nbad = nbad + 1
  call MPI_Sizeof(r16, bytes, ierr)
  call MPI_Type_size(MPI_REAL16, tsize, ierr)
  if (bytes /= 16 .or. tsize /= 16) nbad = nbad + 1
  call MPI_Sizeof(d, bytes, ierr)
  if (bytes /= 8) nbad = nbad + 1
  call MPI_Sizeof(z, bytes, ierr)
  call MPI_Type_size(MPI_DOUBLE_COMPLEX, tsize, ierr)
  if (bytes /= tsize) nbad = nbad + 1
  call MPI_Sizeof(l, bytes, ierr)
  if (bytes /= 4) nbad = nbad + 1
  call MPI_Sizeof(ch, bytes, ierr)
  if (bytes /= 1) nbad = nbad + 1
  ! MPI-3.1 §17.1.2/§17.1.4: the mpi module has neither feature; the C++
  ! types are predefined in every language (§17.2.6).
  if (MPI_SUBARRAYS_SUPPORTED .or. MPI_ASYNC_PROTECTS_NONBLOCKING) nbad = nbad + 1
  call MPI_Type_size(MPI_CXX_BOOL, tsize, ierr)
  if (tsize /= 1 .or. ierr /= MPI_SUCCESS) nbad = nbad + 1
  call MPI_Type_size(MPI_CXX_DOUBLE_COMPLEX, tsize, ierr)
  if (tsize /= 16 .or. ierr /= MPI_SUCCESS) nbad = nbad + 1
  if (nbad /= 0) then
    print *, 'use_mpi: rank', rank, nbad, 'MPI_SIZEOF checks failed'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (rank == 0) write (*, '(A, I0, A)') 'use_mpi: ', nprocs, ' ranks ok'
  call MPI_Finalize(ierr)
end program use_mpi_test
