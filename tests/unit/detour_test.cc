// Detours around dead cables (mesh/engine/detours.cc, issue 31) over the
// in-process loopback fabric: a ring of 5 ranks cabled to neighbours only,
// whose cables the test cuts (LoopbackFabric::cut: the links carry nothing
// more, frames not yet read are lost, both providers report the failure).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "mesh/engine.h"
#include "tests/support/loopback_provider.h"

namespace meshmp::mesh {
namespace {

using testing_support::LoopbackFabric;

constexpr std::size_t kEagerLimit = 1024;
constexpr int kRanks = 5;

void run_ring(LoopbackFabric& fabric, const std::function<void(Engine&, int)>& body) {
  fabric.set_neighbours_only(true);
  const std::vector<std::string> errors = fabric.run(body, "ring.toml");
  ASSERT_EQ(errors.size(), static_cast<std::size_t>(kRanks));
  for (int r = 0; r < kRanks; ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
}

// Waits until `done` holds, the engine progressing meanwhile (the rank may
// be a relay, or have a cable's news to pass on); false after 10 s.
bool progress_until(Engine& e, const std::function<bool()>& done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    Status st;
    e.iprobe(kAnySource, kAnyTag, 99, &st);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Every rank gets here before any goes on; each keeps its engine going.
void meet(Engine& e, std::atomic<int>& arrived) {
  ++arrived;
  EXPECT_TRUE(progress_until(e, [&] { return arrived.load() == kRanks; }));
}

void send_numbers(Engine& e, int to, int first, int count, int tag) {
  for (int i = first; i < first + count; ++i) {
    Status st;
    e.send(&i, sizeof i, to, tag, 7, SendMode::kStandard, &st);
    EXPECT_EQ(st.error, Error::kOk) << "send " << i << " to " << to;
  }
}

void receive_numbers(Engine& e, int from, int first, int count, int tag) {
  for (int i = first; i < first + count; ++i) {
    int got = -1;
    Status st;
    e.wait(e.irecv(&got, sizeof got, from, tag, 7), &st);
    EXPECT_EQ(st.error, Error::kOk) << "receive " << i << " from " << from;
    EXPECT_EQ(got, i) << "from " << from;
  }
}

TEST(Detours, TrafficGoesAroundADeadCableTheRanksAtItsEndsIncluded) {
  // 0 -> 2 goes 0-1-2 (SDF). The cable 1-2 dies between two batches: the
  // second batch arrives in order around it (0-4-3-2, or through 1 and back
  // while 0 has not heard), and 1 and 2, neighbours no more, exchange
  // eager and rendezvous messages over 1-0-4-3-2 -- four links, more than
  // the ring's diameter -- with no link opened for it.
  LoopbackFabric fabric(kRanks, 8, kEagerLimit);
  std::atomic<int> before{0}, after{0};
  run_ring(fabric, [&](Engine& e, int r) {
    if (r == 0) send_numbers(e, 2, 0, 20, 1);
    if (r == 2) receive_numbers(e, 0, 0, 20, 1);
    meet(e, before);
    if (r == 1) fabric.cut(1, 2);
    if (r == 1 || r == 2) {  // (its link to the other end goes once the failure is taken)
      EXPECT_TRUE(progress_until(e, [&] { return e.peer_stats(r == 1 ? 2 : 1) == nullptr; }));
    }
    meet(e, after);
    if (r == 0) send_numbers(e, 2, 20, 20, 1);
    if (r == 2) receive_numbers(e, 0, 20, 20, 1);
    std::vector<int> big(100000, r), in(100000, -1);
    Status st;
    if (r == 1) {
      send_numbers(e, 2, 0, 10, 2);
      e.wait(e.irecv(in.data(), in.size() * sizeof(int), 2, 3, 7), &st);
      EXPECT_EQ(st.error, Error::kOk);
      EXPECT_EQ(in, std::vector<int>(100000, 2));
    }
    if (r == 2) {
      receive_numbers(e, 1, 0, 10, 2);
      e.send(big.data(), big.size() * sizeof(int), 1, 3, 7, SendMode::kStandard, &st);
      EXPECT_EQ(st.error, Error::kOk);
    }
    EXPECT_EQ(e.open_links(), 2);  // its two cables' links: nothing opened around the cut
  });
}

TEST(Detours, FramesOnTheOldRouteAndOnTheNewOneAreTakenInOrder) {
  // 0 -> 2 goes 0-1-2. Rank 1 stops polling, and rank 0's 0..4 wait in the
  // link to it. The cable 1-2 dies: rank 2 sees it, and its news reaches
  // rank 0 by 3 and 4 -- ahead of the message rank 2 sends it next, on the
  // same links, which rank 0 waits for -- so 5..9 go 0-4-3-2 and arrive
  // first. Then rank 1
  // polls again and sends 0..4 on around the cable, back through rank 0
  // (which passes its own frames on). Rank 2 takes 0..9 in order, having
  // held 5..9 for their turn.
  LoopbackFabric fabric(kRanks, 8, kEagerLimit);
  std::atomic<int> ready{0};
  std::atomic<bool> relay_stopped{false}, first_sent{false}, second_sent{false};
  run_ring(fabric, [&](Engine& e, int r) {
    meet(e, ready);
    if (r == 1) {
      relay_stopped = true;  // (from here on no engine call: 0..4 stay in the link)
      while (!second_sent) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (r == 0) {
      // (Not before rank 1 stops: a frame it relayed into the cable, which
      // rank 2 had not read when the cable died, would be lost -- and the
      // pair fail on both ends, as it should.)
      EXPECT_TRUE(progress_until(e, [&] { return relay_stopped.load(); }));
      send_numbers(e, 2, 0, 5, 1);
      first_sent = true;
      receive_numbers(e, 2, 0, 1, 9);  // (behind the news of the cut, by 3 and 4)
      send_numbers(e, 2, 5, 5, 1);
      second_sent = true;
    }
    if (r == 2) {
      while (!first_sent) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      fabric.cut(1, 2);
      EXPECT_TRUE(progress_until(e, [&] { return e.peer_stats(1) == nullptr; }));  // (the cut seen, news out)
      send_numbers(e, 0, 0, 1, 9);
      receive_numbers(e, 0, 0, 10, 1);
      ASSERT_NE(e.peer_stats(3), nullptr);
      EXPECT_EQ(e.peer_stats(3)->held_for_order, 5u);
    }
  });
}

TEST(Detours, MessagesTheCableLostFailTheirPairOnBothEnds) {
  // Rank 1 writes five eager messages to rank 2, which reads none of them
  // before the cable between them dies: they are lost. Rank 2's word of how
  // many it took tells rank 1 so; both ends fail the pair -- rank 2's
  // receive from 1 and rank 1's next send to 2 end with kPeerDead instead
  // of a later message taking a lost one's place.
  LoopbackFabric fabric(kRanks, 8, kEagerLimit);
  std::atomic<bool> written{false};
  run_ring(fabric, [&](Engine& e, int r) {
    if (r == 1) {
      send_numbers(e, 2, 0, 5, 1);
      written = true;
      EXPECT_TRUE(progress_until(e, [&] { return e.peer_stats(2) == nullptr; }));
      Status st;
      EXPECT_TRUE(progress_until(e, [&] {
        int v = 9;
        e.send(&v, sizeof v, 2, 2, 7, SendMode::kStandard, &st);
        return st.error != Error::kOk;
      }));
      EXPECT_EQ(st.error, Error::kPeerDead);
    }
    if (r == 2) {
      while (!written) std::this_thread::sleep_for(std::chrono::milliseconds(1));  // (no engine call: reads nothing)
      fabric.cut(1, 2);
      int got = -1;
      Status st;
      e.wait(e.irecv(&got, sizeof got, 1, 1, 7), &st);
      EXPECT_EQ(st.error, Error::kPeerDead);
      EXPECT_EQ(got, -1);
    }
  });
}

TEST(Detours, ARankWhoseCablesAllDieIsUnreachable) {
  // Both of rank 2's cables die: every other rank's receive from it fails
  // (kUnreachable), and so do its own.
  LoopbackFabric fabric(kRanks, 8, kEagerLimit);
  std::atomic<int> ready{0};
  run_ring(fabric, [&](Engine& e, int r) {
    meet(e, ready);
    if (r == 2) {
      fabric.cut(1, 2);
      fabric.cut(2, 3);
    }
    int got = -1;
    Status st;
    if (r != 2) {
      e.wait(e.irecv(&got, sizeof got, 2, 1, 7), &st);
      EXPECT_EQ(st.error, Error::kUnreachable) << "rank " << r;
    } else {
      e.wait(e.irecv(&got, sizeof got, 0, 1, 7), &st);
      EXPECT_NE(st.error, Error::kOk);
    }
  });
}

}  // namespace
}  // namespace meshmp::mesh
