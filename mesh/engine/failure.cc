// Dead and misbehaving peers (ARCHITECTURE.md §7): their requests fail, on
// both ends, within a bounded time.
#include "mesh/engine/engine_impl.h"

#include <cstdio>

namespace meshmp::mesh {

// Closes everything with `peer`: its queued frames go, its requests fail
// with `why`. A protocol error this rank found (it rejected the peer's
// data) is also told to the peer, whose calls then fail too instead of
// waiting for frames that will not come (`tell_peer`).
void Engine::Impl::fail_peer(int peer, Error why, const std::string& msg, bool tell_peer) {
  if (peers[peer].failed != Error::kOk) return;
  peers[peer].failed = why;
  peers[peer].why = msg;
  std::fprintf(stderr, "meshmp: rank %d: rank %d: %s (%s); its requests fail\n", e.rank_, peer,
               msg.c_str(), error_name(why));
  PeerState& ps = peers[peer];
  if (why == Error::kProtocol && tell_peer && !ps.routed()) ps.provider->report_closed(peer);
  for (LinkState* ls : ps.links) {
    while (PendingFrame* f = ls->sendq.pop_front()) release_frame(f);
    ls->put_queue.clear();
    ls->relay_queued = ls->routed_queued = 0;
  }
  if (ps.routed()) drop_routed_frames(peer);
  fail_requests_of(peer, why);
  if (max_hops && !cutting_routes) {
    fail_routes_through(peer, why);
    if (!ps.routed()) tell_sources_behind(peer);
  }
}

// Fails every unfinished request that involves `peer` with `why`, except
// those in `spare_context`; returns how many.
int Engine::Impl::fail_requests_of(int peer, Error why, std::uint32_t spare_context) {
  int failed = 0;
  for (auto& up : requests) {
    Request* r = up.get();
    if (peer_waited_on(*r) != peer || r->context == spare_context) continue;
    if (r->state == State::kPosted) matcher.unpost(r);
    if (r->state == State::kAnnounced) forget(r->rchan->started, r);
    if (r->state == State::kWaitReady) forget(r->schan->waiting, r);
    r->status.error = why;
    r->status.source = peer;
    complete(r);
    ++failed;
  }
  return failed;
}

// Finalize (Engine::shutdown), after the queues have drained: a BYE on
// every link, the last frame the peer gets on it.
void Engine::Impl::say_bye() {
  for (auto& ls : links)
    if (peers[ls->peer].failed == Error::kOk && !ls->cut)
      send_or_queue(*ls, make_header(FrameType::kBye, ls->peer), nullptr);
}

// A peer that finalized sends nothing more (issue 29): once every link to it
// has brought its BYE (each link keeps its order, so every frame it sent
// before is in), what still waits on it can never complete and fails now,
// and later calls that need it fail at once -- a rank blocked in a receive
// from a peer that went on to finalize gets an error instead of a hang.
// Silent where nothing waited: that is an ordinary finalize.
bool Engine::Impl::on_bye(LinkState&, const FrameHeader& h, const char*) {
  PeerState& ps = peers[h.src];
  if (ps.failed == Error::kOk && ++ps.byes >= ps.links.size()) peer_finalized(h.src);
  return true;
}

void Engine::Impl::peer_finalized(int peer) {
  peers[peer].failed = Error::kPeerDead;
  peers[peer].finalized = true;
  if (peers[peer].routed()) drop_routed_frames(peer);
  // (Finalize's own receive from it, hear_every_rank's, stops waiting when
  // it sees the peer gone, and cancels it: not one of the program's.)
  if (const int n = fail_requests_of(peer, Error::kPeerDead, kFinalizeContext))
    std::fprintf(stderr, "meshmp: rank %d: rank %d has finalized; %d request%s waiting on it fail (%s)\n", e.rank_,
                 peer, n, n == 1 ? "" : "s", error_name(Error::kPeerDead));
}

// Every 100 ms while blocked: is every rank of the job still alive? (Also
// those without a link yet: a receive may be waiting for one of them.)
void Engine::Impl::take_launcher_notices() {
  for (int p : boot->take_finalized())
    if (p >= 0 && p < e.size_) peers[p].said_finalized = true;
}

void Engine::Impl::check_liveness() {
  auto now = std::chrono::steady_clock::now();
  if (now - last_liveness < std::chrono::milliseconds(100)) return;
  last_liveness = now;
  if (boot) take_launcher_notices();
  if (detours) [[unlikely]] check_cable_words();
  for (int p = 0; p < e.size_; ++p) {
    if (p == e.rank_ || peers[p].failed != Error::kOk) continue;
    // A peer with no link to us never gets a BYE from it: its provider (a
    // flag in shared memory) or the launcher (on another host) shows the
    // finalize. A link it opened before is up before that -- its frames
    // and BYE sent ahead of the finalize -- so accept what is pending
    // first; a linked peer's BYE comes after its last frame.
    // (A neighbour whose cable died -- routed now, detours.cc -- is still in
    // finalize's barrier with this rank: the case below.)
    if (peers[p].links.empty() && peers[p].cut_links.empty() &&
        (peers[p].said_finalized || peers[p].provider->finalized(p))) {
      for (int round = 0; round < 3 && peers[p].links.empty(); ++round) progress();
      if (peers[p].links.empty()) peer_finalized(p);
      continue;
    }
    // Where ranks relay, a neighbour in finalize keeps its links (it still
    // relays, and takes part in finalize's barrier, quiesce_routes): its BYE
    // comes only once every rank is there. Its own frames were all written
    // before its provider showed the finalize: read its links out, then
    // what waits on it fails -- a receive from it no longer hangs finalize.
    if (max_hops && (peers[p].said_finalized || peers[p].provider->finalized(p))) {
      for (LinkState* ls : peers[p].links)
        for (int round = 0; round < 3; ++round) poll_link(*ls);
      if (const int n = fail_requests_of(p, Error::kPeerDead, kFinalizeContext))
        std::fprintf(stderr, "meshmp: rank %d: rank %d has finalized; %d request%s waiting on it fail (%s)\n",
                     e.rank_, p, n, n == 1 ? "" : "s", error_name(Error::kPeerDead));
      continue;
    }
    const std::string gone = peers[p].provider->check_peer(p);
    if (!gone.empty()) fail_peer(p, Error::kPeerDead, gone);
  }
}

}  // namespace meshmp::mesh
