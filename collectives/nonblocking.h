// The collectives of collectives.h as schedules (collectives/schedule.h),
// for MPI-3.1 §5.12's nonblocking collectives: each add_* appends the
// rounds of one algorithm to a schedule that the caller starts. Same
// arguments and data layout as the blocking function of the same name
// (bytes, world ranks from g.ranks); every member must append the same
// collectives in the same order. On a group that is its torus, broadcast
// and (commutative) reduce -- so allreduce too -- take the blocking ones'
// axis sweeps (seed 003 §5.2; torus_steps.h), each message to a torus
// neighbour. Elsewhere the algorithms are the latency-bound textbook ones
// (Thakur, Rabenseifner & Gropp, "Optimization of collective communication
// operations in MPICH", IJHPCA 2005): binomial trees for broadcast and
// reduce, dissemination for the barrier, direct exchange for the
// personalised and gather-type collectives, a chain for the scans.
// Non-commutative reductions combine in rank order (MPI-1.1 §4.9.4): a
// reduce to rank 0, then a send to the root.
//
// The schedule keeps no pointer into `counts`/`displs` arrays: they may go
// once the add_* returns. Buffers must live until the schedule finishes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "collectives/group.h"
#include "collectives/schedule.h"

namespace meshmp::collectives {

/// Dissemination barrier: ceil(log2 p) rounds of empty messages.
void add_barrier(Schedule& s, const Group& g);
/// Binomial tree from `root` (the axis sweep on a torus): `bytes` at buf;
/// a member whose `bytes` is not the root's ends with kTruncate.
void add_broadcast(Schedule& s, const Group& g, void* buf, std::size_t bytes, int root);
/// Binomial-tree reduce of `count` elements at buf (every member's operand,
/// overwritten with partial results); the result lands in root's buf.
void add_reduce(Schedule& s, const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root);
/// add_reduce to rank 0, then add_broadcast from it: every buf holds the result.
void add_allreduce(Schedule& s, const Group& g, void* buf, std::size_t count, const ReduceOp& op);
/// Every member's `bytes` at send to root's recv + displs[i] (counts[i]
/// bytes taken); recv, counts, displs are read at the root only.
void add_gatherv(Schedule& s, const Group& g, const void* send, std::size_t bytes, void* recv,
                 const std::size_t* counts, const std::size_t* displs, int root);
void add_gather(Schedule& s, const Group& g, const void* send, void* recv, std::size_t block, int root);
/// Root's send + displs[i] (counts[i] bytes) to member i's recv (`bytes` room).
void add_scatterv(Schedule& s, const Group& g, const void* send, const std::size_t* counts,
                  const std::size_t* displs, void* recv, std::size_t bytes, int root);
void add_scatter(Schedule& s, const Group& g, const void* send, void* recv, std::size_t block, int root);
/// Member i's counts[i] bytes at send to every member's recv + displs[i].
void add_allgatherv(Schedule& s, const Group& g, const void* send, void* recv, const std::size_t* counts,
                    const std::size_t* displs);
/// Block i of send (scounts[i] bytes at sdispls[i]) to member i, whose
/// block from this member lands at its recv + rdispls[me].
void add_alltoallv(Schedule& s, const Group& g, const void* send, const std::size_t* scounts,
                   const std::size_t* sdispls, void* recv, const std::size_t* rcounts, const std::size_t* rdispls);
void add_alltoall(Schedule& s, const Group& g, const void* send, void* recv, std::size_t block);
/// A context pair free on every member of g (mesh/context_ids.h), agreed
/// in the background for MPI_Comm_idup: AND-allreduced masks, each member
/// takes the highest common pair still free here (among the pairs of a
/// bucket that `salt` -- the same on every member, different for
/// agreements that may be outstanding together -- picks, first), and an
/// allreduce of the votes confirms it or -- where another nonblocking
/// agreement of a member took that pair meanwhile -- starts again with
/// fresh masks and another bucket (the schedule grows while it runs).
/// `done` runs in the last step with the pair's first context id, or
/// ContextIds::kNone if no pair is free on every member.
void add_agree_context_pair(Schedule& s, const Group& g, std::uint32_t salt,
                            std::function<void(std::uint32_t ctx)> done);

/// Inclusive (or, `exclusive`, MPI_Exscan's) prefix combine along the ranks
/// in buf: member i gets ranks 0..i (0..i-1; member 0's buf is then left as
/// it was).
void add_scan(Schedule& s, const Group& g, void* buf, std::size_t count, const ReduceOp& op, bool exclusive);

}  // namespace meshmp::collectives
