// Collectives on the world group of every layout the issue names (run with
// --geometry 2x2x2, 8x1x1, 4x2x1, 2x2x2x1, and on 1, 2, 4 ranks): results
// against serial references built on rank 0 from gathered inputs, bit-equal
// results on every rank, and the critical path measured by the messages'
// depth tags: sum(floor(dim/2)) for the sweep and the dimension-wise combine,
// twice that for reduce + broadcast.
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "collectives/collectives.h"
#include "tests/mp/rank_main.h"
#include "tests/mp/world_group.h"

namespace meshmp {
namespace {

using collectives::CombineAlgorithm;
using collectives::Group;
using collectives::ReduceOp;
using testing::engine;
using testing::max_critical_path;

Group world(bool as_torus = true) { return testing::world_group(1000, as_torus); }

int sweep_steps() {
  int s = 0;
  for (int d : engine().torus().dims()) s += d / 2;
  return s;
}

template <typename T>
ReduceOp sum_op() {
  ReduceOp op;
  op.elem_size = sizeof(T);
  op.combine = [](void* io, const void* in, std::size_t n, void*) {
    for (std::size_t i = 0; i < n; ++i) static_cast<T*>(io)[i] += static_cast<const T*>(in)[i];
  };
  return op;
}

// Element i of the sum of p vectors of n doubles (`all`, rank after rank)
// in binomial order, the shared-memory combine's: ranks lo..lo+span/2-1
// summed, then the rest of the span (absent past p) added.
double binomial_sum(const std::vector<double>& all, std::size_t n, std::size_t i, int p, int lo, int span) {
  if (span == 1) return all[static_cast<std::size_t>(lo) * n + i];
  const int half = span / 2;
  const double left = binomial_sum(all, n, i, p, lo, half);
  return lo + half >= p ? left : left + binomial_sum(all, n, i, p, lo + half, half);
}
double binomial_sum(const std::vector<double>& all, std::size_t n, std::size_t i, int p) {
  int span = 1;
  while (span < p) span *= 2;
  return binomial_sum(all, n, i, p, 0, span);
}

// Every rank's copy of `bytes` bytes is identical to rank 0's.
bool identical_everywhere(const Group& g, const void* buf, std::size_t bytes) {
  std::vector<char> all(bytes * g.size());
  EXPECT_EQ(collectives::gather(g, buf, all.data(), bytes, 0), mesh::Error::kOk);
  int same = 1;
  if (g.me == 0)
    for (int r = 1; r < g.size(); ++r) same &= std::memcmp(all.data(), all.data() + r * bytes, bytes) == 0;
  collectives::broadcast(g, &same, sizeof same, 0);
  return same == 1;
}

// On one host with shared memory a broadcast of up to smp_max_broadcast_bytes()
// goes through it (no message on the critical path); a longer one, or one
// across hosts or over tcp, is the axis sweep.
TEST(Collectives, BroadcastFromEveryRootInSumOfHalfDimsSteps) {
  Group g = world();
  const std::size_t smp_limit = engine().smp_available() ? engine().smp_max_broadcast_bytes() : 0;
  for (std::size_t n : {std::size_t{8}, std::size_t{8192}, std::size_t{8193}, std::size_t{100000}}) {
    for (int root = 0; root < g.size(); ++root) {
      std::vector<unsigned char> buf(n, 0);
      if (g.me == root)
        for (std::size_t i = 0; i < n; ++i) buf[i] = testing::pattern(root, i);
      ASSERT_EQ(collectives::broadcast(g, buf.data(), n, root), mesh::Error::kOk);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(buf[i], testing::pattern(root, i)) << "root " << root;
      const int path = g.size() == 1 || n <= smp_limit ? 0 : sweep_steps();
      EXPECT_EQ(max_critical_path(g), path) << "root " << root << ", " << n << " bytes";
    }
  }
}

// Broadcasts from changing roots in a row, more than the shared slots, with
// ranks that lag: every rank gets every root's bytes in order, and a root
// that runs ahead waits for the slot rather than overwriting it.
TEST(Collectives, BroadcastsInARowFromChangingRoots) {
  Group g = world();
  for (int rep = 0; rep < 300; ++rep) {
    const int root = (rep * 7) % g.size();
    const std::size_t n = 1 + static_cast<std::size_t>(rep * 37) % 3000;
    std::vector<unsigned char> buf(n, 0);
    if (g.me == root)
      for (std::size_t i = 0; i < n; ++i) buf[i] = testing::pattern(root + rep, i);
    if (g.me == rep % g.size() && rep % 50 == 0) usleep(20000);  // a slow reader
    ASSERT_EQ(collectives::broadcast(g, buf.data(), n, root), mesh::Error::kOk);
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(buf[i], testing::pattern(root + rep, i)) << "rep " << rep;
  }
}

// Receivers whose count is smaller than the root's: each gets kTruncate and
// the root's first bytes, on the shared-memory path and on the sweep, where
// the root's neighbours pass on one byte more than they hold, so those
// behind them are told too (collectives/forwarding.h). Every rank comes back
// (also where the sizes straddle the shared-memory limit) and the job goes
// on.
TEST(Collectives, BroadcastToAShortBufferIsTruncated) {
  Group g = world();
  if (g.size() == 1) GTEST_SKIP() << "one rank: nothing to receive";
  for (std::size_t n : {std::size_t{64}, std::size_t{12000}, std::size_t{20000}}) {
    std::vector<unsigned char> buf(n, 0);
    if (g.me == 0)
      for (std::size_t i = 0; i < n; ++i) buf[i] = testing::pattern(0, i);
    const std::size_t mine = g.me == 0 ? n : n / 2;
    const mesh::Error err = collectives::broadcast(g, buf.data(), mine, 0);
    if (g.me == 0) {
      EXPECT_EQ(err, mesh::Error::kOk) << n;
    } else {  // every other rank: those the root reached through another too
      EXPECT_EQ(err, mesh::Error::kTruncate) << n;
    }
    if (g.me != 0) {
      for (std::size_t i = 0; i < mine; ++i) ASSERT_EQ(buf[i], testing::pattern(0, i)) << n << " at " << i;
    }
    ASSERT_EQ(collectives::barrier(g), mesh::Error::kOk) << n;
  }
}

TEST(Collectives, ReduceToEveryRootMatchesSerialReference) {
  Group g = world();
  const int count = 37;
  std::vector<long long> mine(count);
  for (int i = 0; i < count; ++i) mine[i] = (g.me + 1) * 1000LL + i * (g.me % 3);
  std::vector<long long> all(count * g.size());
  collectives::gather(g, mine.data(), all.data(), count * sizeof(long long), 0);
  std::vector<long long> ref(count, 0);
  for (int r = 0; r < g.size(); ++r)
    for (int i = 0; i < count; ++i) ref[i] += all[r * count + i];
  collectives::broadcast(g, ref.data(), count * sizeof(long long), 0);
  for (int root = 0; root < g.size(); ++root) {
    std::vector<long long> buf = mine;
    ASSERT_EQ(collectives::reduce(g, buf.data(), count, sum_op<long long>(), root), mesh::Error::kOk);
    if (g.me == root) EXPECT_EQ(buf, ref) << "root " << root;
    else EXPECT_EQ(buf, mine) << "a non-root buffer changed";
  }
}

TEST(Collectives, AllreduceBothAlgorithmsExactAndBitIdentical) {
  Group g = world();
  for (CombineAlgorithm algo :
       {CombineAlgorithm::kDimensionExchange, CombineAlgorithm::kReduceBroadcast, CombineAlgorithm::kRing}) {
    for (int count : {1, 1000, 4099}) {
      std::vector<double> buf(count);
      for (int i = 0; i < count; ++i) buf[i] = 1.0 / (3 + g.me + i) + 1e-13 * g.me;
      std::vector<double> all(count * g.size());
      collectives::gather(g, buf.data(), all.data(), count * sizeof(double), 0);
      ASSERT_EQ(collectives::allreduce(g, buf.data(), count, sum_op<double>(), algo), mesh::Error::kOk);
      const int depth = max_critical_path(g);
      if (g.size() > 1 && (algo != CombineAlgorithm::kRing || count < g.size())) {
        EXPECT_EQ(depth, algo == CombineAlgorithm::kDimensionExchange ? sweep_steps() : 2 * sweep_steps());
      } else if (g.size() > 1) {
        EXPECT_EQ(depth, 2 * (g.size() - 1));  // the ring: p-1 steps each way
      }
      EXPECT_TRUE(identical_everywhere(g, buf.data(), count * sizeof(double)));
      if (g.me == 0)
        for (int i = 0; i < count; ++i) {
          double ref = 0;
          for (int r = 0; r < g.size(); ++r) ref += all[r * count + i];
          EXPECT_NEAR(buf[i], ref, 1e-14 * std::fabs(ref)) << i;
        }
    }
  }
}

// Two members: the automatic choice is the exchange (one message each way,
// one step) up to the ring's size, not reduce + broadcast (two steps); on
// one host from 8 KiB the staged shared-memory combine (no message).
TEST(Collectives, AllreduceOfTwoIsOneExchangeBelowTheRing) {
  Group g = world();
  if (g.size() != 2) GTEST_SKIP() << "two members only";
  for (int count : {300, 700, 1023, 2047}) {  // 2.3 .. 16 KiB of doubles
    std::vector<double> buf(count), all(2 * count);
    for (int i = 0; i < count; ++i) buf[i] = 1.0 / (3 + g.me + i);
    collectives::gather(g, buf.data(), all.data(), count * sizeof(double), 0);
    ASSERT_EQ(collectives::allreduce(g, buf.data(), count, sum_op<double>()), mesh::Error::kOk);
    const int depth = max_critical_path(g);
    if (depth != 0 || count * sizeof(double) < 8192) {
      EXPECT_EQ(depth, 1) << count << " doubles";
    }
    EXPECT_TRUE(identical_everywhere(g, buf.data(), count * sizeof(double)));
    if (g.me == 0) {
      for (int i = 0; i < count; ++i) EXPECT_NEAR(buf[i], all[i] + all[count + i], 1e-15) << i;
    }
  }
}

TEST(Collectives, AllreduceIsDeterministicAcrossRepeats) {
  Group g = world();
  std::vector<double> first;
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<double> buf(64);
    for (int i = 0; i < 64; ++i) buf[i] = std::sin(1.0 + g.me * 64 + i) * 1e8;
    collectives::allreduce(g, buf.data(), buf.size(), sum_op<double>());
    if (rep == 0) first = buf;
    else ASSERT_EQ(std::memcmp(first.data(), buf.data(), buf.size() * sizeof(double)), 0);
  }
}

TEST(Collectives, BarrierIsANullCombine) {
  Group g = world();
  ASSERT_EQ(collectives::barrier(g, CombineAlgorithm::kDimensionExchange), mesh::Error::kOk);
  EXPECT_EQ(max_critical_path(g), g.size() > 1 ? sweep_steps() : 0);
  ASSERT_EQ(collectives::barrier(g), mesh::Error::kOk);  // shared memory on one host
}

// The shared-memory combine (all ranks on this host): exact, bit-identical,
// deterministic, and no messages on the critical path.
TEST(Collectives, SharedMemoryCombine) {
  if (!mesh::Engine::get()->smp_available())
    GTEST_SKIP() << "no host-local shared-memory combine: the ranks do not all share a host and shm "
                    "(MESHMP_PROVIDER=tcp, or a job across hosts)";
  Group g = world();
  for (int rep = 0; rep < 50; ++rep) {
    std::vector<double> v(16);
    for (int i = 0; i < 16; ++i) v[i] = std::sin(g.me * 16.0 + i + rep) * 1e9;
    std::vector<double> all(16 * g.size());
    collectives::gather(g, v.data(), all.data(), v.size() * sizeof(double), 0);
    ASSERT_EQ(collectives::allreduce(g, v.data(), v.size(), sum_op<double>(), CombineAlgorithm::kSharedMemory),
              mesh::Error::kOk);
    EXPECT_EQ(collectives::last_critical_path(), 0);
    ASSERT_TRUE(identical_everywhere(g, v.data(), v.size() * sizeof(double)));
    if (g.me == 0) {
      for (int i = 0; i < 16; ++i) ASSERT_EQ(v[i], binomial_sum(all, 16, i, g.size())) << i;
    }
  }
  // Interleaved with barriers and exchanges, the alternating slots stay in step.
  for (int rep = 0; rep < 200; ++rep) {
    int x = g.me + rep;
    ASSERT_EQ(collectives::allreduce(g, &x, 1, sum_op<int>()), mesh::Error::kOk);
    ASSERT_EQ(x, g.size() * (g.size() - 1) / 2 + rep * g.size());
    if (rep % 3 == 0) {
      ASSERT_EQ(collectives::barrier(g), mesh::Error::kOk);
    }
  }
}

// Long vectors on one host: the reduce-scatter / all-gather through the
// staging buffers, over several chunks, with operations that may and may not
// be handed another rank's memory: the binomial-order sum exactly, bit-identical
// everywhere, no messages on the critical path.
TEST(Collectives, SharedMemoryStagedCombine) {
  if (!mesh::Engine::get()->smp_available())
    GTEST_SKIP() << "no host-local shared memory: the ranks do not all share a host and shm";
  Group g = world();
  for (bool keeps_in : {false, true}) {
    for (std::size_t count : {std::size_t{129}, std::size_t{1100}, std::size_t{40000}, std::size_t{100003}}) {
      if (g.size() == 2 && count * sizeof(double) < 8192) continue;  // 2 ranks: the exchange up to 8 KiB
      SCOPED_TRACE(std::to_string(count) + " doubles, keeps_in " + std::to_string(keeps_in));
      std::vector<double> v(count);
      for (std::size_t i = 0; i < count; ++i) v[i] = std::sin(g.me * 7.0 + static_cast<double>(i)) * 1e9;
      std::vector<double> all(count * g.size());
      collectives::gather(g, v.data(), all.data(), count * sizeof(double), 0);
      ReduceOp op = sum_op<double>();
      op.keeps_in = keeps_in;
      ASSERT_EQ(collectives::allreduce(g, v.data(), count, op), mesh::Error::kOk);
      EXPECT_EQ(max_critical_path(g), 0);
      ASSERT_TRUE(identical_everywhere(g, v.data(), count * sizeof(double)));
      if (g.me == 0) {
        for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(v[i], binomial_sum(all, count, i, g.size())) << i;
      }
    }
  }
}

// An associative, non-commutative operation (composition of affine maps x ->
// a*x + b, modulo 2^64) over several chunks comes out in group-rank order.
TEST(Collectives, SharedMemoryStagedCombineKeepsRankOrder) {
  Group g = world();
  struct Affine {
    std::uint64_t a, b;
  };
  ReduceOp op;
  op.elem_size = sizeof(Affine);
  op.commutative = false;
  op.combine = [](void* io, const void* in, std::size_t n, void*) {
    for (std::size_t i = 0; i < n; ++i) {  // io = io then in: x -> in(io(x))
      Affine& l = static_cast<Affine*>(io)[i];
      const Affine& r = static_cast<const Affine*>(in)[i];
      l = {r.a * l.a, r.a * l.b + r.b};
    }
  };
  const std::size_t count = 50001;  // 800 KB: four chunks
  auto mine = [&](int r, std::size_t i) { return Affine{2 * (r + i) + 3, r * 31 + i}; };
  std::vector<Affine> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = mine(g.me, i);
  ASSERT_EQ(collectives::allreduce(g, v.data(), count, op), mesh::Error::kOk);
  for (std::size_t i = 0; i < count; ++i) {
    Affine ref = mine(0, i);
    for (int r = 1; r < g.size(); ++r) {
      const Affine x = mine(r, i);
      ref = {x.a * ref.a, x.a * ref.b + x.b};
    }
    ASSERT_EQ(v[i].a, ref.a) << i;
    ASSERT_EQ(v[i].b, ref.b) << i;
  }
}

// Counts that differ between ranks (an erroneous program): whoever was given
// fewer elements than another gets kTruncate, the others kOk, and nobody
// hangs; the job goes on.
TEST(Collectives, LongAllreduceWithDifferentCountsIsTruncatedNotHung) {
  Group g = world();
  if (g.size() == 1) GTEST_SKIP() << "one rank";
  const std::size_t count = g.me == 1 ? 30000 : 40000;
  std::vector<double> v(40000, 1.0);
  const mesh::Error err = collectives::allreduce(g, v.data(), count, sum_op<double>());
  if (engine().smp_available()) {
    EXPECT_EQ(err, g.me == 1 ? mesh::Error::kTruncate : mesh::Error::kOk);
  }
  ASSERT_EQ(collectives::barrier(g), mesh::Error::kOk);
}

TEST(Collectives, AlltoallDeliversEveryBlock) {
  Group g = world();
  const std::size_t block = 3000;
  std::vector<unsigned char> send(block * g.size()), recv(block * g.size(), 0);
  for (int j = 0; j < g.size(); ++j)
    for (std::size_t i = 0; i < block; ++i) send[j * block + i] = testing::pattern(g.me, i, j);
  ASSERT_EQ(collectives::alltoall(g, send.data(), recv.data(), block), mesh::Error::kOk);
  for (int j = 0; j < g.size(); ++j)
    for (std::size_t i = 0; i < block; ++i)
      ASSERT_EQ(recv[j * block + i], testing::pattern(j, i, g.me)) << "from " << j;
}

// A group that is not a torus (the same ranks, no torus; and the odd ranks
// alone) uses the generic algorithms.
TEST(Collectives, GenericAlgorithmsOnNonTorusGroups) {
  for (bool odd_only : {false, true}) {
    Group g = world(/*as_torus=*/false);
    if (odd_only) {
      if (g.size() < 2) continue;
      std::vector<int> odd;
      for (int r = 1; r < g.size(); r += 2) odd.push_back(r);
      if (engine().rank() % 2 == 0) continue;
      g.ranks = odd;
      g.me = engine().rank() / 2;
      g.context = 2000;
    }
    int v = g.me + 1;
    ASSERT_EQ(collectives::allreduce(g, &v, 1, sum_op<int>()), mesh::Error::kOk);
    EXPECT_EQ(v, g.size() * (g.size() + 1) / 2);
    double d = g.me == g.size() - 1 ? 2.5 : 0;
    ASSERT_EQ(collectives::broadcast(g, &d, sizeof d, g.size() - 1), mesh::Error::kOk);
    EXPECT_EQ(d, 2.5);
    ASSERT_EQ(collectives::barrier(g), mesh::Error::kOk);
  }
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
