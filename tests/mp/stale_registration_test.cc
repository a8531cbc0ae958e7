// The classic stale-registration bug (issue 28, seed 000 §3.7): a receive
// buffer is registered for a rendezvous write, freed, and a new allocation
// with other pages lands at the same address. A registration cache that
// still believes the old registration covers the address (pinned pages, on
// a verbs fabric) would write the next message into pages that are no
// longer the buffer. Every byte of every message must land in the new one.
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "tests/mp/rank_main.h"

namespace meshmp {
namespace {

using testing::engine;

constexpr std::size_t kBytes = 1 << 20;  // rendezvous: far above the eager limit
constexpr int kRounds = 6;

void exchange(mesh::Engine& e, unsigned char* in, int round) {
  const int peer = 1 - e.rank();
  std::vector<unsigned char> out(kBytes);
  for (std::size_t i = 0; i < kBytes; ++i) out[i] = testing::pattern(e.rank(), i, round);
  std::memset(in, 0xee, kBytes);
  mesh::Request* r[2] = {e.irecv(in, kBytes, peer, 5, 0), e.isend(out.data(), kBytes, peer, 5, 0)};
  mesh::Status st[2];
  e.waitall(2, r, st);
  ASSERT_EQ(st[0].error, mesh::Error::kOk);
  ASSERT_EQ(st[0].bytes, kBytes);
  for (std::size_t i = 0; i < kBytes; ++i)
    ASSERT_EQ(in[i], testing::pattern(peer, i, round)) << "round " << round << " byte " << i;
}

TEST(StaleRegistration, AnUnmappedBufferRemappedAtTheSameAddressGetsEveryByte) {
  mesh::Engine& e = engine();
  ASSERT_EQ(e.size(), 2);
  void* at = nullptr;
  for (int round = 0; round < kRounds; ++round) {
    // Fresh pages each round, at the address the last round's were.
    void* p = ::mmap(at, kBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0), -1, 0);
    ASSERT_NE(p, MAP_FAILED);
    if (at) {
      ASSERT_EQ(p, at) << "the kernel would not map the same address again";
    }
    at = p;
    exchange(e, static_cast<unsigned char*>(p), round);
    ASSERT_EQ(::munmap(p, kBytes), 0);
  }
}

TEST(StaleRegistration, AFreedMallocBufferAndTheNextOneAtItsAddressGetEveryByte) {
  mesh::Engine& e = engine();
  for (int round = 0; round < kRounds; ++round) {
    // glibc serves 1 MiB from mmap and unmaps it on free(): the next
    // malloc usually gets the same address with new pages.
    auto* p = static_cast<unsigned char*>(std::malloc(kBytes));
    ASSERT_NE(p, nullptr);
    exchange(e, p, round);
    std::free(p);
  }
}

}  // namespace
}  // namespace meshmp
MESHMP_RANK_TEST_MAIN()
