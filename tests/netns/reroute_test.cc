// A cable cut under streams between every pair (issue 19; run by
// tests/netns/netns_test.sh, case reroute, on the 2x2x2 mesh): every rank
// exchanges 600 rounds of one 64 KiB message with every other rank, 10 ms
// apart (6 s or more), while the script cuts a cable and restores it
// (REROUTE_ROUNDS, REROUTE_BYTES and REROUTE_PAUSE_MS change the three). The
// kernel switches the non-neighbours' messages; meshrouted moves the routes
// -- to the node addresses, and to the dead cable's own two addresses, which
// the neighbours' links use -- off the cable and back, and TCP retransmits:
// every message must arrive once, in order, intact.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "tests/mp/rank_main.h"

namespace meshmp {
namespace {

using mesh::Request;
using mesh::Status;
using testing::engine;

TEST(Reroute, EveryPairsStreamSurvivesACableCut) {
  mesh::Engine& e = engine();
  const mesh::Torus& t = e.torus();
  const int me = e.rank();
  std::vector<int> far;  // everyone else, neighbours and not
  for (int p = 0; p < e.size(); ++p)
    if (p != me) far.push_back(p);
  ASSERT_GT(t.size(), 1);
  auto setting = [](const char* name, long dflt) {
    const char* v = std::getenv(name);
    return v ? std::atol(v) : dflt;
  };
  const int kRounds = static_cast<int>(setting("REROUTE_ROUNDS", 600));
  const std::size_t kBytes = static_cast<std::size_t>(setting("REROUTE_BYTES", 64 << 10));
  const int pause_ms = static_cast<int>(setting("REROUTE_PAUSE_MS", 10));
  ASSERT_GE(kBytes, sizeof(int));
  auto byte = [](int src, int dst, int round, std::size_t i) {
    return static_cast<unsigned char>(src * 37 + dst * 11 + round * 7 + i * 3 + (i >> 9));
  };
  std::vector<std::vector<unsigned char>> out(far.size(), std::vector<unsigned char>(kBytes)),
      in(far.size(), std::vector<unsigned char>(kBytes));
  std::printf("rank %d ready\n", me);
  std::fflush(stdout);
  long bad = 0;
  for (int r = 0; r < kRounds; ++r) {
    std::vector<Request*> reqs;
    for (std::size_t k = 0; k < far.size(); ++k) {
      std::memcpy(out[k].data(), &r, sizeof r);  // the round number first
      for (std::size_t i = sizeof r; i < kBytes; ++i) out[k][i] = byte(me, far[k], r, i);
      reqs.push_back(e.irecv(in[k].data(), kBytes, far[k], 4, 0));
      reqs.push_back(e.isend(out[k].data(), kBytes, far[k], 4, 0));
    }
    std::vector<Status> st(reqs.size());
    e.waitall(reqs.size(), reqs.data(), st.data());
    for (std::size_t k = 0; k < far.size(); ++k) {
      ASSERT_EQ(st[2 * k].error, mesh::Error::kOk)
          << "round " << r << " from " << far[k] << ": " << mesh::error_name(st[2 * k].error);
      ASSERT_EQ(st[2 * k + 1].error, mesh::Error::kOk)
          << "round " << r << " to " << far[k] << ": " << mesh::error_name(st[2 * k + 1].error);
      int got = -1;
      std::memcpy(&got, in[k].data(), sizeof got);
      ASSERT_EQ(got, r) << "from " << far[k] << ": a message out of order, lost or twice";
      for (std::size_t i = sizeof r; i < kBytes; ++i) bad += in[k][i] != byte(far[k], me, r, i);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
  }
  EXPECT_EQ(bad, 0) << "corrupted bytes";
  std::printf("rank %d: %d rounds with %zu ranks intact\n", me, kRounds, far.size());
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
