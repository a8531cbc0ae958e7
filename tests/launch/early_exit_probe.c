/* For launch_test.sh: node 1 leaves without finalizing while the others
 * wait for it in QMP_finalize_msg_passing's last PMIx fence, which then
 * fails, and each says so on stderr. Node 1 leaves 2 s after init, so that
 * the others are in the fence by then: a PMIx server leaves a process that
 * is already gone out of a fence that starts later. Exit status: 3 on
 * node 1, 0 elsewhere. */
#include <qmp.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 2;
  if (QMP_get_node_number() == 1) {
    sleep(2);
    _Exit(3);
  }
  QMP_finalize_msg_passing();
  return 0;
}
