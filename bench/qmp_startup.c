/* The smallest whole QMP job, for bench/compare_startup: init, one global
 * sum (every rank is wired up and reachable), finalize. Rank 0 checks the
 * sum and prints the node count. */
#include <qmp.h>
#include <stdio.h>

int main(int argc, char** argv) {
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 1;
  int one = 1;
  if (QMP_sum_int(&one) != QMP_SUCCESS || one != QMP_get_number_of_nodes()) return 2;
  if (QMP_get_node_number() == 0) printf("%d nodes\n", one);
  QMP_finalize_msg_passing();
  return 0;
}
