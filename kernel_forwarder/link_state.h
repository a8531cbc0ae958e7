// Which cables of an IP mesh are down, as every node's meshrouted learns it
// (ARCHITECTURE.md §4): each node reports the cables it sees down (carrier
// lost) with an (epoch, sequence) that only grows, floods the report to its
// live neighbours, and every node merges the newest report of each origin.
// A cable is dead when either end reports it down. Reports travel in UDP
// datagrams authenticated with HMAC-SHA-512-256 (libsodium crypto_auth)
// under the mesh's key, so no one without it can steer the routes.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "mesh/geometry.h"
#include "routing/route_table.h"

namespace meshmp::kernel_forwarder {

/// The mesh's routing key: 32 bytes (crypto_auth_KEYBYTES).
using RouteKey = std::array<unsigned char, 32>;

struct LinkReport {
  int origin = 0;           ///< the reporting node
  std::uint64_t epoch = 0;  ///< the daemon's start (ns since the epoch): a restart wins
  std::uint32_t seq = 0;    ///< grows with every change within an epoch
  std::uint32_t down = 0;   ///< bit d: the cable in direction d (Direction::index) is down
};

/// Bytes on the wire: "MRT1", origin, epoch, seq, down (big endian), MAC.
inline constexpr std::size_t kReportBytes = 4 + 4 + 8 + 4 + 4 + 32;

std::string encode_report(const LinkReport& r, const RouteKey& key);
/// nullopt unless `bytes` is exactly one report with a valid MAC under
/// `key`, an origin below `nodes` and down bits only for directions of a
/// torus of `ndims` axes.
std::optional<LinkReport> decode_report(const std::string& bytes, const RouteKey& key, int nodes, int ndims);

/// The newest report of each origin.
class LinkStateDb {
 public:
  /// Keeps `r` if it is newer (epoch, then seq) than what `r.origin` said
  /// before; true if it was kept (so it is to be flooded on).
  bool merge(const LinkReport& r);
  /// Every cable some origin reports down (cables that leave the torus are
  /// ignored).
  routing::CableSet dead(const mesh::Torus& t) const;

 private:
  std::map<int, LinkReport> newest_;
};

/// Reads a routing key file: exactly 32 bytes, owned by this user and not
/// readable by others (mode 0600 or 0400). Throws std::runtime_error
/// naming the file and what is wrong.
RouteKey read_route_key(const std::string& path);

}  // namespace meshmp::kernel_forwarder
