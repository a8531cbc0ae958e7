// MPI-3.1 §3.8.2, matched probe: MPI_Mprobe/MPI_Improbe take the message
// they find, so no other receive or probe can match it, and
// MPI_Mrecv/MPI_Imrecv receive exactly that message -- eager and rendezvous
// sizes, a derived datatype, wildcards, MPI_PROC_NULL, truncation, a bad
// handle, and two "threads of control" simulated by interleaved probes.
// Rank r pairs with r ^ 1 (an odd last rank, and a job of one, with itself).
#include <mpi.h>

#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;
using mpitest::partner;
using mpitest::rank;
using mpitest::sender;

std::vector<int> message(int n, int seed) {
  std::vector<int> m(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) m[i] = seed * 1000003 + i;
  return m;
}

// The sender's side of a case: a nonblocking send of each message (`ms`
// must live until the requests complete).
void send_all(const std::vector<std::vector<int>>& ms, int tag, std::vector<MPI_Request>* reqs) {
  for (const auto& m : ms) {
    reqs->emplace_back();
    MPI_Isend(m.data(), static_cast<int>(m.size()), MPI_INT, partner(), tag, MPI_COMM_WORLD, &reqs->back());
  }
}

TEST(Mprobe, TheProbedMessageIsTheOneReceivedAndNoOtherReceiveTakesIt) {
  const int other = partner();
  for (int n : {2, 65536}) {  // eager and rendezvous
    SCOPED_TRACE(std::to_string(n) + " ints");
    const int tag = 10 + n;  // each size its own tag: the next size's messages may already be here
    const auto first = message(n, 1), second = message(n, 2);
    const std::vector<std::vector<int>> out{first, second};
    std::vector<MPI_Request> reqs;
    if (sender() || other == rank()) send_all(out, tag, &reqs);
    if (!sender() || other == rank()) {
      MPI_Message msg = MPI_MESSAGE_NULL;
      MPI_Status st;
      ASSERT_EQ(MPI_Mprobe(other, tag, MPI_COMM_WORLD, &msg, &st), MPI_SUCCESS);
      EXPECT_NE(msg, MPI_MESSAGE_NULL);
      EXPECT_EQ(st.MPI_SOURCE, other);
      EXPECT_EQ(st.MPI_TAG, tag);
      int count = -1;
      MPI_Get_count(&st, MPI_INT, &count);
      EXPECT_EQ(count, n);
      // An ordinary receive of the same envelope now gets the second.
      std::vector<int> got(static_cast<std::size_t>(n), -1);
      MPI_Recv(got.data(), n, MPI_INT, other, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(got, second);
      ASSERT_EQ(MPI_Mrecv(got.data(), n, MPI_INT, &msg, &st), MPI_SUCCESS);
      EXPECT_EQ(msg, MPI_MESSAGE_NULL);
      EXPECT_EQ(got, first);
      EXPECT_EQ(st.MPI_SOURCE, other);
      MPI_Get_count(&st, MPI_INT, &count);
      EXPECT_EQ(count, n);
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Mprobe, InterleavedImprobesEachGetTheirOwnMessage) {
  const int other = partner();
  for (int n : {3, 70000}) {
    SCOPED_TRACE(std::to_string(n) + " ints");
    const int tag = 11 + n;
    const auto a = message(n, 5), b = message(n, 6);
    const std::vector<std::vector<int>> out{a, b};
    std::vector<MPI_Request> reqs;
    if (sender() || other == rank()) send_all(out, tag, &reqs);
    if (!sender() || other == rank()) {
      // Two "threads" probe with wildcards, then receive in reverse order
      // with MPI_Imrecv: each gets the message it probed.
      MPI_Message ma = MPI_MESSAGE_NULL, mb = MPI_MESSAGE_NULL;
      int fa = 0, fb = 0;
      MPI_Status sa, sb;
      while (!fa) MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &fa, &ma, &sa);
      while (!fb) MPI_Improbe(other, MPI_ANY_TAG, MPI_COMM_WORLD, &fb, &mb, &sb);
      EXPECT_NE(ma, mb);
      EXPECT_EQ(sa.MPI_SOURCE, other);
      EXPECT_EQ(sb.MPI_TAG, tag);
      int none = 1;
      MPI_Message mc = MPI_MESSAGE_NULL;
      MPI_Improbe(other, tag, MPI_COMM_WORLD, &none, &mc, MPI_STATUS_IGNORE);
      EXPECT_FALSE(none) << "a taken message was probed again";
      std::vector<int> ga(static_cast<std::size_t>(n)), gb(static_cast<std::size_t>(n));
      MPI_Request r[2];
      ASSERT_EQ(MPI_Imrecv(gb.data(), n, MPI_INT, &mb, &r[0]), MPI_SUCCESS);
      ASSERT_EQ(MPI_Imrecv(ga.data(), n, MPI_INT, &ma, &r[1]), MPI_SUCCESS);
      EXPECT_EQ(ma, MPI_MESSAGE_NULL);
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
      EXPECT_EQ(ga, a);
      EXPECT_EQ(gb, b);
    }
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Mprobe, ADerivedTypeReceivesTheMessage) {
  const int other = partner();
  const auto m = message(6, 9);
  const std::vector<std::vector<int>> out{m};
  std::vector<MPI_Request> reqs;
  if (sender() || other == rank()) send_all(out, 12, &reqs);
  if (!sender() || other == rank()) {
    MPI_Datatype every_other;
    MPI_Type_vector(6, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Message msg;
    MPI_Mprobe(other, 12, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
    std::vector<int> got(12, -1);
    ASSERT_EQ(MPI_Mrecv(got.data(), 1, every_other, &msg, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < 12; ++i) EXPECT_EQ(got[i], i % 2 ? -1 : m[i / 2]) << i;
    MPI_Type_free(&every_other);
  }
  MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Mprobe, ProcNullTruncationAndBadHandles) {
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status st;
  ASSERT_EQ(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st), MPI_SUCCESS);
  EXPECT_EQ(msg, MPI_MESSAGE_NO_PROC);
  EXPECT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  int x = 7;
  ASSERT_EQ(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st), MPI_SUCCESS);
  EXPECT_EQ(msg, MPI_MESSAGE_NULL);
  EXPECT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  EXPECT_EQ(x, 7);
  mpitest::ErrorsReturn er;
  MPI_Message bogus = 424242;
  EXPECT_EQ(error_class(MPI_Mrecv(&x, 1, MPI_INT, &bogus, MPI_STATUS_IGNORE)), MPI_ERR_ARG);
  MPI_Message null_msg = MPI_MESSAGE_NULL;
  EXPECT_EQ(error_class(MPI_Mrecv(&x, 1, MPI_INT, &null_msg, MPI_STATUS_IGNORE)), MPI_ERR_ARG);
  // A message longer than the receive: MPI_ERR_TRUNCATE, as MPI_Recv.
  const int other = partner();
  const auto m = message(4, 3);
  const std::vector<std::vector<int>> out{m};
  std::vector<MPI_Request> reqs;
  if (sender() || other == rank()) send_all(out, 13, &reqs);
  if (!sender() || other == rank()) {
    MPI_Mprobe(other, 13, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
    // A bad argument leaves the message to receive again.
    const MPI_Message held = msg;
    EXPECT_EQ(error_class(MPI_Mrecv(nullptr, -1, MPI_INT, &msg, &st)), MPI_ERR_COUNT);
    EXPECT_EQ(msg, held);
    int two[2];
    EXPECT_EQ(error_class(MPI_Mrecv(two, 2, MPI_INT, &msg, &st)), MPI_ERR_TRUNCATE);
  }
  MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace

MPI_TEST_MAIN()
