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
  r->reg_key = registration_key(r->buf, r->granted);
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
  if (granted == 0) return finish_put(ls, s, PutStatus::kDone);
  if (polling) {
    // A CTS or RECV_READY handler: the put waits until the poll has taken
    // its frames (progress_puts), so no handler copies megabytes while the
    // frames behind it wait.
    s->state = State::kPutting;
    s->put_addr = addr;
    ls.put_queue.push_back(s);
    return;
  }
  const iovec iov{s->buf, granted};
  const PutStatus st = ls.link->put(&iov, 1, addr, key, s->id);
  if (st == PutStatus::kInProgress) {
    s->state = State::kPutting;
    ++ls.puts_in_flight;
  } else if (st == PutStatus::kNoResource) {
    s->state = State::kPutting;
    s->put_addr = addr;
    ls.put_queue.push_back(s);
  } else {
    finish_put(ls, s, st);
  }
}

// The end of send s's put (write_granted): DONE goes only now, after the
// bytes are there and the source buffer is released; or, where the link
// cannot put, DATA frames through the slots of every link to the peer.
void Engine::Impl::finish_put(LinkState& ls, Request* s, PutStatus st) {
  const int peer = s->peer;
  const std::size_t granted = s->granted;
  if (st == PutStatus::kDone) {
    if (granted) {
      ++ls.stats.rdma_writes;
      if (domain && domain->direct(s->remote_key)) ++ls.stats.registered_writes;
    }
    ls.stats.bytes_sent += granted;
    FrameHeader d = make_header(FrameType::kDone, peer);
    d.length = granted;
    d.addr = s->len;  // the whole message, so the receiver can report truncation
    d.send_id = s->id;
    d.recv_id = s->remote_id;
    d.key = s->remote_key;
    send_or_queue(ls, d, nullptr);
    complete(s);
  } else if (st == PutStatus::kUnsupported) {
    s->state = State::kStreaming;
    s->offset = 0;
    FrameHeader d = make_header(FrameType::kData, peer);
    d.send_id = s->id;
    d.recv_id = s->remote_id;
    d.key = s->remote_key;
    s->data_streams = static_cast<int>(peers[peer].links.size());
    for (LinkState* l : peers[peer].links) send_or_queue(*l, d, s);
  } else if (st == PutStatus::kPeerGone) {
    fail_peer(peer, Error::kPeerDead, "process is gone");
  } else if (st == PutStatus::kBadLocal) {
    // This message's bytes could not be moved (a bad buffer address, ours
    // or the receive's): it fails on both sides, the link stays.
    std::fprintf(stderr, "meshmp: rank %d: a %zu-byte message to rank %d could not be written (bad buffer address); "
                 "it fails on both ends\n", e.rank_, s->len, peer);
    FrameHeader d = make_header(FrameType::kDone, peer);
    d.flags = kFlagFailed;
    d.addr = s->len;
    d.send_id = s->id;
    d.recv_id = s->remote_id;
    d.key = s->remote_key;
    send_or_queue(ls, d, nullptr);
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
    const iovec iov{s->buf, s->granted};
    const PutStatus st = ls.link->put(&iov, 1, s->put_addr, s->remote_key, s->id);
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
  if (!room_for_unexpected(0, matcher.waiting_for(src))) return false;
  auto* u = new Unexpected;
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

bool Engine::Impl::on_done(LinkState&, const FrameHeader& h, const char*) {
  const int src = h.src;
  Request* r = rendezvous_target(h.recv_id, src);
  if (!r || h.key != r->reg_key || h.length > r->granted || h.addr < h.length) {
    fail_peer(src, Error::kProtocol, "DONE for an unknown receive or a wrong key/length");
    return true;
  }
  if (h.flags & kFlagFailed) {  // the sender could not write it: this receive fails
    std::fprintf(stderr, "meshmp: rank %d: rank %d could not write its %llu-byte message into our receive\n",
                 e.rank_, src, static_cast<unsigned long long>(h.addr));
    r->status.bytes = 0;
    r->status.error = Error::kProtocol;
    complete(r);
    return true;
  }
  r->granted = h.length;
  r->msg_len = h.addr;
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
