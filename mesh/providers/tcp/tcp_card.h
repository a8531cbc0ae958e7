// The tcp provider's address card and the choice of the address a link
// connects to (issue 17). A rank publishes its listening port, its host
// (host_identity(): ranks of one host and network namespace talk over
// loopback) and every IPv4 address of its interfaces but loopback's:
//
//   "tcp <port> <host> <a.b.c.d>/<prefix>@<interface> ..."
//
// On a mesh (seed 003 §3: each direction is a cable to one neighbour, a
// point-to-point subnet) the link for a direction goes to the neighbour's
// address in the subnet of this node's interface for that direction, from
// that interface's address; on a switched fabric to an address sharing any
// subnet with this node; else to the peer's node address (a /32 on its
// loopback, which the kernel routes hop by hop on an IP mesh: ARCHITECTURE.md
// §4, kernel_forwarder/), from this node's; else to its first address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshmp::mesh::tcp {

struct InterfaceAddress {
  std::uint32_t addr = 0;  ///< IPv4, host byte order
  int prefix = 32;
  std::string ifname;
};

struct TcpCard {
  int port = 0;
  std::string host;
  std::vector<InterfaceAddress> addrs;
};

std::string encode_card(const TcpCard& c);
/// Throws std::runtime_error naming `rank` and what is malformed.
TcpCard parse_card(const std::string& text, int rank);
/// This namespace's IPv4 addresses, except 127.0.0.0/8 (getifaddrs).
std::vector<InterfaceAddress> local_addresses();

/// The node address on a card: its first /32 on interface "lo" (the
/// loopback's own 127.0.0.0/8 is never on a card). nullopt if none.
std::optional<std::uint32_t> node_address(const TcpCard& c);

struct Dial {
  std::uint32_t dst = 0;  ///< where to connect (host byte order)
  std::uint32_t src = 0;  ///< address to bind first, or 0
};
/// Where a link from `mine` to `peer` connects; `ifname` is this node's
/// interface for the link's direction ("" if none). nullopt if the peer
/// has no address at all.
std::optional<Dial> choose_dial(const TcpCard& mine, const TcpCard& peer, const std::string& ifname);

/// "198.18.0.1".
std::string ip_string(std::uint32_t addr);

}  // namespace meshmp::mesh::tcp
