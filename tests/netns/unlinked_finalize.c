/* A peer that finalizes while another rank, on another host and with no
 * link to it, waits for a message it will never send (an erroneous
 * program, issue 29): rank 0 finalizes at once; the last rank -- on a
 * 2x2x2 mesh the node opposite, no neighbour of node 0 -- posts a receive
 * from rank 0 under MPI_ERRORS_RETURN. That receive must fail (the launcher
 * tells the waiting rank that rank 0 is in finalize), not hang; the rank
 * prints "rank R: MPI_Recv from rank 0: <error string>" and finalizes too. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == size - 1) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    const int err = MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Error_string(err, text, &len);
    printf("rank %d: MPI_Recv from rank 0: %s\n", rank, err == MPI_SUCCESS ? "completed" : text);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
