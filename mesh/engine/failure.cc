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
  std::fprintf(stderr, "meshmp: rank %d: rank %d: %s (%s); its requests fail\n", e.rank_, peer,
               msg.c_str(), error_name(why));
  if (why == Error::kProtocol && tell_peer) peers[peer].provider->report_closed(peer);
  for (LinkState* ls : peers[peer].links) {
    while (PendingFrame* f = ls->sendq.pop_front()) release_frame(f);
    ls->put_queue.clear();
  }
  for (auto& up : requests) {
    Request* r = up.get();
    if (!r->in_use || r->state == State::kDone || r->state == State::kInactive) continue;
    bool involved = r->is_send ? r->peer == peer
                               : (r->state == State::kRendezvous && r->status.source == peer) ||
                                     ((r->state == State::kPosted || r->state == State::kAnnounced) &&
                                      r->PostedRecv::key.source == peer);
    if (!involved) continue;
    if (r->state == State::kPosted) matcher.unpost(r);
    if (r->state == State::kAnnounced) forget(r->rchan->started, r);
    if (r->state == State::kWaitReady) forget(r->schan->waiting, r);
    r->status.error = why;
    r->status.source = peer;
    complete(r);
  }
}

// Every 100 ms while blocked: is every rank of the job still alive? (Also
// those without a link yet: a receive may be waiting for one of them.)
// The first send to a rank no link reaches (a mesh fabric: not a neighbour,
// and no provider can link to it directly) says why, once per rank.
void Engine::Impl::note_unreachable(int peer) {
  if (unreachable_noted) return;
  unreachable_noted = true;
  std::fprintf(stderr,
               "meshmp: rank %d: %s has fabric = \"mesh\", and rank %d is not a torus neighbour that a cable "
               "reaches; no provider can link to it directly and meshmp does not route yet: sends to it fail\n",
               e.rank_, e.opt_.mesh_fabric_config.c_str(), peer);
}

void Engine::Impl::check_liveness() {
  auto now = std::chrono::steady_clock::now();
  if (now - last_liveness < std::chrono::milliseconds(100)) return;
  last_liveness = now;
  for (int p = 0; p < e.size_; ++p) {
    if (p == e.rank_ || peers[p].failed != Error::kOk) continue;
    const std::string gone = peers[p].provider->check_peer(p);
    if (!gone.empty()) fail_peer(p, Error::kPeerDead, gone);
  }
}

}  // namespace meshmp::mesh
