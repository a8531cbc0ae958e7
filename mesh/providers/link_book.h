// The bookkeeping of a provider whose links are connections made at start
// (offered by the lower rank, joined by the higher) and on first use
// (seed 004 §3) -- tcp and ofi: which links wait for their peer, which peer
// has an on-demand link, the links peers opened that accept() hands over,
// every live link, and the failures take_failures() reports.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "mesh/provider.h"

namespace meshmp::mesh {

/// L: the provider's Link type, with peer() and close_rejected().
template <typename L>
struct LinkBook {
  std::map<std::pair<int, int>, L*> offered;  ///< (peer, index) waiting for the peer to connect
  std::vector<L*> on_demand;                  ///< by peer (nranks entries): link #0 made on first use, either side
  std::vector<std::unique_ptr<L>> accepted;   ///< on-demand links the peers opened, for accept()
  std::vector<L*> live;                       ///< every link not destroyed
  std::vector<LinkFailure> failures;

  /// The link `peer` opened to this rank first, if it did (connect()).
  std::unique_ptr<L> take_accepted(int peer) {
    for (auto it = accepted.begin(); it != accepted.end(); ++it)
      if ((*it)->peer() == peer) {
        std::unique_ptr<L> l = std::move(*it);
        accepted.erase(it);
        return l;
      }
    return nullptr;
  }
  /// accept(): hands the links peers opened to the engine.
  void hand_over(std::vector<std::unique_ptr<Link>>* incoming) {
    for (auto& l : accepted) incoming->push_back(std::move(l));
    accepted.clear();
  }
  /// `l` is being destroyed.
  void gone(L* l) {
    live.erase(std::remove(live.begin(), live.end(), l), live.end());
    for (auto it = offered.begin(); it != offered.end(); ++it)
      if (it->second == l) {
        offered.erase(it);
        break;
      }
    for (auto& p : on_demand)
      if (p == l) p = nullptr;
  }
  /// Provider::report_closed.
  void report_closed(int peer) {
    for (L* l : live)
      if (l->peer() == peer) l->close_rejected();
  }
  /// Provider::take_failures.
  void take_failures(std::vector<LinkFailure>* out) {
    for (auto& f : failures) out->push_back(std::move(f));
    failures.clear();
  }
};

}  // namespace meshmp::mesh
