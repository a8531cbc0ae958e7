! A free-form Fortran 90 program built with mpif90 against the `mpi` module:
! each rank adds its rank into an MPI_ALLREDUCE and passes a token around a
! ring with MPI_SENDRECV. Prints "use_mpi: N ranks ok" on rank 0.
program use_mpi_test
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, total, token, status(MPI_STATUS_SIZE)
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
  if (rank == 0) write (*, '(A, I0, A)') 'use_mpi: ', nprocs, ' ranks ok'
  call MPI_Finalize(ierr)
end program use_mpi_test
