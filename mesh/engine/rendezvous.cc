// Rendezvous (seed 000 §3.6.2, §3.8-3.10): RTS -> the receiver matches ->
// CTS with address and key -> the sender's put (RDMA write) -> DONE only once
// the put has completed; DATA frames through the slots of every link to the
// peer where the link cannot put (channel bonding, §3.10).
#include "mesh/engine/engine_impl.h"

#include <cstdio>

namespace meshmp::mesh {

// A matched RTS: announce the buffer (CTS) so the sender can write it.
void Engine::Impl::accept_rendezvous(Request* r, int src, int tag, std::size_t msg_len, std::uint64_t send_id) {
  r->status.source = src;
  r->status.tag = tag;
  r->msg_len = msg_len;
  r->granted = std::min(msg_len, r->len);
  r->offset = 0;
  r->remote_id = send_id;
  r->reg_key = registration_key(r, r->buf, r->granted, src);
  r->state = State::kRendezvous;
  FrameHeader h = make_header(FrameType::kCts, src);
  h.context = r->context;
  h.tag = tag;
  h.length = r->granted;
  h.send_id = send_id;
  h.recv_id = r->id;
  h.addr = reinterpret_cast<std::uint64_t>(r->buf);
  h.key = r->reg_key;
  send_or_queue(*route(src), h, nullptr);
}

// The receive a DONE or DATA is for: one that sent a CTS, or an announced
// channel receive (which is then matched: no eager send will come for it).
Request* Engine::Impl::rendezvous_target(std::uint64_t recv_id, int src) {
  if (Request* r = lookup(recv_id, false, State::kRendezvous, src)) return r;
  Request* r = lookup(recv_id, false, State::kAnnounced, src);
  if (r) {
    forget(r->rchan->started, r);
    r->state = State::kRendezvous;
    r->msg_len = r->granted;
  }
  return r;
}

void Engine::Impl::finish_rendezvous_recv(Request* r) {
  r->status.bytes = r->granted;
  r->status.error = r->msg_len > r->len ? Error::kTruncate : Error::kOk;
  complete(r);
}

// Writes `granted` bytes of send `s` into the receive buffer at `addr`
// (announced in a CTS or a RECV_READY), then DONE; or, where the OS refuses
// single-copy writes, pipelines DATA frames through the slots of every link
// to the peer (channel bonding, seed 000 §3.10).
void Engine::Impl::write_granted(LinkState& ls, Request* s, std::size_t granted, std::uint64_t addr, std::uint64_t key,
                   std::uint64_t recv_id) {
  s->granted = granted;
  s->remote_id = recv_id;
  s->remote_key = key;
  s->put_addr = addr;
  s->stripes_left = 1;
  s->striped = false;
  s->stripe_len[0] = granted;
  s->stripe_len[1] = 0;
  if (granted == 0) return finish_put(ls, s, PutStatus::kDone);
  const PeerState& ps = peers[s->peer];
  if (ps.routed()) return start_streaming(s);  // (a put would land in the next hop: routed.cc)
  s->state = State::kPutting;
  if (granted >= kStripeMin && ps.links.size() == 2 && ps.links[1]->up && ps.provider->caps().stripe) {
    // Channel bonding (seed 000 §3.10): half on each link to the peer.
    s->striped = true;
    s->stripes_left = 2;
    s->stripe_len[0] = granted / 2;
    s->stripe_len[1] = granted - granted / 2;
    start_stripe(*ps.links[0], s);
    start_stripe(*ps.links[1], s);
    return;
  }
  start_stripe(ls, s);
}

// One stripe's put on its link. From a CTS or RECV_READY handler it waits
// until the poll has taken its frames (progress_puts), so no handler copies
// megabytes while the frames behind it wait.
void Engine::Impl::start_stripe(LinkState& ls, Request* s) {
  if (polling) {
    ls.put_queue.push_back(s);
    return;
  }
  const int i = stripe_of(ls, s);
  const iovec iov = stripe_iov(s, i);
  const PutStatus st = ls.link->put(&iov, 1, s->put_addr + (i ? s->stripe_len[0] : 0), s->remote_key, s->id);
  if (st == PutStatus::kInProgress) ++ls.puts_in_flight;
  else if (st == PutStatus::kNoResource) ls.put_queue.push_back(s);
  else finish_put(ls, s, st);
}

// DONE for send s on link ls: `length` bytes written (this stripe's, or all),
// and the whole message's length so the receiver can report truncation.
void Engine::Impl::send_done(LinkState& ls, Request* s, std::uint16_t flags, std::size_t length) {
  FrameHeader d = make_header(FrameType::kDone, s->peer);
  d.flags = flags;
  d.length = length;
  d.addr = s->len;
  d.send_id = s->id;
  d.recv_id = s->remote_id;
  d.key = s->remote_key;
  send_or_queue(ls, d, nullptr);
}

// The end of send s's put (write_granted): DONE goes only now, after the
// bytes are there and the source buffer is released; or, where the link
// cannot put, DATA frames through the slots of every link to the peer.
void Engine::Impl::finish_put(LinkState& ls, Request* s, PutStatus st) {
  const int peer = s->peer;
  const std::size_t granted = s->stripe_len[stripe_of(ls, s)];
  if (st == PutStatus::kDone) {
    if (granted) {
      ++ls.stats.rdma_writes;
      if (MemoryDomain* d = domain_of(peer); d && d->direct(s->remote_key)) ++ls.stats.registered_writes;
    }
    ls.stats.bytes_sent += granted;
    send_done(ls, s, s->striped ? kFlagStripe : 0, granted);  // on the stripe's own link: after its bytes
    if (--s->stripes_left == 0) complete(s);
  } else if (s->striped && st == PutStatus::kBadLocal) {
    // This stripe's bytes could not be moved: its DONE says so, and the
    // receive fails once every stripe is accounted for; the link stays.
    send_done(ls, s, kFlagStripe | kFlagFailed, granted);
    s->status.error = Error::kProtocol;
    if (--s->stripes_left == 0) complete(s);
  } else if (s->striped) {
    // A striped put goes only over links that can put: any other answer
    // means the link or the peer failed.
    fail_peer(peer, st == PutStatus::kPeerGone ? Error::kPeerDead : Error::kProtocol,
              ls.link->describe() + ": a stripe's put failed (" + put_status_name(st) + ")");
  } else if (st == PutStatus::kUnsupported) {
    start_streaming(s);
  } else if (st == PutStatus::kPeerGone) {
    fail_peer(peer, Error::kPeerDead, "process is gone");
  } else if (st == PutStatus::kBadLocal) {
    // This message's bytes could not be moved (a bad buffer address, ours
    // or the receive's): it fails on both sides, the link stays.
    std::fprintf(stderr, "meshmp: rank %d: a %zu-byte message to rank %d could not be written (bad buffer address); "
                 "it fails on both ends\n", e.rank_, s->len, peer);
    send_done(ls, s, kFlagFailed, 0);
    s->status.error = Error::kProtocol;
    complete(s);
  } else {
    fail_peer(peer, Error::kProtocol, ls.link->describe() + ": the peer's buffer announcement is bad (" +
                                          put_status_name(st) + ")");
  }
}

// Puts that completed later (kInProgress), then the queued ones in order:
// those frame handlers asked for and those that found no resource.
bool Engine::Impl::progress_puts(LinkState& ls) {
  bool any = false;
  PutCompletion c;
  while (ls.link->poll_put(&c)) {
    any = true;
    if (c.cookie & kFlagPutBit) {
      flag_put_done(ls, c);
      continue;
    }
    Request* s = lookup(c.cookie, true, State::kPutting, ls.peer);
    if (!s || ls.puts_in_flight == 0) {
      fail_peer(ls.peer, Error::kProtocol, ls.link->describe() + ": a put completion for no send");
      return true;
    }
    --ls.puts_in_flight;
    finish_put(ls, s, c.status);
  }
  while (!ls.put_queue.empty()) {
    Request* s = ls.put_queue.front();
    const int i = stripe_of(ls, s);
    const iovec iov = stripe_iov(s, i);
    const PutStatus st = ls.link->put(&iov, 1, s->put_addr + (i ? s->stripe_len[0] : 0), s->remote_key, s->id);
    if (st == PutStatus::kNoResource) break;
    ls.put_queue.pop_front();
    any = true;
    if (st == PutStatus::kInProgress) ++ls.puts_in_flight;
    else finish_put(ls, s, st);
  }
  return any;
}

bool Engine::Impl::on_rts(LinkState&, const FrameHeader& h, const char* payload) {
  const int src = h.src;
  if (h.flags & kFlagChannel) return take_channel_message(src, h, payload);
  if (Request* r = static_cast<Request*>(matcher.match_arrival(h.context, src, h.tag))) {
    accept_rendezvous(r, src, h.tag, h.length, h.send_id);
    return true;
  }
  if (!room_for_unexpected(0, src, matcher.waiting_for(src) || probed(h))) return false;
  Unexpected* u = new_unexpected();
  u->context = h.context;
  u->source = src;
  u->tag = h.tag;
  u->length = h.length;
  u->rendezvous = true;
  u->send_id = h.send_id;
  matcher.add_unexpected(counted(u));
  return true;
}

bool Engine::Impl::on_cts(LinkState& ls, const FrameHeader& h, const char*) {
  const int src = h.src;
  Request* s = lookup(h.send_id, true, State::kWaitCts, src);
  if (!s && (s = lookup(h.send_id, true, State::kWaitReady, src))) forget(s->schan->waiting, s);
  if (!s || h.length > s->len) {
    fail_peer(src, Error::kProtocol, "CTS for an unknown send or with too many bytes");
    return true;
  }
  write_granted(ls, s, h.length, h.addr, h.key, h.recv_id);
  return true;
}

// The sender could not write its `bytes`-byte message (kFlagFailed): this receive fails.
void Engine::Impl::fail_unwritten(Request* r, int src, std::uint64_t bytes) {
  std::fprintf(stderr, "meshmp: rank %d: rank %d could not write its %llu-byte message into our receive\n", e.rank_,
               src, static_cast<unsigned long long>(bytes));
  r->status.bytes = 0;
  r->status.error = Error::kProtocol;
  complete(r);
}

bool Engine::Impl::on_done(LinkState&, const FrameHeader& h, const char*) {
  const int src = h.src;
  Request* r = rendezvous_target(h.recv_id, src);
  if (!r || h.key != r->reg_key || h.length > r->granted || h.addr < h.length) {
    fail_peer(src, Error::kProtocol, "DONE for an unknown receive or a wrong key/length");
    return true;
  }
  if ((h.flags & kFlagFailed) && !(h.flags & kFlagStripe)) {  // the sender could not write it: this receive fails
    fail_unwritten(r, src, h.addr);
    return true;
  }
  r->msg_len = h.addr;
  if (h.flags & kFlagStripe) {
    if (h.length > r->granted - r->offset) {
      fail_peer(src, Error::kProtocol, "stripe DONEs for more bytes than were granted");
      return true;
    }
    r->offset += h.length;
    r->stripe_failed |= (h.flags & kFlagFailed) != 0;
    if (r->offset < r->granted) return true;
    if (!r->stripe_failed) return finish_rendezvous_recv(r), true;
    fail_unwritten(r, src, h.addr);
    return true;
  }
  r->granted = h.length;
  if (!(h.flags & kFlagStreamed) || r->offset >= r->granted) finish_rendezvous_recv(r);
  else r->done_seen = true;  // the last DATA frames are still on their way
  return true;
}

bool Engine::Impl::on_data(LinkState&, const FrameHeader& h, const char* payload) {
  const int src = h.src;
  Request* r = rendezvous_target(h.recv_id, src);
  if (!r || h.key != r->reg_key || h.addr > r->granted || h.length > r->granted - h.addr) {
    fail_peer(src, Error::kProtocol, "DATA outside the announced receive buffer");
    return true;
  }
  std::memcpy(r->buf + h.addr, payload, h.length);
  r->offset += h.length;
  if (r->done_seen && r->offset >= r->granted) finish_rendezvous_recv(r);
  return true;
}

}  // namespace meshmp::mesh
