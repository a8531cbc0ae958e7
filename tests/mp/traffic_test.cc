// Traffic patterns on a torus of ranks: all six neighbours at once in both
// directions, ANY_SOURCE / ANY_TAG receives, non-neighbour (on-demand)
// connections, synchronous sends and message ordering across protocols.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <vector>

#include "tests/mp/rank_main.h"

namespace meshmp {
namespace {

using mesh::Direction;
using mesh::kAnySource;
using mesh::kAnyTag;
using mesh::Request;
using mesh::Status;
using testing::engine;
using testing::pattern;

// Every rank sends 1 MiB to each of its 2*D neighbours and receives from each,
// all at once: no deadlock, data verified.
TEST(Traffic, AllNeighboursBothDirectionsAtOnce) {
  mesh::Engine& e = engine();
  const int ndirs = 2 * e.torus().ndims();
  const std::size_t n = 1 << 20;
  std::vector<std::vector<unsigned char>> out(ndirs), in(ndirs);
  std::vector<Request*> reqs;
  for (int d = 0; d < ndirs; ++d) {
    int peer = e.neighbour(Direction::from_index(d));
    if (peer < 0 || peer == e.rank()) continue;
    in[d].assign(n, 0);
    out[d].resize(n);
    for (std::size_t i = 0; i < n; ++i) out[d][i] = pattern(e.rank(), i, d);
    // The message sent in direction d arrives from the opposite direction.
    const int opposite = d ^ 1;
    reqs.push_back(e.irecv(in[d].data(), n, e.neighbour(Direction::from_index(d)), 100 + opposite, 0));
    reqs.push_back(e.isend(out[d].data(), n, peer, 100 + d, 0));
  }
  std::vector<Status> st(reqs.size());
  e.waitall(reqs.size(), reqs.data(), st.data());
  for (const Status& s : st) EXPECT_EQ(s.error, mesh::Error::kOk);
  for (int d = 0; d < ndirs; ++d) {
    if (in[d].empty()) continue;
    const int from = e.neighbour(Direction::from_index(d));
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(in[d][i], pattern(from, i, d ^ 1)) << "direction " << d << " byte " << i;
  }
  if (e.size() == 8 && e.torus().ndims() == 3) {
    // Six links on a 3-D torus, each of which carried traffic.
    for (int d = 0; d < ndirs; ++d) EXPECT_NE(e.direction_stats(Direction::from_index(d)), nullptr);
  }
}

// Rank 0 receives one message from every other rank with ANY_SOURCE and
// ANY_TAG; each carries its sender and tag, which the status must report.
TEST(Traffic, AnySourceAnyTag) {
  mesh::Engine& e = engine();
  // One context per round: a fast sender's second message must not meet the
  // first round's ANY_SOURCE receive.
  for (std::size_t n : {std::size_t{64}, std::size_t{40000}}) {
    const std::uint32_t ctx = n < 1000 ? 1 : 6;
    if (e.rank() == 0) {
      std::set<int> seen;
      for (int k = 1; k < e.size(); ++k) {
        std::vector<int> buf(n / sizeof(int), -1);
        Status st;
        e.wait(e.irecv(buf.data(), n, kAnySource, kAnyTag, ctx), &st);
        ASSERT_EQ(st.error, mesh::Error::kOk);
        EXPECT_EQ(st.tag, 1000 + st.source);
        EXPECT_EQ(st.bytes, n);
        EXPECT_EQ(buf[0], st.source);
        EXPECT_EQ(buf.back(), st.source);
        EXPECT_TRUE(seen.insert(st.source).second) << "two messages from " << st.source;
      }
      EXPECT_EQ(static_cast<int>(seen.size()), e.size() - 1);
    } else {
      std::vector<int> buf(n / sizeof(int), e.rank());
      e.wait(e.isend(buf.data(), n, 0, 1000 + e.rank(), ctx), nullptr);
    }
  }
}

// Every rank sends to every other rank, neighbours or not: links to
// non-neighbours are made on first use, and sends issued before they are up
// are delivered in order.
TEST(Traffic, AllPairsIncludingNonNeighbours) {
  mesh::Engine& e = engine();
  const int p = e.size();
  const int kMsgs = 5;
  std::vector<std::vector<int>> in(p, std::vector<int>(kMsgs, -1));
  std::vector<int> out(kMsgs * p);
  std::vector<Request*> reqs;
  for (int src = 0; src < p; ++src)
    if (src != e.rank())
      for (int k = 0; k < kMsgs; ++k) reqs.push_back(e.irecv(&in[src][k], sizeof(int), src, 5, 2));
  for (int dst = 0; dst < p; ++dst)
    if (dst != e.rank())
      for (int k = 0; k < kMsgs; ++k) {
        out[dst * kMsgs + k] = e.rank() * 1000 + k;
        reqs.push_back(e.isend(&out[dst * kMsgs + k], sizeof(int), dst, 5, 2));
      }
  e.waitall(reqs.size(), reqs.data(), nullptr);
  for (int src = 0; src < p; ++src) {
    if (src == e.rank()) continue;
    for (int k = 0; k < kMsgs; ++k) EXPECT_EQ(in[src][k], src * 1000 + k) << "from " << src;
  }
}

// Every pair, 8 B, 64 KiB and 1 MiB, all under one tag: each arrives intact
// and in the order it was sent from its source (issue 19: on a mesh fabric
// the non-neighbours' messages are switched by the kernel).
TEST(Traffic, AllPairsOfEverySizeInOrder) {
  mesh::Engine& e = engine();
  const int p = e.size(), me = e.rank();
  const std::size_t sizes[] = {8, 64 << 10, 1 << 20};
  auto byte = [](int src, int dst, int k, std::size_t i) {
    return static_cast<unsigned char>(src * 31 + dst * 7 + k * 13 + i * 5 + (i >> 11));
  };
  std::vector<std::vector<unsigned char>> in, out;
  std::vector<Request*> reqs;
  for (int src = 0; src < p; ++src)
    if (src != me)
      for (int k = 0; k < 3; ++k) {
        in.emplace_back(sizes[k]);
        reqs.push_back(e.irecv(in.back().data(), sizes[k], src, 19, 2));
      }
  for (int dst = 0; dst < p; ++dst)
    if (dst != me)
      for (int k = 0; k < 3; ++k) {
        out.emplace_back(sizes[k]);
        for (std::size_t i = 0; i < sizes[k]; ++i) out.back()[i] = byte(me, dst, k, i);
        reqs.push_back(e.isend(out.back().data(), sizes[k], dst, 19, 2));
      }
  std::vector<Status> st(reqs.size());
  e.waitall(reqs.size(), reqs.data(), st.data());
  std::size_t n = 0;
  for (int src = 0; src < p; ++src)
    if (src != me)
      for (int k = 0; k < 3; ++k, ++n) {
        ASSERT_EQ(st[n].error, mesh::Error::kOk) << "from " << src << ": " << mesh::error_name(st[n].error);
        ASSERT_EQ(st[n].bytes, sizes[k]) << "from " << src << ": message " << k << " arrived out of order";
        std::size_t bad = 0;
        for (std::size_t i = 0; i < sizes[k]; ++i) bad += in[n][i] != byte(src, me, k, i);
        EXPECT_EQ(bad, 0u) << "from " << src << ", " << sizes[k] << " bytes";
      }
}

// A small message sent after a large one from the same source with the same
// tag must not overtake it, though it needs no handshake.
TEST(Traffic, EagerDoesNotOvertakeRendezvous) {
  mesh::Engine& e = engine();
  if (e.size() < 2 || e.rank() > 1) return;
  const std::size_t big = 1 << 18;
  if (e.rank() == 0) {
    std::vector<char> a(big, 'A'), b(16, 'B');
    Request* r[2] = {e.isend(a.data(), big, 1, 9, 3), e.isend(b.data(), 16, 1, 9, 3)};
    e.waitall(2, r, nullptr);
  } else {
    std::vector<char> x(big), y(big);
    Status s1, s2;
    // Post the receives only after both messages have had time to arrive.
    while (!e.iprobe(0, 9, 3, nullptr)) {}
    Request* r[2] = {e.irecv(x.data(), big, 0, 9, 3), e.irecv(y.data(), big, 0, 9, 3)};
    e.wait(r[0], &s1);
    e.wait(r[1], &s2);
    EXPECT_EQ(s1.bytes, big);
    EXPECT_EQ(x[0], 'A');
    EXPECT_EQ(s2.bytes, 16u);
    EXPECT_EQ(y[0], 'B');
  }
}

// A synchronous send completes only after the receive was matched.
TEST(Traffic, SynchronousSendWaitsForTheMatch) {
  mesh::Engine& e = engine();
  if (e.size() < 2 || e.rank() > 1) return;
  int v = 42, w = 0, token = 0;
  if (e.rank() == 0) {
    Request* s = e.isend(&v, sizeof v, 1, 11, 4, mesh::SendMode::kSynchronous);
    // Rank 1 will not post its receive until it hears from us on tag 12.
    for (int i = 0; i < 2000; ++i) {
      e.progress();
      ASSERT_FALSE(e.is_complete(s)) << "synchronous send completed before the receive was posted";
    }
    e.wait(e.isend(&token, sizeof token, 1, 12, 4), nullptr);
    e.wait(s, nullptr);
  } else {
    e.wait(e.irecv(&token, sizeof token, 0, 12, 4), nullptr);
    e.wait(e.irecv(&w, sizeof w, 0, 11, 4), nullptr);
    EXPECT_EQ(w, 42);
  }
}

// Different contexts never match each other's traffic; iprobe sees a
// message without receiving it; cancel takes back a posted receive.
TEST(Traffic, ContextsProbeAndCancel) {
  mesh::Engine& e = engine();
  if (e.size() < 2 || e.rank() > 1) return;
  if (e.rank() == 0) {
    int a = 1, b = 2;
    Request* r[2] = {e.isend(&a, sizeof a, 1, 0, 20), e.isend(&b, sizeof b, 1, 0, 21)};
    e.waitall(2, r, nullptr);
  } else {
    Status st;
    e.probe(0, 0, 21, &st);
    EXPECT_EQ(st.bytes, sizeof(int));
    int x = 0, y = 0;
    e.wait(e.irecv(&y, sizeof y, 0, 0, 21), nullptr);
    e.wait(e.irecv(&x, sizeof x, 0, 0, 20), nullptr);
    EXPECT_EQ(x, 1);
    EXPECT_EQ(y, 2);
    int z = 0;
    Request* never = e.irecv(&z, sizeof z, 0, 77, 22);
    EXPECT_TRUE(e.cancel(never));
    e.wait(never, &st);
    EXPECT_TRUE(st.cancelled);
    EXPECT_FALSE(e.iprobe(kAnySource, kAnyTag, 22, nullptr));
  }
}

// A persistent receive/send pair restarted many times.
TEST(Traffic, PersistentRequestsRestarted) {
  mesh::Engine& e = engine();
  if (e.size() < 2 || e.rank() > 1) return;
  int val = 0;
  const int peer = 1 - e.rank();
  Request* r = e.rank() == 0 ? e.send_init(&val, sizeof val, peer, 30, 5)
                             : e.recv_init(&val, sizeof val, peer, 30, 5);
  for (int i = 0; i < 1000; ++i) {
    if (e.rank() == 0) val = i;
    e.start(r);
    e.wait(r, nullptr);
    if (e.rank() == 1) {
      ASSERT_EQ(val, i);
    }
  }
  e.free(r);
}

// waitany returns each completed request once; testany reports none while
// nothing has arrived; requests given as nullptr are skipped.
TEST(Traffic, WaitanyAndTestany) {
  mesh::Engine& e = engine();
  if (e.size() < 2 || e.rank() > 1) return;
  constexpr int kN = 4;
  int vals[kN] = {};
  if (e.rank() == 1) {
    Request* reqs[kN + 1] = {};
    for (int k = 0; k < kN; ++k) reqs[k] = e.irecv(&vals[k], sizeof(int), 0, 40 + k, 7);
    Status st;
    EXPECT_EQ(e.testany(kN + 1, reqs, &st), -1);  // rank 0 sends only after our go
    int go = 1;
    e.wait(e.isend(&go, sizeof go, 0, 39, 7), nullptr);
    std::set<int> done;
    for (int k = 0; k < kN; ++k) {
      int i = e.waitany(kN + 1, reqs, &st);
      ASSERT_GE(i, 0);
      ASSERT_LT(i, kN);
      EXPECT_EQ(st.tag, 40 + i);
      EXPECT_EQ(vals[i], 100 + i);
      EXPECT_TRUE(done.insert(i).second);
      reqs[i] = nullptr;
    }
    EXPECT_EQ(e.waitany(kN + 1, reqs, &st), -1);  // nothing left
  } else {
    int go = 0;
    e.wait(e.irecv(&go, sizeof go, 1, 39, 7), nullptr);
    int out[kN];
    Request* reqs[kN];
    for (int k = kN - 1; k >= 0; --k) {
      out[k] = 100 + k;
      reqs[k] = e.isend(&out[k], sizeof(int), 1, 40 + k, 7);
    }
    e.waitall(kN, reqs, nullptr);
  }
}

// Receiver-ready channels: a large channel send is written on the receive's
// announcement (no RTS), whichever side starts first; an eager-size send on
// the same channel skips its announcement; a short buffer reports truncation.
TEST(Traffic, ChannelsWriteOnTheReceiversAnnouncement) {
  mesh::Engine& e = engine();
  if (e.size() < 2 || e.rank() > 1) return;
  const int peer = 1 - e.rank();
  // Above the eager limit to the peer (128 KiB over a byte stream).
  const std::size_t big = std::max<std::size_t>(64 << 10, 2 * e.eager_limit_to(peer)), small = 100;
  std::vector<unsigned char> out(big), in(big);
  Request* send_big = e.channel_send_init(out.data(), big, peer, 50, 8);
  Request* send_small = e.channel_send_init(out.data(), small, peer, 50, 8);
  Request* recv = e.channel_recv_init(in.data(), big, peer, 50, 8);
  const mesh::LinkStats* st = e.peer_stats(peer);
  ASSERT_NE(st, nullptr);
  const auto rts0 = st->rendezvous_sent, ready0 = st->ready_writes;
  int big_sends = 0;
  for (int round = 0; round < 200; ++round) {
    const bool use_small = round % 5 == 4;
    const std::size_t n = use_small ? small : big;
    for (std::size_t i = 0; i < n; ++i) out[i] = testing::pattern(e.rank(), i, round);
    Request* s = use_small ? send_small : send_big;
    big_sends += !use_small;
    // Alternate who starts first: the announcement is early or late.
    Status rs;
    if (round % 2 == 0) {
      e.start(recv);
      e.start(s);
    } else {
      e.start(s);
      for (int k = 0; k < 50; ++k) e.progress();
      e.start(recv);
    }
    e.wait(s, nullptr);
    e.wait(recv, &rs);
    ASSERT_EQ(rs.error, mesh::Error::kOk) << round;
    ASSERT_EQ(rs.bytes, n) << round;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(in[i], testing::pattern(peer, i, round)) << round << " " << i;
  }
  EXPECT_EQ(st->rendezvous_sent - rts0, 0u) << "a channel send used RTS/CTS";
  EXPECT_EQ(static_cast<int>(st->ready_writes - ready0), big_sends);
  // A receive buffer shorter than the message: truncated, reported.
  Request* short_recv = e.channel_recv_init(in.data(), big / 2, peer, 51, 8);
  Request* long_send = e.channel_send_init(out.data(), big, peer, 51, 8);
  Status ts;
  e.start(short_recv);
  e.start(long_send);
  e.wait(long_send, nullptr);
  e.wait(short_recv, &ts);
  EXPECT_EQ(ts.error, mesh::Error::kTruncate);
  EXPECT_EQ(ts.bytes, big / 2);
  for (Request* r : {send_big, send_small, recv, short_recv, long_send}) e.free(r);
}

// Registered receive memory (seed 000 §3.7): a channel receive of the eager
// limit or more announces it, and the send is one write into it, with or
// without CMA (MESHMP_SHM_CMA=0 runs this too), never DATA frames or a copy
// through the slots. Smaller receives announce nothing and their messages
// come eager (one frame: an announcement would only add one).
TEST(Traffic, ChannelsIntoRegisteredMemoryAreWrittenDirectly) {
  mesh::Engine& e = engine();
  if (e.size() < 2 || e.rank() > 1) return;
  const int peer = 1 - e.rank();
  const std::size_t big = 64 << 10;
  auto* in = static_cast<unsigned char*>(e.allocate_registered(big, 64));
  if (!in && errno == ENOTSUP) GTEST_SKIP() << "no provider of this job registers memory (MESHMP_PROVIDER=tcp)";
  if (e.host_of(peer) != e.host_of(e.rank())) {
    e.free_registered(in);
    GTEST_SKIP() << "rank " << peer << " is on another host: its writes cross tcp, not shared memory";
  }
  if (const char* p = std::getenv("MESHMP_PROVIDER"); p && std::string(p) == "ofi") {
    e.free_registered(in);
    GTEST_SKIP() << "ofi's writes are network operations, not copies into shared memory";
  }
  ASSERT_NE(in, nullptr);
  std::vector<unsigned char> out(big);
  const mesh::LinkStats* st = e.peer_stats(peer);
  ASSERT_NE(st, nullptr);
  const auto reg0 = st->registered_writes, eager0 = st->eager_sent, data0 = st->data_frames;
  const std::size_t sizes[] = {0, 1, 100, 4096, 16383, 16384, big};
  int round = 0;
  for (std::size_t n : sizes) {
    Request* send = e.channel_send_init(out.data(), n, peer, 60, 8);
    Request* recv = e.channel_recv_init(in, n, peer, 60, 8);
    for (int k = 0; k < 5; ++k, ++round) {
      for (std::size_t i = 0; i < n; ++i) out[i] = testing::pattern(e.rank(), i, round);
      e.start(recv);
      // A round trip behind the announcement on the same link: when it is
      // back, the peer's announcement is here too.
      char token = 0;
      Request* sync[2] = {e.irecv(&token, 1, peer, 61, 8), e.isend(&token, 1, peer, 61, 8)};
      e.waitall(2, sync, nullptr);
      e.start(send);
      Status rs;
      e.wait(send, nullptr);
      e.wait(recv, &rs);
      ASSERT_EQ(rs.error, mesh::Error::kOk) << n;
      ASSERT_EQ(rs.bytes, n);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(in[i], testing::pattern(peer, i, round)) << n << " " << i;
    }
    e.free(send);
    e.free(recv);
  }
  const std::size_t eager_sizes = 5;  // 0, 1, 100, 4096, 16383: below the eager limit
  EXPECT_EQ(static_cast<std::size_t>(st->registered_writes - reg0), 5 * (std::size(sizes) - eager_sizes));
  EXPECT_EQ(st->eager_sent - eager0, 5 * std::size(sizes) + 5 * eager_sizes) << "the sync tokens and the small sends";
  EXPECT_EQ(st->data_frames - data0, 0u);
  EXPECT_TRUE(e.free_registered(in));
  EXPECT_FALSE(e.free_registered(in));
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
