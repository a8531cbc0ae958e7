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
///
/// Where ranks relay (the forwarding agent), a link also carries frames of
/// other ranks' pairs, which must never wait behind a message the receiver
/// cannot buffer (its unexpected limit). There the receiver may take such a
/// message and withhold its slot's credit until it has room again
/// (`slot_withheld`, `release_withheld`), and the sender keeps
/// `reserve_for_routed` tokens that only frames other than its own message
/// starts may spend (`can_send_message`): withheld credits can never take
/// the last tokens routed frames and replies need. (A second lane in one
/// ring of slots, as virtual channels are in a switch.)
class CreditLedger {
 public:
  explicit CreditLedger(std::uint32_t slots) : slots_(slots), tokens_(slots), credit_due_(slots / 2) {}

  std::uint32_t slots() const { return slots_; }
  std::uint32_t tokens() const { return tokens_; }
  std::uint32_t unreturned() const { return unreturned_; }
  std::uint32_t withheld() const { return withheld_; }

  /// A data frame may go only while more than the reserved token is left.
  bool can_send_data() const { return tokens_ > 1; }
  /// A message of this rank's own to the peer (EAGER, RTS) may go only
  /// while the tokens reserved for routed frames are left as well.
  bool can_send_message() const { return tokens_ > message_floor_; }
  /// Keeps `n` tokens (besides the CREDIT's) from this rank's own messages.
  void reserve_for_routed(std::uint32_t n) { message_floor_ = 1 + n; }
  /// An explicit CREDIT may use the reserved token.
  bool can_send_credit() const { return tokens_ > 0 && unreturned_ > 0; }
  /// Half the slots freed and not reported (counting those withheld): time
  /// for an explicit CREDIT.
  bool wants_explicit_credit() const { return unreturned_ >= credit_due_; }

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
  /// This side took one of the peer's frames out of its slot but keeps the
  /// credit until `release_withheld`.
  void slot_withheld() {
    ++withheld_;
    due_at();
  }
  /// The withheld credits become returnable.
  void release_withheld() {
    unreturned_ += withheld_;
    withheld_ = 0;
    due_at();
  }

 private:
  // What is withheld counts towards an explicit CREDIT's half: a sender
  // whose tokens are mostly withheld gets the rest back at once.
  void due_at() { credit_due_ = withheld_ + 1 >= slots_ / 2 ? 1 : slots_ / 2 - withheld_; }

  std::uint32_t slots_;
  std::uint32_t tokens_;
  std::uint32_t unreturned_ = 0;
  std::uint32_t withheld_ = 0;
  std::uint32_t message_floor_ = 1;
  std::uint32_t credit_due_;
};

}  // namespace meshmp::mesh
