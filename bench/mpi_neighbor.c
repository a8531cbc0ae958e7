/* Halo exchange (issue 33's benchmark): on a periodic Cartesian grid of all
 * ranks (MPI_Dims_create, reorder = 1, so meshmp places it on the torus),
 * every rank exchanges one face of BYTES with each of its 2*ndims
 * neighbours, either by MPI_Neighbor_alltoall or written by hand with
 * MPI_Irecv/MPI_Isend to the MPI_Cart_shift neighbours and MPI_Waitall.
 * One MPI-3 source for meshmp and Open MPI. Best of 5 batches, us per
 * exchange, one line per size and method:
 *   coll op=nbr_alltoall ranks=8 bytes=1024 us=3.2
 *   coll op=nbr_isend ranks=8 bytes=1024 us=3.0
 * Usage: mpi_neighbor [ITERS_SCALE [NDIMS]]   (default 1, 3) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCHES 5

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const double scale = argc > 1 ? atof(argv[1]) : 1.0;
  const int ndims = argc > 2 ? atoi(argv[2]) : 3;
  int p, dims[8] = {0}, periods[8], me;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  for (int d = 0; d < ndims; ++d) periods[d] = 1;
  MPI_Dims_create(p, ndims, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &cart);
  MPI_Comm_rank(cart, &me);
  const int n = 2 * ndims;
  int nb[16];
  for (int d = 0; d < ndims; ++d) MPI_Cart_shift(cart, d, 1, &nb[2 * d], &nb[2 * d + 1]);
  const size_t max = 1 << 20;
  char* out = malloc(max * n);
  char* in = malloc(max * n);
  memset(out, me, max * n);
  MPI_Request req[32];
  for (size_t bytes = 1024; bytes <= max; bytes *= 4) {
    int iters = (int)(scale * 2000.0 * 4096.0 / (bytes + 4096.0));
    if (iters < 5) iters = 5;
    for (int method = 0; method < 2; ++method) {
      double best = 1e30;
      for (int b = -1; b < BATCHES; ++b) {
        MPI_Barrier(cart);
        const double t0 = MPI_Wtime();
        for (int i = 0; i < iters; ++i) {
          if (method == 0) {
            MPI_Neighbor_alltoall(out, (int)bytes, MPI_BYTE, in, (int)bytes, MPI_BYTE, cart);
          } else {
            /* Block k towards neighbour k carries tag k; it is the
             * receiver's opposite block (k ^ 1). */
            for (int k = 0; k < n; ++k)
              MPI_Irecv(in + k * bytes, (int)bytes, MPI_BYTE, nb[k], k ^ 1, cart, &req[k]);
            for (int k = 0; k < n; ++k)
              MPI_Isend(out + k * bytes, (int)bytes, MPI_BYTE, nb[k], k, cart, &req[n + k]);
            MPI_Waitall(2 * n, req, MPI_STATUSES_IGNORE);
          }
        }
        const double t = (MPI_Wtime() - t0) / iters * 1e6;
        if (b >= 0 && t < best) best = t;
      }
      if (me == 0) {
        printf("coll op=%s ranks=%d bytes=%zu us=%.3f\n", method == 0 ? "nbr_alltoall" : "nbr_isend", p, bytes, best);
        fflush(stdout);
      }
    }
  }
  free(out);
  free(in);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
