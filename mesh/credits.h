// Token flow control for one link (seed 003 §5.1; ARCHITECTURE.md §3). It
// replaces MP_Lite's "assume the receiver has buffers", which lost data
// (seed 000 §3.8, §5.2).
#pragma once

#include <cstdint>

namespace meshmp::mesh {

/// The sender holds one token per receive slot the peer has posted. Every
/// frame spends one; the last token is reserved for an explicit CREDIT so
/// tokens can always flow back. The receiver counts slots it has freed but
/// not yet reported ("unreturned") and returns them piggybacked on any frame
/// going back, or by an explicit CREDIT once half the slots are unreturned.
class CreditLedger {
 public:
  explicit CreditLedger(std::uint32_t slots) : slots_(slots), tokens_(slots) {}

  std::uint32_t slots() const { return slots_; }
  std::uint32_t tokens() const { return tokens_; }
  std::uint32_t unreturned() const { return unreturned_; }

  /// A data frame may go only while more than the reserved token is left.
  bool can_send_data() const { return tokens_ > 1; }
  /// An explicit CREDIT may use the reserved token.
  bool can_send_credit() const { return tokens_ > 0 && unreturned_ > 0; }
  /// Half the slots freed and not reported: time for an explicit CREDIT.
  bool wants_explicit_credit() const { return unreturned_ >= slots_ / 2; }

  /// Spends a token for a frame and returns the credits to piggyback on it.
  std::uint32_t spend() {
    --tokens_;
    std::uint32_t c = unreturned_;
    unreturned_ = 0;
    return c;
  }
  /// Credits arrived from the peer. Returns false if they would exceed the
  /// slots the peer has (a protocol violation).
  bool receive_credits(std::uint32_t n) {
    if (n > slots_ - tokens_) return false;
    tokens_ += n;
    return true;
  }
  /// This side freed one of the peer's frames' slots.
  void slot_freed() { ++unreturned_; }

 private:
  std::uint32_t slots_;
  std::uint32_t tokens_;
  std::uint32_t unreturned_ = 0;
};

}  // namespace meshmp::mesh
