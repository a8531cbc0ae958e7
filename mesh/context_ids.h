// Context ids: the communicator field of every envelope (FrameHeader::context),
// allocated in pairs -- 2k for point-to-point, 2k+1 for the collectives of the
// same communicator -- by one allocator per process that serves QMP, MPI and
// the QMP->MPI bridge alike. A group agrees on a pair by AND-reducing every
// member's mask of free pairs and taking the lowest pair free in the result
// (MPICH's context-id mask; collectives::agree_context_pairs), so a pair
// freed by every member is used again and the ids never run past kPairs.
#pragma once

#include <array>
#include <cstdint>

namespace meshmp::mesh {

class ContextIds {
 public:
  /// Pairs in all: at most this many communicators (QMP, MPI and bridge
  /// together, four reserved) exist at once in a process.
  static constexpr std::uint32_t kPairs = 2048;
  using Mask = std::array<std::uint32_t, kPairs / 32>;  ///< bit k set: pair k is free

  /// Pairs every rank reserves at start (first context id of each):
  static constexpr std::uint32_t kQmpWorld = 0;        ///< QMP's allocated communicator
  static constexpr std::uint32_t kQmpWorldHidden = 2;  ///< its MPI twin (QMP_get_hidden_comm)
  static constexpr std::uint32_t kMpiWorld = 4;        ///< MPI_COMM_WORLD
  static constexpr std::uint32_t kMpiSelf = 6;         ///< MPI_COMM_SELF
  static constexpr std::uint32_t kReserved = 4;        ///< pairs 0..3
  /// The nonblocking collectives of a communicator whose collective id is
  /// c travel in context c + kNonblockingOffset (4097..8191, never
  /// allocated), so no blocking collective's wildcard receive matches them.
  static constexpr std::uint32_t kNonblockingOffset = 2 * kPairs;
  /// take()'s answer when no pair is free in the agreed mask.
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  ContextIds();

  /// This process's free pairs, to be AND-reduced over a group.
  const Mask& free_mask() const { return free_; }
  /// Takes the lowest pair free both in `agreed` (the AND over the group)
  /// and here, clears it in `agreed` too (so a second take() gives the
  /// next), and returns its first context id (even); kNone if there is none.
  /// Blocking agreements take from the bottom.
  std::uint32_t take(Mask& agreed);
  /// The same from the top: the highest pair free in both. Nonblocking
  /// agreements (MPI_Comm_idup) take from the top, and their steps run
  /// while a blocking agreement of the same process may be between its
  /// snapshot and its take: the two meet only when nearly every pair is in
  /// use, and take_lowest_agreed() then reports the clash.
  std::uint32_t take_highest(Mask& agreed);
  /// take_highest() among the pairs p with p % 64 == bucket % 64 first, any
  /// pair if none of those is free in both: concurrent nonblocking
  /// agreements that pick different buckets never want the same pair.
  std::uint32_t take_highest(Mask& agreed, std::uint32_t bucket);
  /// take(), but only if the lowest pair of `agreed` is still free here
  /// (else kNone, taking nothing): a pair this process took since its
  /// snapshot -- a nonblocking agreement's, from the top -- would make this
  /// member take another pair than the others.
  std::uint32_t take_lowest_agreed(Mask& agreed);
  /// Frees the pair holding context id `ctx` (either of its two ids).
  /// False, changing nothing, if it is reserved, out of range or not in use.
  bool release(std::uint32_t ctx);
  /// Pairs in use, the reserved ones included.
  std::uint32_t in_use() const { return in_use_; }
  /// How often the pair holding `ctx` was released: state kept for a
  /// communicator (a barrier's flag window) is stale once it changed. 0 for
  /// ids out of range.
  std::uint32_t releases(std::uint32_t ctx) const { return ctx / 2 < kPairs ? releases_[ctx / 2] : 0; }

 private:
  std::array<std::uint32_t, kPairs> releases_{};
  Mask free_{};
  std::uint32_t in_use_ = 0;
};

}  // namespace meshmp::mesh
