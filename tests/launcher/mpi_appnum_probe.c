/* MPI program for the MPMD launches (launcher_test, launch_test): prints
 * "rank R of S: appnum A, rank L of N in its program" -- MPI_APPNUM
 * (MPI-2.2 §10.5.3) read on MPI_COMM_WORLD, then MPI_COMM_WORLD split by it,
 * as coupled codes make a communicator per program -- and checks that the
 * split's ranks are world's in order and that an MPI_Allreduce over world
 * sees every rank. Exit status 1 on a failed check. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size, flag = 0, *appnum = NULL, local, nlocal, sum = 0, first = 0;
  MPI_Comm program;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
  if (!flag || !appnum) {
    fprintf(stderr, "rank %d: MPI_APPNUM not set\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Comm_split(MPI_COMM_WORLD, *appnum, rank, &program);
  MPI_Comm_rank(program, &local);
  MPI_Comm_size(program, &nlocal);
  /* A program's ranks are consecutive in world: its rank 0 is rank - local. */
  MPI_Allreduce(&rank, &first, 1, MPI_INT, MPI_MIN, program);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d: appnum %d, rank %d of %d in its program\n", rank, size, *appnum, local, nlocal);
  const int ok = first == rank - local && sum == size * (size - 1) / 2;
  if (!ok) fprintf(stderr, "rank %d: program starts at %d, world sum %d\n", rank, first, sum);
  MPI_Comm_free(&program);
  MPI_Finalize();
  return ok ? 0 : 1;
}
