// One round of progress: connections and closed links from every provider
// that serves a peer, then every link in turn.
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
    for (const LinkFailure& f : link_failures)
      fail_peer(f.peer, f.peer_gone ? Error::kPeerDead : Error::kProtocol, f.what, false);
    incoming.clear();
    pv->accept(&incoming);
    for (auto& l : incoming) {
      add_link(std::move(l));
      any = true;
    }
  }
  // By index: answering a frame may connect to a new peer and append to
  // `links` (the LinkStates themselves never move).
  for (std::size_t i = 0; i < links.size(); ++i) any |= poll_link(*links[i]);
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
}

}  // namespace meshmp::mesh
