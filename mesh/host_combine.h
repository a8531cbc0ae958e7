// A host-local global combine that a provider may offer: every rank of the
// job on one host contributes a few bytes through shared memory, the last to
// arrive folds them, and all get the one result (seed 002 §5.2's flat tree;
// the shm provider's implementation says how its release differs). Beside
// it, a host-local broadcast: the root writes its bytes once into a shared
// slot and every other rank copies them out (one write, every rank reads),
// and two staging buffers per rank that the owner writes and every rank
// reads (long combines: each rank folds its slice straight from the
// others'). The engine drives them (Engine::smp_combine, smp_broadcast,
// smp_staging);
// collectives/ uses them only when the address vector says every rank
// shares this host.
#pragma once

#include <cstddef>
#include <cstdint>

namespace meshmp::mesh {

class HostCombine {
 public:
  virtual ~HostCombine() = default;

  /// Bytes a contribution may have.
  virtual std::size_t max_bytes() const = 0;
  /// Makes `bytes` of this rank's data visible as contribution number `seq`;
  /// true if this rank is the last of the job to arrive at `seq`.
  virtual bool arrive(std::uint64_t seq, const void* data, std::size_t bytes) = 0;
  /// Makes `bytes` of this rank's data visible as contribution number `seq`
  /// without counting an arrival, and wakes the ranks that sleep waiting for
  /// it: for a combine in which every rank reads every contribution (a job
  /// uses one kind or the other, never both).
  virtual void post(std::uint64_t seq, const void* data, std::size_t bytes) = 0;
  /// Rank r's contribution (max_bytes() readable) and, in *bytes, its size
  /// as r gave it; nullptr if it is not there (yet).
  virtual const char* contribution(int r, std::uint64_t seq, std::size_t* bytes) const = 0;
  /// On the last arrival: publishes the result (`bytes` of it; nullptr where
  /// bytes is 0, as a combine of no elements may have), with the largest
  /// contribution's size, and wakes the waiters.
  virtual void publish(std::uint64_t seq, const void* result, std::size_t bytes, std::size_t largest) = 0;
  /// On the last arrival, instead: the combine failed (a contribution it
  /// counted is not there); every waiter gets kFailed.
  virtual void publish_failure(std::uint64_t seq) = 0;
  enum class State { kPending, kReleased, kTruncated, kFailed };
  /// On the others: copies the result once it is out; kTruncated to a rank
  /// that contributed fewer bytes than another.
  virtual State result(std::uint64_t seq, void* out, std::size_t bytes) const = 0;

  /// Bytes a broadcast may carry.
  virtual std::size_t max_broadcast_bytes() const = 0;
  /// On the root of broadcast number `seq` (numbered apart from combines):
  /// publishes `bytes` and, where bytes <= max_broadcast_bytes(), the bytes
  /// of `data`, and wakes the readers; false, having published nothing,
  /// while a reader of an earlier broadcast still holds the slot `seq` needs
  /// (call again as progress is made).
  virtual bool broadcast_publish(std::uint64_t seq, const void* data, std::size_t bytes) = 0;
  /// On the others: once broadcast `seq` is out, sets *got to the root's
  /// bytes, copies min(bytes, *got) of its data into `out` where *got <=
  /// max_broadcast_bytes() (else nothing: the data goes another way), and
  /// releases the slot; kTruncated where the data was there and *got >
  /// bytes, kReleased otherwise, kPending before.
  virtual State broadcast_result(std::uint64_t seq, void* out, std::size_t bytes, std::size_t* got) = 0;

  /// Bytes of each of a rank's two staging buffers.
  virtual std::size_t staging_bytes() const = 0;
  /// Rank r's staging buffer `which` (0 or 1), page-aligned: r writes it,
  /// every rank of the host may read it. Who may touch it when is the
  /// caller's protocol (combines with 0 bytes as barriers).
  virtual char* staging(int r, int which) = 0;
};

}  // namespace meshmp::mesh
