// The nonblocking collectives' schedules (collectives/nonblocking.h) on the
// world group of several layouts: allreduce and broadcast from every root
// against serial references, the same bits on every rank, and -- on a group
// that is its torus -- the blocking collectives' axis sweeps: no link to a
// rank that is not a torus neighbour is ever opened (the binomial tree's
// would be, on a ring of 8).
#include <cstring>
#include <vector>

#include "collectives/nonblocking.h"
#include "tests/mp/rank_main.h"
#include "tests/mp/world_group.h"

namespace meshmp {
namespace {

using collectives::Group;
using collectives::ReduceOp;
using collectives::Schedule;
using testing::engine;

constexpr std::uint32_t kContext = 3000;  // free: the tests' own groups use 1000/1001

ReduceOp sum_doubles() {
  ReduceOp op;
  op.elem_size = sizeof(double);
  op.combine = [](void* io, const void* in, std::size_t n, void*) {
    for (std::size_t i = 0; i < n; ++i) static_cast<double*>(io)[i] += static_cast<const double*>(in)[i];
  };
  return op;
}

// Starts the schedule and waits for it.
void run(Schedule& s, int tag) {
  s.start(engine(), kContext, tag);
  engine().wait_until([&] { return s.finished(); });
  EXPECT_EQ(s.error(), mesh::Error::kOk);
}

void allreduce_and_broadcasts(const Group& g) {
  const int p = g.size(), me = g.me;
  int tag = 0;
  std::vector<double> v(100);
  for (int i = 0; i < 100; ++i) v[i] = me * 1000 + i + 0.25;
  Schedule sum;
  collectives::add_allreduce(sum, g, v.data(), v.size(), sum_doubles());
  run(sum, tag++);
  for (int i = 0; i < 100; ++i) {
    double want = 0;
    for (int r = 0; r < p; ++r) want += r * 1000 + i + 0.25;
    ASSERT_EQ(v[i], want) << i;
  }
  for (int root = 0; root < p; ++root) {
    std::vector<int> b(50, -1);
    if (me == root)
      for (int i = 0; i < 50; ++i) b[i] = root * 100 + i;
    Schedule bc;
    collectives::add_broadcast(bc, g, b.data(), b.size() * sizeof(int), root);
    run(bc, tag++);
    for (int i = 0; i < 50; ++i) ASSERT_EQ(b[i], root * 100 + i) << "root " << root;
  }
}

TEST(Nonblocking, OnTheTorusOnlyNeighbourLinksAreUsed) {
  const Group g = testing::world_group(1000, true);
  const int links_before = engine().open_links();
  allreduce_and_broadcasts(g);
  const int links_after = engine().open_links();
  // Every rank has counted before any goes on to the next test (whose trees
  // connect to non-neighbours).
  ASSERT_EQ(collectives::barrier(g), mesh::Error::kOk);
  EXPECT_EQ(links_after, links_before) << "a link to a rank that is not a torus neighbour was opened";
}

TEST(Nonblocking, OnAGroupWithoutTorusTheTreesGiveTheSameResults) {
  allreduce_and_broadcasts(testing::world_group(1000, false));
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
