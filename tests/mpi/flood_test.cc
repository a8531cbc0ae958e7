// Floods (issue 14, item 10): a rank sends thousands of nonblocking messages
// of mixed sizes to a partner that is not receiving yet. Run with
// MESHMP_UNEXPECTED_LIMIT = 1 MiB, so the floods are many times the limit.
// - The partner receives them in reverse order: every message stands behind
//   more unexpected eager data than the limit, and must still arrive (a
//   posted receive always meets its message, MPI-1.1 §3.7.4).
// - While no receive is posted, the partner buffers no more than the limit:
//   its memory stays bounded, and the flood waits in the sender.
// - Empty messages count too: a million of them stay within the limit.
// - The sender completes its requests by MPI_Waitany, MPI_Testany,
//   MPI_Waitsome and MPI_Testsome loops: each index exactly once.
// - An MPI_Iprobe loop sees a message it matches that comes while the
//   buffer is full.
#include <mpi.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"
#include "tests/support/memory.h"

namespace {

using mpitest::partner;
using mpitest::rank;
using mpitest::sender;

// Sizes around the eager limit and far above it.
constexpr int kSizes[] = {0, 8, 1000, 16000, 16383, 16384, 70000, 5, 12000};
constexpr int kNumSizes = sizeof kSizes / sizeof kSizes[0];

int size_of(int i) { return kSizes[i % kNumSizes]; }

void stamp(std::vector<char>& b, int i) {
  for (std::size_t k = 0; k < b.size(); ++k) b[k] = static_cast<char>(i * 7 + k);
}

using meshmp::testing_support::max_rss_kib;

TEST(Flood, ReverseOrderReceivesGetThroughFloodsBeyondTheLimit) {
  const int other = partner();
  if (other == rank()) return;
  constexpr int kCount = 3000;  // about 16 MB of eager data: 16 times the limit
  if (sender()) {
    std::vector<std::vector<char>> bufs(kCount);
    std::vector<MPI_Request> r(kCount);
    for (int i = 0; i < kCount; ++i) {
      bufs[i].resize(static_cast<std::size_t>(size_of(i)));
      stamp(bufs[i], i);
      MPI_Isend(bufs[i].data(), size_of(i), MPI_CHAR, other, i, MPI_COMM_WORLD, &r[i]);
    }
    MPI_Waitall(kCount, r.data(), MPI_STATUSES_IGNORE);
  } else {
    ::usleep(200000);  // the flood fills the slots and waits
    std::vector<char> got, want;
    for (int i = kCount - 1; i >= 0; --i) {
      got.assign(static_cast<std::size_t>(size_of(i)), 0);
      want.resize(got.size());
      stamp(want, i);
      MPI_Status st;
      ASSERT_EQ(MPI_Recv(got.data(), size_of(i), MPI_CHAR, other, i, MPI_COMM_WORLD, &st), MPI_SUCCESS);
      ASSERT_EQ(got, want) << "message " << i;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// While no receive waits, unexpected eager data stops at the limit: 64 MB
// offered, the receiver's memory grows by far less; then it all arrives.
TEST(Flood, NoReceivePostedMemoryStaysBounded) {
  const int other = partner();
  if (other == rank()) return;
  constexpr int kCount = 4000;
  constexpr int kBytes = 16000;  // eager: 64 MB in all
  if (sender()) {
    std::vector<char> buf(kBytes, 'x');
    std::vector<MPI_Request> r(kCount);
    for (int i = 0; i < kCount; ++i) MPI_Isend(buf.data(), kBytes, MPI_CHAR, other, 1, MPI_COMM_WORLD, &r[i]);
    MPI_Waitall(kCount, r.data(), MPI_STATUSES_IGNORE);
  } else {
    const long before = max_rss_kib();
    // Progress without a receive for this flood: probes for a tag never sent.
    for (int k = 0; k < 20000; ++k) {
      int flag = 0;
      MPI_Iprobe(other, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      if (k % 1000 == 0) ::usleep(1000);
    }
    EXPECT_RSS_GROWTH_BELOW(before, 16 * 1024) << "unexpected data beyond the 1 MiB limit was buffered";
    std::vector<char> got(kBytes);
    for (int i = 0; i < kCount; ++i)
      ASSERT_EQ(MPI_Recv(got.data(), kBytes, MPI_CHAR, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Empty messages cost memory too (issue 15, item 7): a million 0-byte
// messages to a rank that does not receive them stay within the 1 MiB
// limit, and then all arrive.
TEST(Flood, AMillionEmptyMessagesStayUnderTheLimit) {
  const int other = partner();
  if (other == rank()) return;
  // Under ASan the memory bound is not checked (see EXPECT_RSS_GROWTH_BELOW)
  // and each message costs ~10x more: a fifth of the flood checks delivery.
  const int count = (mpitest::size() == 2 ? 1000000 : 200000) / (meshmp::testing_support::kAddressSanitizer ? 5 : 1);
  if (sender()) {
    for (int i = 0; i < count; ++i) ASSERT_EQ(MPI_Send(nullptr, 0, MPI_CHAR, other, 1, MPI_COMM_WORLD), MPI_SUCCESS);
  } else {
    const long before = max_rss_kib();
    // Progress for a second without a receive for the flood.
    const double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 1.0) {
      int flag = 0;
      MPI_Iprobe(other, 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    // (Counting payload bytes only, as before, this grew 13.8 MB in the
    // second; counting each record it stays near the 1 MiB limit.)
    EXPECT_RSS_GROWTH_BELOW(before, 4 * 1024) << "empty unexpected messages grew beyond the limit";
    for (int i = 0; i < count; ++i)
      ASSERT_EQ(MPI_Recv(nullptr, 0, MPI_CHAR, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// A flood beyond the limit stalls its link; a frame behind it that the
// flooded rank waits for -- the CTS of its own large send, the SYNC_ACK of
// its synchronous one -- must still get through, for the flooder has posted
// the matching receive (MPI-1.1 §3.5: of a matched send and receive, at
// least one completes; a synchronous send, once the receive has started).
// Both hung before: the flooded rank, waiting in its send with no receive
// posted, buffered nothing beyond the limit and never saw the reply.
void send_back_through_a_flood(int bytes, bool synchronous) {
  const int other = partner();
  if (other == rank()) return;
  constexpr int kCount = 300;
  constexpr int kFlood = 16000;  // eager: 4.8 MB, the limit 1 MiB
  std::vector<char> back(static_cast<std::size_t>(bytes));
  if (sender()) {
    std::vector<std::vector<char>> bufs(kCount);
    std::vector<MPI_Request> r(kCount);
    for (int i = 0; i < kCount; ++i) {
      bufs[i].resize(kFlood);
      stamp(bufs[i], i);
      MPI_Isend(bufs[i].data(), kFlood, MPI_CHAR, other, 1, MPI_COMM_WORLD, &r[i]);
    }
    MPI_Status st;
    ASSERT_EQ(MPI_Recv(back.data(), bytes, MPI_CHAR, other, 3, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    std::vector<char> want(back.size());
    stamp(want, 77);
    EXPECT_EQ(back, want);
    MPI_Waitall(kCount, r.data(), MPI_STATUSES_IGNORE);
  } else {
    stamp(back, 77);
    ASSERT_EQ((synchronous ? MPI_Ssend : MPI_Send)(back.data(), bytes, MPI_CHAR, other, 3, MPI_COMM_WORLD), MPI_SUCCESS);
    std::vector<char> got(kFlood), want(kFlood);
    for (int i = 0; i < kCount; ++i) {
      ASSERT_EQ(MPI_Recv(got.data(), kFlood, MPI_CHAR, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
      stamp(want, i);
      ASSERT_EQ(got, want) << "message " << i;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Flood, ALargeSendGetsItsCtsFromBehindAFloodBeyondTheLimit) { send_back_through_a_flood(200000, false); }

TEST(Flood, ASynchronousSendGetsItsAckFromBehindAFloodBeyondTheLimit) { send_back_through_a_flood(8, true); }

// A rank whose unexpected buffer is full of one sender's flood busy-waits
// with MPI_Iprobe for a message of another's (MPI-1.1 §3.8: it must
// eventually see it). The probe matches that message, which stands first
// on its own link: it is taken beyond the limit, as a posted receive's
// would be. Before, it stayed in its slot and the loop never ended. (A
// message behind the flood on the flooder's own link stays unseen:
// docs/mpi.md's deviations.) Ranks 0, 1 and 2, where there are three.
TEST(Flood, AnIprobeLoopSeesAMessageItMatchesBeyondTheLimit) {
  if (mpitest::size() < 3) return;
  // Short messages, so that the buffer fills to within one message's cost
  // (its bytes and a record: 20000 of them are about 4 MB at a 1 MiB
  // limit), and rank 2's longer one cannot fit.
  constexpr int kCount = 20000;
  constexpr int kFlood = 8;
  constexpr int kProbed = 64;  // ints
  if (rank() == 0) {
    std::vector<char> buf(kFlood, 'f');
    std::vector<MPI_Request> r(kCount);
    for (int i = 0; i < kCount; ++i) MPI_Isend(buf.data(), kFlood, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &r[i]);
    // Rank 2 sends once the flood has had time to fill rank 1's buffer.
    MPI_Send(nullptr, 0, MPI_CHAR, 2, 4, MPI_COMM_WORLD);
    MPI_Waitall(kCount, r.data(), MPI_STATUSES_IGNORE);
  } else if (rank() == 2) {
    MPI_Recv(nullptr, 0, MPI_CHAR, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ::usleep(200000);
    std::vector<int> v(kProbed, 42);
    MPI_Send(v.data(), kProbed, MPI_INT, 1, 2, MPI_COMM_WORLD);
  } else if (rank() == 1) {
    int flag = 0;
    MPI_Status st;
    for (const double t0 = MPI_Wtime(); !flag && MPI_Wtime() - t0 < 30;)
      MPI_Iprobe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &flag, &st);
    ASSERT_TRUE(flag) << "30 s of MPI_Iprobe did not see rank 2's message";
    EXPECT_EQ(st.MPI_SOURCE, 2);
    std::vector<int> v(kProbed);
    MPI_Recv(v.data(), kProbed, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_EQ(v, std::vector<int>(kProbed, 42));
    std::vector<char> got(kFlood);
    for (int i = 0; i < kCount; ++i) MPI_Recv(got.data(), kFlood, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

enum class Loop { kWaitany, kTestany, kWaitsome, kTestsome };

// Completes every request of r by `loop`; returns how often each index was
// reported complete.
std::vector<int> complete_by(Loop loop, std::vector<MPI_Request>& r) {
  const int n = static_cast<int>(r.size());
  std::vector<int> seen(r.size(), 0), idx(r.size());
  for (int left = n; left > 0;) {
    int index = MPI_UNDEFINED, flag = 0, out = 0;
    switch (loop) {
      case Loop::kWaitany:
        MPI_Waitany(n, r.data(), &index, MPI_STATUS_IGNORE);
        break;
      case Loop::kTestany:
        MPI_Testany(n, r.data(), &index, &flag, MPI_STATUS_IGNORE);
        if (!flag) index = MPI_UNDEFINED;
        break;
      case Loop::kWaitsome:
      case Loop::kTestsome:
        (loop == Loop::kWaitsome ? MPI_Waitsome : MPI_Testsome)(n, r.data(), &out, idx.data(), MPI_STATUSES_IGNORE);
        for (int k = 0; k < out; ++k) ++seen[idx[k]];
        left -= out;
        break;
    }
    if (index != MPI_UNDEFINED) {
      ++seen[index];
      --left;
    }
  }
  return seen;
}

TEST(Flood, AnyAndSomeLoopsFindEveryRequestOnce) {
  const int other = partner();
  if (other == rank()) return;
  constexpr int kCount = 2000;
  for (Loop loop : {Loop::kWaitany, Loop::kTestany, Loop::kWaitsome, Loop::kTestsome}) {
    SCOPED_TRACE(static_cast<int>(loop));
    std::vector<std::vector<char>> bufs(kCount);
    std::vector<MPI_Request> r(kCount);
    for (int i = 0; i < kCount; ++i) {
      bufs[i].resize(static_cast<std::size_t>(size_of(i)));
      if (sender()) {
        stamp(bufs[i], i);
        MPI_Isend(bufs[i].data(), size_of(i), MPI_CHAR, other, i, MPI_COMM_WORLD, &r[i]);
      }
    }
    if (!sender()) {
      ::usleep(100000);  // the sender's loop starts with nothing complete
      for (int i = 0; i < kCount; ++i)
        MPI_Irecv(bufs[i].data(), size_of(i), MPI_CHAR, other, i, MPI_COMM_WORLD, &r[i]);
    }
    const std::vector<int> seen = complete_by(loop, r);
    for (int i = 0; i < kCount; ++i) ASSERT_EQ(seen[i], 1) << "request " << i;
    for (MPI_Request h : r) ASSERT_EQ(h, MPI_REQUEST_NULL);
    if (!sender()) {
      std::vector<char> want;
      for (int i = 0; i < kCount; ++i) {
        want.resize(bufs[i].size());
        stamp(want, i);
        ASSERT_EQ(bufs[i], want) << "message " << i;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

}  // namespace

MPI_TEST_MAIN()
