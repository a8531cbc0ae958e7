// Receiver-ready channels (ARCHITECTURE.md §3; seed 003 §5.1 sender-side
// matching): a started channel receive announces its buffer (RECV_READY), and
// the k-th send on a channel meets the k-th receive.
#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

// A RECV_READY: the send waiting for it writes now; an announcement for a
// send that already went eager is dropped; a later one is kept.
void Engine::Impl::take_announcement(int src, const FrameHeader& h) {
  SendChannel& ch = send_channels[ChannelKey{src, h.context, h.tag}];
  const Announcement a{h.send_id, h.addr, h.key, h.recv_id, h.length};
  auto it = std::find_if(ch.waiting.begin(), ch.waiting.end(), [&](Request* s) { return s->chan_gen == a.gen; });
  if (it != ch.waiting.end()) {
    Request* s = *it;
    ch.waiting.erase(it);
    ++route(src)->stats.ready_writes;
    write_granted(*route(src), s, std::min<std::size_t>(s->len, a.capacity), a.addr, a.key, a.recv_id);
  } else if (a.gen >= ch.next_gen) {
    ch.ready.push_back(a);
  }
}

// An EAGER or RTS frame from a channel send: for the receive started with
// its number, or kept until that receive starts. An EAGER message is
// delivered. An RTS (a large send found no announcement when it started)
// is answered with a CTS by a receive below the eager limit, which
// announces nothing; a larger receive has announced, or will, and the
// sender writes on that. False if it cannot be kept now (unexpected
// buffer full).
bool Engine::Impl::take_channel_message(int src, const FrameHeader& h, const char* payload) {
  const bool rts = static_cast<FrameType>(h.type) == FrameType::kRts;
  RecvChannel& ch = recv_channels[ChannelKey{src, h.context, h.tag}];
  auto it = std::find_if(ch.started.begin(), ch.started.end(), [&](Request* r) { return r->chan_gen == h.addr; });
  if (it != ch.started.end()) {
    Request* r = *it;
    if (rts && announces(r)) return true;
    ch.started.erase(it);
    if (rts) accept_rendezvous(r, src, h.tag, h.length, h.send_id);
    else deliver_eager(r, src, h.tag, payload, h.length);
    return true;
  }
  if (h.addr < ch.next_gen) {
    // Its receive was started and matched: an RTS then came behind the
    // write its announcement brought (DATA frames may take the other link
    // of a size-2 axis); a second EAGER is malformed.
    if (!rts) fail_peer(src, Error::kProtocol, "a second message for channel number " + std::to_string(h.addr));
    return true;
  }
  if (!room_for_unexpected(rts ? 0 : h.length, src, !ch.started.empty())) return false;
  Unexpected* u = new_unexpected();
  u->source = src;
  u->tag = h.tag;
  u->length = h.length;
  u->chan_gen = h.addr;
  u->rendezvous = rts;
  u->send_id = h.send_id;
  if (!rts) u->data.assign(payload, payload + h.length);
  ch.early.push_back(counted(u));
  return true;
}

bool Engine::Impl::on_recv_ready(LinkState&, const FrameHeader& h, const char*) {
  take_announcement(h.src, h);
  return true;
}

// Every start of a channel receive has a number, so the k-th send meets
// the k-th receive: its eager message or RTS may already be here.
// Otherwise the receive waits for either; one of the eager limit or more
// announces its buffer (receiver-ready), so a send that starts after the
// announcement arrives writes at once. A smaller one announces nothing:
// its message comes eager, and announcing would only add a frame.
void Engine::Impl::start_channel_recv(Request* r) {
  RecvChannel& ch = *r->rchan;
  r->chan_gen = ch.next_gen++;
  auto it = std::find_if(ch.early.begin(), ch.early.end(), [&](Unexpected* u) { return u->chan_gen == r->chan_gen; });
  if (it != ch.early.end()) {
    Unexpected* u = *it;
    ch.early.erase(it);
    const bool taken = !u->rendezvous || !announces(r);  // else: announce below, the sender writes on that
    if (u->rendezvous && taken) {
      accept_rendezvous(r, u->source, u->tag, u->length, u->send_id);
    } else if (!u->rendezvous) {
      deliver_eager(r, u->source, u->tag, u->data.data(), u->length);
    }
    discard(u);
    if (taken) return;
  }
  if (peers[r->peer].failed != Error::kOk) {
    r->status.error = peers[r->peer].failed;
    r->status.source = r->peer;
    return complete(r);
  }
  ch.started.push_back(r);
  r->state = State::kAnnounced;
  r->status.source = r->peer;
  r->granted = r->len;
  r->offset = 0;
  r->done_seen = false;
  if (announces(r)) announce(r);
}

// Whether a started channel receive announces its buffer: from the eager
// limit to its peer on (smaller messages come eager; an announcement would
// only add a frame).
bool Engine::Impl::announces(const Request* r) const { return r->len >= peers[r->peer].eager_limit; }

// Receiver-ready: tell the sender where this receive's buffer is.
void Engine::Impl::announce(Request* r) {
  r->reg_key = registration_key(r, r->buf, r->len, r->peer);
  FrameHeader h = make_header(FrameType::kRecvReady, r->peer);
  h.context = r->context;
  h.tag = r->tag;
  h.length = r->len;
  h.addr = reinterpret_cast<std::uint64_t>(r->buf);
  h.key = r->reg_key;
  h.recv_id = r->id;
  h.send_id = r->chan_gen;
  send_or_queue(*route(r->peer), h, nullptr);
}

}  // namespace meshmp::mesh
