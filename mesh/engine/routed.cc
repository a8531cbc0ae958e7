// The forwarding agent (issue 31; seed 003 §5.1: "chooses the direction that
// has the smallest number of remaining steps for a packet", switched below
// the application; ARCHITECTURE.md §4). On a mesh fabric whose links no
// kernel switches (shm's emulation of a mesh, RDMA cables over ofi), a rank
// that is not a torus neighbour is a *routed peer*: its frames go, whole and
// in order, into the link of the Shortest-Direction-First next hop
// (routing/sdf.h, the table kernel_forwarder uses) with `dst` set. A relay
// takes a frame whose `dst` is not itself off its slot at once and hands it,
// hops counted, to its own next hop -- never matching it, never leaving it
// in the slot (a slot held for another rank would tie the links' tokens
// into the cycles a torus has).
//
// What a relay may hold is bounded end to end: a source has at most
// kE2eCredits frames on their way to each routed peer; the destination
// returns a credit for each frame it takes (in `e2e_credits` of any frame
// going back, or in a routed CREDIT). So every queue on the way -- the
// relays' send queues, and the destination's held frames when its
// unexpected buffer is full -- holds at most that many of one pair's frames.
// Per-pair order holds: one path, FIFO queues at every hop.
//
// Rendezvous to a routed peer streams: after the CTS, the payload follows
// in slot-sized DATA frames, each taking one end-to-end credit (a put
// through a relay would write into the relay's memory). Flag writes go as
// FLAG frames. Finalize waits until this rank's frames have all been taken
// (every credit back), then for every rank to get there, over neighbour
// links only, so that no rank leaves while another still needs it to relay
// (Engine::shutdown).
#include <atomic>
#include <cstdio>

#include "mesh/engine/engine_impl.h"
#include "routing/sdf.h"

namespace meshmp::mesh {

// The routed peers: on a mesh fabric, every rank that is not a neighbour
// and that no provider reaches through routing of its own (tcp over kernel
// routes, caps().routed, where both ends have a node address; ofi never on
// a mesh fabric: no HCA forwards). Returns whether there is one; wire_up then has every rank
// forward (max_hops) if any rank has one.
bool Engine::Impl::setup_routes(const std::vector<int>& neighbours) {
  const Torus& t = e.torus_;
  if (torus_diameter(t) < 2 || neighbours.empty()) return false;
  bool any = false;
  for (int p = 0; p < e.size_; ++p) {
    if (p == e.rank_ || std::find(neighbours.begin(), neighbours.end(), p) != neighbours.end()) continue;
    PeerState& ps = peers[p];
    if (ps.provider && ps.provider->caps().routed) continue;  // the network switches it
    const int hop = t.neighbour(e.rank_, *routing::sdf_next_hop(t, e.rank_, p));
    ps.next_hop = hop;
    const std::vector<int> in = routing::sdf_route(t, p, e.rank_);
    ps.last_hop = in[in.size() - 2];
    ps.e2e_tokens = kE2eCredits;
    ps.failed = Error::kOk;  // (not kUnreachable: the agent reaches it)
    if (!ps.provider) ps.provider = peers[hop].provider;  // (its liveness checks; locality stays)
    ps.eager_limit = peers[hop].eager_limit;
    any = true;
  }
  return any;
}

// A frame from this rank to a routed peer: it goes when the peer has an
// end-to-end credit for it and nothing queued before it does. Explicit
// end-to-end CREDITs take none (at most two are on their way per pair: each
// returns half the credits or, in finalize, the rest), nor do NO_ROUTEs (one
// per pair this rank relayed, or per frame it could not).
void Engine::Impl::send_routed(const FrameHeader& h, Request* req) {
  PeerState& ps = peers[h.dst];
  if (ps.failed != Error::kOk) return;
  if (h.type == static_cast<std::uint8_t>(FrameType::kCredit) || h.type == static_cast<std::uint8_t>(FrameType::kNoRoute))
    return send_on_link(*route(h.dst), h, nullptr);
  PendingFrame* f = alloc_frame();
  f->h = h;
  f->req = req;
  ps.routed_q.push_back(f);
  pump_routed(h.dst);
}

// Hands the peer's queued frames to its next hop's link while it has
// end-to-end credits; a DATA stream is cut into slot-sized pieces here, one
// credit each, and becomes its DONE once the last piece is cut.
bool Engine::Impl::pump_routed(int peer) {
  PeerState& ps = peers[peer];
  if (ps.verdict_pending) [[unlikely]] return false;  // (a neighbour whose cable died: detours.cc)
  LinkState& ls = *route(peer);
  bool any = false;
  while (!ps.routed_q.empty() && ps.e2e_tokens > 0) {
    PendingFrame* f = ps.routed_q.front();
    FrameHeader h = f->h;
    Request* req = f->req;
    const bool stream = h.type == static_cast<std::uint8_t>(FrameType::kData);
    if (stream) {
      h.addr = req->offset;
      h.length = std::min(req->granted - req->offset, ls.max_payload);
      req->offset += h.length;
      if (req->offset >= req->granted) {
        // The stream's entry becomes its DONE, built now: the last piece
        // may complete the send (emit) before the DONE leaves.
        f->h = streamed_done(req);
        f->req = nullptr;
      }
    } else {
      ps.routed_q.erase(f);
      release_frame(f);
    }
    --ps.e2e_tokens;
    h.e2e_credits = e2e_credits_to_give(ps);
    h.flags = static_cast<std::uint16_t>((h.flags & kKnownFlags) | (ps.e2e_seq_out++ << kE2eSeqShift));
    send_on_link(ls, h, req);
    any = true;
  }
  return any;
}

// Rendezvous data to a routed peer, or over links that cannot put: DATA
// frames through the slots (of every link to a neighbour: channel bonding,
// seed 000 §3.10), then DONE.
void Engine::Impl::start_streaming(Request* s) {
  const int peer = s->peer;
  s->state = State::kStreaming;
  s->offset = 0;
  FrameHeader d = make_header(FrameType::kData, peer);
  d.send_id = s->id;
  d.recv_id = s->remote_id;
  d.key = s->remote_key;
  if (peers[peer].routed()) {
    s->data_streams = 1;
    return send_routed(d, s);
  }
  s->data_streams = static_cast<int>(peers[peer].links.size());
  for (LinkState* l : peers[peer].links) send_on_link(*l, d, s);
}

// Another rank's frame: on to this rank's next hop towards `dst`, at once
// if that link can take it, else copied into its send queue (the slot is
// freed either way). A destination this rank cannot reach any more (its
// link failed) loses the frame, and its source learns of it (NO_ROUTE).
void Engine::Impl::relay_frame(LinkState& in, const FrameHeader& h, const char* payload) {
  FrameHeader f = h;
  ++f.hops;
  forward_frame(f, payload, payload_bytes(h), &in);
}

// A frame for another rank (hops counted) into the link of this rank's next
// hop towards its destination; `in`, the link it came on (for the count of
// frames dropped), or null for one moved off a dead cable (detours.cc).
void Engine::Impl::forward_frame(const FrameHeader& f, const char* payload, std::size_t n, LinkState* in) {
  const PeerState& ds = peers[f.dst];
  const int hop = ds.routed() ? ds.next_hop : f.dst;
  LinkState* out = peers[hop].links.empty() ? nullptr : peers[hop].links[0];
  if (!out || peers[hop].failed != Error::kOk || n > out->max_payload) {
    if (in) ++in->stats.relay_dropped;
    if (f.type != static_cast<std::uint8_t>(FrameType::kNoRoute)) say_no_route(f.src, f.dst);
    return;
  }
  relayed_pairs[static_cast<std::size_t>(f.src) * e.size_ + f.dst] = true;
  if (writable_now(*out)) {
    write_frame(*out, f, payload, n);
    ++out->stats.relayed;
    return;
  }
  PendingFrame* pf = alloc_frame();
  pf->h = f;
  pf->relayed = true;
  pf->relay.assign(payload, payload + n);
  out->sendq.push_back(pf);
  ++out->routed_queued;
  out->stats.relay_queued_max = std::max(out->stats.relay_queued_max, ++out->relay_queued);
}

// A routed frame off link `ls`: forwarded, or -- for this rank -- its
// end-to-end credits applied and the frame handled, or held behind those of
// its source still waiting. Never left in the slot.
bool Engine::Impl::take_routed(LinkState& ls, const FrameHeader& h, const char* payload) {
  if (h.dst != e.rank_) {
    relay_frame(ls, h, payload);
    return true;
  }
  const int src = h.src;
  PeerState& ps = peers[src];
  if (!ps.routed()) {
    fail_peer(ls.peer, Error::kProtocol,
              ls.link->describe() + ": rejected frame: a forwarded frame from rank " + std::to_string(src) +
                  ", a neighbour");
    return true;
  }
  // A relay's NO_ROUTE counts even from one already in finalize (which
  // check_liveness marks as gone for its own messages): it still relays.
  if (h.type == static_cast<std::uint8_t>(FrameType::kNoRoute)) return on_no_route(ls, h, payload);  // (no credit)
  if (ps.failed != Error::kOk) return true;
  if (h.e2e_credits) {
    if (h.e2e_credits > kE2eCredits - ps.e2e_tokens) {
      fail_peer(src, Error::kProtocol, "returned more end-to-end credits than it holds", false);
      return true;
    }
    ps.e2e_tokens += h.e2e_credits;
    pump_routed(src);
  }
  if (h.type == static_cast<std::uint8_t>(FrameType::kCredit)) return true;
  const std::uint8_t seq = e2e_seq(h.flags);
  if (seq != ps.e2e_seq_in) {
    // Ahead of a frame still on its way over the route it had before a
    // cable died (detours.cc): kept until that one is in. The source's
    // credits bound how far ahead a frame can be.
    const bool dup = std::any_of(ps.early.begin(), ps.early.end(),
                                 [&](const HeldFrame& f) { return e2e_seq(f.h.flags) == seq; });
    if (dup || static_cast<std::uint8_t>(seq - ps.e2e_seq_in) >= kE2eCredits ||
        ps.early.size() + ps.held.size() >= kE2eCredits) {
      fail_peer(src, Error::kProtocol, "sent a routed frame out of its end-to-end order (sequence number " +
                                           std::to_string(seq) + ", expected " + std::to_string(ps.e2e_seq_in) + ")",
                false);
      return true;
    }
    ps.early.push_back(HeldFrame{h, std::vector<char>(payload, payload + payload_bytes(h))});
    ++ls.stats.held_for_order;
    return true;
  }
  take_in_order(src, h, payload);
  while (!ps.early.empty() && ps.failed == Error::kOk) {
    auto next = std::find_if(ps.early.begin(), ps.early.end(),
                             [&](const HeldFrame& f) { return e2e_seq(f.h.flags) == ps.e2e_seq_in; });
    if (next == ps.early.end()) break;
    HeldFrame f = std::move(*next);
    ps.early.erase(next);
    take_in_order(src, f.h, f.payload.data());
  }
  return true;
}

// A routed frame from `src` that is next in its order: handled, or held
// behind those of its source still waiting for room.
void Engine::Impl::take_in_order(int src, const FrameHeader& h, const char* payload) {
  PeerState& ps = peers[src];
  ++ps.e2e_seq_in;
  if (ps.held.empty() && handle_frame(*route(src), h, payload)) {
    took_routed(src);
    return;
  }
  if (ps.held.size() >= kE2eCredits) {  // more than its credits allow
    fail_peer(src, Error::kProtocol, "sent more routed frames than its end-to-end credits allow", false);
    return;
  }
  ps.held.push_back(HeldFrame{h, std::vector<char>(payload, payload + payload_bytes(h))});
  ++held_frames;
}

// Whether a posted receive or an operation under way (awaits_frame_from)
// waits for a routed peer whose frames come in on the link from
// `neighbour`: a frame of the neighbour's own, left in that link's slot
// while the unexpected buffer is full, would keep them from it (eager.cc,
// room_for_unexpected).
bool Engine::Impl::waiting_behind(int neighbour) const {
  for (int p = 0; p < e.size_; ++p)
    if (peers[p].last_hop == neighbour && matcher.waiting_for(p)) return true;
  for (const auto& r : requests)
    if (const int p = peer_waited_on(*r); p >= 0 && p != neighbour && peers[p].last_hop == neighbour) return true;
  return false;
}

// Held routed frames, each source's in order, while their handlers take them.
bool Engine::Impl::retry_held() {
  bool any = false;
  for (int p = 0; p < e.size_ && held_frames; ++p) {
    PeerState& ps = peers[p];
    std::size_t taken = 0;
    while (taken < ps.held.size() && ps.failed == Error::kOk) {
      const HeldFrame& f = ps.held[taken];
      if (!handle_frame(*route(p), f.h, f.payload.data()) || ps.failed != Error::kOk)
        break;  // (a failure dropped what was held: drop_routed_frames)
      ++taken;
      --held_frames;
      any = true;
      took_routed(p);
    }
    ps.held.erase(ps.held.begin(), ps.held.begin() + static_cast<std::ptrdiff_t>(std::min(taken, ps.held.size())));
  }
  return any;
}

// A routed frame from `src` was taken here: one more credit owed to it,
// returned in a CREDIT of its own once half are (at once in finalize).
void Engine::Impl::took_routed(int src) {
  if (++peers[src].e2e_owed >= kE2eCredits / 2 || e2e_flush) return_e2e_credits(src);
}

// The credits owed to routed peer `peer`, in a routed CREDIT of their own.
void Engine::Impl::return_e2e_credits(int peer) {
  PeerState& ps = peers[peer];
  if (ps.e2e_owed == 0 || ps.failed != Error::kOk) return;
  FrameHeader h = make_header(FrameType::kCredit, peer);
  h.e2e_credits = e2e_credits_to_give(ps);
  send_on_link(*route(peer), h, nullptr);
}

// Before sleeping, and in finalize: every credit owed, so that a source
// waiting for credits (a stream, its finalize) never waits on a rank that
// sleeps. Returns whether it sent any.
bool Engine::Impl::return_all_e2e_credits() {
  bool any = false;
  for (int p = 0; p < e.size_; ++p)
    if (peers[p].e2e_owed && peers[p].failed == Error::kOk) {
      return_e2e_credits(p);
      any = true;
    }
  return any;
}

// Whether every frame this rank sent to a routed peer has been taken there
// (all its credits back) and nothing waits to go, for the peers still alive.
bool Engine::Impl::routed_quiet() const {
  for (const PeerState& ps : peers)
    if (ps.routed() && ps.failed == Error::kOk &&
        (ps.e2e_tokens != kE2eCredits || !ps.routed_q.empty() || !ps.held.empty() || ps.e2e_owed))
      return false;
  return true;
}

// A routed peer failed or finalized: its frames still here go -- those
// waiting for credits, this rank's in the next hop's queue (which name its
// requests, about to fail), those held for room.
void Engine::Impl::drop_routed_frames(int peer) {
  PeerState& ps = peers[peer];
  while (PendingFrame* f = ps.routed_q.pop_front()) release_frame(f);
  for (LinkState* ls : peers[ps.next_hop].links)
    for (PendingFrame *f = ls->sendq.front(), *next; f; f = next) {
      next = f->next;
      if (!f->relayed && f->h.dst == peer) {
        --ls->routed_queued;
        ls->sendq.erase(f);
        release_frame(f);
      }
    }
  held_frames -= ps.held.size();
  ps.held.clear();
  ps.early.clear();
}

// Rank `n` failed (a neighbour whose link broke, or any rank the provider
// saw die): the routed peers whose SDF route from here crosses it are cut
// off -- there is no detour (docs/design.md, "Routing") -- and fail now,
// rather than leave a receive from them waiting. Where the provider sees
// every rank's death (shm), both ends of a route through a dead relay fail.
void Engine::Impl::fail_routes_through(int n, Error why) {
  for (int p = 0; p < e.size_; ++p) {
    if (!peers[p].routed() || peers[p].failed != Error::kOk || p == n) continue;
    const std::vector<int> path = routing::sdf_route(e.torus_, e.rank_, p);
    if (std::find(path.begin(), path.end(), n) == path.end()) continue;
    cutting_routes = true;  // (p is not dead: routes through it stay)
    fail_peer(p, why, "its route runs through rank " + std::to_string(n) + ", which failed: " + peers[n].why, false);
    cutting_routes = false;
  }
}

// Tells `src` that this rank can no longer forward its frames for `dst`
// (the link they would leave on failed), if a link towards `src` is left.
void Engine::Impl::say_no_route(int src, int dst) {
  if (src == e.rank_ || peers[src].failed != Error::kOk) return;
  const PeerState& ss = peers[src];
  const int hop = ss.routed() ? ss.next_hop : src;
  if (peers[hop].links.empty() || peers[hop].failed != Error::kOk) return;
  FrameHeader h = make_header(FrameType::kNoRoute, src);
  h.addr = static_cast<std::uint64_t>(dst);
  send_or_queue(*route(src), h, nullptr);
}

// Neighbour `n` failed: every source whose frames this rank relayed towards
// a destination behind `n` learns it now (NO_ROUTE), so a source waiting on
// that destination fails too, not only the ranks next to the break.
void Engine::Impl::tell_sources_behind(int n) {
  for (std::size_t pair = 0; pair < relayed_pairs.size(); ++pair) {
    if (!relayed_pairs[pair]) continue;
    const int src = static_cast<int>(pair / e.size_), dst = static_cast<int>(pair % e.size_);
    const std::vector<int> path = routing::sdf_route(e.torus_, e.rank_, dst);
    if (std::find(path.begin(), path.end(), n) != path.end()) say_no_route(src, dst);
  }
}

// A relay says rank `addr` can no longer be reached through it: that routed
// peer fails (the relay is alive; routes through the peer stay).
bool Engine::Impl::on_no_route(LinkState&, const FrameHeader& h, const char*) {
  if (h.addr >= static_cast<std::uint64_t>(e.size_)) {
    fail_peer(h.src, Error::kProtocol, "NO_ROUTE for rank " + std::to_string(h.addr) + ", outside the job");
    return true;
  }
  const int dst = static_cast<int>(h.addr);
  if (!peers[dst].routed() || peers[dst].failed != Error::kOk) return true;
  cutting_routes = true;
  fail_peer(dst, Error::kPeerDead,
            "rank " + std::to_string(h.src) + " can no longer forward to it (a link on its route failed)", false);
  cutting_routes = false;
  return true;
}

// A flag write from a routed peer (Engine::write_flag): `addr` is a flag of
// one of this rank's open windows, `send_id` its new value.
bool Engine::Impl::on_flag(LinkState&, const FrameHeader& h, const char*) {
  for (const auto& fw : flag_windows) {
    if (!fw) continue;
    const auto base = reinterpret_cast<std::uint64_t>(fw->mem);
    const std::uint64_t off = h.addr - base;
    if (h.addr < base || off >= static_cast<std::uint64_t>(fw->n) * FlagWindow::kLine || off % FlagWindow::kLine)
      continue;
    std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(h.addr)).store(h.send_id,
                                                                                     std::memory_order_release);
    return true;
  }
  fail_peer(h.src, Error::kProtocol, "FLAG for no flag of an open window");
  return true;
}

}  // namespace meshmp::mesh
