/* Collective timings through the QMP API (not a test): QMP_sum_double,
 * QMP_sum_double_array for 1 .. 1Mi doubles, QMP_broadcast and QMP_barrier.
 * One line per measurement, the same form as bench/mpi_collectives.c:
 *   coll op=NAME ranks=P bytes=N us=T
 * Run: qmprun -n 8 --geometry 2x2x2 bench/qmp_collectives [ITERS] */
#include <qmp.h>
#include <stdio.h>
#include <stdlib.h>

static int iters_for(size_t bytes, int base) {
  int it = (int)(base * 4096.0 / (bytes + 4096.0));
  return it < 5 ? 5 : it;
}

static void report(const char* op, size_t bytes, double seconds, int iters) {
  if (QMP_is_primary_node())
    printf("coll op=%s ranks=%d bytes=%zu us=%.3f\n", op, QMP_get_number_of_nodes(), bytes, seconds / iters * 1e6);
  fflush(stdout);
}

int main(int argc, char** argv) {
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 1;
  int base = argc > 1 ? atoi(argv[1]) : 20000, i;
  double t0, x;
  /* warm-up: connections and caches */
  for (i = 0; i < 100; ++i) { x = 1; QMP_sum_double(&x); QMP_barrier(); }

  int it = iters_for(8, base);
  QMP_barrier();
  t0 = QMP_time();
  for (i = 0; i < it; ++i) { x = i; QMP_sum_double(&x); }
  report("sum_double", 8, QMP_time() - t0, it);

  for (size_t n = 1; n <= (1u << 20); n *= 4) {
    double* v = malloc(n * sizeof(double));
    for (size_t k = 0; k < n; ++k) v[k] = k;
    it = iters_for(n * sizeof(double), base);
    QMP_barrier();
    t0 = QMP_time();
    for (i = 0; i < it; ++i) QMP_sum_double_array(v, (int)n);
    report("sum_double_array", n * sizeof(double), QMP_time() - t0, it);
    free(v);
  }
  for (size_t bytes = 8; bytes <= (1u << 20); bytes *= 32) {
    char* b = calloc(bytes, 1);
    it = iters_for(bytes, base);
    QMP_barrier();
    t0 = QMP_time();
    for (i = 0; i < it; ++i) QMP_broadcast(b, bytes);
    report("broadcast", bytes, QMP_time() - t0, it);
    free(b);
  }
  it = iters_for(0, base);
  QMP_barrier();
  t0 = QMP_time();
  for (i = 0; i < it; ++i) QMP_barrier();
  report("barrier", 0, QMP_time() - t0, it);
  QMP_finalize_msg_passing();
  return 0;
}
