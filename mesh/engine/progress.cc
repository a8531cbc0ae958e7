// One round of progress: connections and closed links from every provider,
// then every link in turn.
#include "mesh/engine/engine_impl.h"

#include <cstdio>

namespace meshmp::mesh {

bool Engine::Impl::progress() {
  bool any = false;
  if (providers.empty()) return false;
  for (auto& pv : providers) {
    closed_links.clear();
    pv->take_closed(&closed_links);
    for (int p : closed_links)
      fail_peer(p, Error::kProtocol, "closed the link: it rejected data this rank sent", false);
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

}  // namespace meshmp::mesh
