// Per-node route tables on a torus whose cables may have failed (seed 003
// 003_106e7c8e7ab06676.txt §5.1 for SDF; ARCHITECTURE.md §4): for every
// destination, the direction a node sends a message on next. With every
// cable alive that is the SDF next hop. With some dead, a destination whose
// SDF route from this node still avoids them keeps it; the others go one
// step down a shortest path over the live cables (the SDF direction where it
// is on one, else the lowest-numbered direction that is), so routes stay
// shortest, loop-free and consistent from node to node. A destination the
// dead cables cut off is unreachable. Pure code, no system calls.
#pragma once

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "mesh/geometry.h"

namespace meshmp::routing {

using mesh::Direction;
using mesh::Torus;

/// A cable: the link leaving `node` in direction `dir`, which is also the
/// link leaving the neighbour in the opposite direction. On a periodic axis
/// of size 2 the + and - cables of a node are two cables to the same peer.
struct Cable {
  int node = 0;
  Direction dir;
};

/// A set of cables, each stored once whichever end names it.
class CableSet {
 public:
  /// Adds the cable; std::invalid_argument if `c` leaves the torus (open
  /// axis edge, axis of size 1) or names a rank outside it.
  void add(const Torus& t, Cable c);
  bool contains(const Torus& t, Cable c) const;
  bool empty() const { return ids_.empty(); }
  std::size_t size() const { return ids_.size(); }

 private:
  std::set<std::pair<int, int>> ids_;  // (node, direction index) of the lower end
};

/// Route tables of every node of `t` with the cables in `dead` down.
class RouteTables {
 public:
  /// Builds every node's table: one breadth-first search per destination
  /// over the live cables, O(size² · 2·ndims) time, size² entries of memory.
  RouteTables(const Torus& t, const CableSet& dead);

  /// The direction `node` sends a message for `dest` on; nullopt when node
  /// == dest or when dest is unreachable from node.
  std::optional<Direction> next_hop(int node, int dest) const;
  /// Live-cable hops from node to dest; -1 when unreachable.
  int distance(int node, int dest) const;
  /// The route the tables give, node first and dest last; empty when
  /// unreachable.
  std::vector<int> route(int node, int dest) const;

 private:
  Torus t_;
  std::vector<int> dist_;           // [dest * size + node]
  std::vector<signed char> next_;   // [node * size + dest]: direction index, -1 none
};

}  // namespace meshmp::routing
