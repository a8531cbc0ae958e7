#include "mesh/matching.h"

namespace meshmp::mesh {

bool Matcher::unpost(PostedRecv* r) {
  Fifo<PostedRecv>& q = r->key.source < 0 ? posted_any_ : posted_[r->key.source];
  for (PostedRecv* x = q.front(); x; x = x->next)
    if (x == r) {
      q.erase(r);
      return true;
    }
  return false;
}

// match_arrival with any-source receives posted.
PostedRecv* Matcher::match_arrival_or_any(std::uint32_t context, int source, int tag) {
  PostedRecv* specific = first_match(posted_[source], context, source, tag);
  PostedRecv* any = posted_any_.empty() ? nullptr : first_match(posted_any_, context, source, tag);
  // Both could match: the one posted first wins (MPI-1.1 §3.5 ordering).
  if (specific && (!any || specific->order < any->order)) {
    posted_[source].erase(specific);
    return specific;
  }
  if (any) posted_any_.erase(any);
  return any;
}

void Matcher::add_unexpected(UnexpectedMsg* m) {
  m->order = arrival_order_++;
  unexpected_[m->source].push_back(m);
  ++unexpected_count_;
}

UnexpectedMsg* Matcher::scan_unexpected(const MatchKey& key, bool remove) {
  UnexpectedMsg* best = nullptr;
  auto scan = [&](Fifo<UnexpectedMsg>& q) {
    for (UnexpectedMsg* m = q.front(); m; m = m->next)
      if (matches(key, m->context, m->source, m->tag)) {
        if (!best || m->order < best->order) best = m;
        return;
      }
  };
  if (key.source >= 0) {
    scan(unexpected_[key.source]);
  } else {
    for (auto& q : unexpected_) scan(q);
  }
  if (best && remove) {
    unexpected_[best->source].erase(best);
    --unexpected_count_;
  }
  return best;
}

}  // namespace meshmp::mesh
