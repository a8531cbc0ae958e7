// Detours around dead cables (issue 31, item 1; seed 003 §5.1's routing,
// ARCHITECTURE.md §4 and §7). Where ranks forward (routed.cc) -- shm's
// emulation of a mesh, RDMA cables over ofi -- a link to a neighbour that
// fails under its provider (EOF, reset, no answer) is taken for a dead
// cable, not a dead rank: a rank that died loses every cable, and a launcher
// that sees the death ends the job or tells the ranks (failure.cc).
//
//  1. Both ends of the cable stop using it, and CABLE_DOWN floods the
//     torus over the live links: every rank learns it once and passes it
//     on. Links are FIFO and a rank passes the news on before it forwards
//     anything over the new routes, so a frame sent around the cable never
//     overtakes the news of it: on a frame's way, every rank knows at
//     least what the one before knew.
//  2. Next hops come from routing::RouteTables over the live cables: the
//     SDF next hop where the SDF route avoids the dead cables, else a step
//     along a shortest live path -- the same tables at every rank, so
//     routes are loop-free once the news is in. A rank the dead cables cut
//     off is unreachable: its requests fail here (Error::kUnreachable).
//     Each end's CABLE_DOWN also says how many frames it took on each link
//     of the cable, so the other end learns which of its frames the cable
//     lost (LinkState::written_frames names them).
//  3. The neighbour across the cable becomes a routed peer (end-to-end
//     credits, frames around the cable) unless data of this rank's was on
//     its way to it over the cable (a put, a stream of DATA frames): frames
//     still queued for it move, in order, to its routed queue, and a
//     rendezvous or channel under way goes on around the cable. Nothing
//     more goes to it until its CABLE_DOWN says every frame this rank wrote
//     to it arrived (else a later message could take the place of a lost
//     one). A put or a stream under way, or a frame to it that the cable
//     lost, fails the pair on both ends instead: this rank fails it and
//     tells it (NO_ROUTE around the cable). No word from it in
//     kCableWordTimeout fails it too.
//  4. Frames queued for the dead link are intact: relayed ones go on by
//     their destination's new next hop, this rank's routed ones by their
//     peer's. A lost routed CREDIT or NO_ROUTE (counts and news, in no
//     order) is sent again around the cable; every other pair with a frame
//     the cable lost fails on both ends, told by NO_ROUTE (this rank's own:
//     failed here).
//  5. Routes change under frames in flight, and ranks learn at different
//     times, so a pair's frames may take two paths: each routed frame
//     carries its pair's sequence number, and the destination takes them in
//     that order (routed.cc, take_routed).
#include <cstdio>

#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

namespace {

// The cables between neighbours a and b (two on a periodic axis of length 2).
std::vector<routing::Cable> cables_between(const Torus& t, int a, int b) {
  std::vector<routing::Cable> out;
  for (int d = 0; d < 2 * t.ndims(); ++d)
    if (t.neighbour(a, Direction::from_index(d)) == b) out.push_back({a, Direction::from_index(d)});
  return out;
}

}  // namespace

// A frame written into `ls` where ranks relay: what the verdict on a dead
// cable needs to know of it, in the ring of the last slots() frames.
void Engine::Impl::record_written(LinkState& ls, const FrameHeader& h) {
  if (ls.written_frames.empty()) return;  // (a link made before ranks relayed: none is)
  const auto t = static_cast<FrameType>(h.type);
  const bool own = h.src == e.rank_ && h.dst == ls.peer &&
                   (t == FrameType::kCredit || t == FrameType::kBye || t == FrameType::kCableDown);
  LinkState::Written& w = ls.written_frames[ls.written++ % ls.written_frames.size()];
  w.src = own ? -1 : h.src;
  w.dst = h.dst;
  w.type = h.type;
  w.e2e_credits = h.e2e_credits;
  w.context = h.context;
  w.about = static_cast<int>(h.addr);
}

// Whether a link failure with `peer` is a cable to route around: ranks
// forward, and the peer is a neighbour reached directly and alive as far as
// this rank knows -- also in finalize, where it still relays until its BYE
// (after which it counts as gone: peer_finalized).
bool Engine::Impl::detour_applies(int peer) const {
  const PeerState& ps = peers[peer];
  if (!max_hops || ps.routed() || ps.failed != Error::kOk || ps.links.empty()) return false;
  return !cables_between(e.torus_, e.rank_, peer).empty();
}

void Engine::Impl::cable_lost(int n, const std::string& why) {
  PeerState& ns = peers[n];
  for (const routing::Cable& c : cables_between(e.torus_, e.rank_, n)) dead_cables.add(e.torus_, c);
  // This end's word: how many frames it took on each link of the cable.
  FrameHeader news = make_header(FrameType::kCableDown, n);
  news.addr = static_cast<std::uint64_t>(e.rank_);
  news.key = static_cast<std::uint64_t>(n);
  std::vector<PendingFrame*> queued;
  bool busy = false;
  for (LinkState* ls : ns.links) {
    ls->cut = true;
    ls->up = false;
    const int i = ls->link->index();
    if (i == 0) news.send_id = ls->link->recv_seq();
    if (i == 1) news.recv_id = ls->link->recv_seq();
    while (PendingFrame* f = ls->sendq.pop_front()) queued.push_back(f);
    ls->relay_queued = ls->routed_queued = 0;
    busy |= !ls->put_queue.empty() || ls->puts_in_flight;
    ls->put_queue.clear();
  }
  ns.cut_links = std::move(ns.links);
  ns.cut_why = why;
  ns.links.clear();
  for (auto& bd : by_direction)
    if (bd && bd->cut) bd = nullptr;
  // Can the neighbour go on as a routed peer? Not with data of this rank's
  // under way to it over the cable (a put, or DATA frames of a stream):
  // part of it may have landed. Everything else goes on around the cable --
  // a CTS or an announcement (RECV_READY) it gets from now on has this rank
  // stream to it, one it got before names a receive that takes streamed
  // DATA as well -- or was lost with the cable, which its word will show.
  for (auto& up : requests) {
    const Request* r = up.get();
    if (r->in_use && r->is_send && r->peer == n && (r->state == State::kPutting || r->state == State::kStreaming))
      busy = true;
  }
  std::fprintf(stderr, "meshmp: rank %d: %s: the cable to rank %d is dead; routing around it%s\n", e.rank_,
               why.c_str(), n, busy ? "" : ", its traffic too");
  if (!busy) {
    ns.next_hop = n;  // (a routed peer from here on; reroute() gives the hop)
    ns.e2e_tokens = kE2eCredits;
    ns.e2e_owed = 0;
    ns.e2e_seq_out = ns.e2e_seq_in = 0;
  }
  ns.verdict_pending = true;  // (also for a failed pair: the other pairs' lost frames)
  ns.cut_at = std::chrono::steady_clock::now();
  cable_news.insert({e.rank_, n});
  flood(news, -1);
  reroute();
  if (busy) {
    tell_broken(n, e.rank_);
    cutting_routes = true;  // (n is alive: routes through it stay)
    fail_peer(n, Error::kPeerDead, why + " (the cable to it is dead, and data of this rank's was on its way to it over the cable)", false);
    cutting_routes = false;
  }
  // The queued frames: relayed ones and this rank's routed ones by their new
  // routes; sends to n still to go, in order, in its routed queue.
  for (PendingFrame* f : queued) {
    const auto type = static_cast<FrameType>(f->h.type);
    if (f->relayed) {
      forward_frame(f->h, f->relay.data(), f->relay.size(), nullptr);
    } else if (f->h.dst == n) {
      if (ns.failed == Error::kOk && ns.routed() && type != FrameType::kCredit && type != FrameType::kBye &&
          type != FrameType::kCableDown) {
        ns.routed_q.push_back(f);
        continue;
      }
      // (CREDIT, BYE, CABLE_DOWN: the link's own; the rest failed with the pair)
    } else if (peers[f->h.dst].routed() && peers[f->h.dst].failed == Error::kOk) {
      send_on_link(*route(f->h.dst), f->h, f->req);
    }
    release_frame(f);
  }
  if (ns.have_report) cable_verdict(n);
}

// Both ends' words are in (this rank's cut, the neighbour's CABLE_DOWN):
// the frames this rank wrote into the cable that the neighbour never took
// were lost. Their pairs fail on both ends; if none was to the neighbour
// itself, what waits for it goes around the cable now.
void Engine::Impl::cable_verdict(int n) {
  PeerState& ns = peers[n];
  ns.verdict_pending = false;
  bool to_n_lost = false;
  for (LinkState* ls : ns.cut_links) {
    const int i = ls->link->index();
    const std::uint64_t took = i == 0 || i == 1 ? ns.reported[i] : 0;
    const std::size_t ring = ls->written_frames.size();
    if (took > ls->written || ls->written - took > ring) {
      fail_peer(n, Error::kProtocol,
                ls->link->describe() + ": CABLE_DOWN says it took " + std::to_string(took) + " frames of the " +
                    std::to_string(ls->written) + " written");
      return;
    }
    for (std::uint64_t seq = took; seq < ls->written; ++seq) {
      const LinkState::Written w = ls->written_frames[seq % ring];
      const int s = w.src, d = w.dst;
      const auto type = static_cast<FrameType>(w.type);
      if (s < 0) continue;
      if (w.context == kFinalizeContext) continue;  // (finalize's words go every way: quiesce.cc)
      if (type == FrameType::kCredit || type == FrameType::kNoRoute) {  // (again, by the new route)
        if (peers[d].failed != Error::kOk) continue;
        FrameHeader h = make_header(type, d);
        h.src = s;
        h.e2e_credits = w.e2e_credits;
        h.addr = static_cast<std::uint64_t>(w.about);
        if (s == e.rank_) {
          send_on_link(*route(d), h, nullptr);
        } else {
          h.hops = 1;  // (it crossed the link to this rank)
          forward_frame(h, nullptr, 0, nullptr);
        }
        continue;
      }
      if (s == e.rank_ && d == n) {
        to_n_lost = true;
      } else if (s == e.rank_) {
        if (peers[d].failed != Error::kOk) continue;
        tell_broken(d, e.rank_);
        cutting_routes = true;
        fail_peer(d, Error::kPeerDead, "a frame to it was lost with the cable to rank " + std::to_string(n), false);
        cutting_routes = false;
      } else {
        tell_broken(s, d);
        tell_broken(d, s);
      }
    }
  }
  if (ns.failed != Error::kOk) return;
  if (to_n_lost) {
    tell_broken(n, e.rank_);
    cutting_routes = true;
    fail_peer(n, Error::kPeerDead, "a frame to it was lost with the cable to it", false);
    cutting_routes = false;
    return;
  }
  if (ns.routed()) pump_routed(n);
}

// Every 100 ms while blocked (check_liveness): a neighbour whose cable died
// and whose word of it has not come in kCableWordTimeout fails.
void Engine::Impl::check_cable_words() {
  const auto now = std::chrono::steady_clock::now();
  for (int p = 0; p < e.size_; ++p) {
    PeerState& ps = peers[p];
    if (!ps.verdict_pending || ps.failed != Error::kOk || now - ps.cut_at < kCableWordTimeout) continue;
    ps.verdict_pending = false;
    cutting_routes = true;
    fail_peer(p, Error::kPeerDead, "its cable to this rank died and no word of it came around it in " +
                                       std::to_string(kCableWordTimeout.count()) + " s", false);
    cutting_routes = false;
  }
}

// The pair of this rank and `to` is broken where `to` cannot see it: a
// NO_ROUTE naming `about` goes to `to` by its route over the live cables.
void Engine::Impl::tell_broken(int to, int about) {
  if (to == e.rank_ || !detours || peers[to].failed != Error::kOk) return;
  const std::optional<Direction> d = detours->next_hop(e.rank_, to);
  if (!d) return;
  const int hop = e.torus_.neighbour(e.rank_, *d);
  if (hop < 0 || peers[hop].links.empty() || peers[hop].failed != Error::kOk) return;
  FrameHeader h = make_header(FrameType::kNoRoute, to);
  h.addr = static_cast<std::uint64_t>(about);
  send_on_link(*peers[hop].links[0], h, nullptr);
}

// A CABLE_DOWN to every live neighbour but `except`: the news floods the
// torus ahead of anything routed around the cable.
void Engine::Impl::flood(const FrameHeader& news, int except) {
  std::vector<int> done;
  for (int d = 0; d < 2 * e.torus_.ndims(); ++d) {
    const int q = e.torus_.neighbour(e.rank_, Direction::from_index(d));
    if (q < 0 || q == e.rank_ || q == except || std::find(done.begin(), done.end(), q) != done.end()) continue;
    done.push_back(q);
    if (peers[q].links.empty() || peers[q].failed != Error::kOk) continue;
    FrameHeader h = news;
    h.src = e.rank_;
    h.dst = q;
    h.hops = 0;
    send_on_link(*peers[q].links[0], h, nullptr);
  }
}

// Next hops over the live cables for every routed peer; the ones no route
// reaches any more fail. Frames waiting for their credits go on the new
// links.
void Engine::Impl::reroute() {
  detours = std::make_unique<routing::RouteTables>(e.torus_, dead_cables);
  max_hops = std::max(max_hops, std::min(255, e.size_));  // (a detour may be longer than the diameter)
  for (int p = 0; p < e.size_; ++p) {
    PeerState& ps = peers[p];
    if (p == e.rank_ || !ps.routed() || ps.failed != Error::kOk) continue;
    const std::optional<Direction> d = detours->next_hop(e.rank_, p);
    const int hop = d ? e.torus_.neighbour(e.rank_, *d) : -1;
    if (hop < 0 || peers[hop].links.empty() || peers[hop].failed != Error::kOk) {
      cutting_routes = true;
      fail_peer(p, Error::kUnreachable,
                ps.cut_why.empty() ? "no route to it is left: dead cables cut it off"
                                   : ps.cut_why + "; no route around the dead cable is left",
                false);
      cutting_routes = false;
      continue;
    }
    ps.next_hop = hop;
    const std::vector<int> in = detours->route(p, e.rank_);
    if (in.size() >= 2) ps.last_hop = in[in.size() - 2];
  }
  for (int p = 0; p < e.size_; ++p)
    if (p != e.rank_ && peers[p].routed() && peers[p].failed == Error::kOk) pump_routed(p);
}

// CABLE_DOWN: rank `addr` says its cable(s) to rank `key` died, and took
// send_id / recv_id frames on its links #0 / #1 of them. Passed on once
// per reporting end; where `key` is this rank, it is the word this rank's
// verdict waits for (and the cable is lost here too, if it was not yet).
bool Engine::Impl::on_cable_down(LinkState& ls, const FrameHeader& h, const char*) {
  const auto a = static_cast<std::int64_t>(h.addr), b = static_cast<std::int64_t>(h.key);
  const std::vector<routing::Cable> cables =
      a >= 0 && a < e.size_ && b >= 0 && b < e.size_ && a != b
          ? cables_between(e.torus_, static_cast<int>(a), static_cast<int>(b))
          : std::vector<routing::Cable>{};
  if (cables.empty()) {
    fail_peer(ls.peer, Error::kProtocol,
              ls.link->describe() + ": rejected frame: CABLE_DOWN for ranks " + std::to_string(a) + " and " +
                  std::to_string(b) + ", which no cable joins");
    return true;
  }
  if (!cable_news.insert({static_cast<int>(a), static_cast<int>(b)}).second) return true;  // (heard before)
  flood(h, ls.peer);
  for (const routing::Cable& c : cables) dead_cables.add(e.torus_, c);
  if (b == e.rank_) {
    PeerState& as = peers[a];
    as.reported[0] = h.send_id;
    as.reported[1] = h.recv_id;
    as.have_report = true;
    if (detour_applies(static_cast<int>(a))) {
      cable_lost(static_cast<int>(a), "rank " + std::to_string(a) + " reports it (CABLE_DOWN)");
      return true;
    }
    if (as.verdict_pending) cable_verdict(static_cast<int>(a));
  }
  reroute();
  return true;
}

}  // namespace meshmp::mesh
