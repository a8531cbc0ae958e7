// Personalised communication on a torus group over the nearest-neighbour
// links, store-and-forward at the intermediate members, on the OPT schedule
// of seed 003 (003_106e7c8e7ab06676.txt) §5.2 (routing/scatter_schedule.h):
// scatter, gather (the reverse schedule) and all-to-all as p scatters run in
// parallel. Blocks below 8 KiB that cross one link in one step travel in
// one message to that neighbour (the two cables of a size-2 axis
// included); longer blocks cross one message each.
// Internal to collectives/: collectives.cc chooses these on groups
// congruent to their torus.
//
// Step counts are measured, not computed: each message's tag is the step in
// which it crossed, one more than the later of (a) the step in which its
// newest block reached the sender (0 for the sender's own data) and (b) the
// step of the previous message the sender sent to that neighbour.
// last_critical_path() is then the step of the last message this rank
// received, and its maximum over the group the collective's step count.
#pragma once

#include <cstddef>

#include "collectives/group.h"

namespace meshmp::collectives {

/// Block i (`block` bytes) of `send` at `root` lands in member i's `recv`;
/// requires is_torus(g) and a schedule other than kAuto.
mesh::Error torus_scatter(const Group& g, const void* send, void* recv, std::size_t block, int root,
                          ScatterAlgorithm algo);
/// Member i's `block` bytes land at `root` in `recv + i*block`.
mesh::Error torus_gather(const Group& g, const void* send, void* recv, std::size_t block, int root,
                         ScatterAlgorithm algo);
/// Scatterv on the same schedule: counts[i] bytes (read at the root, then
/// broadcast, so the members that forward a block know its length) from
/// `send + displs[i]` at root land in member i's `recv` (`bytes` long;
/// kTruncate where the block is longer, its first `bytes` kept).
mesh::Error torus_scatterv(const Group& g, const void* send, const std::size_t* counts, const std::size_t* displs,
                           void* recv, std::size_t bytes, int root, ScatterAlgorithm algo);
/// Gatherv on the reverse schedule: member i's block travels counts[i]
/// bytes long (the root's count, broadcast first) to `recv + displs[i]` at
/// root; a member whose `bytes` differs sends its bytes cut or zero-padded
/// to that length (kTruncate there if cut).
mesh::Error torus_gatherv(const Group& g, const void* send, std::size_t bytes, void* recv, const std::size_t* counts,
                          const std::size_t* displs, int root, ScatterAlgorithm algo);
/// The same gatherv with no counts sent out first: each message of the
/// schedule carries its blocks' lengths in a header (the blocks inline up to
/// 4 KiB, else in a second message), so forwarding members learn them as
/// the blocks come. At the root a block longer than its count is cut
/// (kTruncate). Measured against torus_gatherv by bench/personalized
/// (docs/performance.md): as fast as gather up to 1 KiB, twice torus_gatherv's
/// time from 16 KiB (each hop posts a block's receive only once its header
/// is in), so collectives::gatherv takes torus_gatherv.
mesh::Error torus_gatherv_headers(const Group& g, const void* send, std::size_t bytes, void* recv,
                                  const std::size_t* counts, const std::size_t* displs, int root,
                                  ScatterAlgorithm algo);
/// Block j of every member's `send` goes to member j, arriving as block i
/// from member i: p scatters, one from each member, on the same schedule
/// translated, run at once (seed 003 §5.2).
mesh::Error torus_alltoall(const Group& g, const void* send, void* recv, std::size_t block, ScatterAlgorithm algo);

/// Sets what last_critical_path() returns (collectives.cc keeps it).
void set_last_critical_path(int depth);

}  // namespace meshmp::collectives
