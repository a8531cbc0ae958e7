// The address plan of an IP mesh (ARCHITECTURE.md §4): from a mesh config,
// which cables and addresses make its cluster -- and, in the namespace
// testbed (tools/qmp-mesh, issue 17), which network namespaces. Pure:
// qmp-mesh turns it into `ip` commands, the kernel forwarder into routes.
//
// One namespace per node, "<name>-n<i>". On fabric = "mesh" one veth pair
// per cable -- node i's interface for direction (axis, +) to its
// neighbour's interface for (axis, -), named as the config's [interfaces]
// table says -- with a /31 from the config's [addresses] cables block
// (default 198.18.0.0/16; cable k: base + 2k on the + end, + 2k + 1 on the
// - end), and the node address nodes block + i + 1 (default 198.19.0.0/16)
// on the node's loopback (seed 003 §3: six point-to-point cables per node).
// Cables are numbered node by node, axis by axis. On fabric = "switched"
// every node's "eth0" is cabled to one bridge in the namespace
// "<name>-hub", with its node address as a /16 there.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mesh/config/config.h"

namespace meshmp::kernel_forwarder {

struct Cable {
  int a = 0, b = 0;             ///< nodes: a's + end, b's - end
  int axis = 0;                 ///< the torus axis it runs along
  std::string if_a, if_b;       ///< interface names inside each node's namespace
  std::uint32_t addr_a = 0, addr_b = 0;  ///< host byte order, /31
};

struct NetPlan {
  std::string name;
  int nodes = 0;
  bool switched = false;
  std::vector<Cable> cables;          ///< mesh only
  std::vector<std::uint32_t> node_addr;  ///< by node
  std::string node_ns(int i) const { return name + "-n" + std::to_string(i); }
  std::string hub_ns() const { return name + "-hub"; }
};

/// The block a namespace testbed's addresses must stay in: 198.18.0.0/15
/// (RFC 2544's benchmarking range), never anything routed elsewhere.
inline constexpr std::uint32_t kTestbedBlock = (198u << 24) | (18u << 16);
inline constexpr int kTestbedPrefix = 15;

/// A testbed name: 1-8 lower-case letters and digits (namespace names must
/// stay short and unambiguous). "" if fine, else why not.
std::string check_name(const std::string& name);
/// Throws std::runtime_error naming the config file and what does not fit
/// (too many nodes or cables for the address plan, a missing interface).
NetPlan make_plan(const mesh::MeshConfig& cfg, const std::string& name);

std::string dotted(std::uint32_t addr);
/// "10.1.0.0/16".
std::string block_text(const mesh::Ipv4Block& b);

}  // namespace meshmp::kernel_forwarder
