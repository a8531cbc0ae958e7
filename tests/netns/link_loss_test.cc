// A cable or a rank lost while ranks 0 and 1 (or LINK_LOSS_PEER) exchange
// messages over tcp or ofi (tests/netns/netns_test.sh cuts the cable, or
// kills a rank, during the exchange). With LINK_LOSS_SYNC_DIR, each of the
// two marks there that its exchange failed, and rank 0 finalizes only once
// the other has (at most 30 s), so that the other learns of the break from
// the network, not from rank 0's finalize. The exchange runs up to 60 s; every call must either complete
// or fail with an error -- never hang. The other ranks only wait at the end.
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
  const auto start = std::chrono::steady_clock::now();
  long rounds = 0;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(60)) {
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
        while (e.rank() == 0 && ::access(theirs.c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < until)
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
