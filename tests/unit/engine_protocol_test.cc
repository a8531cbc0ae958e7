// The protocol engine over the provider seam, independent of shm: two (or
// more) Engines in one process, each driven by its own thread, over the
// in-process loopback fabric (tests/support/loopback_provider.h). Eager and
// rendezvous traffic, a put that completes later (DONE only after its
// completion), a put that finds no resource and is retried, a link that
// cannot put (DATA frames), and frames the engine must reject.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include "mesh/bootstrap/bootstrap.h"
#include "mesh/engine.h"
#include "mesh/provider.h"
#include "tests/support/loopback_provider.h"

namespace meshmp::mesh {
namespace {

using testing_support::LoopbackFabric;
using PutMode = LoopbackFabric::PutMode;

constexpr std::size_t kEagerLimit = 1024;

// Runs body(engine, rank) on every rank of the fabric (LoopbackFabric::run)
// and expects none to throw.
void run_ranks(LoopbackFabric& fabric, int n, const std::function<void(Engine&, int)>& body,
               const std::string& mesh_fabric_config = "") {
  const std::vector<std::string> errors = fabric.run(body, mesh_fabric_config);
  ASSERT_EQ(errors.size(), static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) EXPECT_EQ(errors[r], "") << "rank " << r;
}

std::vector<char> pattern(std::size_t n, int seed) {
  std::vector<char> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<char>((i * 131 + seed) & 0xff);
  return v;
}

// Rank 0 sends each size to rank 1, which checks the bytes.
void exchange_sizes(LoopbackFabric& fabric, const std::vector<std::size_t>& sizes) {
  run_ranks(fabric, 2, [&](Engine& e, int r) {
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::vector<char> want = pattern(sizes[i], static_cast<int>(i));
      if (r == 0) {
        Status st;
        e.send(want.data(), want.size(), 1, static_cast<int>(i), 7, SendMode::kStandard, &st);
        EXPECT_EQ(st.error, Error::kOk);
      } else {
        std::vector<char> got(sizes[i] + 16, 0);
        Status st;
        e.wait(e.irecv(got.data(), got.size(), 0, static_cast<int>(i), 7), &st);
        EXPECT_EQ(st.error, Error::kOk) << sizes[i];
        EXPECT_EQ(st.bytes, sizes[i]);
        EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << sizes[i] << " bytes";
      }
    }
  });
}

const std::vector<std::size_t> kSizes = {0, 1, 100, kEagerLimit - 1, kEagerLimit, 5000, 100000, 1 << 20};

TEST(EngineOverLoopback, EagerAndRendezvousMessagesArriveIntact) {
  LoopbackFabric fabric(2, 8, kEagerLimit);
  exchange_sizes(fabric, kSizes);
  // Four sizes at or above the eager limit: four puts.
  EXPECT_EQ(fabric.put_calls(), 4);
}

// Records of unexpected messages are reused (Engine::Impl::new_unexpected):
// two rounds of messages that all arrive before their receives, the kinds
// swapped between rounds (synchronous and standard eager, sizes below and
// above what a kept record holds, rendezvous), each received intact, and
// no SYNC_ACK or CTS where the message did not ask for one (a peer that
// got one would fail the pair).
TEST(EngineOverLoopback, UnexpectedMessagesOfEveryKindReuseRecordsIntact) {
  LoopbackFabric fabric(2, 8, kEagerLimit);
  constexpr int kMessages = 12;
  auto size_of = [](int round, int i) -> std::size_t {
    const std::size_t sizes[] = {0, 8, 100, 900, 5000, 20000};
    return sizes[(i + 3 * round) % 6];
  };
  auto mode_of = [](int round, int i) { return (i + round) % 2 ? SendMode::kSynchronous : SendMode::kStandard; };
  run_ranks(fabric, 2, [&](Engine& e, int r) {
    for (int round = 0; round < 2; ++round) {
      if (r == 0) {
        std::vector<std::vector<char>> out;
        std::vector<Request*> reqs;
        for (int i = 0; i < kMessages; ++i) {
          out.push_back(pattern(size_of(round, i), 10 * round + i));
          reqs.push_back(e.isend(out.back().data(), out.back().size(), 1, i, 7, mode_of(round, i)));
        }
        const char go = 1;
        e.send(&go, 1, 1, 100, 7, SendMode::kStandard, nullptr);
        std::vector<Status> sts(reqs.size());
        e.waitall(reqs.size(), reqs.data(), sts.data());
        for (const Status& st : sts) EXPECT_EQ(st.error, Error::kOk);
      } else {
        char go = 0;
        e.wait(e.irecv(&go, 1, 0, 100, 7), nullptr);  // every message before it waits unexpected
        for (int i = kMessages - 1; i >= 0; --i) {
          const std::vector<char> want = pattern(size_of(round, i), 10 * round + i);
          std::vector<char> got(want.size() + 8, 0);
          Status st;
          e.wait(e.irecv(got.data(), got.size(), 0, i, 7), &st);
          EXPECT_EQ(st.error, Error::kOk) << "round " << round << ", message " << i;
          EXPECT_EQ(st.bytes, want.size()) << "round " << round << ", message " << i;
          EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin())) << "round " << round << ", message " << i;
        }
      }
    }
  });
}

TEST(EngineOverLoopback, DoneGoesOnlyAfterTheAsynchronousPutCompletes) {
  LoopbackFabric fabric(2, 8, kEagerLimit);
  fabric.set_put_mode(PutMode::kDeferred);
  const std::vector<char> msg = pattern(64 * 1024, 3);
  std::atomic<bool> received{false}, released{false};
  std::thread releaser([&] {
    // Wait for the put to be in flight, look, then complete it.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (fabric.deferred_puts() == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // time for a wrong DONE to arrive
    EXPECT_EQ(fabric.deferred_puts(), 1);
    EXPECT_FALSE(received.load()) << "the receive completed before the put did";
    for (const std::string& ev : fabric.log()) EXPECT_NE(ev, "0>1 DONE") << "DONE before the put completed";
    released = true;
    fabric.complete_deferred();
  });
  run_ranks(fabric, 2, [&](Engine& e, int r) {
    if (r == 0) {
      Request* s = e.isend(msg.data(), msg.size(), 1, 5, 7);
      Status st;
      e.wait(s, &st);
      EXPECT_TRUE(released.load()) << "the send completed before its put did";
      EXPECT_EQ(st.error, Error::kOk);
    } else {
      std::vector<char> got(msg.size());
      Status st;
      e.wait(e.irecv(got.data(), got.size(), 0, 5, 7), &st);
      received = true;
      EXPECT_EQ(st.bytes, msg.size());
      EXPECT_EQ(got, msg);
    }
  });
  releaser.join();
  const std::vector<std::string> log = fabric.log();
  const auto complete = std::find(log.begin(), log.end(), "0>1 put-complete");
  const auto done = std::find(log.begin(), log.end(), "0>1 DONE");
  ASSERT_NE(complete, log.end());
  ASSERT_NE(done, log.end());
  EXPECT_LT(complete - log.begin(), done - log.begin());
}

TEST(EngineOverLoopback, APutThatFindsNoResourceIsRetriedAndDelivered) {
  LoopbackFabric fabric(2, 8, kEagerLimit);
  fabric.set_put_mode(PutMode::kNoResource, 5);
  exchange_sizes(fabric, {5000, 70000});
  EXPECT_EQ(fabric.put_calls(), 2 + 5);
}

TEST(EngineOverLoopback, ALinkThatCannotPutStreamsDataFrames) {
  LoopbackFabric fabric(2, 8, kEagerLimit);
  fabric.set_put_mode(PutMode::kUnsupported);
  exchange_sizes(fabric, kSizes);
  int data = 0;
  for (const std::string& ev : fabric.log()) data += ev == "0>1 DATA";
  EXPECT_GE(data, (1 << 20) / static_cast<int>(kEagerLimit));
}

TEST(EngineOverLoopback, OnDemandLinksReachNonNeighbours) {
  // 1-D torus of 5: ranks 0 and 2 are not neighbours.
  LoopbackFabric fabric(5, 8, kEagerLimit);
  run_ranks(fabric, 5, [&](Engine& e, int r) {
    const int to = (r + 2) % 5, from = (r + 3) % 5;
    int mine = 100 + r, got = -1;
    Request* rr = e.irecv(&got, sizeof got, from, 1, 7);
    e.send(&mine, sizeof mine, to, 1, 7, SendMode::kStandard, nullptr);
    Status st;
    e.wait(rr, &st);
    EXPECT_EQ(got, 100 + from);
    // Two neighbour links, one made to rank r+2 and one accepted from r-2.
    EXPECT_EQ(e.open_links(), 4);
  });
}

TEST(EngineOverLoopback, OnAMeshFabricARankNoLinkReachesIsRoutedThroughANeighbour) {
  // Ring of 5 cabled to neighbours only: 0-2 has no cable and no provider
  // can link them directly. The forwarding agent carries it through the
  // neighbour between (issue 31): eager, rendezvous and a synchronous send
  // arrive, and no rank opens a link beyond its two cables.
  LoopbackFabric fabric(5, 8, kEagerLimit);
  fabric.set_neighbours_only(true);
  run_ranks(fabric, 5, [&](Engine& e, int r) {
    const int far = (r + 2) % 5, back = (r + 3) % 5, next = (r + 1) % 5, prev = (r + 4) % 5;
    int x = r, got = -1;
    Status st;
    Request* rr = e.irecv(&got, sizeof got, back, 1, 7);
    e.send(&x, sizeof x, far, 1, 7, SendMode::kSynchronous, &st);
    EXPECT_EQ(st.error, Error::kOk);
    e.wait(rr, &st);
    EXPECT_EQ(st.error, Error::kOk);
    EXPECT_EQ(got, back);
    std::vector<int> big(100000, r), in(100000, -1);
    rr = e.irecv(in.data(), in.size() * sizeof(int), back, 3, 7);
    e.send(big.data(), big.size() * sizeof(int), far, 3, 7, SendMode::kStandard, &st);
    EXPECT_EQ(st.error, Error::kOk);
    e.wait(rr, &st);
    EXPECT_EQ(st.bytes, big.size() * sizeof(int));
    EXPECT_EQ(in, std::vector<int>(100000, back));
    rr = e.irecv(&got, sizeof got, prev, 2, 7);
    e.send(&x, sizeof x, next, 2, 7, SendMode::kStandard, &st);
    EXPECT_EQ(st.error, Error::kOk);
    e.wait(rr, &st);
    EXPECT_EQ(got, prev);
    EXPECT_EQ(e.open_links(), 2);
    EXPECT_EQ(e.peer_stats(far), nullptr);
  }, "ring.toml");
}

// The very first request of an engine has a wire id like any other: a
// synchronous send that is the first thing a rank does, unmatched, is
// retracted by MPI_Cancel (its CANCEL named send 0, which the receiver
// took for "no send" and never retracted).
TEST(EngineOverLoopback, TheFirstRequestOfARankCanBeCancelled) {
  LoopbackFabric fabric(2, 8, kEagerLimit);
  run_ranks(fabric, 2, [&](Engine& e, int r) {
    int v = 5, verdict = -1;
    if (r == 0) {
      Request* s = e.isend(&v, sizeof v, 1, 3, 7, SendMode::kSynchronous);
      e.cancel(s);
      Status st;
      e.wait(s, &st);
      EXPECT_TRUE(st.cancelled);
      verdict = st.cancelled;
      e.send(&verdict, sizeof verdict, 1, 4, 7, SendMode::kStandard, nullptr);
    } else {
      e.wait(e.irecv(&verdict, sizeof verdict, 0, 4, 7), nullptr);
      Status st;
      EXPECT_FALSE(e.iprobe(0, 3, 7, &st)) << "the cancelled message is still there";
    }
  });
}

TEST(EngineOverLoopback, OnASwitchedFabricARankNoProviderReachesStopsTheStart) {
  LoopbackFabric fabric(5, 8, kEagerLimit);
  fabric.set_neighbours_only(true);
  std::vector<std::thread> threads;
  std::atomic<int> refused{0};
  for (int r = 0; r < 5; ++r)
    threads.emplace_back([&, r] {
      EngineSetup s;
      s.rank = r;
      s.size = 5;
      s.torus = Torus({5});
      s.bootstrap = fabric.bootstrap(r);
      s.providers.push_back(fabric.provider(r));
      try {
        Engine::create(std::move(s));
      } catch (const std::runtime_error& ex) {
        if (std::string(ex.what()).find("no provider reaches rank") != std::string::npos) ++refused;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(refused.load(), 5);
}

TEST(EngineOverLoopback, AContextTheHeaderCannotCarryIsRefused) {
  EngineSetup s;
  s.torus = Torus({1});
  std::unique_ptr<Engine> e = Engine::create(std::move(s));
  int x = 0;
  EXPECT_THROW(e->isend(&x, sizeof x, 0, 1, kMaxWireContext + 1), std::invalid_argument);
  EXPECT_THROW(e->irecv(&x, sizeof x, 0, 1, kMaxWireContext + 1), std::invalid_argument);
  EXPECT_FALSE(e->try_send_now(&x, sizeof x, 0, 1, kMaxWireContext + 1));
  Status st;
  Request* r = e->irecv(&x, sizeof x, 0, 1, kMaxWireContext);
  e->send(&x, sizeof x, 0, 1, kMaxWireContext, SendMode::kStandard, nullptr);
  e->wait(r, &st);
  EXPECT_EQ(st.error, Error::kOk);
}

// A frame the engine has no handler for, or one that breaks the header's
// rules, fails that peer: a receive waiting for it completes with kProtocol.
void expect_rejected(FrameHeader h) {
  LoopbackFabric fabric(2, 8, kEagerLimit);
  run_ranks(fabric, 2, [&](Engine& e, int r) {
    if (r == 0) {
      fabric.inject_frame(0, 1, h);
      return;
    }
    int x = 0;
    Status st;
    e.wait(e.irecv(&x, sizeof x, 0, 1, 7), &st);
    EXPECT_EQ(st.error, Error::kProtocol);
  });
}

FrameHeader valid_eager() {
  FrameHeader h{};
  h.version = kWireVersion;
  h.type = static_cast<std::uint8_t>(FrameType::kEager);
  h.src = 0;
  h.dst = 1;
  h.context = 7;
  h.tag = 1;
  return h;
}

TEST(EngineOverLoopback, AFrameOfUnknownTypeIsRejected) {
  FrameHeader h = valid_eager();
  h.type = static_cast<std::uint8_t>(FrameType::kEnd);
  expect_rejected(h);
  h.type = 0;
  expect_rejected(h);
}

TEST(EngineOverLoopback, AFrameFromTheWrongSourceOrVersionIsRejected) {
  FrameHeader h = valid_eager();
  h.src = 1;
  expect_rejected(h);
  h = valid_eager();
  h.version = kWireVersion + 1;
  expect_rejected(h);
}

TEST(EngineOverLoopback, AnInjectedValidFrameIsDelivered) {
  // The control for the two above: the same frame, unbroken, is a message.
  LoopbackFabric fabric(2, 8, kEagerLimit);
  run_ranks(fabric, 2, [&](Engine& e, int r) {
    if (r == 0) {
      fabric.inject_frame(0, 1, valid_eager());
      return;
    }
    int x = 0;
    Status st;
    e.wait(e.irecv(&x, sizeof x, 0, 1, 7), &st);
    EXPECT_EQ(st.error, Error::kOk);
    EXPECT_EQ(st.bytes, 0u);
  });
}

}  // namespace
}  // namespace meshmp::mesh
