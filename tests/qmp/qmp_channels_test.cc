// Several persistent channels to one peer (issue 14, item 1): K receives from
// a partner combined with QMP_declare_multiple and K sends to it, restarted
// every iteration, as a dynamical-fermion code gathers its neighbour fields.
// K up to 16; sizes around and far above the eager limit, equal and mixed
// within one iteration; receives started before, after and between the
// sends; QMP_declare_multiple on the receive side, on both sides or on
// neither; registered (QMP_allocate_memory) and ordinary memory. Every
// message carries (sender, iteration, channel) in every byte, so a message
// delivered to the wrong receive fails the test, and a lost one hangs it
// until the job's hard timeout.
#include <gtest/gtest.h>
#include <qmp.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int nodes() { return QMP_get_number_of_nodes(); }
int me() { return QMP_get_node_number(); }

// The eager limit in force (the tests run with the default and with others).
std::size_t eager_limit() {
  const char* s = std::getenv("MESHMP_EAGER_LIMIT");
  return s && *s ? std::strtoul(s, nullptr, 10) : 16384;
}

enum class Order { kRecvFirst, kRecvLast, kRecvBetween };
enum class Multiple { kRecvOnly, kBoth, kNeither };

// A message's contents: one byte value naming (sender, iteration, channel),
// with the offset written every 4 KiB so a shifted copy fails too.
void fill(char* p, std::size_t n, int sender, int iter, int channel) {
  if (n == 0) return;  // p may be null
  std::memset(p, (sender * 37 + iter * 11 + channel * 5 + 1) & 0xff, n);
  for (std::size_t off = 0; off + sizeof off <= n; off += 4096) std::memcpy(p + off, &off, sizeof off);
}

// One buffer, from QMP registered memory or malloc.
struct Buffer {
  QMP_mem_t* mem = nullptr;
  std::vector<char> plain;
  char* data = nullptr;
  Buffer(std::size_t n, bool registered) {
    if (registered) {
      mem = QMP_allocate_memory(n ? n : 1);
      data = static_cast<char*>(QMP_get_memory_pointer(mem));
    } else {
      plain.resize(n ? n : 1);
      data = plain.data();
    }
  }
  ~Buffer() {
    if (mem) QMP_free_memory(mem);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

// Runs `iters` iterations of K channels each way between this node and
// `partner`; sizes[k] is the size of channel k.
void exchange(int partner, const std::vector<std::size_t>& sizes, Order order, Multiple multiple, bool registered,
              int iters = 3) {
  const int K = static_cast<int>(sizes.size());
  std::vector<std::unique_ptr<Buffer>> sbuf, rbuf;
  std::vector<QMP_msgmem_t> smem, rmem;
  std::vector<QMP_msghandle_t> sh, rh;
  for (int k = 0; k < K; ++k) {
    sbuf.push_back(std::make_unique<Buffer>(sizes[k], registered));
    rbuf.push_back(std::make_unique<Buffer>(sizes[k], registered));
    smem.push_back(QMP_declare_msgmem(sbuf[k]->data, sizes[k]));
    rmem.push_back(QMP_declare_msgmem(rbuf[k]->data, sizes[k]));
    sh.push_back(QMP_declare_send_to(smem[k], partner, 0));
    rh.push_back(QMP_declare_receive_from(rmem[k], partner, 0));
    ASSERT_NE(sh[k], nullptr);
    ASSERT_NE(rh[k], nullptr);
  }
  // The receive side: one combined handle, or K single ones.
  std::vector<QMP_msghandle_t> recv = rh, send = sh;
  if (multiple != Multiple::kNeither) recv = {QMP_declare_multiple(rh.data(), K)};
  if (multiple == Multiple::kBoth) send = {QMP_declare_multiple(sh.data(), K)};
  for (QMP_msghandle_t h : recv) ASSERT_NE(h, nullptr);
  for (QMP_msghandle_t h : send) ASSERT_NE(h, nullptr);

  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < K; ++k) {
      fill(sbuf[k]->data, sizes[k], me(), it, k);
      std::memset(rbuf[k]->data, 0, sizes[k]);
    }
    auto start_recv = [&] {
      for (QMP_msghandle_t h : recv) ASSERT_EQ(QMP_start(h), QMP_SUCCESS);
    };
    const std::size_t half = send.size() / 2;
    if (order == Order::kRecvFirst) start_recv();
    for (std::size_t j = 0; j < send.size(); ++j) {
      if (order == Order::kRecvBetween && j == half) start_recv();
      ASSERT_EQ(QMP_start(send[j]), QMP_SUCCESS);
    }
    if (order == Order::kRecvLast || (order == Order::kRecvBetween && half == send.size())) start_recv();
    for (QMP_msghandle_t h : recv) ASSERT_EQ(QMP_wait(h), QMP_SUCCESS);
    for (QMP_msghandle_t h : send) ASSERT_EQ(QMP_wait(h), QMP_SUCCESS);
    for (int k = 0; k < K; ++k) {
      std::vector<char> want(sizes[k]);
      fill(want.data(), sizes[k], partner, it, k);
      ASSERT_TRUE(sizes[k] == 0 || std::memcmp(rbuf[k]->data, want.data(), sizes[k]) == 0)
          << "iteration " << it << ", channel " << k << " of " << K << ": wrong contents";
    }
  }
  for (QMP_msghandle_t h : recv) QMP_free_msghandle(h);
  for (QMP_msghandle_t h : send) QMP_free_msghandle(h);
  for (int k = 0; k < K; ++k) {
    QMP_free_msgmem(smem[k]);
    QMP_free_msgmem(rmem[k]);
  }
}

// Partners: rank^1 (a torus neighbour on every layout tested) and, on 4 and
// 8 ranks, rank^(n-1) (on 2x2x2 the opposite corner: no neighbour link).
// One rank talks to itself.
std::vector<int> partners() {
  if (nodes() < 2) return {0};
  std::vector<int> p{me() ^ 1};
  if (nodes() > 2) p.push_back(me() ^ (nodes() - 1));
  return p;
}

std::string describe(const std::vector<std::size_t>& sizes, Order o, Multiple m, bool reg) {
  std::string s = "sizes";
  for (std::size_t n : sizes) s += " " + std::to_string(n);
  s += o == Order::kRecvFirst ? ", receives first" : o == Order::kRecvLast ? ", receives last" : ", receives between";
  s += m == Multiple::kRecvOnly ? ", multiple receive" : m == Multiple::kBoth ? ", multiple both" : ", no multiple";
  s += reg ? ", registered memory" : ", ordinary memory";
  return s;
}

void run_all(const std::vector<std::vector<std::size_t>>& cases) {
  for (int partner : partners())
    for (const auto& sizes : cases)
      for (Order o : {Order::kRecvLast, Order::kRecvFirst, Order::kRecvBetween})
        for (Multiple m : {Multiple::kRecvOnly, Multiple::kBoth, Multiple::kNeither})
          for (bool reg : {true, false}) {
            SCOPED_TRACE("partner " + std::to_string(partner) + ": " + describe(sizes, o, m, reg));
            exchange(partner, sizes, o, m, reg);
            if (::testing::Test::HasFatalFailure()) return;
          }
}

// The reported hang: K = 2 at exactly the eager limit.
TEST(Channels, TwoAtTheEagerLimit) {
  const std::size_t E = eager_limit();
  run_all({{E, E}, {E - 1, E - 1}, {E + 1, E + 1}});
}

TEST(Channels, ManyEqualSizesAroundAndFarAboveTheLimit) {
  const std::size_t E = eager_limit();
  std::vector<std::vector<std::size_t>> cases;
  for (int K : {3, 5, 16})
    for (std::size_t S : {E - 1, E, 4 * E})
      cases.push_back(std::vector<std::size_t>(K, S));
  cases.push_back(std::vector<std::size_t>(4, std::size_t{1} << 20));
  run_all(cases);
}

// Eager and large messages in one iteration on one (peer, tag): each send
// must meet the receive started in the same position, whatever arrives first.
TEST(Channels, MixedSizesMeetTheirOwnReceives) {
  const std::size_t E = eager_limit();
  run_all({{E, 8}, {8, E}, {64 * 1024, 100, E - 1, 3 * E, 0, E}, {0, 0, E}});
}

// A message longer than its receive: the receive reports QMP_MEMSIZE_ERR
// with the start of the message, the send completes -- also when the
// receive is below the eager limit (it announces nothing; the large send's
// RTS gets its CTS) and whichever side starts first.
TEST(Channels, LargeSendIntoASmallReceiveIsTruncatedNotHung) {
  const std::size_t E = eager_limit();
  for (int partner : partners())
    for (std::size_t small : {std::size_t{100}, E - 1, E})
      for (bool recv_first : {true, false}) {
        SCOPED_TRACE("receive of " + std::to_string(small) + (recv_first ? ", started first" : ", started last"));
        std::vector<char> out(4 * E), in(small, 0);
        fill(out.data(), out.size(), me(), 0, 9);
        QMP_msgmem_t sm = QMP_declare_msgmem(out.data(), out.size()), rm = QMP_declare_msgmem(in.data(), in.size());
        QMP_msghandle_t s = QMP_declare_send_to(sm, partner, 0), r = QMP_declare_receive_from(rm, partner, 0);
        if (recv_first) {
          ASSERT_EQ(QMP_start(r), QMP_SUCCESS);
        }
        ASSERT_EQ(QMP_start(s), QMP_SUCCESS);
        if (!recv_first) {
          ASSERT_EQ(QMP_start(r), QMP_SUCCESS);
        }
        EXPECT_EQ(QMP_wait(s), QMP_SUCCESS);
        EXPECT_EQ(QMP_wait(r), QMP_MEMSIZE_ERR);
        std::vector<char> want(4 * E);
        fill(want.data(), want.size(), partner, 0, 9);
        EXPECT_EQ(std::memcmp(in.data(), want.data(), small), 0);
        QMP_free_msghandle(s);
        QMP_free_msghandle(r);
        QMP_free_msgmem(sm);
        QMP_free_msgmem(rm);
      }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 3;
  int rc = RUN_ALL_TESTS();
  QMP_finalize_msg_passing();
  return rc;
}

// A halo gather declared afresh every iteration, as production codes do it
// (allocate, declare, start, wait, free): a freed handle's channel request
// is kept for the next handle on the same channel and buffer (issue 32).
// Freed memory comes back at the same address with another size, eager and
// above the limit in turn, so a request kept for the wrong length would
// truncate or overrun; on odd iterations the message memory is freed before
// the handle.
TEST(Channels, GatherDeclaredAfreshEveryIteration) {
  const std::size_t E = eager_limit();
  const std::size_t sizes[] = {1024, 8, E + 1, 1024, 3 * E, 100};
  for (int partner : partners())
    for (int it = 0; it < 36; ++it) {
      const std::size_t n = sizes[it % 6];
      SCOPED_TRACE("partner " + std::to_string(partner) + ", iteration " + std::to_string(it) + ", " +
                   std::to_string(n) + " bytes");
      QMP_mem_t* smem = QMP_allocate_memory(n);
      QMP_mem_t* rmem = QMP_allocate_memory(n + 64);  // 64 guard bytes past the message
      char* s = static_cast<char*>(QMP_get_memory_pointer(smem));
      char* r = static_cast<char*>(QMP_get_memory_pointer(rmem));
      fill(s, n, me(), it, 0);
      std::memset(r, 0x5a, n + 64);
      QMP_msgmem_t sm = QMP_declare_msgmem(s, n), rm = QMP_declare_msgmem(r, n);
      QMP_msghandle_t hs[2] = {QMP_declare_receive_from(rm, partner, 0), QMP_declare_send_to(sm, partner, 0)};
      QMP_msghandle_t both = QMP_declare_multiple(hs, 2);
      ASSERT_NE(both, nullptr);
      ASSERT_EQ(QMP_start(both), QMP_SUCCESS);
      ASSERT_EQ(QMP_wait(both), QMP_SUCCESS);
      std::vector<char> want(n);
      fill(want.data(), n, partner, it, 0);
      EXPECT_EQ(std::memcmp(r, want.data(), n), 0) << "wrong contents";
      for (std::size_t i = n; i < n + 64; ++i) ASSERT_EQ(r[i], 0x5a) << "byte " << i << " past the message written";
      if (it % 2) {
        QMP_free_msgmem(sm);
        QMP_free_msgmem(rm);
        QMP_free_msghandle(both);
      } else {
        QMP_free_msghandle(both);
        QMP_free_msgmem(sm);
        QMP_free_msgmem(rm);
      }
      QMP_free_memory(smem);
      QMP_free_memory(rmem);
    }
}
