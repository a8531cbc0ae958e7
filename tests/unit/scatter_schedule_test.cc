// routing/scatter_schedule: OPT and SDF scatter (seed 003 §5.2) replayed by
// the step simulator on the layouts of the issue from every root. The bound
// each OPT schedule must meet, max{ceil((p-1)/k), max distance} (+1 allowed
// by the paper), is worked out here from the geometry by a breadth-first
// search, not by routing/. The simulator itself is shown to refuse broken
// schedules.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "routing/scatter_schedule.h"

namespace {

using meshmp::mesh::Direction;
using meshmp::mesh::Torus;
using meshmp::routing::opt_regions;
using meshmp::routing::opt_scatter;
using meshmp::routing::reverse_schedule;
using meshmp::routing::ScatterSchedule;
using meshmp::routing::sdf_scatter;
using meshmp::routing::simulate_gather;
using meshmp::routing::simulate_scatter;
using meshmp::routing::Transfer;

// Hop distances from `root` by breadth-first search over the neighbours.
std::vector<int> bfs(const Torus& t, int root) {
  std::vector<int> d(t.size(), -1);
  std::deque<int> q{root};
  d[root] = 0;
  while (!q.empty()) {
    const int u = q.front();
    q.pop_front();
    for (int a = 0; a < t.ndims(); ++a)
      for (int s : {+1, -1}) {
        const int v = t.neighbour(u, a, s);
        if (v >= 0 && d[v] < 0) d[v] = d[u] + 1, q.push_back(v);
      }
  }
  return d;
}

// The paper's T = max{ceil((p-1)/k), max distance}, k the root's links (a
// periodic axis of size 2 has two cables to the one neighbour).
int paper_bound(const Torus& t, int root) {
  int k = 0;
  for (int a = 0; a < t.ndims(); ++a)
    for (int s : {+1, -1})
      if (t.dims()[a] > 1 && t.neighbour(root, a, s) >= 0) ++k;
  const std::vector<int> d = bfs(t, root);
  return std::max((t.size() - 1 + k - 1) / k, *std::max_element(d.begin(), d.end()));
}

const std::vector<std::vector<int>> kLayouts = {{2, 2, 2}, {4, 4, 4}, {8, 8}, {4, 8, 8}, {6, 8, 8}, {3, 3, 3}};

TEST(OptScatter, MeetsThePapersStepCountFromEveryRoot) {
  for (const auto& dims : kLayouts) {
    const Torus t(dims);
    for (int root = 0; root < t.size(); ++root) {
      const ScatterSchedule s = opt_scatter(t, root);
      const int steps = simulate_scatter(t, s);  // throws on a collision or a lost message
      const int bound = paper_bound(t, root);
      EXPECT_GE(steps, bound) << t.to_string() << " root " << root;
      EXPECT_LE(steps, bound + 1) << t.to_string() << " root " << root;
    }
  }
}

TEST(OptScatter, EveryMessageTakesAShortestPathInsideItsRegion) {
  for (const auto& dims : kLayouts) {
    const Torus t(dims);
    for (int root : {0, t.size() / 3, t.size() - 1}) {
      const std::vector<int> dist = bfs(t, root);
      const std::vector<int> region = opt_regions(t, root);
      const ScatterSchedule s = opt_scatter(t, root);
      std::vector<int> hops(t.size(), 0);
      for (const Transfer& x : s.transfers) {
        ++hops[x.message];
        const int to = t.neighbour(x.from, x.dir);
        EXPECT_EQ(region[to], region[x.message]) << "message " << x.message << " leaves its region at " << to;
      }
      for (int v = 0; v < t.size(); ++v) {
        if (v == root) {
          EXPECT_EQ(region[v], -1);
          continue;
        }
        EXPECT_EQ(hops[v], dist[v]) << t.to_string() << " root " << root << " message " << v;
      }
    }
  }
}

TEST(OptScatter, NeverSlowerThanSdfAndFasterAbove2x2x2) {
  for (const auto& dims : kLayouts) {
    const Torus t(dims);
    for (int root = 0; root < t.size(); root += std::max(1, t.size() / 7)) {
      const int opt = simulate_scatter(t, opt_scatter(t, root));
      const int sdf = simulate_scatter(t, sdf_scatter(t, root));
      EXPECT_LE(opt, sdf) << t.to_string() << " root " << root;
      if (t.size() > 8) {
        EXPECT_LT(opt, sdf) << t.to_string() << " root " << root;
      }
    }
  }
}

// Rings and size-1 axes meet the bound too. On open meshes the schedules
// are valid and no shorter than the bound allows, but the greedy partition
// is not always optimal there (on 4x3ox2 it has taken a step more than SDF).
TEST(OptScatter, RingsLinesAndOpenMeshes) {
  for (const Torus& t : {Torus({8}), Torus({5}), Torus({4, 2}), Torus({1, 4, 1})})
    for (int root = 0; root < t.size(); ++root) {
      const int opt = simulate_scatter(t, opt_scatter(t, root));
      EXPECT_GE(opt, paper_bound(t, root)) << t.to_string() << " root " << root;
      EXPECT_LE(opt, paper_bound(t, root) + 1) << t.to_string() << " root " << root;
      EXPECT_LE(opt, simulate_scatter(t, sdf_scatter(t, root))) << t.to_string() << " root " << root;
    }
  for (const Torus& t : {Torus({6}, {false}), Torus({4, 4}, {false, false}), Torus({4, 3, 2}, {true, false, true})})
    for (int root = 0; root < t.size(); ++root) {
      EXPECT_GE(simulate_scatter(t, opt_scatter(t, root)), paper_bound(t, root)) << t.to_string() << " root " << root;
      EXPECT_GE(simulate_scatter(t, sdf_scatter(t, root)), paper_bound(t, root)) << t.to_string() << " root " << root;
    }
  // A line of 6 open nodes from one end: 5 messages in a row down one link.
  EXPECT_EQ(simulate_scatter(Torus({6}, {false}), opt_scatter(Torus({6}, {false}), 0)), 5);
  EXPECT_EQ(opt_scatter(Torus({1}), 0).steps, 0);
}

TEST(OptGather, TheReverseScheduleIsAGatherOfTheSameLength) {
  for (const auto& dims : kLayouts) {
    const Torus t(dims);
    const int root = t.size() / 2;
    const ScatterSchedule s = opt_scatter(t, root);
    EXPECT_EQ(simulate_gather(t, reverse_schedule(t, s)), s.steps) << t.to_string();
    // ... and is not a scatter.
    EXPECT_THROW(simulate_scatter(t, reverse_schedule(t, s)), std::logic_error);
  }
}

// The simulator refuses what a wrong scheduler could produce.
TEST(StepSimulator, RefusesBrokenSchedules) {
  const Torus t({4});  // ring 0-1-2-3
  const Direction plus{0, +1}, minus{0, -1};
  auto expect_refused = [&](const ScatterSchedule& s, const std::string& why) {
    try {
      simulate_scatter(t, s);
      ADD_FAILURE() << "accepted: " << why;
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  // A valid one first: 1 and 3 directly, 2 via 1.
  ScatterSchedule ok{0, 2, {{1, 0, plus, 2}, {1, 0, minus, 3}, {2, 0, plus, 1}, {2, 1, plus, 2}}};
  EXPECT_EQ(simulate_scatter(t, ok), 2);
  ScatterSchedule collide{0, 2, {{1, 0, plus, 1}, {1, 0, plus, 2}, {1, 0, minus, 3}, {2, 1, plus, 2}}};
  expect_refused(collide, "two messages");
  ScatterSchedule early{0, 2, {{1, 1, plus, 2}, {1, 0, plus, 1}, {1, 0, minus, 3}, {2, 0, plus, 2}}};
  expect_refused(early, "not at this node");
  ScatterSchedule same_step{0, 2, {{1, 0, plus, 1}, {1, 0, minus, 3}, {2, 0, plus, 2}, {2, 1, plus, 2}}};
  expect_refused(same_step, "in the step it arrived");
  ScatterSchedule lost{0, 1, {{1, 0, plus, 1}, {1, 0, minus, 3}}};
  expect_refused(lost, "message 2 ends at node 0");
  ScatterSchedule beyond{0, 3, {{1, 0, plus, 1}, {1, 0, minus, 3}, {2, 1, plus, 1}, {3, 0, plus, 2}}};
  expect_refused(beyond, "sent on from its destination");
  ScatterSchedule wrong_count{0, 5, ok.transfers};
  expect_refused(wrong_count, "claims 5 steps");
  const Torus line({4}, {false});
  ScatterSchedule off_edge{0, 1, {{1, 0, minus, 3}}};
  try {
    simulate_scatter(line, off_edge);
    ADD_FAILURE() << "a link past the end of an open axis was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("no such link"), std::string::npos) << e.what();
  }
  // An axis of size 1 has no cable, though the node is its own neighbour there.
  const Torus flat({4, 1});
  ScatterSchedule along_size1{0, 1, {{1, 0, Direction{1, +1}, 1}}};
  try {
    simulate_scatter(flat, along_size1);
    ADD_FAILURE() << "a link along an axis of size 1 was accepted";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("no such link"), std::string::npos) << e.what();
  }
  EXPECT_THROW(opt_scatter(t, 4), std::out_of_range);
}

}  // namespace
