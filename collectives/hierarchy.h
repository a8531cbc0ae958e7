// Hierarchical collectives by locality, as MPICH's CH4 builds them from its
// node-local and node-roots communicators: members that share a host combine
// there first, one root per host combines across hosts, and each root hands
// the result back to its host. The locality comes from the engine's address
// vector (Engine::host_of). Internal to collectives/: allreduce and barrier
// choose it when a group spans hosts and some host holds several members.
#pragma once

#include <cstddef>

#include "collectives/group.h"

namespace meshmp::collectives {

/// The members of g on this rank's host (local; group order kept, its first
/// is the host's root) and the first member of every host (roots; me = -1
/// where this rank is not a root). Both use g's context: every member runs
/// the phases in the same order, so their messages cannot cross.
struct Hierarchy {
  Group local, roots;
};
Hierarchy split_by_host(const Group& g);

/// Whether g spans more than one host and some host holds more than one of
/// its members (else a flat algorithm is as good).
bool hierarchy_applies(const Group& g);

/// Global combine in three phases: reduce to each host's root, allreduce
/// among the roots, broadcast on each host. Only for a commutative op (the
/// order of combination follows the hosts, not the group ranks).
mesh::Error hierarchical_allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op);

}  // namespace meshmp::collectives
