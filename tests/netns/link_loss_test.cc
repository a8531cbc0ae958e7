// A cable or a rank lost while ranks 0 and 1 (or LINK_LOSS_PEER) exchange
// messages over tcp or ofi (tests/netns/netns_test.sh cuts the cable, or
// kills a rank, during the exchange). With LINK_LOSS_SYNC_DIR, each of the
// two marks there that its exchange failed, and finalizes only once the
// other has (at most 30 s), so that each learns of the break from the
// network, not from the other's finalize. The exchange runs up to 60 s; every call must either complete
// or fail with an error -- never hang. The other ranks only wait at the end.
// With LINK_LOSS_PAUSE_DIR (detours, issue 31): 20 rounds, then each of the
// two marks there that it paused and keeps polling (a receive from the
// other stays posted) until the script, having cut a cable on their route,
// writes `go`; then 300 more exchanges must complete, around the cable.
// With LINK_LOSS_ROUNDS=N the exchange ends after N rounds if none failed.
// Every rank holds registered memory (on one host a shm arena), which ranks
// 0 and 1 receive into: a rank killed with it must leave nothing behind in
// /dev/shm under any launcher (tests/launch/launch_test.sh, issue 29).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/mp/rank_main.h"

namespace meshmp {
namespace {

using mesh::Error;
using mesh::Status;
using testing::engine;

TEST(LinkLoss, ExchangesCompleteOrFailNeverHang) {
  mesh::Engine& e = engine();
  constexpr std::size_t kBytes = 100000;  // rendezvous-sized: puts over both cables
  std::vector<char> out(kBytes, 'x'), plain(kBytes);
  char* registered = static_cast<char*>(e.allocate_registered(kBytes, 64));
  char* in = registered ? registered : plain.data();
  std::printf("rank %d ready\n", e.rank());
  std::fflush(stdout);
  struct Free {
    mesh::Engine& e;
    char* p;
    ~Free() {
      if (p) e.free_registered(p);
    }
  } free_registered{e, registered};
  const char* peer_env = std::getenv("LINK_LOSS_PEER");
  const int peer = peer_env ? std::atoi(peer_env) : 1;
  if (e.rank() != 0 && e.rank() != peer) return;
  const int other = e.rank() == 0 ? peer : 0;
  if (const char* pause_dir = std::getenv("LINK_LOSS_PAUSE_DIR")) {
    auto exchange = [&] {
      Status ss, rs;
      mesh::Request* r = e.irecv(in, kBytes, other, 1, 0);
      e.send(out.data(), out.size(), other, 1, 0, mesh::SendMode::kStandard, &ss);
      e.wait(r, &rs);
      return ss.error != Error::kOk ? ss.error : rs.error;
    };
    for (int i = 0; i < 20; ++i) ASSERT_EQ(exchange(), Error::kOk) << "round " << i << " before the pause";
    mesh::Request* waiting = e.irecv(nullptr, 0, other, 2, 0);
    if (std::FILE* f = std::fopen((std::string(pause_dir) + "/paused-" + std::to_string(e.rank())).c_str(), "w"))
      std::fclose(f);
    const std::string go = std::string(pause_dir) + "/go";
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    Status st;
    while (::access(go.c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < until) {
      ASSERT_FALSE(e.test(waiting, &st)) << "the paused receive ended: " << mesh::error_name(st.error);
      ::usleep(1000);
    }
    ASSERT_EQ(::access(go.c_str(), F_OK), 0) << "no go in 60 s";
    e.send(nullptr, 0, other, 2, 0, mesh::SendMode::kStandard, &st);
    ASSERT_EQ(st.error, Error::kOk) << "the first send after the pause";
    e.wait(waiting, &st);
    ASSERT_EQ(st.error, Error::kOk) << "the receive posted before the pause";
    for (int i = 0; i < 300; ++i) ASSERT_EQ(exchange(), Error::kOk) << "round " << i << " after the pause";
    std::printf("rank %d: 300 rounds after the cable died\n", e.rank());
    std::fflush(stdout);
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const char* rounds_env = std::getenv("LINK_LOSS_ROUNDS");
  const long max_rounds = rounds_env ? std::atol(rounds_env) : -1;
  long rounds = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
    if (rounds == max_rounds) {
      std::printf("rank %d: %ld rounds, none failed\n", e.rank(), rounds);
      std::fflush(stdout);
      return;
    }
    Status ss, rs;
    mesh::Request* r = e.irecv(in, kBytes, other, 1, 0);
    e.send(out.data(), out.size(), other, 1, 0, mesh::SendMode::kStandard, &ss);
    e.wait(r, &rs);
    if (ss.error != Error::kOk || rs.error != Error::kOk) {
      std::printf("rank %d: the exchange failed after %ld rounds: %s\n", e.rank(), rounds,
                  mesh::error_name(ss.error != Error::kOk ? ss.error : rs.error));
      std::fflush(stdout);
      if (const char* dir = std::getenv("LINK_LOSS_SYNC_DIR")) {
        const std::string mine = std::string(dir) + "/failed-" + std::to_string(e.rank());
        const std::string theirs = std::string(dir) + "/failed-" + std::to_string(other);
        if (std::FILE* f = std::fopen(mine.c_str(), "w")) std::fclose(f);
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (::access(theirs.c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < until)
          ::usleep(10000);
      }
      return;
    }
    ++rounds;
  }
  ADD_FAILURE() << "the link never failed in 60 s (" << rounds << " rounds)";
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
