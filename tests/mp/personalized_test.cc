// Scatter, gather and all-to-all on torus groups (issue 20): OPT, SDF and the
// direct algorithm, from every root, with blocks of 0 B, 8 B, 1 KiB and
// 64 KiB, verified element by element on every rank. The step count each
// collective measures (the depth tags of its messages, maximum over the
// ranks) must equal what routing/'s step simulator replays for the same
// schedule. Run on 1, 2, 4 and 8 ranks (8, 4x2, 2x2x2) and 27 (3x3x3).
#include <algorithm>
#include <cstring>
#include <vector>

#include "collectives/collectives.h"
#include "routing/scatter_schedule.h"
#include "tests/mp/rank_main.h"
#include "tests/mp/world_group.h"

namespace meshmp {
namespace {

using collectives::Group;
using collectives::ScatterAlgorithm;
using testing::engine;
using testing::max_critical_path;

Group world() { return testing::world_group(1200); }

// The steps the simulator replays for a scatter from `root`.
int simulated_steps(const Group& g, ScatterAlgorithm algo, int root) {
  const mesh::Torus& t = *g.torus;
  return routing::simulate_scatter(t, algo == ScatterAlgorithm::kSdf ? routing::sdf_scatter(t, root)
                                                                     : routing::opt_scatter(t, root));
}

// Byte i of the block from member `from` to member `to`.
unsigned char byte_of(int from, int to, std::size_t i) { return testing::pattern(from * 131 + to, i); }

const std::size_t kBlocks[] = {0, 8, 1024, 65536};
const ScatterAlgorithm kAlgos[] = {ScatterAlgorithm::kOpt, ScatterAlgorithm::kSdf, ScatterAlgorithm::kDirect};

const char* name(ScatterAlgorithm a) {
  return a == ScatterAlgorithm::kOpt ? "opt" : a == ScatterAlgorithm::kSdf ? "sdf" : "direct";
}

TEST(Personalized, ScatterFromEveryRootInTheSimulatedSteps) {
  Group g = world();
  const int p = g.size();
  for (ScatterAlgorithm algo : kAlgos)
    for (std::size_t block : kBlocks)
      for (int root = 0; root < p; ++root) {
        std::vector<unsigned char> send, recv(block + 1, 0xEE);
        if (g.me == root) {
          send.resize(block * p + 1);
          for (int to = 0; to < p; ++to)
            for (std::size_t i = 0; i < block; ++i) send[to * block + i] = byte_of(root, to, i);
        }
        ASSERT_EQ(collectives::scatter(g, send.data(), recv.data(), block, root, algo), mesh::Error::kOk);
        for (std::size_t i = 0; i < block; ++i)
          ASSERT_EQ(recv[i], byte_of(root, g.me, i)) << name(algo) << " root " << root << " block " << block << " byte " << i;
        EXPECT_EQ(recv[block], 0xEE) << "written past the block";
        if (algo != ScatterAlgorithm::kDirect) {
          EXPECT_EQ(max_critical_path(g), p > 1 ? simulated_steps(g, algo, root) : 0)
              << name(algo) << " root " << root << " block " << block;
        }
      }
}

TEST(Personalized, GatherToEveryRootInTheSimulatedSteps) {
  Group g = world();
  const int p = g.size();
  for (ScatterAlgorithm algo : kAlgos)
    for (std::size_t block : kBlocks)
      for (int root = 0; root < p; ++root) {
        std::vector<unsigned char> send(block), recv;
        for (std::size_t i = 0; i < block; ++i) send[i] = byte_of(g.me, root, i);
        if (g.me == root) recv.assign(block * p + 1, 0xEE);
        ASSERT_EQ(collectives::gather(g, send.data(), recv.data(), block, root, algo), mesh::Error::kOk);
        if (g.me == root) {
          for (int from = 0; from < p; ++from)
            for (std::size_t i = 0; i < block; ++i)
              ASSERT_EQ(recv[from * block + i], byte_of(from, root, i))
                  << name(algo) << " root " << root << " block " << block << " from " << from;
          EXPECT_EQ(recv[block * p], 0xEE) << "written past the blocks";
        }
        if (algo != ScatterAlgorithm::kDirect) {
          EXPECT_EQ(max_critical_path(g), p > 1 ? simulated_steps(g, algo, root) : 0)
              << name(algo) << " root " << root << " block " << block;
        }
      }
}

TEST(Personalized, AlltoallAsParallelScatters) {
  Group g = world();
  const int p = g.size();
  int expect_steps = 0;
  for (ScatterAlgorithm algo : kAlgos)
    for (std::size_t block : kBlocks) {
      std::vector<unsigned char> send(block * p), recv(block * p + 1, 0xEE);
      for (int to = 0; to < p; ++to)
        for (std::size_t i = 0; i < block; ++i) send[to * block + i] = byte_of(g.me, to, i);
      ASSERT_EQ(collectives::alltoall(g, send.data(), recv.data(), block, algo), mesh::Error::kOk);
      for (int from = 0; from < p; ++from)
        for (std::size_t i = 0; i < block; ++i)
          ASSERT_EQ(recv[from * block + i], byte_of(from, g.me, i)) << name(algo) << " block " << block << " from " << from;
      EXPECT_EQ(recv[block * p], 0xEE) << "written past the blocks";
      if (algo != ScatterAlgorithm::kDirect) {
        // The p scatters share the steps of the longest one.
        expect_steps = 0;
        for (int r = 0; r < p && p > 1; ++r) expect_steps = std::max(expect_steps, simulated_steps(g, algo, r));
        EXPECT_EQ(max_critical_path(g), expect_steps) << name(algo) << " block " << block;
      }
    }
}

// kAuto takes OPT where only neighbours are cabled (fabric = "mesh") and
// goes straight (one step) where every pair is linked.
TEST(Personalized, AutoFollowsTheFabric) {
  Group g = world();
  const int p = g.size();
  if (p == 1) GTEST_SKIP() << "one rank: nothing moves";
  const bool mesh = !engine().options().mesh_fabric_config.empty();
  const int root = p - 1;
  std::vector<unsigned char> send(8 * p, 1), recv(8 * p);
  ASSERT_EQ(collectives::scatter(g, send.data(), recv.data(), 8, root), mesh::Error::kOk);
  EXPECT_EQ(max_critical_path(g), mesh ? simulated_steps(g, ScatterAlgorithm::kOpt, root) : 1);
  ASSERT_EQ(collectives::gather(g, send.data(), recv.data(), 8, root), mesh::Error::kOk);
  EXPECT_EQ(max_critical_path(g), mesh ? simulated_steps(g, ScatterAlgorithm::kOpt, root) : 1);
  ASSERT_EQ(collectives::alltoall(g, send.data(), recv.data(), 8), mesh::Error::kOk);
  EXPECT_EQ(max_critical_path(g), mesh ? simulated_steps(g, ScatterAlgorithm::kOpt, 0) : 1);
}

// Back to back without a barrier between: each call's messages stay its own.
TEST(Personalized, ManyInARowWithDifferentRoots) {
  Group g = world();
  const int p = g.size();
  const std::size_t block = 24;
  std::vector<unsigned char> send(block * p), recv(block), all(block * p);
  for (int round = 0; round < 200; ++round) {
    const int root = (round * 7) % p;
    if (g.me == root)
      for (int to = 0; to < p; ++to)
        for (std::size_t i = 0; i < block; ++i) send[to * block + i] = byte_of(round, to, i);
    ASSERT_EQ(collectives::scatter(g, send.data(), recv.data(), block, root), mesh::Error::kOk);
    for (std::size_t i = 0; i < block; ++i) ASSERT_EQ(recv[i], byte_of(round, g.me, i)) << "round " << round;
    ASSERT_EQ(collectives::gather(g, recv.data(), all.data(), block, (root + 1) % p), mesh::Error::kOk);
    if (g.me == (root + 1) % p) {
      for (int from = 0; from < p; ++from)
        for (std::size_t i = 0; i < block; ++i) ASSERT_EQ(all[from * block + i], byte_of(round, from, i));
    }
  }
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
