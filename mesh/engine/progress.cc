// One round of progress: connections and closed links from every provider
// that serves a peer, then the links in turn until one completes a request.
#include "mesh/engine/engine_impl.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cstdio>

namespace meshmp::mesh {

bool Engine::Impl::progress() {
  bool any = false;
  for (Provider* pv : in_use) {
    link_failures.clear();
    pv->take_failures(&link_failures);
    for (const LinkFailure& f : link_failures) {
      if (f.peer_gone && peers[f.peer].routed()) continue;  // another of its links cut (detours.cc)
      if (f.peer_gone && detour_applies(f.peer)) cable_lost(f.peer, f.what);
      else fail_peer(f.peer, f.peer_gone ? Error::kPeerDead : Error::kProtocol, f.what, false);
    }
    incoming.clear();
    pv->accept(&incoming);
    for (auto& l : incoming) {
      add_link(std::move(l));
      any = true;
    }
  }
  // The pass ends at the first link whose frames completed a request: the
  // caller's wait may be over, and polling each further link costs a system
  // call on a byte stream (tcp, libfabric's tcp) before the program can
  // answer (2-rank 8 B ping-pong, 2-core VM, pinned, best of 5 interleaved:
  // tcp 3.19 -> 2.99 us, ofi 4.04 -> 3.93; shm level). The next pass starts
  // at the link after it, so every link is polled within as many passes as
  // there are links. A pass that completes nothing polls them all (the
  // idle wait sleeps only after one). By index: answering a frame may
  // connect to a new peer and append to `links` (the LinkStates never
  // move); a new link is polled from the next pass on.
  if (held_frames) [[unlikely]] any |= retry_held();
  if (withholding_links) [[unlikely]] any |= return_withheld_credits();
  const std::uint64_t before = completions;
  const std::size_t n = links.size();
  // (No `%`: a 64-bit division per link polled cost tens of cycles.)
  std::size_t i = next_link < n ? next_link : 0;
  for (std::size_t k = 0; k < n; ++k) {
    any |= poll_link(*links[i]);
    if (++i == n) i = 0;
    if (completions != before) {
      next_link = i;
      return true;
    }
  }
  return any;
}

void Engine::Impl::sleep_in_epoll() {
  for (Provider* pv : in_use) pv->arm();
  if (!progress_all()) {
    epoll_event ev[8];
    ::epoll_wait(wait_epoll, ev, 8, 100);
  }
  for (Provider* pv : in_use) {
    pv->drain_wait_fd();
    pv->disarm();
  }
}

Engine::Impl::~Impl() {
  if (wait_epoll >= 0) ::close(wait_epoll);
  // Messages nobody received (a peer's words finalize did not wait for,
  // having failed it, or a program's unmatched sends): freed with the engine.
  for (int s = 0; s < e.size_; ++s)
    while (UnexpectedMsg* u = matcher.take_unexpected_if(s, [](const UnexpectedMsg*) { return true; }))
      delete static_cast<Unexpected*>(u);
  for (Unexpected* u : spare_unexpected) delete u;
}

}  // namespace meshmp::mesh
