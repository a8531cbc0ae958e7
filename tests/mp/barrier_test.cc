// The barriers (issue 31; collectives/flag_barrier.h, collectives.h) checked
// by ordering: every rank stamps "entered barrier i" into a file all ranks of
// the job map (they share this machine, namespaces or not) before it enters,
// and after it leaves checks that every rank's stamp has reached i. One rank
// in turn dawdles before entering, so a barrier that let anyone through
// early would be caught. Recursive doubling and the flat tree over flag
// windows, the message exchange and the shared-memory combine; on the world
// in rank order, in reverse order and on a subgroup; a million barriers on
// two ranks.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "collectives/collectives.h"
#include "collectives/flag_barrier.h"
#include "tests/mp/rank_main.h"
#include "tests/mp/world_group.h"

namespace meshmp {
namespace {

using collectives::CombineAlgorithm;
using collectives::Group;
using mesh::BarrierChoice;
using testing::engine;

// Stamps of every world rank, a cache line each, in regions of kMaxRanks
// (one per test, so no test sees another's stamps).
constexpr int kMaxRanks = 64, kRegions = 16;

class Probe {
 public:
  Probe() {
    const char* dir = std::getenv("TEST_TMPDIR");
    const char* job = std::getenv("MESHMP_JOB");
    path_ = std::string(dir && *dir ? dir : "/tmp") + "/barrier-probe-" + (job ? job : "solo");
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    EXPECT_GE(fd, 0) << path_;
    EXPECT_EQ(::ftruncate(fd, kBytes), 0);
    void* p = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    EXPECT_NE(p, MAP_FAILED);
    base_ = static_cast<char*>(p);
  }
  ~Probe() {
    ::munmap(base_, kBytes);
    ::unlink(path_.c_str());  // (every rank: the first one removes it)
  }
  std::atomic_ref<std::uint64_t> stamp(int region, int rank) {
    return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(base_ + (region * kMaxRanks + rank) * 64));
  }

 private:
  static constexpr std::size_t kBytes = std::size_t{kRegions} * kMaxRanks * 64;
  std::string path_;
  char* base_ = nullptr;
};

Probe& probe() {
  static Probe p;
  return p;
}

// `iters` barriers of g by `run`, each checked by the stamps of `region`.
template <typename Barrier>
void check_ordering(const Group& g, int region, int iters, Barrier run, int dawdle_every = 16) {
  ASSERT_LE(engine().size(), kMaxRanks);
  const int me = g.ranks[g.me];
  for (int i = 1; i <= iters; ++i) {
    if (g.size() > 1 && i % dawdle_every == 0 && g.me == (i / dawdle_every) % g.size()) ::usleep(300);
    probe().stamp(region, me).store(static_cast<std::uint64_t>(i), std::memory_order_release);
    ASSERT_EQ(run(), mesh::Error::kOk) << "barrier " << i;
    for (int r : g.ranks) {
      const std::uint64_t seen = probe().stamp(region, r).load(std::memory_order_acquire);
      ASSERT_GE(seen, static_cast<std::uint64_t>(i)) << "left barrier " << i << " before rank " << r << " entered it";
    }
  }
}

int iterations() { return std::max(64, 2048 / engine().size()); }

Group world() { return testing::world_group(1100); }

TEST(Barrier, RecursiveDoublingOverFlagWindowsKeepsEveryoneUntilAllEntered) {
  const Group g = world();
  check_ordering(g, 0, iterations(), [&] { return collectives::flag_barrier(g, BarrierChoice::kRdma); });
}

TEST(Barrier, FlatTreeOverFlagWindowsKeepsEveryoneUntilAllEntered) {
  const Group g = world();
  check_ordering(g, 1, iterations(), [&] { return collectives::flag_barrier(g, BarrierChoice::kFlat); });
}

TEST(Barrier, ExchangeAndSharedMemoryCombineAndTheDefaultToo) {
  const Group g = world();
  check_ordering(g, 2, iterations(), [&] { return collectives::barrier(g, CombineAlgorithm::kDimensionExchange); });
  check_ordering(g, 3, iterations(), [&] { return collectives::barrier(g, CombineAlgorithm::kSharedMemory); });
  check_ordering(g, 4, iterations(), [&] { return collectives::barrier(g); });
}

TEST(Barrier, AutoTakesRecursiveDoublingFromFourRanksWithACoreEachElseTheCombine) {
  // BUILD's barrier_auto_* layouts set MESHMP_YIELD: 0 says each rank has a
  // core, 1 that ranks share them.
  const char* yield = std::getenv("MESHMP_YIELD");
  if (!yield) GTEST_SKIP() << "for the layouts that set MESHMP_YIELD";
  const Group g = world();
  const bool core_each = std::string(yield) == "0";
  const BarrierChoice want = core_each && g.size() >= 4 ? BarrierChoice::kRdma : BarrierChoice::kCombine;
  EXPECT_EQ(collectives::auto_barrier(g), want);
  // A subgroup is not the whole job: the shared-memory paths do not apply.
  Group alone = testing::world_group(1108, false);
  alone.ranks = {engine().rank()};
  alone.me = 0;
  if (g.size() > 1) {
    EXPECT_EQ(collectives::auto_barrier(alone), BarrierChoice::kExchange);
  }
  check_ordering(g, 10, iterations(), [&] { return collectives::barrier(g); });
}

TEST(Barrier, FlagBarriersInterleaveWithOtherCollectivesOnOneContext) {
  // The window's set-up messages share the collective context with the
  // other collectives' traffic, before and after it.
  const Group g = testing::world_group(1102);
  for (int i = 0; i < 20; ++i) {
    int v = g.me == i % g.size() ? 1000 + i : -1;
    ASSERT_EQ(collectives::broadcast(g, &v, sizeof v, i % g.size()), mesh::Error::kOk);
    ASSERT_EQ(v, 1000 + i);
    ASSERT_EQ(collectives::flag_barrier(g, i % 2 ? BarrierChoice::kRdma : BarrierChoice::kFlat), mesh::Error::kOk);
  }
}

TEST(Barrier, GroupsInReverseOrderAndSubgroups) {
  Group rev = testing::world_group(1104, false);
  std::reverse(rev.ranks.begin(), rev.ranks.end());
  rev.me = rev.size() - 1 - rev.me;
  check_ordering(rev, 5, iterations() / 2, [&] { return collectives::flag_barrier(rev, BarrierChoice::kRdma); });
  check_ordering(rev, 6, iterations() / 2, [&] { return collectives::flag_barrier(rev, BarrierChoice::kFlat); });
  // The even ranks alone, while the odd ones wait for them at a world barrier.
  if (engine().rank() % 2 == 0) {
    Group even = testing::world_group(1106, false);
    even.ranks.clear();
    for (int r = 0; r < engine().size(); r += 2) even.ranks.push_back(r);
    even.me = engine().rank() / 2;
    check_ordering(even, 7, iterations() / 2, [&] { return collectives::flag_barrier(even, BarrierChoice::kRdma); });
    check_ordering(even, 8, iterations() / 2, [&] { return collectives::flag_barrier(even, BarrierChoice::kFlat); });
  }
  ASSERT_EQ(collectives::flag_barrier(world(), BarrierChoice::kRdma), mesh::Error::kOk);
}

TEST(Barrier, AMillionBarriersOnTwoRanks) {
  if (engine().size() != 2) GTEST_SKIP() << "two ranks only";
  const char* provider = std::getenv("MESHMP_PROVIDER");
  const bool shm = !provider || std::string(provider) == "shm" || std::string(provider) == "auto";
  const Group g = world();
  // 64-bit sequence numbers: nothing is reset or wraps on the way.
  check_ordering(
      g, 9, shm ? 1000000 : 20000, [&] { return collectives::flag_barrier(g, BarrierChoice::kRdma); }, 4096);
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
