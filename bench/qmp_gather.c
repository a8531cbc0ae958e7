/* Neighbour gathers as production lattice codes do them (issue 14, item 2):
 * every gather allocates its face buffers with QMP_allocate_memory, declares
 * message memory and relative send/receive handles in all 2*D directions of
 * the logical topology, combines them with QMP_declare_multiple, starts,
 * waits, and frees it all again. Written against the public qmp.h only, so
 * it builds with meshmp and with USQCD QMP. Also times QMP_allocate_memory +
 * QMP_free_memory pairs of 1..96 KiB. Output, from node 0:
 *   gather ranks=P grid=AxBxC bytes=N us=T        (T: one whole gather)
 *   alloc pairs=K us=T                            (T: one allocate + free)
 * Run: qmprun -n 8 bench/qmp_gather [ITERS]  (grid: P split in factors of 2) */
#include <qmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int nd;
static int dims[8];

static double gather_us(size_t bytes, int iters) {
  const int n = 2 * nd;
  QMP_mem_t* mem[32];
  QMP_msgmem_t mm[32];
  QMP_msghandle_t h[32];
  double t0 = 0;
  for (int it = -5; it < iters; ++it) {
    if (it == 0) {
      QMP_barrier();
      t0 = QMP_time();
    }
    for (int k = 0; k < 2 * n; ++k) {
      mem[k] = QMP_allocate_memory(bytes);
      char* p = QMP_get_memory_pointer(mem[k]);
      if (k < n) memset(p, k, bytes);
      mm[k] = QMP_declare_msgmem(p, bytes);
    }
    for (int k = 0; k < n; ++k) {
      const int axis = k / 2, dir = k % 2 ? -1 : +1;
      h[k] = QMP_declare_send_relative(mm[k], axis, dir, 0);
      h[n + k] = QMP_declare_receive_relative(mm[n + k], axis, -dir, 0);
    }
    QMP_msghandle_t all = QMP_declare_multiple(h, 2 * n);
    QMP_start(all);
    QMP_wait(all);
    QMP_free_msghandle(all);
    for (int k = 0; k < 2 * n; ++k) {
      QMP_free_msgmem(mm[k]);
      QMP_free_memory(mem[k]);
    }
  }
  return (QMP_time() - t0) / iters * 1e6;
}

static double alloc_us(int pairs) {
  double t0 = QMP_time();
  for (int i = 0; i < pairs; ++i) {
    const size_t bytes = 1024 * (size_t)(1 + (i * 37) % 96);
    QMP_mem_t* m = QMP_allocate_memory(bytes);
    ((char*)QMP_get_memory_pointer(m))[0] = 1;
    QMP_free_memory(m);
  }
  return (QMP_time() - t0) / pairs * 1e6;
}

int main(int argc, char** argv) {
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 1;
  const int base = argc > 1 ? atoi(argv[1]) : 2000;
  int p = QMP_get_number_of_nodes();
  for (nd = 0; p > 1; ++nd) {
    dims[nd] = 2;
    p /= 2;
  }
  if (nd == 0) dims[nd++] = 1;
  QMP_declare_logical_topology(dims, nd);
  char grid[64] = "";
  for (int i = 0; i < nd; ++i) sprintf(grid + strlen(grid), i ? "x%d" : "%d", dims[i]);
  static const size_t sizes[] = {1024, 4096, 16384, 49152, 98304};
  for (int s = 0; s < 5; ++s) {
    int iters = (int)(base * 16384.0 / (sizes[s] + 16384.0));
    if (iters < 50) iters = 50;
    const double us = gather_us(sizes[s], iters);
    if (QMP_is_primary_node()) printf("gather ranks=%d grid=%s bytes=%zu us=%.2f\n", QMP_get_number_of_nodes(), grid, sizes[s], us);
    fflush(stdout);
  }
  const double a = alloc_us(10000);
  if (QMP_is_primary_node()) printf("alloc pairs=10000 us=%.3f\n", a);
  QMP_finalize_msg_passing();
  return 0;
}
