// Message matching with MPI semantics (seed 000 §3.2 queues; MPI-1.1 §3.5):
// posted receives in per-source queues plus an any-source queue, unexpected
// messages in per-source queues. Within one (source, context) pair messages
// match in arrival order and receives in posting order, so nothing
// overtakes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace meshmp::mesh {

/// Intrusive doubly linked FIFO; T has `T* prev; T* next;`.
template <typename T>
class Fifo {
 public:
  bool empty() const { return head_ == nullptr; }
  T* front() const { return head_; }
  void push_back(T* x) {
    x->next = nullptr;
    x->prev = tail_;
    (tail_ ? tail_->next : head_) = x;
    tail_ = x;
  }
  void erase(T* x) {
    (x->prev ? x->prev->next : head_) = x->next;
    (x->next ? x->next->prev : tail_) = x->prev;
    x->prev = x->next = nullptr;
  }
  T* pop_front() {
    T* x = head_;
    if (x) erase(x);
    return x;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
};

/// What a receive is looking for.
struct MatchKey {
  std::uint32_t context;
  int source;  ///< or kAnySource
  int tag;     ///< or kAnyTag
};

/// A posted receive as the matcher sees it.
struct PostedRecv {
  MatchKey key{};
  std::uint64_t order = 0;  ///< posting order, across all queues
  PostedRecv* prev = nullptr;
  PostedRecv* next = nullptr;
};

/// An arrived envelope with no receive yet.
struct UnexpectedMsg {
  std::uint32_t context = 0;
  int source = 0;
  int tag = 0;
  std::uint64_t order = 0;  ///< arrival order
  UnexpectedMsg* prev = nullptr;
  UnexpectedMsg* next = nullptr;
};

class Matcher {
 public:
  explicit Matcher(int nranks) : posted_(nranks), unexpected_(nranks) {}

  /// Queues a receive (key.source may be kAnySource).
  void post(PostedRecv* r) {
    r->order = post_order_++;
    (r->key.source < 0 ? posted_any_ : posted_[r->key.source]).push_back(r);
  }
  /// Removes a still-posted receive (cancel); false if it is not queued.
  bool unpost(PostedRecv* r);
  /// The earliest-posted receive matching an arrived envelope, removed from
  /// its queue; nullptr if none.
  PostedRecv* match_arrival(std::uint32_t context, int source, int tag) {
    if (posted_any_.empty()) {  // (the common case: no any-source receive waits)
      PostedRecv* specific = first_match(posted_[source], context, source, tag);
      if (specific) posted_[source].erase(specific);
      return specific;
    }
    return match_arrival_or_any(context, source, tag);
  }

  void add_unexpected(UnexpectedMsg* m);
  /// The earliest-arrived unexpected message matching `key`; removed when
  /// `remove`, left in place for a probe otherwise.
  UnexpectedMsg* match_unexpected(const MatchKey& key, bool remove) {
    return unexpected_count_ == 0 ? nullptr : scan_unexpected(key, remove);
  }
  /// The first unexpected message from `source` for which pred(m) holds,
  /// removed from its queue; nullptr if none (a sender's cancel, §3.8).
  template <typename Pred>
  UnexpectedMsg* take_unexpected_if(int source, Pred pred) {
    for (UnexpectedMsg* m = unexpected_[source].front(); m; m = m->next)
      if (pred(m)) {
        unexpected_[source].erase(m);
        --unexpected_count_;
        return m;
      }
    return nullptr;
  }
  std::size_t unexpected_count() const { return unexpected_count_; }
  /// Whether some posted receive could match a message from `source`.
  bool waiting_for(int source) const { return !posted_[source].empty() || !posted_any_.empty(); }
  /// Whether key k (wildcards allowed) matches an envelope.
  static bool matches(const MatchKey& k, std::uint32_t context, int source, int tag) {
    return k.context == context && (k.source < 0 || k.source == source) && (k.tag < 0 || k.tag == tag);
  }

 private:
  static PostedRecv* first_match(Fifo<PostedRecv>& q, std::uint32_t context, int source, int tag) {
    for (PostedRecv* x = q.front(); x; x = x->next)
      if (matches(x->key, context, source, tag)) return x;
    return nullptr;
  }
  PostedRecv* match_arrival_or_any(std::uint32_t context, int source, int tag);
  UnexpectedMsg* scan_unexpected(const MatchKey& key, bool remove);

  std::vector<Fifo<PostedRecv>> posted_;
  Fifo<PostedRecv> posted_any_;
  std::vector<Fifo<UnexpectedMsg>> unexpected_;
  std::uint64_t post_order_ = 0;
  std::uint64_t arrival_order_ = 0;
  std::size_t unexpected_count_ = 0;
};

}  // namespace meshmp::mesh
