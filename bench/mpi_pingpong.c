/* The same measurement as bench/pingpong.cc, written against MPI so that
 * bench/compare can build it with MPICH's and Open MPI's mpicc and run it in
 * the same sitting. Output lines are identical in form:
 *   pingpong bytes=N latency_us=L bandwidth_MBps=B
 * Usage: mpi_pingpong [ITERS [PEER]]: rank 0 against rank PEER (default 1);
 * the other ranks wait in MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int iterations_for(size_t n, int base) {
  int it = (int)(base * 8192.0 / (n + 8192.0));
  return it < 20 ? 20 : it;
}

int main(int argc, char** argv) {
  size_t max_bytes = 4u << 20, n;
  int base_iters = 20000, window = 16, peer = 1, me, size, r, i, k;
  char *buf, ack[4];
  MPI_Request reqs[64];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1) base_iters = atoi(argv[1]);
  if (argc > 2) peer = atoi(argv[2]);
  if (peer < 1 || peer >= size) {
    if (me == 0) fprintf(stderr, "mpi_pingpong: PEER must be in 1..%d\n", size - 1);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  buf = malloc(max_bytes);
  for (n = 8; n <= max_bytes; n *= 2) {
    int other = me == 0 ? peer : 0, iters = iterations_for(n, base_iters), rounds;
    double t0 = 0, latency_us, mbps;
    if (me != 0 && me != peer) continue;
    for (i = -iters / 10 - 1; i < iters; ++i) {
      if (i == 0) t0 = MPI_Wtime();
      if (me == 0) {
        MPI_Send(buf, (int)n, MPI_BYTE, other, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)n, MPI_BYTE, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf, (int)n, MPI_BYTE, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)n, MPI_BYTE, other, 1, MPI_COMM_WORLD);
      }
    }
    latency_us = (MPI_Wtime() - t0) / iters / 2 * 1e6;
    rounds = iters / window < 4 ? 4 : iters / window;
    for (r = -1; r < rounds; ++r) {
      if (r == 0) t0 = MPI_Wtime();
      for (k = 0; k < window; ++k) {
        if (me == 0) MPI_Isend(buf, (int)n, MPI_BYTE, other, 2, MPI_COMM_WORLD, &reqs[k]);
        else MPI_Irecv(buf, (int)n, MPI_BYTE, other, 2, MPI_COMM_WORLD, &reqs[k]);
      }
      MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
      if (me == 0) MPI_Recv(ack, 4, MPI_BYTE, other, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else MPI_Send(ack, 4, MPI_BYTE, other, 3, MPI_COMM_WORLD);
    }
    mbps = (double)n * window * rounds / (MPI_Wtime() - t0) / 1e6;
    if (me == 0) {
      printf("pingpong bytes=%zu latency_us=%.3f bandwidth_MBps=%.1f\n", n, latency_us, mbps);
      fflush(stdout);
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
