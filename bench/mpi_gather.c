/* bench/qmp_gather.c's neighbour gather through MPI, as a code written for
 * MPI does it: per gather, malloc the faces, MPI_Irecv/MPI_Isend to both
 * neighbours on every axis of a periodic Cartesian grid, MPI_Waitall, free.
 * Output, from rank 0:  gather ranks=P grid=AxBxC bytes=N us=T
 * Run: mpirun -np 8 bench/mpi_gather [ITERS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int base = argc > 1 ? atoi(argv[1]) : 2000;
  int size, rank, nd = 0, dims[8], periods[8];
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int p = size; p > 1; p /= 2) dims[nd++] = 2;
  if (nd == 0) dims[nd++] = 1;
  for (int i = 0; i < nd; ++i) periods[i] = 1;
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &cart);
  MPI_Comm_rank(cart, &rank);
  char grid[64] = "";
  for (int i = 0; i < nd; ++i) sprintf(grid + strlen(grid), i ? "x%d" : "%d", dims[i]);
  static const size_t sizes[] = {1024, 4096, 16384, 49152, 98304};
  const int n = 2 * nd;
  for (int s = 0; s < 5; ++s) {
    const size_t bytes = sizes[s];
    int iters = (int)(base * 16384.0 / (bytes + 16384.0));
    if (iters < 50) iters = 50;
    double t0 = 0;
    for (int it = -5; it < iters; ++it) {
      if (it == 0) {
        MPI_Barrier(cart);
        t0 = MPI_Wtime();
      }
      char* buf[32];
      MPI_Request req[32];
      for (int k = 0; k < 2 * n; ++k) {
        buf[k] = malloc(bytes);
        if (k < n) memset(buf[k], k, bytes);
      }
      for (int k = 0; k < n; ++k) {
        int down, up;
        MPI_Cart_shift(cart, k / 2, 1, &down, &up);
        const int to = k % 2 ? down : up, from = k % 2 ? up : down;
        MPI_Irecv(buf[n + k], (int)bytes, MPI_BYTE, from, k, cart, &req[n + k]);
        MPI_Isend(buf[k], (int)bytes, MPI_BYTE, to, k, cart, &req[k]);
      }
      MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE);
      for (int k = 0; k < 2 * n; ++k) free(buf[k]);
    }
    const double us = (MPI_Wtime() - t0) / iters * 1e6;
    if (rank == 0) printf("gather ranks=%d grid=%s bytes=%zu us=%.2f\n", size, grid, bytes, us);
    fflush(stdout);
  }
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
