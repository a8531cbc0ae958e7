#include "kernel_forwarder/route_plan.h"

#include <stdexcept>

namespace meshmp::kernel_forwarder {

std::vector<KernelRoute> node_routes(const NetPlan& plan, const routing::RouteTables& tables, const mesh::Torus& t,
                                     int node) {
  if (plan.switched || plan.nodes != t.size() || node < 0 || node >= t.size())
    throw std::invalid_argument("kernel_forwarder: node " + std::to_string(node) + " is not on the mesh plan of " +
                                t.to_string());
  std::vector<KernelRoute> routes;
  for (int dest = 0; dest < t.size(); ++dest) {
    if (dest == node) continue;
    const auto dir = tables.next_hop(node, dest);
    if (!dir) continue;
    // The cable leaving `node` that way: its + end is a, its - end is b.
    const Cable* cable = nullptr;
    bool plus_end = false;
    for (const Cable& c : plan.cables)
      if (c.axis == dir->axis && ((dir->sign > 0 && c.a == node) || (dir->sign < 0 && c.b == node))) {
        cable = &c;
        plus_end = dir->sign > 0;
        break;
      }
    if (!cable)
      throw std::invalid_argument("kernel_forwarder: the plan has no cable from node " + std::to_string(node) +
                                  " along axis " + std::to_string(dir->axis));
    routes.push_back({plan.node_addr[static_cast<std::size_t>(dest)], plus_end ? cable->addr_b : cable->addr_a,
                      plus_end ? cable->if_a : cable->if_b, plan.node_addr[static_cast<std::size_t>(node)]});
  }
  return routes;
}

}  // namespace meshmp::kernel_forwarder
