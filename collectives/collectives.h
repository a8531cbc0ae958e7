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
#include "mesh/context_ids.h"
#include "mesh/request.h"

namespace meshmp::collectives {

/// Broadcast `bytes` bytes from group rank `root` to every member. A group
/// of every rank of a job on one host goes through shared memory (one write
/// by the root, one read per rank; the size first, so a longer one takes the
/// sweep on every rank alike); otherwise the axis sweep. kTruncate on a
/// member whose `bytes` is not the root's, and on the members the
/// broadcast reaches through it (MPI_ERR_TRUNCATE; what arrives is a prefix
/// of the root's bytes, never more than `bytes`: forwarding.h). Every
/// member still takes its part, so none waits for ever.
mesh::Error broadcast(const Group& g, void* buf, std::size_t bytes, int root);

/// Reduce `count` elements (of op.elem_size bytes) into `buf` at group rank
/// `root`; the other members' buffers are left unchanged. A non-commutative
/// op is combined in rank order by a binomial tree rooted at rank 0, whose
/// result is then passed to `root`.
mesh::Error reduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root);

/// Global combine: every member ends with the combination of all members'
/// `count` elements, bit-identical everywhere. A group of every rank of a job
/// on one host: up to 1 KiB the flat shared-memory combine, above it (above
/// 8 KiB on 2 ranks) a reduce-scatter / all-gather through staging buffers
/// in shared memory; both fold in binomial order (pairs of members, then
/// pairs of pairs: reduce's order, and recursive doubling's on a power of
/// two), a non-commutative op in rank order; kTruncate on a member given
/// fewer elements than another.
mesh::Error allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op,
                      CombineAlgorithm algo = CombineAlgorithm::kAuto);

/// Returns when every member has entered it: a null global combine. kAuto
/// follows MESHMP_BARRIER (EngineOptions::barrier), and where that is auto
/// too, auto_barrier(g).
mesh::Error barrier(const Group& g, CombineAlgorithm algo = CombineAlgorithm::kAuto);

/// The barrier MESHMP_BARRIER=auto takes on g, chosen by measurement
/// (docs/performance.md, "Barriers"): every rank of the job on one host,
/// 4 or more of them with a core each (EngineOptions::yield off), not on a
/// mesh fabric: kRdma (recursive doubling over flag windows, seed 002 §3);
/// otherwise on one host kCombine (the shared-memory combine), across
/// hosts kCombine (the hierarchical one), elsewhere kExchange.
mesh::BarrierChoice auto_barrier(const Group& g);

/// Personalised all-to-all: block j of `send` (`block` bytes) goes to member
/// j, arriving as block i of its `recv` from member i. kOpt (kAuto on a
/// torus group of a mesh fabric): p scatters at once on the OPT schedule
/// (seed 003 §5.2), blocks below 8 KiB that cross a link in a step in one
/// message; kSdf likewise on SDF's; otherwise every block straight to its
/// member, all sends and receives posted at once.
mesh::Error alltoall(const Group& g, const void* send, void* recv, std::size_t block,
                     ScatterAlgorithm algo = ScatterAlgorithm::kAuto);

/// Gather `block` bytes from every member into `recv` (size()*block bytes)
/// at `root`. kOpt (kAuto on a torus group of a mesh fabric): the OPT
/// scatter's schedule reversed, store and forward over the neighbour links
/// (seed 003 §5.2, "the algorithm for all-to-one personalized (gather)
/// communication is simply the reverse of the scatter algorithm"); kSdf
/// likewise; otherwise every member sends to the root.
mesh::Error gather(const Group& g, const void* send, void* recv, std::size_t block, int root,
                   ScatterAlgorithm algo = ScatterAlgorithm::kAuto);

/// Scatter: block i (`block` bytes) of `send` at `root` lands in member i's
/// `recv`. kOpt (what kAuto takes on a torus group of a mesh fabric, where
/// only neighbours are cabled): the OPT schedule (routing/scatter_schedule.h,
/// seed 003 §5.2) in max{ceil((p-1)/k), max distance} steps over the
/// neighbour links, store and forward; kSdf: the paper's SDF baseline;
/// kDirect (kAuto elsewhere: measured faster where every pair is linked) or
/// a group that is not a torus: the root sends every block itself.
mesh::Error scatter(const Group& g, const void* send, void* recv, std::size_t block, int root,
                    ScatterAlgorithm algo = ScatterAlgorithm::kAuto);

/// Gather with a block size per member: member i's `bytes` land at root in
/// `recv + displs[i]` (counts[i] bytes; counts and displs are read at root).
/// kOpt / kSdf (kAuto: OPT on a torus group of a mesh fabric, as gather):
/// the root's counts are broadcast first, so the members that forward a
/// block know its length, then the reverse OPT schedule (seed 003 §5.2)
/// with those lengths; kDirect: every member sends to the root. kTruncate
/// at the root for a message longer than its count (kDirect), at the
/// member whose `bytes` exceeds its count (kOpt/kSdf; a shorter one is
/// zero-padded there: erroneous either way, MPI-1.1 §4.5).
mesh::Error gatherv(const Group& g, const void* send, std::size_t bytes, void* recv, const std::size_t* counts,
                    const std::size_t* displs, int root, ScatterAlgorithm algo = ScatterAlgorithm::kAuto);

/// Scatter with a block size per member: counts[i] bytes from `send +
/// displs[i]` at root land in member i's `recv` (`bytes` bytes; kTruncate
/// there if counts[i] is larger, the first `bytes` kept). kOpt / kSdf
/// (kAuto on a torus group of a mesh fabric): the counts broadcast from the
/// root, then the OPT schedule with those lengths (seed 003 §5.2);
/// kDirect: the root sends every block itself.
mesh::Error scatterv(const Group& g, const void* send, const std::size_t* counts, const std::size_t* displs,
                     void* recv, std::size_t bytes, int root, ScatterAlgorithm algo = ScatterAlgorithm::kAuto);

/// Every member's `counts[me]` bytes from `send` land in every member's
/// `recv + displs[i]`: a ring of size()-1 steps, each passing one block on.
mesh::Error allgatherv(const Group& g, const void* send, void* recv, const std::size_t* counts,
                       const std::size_t* displs);

/// Personalised all-to-all with a block size per pair: scounts[j] bytes from
/// `send + sdispls[j]` go to member j, arriving at `recv + rdispls[i]`
/// (rcounts[i] bytes) from member i. Every send and receive posted at once.
mesh::Error alltoallv(const Group& g, const void* send, const std::size_t* scounts, const std::size_t* sdispls,
                      void* recv, const std::size_t* rcounts, const std::size_t* rdispls);

/// Inclusive prefix combine in rank order: member i ends with the combination
/// of members 0..i (recursive doubling, ceil(log2 p) steps; correct for
/// non-commutative operations).
mesh::Error scan(const Group& g, void* buf, std::size_t count, const ReduceOp& op);

/// Exclusive prefix combine in rank order (MPI-2.2 §5.11.2): member i > 0
/// ends with the combination of members 0..i-1; member 0's `buf` is left as
/// it was. The same recursive doubling as scan, non-commutative ops too.
mesh::Error exscan(const Group& g, void* buf, std::size_t count, const ReduceOp& op);

/// The context pairs free on every member of g: the AND of each member's
/// ContextIds::free_mask() (mesh/context_ids.h), collective over g.
mesh::Error free_context_mask(const Group& g, mesh::ContextIds::Mask* agreed);
/// Agrees on `n` context pairs free on every member of g and takes them
/// (collective over g; every member gets the same): ctx[i] is each pair's
/// first context id (p2p; +1 is the collectives' id). If the members have
/// fewer than n pairs in common, the ones missing are ContextIds::kNone (the
/// caller frees those it got and reports exhaustion: MPI_ERR_OTHER,
/// QMP_ERROR). Returns the allreduce's error.
mesh::Error agree_context_pairs(const Group& g, std::uint32_t* ctx, int n);

}  // namespace meshmp::collectives
