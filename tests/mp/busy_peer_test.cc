// A rank that computes for a while without calling into meshmp is alive:
// the link timeout (MESHMP_TCP_TIMEOUT_MS, here 1 s) must not fail its
// links, on any provider (issue 28: ofi's heartbeats are answered without
// the peer's process).
#include <unistd.h>

#include <cstring>

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

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
