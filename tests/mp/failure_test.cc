// A link failure reaches both ends (issue 15, item 3): data one rank
// rejects closes the link on both sides, and every call waiting on it fails
// instead of hanging; a message whose bytes cannot be moved fails on both
// sides and leaves the link up. Run on 2 ranks, one test per job (a closed
// link stays closed): see BUILD.
#include <sys/mman.h>

#include <cstring>
#include <vector>

#include "tests/mp/rank_main.h"

namespace meshmp {
namespace {

using mesh::Error;
using mesh::Status;
using testing::engine;

// Rank 0 sends a frame rank 1 must reject; both ends see the link fail. An
// eager send completes when written, before the receiver looks at it; a
// rendezvous send waits, and fails.
void rejected_by_the_receiver(std::size_t len, int tag, bool eager) {
  mesh::Engine& e = engine();
  ASSERT_EQ(e.size(), 2);
  char buf[64] = {};
  Status st;
  if (e.rank() == 0) {
    e.wait(e.isend(buf, len, 1, tag, 0), &st);
  } else {
    e.wait(e.irecv(buf, sizeof buf, 0, mesh::kAnyTag, 0), &st);
  }
  if (e.rank() == 1 || !eager) {
    EXPECT_EQ(st.error, Error::kProtocol) << "rank " << e.rank();
  }
  // And the next call with the peer fails (the sender learns it from the
  // receiver's notice) instead of waiting.
  Status again;
  e.wait(e.irecv(buf, sizeof buf, 1 - e.rank(), 1, 0), &again);
  EXPECT_EQ(again.error, Error::kProtocol);
}

TEST(LinkFailure, AnRtsLongerThanAnyBufferFailsBothEnds) { rejected_by_the_receiver(std::size_t{1} << 62, 5, false); }

TEST(LinkFailure, ANegativeTagOnTheWireFailsBothEnds) { rejected_by_the_receiver(8, -5, true); }

// The sender's buffer is gone (unmapped): the rendezvous write fails, the
// send and the receive both fail, and the link carries the next message.
TEST(LinkFailure, ABadSendBufferFailsThatMessageOnBothEnds) {
  mesh::Engine& e = engine();
  ASSERT_EQ(e.size(), 2);
  constexpr std::size_t kLen = 1 << 20;
  Status st;
  if (e.rank() == 0) {
    void* gone = ::mmap(nullptr, kLen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(gone, MAP_FAILED);
    ::munmap(gone, kLen);
    e.wait(e.isend(gone, kLen, 1, 3, 0), &st);
  } else {
    std::vector<char> in(kLen);
    e.wait(e.irecv(in.data(), kLen, 0, 3, 0), &st);
  }
  EXPECT_EQ(st.error, Error::kProtocol) << "rank " << e.rank();
  int v = 41 + e.rank(), w = 0;
  Status s2, r2;
  mesh::Request* r = e.irecv(&w, sizeof w, 1 - e.rank(), 4, 0);
  e.send(&v, sizeof v, 1 - e.rank(), 4, 0, mesh::SendMode::kStandard, &s2);
  e.wait(r, &r2);
  EXPECT_EQ(r2.error, Error::kOk);
  EXPECT_EQ(w, 41 + (1 - e.rank()));
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
