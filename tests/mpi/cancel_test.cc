// MPI-1.1 §3.8, cancel (issue 14, item 9): every cancel/complete combination
// finishes -- sends and receives, eager and rendezvous sizes, standard,
// synchronous, buffered and ready mode, matched or never matched, completed
// by MPI_Wait, MPI_Test, MPI_Testall, MPI_Waitany, MPI_Testany or
// MPI_Waitsome. And either the cancellation succeeds or the communication
// does, never both and never neither: the sender tells the receiver what
// MPI_Test_cancelled said, and the receiver then finds the message exactly
// when it was not cancelled.
#include <mpi.h>

#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::rank;
using mpitest::size;

using mpitest::partner;
using mpitest::sender;

enum class Mode { kStandard, kSynchronous, kBuffered, kReady };
enum class Method { kWait, kTest, kTestall, kWaitany, kTestany, kWaitsome };

const char* name(Mode m) {
  switch (m) {
    case Mode::kStandard: return "standard";
    case Mode::kSynchronous: return "synchronous";
    case Mode::kBuffered: return "buffered";
    case Mode::kReady: return "ready";
  }
  return "?";
}
const char* name(Method m) {
  switch (m) {
    case Method::kWait: return "MPI_Wait";
    case Method::kTest: return "MPI_Test";
    case Method::kTestall: return "MPI_Testall";
    case Method::kWaitany: return "MPI_Waitany";
    case Method::kTestany: return "MPI_Testany";
    case Method::kWaitsome: return "MPI_Waitsome";
  }
  return "?";
}

// Completes one request by `method`; returns its status.
MPI_Status finish(MPI_Request* r, Method method) {
  MPI_Status st;
  int flag = 0, index = -1, count = 0;
  switch (method) {
    case Method::kWait: MPI_Wait(r, &st); break;
    case Method::kTest:
      while (!flag) MPI_Test(r, &flag, &st);
      break;
    case Method::kTestall:
      while (!flag) MPI_Testall(1, r, &flag, &st);
      break;
    case Method::kWaitany: MPI_Waitany(1, r, &index, &st); break;
    case Method::kTestany:
      while (!flag) MPI_Testany(1, r, &index, &flag, &st);
      break;
    case Method::kWaitsome: MPI_Waitsome(1, r, &count, &index, &st); break;
  }
  return st;
}

std::vector<char> message(int n, int tag) {
  std::vector<char> m(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) m[static_cast<std::size_t>(i)] = static_cast<char>(i * 13 + tag);
  return m;
}

int start_send(Mode mode, const std::vector<char>& m, int to, int tag, MPI_Request* r) {
  const int n = static_cast<int>(m.size());
  switch (mode) {
    case Mode::kStandard: return MPI_Isend(m.data(), n, MPI_CHAR, to, tag, MPI_COMM_WORLD, r);
    case Mode::kSynchronous: return MPI_Issend(m.data(), n, MPI_CHAR, to, tag, MPI_COMM_WORLD, r);
    case Mode::kBuffered: return MPI_Ibsend(m.data(), n, MPI_CHAR, to, tag, MPI_COMM_WORLD, r);
    case Mode::kReady: return MPI_Irsend(m.data(), n, MPI_CHAR, to, tag, MPI_COMM_WORLD, r);
  }
  return MPI_ERR_OTHER;
}

constexpr int kVerdictTag = 1;
constexpr int kPostedTag = 2;

// One combination. With `matched`, the receiver posts its receive before
// the send starts (ready mode needs that); otherwise it posts nothing until
// it has heard the verdict. The message has tag `tag`.
void one(int n, Mode mode, Method method, bool matched, int tag) {
  SCOPED_TRACE(std::to_string(n) + " bytes, " + name(mode) + ", " + name(method) +
               (matched ? ", receive posted first" : ", never matched before the cancel"));
  const int other = partner();
  const bool self = other == rank();
  const std::vector<char> m = message(n, tag);
  std::vector<char> got(m.size() + 1, 0);
  MPI_Request recv = MPI_REQUEST_NULL;
  if (matched && (!sender() || self)) {
    MPI_Irecv(got.data(), n + 1, MPI_CHAR, other, tag, MPI_COMM_WORLD, &recv);
    if (!self) MPI_Send(nullptr, 0, MPI_INT, other, kPostedTag, MPI_COMM_WORLD);
  }
  int cancelled = 0;
  if (sender() || self) {
    if (matched && !self) MPI_Recv(nullptr, 0, MPI_INT, other, kPostedTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Request r = MPI_REQUEST_NULL;
    ASSERT_EQ(start_send(mode, m, other, tag, &r), MPI_SUCCESS);
    ASSERT_EQ(MPI_Cancel(&r), MPI_SUCCESS);
    MPI_Status st = finish(&r, method);  // must return, whatever the receiver does
    EXPECT_EQ(r, MPI_REQUEST_NULL);
    MPI_Test_cancelled(&st, &cancelled);
    // A standard or synchronous send nobody has received can always be
    // retracted, eager or rendezvous (the receiver, waiting for the verdict,
    // answers the CANCEL); a buffered one has left the user's hands at once
    // and is never cancelled.
    if ((mode == Mode::kStandard || mode == Mode::kSynchronous) && !matched) {
      EXPECT_TRUE(cancelled);
    }
    if (mode == Mode::kBuffered) {
      EXPECT_FALSE(cancelled);
    }
    if (!self) MPI_Send(&cancelled, 1, MPI_INT, other, kVerdictTag, MPI_COMM_WORLD);
  }
  if (!sender() || self) {
    if (!self) MPI_Recv(&cancelled, 1, MPI_INT, other, kVerdictTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (cancelled) {
      // Cancelled: the message is gone. A posted receive stays unmatched
      // (and is cancelled in turn); nothing can be probed.
      int flag = 1;
      MPI_Iprobe(other, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      EXPECT_FALSE(flag) << "a cancelled message arrived";
      if (recv != MPI_REQUEST_NULL) {
        MPI_Cancel(&recv);
        MPI_Status st = finish(&recv, method);
        int rc = 0;
        MPI_Test_cancelled(&st, &rc);
        EXPECT_TRUE(rc) << "the receive matched a cancelled message";
      }
    } else {
      // Not cancelled: the message is delivered, whole.
      if (recv == MPI_REQUEST_NULL) MPI_Irecv(got.data(), n + 1, MPI_CHAR, other, tag, MPI_COMM_WORLD, &recv);
      MPI_Status st = finish(&recv, method);
      int count = -1;
      MPI_Get_count(&st, MPI_CHAR, &count);
      EXPECT_EQ(count, n);
      EXPECT_TRUE(std::equal(m.begin(), m.end(), got.begin())) << "wrong data";
    }
  }
}

TEST(Cancel, EverySendCombinationFinishesAndIsCancelledOrDelivered) {
  mpitest::ErrorsReturn er;
  // Room for every buffered send of the loop: each stays in the buffer
  // until its receiver has taken it, and the receiver runs behind.
  std::vector<char> attached(24 * (262144 + MPI_BSEND_OVERHEAD));
  MPI_Buffer_attach(attached.data(), static_cast<int>(attached.size()));
  int tag = 100;
  for (int n : {8, 262144})
    for (bool matched : {false, true})
      for (Mode mode : {Mode::kStandard, Mode::kSynchronous, Mode::kBuffered, Mode::kReady}) {
        if (mode == Mode::kReady && !matched) continue;  // a ready send needs its receive posted
        for (Method method : {Method::kWait, Method::kTest, Method::kTestall, Method::kWaitany, Method::kTestany,
                              Method::kWaitsome}) {
          one(n, mode, method, matched, ++tag);
          if (HasFatalFailure()) return;
        }
      }
  void* addr;
  int bytes;
  MPI_Buffer_detach(&addr, &bytes);
  MPI_Barrier(MPI_COMM_WORLD);
}

// The reported case: a 256 KiB standard send nobody receives, cancelled and
// completed in an MPI_Testall loop, while the receiver waits for the verdict:
// it is cancelled, and never arrives.
TEST(Cancel, UnmatchedRendezvousSendCompletesInTestall) {
  const int other = partner();
  if (sender() || other == rank()) {
    const std::vector<char> m = message(262144, 7);
    MPI_Request r;
    MPI_Isend(m.data(), static_cast<int>(m.size()), MPI_CHAR, other, 999, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    int flag = 0;
    MPI_Status st;
    while (!flag) MPI_Testall(1, &r, &flag, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT_TRUE(cancelled) << "send request 0 was not cancelled";
    if (!cancelled) {  // then it must still be deliverable
      std::vector<char> got(m.size());
      if (other == rank()) {
        MPI_Recv(got.data(), static_cast<int>(got.size()), MPI_CHAR, other, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT_EQ(got, m);
      }
    }
    if (other != rank()) MPI_Send(&cancelled, 1, MPI_INT, other, 998, MPI_COMM_WORLD);
  }
  if (!sender() && other != rank()) {
    int cancelled = 0;
    MPI_Recv(&cancelled, 1, MPI_INT, other, 998, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int flag = 0;
    MPI_Iprobe(other, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    EXPECT_EQ(flag, !cancelled);
    if (flag) {
      std::vector<char> got(262144);
      MPI_Recv(got.data(), 262144, MPI_CHAR, other, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(got, message(262144, 7));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// The other reported case, as MPICH's test suite does it: a 4-byte standard
// MPI_Isend to a receiver that has posted nothing, cancelled and waited for;
// then the sender says whether it was cancelled, and the receiver takes the
// message only if it was not. Repeated, so that some sends go out at once
// (no request in the core) and some from the send queue.
TEST(Cancel, UnmatchedEagerSendIsCancelled) {
  const int other = partner();
  for (int i = 0; i < 50; ++i) {
    const int tag = 3000 + i;
    const int m = 0x5eed0000 + i;
    if (sender() || other == rank()) {
      MPI_Request r;
      ASSERT_EQ(MPI_Isend(&m, 1, MPI_INT, other, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
      ASSERT_EQ(MPI_Cancel(&r), MPI_SUCCESS);
      MPI_Status st;
      ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
      int cancelled = 0;
      MPI_Test_cancelled(&st, &cancelled);
      EXPECT_TRUE(cancelled) << "Failed to cancel send " << i;
      if (other != rank()) MPI_Send(&cancelled, 1, MPI_INT, other, kVerdictTag, MPI_COMM_WORLD);
    }
    if (!sender() && other != rank()) {
      int cancelled = 0;
      MPI_Recv(&cancelled, 1, MPI_INT, other, kVerdictTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      int flag = 1;
      MPI_Iprobe(other, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      EXPECT_EQ(flag, !cancelled) << i;
      if (flag) {
        int got = 0;
        MPI_Recv(&got, 1, MPI_INT, other, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT_EQ(got, 0x5eed0000 + i);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// The datatype of a send written at once may be freed before its cancel:
// the cancel must not read it (ASan sees the old code do so).
TEST(Cancel, TheSendsDatatypeMayBeFreedFirst) {
  const int other = partner();
  if (sender() || other == rank()) {
    MPI_Datatype two_ints;
    MPI_Type_contiguous(2, MPI_INT, &two_ints);
    MPI_Type_commit(&two_ints);
    const int m[2] = {1, 2};
    MPI_Request r;
    MPI_Isend(m, 1, two_ints, other, 4999, MPI_COMM_WORLD, &r);
    MPI_Type_free(&two_ints);
    MPI_Cancel(&r);
    MPI_Status st;
    MPI_Wait(&r, &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    EXPECT_TRUE(cancelled);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// A cancel that loses the race with the match: the receive is posted and
// has taken the message before the CANCEL comes; the send completes not
// cancelled and the message arrives exactly once.
TEST(Cancel, CancelAfterTheMatchDeliversOnce) {
  const int other = partner();
  if (other == rank()) return;
  for (int n : {4, 262144}) {
    SCOPED_TRACE(std::to_string(n) + " bytes");
    const int tag = 4000 + n;  // the next size's message must not be probed as a second copy
    const std::vector<char> m = message(n, 9);
    std::vector<char> got(m.size() + 1, 0);
    if (!sender()) {
      MPI_Request r;
      MPI_Irecv(got.data(), n + 1, MPI_CHAR, other, tag, MPI_COMM_WORLD, &r);
      MPI_Status st;
      MPI_Wait(&r, &st);
      int count = -1;
      MPI_Get_count(&st, MPI_CHAR, &count);
      EXPECT_EQ(count, n);
      EXPECT_TRUE(std::equal(m.begin(), m.end(), got.begin()));
      MPI_Send(nullptr, 0, MPI_INT, other, kPostedTag, MPI_COMM_WORLD);
      int cancelled = -1;
      MPI_Recv(&cancelled, 1, MPI_INT, other, kVerdictTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_FALSE(cancelled);
      int flag = 1;
      MPI_Iprobe(other, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      EXPECT_FALSE(flag) << "the message came twice";
    } else {
      MPI_Request r;
      MPI_Isend(m.data(), n, MPI_CHAR, other, tag, MPI_COMM_WORLD, &r);
      // The receiver has the message: only then the cancel.
      MPI_Recv(nullptr, 0, MPI_INT, other, kPostedTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Cancel(&r);
      MPI_Status st;
      MPI_Wait(&r, &st);
      int cancelled = -1;
      MPI_Test_cancelled(&st, &cancelled);
      EXPECT_FALSE(cancelled);
      MPI_Send(&cancelled, 1, MPI_INT, other, kVerdictTag, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Receives: one never matched is cancelled; one whose message already came
// is not, and holds the message.
TEST(Cancel, ReceivesMatchedOrNotFinish) {
  const int other = partner();
  for (int n : {8, 262144})
    for (Method method : {Method::kWait, Method::kTest, Method::kTestall, Method::kWaitany, Method::kTestany,
                          Method::kWaitsome}) {
      SCOPED_TRACE(std::to_string(n) + " bytes, " + name(method));
      std::vector<char> got(static_cast<std::size_t>(n));
      MPI_Request r;
      MPI_Irecv(got.data(), n, MPI_CHAR, other, 5000, MPI_COMM_WORLD, &r);
      MPI_Cancel(&r);
      MPI_Status st = finish(&r, method);
      int cancelled = 0;
      MPI_Test_cancelled(&st, &cancelled);
      EXPECT_TRUE(cancelled);
      // A message that is already here: the receive matches at once.
      const std::vector<char> m = message(n, 3);
      MPI_Request s = MPI_REQUEST_NULL;
      if (sender() || other == rank()) MPI_Isend(m.data(), n, MPI_CHAR, other, 5001, MPI_COMM_WORLD, &s);
      if (!sender() || other == rank()) {
        MPI_Probe(other, 5001, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(got.data(), n, MPI_CHAR, other, 5001, MPI_COMM_WORLD, &r);
        MPI_Cancel(&r);
        st = finish(&r, method);
        MPI_Test_cancelled(&st, &cancelled);
        EXPECT_FALSE(cancelled);
        EXPECT_EQ(got, m);
      }
      if (s != MPI_REQUEST_NULL) MPI_Wait(&s, MPI_STATUS_IGNORE);
    }
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace

MPI_TEST_MAIN()
