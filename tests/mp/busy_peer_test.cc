// A rank that computes for a while without calling into meshmp is alive:
// the link timeout (MESHMP_TCP_TIMEOUT_MS, here 1 s) must not fail its
// links, on any provider (issue 28: ofi's heartbeats are answered without
// the peer's process).
#include <unistd.h>

#include <cstring>
#include <vector>

#include "tests/mp/rank_main.h"

namespace meshmp {
namespace {

using testing::engine;

TEST(BusyPeer, FourSecondsWithoutACallDoNotFailItsLinks) {
  mesh::Engine& e = engine();
  ASSERT_EQ(e.size(), 2);
  char token[8] = "warm";
  // The links are up and in use first.
  if (e.rank() == 0) {
    e.wait(e.isend(token, sizeof token, 1, 1, 0), nullptr);
  } else {
    e.wait(e.irecv(token, sizeof token, 0, 1, 0), nullptr);
  }
  if (e.rank() == 1) ::sleep(4);  // "computing": no call into meshmp
  mesh::Status st;
  if (e.rank() == 1) {
    std::strcpy(token, "late");
    e.send(token, sizeof token, 0, 2, 0, mesh::SendMode::kStandard, &st);
  } else {
    e.wait(e.irecv(token, sizeof token, 1, 2, 0), &st);
    EXPECT_STREQ(token, "late");
  }
  EXPECT_EQ(st.error, mesh::Error::kOk) << "rank " << e.rank();
}

// The same with a large transfer under way into the computing rank (issue
// 29): its socket fills and its window closes, and the sender waits on a
// zero window for seconds -- which is not a dead peer (Linux's
// TCP_USER_TIMEOUT counts it as one: the link used to fail after 1 s).
TEST(BusyPeer, AStalledTransferIntoAComputingRankDoesNotFailItsLink) {
  mesh::Engine& e = engine();
  ASSERT_EQ(e.size(), 2);
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  std::vector<unsigned char> buf(kBytes);
  mesh::Status st;
  if (e.rank() == 0) {
    for (std::size_t i = 0; i < kBytes; ++i) buf[i] = static_cast<unsigned char>(i * 13 + 5);
    e.send(buf.data(), kBytes, 1, 3, 0, mesh::SendMode::kStandard, &st);
  } else {
    mesh::Request* r = e.irecv(buf.data(), kBytes, 0, 3, 0);
    // Progress until the transfer has begun arriving, then compute.
    for (int i = 0; i < 200000 && !e.test(r, &st) && buf[kBytes / 2] == 0 && buf[1] == 0; ++i) ::usleep(10);
    ::sleep(4);  // "computing" with the sender's bytes stalled on us
    if (!e.test(r, &st)) e.wait(r, &st);
    for (std::size_t i = 0; i < kBytes; i += 4093) ASSERT_EQ(buf[i], static_cast<unsigned char>(i * 13 + 5)) << i;
  }
  EXPECT_EQ(st.error, mesh::Error::kOk) << "rank " << e.rank();
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
