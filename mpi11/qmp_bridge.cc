// The MPI side of QMP_get_hidden_comm (see qmp_bridge.h).
#include "mpi11/qmp_bridge.h"

#include "mpi11/internal.h"

namespace meshmp::mpi {

int comm_for_qmp(const collectives::Group& group, std::uint32_t hidden_context) {
  const State& s = state();
  if (!s.initialized || s.finalized) return MPI_COMM_NULL;
  const MPI_Comm c = comm_from(group.ranks, group.me, hidden_context, MPI_ERRORS_ARE_FATAL);
  comm_ref(c).owns_context = false;       // the QMP communicator's: QMP_comm_free returns it
  comm_ref(c).group.torus = group.torus;  // the collectives' torus algorithms apply as on the QMP side
  return c;
}

void release_comm_for_qmp(int comm) {
  const State& s = state();
  if (!s.initialized || s.finalized || comm <= MPI_COMM_SELF || static_cast<std::size_t>(comm) >= s.comms.size()) return;
  delete_attributes(comm, "QMP_comm_free");
  comm_ref(comm) = CommInfo{};
}

}  // namespace meshmp::mpi
