#include "kernel_forwarder/route_plan.h"

#include <stdexcept>

namespace meshmp::kernel_forwarder {

std::vector<KernelRoute> node_routes(const NetPlan& plan, const routing::RouteTables& tables, const mesh::Torus& t,
                                     int node, const routing::CableSet& dead) {
  if (plan.switched || plan.nodes != t.size() || node < 0 || node >= t.size())
    throw std::invalid_argument("kernel_forwarder: node " + std::to_string(node) + " is not on the mesh plan of " +
                                t.to_string());
  const std::uint32_t me = plan.node_addr[static_cast<std::size_t>(node)];
  std::vector<KernelRoute> routes;
  // A /32 to `addr` along this node's next hop towards node `toward`.
  auto add = [&](std::uint32_t addr, int toward) {
    const auto dir = tables.next_hop(node, toward);
    if (!dir) return;  // unreachable (or this node)
    for (const Cable& c : plan.cables)  // the cable leaving `node` that way: + end a, - end b
      if (c.axis == dir->axis && ((dir->sign > 0 && c.a == node) || (dir->sign < 0 && c.b == node))) {
        const bool plus = dir->sign > 0;
        routes.push_back({addr, plus ? c.addr_b : c.addr_a, plus ? c.if_a : c.if_b, me});
        return;
      }
    throw std::invalid_argument("kernel_forwarder: the plan has no cable from node " + std::to_string(node) +
                                " along axis " + std::to_string(dir->axis));
  };
  for (int dest = 0; dest < t.size(); ++dest)
    if (dest != node) add(plan.node_addr[static_cast<std::size_t>(dest)], dest);
  // The two ends of a dead cable: a link between neighbours connects over
  // its cable's own addresses, so those follow the detour too.
  for (const Cable& c : plan.cables) {
    if (!dead.contains(t, {c.a, {c.axis, +1}})) continue;
    if (c.a != node) add(c.addr_a, c.a);
    if (c.b != node) add(c.addr_b, c.b);
  }
  return routes;
}

}  // namespace meshmp::kernel_forwarder
