// MPI-1.1 §3, point-to-point: every send mode against every receive form,
// probe, cancel, persistent requests, buffered sends and their buffer
// overflow, the wait/test family, MPI_PROC_NULL, wildcards, truncation and
// the non-overtaking rule; MPI-2.2's MPI_Request_get_status. Pairs are
// (even, odd) ranks; on one rank a
// process talks to itself.
#include <mpi.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;
using mpitest::rank;
using mpitest::size;

using mpitest::partner;
using mpitest::sender;

std::vector<int> payload(std::size_t n, int salt) {
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<int>(i * 7 + salt * 1000003);
  return v;
}

// Sizes across the eager limit (16 KiB) and well into rendezvous.
const std::size_t kCounts[] = {0, 1, 100, 4095, 4096, 4097, 70000};

enum class Mode { kStandard, kBuffered, kSynchronous, kReady };
enum class Form { kBlocking, kNonblocking, kPersistent };
enum class RecvForm { kRecv, kIrecvWait, kIrecvTestLoop, kPersistent, kProbeThenRecv, kSendrecv };

void send(Mode m, Form f, const std::vector<int>& v, int dest, int tag) {
  const int n = static_cast<int>(v.size());
  MPI_Request r = MPI_REQUEST_NULL;
  using SendFn = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm);
  using IsendFn = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  SendFn blocking[] = {MPI_Send, MPI_Bsend, MPI_Ssend, MPI_Rsend};
  IsendFn nonblocking[] = {MPI_Isend, MPI_Ibsend, MPI_Issend, MPI_Irsend};
  IsendFn persistent[] = {MPI_Send_init, MPI_Bsend_init, MPI_Ssend_init, MPI_Rsend_init};
  const int k = static_cast<int>(m);
  switch (f) {
    case Form::kBlocking: ASSERT_EQ(blocking[k](v.data(), n, MPI_INT, dest, tag, MPI_COMM_WORLD), MPI_SUCCESS); return;
    case Form::kNonblocking: ASSERT_EQ(nonblocking[k](v.data(), n, MPI_INT, dest, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS); break;
    case Form::kPersistent:
      ASSERT_EQ(persistent[k](v.data(), n, MPI_INT, dest, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
      ASSERT_EQ(MPI_Start(&r), MPI_SUCCESS);
      break;
  }
  ASSERT_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
  if (f == Form::kPersistent) {
    EXPECT_NE(r, MPI_REQUEST_NULL);  // a persistent request stays allocated
    ASSERT_EQ(MPI_Request_free(&r), MPI_SUCCESS);
  }
  EXPECT_EQ(r, MPI_REQUEST_NULL);
}

void receive(RecvForm f, std::vector<int>& out, int src, int tag, MPI_Status* st) {
  const int n = static_cast<int>(out.size());
  MPI_Request r;
  switch (f) {
    case RecvForm::kRecv: ASSERT_EQ(MPI_Recv(out.data(), n, MPI_INT, src, tag, MPI_COMM_WORLD, st), MPI_SUCCESS); return;
    case RecvForm::kIrecvWait:
      ASSERT_EQ(MPI_Irecv(out.data(), n, MPI_INT, src, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
      ASSERT_EQ(MPI_Wait(&r, st), MPI_SUCCESS);
      return;
    case RecvForm::kIrecvTestLoop: {
      ASSERT_EQ(MPI_Irecv(out.data(), n, MPI_INT, src, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
      int flag = 0;
      while (!flag) ASSERT_EQ(MPI_Test(&r, &flag, st), MPI_SUCCESS);
      EXPECT_EQ(r, MPI_REQUEST_NULL);
      return;
    }
    case RecvForm::kPersistent:
      ASSERT_EQ(MPI_Recv_init(out.data(), n, MPI_INT, src, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
      ASSERT_EQ(MPI_Start(&r), MPI_SUCCESS);
      ASSERT_EQ(MPI_Wait(&r, st), MPI_SUCCESS);
      ASSERT_EQ(MPI_Request_free(&r), MPI_SUCCESS);
      return;
    case RecvForm::kProbeThenRecv: {
      MPI_Status pst;
      ASSERT_EQ(MPI_Probe(src, tag, MPI_COMM_WORLD, &pst), MPI_SUCCESS);
      int count = -1;
      MPI_Get_count(&pst, MPI_INT, &count);
      EXPECT_EQ(count, n);  // probe reports the message, before it is received
      ASSERT_EQ(MPI_Recv(out.data(), n, MPI_INT, pst.MPI_SOURCE, pst.MPI_TAG, MPI_COMM_WORLD, st), MPI_SUCCESS);
      return;
    }
    case RecvForm::kSendrecv:
      ASSERT_EQ(MPI_Sendrecv(nullptr, 0, MPI_INT, MPI_PROC_NULL, 0, out.data(), n, MPI_INT, src, tag, MPI_COMM_WORLD, st), MPI_SUCCESS);
      return;
  }
}

class EveryModeAndForm : public ::testing::TestWithParam<std::tuple<Mode, Form, RecvForm>> {};

TEST_P(EveryModeAndForm, DeliversEverySizeIntact) {
  const auto [mode, form, rform] = GetParam();
  std::vector<char> bsend_buf;
  if (mode == Mode::kBuffered) {
    // Room for every message at once: the receiver may take them late.
    for (std::size_t n : kCounts) bsend_buf.resize(bsend_buf.size() + n * sizeof(int) + MPI_BSEND_OVERHEAD + 16);
    ASSERT_EQ(MPI_Buffer_attach(bsend_buf.data(), static_cast<int>(bsend_buf.size())), MPI_SUCCESS);
  }
  const int other = partner();
  const bool self = other == rank();
  for (std::size_t n : kCounts) {
    const int tag = static_cast<int>(n % 1000);
    const std::vector<int> v = payload(n, rank());
    std::vector<int> got(n, -1);
    MPI_Status st;
    // Ready mode needs the receive posted first: the receiver posts, then
    // says so with a zero-byte message.
    if (self) {
      if (mode == Mode::kSynchronous && form == Form::kBlocking) continue;  // would wait for itself
      MPI_Request r;
      ASSERT_EQ(MPI_Irecv(got.data(), static_cast<int>(n), MPI_INT, rank(), tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
      if (form == Form::kBlocking) {
        send(mode, form, v, rank(), tag);
      } else {
        MPI_Request s;
        const int k = static_cast<int>(mode);
        using IsendFn = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
        IsendFn fn[] = {MPI_Isend, MPI_Ibsend, MPI_Issend, MPI_Irsend};
        ASSERT_EQ(fn[k](v.data(), static_cast<int>(n), MPI_INT, rank(), tag, MPI_COMM_WORLD, &s), MPI_SUCCESS);
        ASSERT_EQ(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
      }
      ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
    } else if (sender()) {
      if (mode == Mode::kReady) MPI_Recv(nullptr, 0, MPI_INT, other, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      send(mode, form, v, other, tag);
      continue;
    } else {
      if (mode == Mode::kReady) {
        // Post first (a nonblocking receive of any form), then signal.
        MPI_Request r;
        ASSERT_EQ(MPI_Irecv(got.data(), static_cast<int>(n), MPI_INT, other, tag, MPI_COMM_WORLD, &r), MPI_SUCCESS);
        MPI_Send(nullptr, 0, MPI_INT, other, 999, MPI_COMM_WORLD);
        ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
      } else {
        receive(rform, got, other, tag, &st);
      }
    }
    EXPECT_EQ(got, payload(n, other)) << "count " << n;
    EXPECT_EQ(st.MPI_SOURCE, other);
    EXPECT_EQ(st.MPI_TAG, tag);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    EXPECT_EQ(count, static_cast<int>(n));
  }
  if (mode == Mode::kBuffered) {
    void* addr;
    int bytes;
    ASSERT_EQ(MPI_Buffer_detach(&addr, &bytes), MPI_SUCCESS);
    EXPECT_EQ(addr, bsend_buf.data());
    EXPECT_EQ(bytes, static_cast<int>(bsend_buf.size()));
  }
}

INSTANTIATE_TEST_SUITE_P(
    P2p, EveryModeAndForm,
    ::testing::Combine(::testing::Values(Mode::kStandard, Mode::kBuffered, Mode::kSynchronous, Mode::kReady),
                       ::testing::Values(Form::kBlocking, Form::kNonblocking, Form::kPersistent),
                       ::testing::Values(RecvForm::kRecv, RecvForm::kIrecvWait, RecvForm::kIrecvTestLoop,
                                         RecvForm::kPersistent, RecvForm::kProbeThenRecv, RecvForm::kSendrecv)));

TEST(P2p, WildcardsReportTheRealSourceAndTag) {
  const int other = partner();
  if (sender() || other == rank()) {
    const int v = 1234 + rank();
    MPI_Send(&v, 1, MPI_INT, other, 77, MPI_COMM_WORLD);
  }
  if (!sender() || other == rank()) {
    int v = 0;
    MPI_Status st;
    ASSERT_EQ(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    EXPECT_EQ(v, 1234 + other);
    EXPECT_EQ(st.MPI_SOURCE, other);
    EXPECT_EQ(st.MPI_TAG, 77);
  }
}

TEST(P2p, ProcNullCompletesAtOnceWithAnEmptyStatus) {
  int v = 5;
  MPI_Status st;
  ASSERT_EQ(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Recv(&v, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st), MPI_SUCCESS);
  EXPECT_EQ(v, 5);
  EXPECT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  EXPECT_EQ(st.MPI_TAG, MPI_ANY_TAG);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  EXPECT_EQ(count, 0);
  MPI_Request r;
  ASSERT_EQ(MPI_Irecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  int flag = 0;
  ASSERT_EQ(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
  EXPECT_TRUE(flag);
  EXPECT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
}

// §3.5: messages from one sender with one tag arrive in order, also when a
// large (rendezvous) message is followed by small (eager) ones.
TEST(P2p, MessagesDoNotOvertake) {
  const int other = partner();
  const std::size_t sizes[] = {100000, 1, 5000, 1, 200000, 3};
  auto receive_all_in_order = [&] {
    for (std::size_t i = 0; i < std::size(sizes); ++i) {
      std::vector<int> got(200000);
      MPI_Status st;
      MPI_Recv(got.data(), 200000, MPI_INT, other, 5, MPI_COMM_WORLD, &st);
      int n;
      MPI_Get_count(&st, MPI_INT, &n);
      got.resize(n);
      EXPECT_EQ(got, payload(sizes[i], static_cast<int>(i))) << "message " << i;
    }
  };
  if (sender() || other == rank()) {
    std::vector<MPI_Request> rs;
    std::vector<std::vector<int>> bufs;
    for (std::size_t i = 0; i < std::size(sizes); ++i) bufs.push_back(payload(sizes[i], static_cast<int>(i)));
    for (auto& b : bufs) {
      rs.emplace_back();
      MPI_Isend(b.data(), static_cast<int>(b.size()), MPI_INT, other, 5, MPI_COMM_WORLD, &rs.back());
    }
    if (other == rank()) receive_all_in_order();
    MPI_Waitall(static_cast<int>(rs.size()), rs.data(), MPI_STATUSES_IGNORE);
  } else {
    receive_all_in_order();
  }
}

// §3.5 again: far more nonblocking sends than the link has credits, so some
// are written into the slots at once and the rest queue behind them. Every
// 500th is a rendezvous message and every 7th a blocking send. The receiver
// sees them in order.
TEST(P2p, SendsBeyondTheCreditsStayInOrder) {
  const int other = partner();
  const int n = 3000;
  auto length = [](int i) { return i % 500 == 499 ? 20000 : 1; };  // ints; 80 KB is rendezvous
  auto receive_all_in_order = [&] {
    std::vector<int> got(20000);
    for (int i = 0; i < n; ++i) {
      MPI_Status st;
      MPI_Recv(got.data(), 20000, MPI_INT, other, 6, MPI_COMM_WORLD, &st);
      int count = 0;
      MPI_Get_count(&st, MPI_INT, &count);
      ASSERT_EQ(count, length(i)) << "message " << i;
      ASSERT_EQ(got[0], i);
      ASSERT_EQ(got[count - 1], i);
    }
  };
  if (sender() || other == rank()) {
    std::vector<std::vector<int>> msgs(n);
    std::vector<MPI_Request> rs;
    for (int i = 0; i < n; ++i) {
      msgs[i].assign(static_cast<std::size_t>(length(i)), i);
      if (i % 7 == 6 && other != rank()) {
        MPI_Send(msgs[i].data(), length(i), MPI_INT, other, 6, MPI_COMM_WORLD);
      } else {
        rs.emplace_back();
        ASSERT_EQ(MPI_Isend(msgs[i].data(), length(i), MPI_INT, other, 6, MPI_COMM_WORLD, &rs.back()), MPI_SUCCESS);
      }
    }
    if (other == rank()) receive_all_in_order();
    ASSERT_EQ(MPI_Waitall(static_cast<int>(rs.size()), rs.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (MPI_Request r : rs) EXPECT_EQ(r, MPI_REQUEST_NULL);
  } else {
    receive_all_in_order();
  }
}

// §3.4: a synchronous send completes only once the matching receive started.
TEST(P2p, SynchronousSendWaitsForTheReceive) {
  const int other = partner();
  if (other == rank()) GTEST_SKIP() << "needs a partner";
  for (int n : {1, 50000}) {
    std::vector<int> v = payload(static_cast<std::size_t>(n), 1), got(static_cast<std::size_t>(n));
    if (sender()) {
      MPI_Request r;
      ASSERT_EQ(MPI_Issend(v.data(), n, MPI_INT, other, 1, MPI_COMM_WORLD, &r), MPI_SUCCESS);
      // The partner holds its receive until after this handshake.
      int flag = 1;
      MPI_Sendrecv(nullptr, 0, MPI_INT, other, 2, nullptr, 0, MPI_INT, other, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < 100; ++i) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
      EXPECT_FALSE(flag) << "Issend of " << n << " ints completed before the receive was posted";
      MPI_Sendrecv(nullptr, 0, MPI_INT, other, 3, nullptr, 0, MPI_INT, other, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (!flag) MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      MPI_Sendrecv(nullptr, 0, MPI_INT, other, 2, nullptr, 0, MPI_INT, other, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Sendrecv(nullptr, 0, MPI_INT, other, 3, nullptr, 0, MPI_INT, other, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Recv(got.data(), n, MPI_INT, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(got, v);
    }
  }
}

TEST(P2p, TruncationIsReportedAndTheBufferHoldsThePrefix) {
  mpitest::ErrorsReturn er;
  const int other = partner();
  const std::vector<int> v = payload(20000, 3);
  for (int n : {10, 20000}) {
    MPI_Request s = MPI_REQUEST_NULL;
    if (sender() || other == rank()) MPI_Isend(v.data(), n, MPI_INT, other, 4, MPI_COMM_WORLD, &s);
    if (!sender() || other == rank()) {
      std::vector<int> got(5, -1);
      MPI_Status st;
      const int err = MPI_Recv(got.data(), 5, MPI_INT, other, 4, MPI_COMM_WORLD, &st);
      EXPECT_EQ(error_class(err), MPI_ERR_TRUNCATE);
      EXPECT_EQ(got, std::vector<int>(v.begin(), v.begin() + 5));
      const std::string text = mpitest::error_text(err);
      EXPECT_NE(text.find("MPI_Recv"), std::string::npos) << text;
    }
    MPI_Wait(&s, MPI_STATUS_IGNORE);
  }
}

TEST(P2p, PersistentRequestsReusedAThousandTimes) {
  const int other = partner();
  int out = 0, in = -1;
  MPI_Request rs[2];
  MPI_Send_init(&out, 1, MPI_INT, other, 9, MPI_COMM_WORLD, &rs[0]);
  MPI_Recv_init(&in, 1, MPI_INT, other, 9, MPI_COMM_WORLD, &rs[1]);
  for (int i = 0; i < 1000; ++i) {
    out = i * 3 + rank();
    ASSERT_EQ(MPI_Startall(2, rs), MPI_SUCCESS);
    MPI_Status st[2];
    ASSERT_EQ(MPI_Waitall(2, rs, st), MPI_SUCCESS);
    ASSERT_EQ(in, i * 3 + other);
    ASSERT_NE(rs[0], MPI_REQUEST_NULL);
  }
  // An inactive persistent request waits (and tests) as complete at once.
  MPI_Status st;
  ASSERT_EQ(MPI_Wait(&rs[0], &st), MPI_SUCCESS);
  MPI_Request_free(&rs[0]);
  MPI_Request_free(&rs[1]);
  EXPECT_EQ(rs[0], MPI_REQUEST_NULL);
}

TEST(P2p, BufferedSendsOverflowingTheAttachedBufferFail) {
  mpitest::ErrorsReturn er;
  const int other = partner();
  // Messages above the eager limit stay in the attached buffer until the
  // receiver takes them (160 KB: above it over every provider, 128 KiB over tcp).
  constexpr int kN = 40000;
  std::vector<char> buf(2 * (kN * sizeof(int) + MPI_BSEND_OVERHEAD));
  MPI_Buffer_attach(buf.data(), static_cast<int>(buf.size()));
  const std::vector<int> v = payload(kN, 0);
  if (sender() || other == rank()) {
    // Two fit; the receiver has not received yet (it waits for the signal
    // below), so a third cannot.
    EXPECT_EQ(MPI_Bsend(v.data(), kN, MPI_INT, other, 1, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(MPI_Bsend(v.data(), kN, MPI_INT, other, 1, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(error_class(MPI_Bsend(v.data(), kN, MPI_INT, other, 1, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
    MPI_Request r;
    EXPECT_EQ(error_class(MPI_Ibsend(v.data(), kN, MPI_INT, other, 1, MPI_COMM_WORLD, &r)), MPI_ERR_BUFFER);
    MPI_Send(nullptr, 0, MPI_INT, other, 2, MPI_COMM_WORLD);
  }
  if (!sender() || other == rank()) {
    MPI_Recv(nullptr, 0, MPI_INT, other, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2; ++i) {
      std::vector<int> got(kN);
      MPI_Recv(got.data(), kN, MPI_INT, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(got, v);
    }
  }
  void* addr;
  int bytes;
  MPI_Buffer_detach(&addr, &bytes);  // waits for the buffered sends
  EXPECT_EQ(bytes, static_cast<int>(buf.size()));
  // Without an attached buffer, a buffered send has nowhere to go.
  if (sender() || other == rank()) {
    EXPECT_EQ(error_class(MPI_Bsend(v.data(), 1, MPI_INT, other, 1, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
  }
}

// §3.6.1: a buffer of (MPI_Pack_size + MPI_BSEND_OVERHEAD) per message
// suffices: for one small message alone, and for two messages above the
// eager limit held in the buffer at once (the receiver takes them only
// after both were buffered).
TEST(P2p, BufferOfPackSizePlusOverheadSuffices) {
  mpitest::ErrorsReturn er;
  const int other = partner();
  auto share = [](int n) {
    int packed = 0;
    MPI_Pack_size(n, MPI_CHAR, MPI_COMM_WORLD, &packed);
    return packed + MPI_BSEND_OVERHEAD;
  };
  const std::vector<char> text = [] {
    std::vector<char> t(40000);
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<char>('a' + i % 26);
    return t;
  }();
  void* addr;
  int bytes;
  for (int n : {1, 3, 7, 100}) {
    std::vector<char> buf(static_cast<std::size_t>(share(n)));
    ASSERT_EQ(MPI_Buffer_attach(buf.data(), static_cast<int>(buf.size())), MPI_SUCCESS);
    if (sender() || other == rank()) {
      MPI_Request r = MPI_REQUEST_NULL;
      EXPECT_EQ(MPI_Ibsend(text.data(), n, MPI_CHAR, other, 10, MPI_COMM_WORLD, &r), MPI_SUCCESS) << n;
      if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    if (!sender() || other == rank()) {
      std::vector<char> got(static_cast<std::size_t>(n));
      MPI_Recv(got.data(), n, MPI_CHAR, other, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_TRUE(std::equal(got.begin(), got.end(), text.begin())) << n;
    }
    MPI_Buffer_detach(&addr, &bytes);
  }
  const int big[2] = {16385, 20001};
  std::vector<char> buf(static_cast<std::size_t>(share(big[0]) + share(big[1])));
  ASSERT_EQ(MPI_Buffer_attach(buf.data(), static_cast<int>(buf.size())), MPI_SUCCESS);
  if (sender() || other == rank()) {
    for (int i = 0; i < 2; ++i)
      EXPECT_EQ(MPI_Bsend(text.data(), big[i], MPI_CHAR, other, 20 + i, MPI_COMM_WORLD), MPI_SUCCESS) << big[i];
    MPI_Send(nullptr, 0, MPI_INT, other, 2, MPI_COMM_WORLD);
  }
  if (!sender() || other == rank()) {
    MPI_Recv(nullptr, 0, MPI_INT, other, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 2; ++i) {
      std::vector<char> got(static_cast<std::size_t>(big[i]));
      MPI_Recv(got.data(), big[i], MPI_CHAR, other, 20 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_TRUE(std::equal(got.begin(), got.end(), text.begin())) << big[i];
    }
  }
  MPI_Buffer_detach(&addr, &bytes);
}

TEST(P2p, CancelledReceiveCompletesCancelled) {
  int v = 0;
  MPI_Request r;
  ASSERT_EQ(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(MPI_Cancel(&r), MPI_SUCCESS);
  MPI_Status st;
  ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
  int flag = 0;
  MPI_Test_cancelled(&st, &flag);
  EXPECT_TRUE(flag);
  // A receive that matched is not cancelled.
  const int other = partner();
  if (sender() || other == rank()) MPI_Send(&v, 1, MPI_INT, other, 4243, MPI_COMM_WORLD);
  if (!sender() || other == rank()) {
    MPI_Irecv(&v, 1, MPI_INT, other, 4243, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    EXPECT_FALSE(flag);
  }
}

TEST(P2p, IprobeSeesOnlyMatchingMessages) {
  const int other = partner();
  if (sender() || other == rank()) {
    const double d[3] = {1, 2, 3};
    MPI_Send(d, 3, MPI_DOUBLE, other, 31, MPI_COMM_WORLD);
  }
  if (!sender() || other == rank()) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(other, 32, MPI_COMM_WORLD, &flag, &st);
    EXPECT_FALSE(flag);
    while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &flag, &st);
    EXPECT_EQ(st.MPI_SOURCE, other);
    int n;
    MPI_Get_count(&st, MPI_DOUBLE, &n);
    EXPECT_EQ(n, 3);
    MPI_Get_count(&st, MPI_LONG_DOUBLE, &n);
    EXPECT_EQ(n, MPI_UNDEFINED);  // 24 bytes are not a whole number of long doubles
    double d[3];
    MPI_Recv(d, 3, MPI_DOUBLE, other, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    EXPECT_EQ(d[2], 3.0);
  }
}

TEST(P2p, WaitanyWaitsomeTestsomeTestallFindEveryRequest) {
  const int other = partner();
  constexpr int kN = 6;
  int in[kN], out[kN];
  MPI_Request r[kN];
  for (int i = 0; i < kN; ++i) {
    out[i] = 100 * rank() + i;
    r[i] = MPI_REQUEST_NULL;  // null entries are skipped
    if (i != 2) MPI_Irecv(&in[i], 1, MPI_INT, other, i, MPI_COMM_WORLD, &r[i]);
  }
  for (int i = kN - 1; i >= 0; --i)
    if (i != 2) MPI_Send(&out[i], 1, MPI_INT, other, i, MPI_COMM_WORLD);
  MPI_Send(&out[2], 1, MPI_INT, other, 2, MPI_COMM_WORLD);  // received below
  bool seen[kN] = {};
  int idx;
  MPI_Status st;
  ASSERT_EQ(MPI_Waitany(kN, r, &idx, &st), MPI_SUCCESS);
  ASSERT_GE(idx, 0);
  EXPECT_EQ(st.MPI_TAG, idx);
  EXPECT_EQ(r[idx], MPI_REQUEST_NULL);
  seen[idx] = true;
  int outcount, indices[kN];
  MPI_Status sts[kN];
  ASSERT_EQ(MPI_Waitsome(kN, r, &outcount, indices, sts), MPI_SUCCESS);
  ASSERT_GE(outcount, 1);
  for (int k = 0; k < outcount; ++k) {
    EXPECT_FALSE(seen[indices[k]]);
    EXPECT_EQ(sts[k].MPI_TAG, indices[k]);
    seen[indices[k]] = true;
  }
  int flag = 0;
  while (!flag) MPI_Testall(kN, r, &flag, sts);
  for (int i = 0; i < kN; ++i) {
    EXPECT_EQ(r[i], MPI_REQUEST_NULL);
    if (i != 2) {
      EXPECT_EQ(in[i], 100 * other + i);
    }
  }
  ASSERT_EQ(MPI_Testsome(kN, r, &outcount, indices, sts), MPI_SUCCESS);
  EXPECT_EQ(outcount, MPI_UNDEFINED);  // nothing live
  ASSERT_EQ(MPI_Waitany(kN, r, &idx, &st), MPI_SUCCESS);
  EXPECT_EQ(idx, MPI_UNDEFINED);
  int x;
  MPI_Recv(&x, 1, MPI_INT, other, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT_EQ(x, 100 * other + 2);
  // Testany on a request that cannot complete yet.
  MPI_Request pending;
  MPI_Irecv(&x, 1, MPI_INT, other, 77777, MPI_COMM_WORLD, &pending);
  ASSERT_EQ(MPI_Testany(1, &pending, &idx, &flag, &st), MPI_SUCCESS);
  EXPECT_FALSE(flag);
  EXPECT_EQ(idx, MPI_UNDEFINED);
  MPI_Cancel(&pending);
  MPI_Wait(&pending, &st);
}

// MPI_Testany/MPI_Waitany of an array of one request (MPI-1.1 §3.7.5) --
// the polling loop of HPCC's MPIRandomAccess -- take MPI_Test/MPI_Wait's
// path: the index 0 once it completes, its status, the handle freed (a
// persistent one left inactive, which then counts as no live request), a
// failure as the call's own error, and a nonblocking collective's request.
TEST(P2p, AnyOfAnArrayOfOneIsThatRequest) {
  mpitest::ErrorsReturn er;
  const int other = partner();
  int in = -1, out = 40 + rank(), idx = -5, flag = 0;
  MPI_Status st;
  MPI_Request r;
  MPI_Irecv(&in, 1, MPI_INT, other, 61, MPI_COMM_WORLD, &r);
  MPI_Send(&out, 1, MPI_INT, other, 61, MPI_COMM_WORLD);
  for (long spins = 0; !flag; ++spins) {
    ASSERT_LT(spins, 100'000'000L);
    ASSERT_EQ(MPI_Testany(1, &r, &idx, &flag, &st), MPI_SUCCESS);
  }
  EXPECT_EQ(idx, 0);
  EXPECT_EQ(r, MPI_REQUEST_NULL);
  EXPECT_EQ(st.MPI_SOURCE, other);
  EXPECT_EQ(st.MPI_TAG, 61);
  EXPECT_EQ(in, 40 + other);

  MPI_Recv_init(&in, 1, MPI_INT, other, 62, MPI_COMM_WORLD, &r);
  MPI_Start(&r);
  MPI_Send(&out, 1, MPI_INT, other, 62, MPI_COMM_WORLD);
  ASSERT_EQ(MPI_Waitany(1, &r, &idx, &st), MPI_SUCCESS);
  EXPECT_EQ(idx, 0);
  EXPECT_NE(r, MPI_REQUEST_NULL) << "a persistent request stays";
  EXPECT_EQ(st.MPI_TAG, 62);
  flag = 0;
  idx = -5;
  ASSERT_EQ(MPI_Testany(1, &r, &idx, &flag, &st), MPI_SUCCESS);
  EXPECT_EQ(flag, 1) << "no live request";
  EXPECT_EQ(idx, MPI_UNDEFINED);
  EXPECT_EQ(st.MPI_TAG, MPI_ANY_TAG);
  EXPECT_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);
  ASSERT_EQ(MPI_Waitany(1, &r, &idx, &st), MPI_SUCCESS);
  EXPECT_EQ(idx, MPI_UNDEFINED);
  MPI_Request_free(&r);

  const int two[2] = {out, out};
  MPI_Irecv(&in, 1, MPI_INT, other, 63, MPI_COMM_WORLD, &r);
  MPI_Send(two, 2, MPI_INT, other, 63, MPI_COMM_WORLD);
  idx = -5;
  EXPECT_EQ(error_class(MPI_Waitany(1, &r, &idx, &st)), MPI_ERR_TRUNCATE);
  EXPECT_EQ(idx, 0);
  EXPECT_EQ(r, MPI_REQUEST_NULL);

  ASSERT_EQ(MPI_Ibarrier(MPI_COMM_WORLD, &r), MPI_SUCCESS);
  flag = 0;
  idx = -5;
  for (long spins = 0; !flag; ++spins) {
    ASSERT_LT(spins, 100'000'000L);
    ASSERT_EQ(MPI_Testany(1, &r, &idx, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
  }
  EXPECT_EQ(idx, 0);
  EXPECT_EQ(r, MPI_REQUEST_NULL);
}

TEST(P2p, RequestGetStatusLooksWithoutCompleting) {
  // The receive's status through MPI_Request_get_status, eager and
  // rendezvous; the request stays, and MPI_Wait then completes it with the
  // same status. A persistent one starts again afterwards.
  for (std::size_t n : {std::size_t{4}, std::size_t{70000}}) {
    SCOPED_TRACE(n);
    std::vector<int> out = payload(n, rank()), in(n, -1);
    MPI_Request rr, sr;
    MPI_Recv_init(in.data(), static_cast<int>(n), MPI_INT, partner(), 31, MPI_COMM_WORLD, &rr);
    for (int round = 0; round < 2; ++round) {
      ASSERT_EQ(MPI_Start(&rr), MPI_SUCCESS);
      ASSERT_EQ(MPI_Isend(out.data(), static_cast<int>(n), MPI_INT, partner(), 31, MPI_COMM_WORLD, &sr), MPI_SUCCESS);
      int flag = 0;
      MPI_Status peek;
      for (long spins = 0; !flag; ++spins) {
        ASSERT_LT(spins, 100'000'000L);
        ASSERT_EQ(MPI_Request_get_status(rr, &flag, &peek), MPI_SUCCESS);
      }
      EXPECT_NE(rr, MPI_REQUEST_NULL) << "the request stays";
      EXPECT_EQ(peek.MPI_SOURCE, partner());
      EXPECT_EQ(peek.MPI_TAG, 31);
      ASSERT_EQ(MPI_Request_get_status(rr, &flag, &peek), MPI_SUCCESS) << "asked twice";
      EXPECT_EQ(flag, 1);
      MPI_Status st;
      ASSERT_EQ(MPI_Wait(&rr, &st), MPI_SUCCESS);
      int count = -1;
      MPI_Get_count(&st, MPI_INT, &count);
      EXPECT_EQ(count, static_cast<int>(n));
      EXPECT_EQ(st.MPI_SOURCE, partner());
      EXPECT_EQ(in, payload(n, partner()));
      ASSERT_EQ(MPI_Wait(&sr, MPI_STATUS_IGNORE), MPI_SUCCESS);
      in.assign(n, -1);
    }
    MPI_Request_free(&rr);
  }
  int flag = 0;
  MPI_Status st;
  ASSERT_EQ(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st), MPI_SUCCESS);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);
}

// MPI-3.1 §3.2.5: "message-passing calls do not modify the value of the
// error code field of status variables", but for those returning several
// statuses. Every call here returns one; each status starts with a mark in
// its error field that must still be there. (MPICH's mprobe test found
// meshmp writing MPI_SUCCESS there.) An empty status of a null request is
// the exception the standard defines: its error is MPI_SUCCESS (§3.7.3).
TEST(P2p, CallsReturningOneStatusLeaveItsErrorFieldAlone) {
  constexpr int kMark = 12345;
  auto marked = [] {
    MPI_Status st;
    std::memset(&st, 0xab, sizeof st);
    st.MPI_ERROR = kMark;
    return st;
  };
  const int other = partner();
  const int out = 1000 + rank();
  int in = -1, flag = 0;
  // Eager and rendezvous: the core status and a request's saved one.
  for (int n : {1, 70000}) {
    SCOPED_TRACE(n);
    std::vector<int> big_out = payload(static_cast<std::size_t>(n), rank()), big_in(static_cast<std::size_t>(n));
    MPI_Status st = marked();
    ASSERT_EQ(MPI_Sendrecv(big_out.data(), n, MPI_INT, other, 1, big_in.data(), n, MPI_INT, other, 1, MPI_COMM_WORLD, &st),
              MPI_SUCCESS);
    EXPECT_EQ(st.MPI_SOURCE, other);
    EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Sendrecv";
    MPI_Request r[2];
    MPI_Irecv(big_in.data(), n, MPI_INT, other, 2, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(big_out.data(), n, MPI_INT, other, 2, MPI_COMM_WORLD, &r[1]);
    st = marked();
    for (long spins = 0; !flag; ++spins) {
      ASSERT_LT(spins, 100'000'000L);
      ASSERT_EQ(MPI_Request_get_status(r[0], &flag, &st), MPI_SUCCESS);
    }
    EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Request_get_status";
    st = marked();
    ASSERT_EQ(MPI_Wait(&r[0], &st), MPI_SUCCESS);
    EXPECT_EQ(st.MPI_TAG, 2);
    EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Wait";
    int index = -1;
    st = marked();
    ASSERT_EQ(MPI_Waitany(2, r, &index, &st), MPI_SUCCESS);
    EXPECT_EQ(index, 1);
    EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Waitany";
    flag = 0;
  }
  // Probes and a test loop.
  MPI_Send(&out, 1, MPI_INT, other, 3, MPI_COMM_WORLD);
  MPI_Status st = marked();
  ASSERT_EQ(MPI_Probe(other, 3, MPI_COMM_WORLD, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Probe";
  st = marked();
  ASSERT_EQ(MPI_Iprobe(other, 3, MPI_COMM_WORLD, &flag, &st), MPI_SUCCESS);
  ASSERT_TRUE(flag);
  EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Iprobe";
  MPI_Message m;
  st = marked();
  ASSERT_EQ(MPI_Mprobe(other, 3, MPI_COMM_WORLD, &m, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Mprobe";
  st = marked();
  ASSERT_EQ(MPI_Mrecv(&in, 1, MPI_INT, &m, &st), MPI_SUCCESS);
  EXPECT_EQ(in, 1000 + other);
  EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Mrecv";
  MPI_Request r;
  MPI_Irecv(&in, 1, MPI_INT, other, 4, MPI_COMM_WORLD, &r);
  MPI_Send(&out, 1, MPI_INT, other, 4, MPI_COMM_WORLD);
  st = marked();
  flag = 0;
  for (long spins = 0; !flag; ++spins) {
    ASSERT_LT(spins, 100'000'000L);
    ASSERT_EQ(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
  }
  EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Test";
  // MPI_PROC_NULL (§3.11): its own status, but not an empty one.
  st = marked();
  ASSERT_EQ(MPI_Recv(&in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Recv from MPI_PROC_NULL";
  st = marked();
  ASSERT_EQ(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Mprobe of MPI_PROC_NULL";
  st = marked();
  ASSERT_EQ(MPI_Mrecv(&in, 1, MPI_INT, &m, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Mrecv of MPI_MESSAGE_NO_PROC";
  MPI_Irecv(&in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
  st = marked();
  ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  EXPECT_EQ(st.MPI_ERROR, kMark) << "MPI_Wait on a receive from MPI_PROC_NULL";
  // A null request: the empty status, error MPI_SUCCESS.
  r = MPI_REQUEST_NULL;
  st = marked();
  ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);
  EXPECT_EQ(st.MPI_ERROR, MPI_SUCCESS);
}

TEST(P2p, SendrecvReplaceSwapsAroundARing) {
  const int p = size(), me = rank();
  std::vector<double> v(3000);
  std::iota(v.begin(), v.end(), me * 10000.0);
  MPI_Status st;
  ASSERT_EQ(MPI_Sendrecv_replace(v.data(), 3000, MPI_DOUBLE, (me + 1) % p, 6, (me + p - 1) % p, 6, MPI_COMM_WORLD, &st), MPI_SUCCESS);
  EXPECT_EQ(v[0], ((me + p - 1) % p) * 10000.0);
  EXPECT_EQ(v[2999], ((me + p - 1) % p) * 10000.0 + 2999);
  EXPECT_EQ(st.MPI_SOURCE, (me + p - 1) % p);
}

TEST(P2p, BadArgumentsReturnTheirClassUnderErrorsReturn) {
  mpitest::ErrorsReturn er;
  int v = 0;
  MPI_Request r;
  EXPECT_EQ(error_class(MPI_Send(&v, 1, MPI_INT, size(), 0, MPI_COMM_WORLD)), MPI_ERR_RANK);
  EXPECT_EQ(error_class(MPI_Send(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD)), MPI_ERR_TAG);
  EXPECT_EQ(error_class(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD)), MPI_ERR_COUNT);
  EXPECT_EQ(error_class(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD)), MPI_ERR_TYPE);
  EXPECT_EQ(error_class(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL)), MPI_ERR_COMM);
  EXPECT_EQ(error_class(MPI_Irecv(&v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &r)), MPI_ERR_RANK);
  EXPECT_EQ(error_class(MPI_Send(nullptr, 3, MPI_INT, 0, 0, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
  MPI_Request bogus = 123456;
  EXPECT_EQ(error_class(MPI_Wait(&bogus, MPI_STATUS_IGNORE)), MPI_ERR_REQUEST);
  MPI_Datatype uncommitted;
  MPI_Type_contiguous(2, MPI_INT, &uncommitted);
  int two[2];
  EXPECT_EQ(error_class(MPI_Send(two, 1, uncommitted, 0, 0, MPI_COMM_WORLD)), MPI_ERR_TYPE);
  MPI_Type_free(&uncommitted);
  // The message names the function and the argument.
  const int err = MPI_Send(&v, 1, MPI_INT, size() + 3, 0, MPI_COMM_WORLD);
  const std::string text = mpitest::error_text(err);
  EXPECT_NE(text.find("MPI_Send"), std::string::npos) << text;
  EXPECT_NE(text.find("dest"), std::string::npos) << text;
}

// MPI_Waitall and MPI_Testall check every handle before they wait for any
// (one pass gathers the requests in flight and checks them): a bad handle
// anywhere returns MPI_ERR_REQUEST with the good requests untouched, and a
// negative count MPI_ERR_COUNT. The plain MPI_Isend/MPI_Irecv path still
// rejects a type that carries no data.
TEST(P2p, WaitallChecksEveryHandleBeforeWaitingForAny) {
  mpitest::ErrorsReturn er;
  MPI_Comm comm;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &comm), MPI_SUCCESS);
  int v = 0, flag = -1;
  MPI_Request rs[3];
  ASSERT_EQ(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 77, comm, &rs[0]), MPI_SUCCESS);  // nobody sends it
  rs[1] = MPI_REQUEST_NULL;
  rs[2] = 123456;
  EXPECT_EQ(error_class(MPI_Waitall(3, rs, MPI_STATUSES_IGNORE)), MPI_ERR_REQUEST);
  EXPECT_EQ(error_class(MPI_Testall(3, rs, &flag, MPI_STATUSES_IGNORE)), MPI_ERR_REQUEST);
  EXPECT_EQ(error_class(MPI_Waitall(-1, rs, MPI_STATUSES_IGNORE)), MPI_ERR_COUNT);
  EXPECT_NE(rs[0], MPI_REQUEST_NULL);
  EXPECT_EQ(rs[2], 123456);
  // The receive is still live: it can be cancelled and completed.
  ASSERT_EQ(MPI_Cancel(&rs[0]), MPI_SUCCESS);
  MPI_Status st[2];
  ASSERT_EQ(MPI_Waitall(2, rs, st), MPI_SUCCESS);
  int cancelled = 0;
  MPI_Test_cancelled(&st[0], &cancelled);
  EXPECT_TRUE(cancelled);
  EXPECT_EQ(rs[0], MPI_REQUEST_NULL);
  EXPECT_EQ(st[1].MPI_SOURCE, MPI_ANY_SOURCE);  // the null request's empty status
  EXPECT_EQ(st[1].MPI_TAG, MPI_ANY_TAG);
  MPI_Request r;
  EXPECT_EQ(error_class(MPI_Isend(&v, 1, MPI_LB, 0, 0, comm, &r)), MPI_ERR_TYPE);
  EXPECT_EQ(error_class(MPI_Irecv(&v, 1, MPI_DATATYPE_NULL, 0, 0, comm, &r)), MPI_ERR_TYPE);
  MPI_Comm_free(&comm);
}

// Released request entries are taken again newest first, whatever kind
// they were: a non-contiguous exchange (staging buffers, kept types), then
// plain ones in the same entries, then persistent ones, round after round;
// each delivers its own data.
TEST(P2p, RequestEntriesReusedAcrossKindsDeliverEachMessage) {
  const int me = rank();
  MPI_Datatype every_other;
  ASSERT_EQ(MPI_Type_vector(3, 1, 2, MPI_INT, &every_other), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&every_other), MPI_SUCCESS);
  for (int round = 0; round < 4; ++round) {
    int src[6], dst[6];
    for (int i = 0; i < 6; ++i) src[i] = 100 * round + i, dst[i] = -1;
    MPI_Request r[2];
    ASSERT_EQ(MPI_Irecv(dst, 1, every_other, me, 5, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Isend(src, 1, every_other, me, 5, MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(dst[i], i % 2 ? -1 : src[i]) << "round " << round << " element " << i;

    int a = 1000 + round, b = -1;
    ASSERT_EQ(MPI_Irecv(&b, 1, MPI_INT, me, 6, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Isend(&a, 1, MPI_INT, me, 6, MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(b, a);

    int c = 2000 + round, d = -1;
    ASSERT_EQ(MPI_Recv_init(&d, 1, MPI_INT, me, 7, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Send_init(&c, 1, MPI_INT, me, 7, MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Startall(2, r), MPI_SUCCESS);
    ASSERT_EQ(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(d, c);
    ASSERT_EQ(MPI_Request_free(&r[0]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Request_free(&r[1]), MPI_SUCCESS);
  }
  MPI_Type_free(&every_other);
}

}  // namespace

MPI_TEST_MAIN()
