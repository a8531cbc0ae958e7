// The public API of the protocol engine (mesh/engine.h); the protocols live
// in mesh/engine/ (engine_impl.h lists the files).
#include "mesh/engine.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

const char* error_name(Error e) {
  switch (e) {
    case Error::kOk: return "success";
    case Error::kTruncate: return "message truncated";
    case Error::kPeerDead: return "peer or link gone";
    case Error::kProtocol: return "malformed data from peer";
    case Error::kUnreachable: return "no link reaches the peer";
  }
  return "?";
}

namespace {
// The header carries 16 bits of context (wire.h); QMP's and MPI's ids are
// below 4096 (context_ids.h).
static_assert(2 * ContextIds::kPairs - 1 + ContextIds::kNonblockingOffset <= kMaxWireContext,
              "every context id, and its nonblocking collectives' one, fits the header");
[[noreturn, gnu::cold, gnu::noinline]] void bad_context(std::uint32_t context, const char* call) {
  throw std::invalid_argument(std::string("Engine::") + call + ": context " + std::to_string(context) + " > " +
                              std::to_string(kMaxWireContext));
}
// On every request's path: the check inline, the error text built out of line.
inline void check_context(std::uint32_t context, const char* call) {
  if (context > kMaxWireContext) [[unlikely]] bad_context(context, call);
}
}  // namespace

namespace {
// The fields of a fresh request that send_init/isend and recv_init/irecv
// set (inline in each: a 2-rank 8-byte MPI_Irecv spent ~30 of its
// instructions calling recv_init and start).
[[gnu::always_inline]] inline void set_send(Request* r, const void* buf, std::size_t len, int dst, int tag,
                                            std::uint32_t context, SendMode mode) {
  r->is_send = true;
  r->buf = static_cast<char*>(const_cast<void*>(buf));
  r->len = len;
  r->peer = dst;
  r->tag = tag;
  r->context = context;
  r->mode = mode;
}
[[gnu::always_inline]] inline void set_recv(Request* r, void* buf, std::size_t len, int src, int tag,
                                            std::uint32_t context) {
  r->is_send = false;
  r->buf = static_cast<char*>(buf);
  r->len = len;
  r->peer = src;
  r->tag = tag;
  r->context = context;
}
}  // namespace

Request* Engine::send_init(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context,
                           SendMode mode) {
  check_context(context, "send_init");
  Request* r = impl_->alloc_request();
  set_send(r, buf, len, dst, tag, context, mode);
  r->persistent = true;
  return r;
}

Request* Engine::recv_init(void* buf, std::size_t len, int src, int tag, std::uint32_t context) {
  check_context(context, "recv_init");
  Request* r = impl_->alloc_request();
  set_recv(r, buf, len, src, tag, context);
  r->persistent = true;
  return r;
}

Request* Engine::channel_send_init(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context) {
  Request* r = send_init(buf, len, dst, tag, context);
  r->channel = dst != rank_;
  if (r->channel) r->schan = &impl_->send_channels[ChannelKey{dst, context, tag}];
  return r;
}

Request* Engine::channel_recv_init(void* buf, std::size_t len, int src, int tag, std::uint32_t context) {
  Request* r = recv_init(buf, len, src, tag, context);
  r->channel = src >= 0 && src != rank_;
  if (r->channel) r->rchan = &impl_->recv_channels[ChannelKey{src, context, tag}];
  return r;
}

void Engine::start(Request* r) {
  if (r->is_send) impl_->start_send(r);
  else impl_->start_recv(r, MatchKey{r->context, r->peer, r->tag});
}

Request* Engine::isend(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context, SendMode mode) {
  check_context(context, "isend");
  Request* r = impl_->alloc_request();
  set_send(r, buf, len, dst, tag, context, mode);
  impl_->start_send(r);
  return r;
}

std::uint64_t Engine::try_send_now(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context) {
  if (dst == rank_ || len >= opt_.eager_limit || context > kMaxWireContext ||
      impl_->peers[dst].failed != Error::kOk)
    return 0;
  return impl_->write_eager_now(dst, buf, len, tag, context);
}

void Engine::send(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context, SendMode mode,
                  Status* st) {
  if (mode == SendMode::kStandard && try_send_now(buf, len, dst, tag, context)) {
    if (st) {
      *st = Status{};
      st->source = rank_;
      st->tag = tag;
      st->bytes = len;
    }
    return;
  }
  wait(isend(buf, len, dst, tag, context, mode), st);
}

Request* Engine::irecv(void* buf, std::size_t len, int src, int tag, std::uint32_t context) {
  check_context(context, "irecv");
  Request* r = impl_->alloc_request();
  set_recv(r, buf, len, src, tag, context);
  impl_->start_recv(r, MatchKey{context, src, tag});
  return r;
}

bool Engine::is_complete(const Request* r) const { return r->state == State::kDone; }
bool Engine::is_active(const Request* r) const {
  return r->state != State::kDone && r->state != State::kInactive;
}

bool Engine::test(Request* r, Status* st) {
  if (r->state == State::kInactive) {
    if (st) *st = Status{};
    return true;
  }
  if (r->state != State::kDone) impl_->poll_round();
  if (r->state != State::kDone) return false;
  impl_->collect(r, st);
  return true;
}

void Engine::wait(Request* r, Status* st) {
  impl_->block_until([&] { return r->state == State::kDone || r->state == State::kInactive; });
  test(r, st);
}

namespace {
int first_done(std::size_t n, Request* const* reqs) {
  for (std::size_t i = 0; i < n; ++i)
    if (reqs[i] && reqs[i]->state == State::kDone) return static_cast<int>(i);
  return -1;
}
}  // namespace

int Engine::testany(std::size_t n, Request* const* reqs, Status* st) {
  impl_->poll_round();
  const int i = first_done(n, reqs);
  if (i >= 0) test(reqs[i], st);
  return i;
}

int Engine::waitany(std::size_t n, Request* const* reqs, Status* st) {
  bool any_active = false;
  for (std::size_t i = 0; i < n; ++i) any_active |= reqs[i] && reqs[i]->state != State::kInactive;
  if (!any_active) return -1;
  int i = first_done(n, reqs);
  if (i < 0) wait_for_completion([&] { return (i = first_done(n, reqs)) >= 0; });
  test(reqs[i], st);
  return i;
}

void Engine::wait_for_completion(const std::function<bool()>& found) {
  std::uint64_t scanned = impl_->completions;
  impl_->block_until([&] {
    if (impl_->completions == scanned) return false;
    scanned = impl_->completions;
    return found();
  });
}

void Engine::waitall(std::size_t n, Request* const* reqs, Status* sts) {
  // Requests finished so far stay finished: each is looked at until it is.
  std::size_t first = 0;
  impl_->block_until([&] {
    while (first < n && (!reqs[first] || reqs[first]->state == State::kDone || reqs[first]->state == State::kInactive))
      ++first;
    return first == n;
  });
  for (std::size_t i = 0; i < n; ++i) {
    Request* r = reqs[i];
    if (!r) continue;
    Status* st = sts ? &sts[i] : nullptr;
    if (r->state == State::kInactive) {
      if (st) *st = Status{};
    } else {
      impl_->collect(r, st);  // done: block_until saw to that
    }
  }
}

bool Engine::iprobe(int src, int tag, std::uint32_t context, Status* st) {
  const MatchKey key{context, src, tag};
  {
    impl_->iprobing = &key;  // (a message it matches is taken beyond the unexpected limit: probed)
    struct Done {
      const MatchKey*& key;
      ~Done() { key = nullptr; }
    } done{impl_->iprobing};
    impl_->poll_round();
  }
  auto* u = static_cast<Unexpected*>(impl_->matcher.match_unexpected(key, false));
  if (!u) return false;
  if (st) {
    *st = Status{};
    st->source = u->source;
    st->tag = u->tag;
    st->bytes = u->length;
  }
  return true;
}

void Engine::probe(int src, int tag, std::uint32_t context, Status* st) {
  ++impl_->probing;
  impl_->block_until([&] {
    return impl_->matcher.match_unexpected(MatchKey{context, src, tag}, false) != nullptr;
  });
  --impl_->probing;
  iprobe(src, tag, context, st);
}

Message* Engine::improbe(int src, int tag, std::uint32_t context, Status* st) {
  if (!iprobe(src, tag, context, st)) return nullptr;
  return reinterpret_cast<Message*>(impl_->matcher.match_unexpected(MatchKey{context, src, tag}, true));
}

Message* Engine::mprobe(int src, int tag, std::uint32_t context, Status* st) {
  probe(src, tag, context, nullptr);
  return improbe(src, tag, context, st);
}

Request* Engine::receive_message(Message* m, void* buf, std::size_t len) {
  auto* u = static_cast<Unexpected*>(reinterpret_cast<UnexpectedMsg*>(m));
  Request* r = recv_init(buf, len, u->source, u->tag, u->context);
  r->persistent = false;
  r->status = Status{};
  r->PostedRecv::key = MatchKey{u->context, u->source, u->tag};
  impl_->take_unexpected(r, u);
  return r;
}

bool Engine::cancel(Request* r) {
  Impl& im = *impl_;
  if (!r->is_send) {
    if (r->state != State::kPosted || !im.matcher.unpost(r)) return false;
  } else if (r->peer == rank_) {
    // A send to this rank waiting for its receive, or an eager one copied
    // and complete: take it back if no receive has taken it.
    const bool copied = r->state == State::kDone && r->mode == SendMode::kStandard && !r->status.cancelled &&
                        r->status.error == Error::kOk;
    UnexpectedMsg* u = r->state != State::kWaitAck && !copied ? nullptr
                       : im.matcher.take_unexpected_if(rank_, [&](UnexpectedMsg* m) {
                           return static_cast<Unexpected*>(m)->send_id == r->id;
                         });
    if (!u) return false;
    im.discard(static_cast<Unexpected*>(u));
  } else if (r->state == State::kQueued) {
    // Still in a send queue: it never left. (A routed peer's: waiting for
    // an end-to-end credit, or in its next hop's link.)
    PeerState& ps = im.peers[r->peer];
    Fifo<PendingFrame>* q = nullptr;
    PendingFrame* f = nullptr;
    for (Fifo<PendingFrame>* cand : {ps.routed() ? &ps.routed_q : nullptr,
                                     ps.links.empty() && !ps.routed() ? nullptr : &im.route(r->peer)->sendq}) {
      for (f = cand ? cand->front() : nullptr; f && (f->req != r || f->relayed); f = f->next) {
      }
      if (f) {
        q = cand;
        break;
      }
    }
    if (!f) return false;
    if (q != &ps.routed_q && ps.routed()) {  // it had its end-to-end credit, and may carry some back
      ++ps.e2e_tokens;
      ps.e2e_owed += f->h.e2e_credits;
    }
    q->erase(f);
    im.release_frame(f);
  } else if (r->mode != SendMode::kReady && (r->state == State::kWaitAck || r->state == State::kWaitCts)) {
    // It left: ask the receiver to retract it. The answer (CANCEL_ACK)
    // completes it cancelled, or the match completes it as usual.
    if (!r->cancelling) {
      r->cancelling = true;
      im.send_cancel(r->peer, r->id);
    }
    return false;
  } else if (r->mode == SendMode::kStandard && r->state == State::kDone && !r->status.cancelled &&
             r->status.error == Error::kOk && r->len < eager_limit_to(r->peer)) {
    // An eager message that left, its request not yet waited for: the
    // receiver retracts it if unmatched; CANCEL_ACK completes it again.
    r->state = State::kWaitCancel;
    im.send_cancel(r->peer, r->id);
    return false;
  } else {
    return false;  // anything else completes by itself (its data is moving or arrived)
  }
  r->status.cancelled = true;
  r->status.bytes = 0;
  im.complete(r);
  return true;
}

Request* Engine::cancel_sent(int dst, std::uint64_t id, std::size_t len, int tag) {
  Impl& im = *impl_;
  Request* r = im.alloc_request();
  r->is_send = true;
  r->peer = dst;
  r->tag = tag;
  r->status.source = rank_;
  r->status.tag = tag;
  r->status.bytes = len;
  if (im.peers[dst].failed != Error::kOk) {
    r->status.error = im.peers[dst].failed;
    im.complete(r);
    return r;
  }
  r->state = State::kWaitCancel;
  r->remote_id = id;
  im.send_cancel(dst, id);
  return r;
}

void Engine::free(Request* r) {
  if (r->state == State::kDone || r->state == State::kInactive) impl_->release_request(r);
  else r->free_when_done = true;
}

bool Engine::progress() { return impl_->poll_round(); }

void Engine::set_progress_hook(bool (*hook)(void*), void* ctx) {
  impl_->hook = hook;
  impl_->hook_ctx = ctx;
}

void Engine::wait_until(const std::function<bool()>& done) { impl_->block_until([&] { return done(); }); }

void* Engine::allocate_registered(std::size_t bytes, std::size_t alignment) {
  if (!impl_->domain) {
    errno = ENOTSUP;
    return nullptr;
  }
  return impl_->domain->allocate(bytes, alignment);
}

bool Engine::free_registered(void* p) { return impl_->domain && impl_->domain->release(p); }

bool Engine::smp_available() const { return impl_->host != nullptr; }
std::size_t Engine::smp_max_bytes() const { return impl_->host ? impl_->host->max_bytes() : 0; }

ContextIds& Engine::context_ids() { return impl_->contexts; }

bool Engine::same_host(int peer) const { return peer == rank_ || impl_->peers.at(peer).same_host; }

int Engine::host_of(int rank) const { return impl_->host_ids.at(rank); }

Error Engine::smp_combine(const void* mine, std::size_t bytes, void* result, SmpFold fold, void* ctx) {
  if (bytes > smp_max_bytes())
    throw std::length_error("Engine::smp_combine: bytes = " + std::to_string(bytes) + " > smp_max_bytes()");
  Impl& im = *impl_;
  if (size_ == 1) {  // one rank: its contribution is everything
    if (bytes) fold(static_cast<const char*>(mine), result, ctx);
    return Error::kOk;
  }
  const std::uint64_t seq = im.smp_seq++;
  if (!im.host)
    throw std::logic_error("Engine::smp_combine: no host-local combine (smp_available() is false)");
  HostCombine& hc = *im.host;
  if (size_ == 2) {
    // Two ranks: each posts its contribution and folds both, in rank order,
    // from the other's slot -- one crossing between the cores instead of two
    // (the arrival, then the result), and no shared counter. Both folds see
    // the same bytes in the same order: the same bits on both.
    hc.post(seq, mine, bytes);
    const int other = 1 - rank_;
    const char* theirs = nullptr;
    std::size_t their_bytes = 0;
    Error err = Error::kOk;
    if (!im.poll_briefly([&] { return (theirs = hc.contribution(other, seq, &their_bytes)) != nullptr; }))
      im.block_until([&] {
        return (theirs = hc.contribution(other, seq, &their_bytes)) != nullptr || im.any_peer_failed(&err);
      });
    if (!theirs) return err;
    if (bytes) {
      im.smp_all.resize(2 * bytes);
      std::memcpy(im.smp_all.data() + static_cast<std::size_t>(rank_) * bytes, mine, bytes);
      std::memcpy(im.smp_all.data() + static_cast<std::size_t>(other) * bytes, theirs, bytes);
      fold(im.smp_all.data(), result, ctx);
    }
    return their_bytes > bytes ? Error::kTruncate : Error::kOk;
  }
  if (hc.arrive(seq, mine, bytes)) {
    // Contributions of other sizes (the ranks' counts differ) are folded as
    // if they had ours; a rank given less than the largest is told kTruncate.
    std::size_t largest = bytes;
    if (bytes) im.smp_all.resize(static_cast<std::size_t>(size_) * bytes);
    for (int r = 0; r < size_; ++r) {
      std::size_t theirs = 0;
      const char* c = hc.contribution(r, seq, &theirs);
      if (!c) {  // counted but not there: corrupted; fail every rank, not hang them
        hc.publish_failure(seq);
        return Error::kProtocol;
      }
      largest = std::max(largest, theirs);
      if (bytes) std::memcpy(im.smp_all.data() + static_cast<std::size_t>(r) * bytes, c, bytes);
    }
    if (bytes) fold(im.smp_all.data(), result, ctx);
    hc.publish(seq, result, bytes, largest);
    return largest > bytes ? Error::kTruncate : Error::kOk;
  }
  Error err = Error::kOk;
  HostCombine::State state = HostCombine::State::kPending;
  auto published = [&] { return (state = hc.result(seq, result, bytes)) != HostCombine::State::kPending; };
  if (!im.poll_briefly(published)) im.block_until([&] { return published() || im.any_peer_failed(&err); });
  if (state == HostCombine::State::kFailed) err = Error::kProtocol;
  if (state == HostCombine::State::kTruncated) err = Error::kTruncate;
  return err;
}

std::size_t Engine::smp_max_broadcast_bytes() const { return impl_->host ? impl_->host->max_broadcast_bytes() : 0; }

std::size_t Engine::smp_staging_bytes() const { return impl_->host ? impl_->host->staging_bytes() : 0; }

char* Engine::smp_staging(int rank, int which) {
  if (!impl_->host) throw std::logic_error("Engine::smp_staging: no host-local combine (smp_available() is false)");
  return impl_->host->staging(rank, which);
}

Error Engine::smp_broadcast(void* buf, std::size_t bytes, bool is_root, std::size_t* root_bytes) {
  *root_bytes = bytes;
  if (size_ == 1) return Error::kOk;
  Impl& im = *impl_;
  if (!im.host)
    throw std::logic_error("Engine::smp_broadcast: no host-local combine (smp_available() is false)");
  HostCombine& hc = *im.host;
  const std::uint64_t seq = im.smp_bcast_seq++;
  Error err = Error::kOk;
  if (is_root) {
    if (!hc.broadcast_publish(seq, buf, bytes))
      im.block_until([&] { return hc.broadcast_publish(seq, buf, bytes) || im.any_peer_failed(&err); });
    return err;
  }
  std::size_t got = 0;
  HostCombine::State state = HostCombine::State::kPending;
  auto published = [&] { return (state = hc.broadcast_result(seq, buf, bytes, &got)) != HostCombine::State::kPending; };
  if (!im.poll_briefly(published)) im.block_until([&] { return published() || im.any_peer_failed(&err); });
  if (state == HostCombine::State::kTruncated) err = Error::kTruncate;
  if (state != HostCombine::State::kPending) *root_bytes = got;
  return err;
}

const LinkStats* Engine::direction_stats(Direction d) const {
  if (d.index() >= static_cast<int>(impl_->by_direction.size())) return nullptr;
  LinkState* ls = impl_->by_direction[d.index()];
  return ls ? &ls->stats : nullptr;
}

std::size_t Engine::eager_limit_to(int peer) const { return impl_->peers.at(peer).eager_limit; }

const LinkStats* Engine::peer_stats(int peer) const {
  const PeerState& ps = impl_->peers.at(peer);
  return ps.links.empty() ? nullptr : &ps.links[0]->stats;
}

int Engine::open_links() const { return static_cast<int>(impl_->links.size()); }

}  // namespace meshmp::mesh
