/* An MPI program that exchanges halos with its six torus neighbours and sums
 * a number over all ranks, again and again for up to 60 s (tests/netns
 * netns_test.sh cuts a node off meanwhile). Default error handler:
 * MPI_ERRORS_ARE_FATAL, so a failed call must end the whole job. Prints
 * "rank R ready" after its first round, and "done" on rank 0 if never
 * interrupted. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size, rank, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 3, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  static double out[6][4096], in[6][4096];
  double t0 = MPI_Wtime();
  for (long round = 0; MPI_Wtime() - t0 < 60; ++round) {
    MPI_Request req[12];
    int n = 0;
    for (int d = 0; d < 3; ++d) {
      int lo, hi;
      MPI_Cart_shift(cart, d, 1, &lo, &hi);
      MPI_Irecv(in[2 * d], 4096, MPI_DOUBLE, lo, d, cart, &req[n++]);
      MPI_Irecv(in[2 * d + 1], 4096, MPI_DOUBLE, hi, 3 + d, cart, &req[n++]);
      MPI_Isend(out[2 * d], 4096, MPI_DOUBLE, hi, d, cart, &req[n++]);
      MPI_Isend(out[2 * d + 1], 4096, MPI_DOUBLE, lo, 3 + d, cart, &req[n++]);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    double one = 1, all = 0;
    MPI_Allreduce(&one, &all, 1, MPI_DOUBLE, MPI_SUM, cart);
    if (round == 0) {
      printf("rank %d ready\n", rank);
      fflush(stdout);
    }
  }
  if (rank == 0) printf("done\n");
  MPI_Finalize();
  return 0;
}
