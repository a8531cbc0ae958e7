// Hierarchical collectives by locality (collectives/hierarchy.h) on jobs that
// span simulated hosts: engines in threads over the loopback provider
// (tests/support/loopback_provider.h), told which rank is on which host.
#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "collectives/collectives.h"
#include "collectives/hierarchy.h"
#include "tests/support/loopback_provider.h"

namespace meshmp::collectives {
namespace {

using testing_support::LoopbackFabric;

constexpr std::uint32_t kContext = 9;

Group whole(mesh::Engine& e, int n) {
  Group g;
  g.engine = &e;
  g.context = kContext;
  g.ranks.resize(n);
  std::iota(g.ranks.begin(), g.ranks.end(), 0);
  g.me = e.rank();
  return g;
}

ReduceOp sum_double() {
  ReduceOp op;
  op.elem_size = sizeof(double);
  op.combine = [](void* io, const void* in, std::size_t n, void*) {
    for (std::size_t i = 0; i < n; ++i) static_cast<double*>(io)[i] += static_cast<const double*>(in)[i];
  };
  return op;
}

void expect_no_errors(const std::vector<std::string>& errors) {
  for (std::size_t r = 0; r < errors.size(); ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
}

// Ranks 0,1,2 on one host, 3,4 on another, 5 alone.
const std::vector<int> kHosts = {0, 0, 0, 1, 1, 2};

TEST(Hierarchy, EveryRankKnowsEveryRanksHostAndTheGroupsSplitByIt) {
  LoopbackFabric fabric(6, 8, 1024);
  fabric.set_hosts(kHosts);
  expect_no_errors(fabric.run([&](mesh::Engine& e, int r) {
    const std::vector<int> want = {0, 0, 0, 3, 3, 5};
    for (int q = 0; q < 6; ++q) EXPECT_EQ(e.host_of(q), want[q]) << "rank " << r << " on rank " << q;
    // A group in another order: its first member on each host is the root.
    Group g = whole(e, 6);
    g.ranks = {4, 1, 5, 3, 0, 2};
    g.me = static_cast<int>(std::find(g.ranks.begin(), g.ranks.end(), r) - g.ranks.begin());
    EXPECT_TRUE(hierarchy_applies(g));
    const Hierarchy h = split_by_host(g);
    EXPECT_EQ(h.roots.ranks, (std::vector<int>{4, 1, 5}));
    EXPECT_EQ(h.roots.me, r == 4 ? 0 : r == 1 ? 1 : r == 5 ? 2 : -1);
    const std::vector<int> local = r >= 3 && r <= 4 ? std::vector<int>{4, 3} : r == 5 ? std::vector<int>{5}
                                                                                      : std::vector<int>{1, 0, 2};
    EXPECT_EQ(h.local.ranks, local);
    EXPECT_EQ(h.local.ranks[h.local.me], r);
    // One member per host, or all on one: flat.
    Group spread = whole(e, 6);
    spread.ranks = {0, 3, 5};
    EXPECT_FALSE(hierarchy_applies(spread));
    Group one = whole(e, 6);
    one.ranks = {0, 1, 2};
    EXPECT_FALSE(hierarchy_applies(one));
  }));
}

TEST(Hierarchy, AllreduceCombinesOnEachHostFirstAndOnlyRootsCrossHosts) {
  LoopbackFabric fabric(6, 8, 1024);
  fabric.set_hosts(kHosts);
  expect_no_errors(fabric.run([&](mesh::Engine& e, int r) {
    const Group g = whole(e, 6);
    for (std::size_t count : {std::size_t{1}, std::size_t{5000}}) {  // eager, and rendezvous pieces
      std::vector<double> v(count);
      for (std::size_t i = 0; i < count; ++i) v[i] = r + 10.0 * static_cast<double>(i);
      ASSERT_EQ(allreduce(g, v.data(), count, sum_double()), mesh::Error::kOk);
      for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(v[i], 15 + 60.0 * static_cast<double>(i)) << i;
    }
    ASSERT_EQ(barrier(g), mesh::Error::kOk);
  }));
  // Roots are 0, 3 and 5: no other pair on different hosts exchanged a frame.
  const std::set<int> roots = {0, 3, 5};
  int across = 0;
  for (const std::string& ev : fabric.log()) {
    const int a = ev[0] - '0', b = ev[2] - '0';
    // Finalize's BYEs go on every link; only the combine's traffic counts.
    if (ev[1] != '>' || kHosts[a] == kHosts[b] || ev.find("BYE") != std::string::npos) continue;
    EXPECT_TRUE(roots.count(a) && roots.count(b)) << ev;
    ++across;
  }
  EXPECT_GT(across, 0);
}

TEST(Hierarchy, ANonCommutativeCombineStaysInGroupRankOrder) {
  // Hosts interleaved, so a per-host combine would reorder the operands.
  LoopbackFabric fabric(4, 8, 1024);
  fabric.set_hosts({0, 1, 0, 1});
  expect_no_errors(fabric.run([&](mesh::Engine& e, int r) {
    ReduceOp concat;  // digits appended in rank order: 0123 only in rank order
    concat.elem_size = sizeof(long);
    concat.commutative = false;
    concat.combine = [](void* io, const void* in, std::size_t, void*) {
      long& acc = *static_cast<long*>(io);
      const long x = *static_cast<const long*>(in);
      long scale = 1;
      while (scale <= x) scale *= 10;
      acc = acc * (x == 0 ? 10 : scale) + x;
    };
    long v = r;
    ASSERT_EQ(allreduce(whole(e, 4), &v, 1, concat), mesh::Error::kOk);
    EXPECT_EQ(v, 123);  // 0, then 1, 2, 3 appended
  }));
}

}  // namespace
}  // namespace meshmp::collectives
