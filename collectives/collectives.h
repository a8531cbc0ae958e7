// Collective operations over a Group (ARCHITECTURE.md §5). On a torus group:
// axis-sweep broadcast and reduction and the global combine (seed 003 §5.2,
// "A broadcast is implemented via a simple algorithm that a broadcast message
// travels along a x axis first, then cross an xy plane ..."), a
// dimension-wise exchange combine, and barrier as a null combine. On other
// groups: binomial trees and dissemination. Every rank of the group must
// call the same collectives in the same order. Errors from the core (a dead
// peer) come back as the first non-kOk mesh::Error.
#pragma once

#include <cstddef>

#include "collectives/group.h"
#include "mesh/request.h"

namespace meshmp::collectives {

/// Broadcast `bytes` bytes from group rank `root` to every member.
mesh::Error broadcast(const Group& g, void* buf, std::size_t bytes, int root);

/// Reduce `count` elements (of op.elem_size bytes) into `buf` at group rank
/// `root`; the other members' buffers are left unchanged.
mesh::Error reduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root);

/// Global combine: every member ends with the combination of all members'
/// `count` elements, bit-identical everywhere.
mesh::Error allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op,
                      CombineAlgorithm algo = CombineAlgorithm::kAuto);

/// Returns when every member has entered it: a null global combine.
mesh::Error barrier(const Group& g, CombineAlgorithm algo = CombineAlgorithm::kAuto);

/// Personalised all-to-all: block j of `send` (`block` bytes) goes to member
/// j, arriving as block i of its `recv` from member i.
mesh::Error alltoall(const Group& g, const void* send, void* recv, std::size_t block);

/// Gather `block` bytes from every member into `recv` (size()*block bytes)
/// at `root`.
mesh::Error gather(const Group& g, const void* send, void* recv, std::size_t block, int root);

}  // namespace meshmp::collectives
