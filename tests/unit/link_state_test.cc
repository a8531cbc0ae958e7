// kernel_forwarder/link_state: meshrouted's reports of dead cables -- their
// bytes are untrusted (a datagram from anyone on a cable), so a wrong key, a
// flipped bit, a bad length, an origin off the torus or a direction it does
// not have are refused; newer reports win; the dead set is their union.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "kernel_forwarder/link_state.h"

namespace {

using meshmp::kernel_forwarder::decode_report;
using meshmp::kernel_forwarder::encode_report;
using meshmp::kernel_forwarder::LinkReport;
using meshmp::kernel_forwarder::LinkStateDb;
using meshmp::kernel_forwarder::read_route_key;
using meshmp::kernel_forwarder::RouteKey;
using meshmp::mesh::Torus;

RouteKey key_of(unsigned char fill) {
  RouteKey k;
  k.fill(fill);
  return k;
}

TEST(LinkState, ReportsRoundTripAndStrangersAreRefused) {
  const RouteKey k = key_of(7);
  const LinkReport r{5, 123456789012345ULL, 42, 0b100001};
  const std::string bytes = encode_report(r, k);
  const auto back = decode_report(bytes, k, 8, 3);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->origin, 5);
  EXPECT_EQ(back->epoch, 123456789012345ULL);
  EXPECT_EQ(back->seq, 42u);
  EXPECT_EQ(back->down, 0b100001u);
  EXPECT_FALSE(decode_report(bytes, key_of(8), 8, 3)) << "another key";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::string flipped = bytes;
    flipped[i] ^= 1;
    EXPECT_FALSE(decode_report(flipped, k, 8, 3)) << "bit flipped in byte " << i;
  }
  EXPECT_FALSE(decode_report(bytes.substr(1), k, 8, 3));
  EXPECT_FALSE(decode_report(bytes + "x", k, 8, 3));
  EXPECT_FALSE(decode_report(bytes, k, 5, 3)) << "origin 5 on a 5-node torus";
  EXPECT_FALSE(decode_report(encode_report({1, 1, 1, 1u << 6}, k), k, 8, 3)) << "direction 6 on 3 axes";
}

TEST(LinkState, NewerReportsWinAndEitherEndKillsTheCable) {
  const Torus t({4, 4});
  LinkStateDb db;
  EXPECT_TRUE(db.merge({0, 10, 1, 1u << 0}));  // node 0: its x+ cable is down
  EXPECT_FALSE(db.merge({0, 10, 1, 0})) << "same sequence";
  EXPECT_FALSE(db.merge({0, 9, 5, 0})) << "an older epoch";
  EXPECT_TRUE(db.merge({1, 3, 1, 1u << 1}));   // node 1: its x- cable (the same one)
  EXPECT_EQ(db.dead(t).size(), 1u);
  EXPECT_TRUE(db.dead(t).contains(t, {0, {0, +1}}));
  EXPECT_TRUE(db.merge({0, 10, 2, 0}));        // node 0 sees it back, node 1 not yet
  EXPECT_TRUE(db.dead(t).contains(t, {1, {0, -1}}));
  EXPECT_TRUE(db.merge({1, 4, 0, 0}));         // node 1 restarted (a later epoch)
  EXPECT_TRUE(db.dead(t).empty());
}

TEST(LinkState, TheKeyFileMustBePrivateAndExactlyThirtyTwoBytes) {
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/meshmp-route-key";
  auto write = [&](const std::string& bytes, mode_t mode) {
    std::remove(path.c_str());
    std::ofstream(path, std::ios::binary) << bytes;
    ::chmod(path.c_str(), mode);
  };
  write(std::string(32, 'k'), 0600);
  EXPECT_EQ(read_route_key(path), key_of('k'));
  write(std::string(32, 'k'), 0644);
  EXPECT_THROW(read_route_key(path), std::runtime_error) << "readable by others";
  write(std::string(31, 'k'), 0600);
  EXPECT_THROW(read_route_key(path), std::runtime_error);
  write(std::string(33, 'k'), 0600);
  EXPECT_THROW(read_route_key(path), std::runtime_error);
  std::remove(path.c_str());
  EXPECT_THROW(read_route_key(path), std::runtime_error);
}

}  // namespace
