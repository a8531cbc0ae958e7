/* A small QMP program in plain C, built against an installed meshmp with
 * qmp-config / pkg-config / CMake: a ring exchange on a 1-D logical
 * topology and a global sum, checked; exits non-zero on any mismatch. */
#include <qmp.h>
#include <stdio.h>

int main(int argc, char** argv) {
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 10;
  int n = QMP_get_number_of_nodes(), me = QMP_get_node_number();
  if (QMP_declare_logical_topology(&n, 1) != QMP_SUCCESS) return 11;
  double out = me, in = -1, sum = me;
  QMP_msgmem_t mo = QMP_declare_msgmem(&out, sizeof out), mi = QMP_declare_msgmem(&in, sizeof in);
  QMP_msghandle_t h[2];
  h[0] = QMP_declare_send_relative(mo, 0, +1, 0);
  h[1] = QMP_declare_receive_relative(mi, 0, -1, 0);
  QMP_msghandle_t both = QMP_declare_multiple(h, 2);
  if (QMP_start(both) != QMP_SUCCESS || QMP_wait(both) != QMP_SUCCESS) return 12;
  if (in != (me + n - 1) % n) return 13;
  if (QMP_sum_double(&sum) != QMP_SUCCESS || sum != n * (n - 1) / 2.0) return 14;
  QMP_free_msghandle(both);
  QMP_free_msgmem(mo);
  QMP_free_msgmem(mi);
  if (QMP_is_primary_node()) printf("hello_qmp: %d nodes, ring and sum ok\n", n);
  QMP_finalize_msg_passing();
  return 0;
}
