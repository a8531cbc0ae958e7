// Per-link send queue, tokens and credits (CreditLedger, seed 003 §5.1): a
// frame goes at once when the link is up, idle and holds a token, else waits
// in the link's FIFO (seed 004 §3.4); polling a link validates and
// dispatches its frames and returns credits.
#include "mesh/engine/engine_impl.h"

#include <cstdio>

namespace meshmp::mesh {

// A link to a peer that is not a torus neighbour, on first use (seed 004
// §3). On a mesh fabric only where the network routes it (tcp: the kernels,
// along SDF routes); elsewhere such a peer is routed (routed.cc).
void Engine::Impl::connect_on_demand(int peer) { add_link(peers[peer].provider->connect(peer)); }

LinkState* Engine::Impl::add_link(std::unique_ptr<Link> link) {
  auto ls = std::make_unique<LinkState>();
  ls->ledger = CreditLedger(link->slots());
  ls->peer = link->peer();
  ls->max_payload = link->max_payload();
  ls->link = std::move(link);
  LinkState* p = ls.get();
  if (max_hops) {
    p->written_frames.assign(p->ledger.slots(), {});  // (detours.cc)
    p->ledger.reserve_for_routed(std::max<std::uint32_t>(1, p->ledger.slots() / 8));  // (take_withholding_credit)
  }
  peers[p->peer].links.push_back(p);
  links.push_back(std::move(ls));
  return p;
}

void Engine::Impl::send_on_link(LinkState& ls, const FrameHeader& h, Request* req) {
  if (writable_now(ls) && (!opens_message(ls, h) || ls.ledger.can_send_message())) {
    if (emit(ls, h, req)) return;
  }
  if (ls.up) ++ls.stats.token_stalls;
  PendingFrame* f = alloc_frame();
  f->h = h;
  f->req = req;
  ls.sendq.push_back(f);
  if (h.dst != ls.peer) [[unlikely]] ++ls.routed_queued;
}

// The EAGER frame of a send with no request, on a link that can take it now.
inline std::uint64_t Engine::Impl::write_eager(LinkState& ls, const void* buf, std::size_t len, int tag,
                                               std::uint32_t context) {
  char* pl = nullptr;
  FrameHeader* slot = ls.link->begin_send(&pl, len);
  copy_payload(pl, buf, len);  // (most are a few bytes: memcpy through the PLT cost more)
  FrameHeader& h = *header_in(slot, FrameType::kEager, ls.peer);
  h.context = static_cast<std::uint16_t>(context);
  h.tag = tag;
  h.length = len;
  const std::uint64_t id = kSentNowBit | ++sent_now;
  h.send_id = id;
  end_frame(ls, slot, len);
  ++ls.stats.eager_sent;
  return id;
}

// A standard eager frame written now, from `buf`, if the link is up, idle
// and holds a credit: returns its send id (kSentNowBit set); 0 (nothing
// written) otherwise.
std::uint64_t Engine::Impl::write_eager_now(int peer, const void* buf, std::size_t len, int tag,
                                            std::uint32_t context) {
  if (peers[peer].routed()) return 0;  // (the request's way: end-to-end credits, routed.cc)
  LinkState& ls = *route(peer);
  if (len > ls.max_payload) return 0;
  if (!writable_for_message(ls)) [[unlikely]] return write_eager_after_poll(ls, buf, len, tag, context);
  return write_eager(ls, buf, len, tag, context);
}

// No token left (or frames wait before this one): the tokens the peer
// returned may already be in the link, unread while this rank sends. One
// look at that link, and one more try, before the send takes a request and
// a place in the queue (a window of 64 sends on 32 slots: half of them
// did). Out of line, so that the common path saves no registers for it.
std::uint64_t Engine::Impl::write_eager_after_poll(LinkState& ls, const void* buf, std::size_t len, int tag,
                                                   std::uint32_t context) {
  if (!poll_link(ls) || peers[ls.peer].failed != Error::kOk || !writable_for_message(ls)) return 0;
  return write_eager(ls, buf, len, tag, context);
}

// Puts one queued/ready frame on the wire. Returns true if the frame is
// finished (a DATA stream may need more frames).
bool Engine::Impl::emit(LinkState& ls, const FrameHeader& h, Request* req) {
  const auto type = static_cast<FrameType>(h.type);
  if (type == FrameType::kEager) {
    write_frame(ls, h, req->buf, req->len);
    ++ls.stats.eager_sent;
    if (h.flags & kFlagSync) req->state = State::kWaitAck;
    else complete(req);
    return true;
  }
  if (type == FrameType::kRts && req) {  // (a channel's RTS has none: it is a request to announce)
    write_frame(ls, h, nullptr, 0);
    ++ls.stats.rendezvous_sent;
    req->state = State::kWaitCts;
    return true;
  }
  if (type == FrameType::kData) {
    if (h.length) [[unlikely]] {
      // One piece of a stream to a routed peer, cut when it got its
      // end-to-end credit (pump_routed): the last piece ends the send.
      write_frame(ls, h, req->buf + h.addr, h.length);
      ++ls.stats.data_frames;
      if (h.addr + h.length == req->granted) complete(req);
      return true;
    }
    if (req->offset < req->granted) {
      FrameHeader d = h;
      std::size_t n = std::min(req->granted - req->offset, ls.max_payload);
      d.addr = req->offset;
      d.length = n;
      write_frame(ls, d, req->buf + req->offset, n);
      ++ls.stats.data_frames;
      req->offset += n;
      if (req->offset < req->granted) return false;
    }
    // This stream is finished; when every stream is, DONE tells the
    // receiver how much came (DATA may arrive after it on another link).
    if (--req->data_streams == 0) {
      send_or_queue(*route(req->peer), streamed_done(req), nullptr);
      complete(req);
    }
    return true;
  }
  write_frame(ls, h, nullptr, 0);  // CTS, DONE, SYNC_ACK
  return true;
}

bool Engine::Impl::flush(LinkState& ls) {
  bool any = false;
  while (!ls.sendq.empty() && ls.ledger.can_send_data()) {
    PendingFrame* f = ls.sendq.front();
    if (!ls.ledger.can_send_message() && opens_message(ls, f->h)) [[unlikely]] {
      if (ls.routed_queued) any |= flush_routed(ls);
      break;
    }
    flush_frame(ls, f);  // (a DATA stream stays at the front until its last piece)
    any = true;
  }
  return any;
}

// The queued frame f on the wire and off the queue, unless it is a DATA
// stream with more to send: returns whether it left the queue.
bool Engine::Impl::flush_frame(LinkState& ls, PendingFrame* f) {
  if (f->relayed) {
    write_frame(ls, f->h, f->relay.data(), f->relay.size());
    ++ls.stats.relayed;
    --ls.relay_queued;
  } else if (!emit(ls, f->h, f->req)) {
    return false;
  }
  if (routed_frame(ls, *f)) [[unlikely]] --ls.routed_queued;
  ls.sendq.erase(f);
  release_frame(f);
  return true;
}

// Where ranks relay: this rank's own messages to the neighbour wait for the
// tokens reserved for routed frames (CreditLedger::can_send_message), and
// the routed frames queued behind them -- other pairs', so no order is
// broken -- go past them, each pair's in its order.
bool Engine::Impl::flush_routed(LinkState& ls) {
  bool any = false;
  for (PendingFrame *f = ls.sendq.front(), *next; f && ls.routed_queued && ls.ledger.can_send_data(); f = next) {
    next = f->next;
    if (!routed_frame(ls, *f)) continue;
    any |= flush_frame(ls, f);
    if (peers[ls.peer].failed != Error::kOk || ls.cut) break;  // (its queue went with it: `next` too)
  }
  return any;
}

bool Engine::Impl::take_from_link(LinkState& ls) {
  const int peer = ls.peer;
  if (peers[peer].failed != Error::kOk || ls.cut) return false;
  bool any = false;
  if (!ls.up) {
    if (!ls.link->up()) return false;
    ls.up = true;
    any = true;
  }
  FrameHeader h;
  const char* payload = nullptr;
  polling = true;
  struct PollEnd {
    bool& flag;
    ~PollEnd() { flag = false; }
  } poll_end{polling};
  // What a frame is checked against: the sequence number it must carry
  // changes from frame to frame, and the hops a frame may have travelled
  // when a cable's news reroutes the job (detours.cc); the rest is the link's.
  LinkView view{e.rank_, peer, 0, ls.max_payload, ls.ledger.slots(), e.size_, 0};
  for (int budget = 0; budget < 64 && ls.link->peek(&h, &payload); ++budget) {
    view.expected_seq = ls.link->recv_seq();
    view.max_hops = max_hops;
    const WireFault fault = check_header(h, view);
    // A frame left waiting (unexpected buffer full) is peeked again later:
    // apply its credits only once.
    bool credits_ok = true;
    if (!fault && h.seq >= ls.credited_through) {
      credits_ok = ls.ledger.receive_credits(h.credits);
      ls.credited_through = h.seq + 1;
    }
    if (fault || !credits_ok) {
      fail_peer(peer, Error::kProtocol,
                ls.link->describe() + ": rejected frame: " +
                    (fault ? describe(fault) : std::string("returned more credits than it holds")));
      return true;
    }
    bool withheld = false;
    if (h.dst != e.rank_ || h.hops) [[unlikely]] {
      take_routed(ls, h, payload);  // forwarded, taken or held: never left in the slot
    } else if (!handle_frame(ls, h, payload)) {
      // Stays in its slot until there is room -- but where the link also
      // carries routed frames, it is taken and its credit withheld.
      if (!max_hops || !take_withholding_credit(ls, h, payload)) break;
      withheld = true;
    }
    ++ls.stats.frames_received;
    ls.link->release();
    if (!withheld) [[likely]] ls.ledger.slot_freed();
    else ls.ledger.slot_withheld();
    any = true;
    if (peers[peer].failed != Error::kOk) return true;
    // Half the slots free: their credits go back now, not after the last
    // frame waiting, so a sender that ran out refills while this rank
    // still reads (a window of 64 sends on 32 slots).
    send_credit_if_due(ls);
  }
  polling = false;
  if (!ls.put_queue.empty() || ls.puts_in_flight) any |= progress_puts(ls);
  if (peers[peer].failed != Error::kOk) return true;
  if (!ls.sendq.empty()) any |= flush(ls);
  any |= send_credit_if_due(ls);
  return any;
}

void Engine::Impl::send_credit(LinkState& ls) {
  char* pl = nullptr;
  end_frame(ls, header_in(ls.link->begin_send(&pl, 0), FrameType::kCredit, ls.peer), 0);
  ++ls.stats.credit_frames;
}

}  // namespace meshmp::mesh
