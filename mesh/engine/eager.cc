// Eager messages (seed 000 §3.6): starting sends and receives, matching, the
// unexpected queue and its limit, synchronous-send acknowledgements.
#include "mesh/engine/engine_impl.h"

#include <cstdio>

namespace meshmp::mesh {

void Engine::Impl::send_sync_ack(int peer, std::uint64_t send_id) {
  FrameHeader h = make_header(FrameType::kSyncAck, peer);
  h.send_id = send_id;
  send_or_queue(*route(peer), h, nullptr);
}

// Whether an unexpected message of `payload` bytes from `src` may be
// buffered. Up to the limit, always; beyond it, the link stalls (no credits
// go back, the sender waits) -- unless this rank waits for a frame that
// may stand behind it on that link: a later message for a posted receive
// (`receive_waiting`) or a blocking probe, or a frame of an operation under
// way with `src` (awaits_frame_from). Then what stands before it is
// buffered anyway, so a posted receive always meets its message and a
// matched pair of send and receive completes (MPI-1.1 §3.5, §3.7.4), and
// memory beyond the limit grows only as far as that takes. Where ranks
// relay, a link from a neighbour also brings the frames of routed peers
// behind it (waiting_behind), and the message is taken anyway, its credit
// withheld (take_withholding_credit).
bool Engine::Impl::room_for_unexpected(std::size_t payload, int src, bool receive_waiting) const {
  if (unexpected_bytes + cost_of(payload) <= e.opt_.unexpected_limit || receive_waiting || probing > 0) return true;
  return withholding || awaits_frame_from(src) || (max_hops && waiting_behind(src));
}

// Where ranks relay, a neighbour's message that finds no room may not stay
// in its slot: routed frames of other pairs, which other ranks wait for,
// would wait behind it. It is taken beyond the limit, and its slot's credit
// withheld until there is room again (return_withheld_credits): the
// neighbour keeps tokens for routed frames that its own messages may not
// spend (CreditLedger), so at most slots - 1 - that reserve of its messages
// (of up to its eager limit each) are taken so, per link, and routed frames
// always pass. False for a frame that is not such a message.
bool Engine::Impl::take_withholding_credit(LinkState& ls, const FrameHeader& h, const char* payload) {
  if (!starts_message(h) || ls.ledger.withheld() + 1 >= ls.ledger.slots()) return false;
  withholding = true;
  const bool taken = handle_frame(ls, h, payload);
  withholding = false;
  if (!taken) return false;
  if (ls.ledger.withheld() == 0) ++withholding_links;
  ++ls.stats.credits_withheld;
  return true;
}

// The credits withheld on each link whose peer's messages would find room
// now (room_for_unexpected): returned, at once. Once a pass while any are
// withheld.
bool Engine::Impl::return_withheld_credits() {
  bool any = false;
  for (auto& l : links) {
    LinkState& ls = *l;
    if (!ls.ledger.withheld()) continue;
    const bool gone = peers[ls.peer].failed != Error::kOk || ls.cut;
    if (!gone && !room_for_unexpected(0, ls.peer, matcher.waiting_for(ls.peer))) continue;
    ls.ledger.release_withheld();
    --withholding_links;
    if (!gone && ls.up && ls.ledger.can_send_credit()) send_credit(ls);
    any = true;
  }
  return any;
}

// Whether a request of this rank's waits for a frame from `peer` other than
// a new message for a posted receive: a send's CTS, RECV_READY, SYNC_ACK,
// CANCEL_ACK or credits, a receive's DATA or DONE, a channel receive's
// message. Beyond the unexpected limit only (a scan of the requests).
bool Engine::Impl::awaits_frame_from(int peer) const {
  for (const auto& r : requests)
    if (peer_waited_on(*r) == peer) return true;
  return false;
}

Unexpected* Engine::Impl::new_unexpected() {
  if (spare_unexpected.empty()) return new Unexpected;
  Unexpected* u = spare_unexpected.back();
  spare_unexpected.pop_back();
  std::vector<char> bytes = std::move(u->data);  // (its capacity stays)
  bytes.clear();
  *u = Unexpected{};
  u->data = std::move(bytes);
  return u;
}

void Engine::Impl::discard(Unexpected* u) {
  unexpected_bytes -= cost_of(u->data.size());
  if (spare_unexpected.size() < kSpareUnexpected && u->data.capacity() <= kSpareUnexpectedBytes) {
    spare_unexpected.push_back(u);
    return;
  }
  delete u;
}

// An EAGER frame: for the posted receive it matches, else the unexpected
// queue. Like every handler (frame_handlers.cc), returns false if the frame
// cannot be taken now (unexpected buffer full): it then stays in its slot
// and is offered again later.
bool Engine::Impl::on_eager(LinkState&, const FrameHeader& h, const char* payload) {
  const int src = h.src;
  if (h.flags & kFlagChannel) return take_channel_message(src, h, payload);
  if (Request* r = static_cast<Request*>(matcher.match_arrival(h.context, src, h.tag))) {
    deliver_eager(r, src, h.tag, payload, h.length);
    if (h.flags & kFlagSync) send_sync_ack(src, h.send_id);
    return true;
  }
  if (!room_for_unexpected(h.length, src, matcher.waiting_for(src) || probed(h))) return false;
  Unexpected* u = new_unexpected();
  u->context = h.context;
  u->source = src;
  u->tag = h.tag;
  u->length = h.length;
  u->sync = h.flags & kFlagSync;
  u->send_id = h.send_id;
  u->data.assign(payload, payload + h.length);
  matcher.add_unexpected(counted(u));
  return true;
}

bool Engine::Impl::on_sync_ack(LinkState&, const FrameHeader& h, const char*) {
  Request* s = lookup(h.send_id, true, State::kWaitAck, h.src);
  if (!s) {
    fail_peer(h.src, Error::kProtocol, "SYNC_ACK for an unknown send");
    return true;
  }
  complete(s);
  return true;
}

// The credits were taken before dispatch.
bool Engine::Impl::on_credit(LinkState&, const FrameHeader&, const char*) { return true; }

void Engine::Impl::start_send(Request* r) {
  r->status = Status{};
  r->status.source = e.rank_;
  r->status.tag = r->tag;
  r->status.bytes = r->len;
  if (r->peer == e.rank_) return start_self_send(r);
  if (peers[r->peer].failed != Error::kOk) {
    r->status.error = peers[r->peer].failed;
    return complete(r);
  }
  LinkState& ls = *route(r->peer);
  r->state = State::kQueued;
  const bool eager = r->len < peers[r->peer].eager_limit && r->len <= ls.max_payload;
  if (r->channel) {
    SendChannel& ch = *r->schan;
    r->chan_gen = ch.next_gen++;
    // Announcements for earlier sends (those went eager) are spent.
    while (!ch.ready.empty() && ch.ready.front().gen < r->chan_gen) ch.ready.pop_front();
    const bool announced = !ch.ready.empty() && ch.ready.front().gen == r->chan_gen;
    // Below the eager limit a copy through the slots beats a system call,
    // but a write into registered memory is one memcpy: take it.
    if (announced && (!eager || (domain_of(r->peer) && domain_of(r->peer)->direct(ch.ready.front().key)))) {
      const Announcement a = ch.ready.front();
      ch.ready.pop_front();
      ++ls.stats.ready_writes;
      write_granted(ls, r, std::min<std::size_t>(r->len, a.capacity), a.addr, a.key, a.recv_id);
      return;
    }
    if (announced) ch.ready.pop_front();  // this send goes eager: its announcement is spent
    if (!eager) {
      // Wait for the announcement; and send an RTS with the channel
      // number, which only a receive too small to announce answers (CTS).
      r->state = State::kWaitReady;
      ch.waiting.push_back(r);
      send_or_queue(ls, envelope(FrameType::kRts, r), nullptr);
      return;
    }
  }
  send_or_queue(ls, envelope(eager ? FrameType::kEager : FrameType::kRts, r), r);
}

// The EAGER or RTS frame of send r: its envelope; a channel send's carries
// its number (kFlagChannel), a synchronous eager one asks for SYNC_ACK.
FrameHeader Engine::Impl::envelope(FrameType t, const Request* r) const {
  FrameHeader h = make_header(t, r->peer);
  h.flags = r->channel ? kFlagChannel : t == FrameType::kEager && r->mode == SendMode::kSynchronous ? kFlagSync : 0;
  h.context = r->context;
  h.tag = r->tag;
  h.length = r->len;
  h.send_id = r->id;
  h.addr = r->chan_gen;
  return h;
}

void Engine::Impl::take_unexpected(Request* r, Unexpected* u) {
  if (u->self_send) {
    Request* s = u->self_send;
    deliver_eager(r, u->source, u->tag, s->buf, s->len);
    complete(s);
  } else if (u->rendezvous) {
    accept_rendezvous(r, u->source, u->tag, u->length, u->send_id);
  } else {
    deliver_eager(r, u->source, u->tag, u->data.data(), u->length);
    if (u->sync) send_sync_ack(u->source, u->send_id);
  }
  discard(u);
}

}  // namespace meshmp::mesh
