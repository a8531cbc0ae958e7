// A ring of fixed-size slots in memory shared by one producer and one
// consumer (the shm provider's "pre-posted receive descriptors", seed 000
// §3.3 mbufs). Flow control is not the ring's business: the sender writes a
// slot only while it holds a token (CreditLedger), so it never overruns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "mesh/wire.h"

namespace meshmp::mesh {

class SlotRing {
 public:
  /// Bytes in front of the payload in each slot: the publication stamp and
  /// the frame header. The payload starts 16 bytes past a cache line, as
  /// malloc's blocks do: glibc copies 1-8 KiB with `rep movsb`, which is
  /// fastest when source and destination share their offset in a cache
  /// line (a payload 8 bytes past, with an 80-byte header, made those
  /// messages three to five times slower; 64-aligned, up to 1.5 times).
  static constexpr std::size_t kSlotOverhead = 8 + sizeof(FrameHeader);
  static_assert(kSlotOverhead % 64 == 16);

  /// Slot size for a payload capacity, rounded up to a cache line.
  static std::size_t slot_size_for(std::size_t payload) {
    return (kSlotOverhead + payload + 63) & ~std::size_t{63};
  }
  static std::size_t bytes(std::uint32_t nslots, std::size_t slot_size) {
    return std::size_t{nslots} * slot_size;
  }

  SlotRing() = default;
  /// `base` must hold bytes(nslots, slot_size) zeroed or previously used by a
  /// ring of the same shape, aligned to 64 bytes.
  SlotRing(void* base, std::uint32_t nslots, std::size_t slot_size)
      : base_(static_cast<char*>(base)), nslots_(nslots), slot_size_(slot_size) {}

  std::uint32_t nslots() const { return nslots_; }
  std::size_t payload_capacity() const { return slot_size_ - kSlotOverhead; }

  /// Producer: the header of frame `seq`; the payload follows it.
  FrameHeader* header(std::uint64_t seq) const {
    return reinterpret_cast<FrameHeader*>(slot(seq) + 8);
  }
  char* payload(std::uint64_t seq) const { return slot(seq) + kSlotOverhead; }
  /// Producer: makes frame `seq` visible to the consumer.
  void publish(std::uint64_t seq) const { stamp(seq).store(seq + 1, std::memory_order_release); }
  /// Consumer: whether frame `seq` has been published.
  bool ready(std::uint64_t seq) const {
    return stamp(seq).load(std::memory_order_acquire) == seq + 1;
  }

 private:
  char* slot(std::uint64_t seq) const { return base_ + (seq % nslots_) * slot_size_; }
  std::atomic<std::uint64_t>& stamp(std::uint64_t seq) const {
    return *reinterpret_cast<std::atomic<std::uint64_t>*>(slot(seq));
  }

  char* base_ = nullptr;
  std::uint32_t nslots_ = 0;
  std::size_t slot_size_ = 0;
};

}  // namespace meshmp::mesh
