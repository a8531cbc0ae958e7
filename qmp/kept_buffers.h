// Registered buffers that QMP_free_memory keeps for the next
// QMP_allocate_memory of the same size and alignment (issue 32, item 4). A
// lattice code allocates its halo faces afresh for every gather and frees
// them after the wait; giving each back to the memory domain and taking it
// again (seed 000 §3.7: registration is kept, not redone) still cost a
// quarter of a 2-rank 1 KiB gather's instructions -- the domain's
// bookkeeping of which blocks are handed out. A kept buffer stays
// registered and handed out; QMP hands it back as it is, its old contents
// included, as malloc may.
//
// Bounded: at most kMaxBuffers buffers and a byte budget (the caller's,
// e.g. an eighth of the registered limit). Everything kept goes back before
// the pool refuses an allocation (take_or_allocate), and at finalize
// (release_all).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace meshmp::qmp {

class KeptBuffers {
 public:
  /// A 4-d halo's 16 faces twice over. Small: an allocation whose hash bin
  /// (below) holds a buffer of another size looks at every kept one.
  static constexpr std::size_t kMaxBuffers = 32;
  static_assert(kMaxBuffers < 256, "a bin counts its buffers in a byte");

  /// Bytes the kept buffers may hold together (0: keep none).
  explicit KeptBuffers(std::size_t budget = 0) : budget_(budget) {}
  void set_budget(std::size_t budget) { budget_ = budget; }

  /// A kept buffer of exactly `bytes` and `alignment` (a power of two),
  /// taken; the earliest kept first, so that a gather that allocates its
  /// faces in the order it freed them gets each face's buffer back (and the
  /// channel request QMP kept for that buffer, qmp/handles.cc). nullptr if
  /// none.
  void* take(std::size_t bytes, std::size_t alignment) {
    const std::uint64_t k = key(bytes, alignment);
    if (!with_hash_[hash(k)]) return nullptr;  // the common miss: sizes that vary
    for (std::size_t i = lo_; i < hi_; ++i) {
      if (keys_[i] != k) continue;
      void* p = bufs_[i];
      held_ -= bytes;
      --with_hash_[hash(k)];
      // The ones kept before it move up one: none when it was the earliest.
      std::copy_backward(keys_.begin() + lo_, keys_.begin() + i, keys_.begin() + i + 1);
      std::copy_backward(bufs_.begin() + lo_, bufs_.begin() + i, bufs_.begin() + i + 1);
      ++lo_;
      return p;
    }
    return nullptr;
  }

  /// A buffer of `bytes` and `alignment`: a kept one, else allocate(bytes,
  /// alignment); if that fails (nullptr) while buffers are kept, they all
  /// go back through release(p) and allocate is tried once more.
  template <typename Allocate, typename Release>
  void* take_or_allocate(std::size_t bytes, std::size_t alignment, Allocate allocate, Release release) {
    if (void* p = take(bytes, alignment)) return p;
    void* p = allocate(bytes, alignment);
    if (p || empty()) return p;
    release_all(release);
    return allocate(bytes, alignment);
  }

  /// Keeps `p` (`bytes` long, allocated with `alignment`) if the count and
  /// the budget allow; false if not, and the caller gives it back itself.
  bool keep(void* p, std::size_t bytes, std::size_t alignment) {
    if (size() == kMaxBuffers || held_ > budget_ || bytes > budget_ - held_) return false;
    if (hi_ == kMaxBuffers) {  // room only before lo_: the kept ones move down
      std::copy(keys_.begin() + lo_, keys_.begin() + hi_, keys_.begin());
      std::copy(bufs_.begin() + lo_, bufs_.begin() + hi_, bufs_.begin());
      hi_ -= lo_;
      lo_ = 0;
    }
    keys_[hi_] = key(bytes, alignment);
    ++with_hash_[hash(keys_[hi_])];
    bufs_[hi_++] = p;
    held_ += bytes;
    return true;
  }

  /// Calls release(p) for every kept buffer, oldest first, and forgets them.
  template <typename Release>
  void release_all(Release release) {
    for (std::size_t i = lo_; i < hi_; ++i) release(bufs_[i]);
    lo_ = hi_ = 0;
    with_hash_.fill(0);
    held_ = 0;
  }

  bool empty() const { return lo_ == hi_; }
  std::size_t size() const { return hi_ - lo_; }
  /// Bytes the kept buffers hold.
  std::size_t held() const { return held_; }

 private:
  // Size and alignment in one word, compared in one instruction: bytes
  // above the low 6 bits, log2(alignment) in them (a kept buffer is far
  // smaller than 2^58 bytes: the budget).
  static std::uint64_t key(std::size_t bytes, std::size_t alignment) {
    return (std::uint64_t{bytes} << 6) | static_cast<std::uint64_t>(__builtin_ctzll(alignment | (std::uint64_t{1} << 63)));
  }
  // Kept buffers by a hash of their key (Fibonacci hashing, 256 bins):
  // an allocation whose bin is empty knows at once that none fits.
  static std::size_t hash(std::uint64_t k) { return static_cast<std::size_t>((k * 0x9E3779B97F4A7C15u) >> 56); }
  std::array<std::uint8_t, 256> with_hash_{};
  std::array<std::uint64_t, kMaxBuffers> keys_{};
  // The kept ones, earliest first, at [lo_, hi_): taking the earliest
  // moves nothing.
  std::array<void*, kMaxBuffers> bufs_{};
  std::size_t lo_ = 0, hi_ = 0;
  std::size_t budget_;
  std::size_t held_ = 0;
};

}  // namespace meshmp::qmp
