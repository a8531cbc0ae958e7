// The forwarding agent (issue 31, mesh/engine/routed.cc) on a mesh fabric
// whose cables join torus neighbours only (fabric = "mesh" on shm): every
// pair of ranks exchanges messages of 0 B, 8 B, 64 KiB and 1 MiB, several
// per pair with one tag so that MPI's order must hold; no rank opens a link
// to a rank that is not its neighbour; a relay blocked in a long receive
// still forwards; a flood through a relay whose destination does not
// receive is held back by the end-to-end credits, not queued at the relay;
// a relay flooded beyond its unexpected limit still forwards.
// Run on 2x2x2, 3x3x3 and 4x4x4 (mp_test in BUILD).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "mesh/engine.h"
#include "routing/sdf.h"
#include "tests/mp/rank_main.h"
#include "tests/support/memory.h"

namespace meshmp {
namespace {

using mesh::Error;
using mesh::Request;
using mesh::SendMode;
using mesh::Status;
using testing::engine;
using testing::pattern;

constexpr std::uint32_t kContext = 0;

bool neighbours(int a, int b) {
  const mesh::Torus& t = engine().torus();
  for (int d = 0; d < 2 * t.ndims(); ++d)
    if (t.neighbour(a, mesh::Direction::from_index(d)) == b) return true;
  return false;
}

void fill(std::vector<unsigned char>& v, int src, unsigned salt) {
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = pattern(src, i, salt);
}

// The SDF route from 0 to the rank farthest from it, and the rank after 0
// on it (a relay).
struct Path {
  int src = 0, relay = -1, dst = -1;
};
Path far_path() {
  const mesh::Torus& t = engine().torus();
  Path p;
  for (int r = 0; r < t.size(); ++r)
    if (p.dst < 0 || t.hop_distance(0, r) > t.hop_distance(0, p.dst)) p.dst = r;
  p.relay = routing::sdf_route(t, 0, p.dst)[1];
  return p;
}

// First, so that no other traffic has crossed the relay yet: 2000 eager
// messages of 8 KiB (16 MiB) to a destination that sleeps for a second
// without receiving. The last relay before it, itself blocked in a receive,
// holds at most the source's end-to-end credits' worth of them (32 frames)
// in its queue towards the destination -- without them it would queue
// nearly all -- and all arrive, in order, once it wakes.
TEST(Routed, AFloodThroughARelayIsBoundedByEndToEndCredits) {
  mesh::Engine& e = engine();
  const Path path = far_path();
  const int me = e.rank();
  constexpr int kCount = 2000;
  constexpr std::size_t kBytes = 8192;
  const std::vector<int> route = routing::sdf_route(e.torus(), path.src, path.dst);
  const int last_relay = route[route.size() - 2];
  if (me == last_relay) {
    int token = 0;
    e.wait(e.irecv(&token, sizeof token, path.dst, 21, kContext), nullptr);
    const mesh::LinkStats* out = e.peer_stats(path.dst);
    ASSERT_NE(out, nullptr);
    EXPECT_GE(out->relayed, static_cast<std::uint64_t>(kCount));
    EXPECT_LE(out->relay_queued_max, 32u) << "the relay queued more than the source's end-to-end credits";
    // Only now may the others go on to traffic that crosses this relay too.
    for (int p = 0; p < e.size(); ++p)
      if (p != me) e.send(nullptr, 0, p, 22, kContext, SendMode::kStandard, nullptr);
    return;
  } else if (me == path.src) {
    std::vector<unsigned char> m(kBytes);
    std::vector<Request*> reqs;
    std::vector<std::vector<unsigned char>> bufs(kCount, m);
    for (int i = 0; i < kCount; ++i) {
      fill(bufs[i], me, static_cast<unsigned>(i));
      reqs.push_back(e.isend(bufs[i].data(), kBytes, path.dst, 20, kContext));
    }
    e.waitall(reqs.size(), reqs.data(), nullptr);
  } else if (me == path.dst) {
    ::sleep(1);  // no progress at all: the source runs out of credits
    std::vector<unsigned char> m(kBytes), want(kBytes);
    for (int i = 0; i < kCount; ++i) {
      e.wait(e.irecv(m.data(), kBytes, path.src, 20, kContext), nullptr);
      fill(want, path.src, static_cast<unsigned>(i));
      ASSERT_TRUE(m == want) << "message " << i;
    }
    const int token = 1;
    e.send(&token, sizeof token, last_relay, 21, kContext, SendMode::kStandard, nullptr);
  }
  e.wait(e.irecv(nullptr, 0, last_relay, 22, kContext), nullptr);
}

// `count` messages of `bytes` from every rank to every other, all with one
// tag: the k-th receive from a source must hold its k-th message.
void all_pairs(std::size_t bytes, int count) {
  mesh::Engine& e = engine();
  const int n = e.size(), me = e.rank();
  std::vector<std::vector<unsigned char>> out, in;
  std::vector<Request*> reqs;
  std::vector<int> from;
  for (int p = 0; p < n; ++p) {
    if (p == me) continue;
    for (int k = 0; k < count; ++k) {
      in.emplace_back(bytes, 0xee);
      from.push_back(p);
      reqs.push_back(e.irecv(in.back().data(), bytes, p, 5, kContext));
    }
  }
  out.reserve(static_cast<std::size_t>(n) * count);
  for (int k = 0; k < count; ++k)
    for (int p = 0; p < n; ++p) {
      if (p == me) continue;
      out.emplace_back(bytes);
      fill(out.back(), me, static_cast<unsigned>(k * 1000 + p));
      reqs.push_back(e.isend(out.back().data(), bytes, p, 5, kContext));
    }
  std::vector<Status> st(reqs.size());
  e.waitall(reqs.size(), reqs.data(), st.data());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const int p = from[i];
    const int k = static_cast<int>(i % count);
    ASSERT_EQ(st[i].error, Error::kOk) << "from " << p;
    ASSERT_EQ(st[i].source, p);
    ASSERT_EQ(st[i].bytes, bytes);
    std::vector<unsigned char> want(bytes);
    fill(want, p, static_cast<unsigned>(k * 1000 + me));
    ASSERT_TRUE(in[i] == want) << bytes << " B message " << k << " from rank " << p << " is wrong or out of order";
  }
  for (std::size_t i = in.size(); i < st.size(); ++i) ASSERT_EQ(st[i].error, Error::kOk);
}

TEST(Routed, AllPairsZeroBytesInOrder) { all_pairs(0, 3); }
TEST(Routed, AllPairsEightBytesInOrder) { all_pairs(8, 3); }
TEST(Routed, AllPairs64KiBInOrder) { all_pairs(64 * 1024, 2); }
TEST(Routed, AllPairsOneMiBInOrder) { all_pairs(1 << 20, 1); }

// Synchronous sends and a cancelled one cross relays too: SYNC_ACK and
// CANCEL/CANCEL_ACK are routed frames like the rest.
TEST(Routed, SynchronousSendsToEveryRank) {
  mesh::Engine& e = engine();
  const int n = e.size(), me = e.rank();
  std::vector<int> got(n, -1);
  std::vector<Request*> reqs;
  for (int p = 0; p < n; ++p)
    if (p != me) reqs.push_back(e.irecv(&got[p], sizeof(int), p, 6, kContext));
  for (int p = 0; p < n; ++p)
    if (p != me) reqs.push_back(e.isend(&me, sizeof me, p, 6, kContext, SendMode::kSynchronous));
  std::vector<Status> st(reqs.size());
  e.waitall(reqs.size(), reqs.data(), st.data());
  for (const Status& s : st) ASSERT_EQ(s.error, Error::kOk);
  for (int p = 0; p < n; ++p)
    if (p != me) {
      EXPECT_EQ(got[p], p);
    }
}

// Channels (receiver-ready: RECV_READY announcements, numbered starts)
// between the ends of the longest route, 10 starts of an 8-byte and of a
// 200 KB message each way: the large ones stream after the announcement.
TEST(Routed, ChannelsAcrossRelays) {
  mesh::Engine& e = engine();
  const Path path = far_path();
  const int me = e.rank();
  if (me != path.src && me != path.dst) return;
  const int other = me == path.src ? path.dst : path.src;
  for (std::size_t bytes : {std::size_t{8}, std::size_t{200000}}) {
    std::vector<unsigned char> out(bytes), in(bytes), want(bytes);
    Request* s = e.channel_send_init(out.data(), bytes, other, 40, kContext);
    Request* r = e.channel_recv_init(in.data(), bytes, other, 40, kContext);
    for (int k = 0; k < 10; ++k) {
      fill(out, me, static_cast<unsigned>(k));
      e.start(r);
      e.start(s);
      Status st;
      e.wait(s, &st);
      ASSERT_EQ(st.error, Error::kOk);
      e.wait(r, &st);
      ASSERT_EQ(st.error, Error::kOk);
      ASSERT_EQ(st.bytes, bytes);
      fill(want, other, static_cast<unsigned>(k));
      ASSERT_TRUE(in == want) << bytes << " B channel message " << k;
    }
    e.free(s);
    e.free(r);
  }
}

// MPI_Cancel's CANCEL/CANCEL_ACK cross relays: a synchronous send that no
// receive matches is retracted; a second one, matched, is not.
TEST(Routed, CancelAcrossRelays) {
  mesh::Engine& e = engine();
  const Path path = far_path();
  const int me = e.rank();
  int v = 7;
  if (me == path.src) {
    Request* s = e.isend(&v, sizeof v, path.dst, 50, kContext, SendMode::kSynchronous);
    e.cancel(s);  // (it has left: the receiver is asked, through the relays)
    Status st;
    e.wait(s, &st);
    EXPECT_TRUE(st.cancelled);
    e.send(&v, sizeof v, path.dst, 51, kContext, SendMode::kStandard, nullptr);  // "now receive 52"
    s = e.isend(&v, sizeof v, path.dst, 52, kContext, SendMode::kSynchronous);
    int ack = 0;
    e.wait(e.irecv(&ack, sizeof ack, path.dst, 53, kContext), nullptr);  // it matched
    e.cancel(s);
    e.wait(s, &st);
    EXPECT_FALSE(st.cancelled);
    EXPECT_EQ(st.error, Error::kOk);
  } else if (me == path.dst) {
    int got = 0;
    e.wait(e.irecv(&got, sizeof got, path.src, 51, kContext), nullptr);
    Status st;
    e.wait(e.irecv(&got, sizeof got, path.src, 52, kContext), &st);
    EXPECT_EQ(got, 7);
    e.send(&got, sizeof got, path.src, 53, kContext, SendMode::kStandard, nullptr);
    EXPECT_FALSE(e.iprobe(path.src, 50, kContext, &st)) << "the cancelled message is still there";
  }
}

// A receive from a routed peer while its last relay -- a neighbour -- has
// filled the link with messages of its own that nobody receives yet and the
// unexpected buffer is full (run with MESHMP_UNEXPECTED_LIMIT=0: BUILD,
// routed_limit_*): the neighbour's frames must not keep the routed peer's
// message, behind them on the same link, from the receive.
TEST(Routed, AReceiveFromARoutedPeerIsNotStuckBehindItsRelaysOwnMessages) {
  mesh::Engine& e = engine();
  const Path path = far_path();
  const int me = e.rank();
  const std::vector<int> route = routing::sdf_route(e.torus(), path.src, path.dst);
  const int last_relay = route[route.size() - 2];
  constexpr int kCount = 100;
  std::vector<unsigned char> m(8192);
  if (me == last_relay) {
    std::vector<Request*> reqs;
    for (int i = 0; i < kCount; ++i) reqs.push_back(e.isend(m.data(), m.size(), path.dst, 60, kContext));
    // The first of them fill the link's slots as they start; only then may
    // the source's message come, behind them (its route back to the source
    // does not cross the destination).
    e.send(nullptr, 0, path.src, 62, kContext, SendMode::kStandard, nullptr);
    e.waitall(reqs.size(), reqs.data(), nullptr);
  } else if (me == path.src) {
    int v = 42;
    e.wait(e.irecv(nullptr, 0, last_relay, 62, kContext), nullptr);
    e.send(&v, sizeof v, path.dst, 61, kContext, SendMode::kStandard, nullptr);
  } else if (me == path.dst) {
    int v = 0;
    Status st;
    e.wait(e.irecv(&v, sizeof v, path.src, 61, kContext), &st);
    EXPECT_EQ(st.error, Error::kOk);
    EXPECT_EQ(v, 42);
    for (int i = 0; i < kCount; ++i) e.wait(e.irecv(m.data(), m.size(), last_relay, 60, kContext), nullptr);
  }
}

// A relay whose neighbour floods it with messages of its own far beyond the
// unexpected limit (32 MB at 1 MiB: BUILD, routed_flooded_relay_*) while
// the relay waits in a receive from another rank, which only the routed
// messages behind the flood, from the flooder to that rank, let it send
// (they leave half a second after the flood).
// Those must pass the flood -- it shares their link into the relay -- and
// the relay's memory must stay bounded: it takes the neighbour's messages
// beyond the limit only while their credits, withheld, leave tokens for
// the routed frames (mesh/credits.h). Before, the flood stalled the link,
// the routed messages with it, and all three ranks waited for ever.
TEST(Routed, AFloodedRelayStillForwardsInBoundedMemory) {
  mesh::Engine& e = engine();
  const Path path = far_path();
  const int me = e.rank();
  constexpr int kFlood = 2000, kRouted = 20;
  constexpr std::size_t kBytes = 16000;  // eager
  if (me == path.src) {
    std::vector<std::vector<unsigned char>> bufs(kFlood, std::vector<unsigned char>(kBytes));
    std::vector<Request*> reqs;
    for (int i = 0; i < kFlood; ++i) {
      fill(bufs[i], me, static_cast<unsigned>(i));
      reqs.push_back(e.isend(bufs[i].data(), kBytes, path.relay, 70, kContext));
    }
    // Half a second of progress before the routed messages, so that the
    // relay meets as much of the flood as it will take first.
    for (const auto t0 = std::chrono::steady_clock::now();
         std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(500);)
      if (!e.progress()) ::usleep(100);
    for (int i = 0; i < kRouted; ++i) e.send(&i, sizeof i, path.dst, 71, kContext, SendMode::kStandard, nullptr);
    std::vector<Status> sts(kFlood);
    e.waitall(reqs.size(), reqs.data(), sts.data());
    for (const Status& st : sts) ASSERT_EQ(st.error, Error::kOk);
  } else if (me == path.dst) {
    for (int i = 0; i < kRouted; ++i) {
      int v = -1;
      e.wait(e.irecv(&v, sizeof v, path.src, 71, kContext), nullptr);
      ASSERT_EQ(v, i);
    }
    e.send(nullptr, 0, path.relay, 72, kContext, SendMode::kStandard, nullptr);
  } else if (me == path.relay) {
    const long before = testing_support::max_rss_kib();
    Status st;
    e.wait(e.irecv(nullptr, 0, path.dst, 72, kContext), &st);
    EXPECT_EQ(st.error, Error::kOk);
    EXPECT_RSS_GROWTH_BELOW(before, 12 * 1024) << "the relay buffered the flood beyond the limit";
    const mesh::LinkStats* in = e.peer_stats(path.src);
    ASSERT_NE(in, nullptr);
    EXPECT_GT(in->credits_withheld, 0u) << "the flood never went beyond the limit";
    std::vector<unsigned char> m(kBytes), want(kBytes);
    for (int i = 0; i < kFlood; ++i) {
      e.wait(e.irecv(m.data(), kBytes, path.src, 70, kContext), nullptr);
      fill(want, path.src, static_cast<unsigned>(i));
      ASSERT_TRUE(m == want) << "message " << i;
    }
  }
}

// MESHMP_STATS' link list, from the engine: no link to a non-neighbour.
TEST(Routed, NoLinkToARankThatIsNotANeighbour) {
  mesh::Engine& e = engine();
  int far = 0;
  for (int p = 0; p < e.size(); ++p) {
    if (p == e.rank() || neighbours(e.rank(), p)) continue;
    ++far;
    EXPECT_EQ(e.peer_stats(p), nullptr) << "rank " << e.rank() << " has a direct link to rank " << p;
  }
  EXPECT_GT(far, 0) << "the torus has no pair that is not neighbours";
}

// The relay sits in a blocking receive that only the destination's last
// message ends, while 200 eager and 20 rendezvous messages cross it.
TEST(Routed, ARelayBlockedInALongReceiveStillForwards) {
  mesh::Engine& e = engine();
  const Path path = far_path();
  const int me = e.rank();
  if (me == path.relay) {
    int token = 0;
    Status st;
    Request* r = e.irecv(&token, sizeof token, path.dst, 11, kContext);
    e.wait(r, &st);
    EXPECT_EQ(st.error, Error::kOk);
    EXPECT_EQ(token, 42);
    const mesh::LinkStats* out = e.peer_stats(routing::sdf_route(e.torus(), path.src, path.dst)[2]);
    ASSERT_NE(out, nullptr);
    EXPECT_GE(out->relayed, 220u);
  } else if (me == path.src) {
    std::vector<unsigned char> big(100000);
    for (int i = 0; i < 200; ++i) e.send(&i, sizeof i, path.dst, 10, kContext, SendMode::kStandard, nullptr);
    for (int i = 0; i < 20; ++i) {
      fill(big, me, static_cast<unsigned>(i));
      e.send(big.data(), big.size(), path.dst, 12, kContext, SendMode::kStandard, nullptr);
    }
  } else if (me == path.dst) {
    for (int i = 0; i < 200; ++i) {
      int v = -1;
      Status st;
      e.wait(e.irecv(&v, sizeof v, path.src, 10, kContext), &st);
      ASSERT_EQ(v, i);
    }
    std::vector<unsigned char> big(100000), want(100000);
    for (int i = 0; i < 20; ++i) {
      e.wait(e.irecv(big.data(), big.size(), path.src, 12, kContext), nullptr);
      fill(want, path.src, static_cast<unsigned>(i));
      ASSERT_TRUE(big == want) << "rendezvous message " << i;
    }
    const int token = 42;
    e.send(&token, sizeof token, path.relay, 11, kContext, SendMode::kStandard, nullptr);
  }
}

// One-sided flag writes to a rank no cable reaches go as FLAG frames.
TEST(Routed, FlagWritesReachARoutedPeer) {
  mesh::Engine& e = engine();
  const Path path = far_path();
  const int me = e.rank();
  const int w = e.open_flag_window(2);
  ASSERT_GE(w, 0);
  if (me == path.src || me == path.dst) {
    const int other = me == path.src ? path.dst : path.src;
    mesh::Engine::FlagTarget mine = e.flag_target(w, other), theirs;
    e.wait(e.isend(&mine, sizeof mine, other, 30, kContext), nullptr);
    e.wait(e.irecv(&theirs, sizeof theirs, other, 30, kContext), nullptr);
    e.set_flag_target(w, other, theirs);
    for (std::uint64_t seq = 1; seq <= 100; ++seq) {
      if (me == path.src) {
        ASSERT_EQ(e.write_flag(w, other, 1, seq), Error::kOk);
        ASSERT_EQ(e.wait_flag(w, 0, seq, other), Error::kOk);
      } else {
        ASSERT_EQ(e.wait_flag(w, 1, seq, other), Error::kOk);
        ASSERT_EQ(e.write_flag(w, other, 0, seq), Error::kOk);
      }
    }
    EXPECT_EQ(e.read_flag(w, me == path.src ? 0 : 1), 100u);
  }
  e.close_flag_window(w);
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
