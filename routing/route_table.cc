#include "routing/route_table.h"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>

#include "routing/sdf.h"

namespace meshmp::routing {

namespace {

Direction opposite(Direction d) { return {d.axis, -d.sign}; }

// The cable's name at its lower end: (node, direction index).
std::pair<int, int> cable_id(const Torus& t, Cable c) {
  if (c.node < 0 || c.node >= t.size() || c.dir.axis < 0 || c.dir.axis >= t.ndims() || (c.dir.sign != 1 && c.dir.sign != -1))
    throw std::invalid_argument("routing: cable (" + std::to_string(c.node) + ", direction " +
                                std::to_string(c.dir.index()) + ") is not on " + t.to_string());
  const int peer = t.neighbour(c.node, c.dir);
  if (peer < 0 || peer == c.node)
    throw std::invalid_argument("routing: rank " + std::to_string(c.node) + " has no cable in direction " +
                                std::to_string(c.dir.index()) + " on " + t.to_string());
  const std::pair<int, int> here{c.node, c.dir.index()}, there{peer, opposite(c.dir).index()};
  return here < there ? here : there;
}

}  // namespace

void CableSet::add(const Torus& t, Cable c) { ids_.insert(cable_id(t, c)); }
bool CableSet::contains(const Torus& t, Cable c) const { return ids_.count(cable_id(t, c)) != 0; }

RouteTables::RouteTables(const Torus& t, const CableSet& dead) : t_(t) {
  const int n = t.size(), dirs = 2 * t.ndims();
  // The live cables of each node as (direction, peer).
  std::vector<std::vector<std::pair<int, int>>> live(n);
  for (int v = 0; v < n; ++v)
    for (int d = 0; d < dirs; ++d) {
      const Direction dir = Direction::from_index(d);
      const int p = t.neighbour(v, dir);
      if (p >= 0 && p != v && !dead.contains(t, {v, dir})) live[v].push_back({d, p});
    }
  // Distances to each destination over the live cables (cables run both ways).
  dist_.assign(static_cast<std::size_t>(n) * n, -1);
  for (int dest = 0; dest < n; ++dest) {
    int* dist = &dist_[static_cast<std::size_t>(dest) * n];
    std::deque<int> q{dest};
    dist[dest] = 0;
    while (!q.empty()) {
      const int v = q.front();
      q.pop_front();
      for (auto [d, p] : live[v])
        if (dist[p] < 0) {
          dist[p] = dist[v] + 1;
          q.push_back(p);
        }
    }
  }
  // Next hops: SDF where the SDF route from here survives, else a step down
  // a shortest live path (SDF's direction first when it is one).
  next_.assign(static_cast<std::size_t>(n) * n, -1);
  for (int dest = 0; dest < n; ++dest) {
    const int* dist = &dist_[static_cast<std::size_t>(dest) * n];
    // sdf_ok[v]: the SDF route from v to dest uses no dead cable. Nodes in
    // order of hop distance, so each one's SDF successor is decided first.
    std::vector<int> by_distance(n);
    for (int v = 0; v < n; ++v) by_distance[v] = v;
    std::vector<int> hop(n);
    for (int v = 0; v < n; ++v) hop[v] = t.hop_distance(v, dest);
    std::stable_sort(by_distance.begin(), by_distance.end(), [&](int a, int b) { return hop[a] < hop[b]; });
    std::vector<char> sdf_ok(n, 0);
    for (int v : by_distance) {
      if (v == dest) {
        sdf_ok[v] = 1;
        continue;
      }
      const Direction s = *sdf_next_hop(t, v, dest);
      const int p = t.neighbour(v, s);
      signed char& out = next_[static_cast<std::size_t>(v) * n + dest];
      if (!dead.contains(t, {v, s}) && sdf_ok[p]) {
        sdf_ok[v] = 1;
        out = static_cast<signed char>(s.index());
        continue;
      }
      if (dist[v] < 0) continue;  // cut off
      bool sdf_on_shortest = false;
      for (auto [d, q] : live[v]) sdf_on_shortest |= d == s.index() && dist[q] == dist[v] - 1;
      if (sdf_on_shortest) {
        out = static_cast<signed char>(s.index());
        continue;
      }
      for (auto [d, q] : live[v])
        if (dist[q] == dist[v] - 1) {
          out = static_cast<signed char>(d);
          break;
        }
    }
  }
}

std::optional<Direction> RouteTables::next_hop(int node, int dest) const {
  const int n = t_.size();
  if (node < 0 || node >= n || dest < 0 || dest >= n)
    throw std::out_of_range("routing: rank outside " + t_.to_string());
  const signed char d = next_[static_cast<std::size_t>(node) * n + dest];
  if (d < 0) return std::nullopt;
  return Direction::from_index(d);
}

int RouteTables::distance(int node, int dest) const {
  const int n = t_.size();
  if (node < 0 || node >= n || dest < 0 || dest >= n)
    throw std::out_of_range("routing: rank outside " + t_.to_string());
  return dist_[static_cast<std::size_t>(dest) * n + node];
}

std::vector<int> RouteTables::route(int node, int dest) const {
  if (distance(node, dest) < 0) return {};
  std::vector<int> r{node};
  while (node != dest) {
    node = t_.neighbour(node, *next_hop(node, dest));
    r.push_back(node);
  }
  return r;
}

}  // namespace meshmp::routing
