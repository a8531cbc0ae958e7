// One-sided flag windows (Engine::open_flag_window, issue 31) and the
// barriers over them (collectives/flag_barrier.h), on engines in threads
// over the loopback provider: where a write lands, a write still in flight
// (a put that completes later) keeping its source line, the mistakes that
// throw, and the flat tree combined with recursive doubling on simulated
// hosts, checked by ordering.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "collectives/flag_barrier.h"
#include "tests/support/loopback_provider.h"

namespace meshmp {
namespace {

using mesh::Engine;
using mesh::Error;
using testing_support::LoopbackFabric;

void expect_no_errors(const std::vector<std::string>& errors) {
  for (std::size_t r = 0; r < errors.size(); ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
}

TEST(FlagWindow, AWriteLandsInItsLineOfThePeersWindowOnly) {
  constexpr int n = 3;
  LoopbackFabric fabric(n, 8, 1024);
  std::vector<Engine::FlagTarget> to_left(n);  // rank r's target for rank r-1
  std::barrier sync(n);
  expect_no_errors(fabric.run([&](Engine& e, int r) {
    const int w = e.open_flag_window(4);
    ASSERT_GE(w, 0);
    const int right = (r + 1) % n, left = (r + n - 1) % n;
    to_left[r] = e.flag_target(w, left);
    EXPECT_EQ(to_left[r].n, 4u);
    sync.arrive_and_wait();
    e.set_flag_target(w, right, to_left[right]);
    ASSERT_EQ(e.write_flag(w, right, 2, 5), Error::kOk);
    ASSERT_EQ(e.wait_flag(w, 2, 5, left), Error::kOk);
    EXPECT_EQ(e.read_flag(w, 2), 5u);
    for (int i : {0, 1, 3}) EXPECT_EQ(e.read_flag(w, i), 0u) << i;
    sync.arrive_and_wait();  // (every rank has looked before anyone writes again)
    // Larger numbers later; a wait for an older one is over at once.
    ASSERT_EQ(e.write_flag(w, right, 3, std::uint64_t{1} << 40), Error::kOk);
    ASSERT_EQ(e.wait_flag(w, 3, std::uint64_t{1} << 40, left), Error::kOk);
    EXPECT_EQ(e.wait_flag(w, 2, 4, left), Error::kOk);
    // Mistakes: an index beyond the peer's window, a peer with no target,
    // a window that is not open.
    EXPECT_THROW(e.write_flag(w, right, 4, 9), std::logic_error);
    EXPECT_THROW(e.write_flag(w, left, 0, 9), std::logic_error);
    EXPECT_THROW(e.read_flag(w + 7, 0), std::logic_error);
    sync.arrive_and_wait();  // (every write has landed before any window closes)
    e.close_flag_window(w);
    EXPECT_THROW(e.read_flag(w, 0), std::logic_error);
  }));
}

TEST(FlagWindow, AWriteInFlightKeepsItsSourceLineUntilItCompletes) {
  LoopbackFabric fabric(2, 8, 1024);
  std::vector<Engine::FlagTarget> targets(2);
  std::barrier sync(2);
  std::atomic<bool> second_issued{false};
  expect_no_errors(fabric.run([&](Engine& e, int r) {
    const int w = e.open_flag_window(2);
    targets[r] = e.flag_target(w, 1 - r);
    sync.arrive_and_wait();
    e.set_flag_target(w, 1 - r, targets[1 - r]);
    if (r == 0) {
      fabric.set_put_mode(LoopbackFabric::PutMode::kDeferred);
      ASSERT_EQ(e.write_flag(w, 1, 0, 5), Error::kOk);  // accepted, not yet there
      sync.arrive_and_wait();
      // Another value for the same line: only once the first write completed.
      ASSERT_EQ(e.write_flag(w, 1, 0, 6), Error::kOk);
      second_issued = true;
      sync.arrive_and_wait();
    } else {
      sync.arrive_and_wait();
      EXPECT_EQ(fabric.deferred_puts(), 1);
      EXPECT_EQ(e.read_flag(w, 0), 0u);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      EXPECT_FALSE(second_issued.load()) << "the source line was rewritten while its put was in flight";
      EXPECT_EQ(fabric.deferred_puts(), 1);
      fabric.complete_deferred();  // 5 lands; its completion frees the line
      ASSERT_EQ(e.wait_flag(w, 0, 5, 0), Error::kOk);
      while (fabric.deferred_puts() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      fabric.set_put_mode(LoopbackFabric::PutMode::kImmediate);
      fabric.complete_deferred();
      ASSERT_EQ(e.wait_flag(w, 0, 6, 0), Error::kOk);
      sync.arrive_and_wait();
    }
  }));
  const std::vector<std::string> log = fabric.log();
  EXPECT_EQ(std::count(log.begin(), log.end(), "0>1 put-complete"), 2);
}

// Ranks 0,1,2 on one host, 3,4 on another, 5 alone: the flat tree on each,
// recursive doubling among 0, 3 and 5 (a group of three: the fold).
TEST(FlagBarrier, FlatTreesOnHostsAndRecursiveDoublingBetweenThemKeepEveryoneUntilAllEntered) {
  constexpr int n = 6;
  LoopbackFabric fabric(n, 8, 1024);
  fabric.set_hosts({0, 0, 0, 1, 1, 2});
  std::vector<std::atomic<std::uint64_t>> entered(n);
  expect_no_errors(fabric.run([&](Engine& e, int r) {
    for (const std::vector<int>& order : {std::vector<int>{0, 1, 2, 3, 4, 5}, std::vector<int>{4, 1, 5, 3, 0, 2}}) {
      for (mesh::BarrierChoice how : {mesh::BarrierChoice::kFlat, mesh::BarrierChoice::kRdma}) {
        collectives::Group g;
        g.engine = &e;
        g.context = 21;
        g.ranks = order;
        g.me = static_cast<int>(std::find(order.begin(), order.end(), r) - order.begin());
        for (std::uint64_t i = 1; i <= 100; ++i) {
          const std::uint64_t stamp = entered[r].load() + 1;
          if (i % 10 == 0 && r == static_cast<int>(i / 10) % n)
            std::this_thread::sleep_for(std::chrono::microseconds(300));
          entered[r].store(stamp);
          ASSERT_EQ(collectives::flag_barrier(g, how), Error::kOk);
          for (int q = 0; q < n; ++q) ASSERT_GE(entered[q].load(), stamp) << "rank " << q << " had not entered";
        }
      }
    }
  }));
}

}  // namespace
}  // namespace meshmp
