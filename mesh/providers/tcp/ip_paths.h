// Which ranks a provider over IP reaches and by which path (tcp, and ofi,
// whose endpoints are addressed by IPv4 too): the rules of issue 17/19 in
// one place.
#pragma once

#include <optional>
#include <string>

#include "mesh/provider.h"
#include "mesh/providers/tcp/tcp_card.h"

namespace meshmp::mesh::tcp {

/// Every rank on a switched fabric or on this host; on a mesh fabric the
/// torus neighbours (their cables), and every rank when both this node and
/// the peer have a node address (a /32 on loopback), which the kernel
/// routes along the SDF route (kernel_forwarder/, issue 19).
bool reachable(const ProviderSetup& s, const TcpCard& mine, const TcpCard& theirs, int peer);

/// The interface of the direction whose link #index reaches `peer` ("" if
/// it is no neighbour, or the config names none).
std::string interface_for(const ProviderSetup& s, int peer, int index);

/// Where link #index to `peer` connects: loopback on this host, else
/// choose_dial() over the cable of its direction (none for a link made on
/// first use). nullopt if the peer has no address.
std::optional<Dial> dial_for(const ProviderSetup& s, const TcpCard& mine, const TcpCard& theirs, int peer, int index,
                             bool on_demand);

}  // namespace meshmp::mesh::tcp
