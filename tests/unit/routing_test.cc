// routing/: SDF next hops and routes (seed 003 §5.1), and route tables
// around dead cables, checked by walking every pair of nodes on 2x2x2,
// 4x4x4, 8x8, 4x8x8 and 6x8x8 with no, one and three dead cables. The
// shortest live distance each route must have comes from a breadth-first
// search written here, independent of routing/.
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <set>
#include <vector>

#include "routing/route_table.h"
#include "routing/sdf.h"

namespace {

using meshmp::mesh::Direction;
using meshmp::mesh::Torus;
using meshmp::routing::Cable;
using meshmp::routing::CableSet;
using meshmp::routing::RouteTables;
using meshmp::routing::sdf_next_hop;
using meshmp::routing::sdf_route;

int at(const Torus& t, std::vector<int> c) { return t.rank(c); }

TEST(Sdf, TakesTheAxisWithFewestRemainingStepsFirst) {
  const Torus t({8, 8});
  // (0,0) -> (3,1): one step in y, three in x: y first, then x.
  EXPECT_EQ(sdf_route(t, at(t, {0, 0}), at(t, {3, 1})),
            (std::vector<int>{at(t, {0, 0}), at(t, {0, 1}), at(t, {1, 1}), at(t, {2, 1}), at(t, {3, 1})}));
  // Equal remaining steps: the lower axis first -- and then it has fewer
  // left, so it is finished before the other starts.
  EXPECT_EQ(sdf_route(t, at(t, {0, 0}), at(t, {2, 2})),
            (std::vector<int>{at(t, {0, 0}), at(t, {1, 0}), at(t, {2, 0}), at(t, {2, 1}), at(t, {2, 2})}));
}

TEST(Sdf, GoesTheShortWayRoundAndTiesGoPlus) {
  const Torus ring({8});
  EXPECT_EQ(sdf_route(ring, 0, 6), (std::vector<int>{0, 7, 6}));
  EXPECT_EQ(sdf_route(ring, 0, 4), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(sdf_route(ring, 4, 0), (std::vector<int>{4, 5, 6, 7, 0}));
  // An open axis has one way only.
  const Torus line({8}, {false});
  EXPECT_EQ(sdf_route(line, 0, 6), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(sdf_next_hop(ring, 3, 3).has_value());
  EXPECT_THROW(sdf_next_hop(ring, 0, 8), std::out_of_range);
}

TEST(Sdf, SixAxes) {
  const Torus t({2, 3, 4, 2, 3, 2});
  const int a = 0, b = t.size() - 1;
  const std::vector<int> r = sdf_route(t, a, b);
  EXPECT_EQ(static_cast<int>(r.size()), t.hop_distance(a, b) + 1);
  EXPECT_EQ(r.back(), b);
}

TEST(Cables, EitherEndNamesTheSameCable) {
  const Torus t({4, 2});
  CableSet s;
  s.add(t, {0, {0, +1}});
  EXPECT_TRUE(s.contains(t, {1, {0, -1}}));
  // On the axis of size 2 the + and - cables of a node are two cables.
  s.add(t, {0, {1, +1}});
  EXPECT_TRUE(s.contains(t, {4, {1, -1}}));
  EXPECT_FALSE(s.contains(t, {0, {1, -1}}));
  EXPECT_EQ(s.size(), 2u);
  const Torus line({4}, {false});
  EXPECT_THROW(s.add(line, {3, {0, +1}}), std::invalid_argument);  // past the open edge
}

// Shortest live-cable distances from `from`, by breadth-first search.
std::vector<int> live_distances(const Torus& t, const std::set<std::pair<int, int>>& dead_links, int from) {
  std::vector<int> dist(t.size(), -1);
  std::deque<int> q{from};
  dist[from] = 0;
  while (!q.empty()) {
    const int v = q.front();
    q.pop_front();
    for (int d = 0; d < 2 * t.ndims(); ++d) {
      const int p = t.neighbour(v, Direction::from_index(d));
      if (p < 0 || p == v || dead_links.count({v, d}) || dist[p] >= 0) continue;
      dist[p] = dist[v] + 1;
      q.push_back(p);
    }
  }
  return dist;
}

// Walks every pair through the tables and checks the route.
void check_all_pairs(const Torus& t, const std::vector<Cable>& dead) {
  CableSet set;
  std::set<std::pair<int, int>> dead_links;  // both ends: (node, direction index)
  for (const Cable& c : dead) {
    set.add(t, c);
    dead_links.insert({c.node, c.dir.index()});
    dead_links.insert({t.neighbour(c.node, c.dir), Direction{c.dir.axis, -c.dir.sign}.index()});
  }
  const RouteTables tables(t, set);
  for (int a = 0; a < t.size(); ++a) {
    const std::vector<int> dist = live_distances(t, dead_links, a);
    for (int b = 0; b < t.size(); ++b) {
      // Built only when an expectation fails (p^2 pairs: a trace string for
      // each was most of the test's time).
      auto where = [&] {
        return t.to_string() + " " + std::to_string(a) + " -> " + std::to_string(b) + " with " +
               std::to_string(dead.size()) + " dead";
      };
      const std::vector<int> r = tables.route(a, b);
      if (dist[b] < 0) {
        EXPECT_TRUE(r.empty()) << where();
        EXPECT_FALSE(tables.next_hop(a, b).has_value()) << where();
        continue;
      }
      ASSERT_FALSE(r.empty()) << where();
      EXPECT_EQ(static_cast<int>(r.size()) - 1, dist[b]) << "not a shortest live route: " << where();
      EXPECT_EQ(r.front(), a) << where();
      EXPECT_EQ(r.back(), b) << where();
      EXPECT_EQ(std::set<int>(r.begin(), r.end()).size(), r.size()) << "a node is visited twice: " << where();
      for (std::size_t i = 0; i + 1 < r.size(); ++i) {
        const Direction d = *tables.next_hop(r[i], b);
        EXPECT_EQ(t.neighbour(r[i], d), r[i + 1]) << where();
        EXPECT_FALSE(set.contains(t, {r[i], d})) << "the route uses a dead cable: " << where();
      }
      // Where the SDF route survives, the tables keep it.
      const std::vector<int> sdf = sdf_route(t, a, b);
      bool sdf_alive = true;
      for (std::size_t i = 0; i + 1 < sdf.size(); ++i)
        sdf_alive &= !set.contains(t, {sdf[i], *sdf_next_hop(t, sdf[i], b)});
      if (sdf_alive) {
        EXPECT_EQ(r, sdf) << where();
      }
      if (dead.empty()) {
        EXPECT_EQ(dist[b], t.hop_distance(a, b)) << where();
      }
    }
  }
}

// `count` distinct random cables of `t`.
std::vector<Cable> random_cables(const Torus& t, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Cable> out;
  CableSet seen;
  while (static_cast<int>(out.size()) < count) {
    const Cable c{static_cast<int>(rng() % t.size()), Direction::from_index(static_cast<int>(rng() % (2 * t.ndims())))};
    const int p = t.neighbour(c.node, c.dir);
    if (p < 0 || p == c.node || seen.contains(t, c)) continue;
    seen.add(t, c);
    out.push_back(c);
  }
  return out;
}

class RouteTablesOn : public ::testing::TestWithParam<std::vector<int>> {};

TEST_P(RouteTablesOn, EveryPairWithNoneOneAndThreeDeadCables) {
  const Torus t(GetParam());
  check_all_pairs(t, {});
  for (unsigned seed : {1u, 2u}) {
    check_all_pairs(t, random_cables(t, 1, seed));
    check_all_pairs(t, random_cables(t, 3, seed));
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, RouteTablesOn,
                         ::testing::Values(std::vector<int>{2, 2, 2}, std::vector<int>{4, 4, 4},
                                           std::vector<int>{8, 8}, std::vector<int>{4, 8, 8},
                                           std::vector<int>{6, 8, 8}));

TEST(RouteTables, ACutTorusIsUnreachableAcrossTheCut) {
  // An open line 0-1-2-3 with the cable 1-2 dead: {0,1} and {2,3} are cut apart.
  const Torus line({4}, {false});
  CableSet dead;
  dead.add(line, {1, {0, +1}});
  const RouteTables tables(line, dead);
  EXPECT_EQ(tables.route(0, 1), (std::vector<int>{0, 1}));
  EXPECT_TRUE(tables.route(0, 3).empty());
  EXPECT_EQ(tables.distance(3, 0), -1);
  // A ring of 4 with one dead cable goes the other way round.
  const Torus ring({4});
  CableSet one;
  one.add(ring, {0, {0, +1}});
  EXPECT_EQ(RouteTables(ring, one).route(0, 1), (std::vector<int>{0, 3, 2, 1}));
  // Both cables of a size-2 axis dead: the pair is cut off on that axis.
  const Torus pair({2, 2});
  CableSet both;
  both.add(pair, {0, {0, +1}});
  both.add(pair, {0, {0, -1}});
  EXPECT_EQ(RouteTables(pair, both).route(0, 1), (std::vector<int>{0, 2, 3, 1}));
}

}  // namespace
