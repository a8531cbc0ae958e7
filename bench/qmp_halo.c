/* Halo exchange through QMP channels (not a test): every node sends a face
 * to both neighbours along axis 0 and receives both of its own faces, through
 * one restarted QMP_declare_multiple handle, as a Dirac operator does. Faces
 * live in ordinary memory (QMP_MEM_FAST) or in registered communication
 * memory (QMP_MEM_DEFAULT, which includes QMP_MEM_COMMS: peers write into it
 * with a plain memcpy). One line per face size and memory kind:
 *   halo mem=fast|comms ranks=P bytes=N us=T      (T: one exchange)
 * Run: qmprun -n 2 bench/qmp_halo [ITERS] */
#include <qmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double exchange_us(size_t bytes, int flags, int iters) {
  QMP_mem_t* mem[4];
  QMP_msgmem_t mm[4];
  QMP_msghandle_t h[4];
  int k;
  for (k = 0; k < 4; ++k) {
    mem[k] = QMP_allocate_aligned_memory(bytes, 64, flags);
    memset(QMP_get_memory_pointer(mem[k]), k, bytes);
    mm[k] = QMP_declare_msgmem(QMP_get_memory_pointer(mem[k]), bytes);
  }
  h[0] = QMP_declare_send_relative(mm[0], 0, +1, 0);
  h[1] = QMP_declare_send_relative(mm[1], 0, -1, 0);
  h[2] = QMP_declare_receive_relative(mm[2], 0, +1, 0);
  h[3] = QMP_declare_receive_relative(mm[3], 0, -1, 0);
  QMP_msghandle_t all = QMP_declare_multiple(h, 4);
  int i;
  for (i = 0; i < 20; ++i) { QMP_start(all); QMP_wait(all); } /* warm-up */
  QMP_barrier();
  double t0 = QMP_time();
  for (i = 0; i < iters; ++i) { QMP_start(all); QMP_wait(all); }
  double t = (QMP_time() - t0) / iters * 1e6;
  QMP_free_msghandle(all);
  for (k = 0; k < 4; ++k) { QMP_free_msgmem(mm[k]); QMP_free_memory(mem[k]); }
  return t;
}

int main(int argc, char** argv) {
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 1;
  int base = argc > 1 ? atoi(argv[1]) : 20000;
  int dims[1] = {QMP_get_number_of_nodes()};
  QMP_declare_logical_topology(dims, 1);
  size_t bytes;
  for (bytes = 64; bytes <= (1u << 20); bytes *= 4) {
    int iters = (int)(base * 8192.0 / (bytes + 8192.0));
    if (iters < 20) iters = 20;
    double d = exchange_us(bytes, QMP_MEM_FAST, iters);
    double c = exchange_us(bytes, QMP_MEM_DEFAULT, iters);
    if (QMP_is_primary_node()) {
      printf("halo mem=fast ranks=%d bytes=%zu us=%.3f\n", dims[0], bytes, d);
      printf("halo mem=comms ranks=%d bytes=%zu us=%.3f\n", dims[0], bytes, c);
      fflush(stdout);
    }
  }
  QMP_finalize_msg_passing();
  return 0;
}
