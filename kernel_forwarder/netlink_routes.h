// Kernel routes through rtnetlink with libnl-route-3 (ARCHITECTURE.md §4):
// what makes a node of an IP mesh forward packets for the others, in the
// network namespace of the calling thread. Root (CAP_NET_ADMIN) needed.
#pragma once

#include <vector>

#include "kernel_forwarder/route_plan.h"

namespace meshmp::kernel_forwarder {

/// The routing protocol number meshmp's routes carry (`ip route` shows
/// "proto 99"), so that they can be told from everyone else's.
inline constexpr int kRouteProtocol = 77;

/// net.ipv4.ip_forward = 1 (/proc/sys/net/ipv4/ip_forward). Throws
/// std::runtime_error with errno's text.
void enable_forwarding();

/// Makes the main table hold exactly `routes` among meshmp's routes: each
/// one added or replaced (NLM_F_REPLACE), every other route of protocol
/// kRouteProtocol deleted. A route the kernel refuses -- its next hop's
/// interface went down a moment ago, so the gateway is off every subnet --
/// is left out and named in the returned list ("adding ...: libnl's
/// error"), as is a deletion that fails; the caller tries again once the
/// interfaces have settled. Throws std::runtime_error for what no retry
/// mends: rtnetlink unreachable, an interface name that does not exist.
std::vector<std::string> install_routes(const std::vector<KernelRoute>& routes);

}  // namespace meshmp::kernel_forwarder
