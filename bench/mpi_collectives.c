/* bench/qmp_collectives.c's measurements with MPI, for bench/compare to build
 * against MPICH and Open MPI: MPI_Allreduce (1 double; arrays of 1 .. 1Mi
 * doubles), MPI_Bcast from rank 0, MPI_Barrier. Same output form. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int iters_for(size_t bytes, int base) {
  int it = (int)(base * 4096.0 / (bytes + 4096.0));
  return it < 5 ? 5 : it;
}

static int me, np;
static void report(const char* op, size_t bytes, double seconds, int iters) {
  if (me == 0) printf("coll op=%s ranks=%d bytes=%zu us=%.3f\n", op, np, bytes, seconds / iters * 1e6);
  fflush(stdout);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int base = argc > 1 ? atoi(argv[1]) : 20000, i, it;
  double t0, x, y;
  for (i = 0; i < 100; ++i) { x = 1; MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); MPI_Barrier(MPI_COMM_WORLD); }

  it = iters_for(8, base);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (i = 0; i < it; ++i) { x = i; MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); }
  report("sum_double", 8, MPI_Wtime() - t0, it);

  for (size_t n = 1; n <= (1u << 20); n *= 4) {
    double* v = malloc(n * sizeof(double));
    for (size_t k = 0; k < n; ++k) v[k] = k;
    it = iters_for(n * sizeof(double), base);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (i = 0; i < it; ++i) MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    report("sum_double_array", n * sizeof(double), MPI_Wtime() - t0, it);
    free(v);
  }
  for (size_t bytes = 8; bytes <= (1u << 20); bytes *= 32) {
    char* b = calloc(bytes, 1);
    it = iters_for(bytes, base);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (i = 0; i < it; ++i) MPI_Bcast(b, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    report("broadcast", bytes, MPI_Wtime() - t0, it);
    free(b);
  }
  it = iters_for(0, base);
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (i = 0; i < it; ++i) MPI_Barrier(MPI_COMM_WORLD);
  report("barrier", 0, MPI_Wtime() - t0, it);
  MPI_Finalize();
  return 0;
}
