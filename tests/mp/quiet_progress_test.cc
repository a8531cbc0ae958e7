// The progress path of a job on one host makes no system call: two ranks
// that ping-pong over shared memory poll their links in memory and, when
// they have waited long enough, sleep on shm's doorbell -- they never ask
// the kernel whether something came (issue 32: the tcp provider, opened
// beside shm but serving no peer, made an epoll_wait per progress round,
// which took the 8-byte latency from 0.4 to 1.07 us on the 2-core machine).
#include <cstdint>

#include "tests/mp/rank_main.h"
#include "tests/support/poll_counter.h"

namespace meshmp {
namespace {

using testing::engine;
using testing_support::nonblocking_polls;

TEST(QuietProgress, AShmPingPongMakesNoNonBlockingPoll) {
  mesh::Engine& e = engine();
  ASSERT_GE(e.size(), 2);
  if (e.rank() > 1) return;
  const int peer = 1 - e.rank();
  char out[8] = {1, 2, 3, 4, 5, 6, 7, 8}, in[8] = {};
  constexpr int kRoundTrips = 2000;
  const std::uint64_t before = nonblocking_polls();
  for (int i = 0; i < kRoundTrips; ++i) {
    if (e.rank() == 0) {
      e.wait(e.isend(out, 8, peer, 1, 0), nullptr);
      e.wait(e.irecv(in, 8, peer, 2, 0), nullptr);
    } else {
      e.wait(e.irecv(in, 8, peer, 1, 0), nullptr);
      e.wait(e.isend(out, 8, peer, 2, 0), nullptr);
    }
  }
  EXPECT_EQ(in[7], 8);
  EXPECT_EQ(nonblocking_polls() - before, 0u) << "non-blocking polls in " << kRoundTrips << " round trips";
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
