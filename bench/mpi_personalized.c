/* MPI_Scatter, MPI_Gather and MPI_Alltoall with blocks of 8 B, 1 KiB and
 * 64 KiB (root 0), and MPI_Barrier, for bench/compare_personalized to build
 * against meshmp, MPICH and Open MPI. Output, from rank 0 (us = slowest
 * rank's mean per call):
 *   coll op=scatter ranks=P bytes=N us=T
 * Run: mpirun -np 8 bench/mpi_personalized [ITERS] [barrier]
 * ("barrier": MPI_Barrier alone, 2*ITERS calls after as many, at most
 * 3000, untimed) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;

static void report(const char* op, size_t bytes, double seconds, int iters) {
  double us = seconds / iters * 1e6, slowest;
  MPI_Reduce(&us, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me == 0) printf("coll op=%s ranks=%d bytes=%zu us=%.3f\n", op, np, bytes, slowest);
  fflush(stdout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const int base = argc > 1 ? atoi(argv[1]) : 2000;
  /* "barrier" as the second argument: MPI_Barrier alone. */
  const int barrier_only = argc > 2 && strcmp(argv[2], "barrier") == 0;
  /* meshmp's first thousand or so collectives after start (or after an
   * idle second) run 5-10x slower than the rest -- its ranks block while
   * they wait, and the scheduler takes that long to settle -- Open MPI's,
   * which yield instead, do not: every library gets the same 3000 scatters
   * untimed first. */
  if (!barrier_only) {
    char warm[8 * 1024];
    for (int i = 0; i < 3000; ++i) MPI_Scatter(warm, 8, MPI_BYTE, warm + 8 * np, 8, MPI_BYTE, 0, MPI_COMM_WORLD);
  }
  static const size_t sizes[] = {8, 1024, 65536};
  for (int s = 0; s < 3 && !barrier_only; ++s) {
    const size_t bytes = sizes[s];
    char* send = calloc(bytes * np, 1);
    char* recv = calloc(bytes * np, 1);
    int iters = (int)(base * 4096.0 / (bytes + 4096.0));
    if (iters < 10) iters = 10;
    for (int op = 0; op < 3; ++op) {
      double t0 = 0;
      /* A tenth of the calls untimed first: the first calls of a job are
       * slower in every library (connections, queues, caches). */
      for (int pass = 0; pass < 2; ++pass) {
        const int n = pass ? iters : iters / 10 + 1;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < n; ++i) {
          if (op == 0) MPI_Scatter(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
          if (op == 1) MPI_Gather(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
          if (op == 2) MPI_Alltoall(send, (int)bytes, MPI_BYTE, recv, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
        }
      }
      const double t = MPI_Wtime() - t0;
      report(op == 0 ? "scatter" : op == 1 ? "gather" : "alltoall", bytes, t, iters);
    }
    free(send);
    free(recv);
  }
  const int iters = base * 2;
  for (int i = 0; i < (barrier_only && iters < 3000 ? iters : barrier_only ? 3000 : iters / 10); ++i)
    MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) MPI_Barrier(MPI_COMM_WORLD);
  report("barrier", 0, MPI_Wtime() - t0, iters);
  MPI_Finalize();
  return 0;
}
