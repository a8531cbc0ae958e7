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
#include "mesh/providers/shm/slot_ring.h"
#include "mesh/wire.h"

namespace meshmp::mesh {
namespace {

class ShmLinkPair : public ::testing::Test {
 protected:
  void SetUp() override {
    job_ = "l" + std::to_string(::getpid()) + "x" + std::to_string(std::random_device{}());
    for (int r = 0; r < 2; ++r) {
      ShmProvider::Options o;
      o.job = job_;
      o.token = "c0ffee" + std::to_string(r);
      o.arena_token = "deadbe" + std::to_string(r);
      o.rank = r;
      o.nranks = 2;
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
    FrameHeader* h = offered_->begin_send(&payload, len);
    std::memset(h, 0, sizeof *h);
    h->version = kWireVersion;
    h->type = static_cast<std::uint8_t>(FrameType::kEager);
    h->src = 0;
    h->dst = 1;
    h->length = len;
    std::memset(payload, fill, len);
    offered_->end_send(len);
  }

  void expect_refused_on_both_ends(const std::string& what);

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

// EAGER frames of up to 8 bytes go in the next short record, others of up
// to 48 in the next cell, the rest in the next slot: with every mix of the
// three in flight (up to the rings' 4 frames), the receiver walks records,
// cells and slots in step with the sender and gets every frame, in order,
// whole.
TEST_F(ShmLinkPair, MixedCellAndSlotFramesArriveInOrder) {
  std::mt19937 rng(7);
  const std::size_t sizes[] = {0, 1, 8, 9, 48, 49, 100, 4000};
  std::vector<std::size_t> in_flight;
  int sent = 0, received = 0;
  FrameHeader h;
  const char* payload = nullptr;
  while (received < 400) {
    const bool can_send = in_flight.size() < 4 && sent < 400;
    if (can_send && (in_flight.empty() || rng() % 2)) {
      const std::size_t len = sizes[rng() % std::size(sizes)];
      send(len, static_cast<char>('a' + sent % 26));
      in_flight.push_back(len);
      ++sent;
      continue;
    }
    ASSERT_TRUE(joined_->peek(&h, &payload)) << "frame " << received;
    const std::size_t len = in_flight.front();
    ASSERT_EQ(h.seq, static_cast<std::uint64_t>(received));
    ASSERT_EQ(h.length, len) << "frame " << received;
    ASSERT_EQ(std::string(payload, len), std::string(len, static_cast<char>('a' + received % 26)))
        << "frame " << received << " of " << len << " bytes";
    joined_->release();
    in_flight.erase(in_flight.begin());
    ++received;
  }
  EXPECT_FALSE(joined_->has_frame());
}

// Where rank 0's rings to rank 1 lie in their segment: after a 64-byte
// header, the two directions' slots (rank 0's first), their cells, their
// short records -- 4 of each per direction here.
char* first_slot(Link& sender) {
  char* payload = nullptr;
  sender.begin_send(&payload, 4000);
  return payload - SlotRing::kSlotOverhead;
}
char* first_cell(Link& sender) {
  return first_slot(sender) + 2 * SlotRing::bytes(4, SlotRing::slot_size_for(kDefaultEagerLimit));
}
char* first_short_record(Link& sender) { return first_cell(sender) + 2 * SlotRing::bytes(4, SlotRing::kCellBytes); }

// A frame published where it cannot be: rank 1 never shows it, and the
// link fails on both ends, rank 1's report naming the frame (`what`),
// once.
void ShmLinkPair::expect_refused_on_both_ends(const std::string& what) {
  FrameHeader h;
  const char* got = nullptr;
  EXPECT_FALSE(joined_->peek(&h, &got));
  std::vector<LinkFailure> at1, at0;
  ranks_[1]->take_failures(&at1);
  ASSERT_EQ(at1.size(), 1u);
  EXPECT_EQ(at1[0].peer, 0);
  EXPECT_FALSE(at1[0].peer_gone);
  EXPECT_NE(at1[0].what.find(what), std::string::npos) << at1[0].what;
  ranks_[0]->take_failures(&at0);
  ASSERT_EQ(at0.size(), 1u);
  EXPECT_EQ(at0[0].peer, 1);
  EXPECT_FALSE(at0[0].peer_gone);
  // Asked again, the frame is still refused, and reported once.
  EXPECT_FALSE(joined_->peek(&h, &got));
  at1.clear();
  ranks_[1]->take_failures(&at1);
  EXPECT_TRUE(at1.empty());
}

// A cell whose frame claims a payload beyond the cell.
TEST_F(ShmLinkPair, AFrameTooBigForItsCellFailsTheLinkOnBothEnds) {
  char* cell0 = first_cell(*offered_);
  FrameHeader forged{};
  forged.version = kWireVersion;
  forged.type = static_cast<std::uint8_t>(FrameType::kEager);
  forged.src = 0;
  forged.dst = 1;
  forged.length = 4000;
  std::memcpy(SlotRing::header(cell0), &forged, sizeof forged);
  SlotRing::publish(cell0, 0);
  expect_refused_on_both_ends("rejected frame: EAGER of 4000 bytes in a cell (at most 48 payload bytes)");
}

// A short record that claims more than 8 bytes (200: 72, synchronous).
TEST_F(ShmLinkPair, AShortRecordClaimingMoreThan8BytesFailsTheLinkOnBothEnds) {
  char* record0 = first_short_record(*offered_);
  reinterpret_cast<SlotRing::ShortRecord*>(record0)->length_sync = 200;
  SlotRing::publish(record0, 0);
  expect_refused_on_both_ends("rejected frame: EAGER of 72 bytes in a short record (at most 8 payload bytes)");
}

}  // namespace
}  // namespace meshmp::mesh
