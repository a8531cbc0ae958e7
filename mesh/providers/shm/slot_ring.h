// A ring of fixed-size slots in memory shared by one producer and one
// consumer (the shm provider's "pre-posted receive descriptors", seed 000
// §3.3 mbufs). A link direction has three: its slots, a ring of cells for
// small frames (kCellBytes), and one of records for the shortest
// (ShortRecord). Flow control is not the ring's business: the sender
// writes a frame only while it holds a token (CreditLedger), and each ring
// has as many places as there are tokens, so none overruns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "mesh/small_copy.h"
#include "mesh/wire.h"

namespace meshmp::mesh {

class SlotRing {
 public:
  /// Bytes in front of the payload in each slot: room for a publication
  /// stamp and the frame header. The payload starts 16 bytes past a cache line, as
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
      : base_(static_cast<char*>(base)),
        end_(base_ + bytes(nslots, slot_size)),
        nslots_(nslots),
        slot_size_(slot_size) {}

  std::uint32_t nslots() const { return nslots_; }
  std::size_t payload_capacity() const { return slot_size_ - kSlotOverhead; }

  /// The slot of frame `seq`: `seq % nslots`. On the message path a link
  /// walks the ring with `next` instead, since the remainder is a 64-bit
  /// division (tens of cycles; five per 8-byte message on a link).
  char* slot(std::uint64_t seq) const { return base_ + (seq % nslots_) * slot_size_; }
  /// The slot after `at`, wrapping at the end of the ring.
  char* next(char* at) const {
    at += slot_size_;
    return at == end_ ? base_ : at;
  }

  /// Producer: the header of the frame in slot `at`; the payload follows it.
  static FrameHeader* header(char* at) { return reinterpret_cast<FrameHeader*>(at + 8); }
  static char* payload(char* at) { return at + kSlotOverhead; }
  /// Producer: makes frame `seq`, written in slot `at`, visible to the consumer.
  static void publish(char* at, std::uint64_t seq) { stamp(at).store(seq + 1, std::memory_order_release); }
  /// Consumer: whether frame `seq` (in slot `at`) has been published.
  static bool ready(char* at, std::uint64_t seq) {
    return stamp(at).load(std::memory_order_acquire) == seq + 1;
  }

  /// Small frames travel in cells of a second ring, the cell ring:
  /// kCellBytes (two cache lines) each, contiguous, walked like the slots
  /// (nslots cells); each cell has its own publication stamp and the same
  /// layout as a slot, with room for kCellPayloadBytes. A frame of at most
  /// that payload goes in the next cell and leaves the slots alone (unless
  /// it fits a ShortRecord); any other in the next slot, as before. So a
  /// run of small messages is a run of nearby lines -- what the hardware
  /// prefetchers follow -- instead of a line or two per slot, a slot
  /// (16 KiB) apart: the 2-rank 8-byte message rate rose by a fifth to a
  /// third (docs/performance.md). A frame's sequence number says where it
  /// is: the consumer finds the next one published in one ring or another.
  static constexpr std::size_t kCellBytes = 128;
  static constexpr std::size_t kCellPayloadBytes = kCellBytes - kSlotOverhead;
  static_assert(kCellPayloadBytes == 48);

  /// A small EAGER frame rides whole in its cell's first cache line: its
  /// payload (at most kInlineBytes) in the header's recv_id field, which
  /// an EAGER frame does not use, so the consumer reads one line per
  /// message instead of two (the header's last 16 bytes and the payload
  /// are in the second). Not a channel's EAGER: it carries its number in
  /// `addr`.
  static constexpr std::size_t kInlineBytes = sizeof(FrameHeader::recv_id);
  static constexpr std::size_t kFirstLineHeaderBytes = offsetof(FrameHeader, addr);
  static_assert(8 + kFirstLineHeaderBytes == 64, "stamp + header through recv_id fill the first line");
  static bool rides_inline(const FrameHeader& h) {
    return h.type == static_cast<std::uint8_t>(FrameType::kEager) && h.length <= kInlineBytes &&
           !(h.flags & kFlagChannel);
  }
  /// Producer: writes a frame of n <= kInlineBytes payload bytes, header
  /// `h` and payload `bytes`, into cell `at` -- into its first line alone
  /// if it rides inline; the caller then publishes the cell.
  [[gnu::always_inline]] static void write_cell(char* at, const FrameHeader& h, const char* bytes, std::size_t n) {
    FrameHeader* c = header(at);
    // `length` bytes (a call to memcpy per frame was dearer). Not all
    // kInlineBytes: the payload was stored a moment ago, with stores as
    // narrow as its length (1 byte: one byte), and one 8-byte load of them
    // cannot be forwarded from the store buffer -- a stall of ~10 ns.
    if (rides_inline(h)) {
      std::memcpy(c, &h, offsetof(FrameHeader, recv_id));
      copy_payload(&c->recv_id, bytes, n);
    } else {
      std::memcpy(c, &h, sizeof h);
      copy_payload(payload(at), bytes, n);
    }
  }
  /// Consumer, once cell `at` is ready: its header into *h (recv_id, addr
  /// and key 0 for a frame that rides inline) and where its payload is.
  /// Reads the second line only for a frame that does not ride inline.
  /// nullptr if the header says its payload is larger than a cell's (the
  /// peer's fault): it would lie beyond the cell.
  static const char* read_cell(char* at, FrameHeader* h) {
    const FrameHeader* in = header(at);
    std::memcpy(h, in, kFirstLineHeaderBytes);
    if (rides_inline(*h)) {
      h->recv_id = h->addr = h->key = 0;
      return reinterpret_cast<const char*>(&in->recv_id);
    }
    std::memcpy(&h->addr, &in->addr, sizeof *h - kFirstLineHeaderBytes);
    if (payload_bytes(*h) > kCellPayloadBytes) return nullptr;
    return payload(at);
  }
  /// Consumer, once slot `at` is ready: its header into *h; the payload
  /// follows it.
  static const char* read_slot(char* at, FrameHeader* h) {
    std::memcpy(h, header(at), sizeof *h);
    return payload(at);
  }

  /// The shortest frames -- an EAGER of up to 8 bytes from the link's
  /// peer itself, plain or synchronous -- travel in a third ring of
  /// 32-byte records, two to a cache line, as Open MPI's shared memory
  /// packs its small messages: the stamp (publish, ready) and a header of
  /// what such a frame needs, the rest known from the link (version, type,
  /// source, destination, the sequence number) or zero.
  struct ShortRecord {
    std::uint64_t stamp;  ///< the frame's sequence number + 1
    std::int32_t tag;
    std::uint16_t context;
    std::uint8_t length_sync;  ///< payload bytes (at most kInlineBytes), | kShortSync if synchronous
    std::uint8_t credits;
    std::uint64_t send_id;
    char payload[kInlineBytes];
  };
  static_assert(sizeof(ShortRecord) == 32);
  static constexpr std::uint8_t kShortSync = 0x80;
  static bool fits_short(const FrameHeader& h, int from, int to) {
    return h.type == static_cast<std::uint8_t>(FrameType::kEager) && h.length <= kInlineBytes &&
           (h.flags & ~kFlagSync) == 0 && h.hops == 0 && h.e2e_credits == 0 && h.credits <= 0xff &&
           h.src == from && h.dst == to;
  }
  /// Producer: writes frame `h` (fits_short) with payload `bytes` into
  /// record `at`; the caller then publishes it. Field by field, as the
  /// engine stored them: loads as wide as those stores, which the core
  /// forwards from its store buffer.
  [[gnu::always_inline]] static void write_short(char* at, const FrameHeader& h, const char* bytes) {
    auto* r = reinterpret_cast<ShortRecord*>(at);
    r->tag = h.tag;
    r->context = h.context;
    r->length_sync = static_cast<std::uint8_t>(h.length | ((h.flags & kFlagSync) ? kShortSync : 0));
    r->credits = static_cast<std::uint8_t>(h.credits);
    r->send_id = h.send_id;
    copy_payload(r->payload, bytes, h.length);
  }
  /// Consumer, once record `at` is ready as frame `seq` from `from` to
  /// `to`: its header into *h and where its payload is; nullptr if the
  /// record claims more than kInlineBytes (the peer's fault).
  static const char* read_short(char* at, std::uint64_t seq, int from, int to, FrameHeader* h) {
    const auto* r = reinterpret_cast<const ShortRecord*>(at);
    const std::uint8_t ls = r->length_sync;
    *h = FrameHeader{};
    h->version = kWireVersion;
    h->type = static_cast<std::uint8_t>(FrameType::kEager);
    h->flags = (ls & kShortSync) ? kFlagSync : 0;
    h->credits = r->credits;
    h->seq = seq;
    h->src = from;
    h->dst = to;
    h->tag = r->tag;
    h->context = r->context;
    h->length = ls & ~kShortSync;
    h->send_id = r->send_id;
    return h->length <= kInlineBytes ? r->payload : nullptr;
  }

 private:
  static std::atomic<std::uint64_t>& stamp(char* at) {
    return *reinterpret_cast<std::atomic<std::uint64_t>*>(at);
  }

  char* base_ = nullptr;
  char* end_ = nullptr;
  std::uint32_t nslots_ = 0;
  std::size_t slot_size_ = 0;
};

}  // namespace meshmp::mesh
