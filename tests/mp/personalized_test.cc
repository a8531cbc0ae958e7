// Scatter, gather and all-to-all on torus groups (issue 20): OPT, SDF and the
// direct algorithm, from every root, with blocks of 0 B, 8 B, 1 KiB and
// 64 KiB, verified element by element on every rank. The step count each
// collective measures (the depth tags of its messages, maximum over the
// ranks) must equal what routing/'s step simulator replays for the same
// schedule. Run on 1, 2, 4 and 8 ranks (8, 4x2, 2x2x2) and 27 (3x3x3).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/collectives.h"
#include "collectives/personalized.h"
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

// Scatterv and gatherv (issue 31, item 4): a length per member, 0 B
// (null buffers) to above the 8 KiB at which blocks stop being packed
// together, placed at the root in reverse order with gaps. On OPT and SDF
// the counts go out from the root first, then the blocks take exactly the
// scatter's steps.
std::vector<std::size_t> uneven_counts(int p, int root, bool with_large) {
  static const std::size_t small[] = {0, 8, 1000, 3, 64};
  std::vector<std::size_t> c(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) c[i] = small[(i * 3 + root) % 5];
  if (with_large) c[(root + 1) % p] = 9000;
  return c;
}

std::vector<std::size_t> reversed_displs(const std::vector<std::size_t>& counts, std::size_t* total) {
  std::vector<std::size_t> d(counts.size());
  std::size_t at = 0;
  for (std::size_t i = counts.size(); i-- > 0;) d[i] = at, at += counts[i] + 5;  // 5 bytes of gap
  *total = at;
  return d;
}

TEST(Personalized, ScattervAndGathervWithUnevenBlocks) {
  Group g = world();
  const int p = g.size();
  for (ScatterAlgorithm algo : kAlgos)
    for (bool large : {false, true})
      for (int root = 0; root < p; ++root) {
        SCOPED_TRACE(std::string(name(algo)) + " root " + std::to_string(root) + (large ? ", one block of 9000 B" : ""));
        const std::vector<std::size_t> counts = uneven_counts(p, root, large);
        std::size_t total = 0;
        const std::vector<std::size_t> displs = reversed_displs(counts, &total);
        const std::size_t mine = counts[g.me];
        // Scatterv: the counts exist at the root only.
        std::vector<unsigned char> send, recv(mine + 1, 0xEE);
        if (g.me == root) {
          send.assign(total, 0xCC);
          for (int to = 0; to < p; ++to)
            for (std::size_t i = 0; i < counts[to]; ++i) send[displs[to] + i] = byte_of(root, to, i);
        }
        ASSERT_EQ(collectives::scatterv(g, g.me == root ? send.data() : nullptr, g.me == root ? counts.data() : nullptr,
                                        g.me == root ? displs.data() : nullptr, mine ? recv.data() : nullptr, mine, root,
                                        algo),
                  mesh::Error::kOk);
        for (std::size_t i = 0; i < mine; ++i) ASSERT_EQ(recv[i], byte_of(root, g.me, i)) << "scatterv byte " << i;
        EXPECT_EQ(recv[mine], 0xEE) << "scatterv wrote past the block";
        if (algo != ScatterAlgorithm::kDirect) {
          EXPECT_EQ(max_critical_path(g), p > 1 ? simulated_steps(g, algo, root) : 0) << "scatterv";
        }
        // Gatherv back to the same root: collectives::gatherv (on OPT and
        // SDF the counts first), and on those the lengths-in-headers form.
        std::vector<unsigned char> mine_out(mine), all;
        for (std::size_t i = 0; i < mine; ++i) mine_out[i] = byte_of(g.me, root, i);
        auto check_gatherv = [&](auto gatherv, const char* what) {
          if (g.me == root) all.assign(total, 0xCC);
          ASSERT_EQ(gatherv(g, mine ? mine_out.data() : nullptr, mine, g.me == root ? all.data() : nullptr,
                            g.me == root ? counts.data() : nullptr, g.me == root ? displs.data() : nullptr, root, algo),
                    mesh::Error::kOk)
              << what;
          if (g.me == root) {
            for (int from = 0; from < p; ++from) {
              for (std::size_t i = 0; i < counts[from]; ++i)
                ASSERT_EQ(all[displs[from] + i], byte_of(from, root, i)) << what << " from " << from << " byte " << i;
              for (std::size_t i = 0; i < 5; ++i)
                ASSERT_EQ(all[displs[from] + counts[from] + i], 0xCC) << what << " wrote into the gap after " << from;
            }
          }
          if (algo != ScatterAlgorithm::kDirect) {
            EXPECT_EQ(max_critical_path(g), p > 1 ? simulated_steps(g, algo, root) : 0) << what;
          }
        };
        check_gatherv(collectives::gatherv, "gatherv");
        if (algo != ScatterAlgorithm::kDirect) check_gatherv(collectives::torus_gatherv_headers, "gatherv, headers");
      }
}

// Gatherv with lengths in the headers: a member that sends more than the
// root's count for it is cut at the root (kTruncate there), and the others
// arrive whole.
TEST(Personalized, GathervHeadersCutALongBlockAtTheRoot) {
  Group g = world();
  const int p = g.size();
  if (p == 1) GTEST_SKIP() << "one rank";
  for (ScatterAlgorithm algo : {ScatterAlgorithm::kOpt, ScatterAlgorithm::kSdf}) {
    SCOPED_TRACE(name(algo));
    const int root = 0, long_one = p - 1;
    const std::size_t mine = g.me == long_one ? 5000 : 100;  // above the 4 KiB that travel inline, too
    std::vector<unsigned char> out(mine);
    for (std::size_t i = 0; i < mine; ++i) out[i] = byte_of(g.me, root, i);
    std::vector<std::size_t> counts(p, 100), displs(p);
    for (int i = 0; i < p; ++i) displs[i] = static_cast<std::size_t>(i) * 100;
    std::vector<unsigned char> all(100 * p + 1, 0xEE);
    const mesh::Error e = collectives::torus_gatherv_headers(g, out.data(), mine, all.data(), counts.data(),
                                                             displs.data(), root, algo);
    EXPECT_EQ(e, g.me == root ? mesh::Error::kTruncate : mesh::Error::kOk);
    if (g.me == root) {
      for (int from = 0; from < p; ++from)
        for (std::size_t i = 0; i < 100; ++i) ASSERT_EQ(all[from * 100 + i], byte_of(from, root, i)) << from;
      EXPECT_EQ(all[100 * p], 0xEE) << "written past the blocks";
    }
  }
}

// A member whose buffer is shorter than its block: kTruncate there, the
// start of the block kept, every other member unaffected.
TEST(Personalized, ScattervIntoAShortBufferIsTruncated) {
  Group g = world();
  const int p = g.size();
  if (p == 1) GTEST_SKIP() << "one rank";
  for (ScatterAlgorithm algo : kAlgos) {
    SCOPED_TRACE(name(algo));
    const int root = 0, short_one = p - 1;
    std::vector<std::size_t> counts(p, 100), displs(p);
    for (int i = 0; i < p; ++i) displs[i] = static_cast<std::size_t>(i) * 100;
    std::vector<unsigned char> send(100 * p);
    for (int to = 0; to < p; ++to)
      for (std::size_t i = 0; i < 100; ++i) send[to * 100 + i] = byte_of(root, to, i);
    const std::size_t room = g.me == short_one ? 40 : 100;
    std::vector<unsigned char> recv(room + 1, 0xEE);
    const mesh::Error e = collectives::scatterv(g, send.data(), counts.data(), displs.data(), recv.data(), room, root, algo);
    EXPECT_EQ(e, g.me == short_one ? mesh::Error::kTruncate : mesh::Error::kOk);
    for (std::size_t i = 0; i < room; ++i) ASSERT_EQ(recv[i], byte_of(root, g.me, i)) << "byte " << i;
    EXPECT_EQ(recv[room], 0xEE) << "written past the buffer";
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
