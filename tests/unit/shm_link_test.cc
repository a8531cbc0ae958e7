// The shm provider's link through the Link seam within one process: two
// providers of one job stand for two ranks (as in shm_combine_test).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mesh/host_identity.h"
#include "mesh/link.h"
#include "mesh/providers/shm/shm_provider.h"
#include "mesh/wire.h"

namespace meshmp::mesh {
namespace {

class ShmLinkPair : public ::testing::Test {
 protected:
  void SetUp() override {
    job_ = "l" + std::to_string(::getpid()) + "x" + std::to_string(std::random_device{}());
    for (int r = 0; r < 2; ++r) {
      ShmProvider::Options o{job_, "c0ffee" + std::to_string(r), "deadbe" + std::to_string(r), r, 2};
      o.host = host_identity();
      o.slots = 4;
      ranks_.push_back(std::make_unique<ShmProvider>(o));
    }
    offered_ = ranks_[0]->offer_link(1, 0);
    std::vector<std::string> cards;
    for (auto& p : ranks_) cards.push_back(p->address_card());
    for (auto& p : ranks_) p->attach(cards);
    joined_ = ranks_[1]->join_link(0, 0);
    for (auto& p : ranks_) p->wired();
    ASSERT_TRUE(offered_->up());
    ASSERT_TRUE(joined_->up());
  }
  void TearDown() override {
    offered_.reset();
    joined_.reset();
    ranks_.clear();
  }
  // An EAGER frame of `len` bytes of `fill` from rank 0 to rank 1.
  void send(std::size_t len, char fill) {
    char* payload = nullptr;
    FrameHeader* h = offered_->begin_send(&payload);
    std::memset(h, 0, sizeof *h);
    h->version = kWireVersion;
    h->type = static_cast<std::uint8_t>(FrameType::kEager);
    h->src = 0;
    h->dst = 1;
    h->length = len;
    std::memset(payload, fill, len);
    offered_->end_send(len);
  }

  std::string job_;
  std::vector<std::unique_ptr<ShmProvider>> ranks_;
  std::unique_ptr<Link> offered_, joined_;
};

// The engine's idle poll asks has_frame() and takes the frame with peek()
// only when it says yes: the two must agree before, while and after a
// frame waits, for every slot of the ring and inline and slot payloads.
TEST_F(ShmLinkPair, HasFrameAgreesWithPeekFrameByFrame) {
  FrameHeader h;
  const char* payload = nullptr;
  EXPECT_FALSE(joined_->has_frame());
  EXPECT_FALSE(joined_->peek(&h, &payload));
  for (int i = 0; i < 10; ++i) {  // past the end of the 4-slot ring, twice
    const std::size_t len = i % 2 ? 8 : 100;
    send(len, static_cast<char>('a' + i));
    EXPECT_TRUE(joined_->has_frame()) << "frame " << i;
    EXPECT_TRUE(joined_->has_frame()) << "frame " << i << ": asking again takes nothing";
    ASSERT_TRUE(joined_->peek(&h, &payload)) << "frame " << i;
    EXPECT_EQ(h.seq, static_cast<std::uint64_t>(i));
    EXPECT_EQ(h.length, len);
    EXPECT_EQ(std::string(payload, len), std::string(len, static_cast<char>('a' + i)));
    EXPECT_TRUE(joined_->has_frame()) << "frame " << i << ": not released yet";
    joined_->release();
    EXPECT_FALSE(joined_->has_frame()) << "after frame " << i;
    EXPECT_FALSE(joined_->peek(&h, &payload)) << "after frame " << i;
  }
  EXPECT_FALSE(offered_->has_frame()) << "the other direction has had nothing";
}

}  // namespace
}  // namespace meshmp::mesh
