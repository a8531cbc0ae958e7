// Ping-pong between ranks 0 and 1 for every size from 0 B to 4 MiB in powers
// of two, +-1 around the 16 KiB eager limit, and 24 MiB + 5 (over ofi on a
// byte stream: 24 pieces per stripe, more than are posted at once, the last
// ones short); data verified byte by byte, in both directions. Extra ranks
// (if any) sit it out.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mesh/config/config.h"
#include "tests/mp/rank_main.h"

namespace meshmp {
namespace {

using mesh::Status;
using testing::engine;
using testing::pattern;

std::vector<std::size_t> sizes() {
  std::vector<std::size_t> s = {0};
  for (std::size_t n = 1; n <= (4u << 20); n *= 2) s.push_back(n);
  s.push_back((24u << 20) + 5);
  mesh::Engine& e = engine();
  for (std::size_t limit : {e.options().eager_limit, e.eager_limit_to(1 - e.rank())})
    for (std::size_t n : {limit - 1, limit, limit + 1}) s.push_back(n);
  return s;
}

TEST(PingPong, EverySizeVerifiedBothWays) {
  mesh::Engine& e = engine();
  ASSERT_GE(e.size(), 2);
  if (e.rank() > 1) return;
  const int peer = 1 - e.rank();
  for (std::size_t n : sizes()) {
    std::vector<unsigned char> out(n), in(n + 8, 0xEE);
    for (std::size_t i = 0; i < n; ++i) out[i] = pattern(e.rank(), i, static_cast<unsigned>(n));
    Status st;
    if (e.rank() == 0) {
      e.wait(e.isend(out.data(), n, peer, 7, 0), nullptr);
      e.wait(e.irecv(in.data(), n + 8, peer, 8, 0), &st);
    } else {
      e.wait(e.irecv(in.data(), n + 8, peer, 7, 0), &st);
      e.wait(e.isend(out.data(), n, peer, 8, 0), nullptr);
    }
    ASSERT_EQ(st.error, mesh::Error::kOk) << n;
    ASSERT_EQ(st.source, peer);
    ASSERT_EQ(st.bytes, n) << "size " << n;
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(in[i], pattern(peer, i, static_cast<unsigned>(n))) << "size " << n << " byte " << i;
    ASSERT_EQ(in[n], 0xEE) << "wrote past the message, size " << n;
  }
}

// The threshold and credits come from the environment, else the config
// (MESHMP_CONFIG, set by qmprun --config), else the defaults; messages below
// the threshold go eager, at and above it by rendezvous. Over a byte stream
// (meshmp's tcp, libfabric's tcp) the threshold to a peer is
// MESHMP_STREAM_EAGER_LIMIT (128 KiB), never below the eager limit.
TEST(PingPong, EagerLimitDecidesTheProtocol) {
  mesh::Engine& e = engine();
  if (e.rank() > 1) return;
  std::size_t want_limit = mesh::kDefaultEagerLimit;
  std::uint32_t want_credits = mesh::kDefaultCredits;
  if (const char* cfg = std::getenv("MESHMP_CONFIG")) {
    mesh::MeshConfig c = mesh::load_config(cfg);
    want_limit = c.eager_limit;
    want_credits = static_cast<std::uint32_t>(c.credits);
  }
  if (const char* env = std::getenv("MESHMP_EAGER_LIMIT")) want_limit = std::strtoul(env, nullptr, 10);
  EXPECT_EQ(e.options().eager_limit, want_limit);
  EXPECT_EQ(e.options().credits, want_credits);
  const char* provider = std::getenv("MESHMP_PROVIDER");
  const char* fabric = std::getenv("MESHMP_OFI_PROVIDER");  // (these tests run ofi over libfabric's tcp)
  const bool stream = provider && (std::strcmp(provider, "tcp") == 0 ||
                                   (std::strcmp(provider, "ofi") == 0 && fabric && std::strcmp(fabric, "tcp") == 0));
  std::size_t want_stream = 131072;
  if (const char* env = std::getenv("MESHMP_STREAM_EAGER_LIMIT")) want_stream = std::strtoul(env, nullptr, 10);
  const std::size_t limit = e.eager_limit_to(1 - e.rank());
  EXPECT_EQ(limit, stream ? std::max(want_limit, want_stream) : want_limit);
  const mesh::LinkStats* s = e.peer_stats(1 - e.rank());
  ASSERT_NE(s, nullptr);
  const auto eager0 = s->eager_sent, rdv0 = s->rendezvous_sent;
  std::vector<char> buf(limit);
  for (std::size_t n : {limit - 1, limit}) {
    if (e.rank() == 0) e.wait(e.isend(buf.data(), n, 1, 5, 0), nullptr);
    else e.wait(e.irecv(buf.data(), n, 0, 5, 0), nullptr);
  }
  if (e.rank() == 0) {
    EXPECT_EQ(s->eager_sent - eager0, 1u);
    EXPECT_EQ(s->rendezvous_sent - rdv0, 1u);
  }
}

TEST(PingPong, TruncationIsReported) {
  mesh::Engine& e = engine();
  if (e.rank() > 1) return;
  for (std::size_t n : {std::size_t{100}, std::size_t{100000}}) {
    std::vector<char> buf(n, 'x');
    if (e.rank() == 0) {
      e.wait(e.isend(buf.data(), n, 1, 3, 0), nullptr);
    } else {
      Status st;
      e.wait(e.irecv(buf.data(), n / 2, 0, 3, 0), &st);
      EXPECT_EQ(st.error, mesh::Error::kTruncate) << n;
      EXPECT_EQ(st.bytes, n / 2);
    }
  }
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
