#include "routing/scatter_schedule.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "routing/sdf.h"

namespace meshmp::routing {
namespace {

void check_root(const Torus& t, int root) {
  if (root < 0 || root >= t.size())
    throw std::out_of_range("routing: scatter root " + std::to_string(root) + " is outside " + t.to_string());
}

std::string describe(const Transfer& x) {
  return "step " + std::to_string(x.step) + ", node " + std::to_string(x.from) + ", direction " +
         mesh::axis_letter(x.dir.axis) + (x.dir.sign > 0 ? "+" : "-") + ", message " + std::to_string(x.message);
}

// One message on its way: the nodes of its path (the root first), how far
// along it is, and the step it reached its current node in.
struct Journey {
  std::vector<int> path;
  std::vector<Direction> dirs;  // the link of each hop; empty = any link to the next node
  std::size_t pos = 0;
  int arrived = 0;
  int remaining() const { return static_cast<int>(path.size() - 1 - pos); }
};

enum class Priority { kFurthestFirst, kFirstCome };

// List scheduling: in every step each node offers its waiting messages in
// priority order to its links; a message takes its hop's link if that link
// is still free in this step, else waits. Records what moved.
ScatterSchedule list_schedule(const Torus& t, int root, std::vector<Journey> msgs, Priority prio) {
  ScatterSchedule s;
  s.root = root;
  const int nlinks = 2 * t.ndims();
  std::vector<char> used(static_cast<std::size_t>(t.size()) * nlinks, 0);
  std::vector<int> touched;
  std::vector<int> order;
  std::size_t left = 0;
  for (const Journey& j : msgs) left += j.remaining() > 0;
  while (left > 0) {
    ++s.steps;
    order.clear();
    for (int m = 0; m < static_cast<int>(msgs.size()); ++m)
      if (msgs[m].remaining() > 0) order.push_back(m);
    auto key = [&](int m) {
      const Journey& j = msgs[m];
      return prio == Priority::kFurthestFirst ? std::make_tuple(j.path[j.pos], -j.remaining(), m)
                                              : std::make_tuple(j.path[j.pos], j.arrived, m);
    };
    std::sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
    std::vector<std::pair<int, Transfer>> moves;
    for (int m : order) {
      const Journey& j = msgs[m];
      const int at = j.path[j.pos], next = j.path[j.pos + 1];
      std::optional<Direction> link;
      auto free_link = [&](Direction d) { return !used[static_cast<std::size_t>(at) * nlinks + d.index()]; };
      if (!j.dirs.empty()) {
        if (free_link(j.dirs[j.pos])) link = j.dirs[j.pos];
      } else {  // the first free link to `next`, in links_of's order
        for (int a = 0; a < t.ndims() && !link; ++a)
          for (int sign : {+1, -1})
            if (t.dims()[a] >= 2 && t.neighbour(at, a, sign) == next && free_link(Direction{a, sign})) {
              link = Direction{a, sign};
              break;
            }
      }
      if (!link) continue;
      const std::size_t slot = static_cast<std::size_t>(at) * nlinks + link->index();
      used[slot] = 1;
      touched.push_back(static_cast<int>(slot));
      moves.push_back({m, Transfer{s.steps, at, *link, j.path.back()}});
    }
    for (auto& [m, x] : moves) {
      Journey& j = msgs[m];
      ++j.pos;
      j.arrived = s.steps;
      if (j.remaining() == 0) --left;
      s.transfers.push_back(x);
    }
    for (int slot : touched) used[slot] = 0;
    touched.clear();
  }
  std::sort(s.transfers.begin(), s.transfers.end(), [](const Transfer& a, const Transfer& b) {
    return std::make_tuple(a.step, a.from, a.dir.index()) < std::make_tuple(b.step, b.from, b.dir.index());
  });
  return s;
}

// OPT's partition and trees: region[v] is an index into the root's distinct
// neighbours, parent[v] the node v is reached from inside its region.
struct Partition {
  std::vector<int> entries;     // the root's distinct neighbours, by first link
  std::vector<int> entry_link;  // the first link's direction index for each
  std::vector<int> region;      // per node; -1 for the root
  std::vector<int> parent;      // per node; -1 for the root
  std::vector<int> relative;    // per node: relative_ranks(t, root)
};

// A region's finishing step if its messages leave the root furthest first
// over `cap` links and then never wait: max over positions j (0-based, in
// non-increasing distance) of ceil((j+1)/cap) + distance_j - 1.
int finish_step(const std::vector<int>& dists_desc, int cap) {
  int f = 0;
  for (std::size_t j = 0; j < dists_desc.size(); ++j)
    f = std::max(f, static_cast<int>((j + cap) / cap) + dists_desc[j] - 1);
  return f;
}

// Each node's rank counted from the root (coordinates minus the root's, mod
// each size): every choice below breaks ties by it, so on a torus every
// root's partition is root 0's, translated.
std::vector<int> relative_ranks(const Torus& t, int root) {
  const std::vector<int> r = t.coords(root);
  std::vector<int> out(t.size());
  for (int v = 0; v < t.size(); ++v) {
    std::vector<int> c = t.coords(v);
    for (int a = 0; a < t.ndims(); ++a) c[a] = (c[a] - r[a] + t.dims()[a]) % t.dims()[a];
    out[v] = t.rank(c);
  }
  return out;
}

Partition partition(const Torus& t, int root) {
  const int p = t.size();
  Partition part;
  part.relative = relative_ranks(t, root);
  const std::vector<int>& relative = part.relative;
  part.region.assign(p, -1);
  part.parent.assign(p, -1);
  std::vector<int> cap;
  for (Direction d : links_of(t, root)) {
    const int e = t.neighbour(root, d);
    auto it = std::find(part.entries.begin(), part.entries.end(), e);
    if (it == part.entries.end()) {
      part.region[e] = static_cast<int>(part.entries.size());
      part.parent[e] = root;
      part.entries.push_back(e);
      part.entry_link.push_back(d.index());
      cap.push_back(1);
    } else {
      ++cap[it - part.entries.begin()];
    }
  }
  const int nreg = static_cast<int>(part.entries.size());
  std::vector<int> dist(p);
  int far = 0;
  for (int v = 0; v < p; ++v) far = std::max(far, dist[v] = t.hop_distance(root, v));
  std::vector<std::vector<int>> levels(far + 1);
  for (int v = 0; v < p; ++v) levels[dist[v]].push_back(v);
  for (auto& level : levels)
    std::sort(level.begin(), level.end(), [&](int a, int b) { return relative[a] < relative[b]; });
  // Each region's members' distances, furthest first (nodes join in order of
  // distance, so a newcomer goes to the front).
  std::vector<std::vector<int>> dists(nreg);
  for (int r = 0; r < nreg; ++r) dists[r].push_back(1);
  for (int d = 2; d <= far; ++d) {
    struct Node {
      int v;
      std::vector<int> preds;    // predecessors on shortest paths
      std::vector<int> regions;  // their distinct regions, ascending
    };
    std::vector<Node> level;
    for (int v : levels[d]) {
      Node n{v, {}, {}};
      for (Direction dir : links_of(t, v)) {
        const int u = t.neighbour(v, dir);
        if (dist[u] == d - 1 && std::find(n.preds.begin(), n.preds.end(), u) == n.preds.end()) n.preds.push_back(u);
      }
      for (int u : n.preds) n.regions.push_back(part.region[u]);
      std::sort(n.regions.begin(), n.regions.end());
      n.regions.erase(std::unique(n.regions.begin(), n.regions.end()), n.regions.end());
      level.push_back(std::move(n));
    }
    // The most constrained first, so the free ones balance what is left.
    std::stable_sort(level.begin(), level.end(),
                     [](const Node& a, const Node& b) { return a.regions.size() < b.regions.size(); });
    for (const Node& n : level) {
      int best = -1, best_finish = 0;
      for (int r : n.regions) {
        std::vector<int> with = dists[r];
        with.insert(with.begin(), d);
        const int f = finish_step(with, cap[r]);
        // Smallest finish, then the least loaded per link, then the lower region.
        const bool better =
            best < 0 || f < best_finish ||
            (f == best_finish && dists[r].size() * cap[best] < dists[best].size() * cap[r]);
        if (better) best = r, best_finish = f;
      }
      part.region[n.v] = best;
      dists[best].insert(dists[best].begin(), d);
      for (int u : n.preds)
        if (part.region[u] == best &&
            (part.parent[n.v] < 0 || relative[u] < relative[part.parent[n.v]]))
          part.parent[n.v] = u;
    }
  }
  return part;
}

}  // namespace

std::vector<Direction> links_of(const Torus& t, int node) {
  std::vector<Direction> out;
  for (int a = 0; a < t.ndims(); ++a) {
    if (t.dims()[a] < 2) continue;
    for (int sign : {+1, -1})
      if (t.neighbour(node, a, sign) >= 0) out.push_back(Direction{a, sign});
  }
  return out;
}

ScatterSchedule opt_scatter(const Torus& t, int root) {
  check_root(t, root);
  const Partition part = partition(t, root);
  std::vector<int> order(t.size());
  for (int v = 0; v < t.size(); ++v) order[part.relative[v]] = v;
  std::vector<Journey> msgs;
  for (int v : order) {
    if (v == root) continue;
    Journey j;
    for (int at = v; at >= 0; at = part.parent[at]) j.path.push_back(at);
    std::reverse(j.path.begin(), j.path.end());
    msgs.push_back(std::move(j));
  }
  return list_schedule(t, root, std::move(msgs), Priority::kFurthestFirst);
}

ScatterSchedule sdf_scatter(const Torus& t, int root) {
  check_root(t, root);
  std::vector<Journey> msgs;
  for (int v = 0; v < t.size(); ++v) {
    if (v == root) continue;
    Journey j;
    j.path = sdf_route(t, root, v);
    for (std::size_t i = 0; i + 1 < j.path.size(); ++i) j.dirs.push_back(*sdf_next_hop(t, j.path[i], v));
    msgs.push_back(std::move(j));
  }
  return list_schedule(t, root, std::move(msgs), Priority::kFirstCome);
}

std::vector<int> opt_regions(const Torus& t, int root) {
  check_root(t, root);
  const Partition part = partition(t, root);
  std::vector<int> out(t.size(), -1);
  for (int v = 0; v < t.size(); ++v)
    if (part.region[v] >= 0) out[v] = part.entry_link[part.region[v]];
  return out;
}

int scatter_lower_bound(const Torus& t, int root) {
  check_root(t, root);
  const int p = t.size();
  if (p == 1) return 0;
  const int k = static_cast<int>(links_of(t, root).size());
  int far = 0;
  for (int v = 0; v < p; ++v) far = std::max(far, t.hop_distance(root, v));
  return std::max((p - 1 + k - 1) / k, far);
}

ScatterSchedule reverse_schedule(const Torus& t, const ScatterSchedule& s) {
  ScatterSchedule r;
  r.root = s.root;
  r.steps = s.steps;
  for (auto it = s.transfers.rbegin(); it != s.transfers.rend(); ++it)
    r.transfers.push_back(Transfer{s.steps + 1 - it->step, t.neighbour(it->from, it->dir),
                                   Direction{it->dir.axis, -it->dir.sign}, it->message});
  std::stable_sort(r.transfers.begin(), r.transfers.end(), [](const Transfer& a, const Transfer& b) {
    return std::make_tuple(a.step, a.from, a.dir.index()) < std::make_tuple(b.step, b.from, b.dir.index());
  });
  return r;
}

namespace {

// Shared by the scatter and gather checks: message m starts at start(m) and
// must end at end(m).
template <typename Start, typename End>
int replay(const Torus& t, const ScatterSchedule& s, Start start, End end) {
  const int p = t.size();
  check_root(t, s.root);
  auto fail = [](const std::string& what, const Transfer& x) {
    throw std::logic_error("schedule: " + what + " (" + describe(x) + ")");
  };
  std::vector<int> at(p), since(p, 0);
  for (int m = 0; m < p; ++m) at[m] = start(m);
  std::vector<std::vector<int>> link_step(p, std::vector<int>(2 * t.ndims(), 0));
  int last = 0;
  for (const Transfer& x : s.transfers) {
    if (x.step < 1 || x.step < last) fail("steps out of order", x);
    last = x.step;
    if (x.from < 0 || x.from >= p || x.message < 0 || x.message >= p || x.message == s.root)
      fail("no such node or message", x);
    // One of links_of(x.from): an axis of size 2 or more, not past an open edge.
    if (x.dir.axis < 0 || x.dir.axis >= t.ndims() || (x.dir.sign != 1 && x.dir.sign != -1) ||
        t.dims()[x.dir.axis] < 2 || t.neighbour(x.from, x.dir) < 0)
      fail("no such link", x);
    if (at[x.message] != x.from) fail("the message is not at this node", x);
    if (x.from == end(x.message)) fail("the message is sent on from its destination", x);
    if (since[x.message] >= x.step) fail("the message is sent on in the step it arrived", x);
    int& used = link_step[x.from][x.dir.index()];
    if (used == x.step) fail("the link carries two messages in this step", x);
    used = x.step;
    at[x.message] = t.neighbour(x.from, x.dir);
    since[x.message] = x.step;
  }
  for (int m = 0; m < p; ++m)
    if (m != s.root && at[m] != end(m))
      throw std::logic_error("schedule: message " + std::to_string(m) + " ends at node " + std::to_string(at[m]) +
                             ", not " + std::to_string(end(m)));
  if (last != s.steps)
    throw std::logic_error("schedule: claims " + std::to_string(s.steps) + " steps but its last transfer is in step " +
                           std::to_string(last));
  return last;
}

}  // namespace

int simulate_scatter(const Torus& t, const ScatterSchedule& s) {
  return replay(t, s, [&](int) { return s.root; }, [](int m) { return m; });
}

int simulate_gather(const Torus& t, const ScatterSchedule& s) {
  return replay(t, s, [](int m) { return m; }, [&](int) { return s.root; });
}

}  // namespace meshmp::routing
