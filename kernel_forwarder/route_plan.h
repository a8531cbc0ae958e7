// The kernel routes of an IP mesh (ARCHITECTURE.md §4; seed 003
// 003_106e7c8e7ab06676.txt §4 and §5.1: non-neighbour packets are switched
// below user space along the Shortest-Direction-First route). For one node:
// a /32 route to every other node's address through the cable of the next
// hop routing/ gives, with the node's own address as the preferred source
// so that replies come back the same way. Pure: netlink_routes.h installs
// them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_forwarder/address_plan.h"
#include "routing/route_table.h"

namespace meshmp::kernel_forwarder {

struct KernelRoute {
  std::uint32_t dst = 0;  ///< a node address, /32 (IPv4, host byte order)
  std::uint32_t via = 0;  ///< the next hop's address on the cable
  std::string dev;        ///< this node's interface for that cable
  std::uint32_t src = 0;  ///< this node's own node address
  bool operator==(const KernelRoute& o) const {
    return dst == o.dst && via == o.via && dev == o.dev && src == o.src;
  }
};

/// Node `node`'s routes to every other node `tables` reaches, in node
/// order (unreachable nodes get none); then, for each cable in `dead` (the
/// set the tables were built around), a /32 to each of its two end
/// addresses along the route to the node at that end -- a link between
/// neighbours connects over its cable's addresses, and so survives the cut.
/// `plan` must be a mesh plan of the torus the tables were built for;
/// std::invalid_argument otherwise.
std::vector<KernelRoute> node_routes(const NetPlan& plan, const routing::RouteTables& tables, const mesh::Torus& t,
                                     int node, const routing::CableSet& dead = {});

}  // namespace meshmp::kernel_forwarder
