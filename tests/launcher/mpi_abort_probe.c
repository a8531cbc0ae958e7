/* MPI program for launcher_test: every rank prints a line (stdout, not
 * flushed), then rank 1 ends the job -- with MPI_Abort(CODE) ("abort"), or
 * with a send to a rank that does not exist under the default
 * MPI_ERRORS_ARE_FATAL handler ("fatal") -- while the others wait in a
 * receive that never completes.  Usage: mpi_abort_probe abort|fatal CODE */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank, size, x = 0;
  MPI_Init(&argc, &argv);
  if (argc != 3) return 2;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d printed before the end\n", rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    if (strcmp(argv[1], "abort") == 0) MPI_Abort(MPI_COMM_WORLD, atoi(argv[2]));
    MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
  }
  MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
