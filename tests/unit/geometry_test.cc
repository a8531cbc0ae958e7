#include "mesh/geometry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <vector>

namespace meshmp::mesh {
namespace {

TEST(Torus, LexicographicAxis0Fastest) {
  Torus t({4, 8, 8});
  EXPECT_EQ(t.size(), 256);
  EXPECT_EQ(t.coords(0), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(t.coords(1), (std::vector<int>{1, 0, 0}));
  EXPECT_EQ(t.coords(4), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(t.coords(32), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(t.coords(255), (std::vector<int>{3, 7, 7}));
  for (int r = 0; r < t.size(); ++r) EXPECT_EQ(t.rank(t.coords(r)), r);
}

TEST(Torus, NeighboursWrapOnPeriodicAxes) {
  Torus t({4, 2});
  EXPECT_EQ(t.neighbour(0, 0, +1), 1);
  EXPECT_EQ(t.neighbour(0, 0, -1), 3);
  EXPECT_EQ(t.neighbour(3, 0, +1), 0);
  // Axis of size 2: both directions reach the same peer.
  EXPECT_EQ(t.neighbour(0, 1, +1), 4);
  EXPECT_EQ(t.neighbour(0, 1, -1), 4);
}

TEST(Torus, OpenAxisHasNoNeighbourPastTheEdge) {
  Torus t({4, 4}, {false, true});
  EXPECT_EQ(t.neighbour(0, 0, -1), -1);
  EXPECT_EQ(t.neighbour(3, 0, +1), -1);
  EXPECT_EQ(t.neighbour(0, 1, -1), 12);
  EXPECT_EQ(t.hop_distance(0, 3), 3);   // open: no wrap
  EXPECT_EQ(t.hop_distance(0, 12), 1);  // periodic: wraps
}

TEST(Torus, HopDistanceIsSymmetricAndMatchesNeighbours) {
  Torus t({4, 8, 8});
  EXPECT_EQ(t.hop_distance(0, t.rank({2, 4, 4})), 10);  // farthest node: 2+4+4
  EXPECT_EQ(t.hop_distance(0, t.rank({3, 7, 1})), 1 + 1 + 1);
  for (int r : {0, 17, 200})
    for (int d = 0; d < 6; ++d) {
      EXPECT_EQ(t.hop_distance(r, t.neighbour(r, Direction::from_index(d))), 1);
      EXPECT_EQ(t.hop_distance(r, 100), t.hop_distance(100, r));
    }
}

// neighbour and hop_distance against their definitions in coordinates, on
// every pair of a torus with open, periodic, size-1 and size-2 axes.
TEST(Torus, NeighbourAndHopDistanceFollowTheCoordinates) {
  const Torus t({3, 1, 4, 2, 5}, {true, true, false, true, false});
  for (int r = 0; r < t.size(); ++r) {
    const std::vector<int> c = t.coords(r);
    for (int a = 0; a < t.ndims(); ++a)
      for (int sign : {+1, -1}) {
        std::vector<int> n = c;
        n[a] += sign;
        const bool past_edge = n[a] < 0 || n[a] >= t.dims()[a];
        if (past_edge && !t.periodic()[a]) {
          EXPECT_EQ(t.neighbour(r, a, sign), -1) << r << " axis " << a << " sign " << sign;
          continue;
        }
        n[a] = (n[a] + t.dims()[a]) % t.dims()[a];
        EXPECT_EQ(t.neighbour(r, a, sign), t.rank(n)) << r << " axis " << a << " sign " << sign;
      }
    for (int b = 0; b < t.size(); ++b) {
      const std::vector<int> d = t.coords(b);
      int hops = 0;
      for (int a = 0; a < t.ndims(); ++a) {
        const int diff = std::abs(c[a] - d[a]);
        hops += t.periodic()[a] ? std::min(diff, t.dims()[a] - diff) : diff;
      }
      EXPECT_EQ(t.hop_distance(r, b), hops) << r << " to " << b;
    }
  }
}

TEST(Torus, DirectionIndexRoundTrips) {
  for (int i = 0; i < 2 * kMaxDims; ++i) EXPECT_EQ(Direction::from_index(i).index(), i);
  EXPECT_EQ((Direction{2, -1}.index()), 5);
}

TEST(Torus, RejectsBadShapes) {
  EXPECT_THROW(Torus(std::vector<int>{}), std::invalid_argument);
  EXPECT_THROW(Torus({2, 0}), std::invalid_argument);
  EXPECT_THROW(Torus({2, 2, 2, 2, 2, 2, 2}), std::invalid_argument);
  EXPECT_THROW(Torus({2, 2}, {true}), std::invalid_argument);
  Torus t({2, 2});
  EXPECT_THROW(t.coords(4), std::out_of_range);
  EXPECT_THROW(t.rank({2, 0}), std::out_of_range);
  EXPECT_THROW(t.neighbour(0, 2, 1), std::out_of_range);
  EXPECT_THROW(t.neighbour(4, 0, 1), std::out_of_range);
  EXPECT_THROW(t.neighbour(-1, 0, 1), std::out_of_range);
  EXPECT_THROW(t.hop_distance(0, 4), std::out_of_range);
  EXPECT_THROW(t.hop_distance(-1, 0), std::out_of_range);
  EXPECT_THROW(t.neighbour(0, 0, 0), std::invalid_argument);
}

TEST(BalancedDims, MatchesMpiDimsCreate) {
  // Values of MPI_Dims_create(n, d, {0...}) from the MPI standard's examples
  // and MPICH: non-increasing and as square as the factors allow.
  EXPECT_EQ(balanced_dims(6, 2), (std::vector<int>{3, 2}));
  EXPECT_EQ(balanced_dims(7, 2), (std::vector<int>{7, 1}));
  EXPECT_EQ(balanced_dims(6, 3), (std::vector<int>{3, 2, 1}));
  EXPECT_EQ(balanced_dims(8, 3), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(balanced_dims(24, 2), (std::vector<int>{6, 4}));
  EXPECT_EQ(balanced_dims(256, 3), (std::vector<int>{8, 8, 4}));
  EXPECT_EQ(balanced_dims(1, 4), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_EQ(balanced_dims(72, 2), (std::vector<int>{9, 8}));       // not 12x6 (issue 14)
  EXPECT_EQ(balanced_dims(360, 3), (std::vector<int>{10, 6, 6}));  // MPICH's; 9x8x5 has the same spread
  EXPECT_EQ(balanced_dims(20, 4), (std::vector<int>{5, 2, 2, 1}));
  EXPECT_EQ(balanced_dims(4096, 7), (std::vector<int>{4, 4, 4, 4, 4, 2, 2}));
  for (int n = 1; n <= 200; ++n)
    for (int d = 1; d <= 4; ++d) {
      auto v = balanced_dims(n, d);
      int prod = 1;
      for (size_t i = 0; i < v.size(); ++i) {
        prod *= v[i];
        if (i) {
          EXPECT_LE(v[i], v[i - 1]);
        }
      }
      EXPECT_EQ(prod, n);
    }
  EXPECT_THROW(balanced_dims(0, 2), std::invalid_argument);
  EXPECT_THROW(balanced_dims(4, 0), std::invalid_argument);
}

TEST(ParseDims, AcceptsSeparatorsAndRejectsJunk) {
  EXPECT_EQ(parse_dims("2x2x2"), (std::vector<int>{2, 2, 2}));
  EXPECT_EQ(parse_dims("4X8"), (std::vector<int>{4, 8}));
  EXPECT_EQ(parse_dims("8"), (std::vector<int>{8}));
  EXPECT_EQ(parse_dims("2,2,2,1"), (std::vector<int>{2, 2, 2, 1}));
  for (const char* bad : {"", "2x", "x2", "2xx2", "2y2", "0x2", "-2", "1x1x1x1x1x1x1", "abc"})
    EXPECT_THROW(parse_dims(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace meshmp::mesh
