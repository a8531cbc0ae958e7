// Flood: rank 0 sends 100 000 eager messages to rank 1, which starts
// receiving only after a delay. All must arrive, in order; rank 1's memory
// stays bounded because rank 0 stalls for tokens instead of rank 1 buffering
// without limit (seed 003 §5.1; seed 000 §5.2's data loss must not happen).
// Blocking sends (written straight into a free slot) alternate with
// nonblocking ones (queued while tokens are out): neither may overtake.
#include <unistd.h>

#include <cstring>
#include <vector>

#include "tests/mp/rank_main.h"
#include "tests/support/memory.h"

namespace meshmp {
namespace {

using testing::engine;

using meshmp::testing_support::max_rss_kib;

TEST(Flood, HundredThousandEagerMessagesInOrderWithBoundedMemory) {
  mesh::Engine& e = engine();
  ASSERT_EQ(e.size(), 2);
  constexpr int kCount = 100000;
  constexpr std::size_t kBytes = 1024;  // 100 MB in all: far more than we allow buffering
  std::vector<unsigned char> buf(kBytes);
  if (e.rank() == 0) {
    for (int i = 0; i < kCount; ++i) {
      std::memcpy(buf.data(), &i, sizeof i);
      buf[kBytes - 1] = static_cast<unsigned char>(i);
      if (i % 2) {
        e.wait(e.isend(buf.data(), kBytes, 1, 1, 0), nullptr);
      } else {
        mesh::Status st;
        e.send(buf.data(), kBytes, 1, 1, 0, mesh::SendMode::kStandard, &st);
        ASSERT_EQ(st.error, mesh::Error::kOk);
        ASSERT_EQ(st.bytes, kBytes);
      }
    }
    const mesh::LinkStats* s = e.peer_stats(1);
    ASSERT_NE(s, nullptr);
    EXPECT_GT(s->token_stalls, 0u) << "the sender never ran out of tokens";
  } else {
    const long rss_before = max_rss_kib();
    ::usleep(500 * 1000);  // rank 0 runs out of tokens meanwhile
    for (int i = 0; i < kCount; ++i) {
      mesh::Status st;
      e.wait(e.irecv(buf.data(), kBytes, 0, 1, 0), &st);
      int got;
      std::memcpy(&got, buf.data(), sizeof got);
      ASSERT_EQ(got, i) << "message out of order or lost";
      ASSERT_EQ(buf[kBytes - 1], static_cast<unsigned char>(i));
      ASSERT_EQ(st.bytes, kBytes);
    }
    // Buffering every message would cost ~100 MB; allow 16 MB of growth.
    EXPECT_RSS_GROWTH_BELOW(rss_before, 16 * 1024) << "receiver memory grew with the flood";
  }
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
