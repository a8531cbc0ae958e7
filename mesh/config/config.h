// Mesh configuration files (configs/*.toml): the physical torus a job runs on
// (ARCHITECTURE.md §2). Parsed with toml11; every error names file, line and
// key.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "mesh/defaults.h"
#include "mesh/geometry.h"

namespace meshmp::mesh {

/// A config problem, formatted "FILE:LINE: KEY: what is wrong".
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `mesh`: only neighbour links exist and other traffic is routed (seed 003
/// §4); `switched`: any pair of nodes may connect directly.
enum class Fabric { kMesh, kSwitched };


/// An IPv4 block "a.b.c.d/len" (host byte order).
struct Ipv4Block {
  std::uint32_t base = 0;
  int prefix = 32;
};

struct MeshConfig {
  std::string file;                   ///< where it came from
  Torus torus;                        ///< [mesh] dims, periodic
  Fabric fabric = Fabric::kMesh;      ///< [mesh] fabric
  std::size_t eager_limit = kDefaultEagerLimit;  ///< [mesh] eager_limit, bytes
  int credits = static_cast<int>(kDefaultCredits);  ///< [mesh] credits, slots per link
  std::vector<std::string> hosts;     ///< host of each rank (empty: not given)
  /// [addresses] of an IP mesh (kernel_forwarder/address_plan.h): node i's
  /// address is nodes.base + i + 1 (a /32 on its loopback); cable k's two
  /// ends are cables.base + 2k and + 2k + 1 (a /31). Defaults: the
  /// testbed's 198.19.0.0/16 and 198.18.0.0/16.
  Ipv4Block node_block{(198u << 24) | (19u << 16), 16};
  Ipv4Block cable_block{(198u << 24) | (18u << 16), 16};
  /// Interface carrying each direction (index Direction::index()); empty
  /// string where the config gives none (allowed only on switched fabrics).
  std::array<std::string, 2 * kMaxDims> interfaces{};
};

/// Reads and validates a config file. Throws ConfigError.
MeshConfig load_config(const std::string& path);
/// The same for text already in memory; `name` stands for the file name.
MeshConfig parse_config(const std::string& text, const std::string& name);

/// The config key for a direction: "x+", "x-", "y+", ...
std::string direction_key(Direction d);

}  // namespace meshmp::mesh
