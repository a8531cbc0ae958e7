/* QMP program for launcher_test: every node prints a line (stdout, not
 * flushed), then node 1 ends the job with QMP_abort(CODE) or
 * QMP_abort_string(CODE, "stop here") while the others wait in a barrier.
 * Usage: qmp_abort_probe abort|abort_string CODE */
#include <qmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS || argc != 3) return 2;
  printf("node %d printed before the end\n", QMP_get_node_number());
  QMP_barrier();
  if (QMP_get_node_number() == 1) {
    if (strcmp(argv[1], "abort") == 0) QMP_abort(atoi(argv[2]));
    QMP_abort_string(atoi(argv[2]), "stop here");
  }
  QMP_barrier();
  QMP_finalize_msg_passing();
  return 0;
}
