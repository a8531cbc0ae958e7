#include "mesh/providers/tcp/ip_paths.h"

#include <netinet/in.h>

namespace meshmp::mesh::tcp {

bool reachable(const ProviderSetup& s, const TcpCard& mine, const TcpCard& theirs, int peer) {
  if (!s.mesh_fabric || theirs.host == mine.host) return true;
  for (int d = 0; d < 2 * s.torus.ndims(); ++d)
    if (s.torus.neighbour(s.rank, Direction::from_index(d)) == peer) return true;
  return node_address(mine).has_value() && node_address(theirs).has_value();
}

std::string interface_for(const ProviderSetup& s, int peer, int index) {
  for (int d = 0; d < 2 * s.torus.ndims(); ++d) {
    const Direction dir = Direction::from_index(d);
    if (s.torus.neighbour(s.rank, dir) == peer && s.torus.link_index(dir) == index)
      return static_cast<std::size_t>(d) < s.interfaces.size() ? s.interfaces[d] : "";
  }
  return "";
}

std::optional<Dial> dial_for(const ProviderSetup& s, const TcpCard& mine, const TcpCard& theirs, int peer, int index,
                             bool on_demand) {
  if (theirs.host == mine.host) return Dial{INADDR_LOOPBACK, 0};
  return choose_dial(mine, theirs, on_demand ? "" : interface_for(s, peer, index));
}

}  // namespace meshmp::mesh::tcp
