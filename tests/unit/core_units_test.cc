// Unit tests of the core's pieces that need no second process: the wire
// header validator, the credit ledger, the slot ring and the matcher.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "mesh/credits.h"
#include "mesh/matching.h"
#include "mesh/providers/shm/slot_ring.h"
#include "mesh/wire.h"

namespace meshmp::mesh {
namespace {

// ---- wire header ------------------------------------------------------------

FrameHeader good_header() {
  FrameHeader h{};
  h.version = kWireVersion;
  h.type = static_cast<std::uint8_t>(FrameType::kEager);
  h.src = 3;
  h.dst = 5;
  h.seq = 17;
  h.length = 100;
  h.credits = 4;
  return h;
}

const LinkView kView{/*my_rank=*/5, /*peer_rank=*/3, /*expected_seq=*/17,
                     /*max_payload=*/16384, /*max_credits=*/32};

TEST(WireHeader, AcceptsAWellFormedFrame) {
  EXPECT_FALSE(check_header(good_header(), kView));
  EXPECT_EQ(describe(check_header(good_header(), kView)), "");
}

// check_header's inline path for plain EAGER frames (plain_eager) takes the
// common frame, and accepts nothing the two full checks refuse: each field
// of a good frame, and of the view with and without routing, pushed over
// the values around its limits.
TEST(WireHeader, PlainEagerPathAcceptsOnlyWhatTheFullChecksAccept) {
  EXPECT_TRUE(plain_eager(good_header(), kView));
  LinkView routed = kView;
  routed.nranks = 8;
  routed.max_hops = 3;
  EXPECT_TRUE(plain_eager(good_header(), routed));
  const std::int64_t values[] = {-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 31, 32, 33, 255, 256,
                                 16383, 16384, 16385, 65535, 65536};
  int taken = 0, checked = 0;
  for (const LinkView& base : {kView, routed}) {
    // Field f of the header (or, from 12 on, of the view) set to v.
    for (int f = 0; f < 16; ++f)
      for (std::int64_t x : values) {
        FrameHeader h = good_header();
        LinkView v = base;
        switch (f) {
          case 0: h.version = static_cast<std::uint8_t>(x); break;
          case 1: h.type = static_cast<std::uint8_t>(x); break;
          case 2: h.flags = static_cast<std::uint16_t>(x); break;
          case 3: h.credits = static_cast<std::uint32_t>(x); break;
          case 4: h.seq = static_cast<std::uint64_t>(x); break;
          case 5: h.src = static_cast<std::int32_t>(x); break;
          case 6: h.dst = static_cast<std::int32_t>(x); break;
          case 7: h.tag = static_cast<std::int32_t>(x); break;
          case 8: h.hops = static_cast<std::uint8_t>(x); break;
          case 9: h.e2e_credits = static_cast<std::uint8_t>(x); break;
          case 10: h.length = static_cast<std::uint64_t>(x); break;
          case 11: h.src = h.dst = static_cast<std::int32_t>(x), v.peer_rank = v.my_rank = h.dst; break;
          case 12: v.peer_rank = h.src = static_cast<std::int32_t>(x); break;
          case 13: v.my_rank = h.dst = static_cast<std::int32_t>(x); break;
          case 14: v.nranks = static_cast<int>(x); break;
          case 15: v.max_hops = static_cast<int>(x); break;
        }
        ++checked;
        if (!plain_eager(h, v)) continue;
        ++taken;
        EXPECT_FALSE(check_link_part(h, v)) << "field " << f << " = " << x << ": " << describe(check_link_part(h, v));
        EXPECT_FALSE(check_end_to_end(h, v)) << "field " << f << " = " << x << ": " << describe(check_end_to_end(h, v));
      }
  }
  EXPECT_GT(taken, 0);
  EXPECT_LT(taken, checked);
}

TEST(WireHeader, RejectsEachBadField) {
  struct Case {
    void (*mutate)(FrameHeader&);
    const char* expected;
  };
  const Case cases[] = {
      {[](FrameHeader& h) { h.version = 1; }, "wire version 1"},  // the one-part header of before
      {[](FrameHeader& h) { h.type = 0; }, "bad frame type 0"},
      {[](FrameHeader& h) { h.type = 200; }, "bad frame type 200"},
      {[](FrameHeader& h) { h.seq = 18; }, "seq 18, expected 17"},
      {[](FrameHeader& h) { h.src = 4; }, "source rank 4 on the link to rank 3"},
      {[](FrameHeader& h) { h.src = -2; }, "source rank -2 on the link to rank 3"},
      {[](FrameHeader& h) { h.tag = -5; }, "EAGER with tag -5 (tags on the wire are >= 0)"},
      {[](FrameHeader& h) {
         h.type = static_cast<std::uint8_t>(FrameType::kCancelAck);
         h.length = 2;
       },
       "CANCEL_ACK with length 2"},
      {[](FrameHeader& h) {
         h.type = static_cast<std::uint8_t>(FrameType::kCts);
         h.length = (1ull << 47) + 1;
       },
       "CTS of 140737488355329 bytes (more than 2^47)"},
      {[](FrameHeader& h) { h.dst = 6; }, "destination rank 6"},
      {[](FrameHeader& h) { h.credits = 33; }, "credits 33 > 32"},
      {[](FrameHeader& h) { h.flags = 0x80; }, "unknown flags"},
      {[](FrameHeader& h) { h.hops = 1; }, "a forwarded frame (1 hops), but no rank forwards here"},
      {[](FrameHeader& h) { h.e2e_credits = 1; }, "end-to-end credits 1 on a neighbour's own frame"},
      {[](FrameHeader& h) { h.length = 16385; }, "EAGER payload 16385 > slot size 16384"},
      {[](FrameHeader& h) {
         h.type = static_cast<std::uint8_t>(FrameType::kData);
         h.length = 1u << 30;
       },
       "DATA payload"},
      {[](FrameHeader& h) {
         h.type = static_cast<std::uint8_t>(FrameType::kCredit);
         h.length = 1;
       },
       "CREDIT with payload"},
      // Found by //fuzz:frame_header (fuzz/corpus/frame_header/sync_ack-with-length).
      {[](FrameHeader& h) {
         h.type = static_cast<std::uint8_t>(FrameType::kSyncAck);
         h.length = 1ull << 57;
       },
       "SYNC_ACK with payload"},
  };
  for (const Case& c : cases) {
    FrameHeader h = good_header();
    c.mutate(h);
    EXPECT_NE(describe(check_header(h, kView)).find(c.expected), std::string::npos)
        << "got: " << describe(check_header(h, kView));
  }
  FrameHeader rts = good_header();
  rts.type = static_cast<std::uint8_t>(FrameType::kRts);
  rts.length = 1ull << 40;  // a rendezvous length is not bounded by a slot
  EXPECT_EQ(describe(check_header(rts, kView)), "");
}

// The two parts are checked apart: a hop rewrites the link part (its own
// sequence number and credits) and must be able to trust the end-to-end
// part without it, and the other way round.
TEST(WireHeader, TheLinkPartAndTheEndToEndPartAreValidatedApart) {
  FrameHeader h = good_header();
  h.seq = 99;                   // wrong for this link
  h.credits = 1000;
  EXPECT_NE(describe(check_link_part(h, kView)), "");
  EXPECT_EQ(describe(check_end_to_end(h, kView)), "");
  h = good_header();
  h.src = 4;                    // not the peer's
  EXPECT_EQ(describe(check_link_part(h, kView)), "");
  EXPECT_NE(describe(check_end_to_end(h, kView)), "");
  // The link part is the first kLinkPartBytes: rewriting them leaves the
  // end-to-end bytes as they were.
  FrameHeader a = good_header(), b = good_header();
  b.seq = 1234;
  b.credits = 9;
  b.flags = kFlagSync;
  EXPECT_EQ(std::memcmp(reinterpret_cast<const char*>(&a) + kLinkPartBytes,
                        reinterpret_cast<const char*>(&b) + kLinkPartBytes, sizeof a - kLinkPartBytes),
            0);
}

// With the forwarding agent (issue 31): rank 5 of 64 on a torus 6 links
// across, its link to rank 3. Routed frames come from any other rank and go
// to any rank, within the diameter.
std::string check_routed(void (*mutate)(FrameHeader&)) {
  LinkView v = kView;
  v.nranks = 64;
  v.max_hops = 6;
  FrameHeader h = good_header();
  mutate(h);
  return describe(check_header(h, v));
}

TEST(WireHeader, RoutedFramesAreCheckedAgainstTheJobAndTheDiameter) {
  auto check = check_routed;
  // Accepted: the peer's own frame; one it forwards from rank 40 (2 links
  // so far); one to forward on to rank 9, carrying end-to-end credits.
  EXPECT_EQ(check([](FrameHeader&) {}), "");
  EXPECT_EQ(check([](FrameHeader& h) { h.src = 40, h.hops = 1; }), "");
  EXPECT_EQ(check([](FrameHeader& h) { h.dst = 9, h.e2e_credits = 16; }), "");
  EXPECT_EQ(check([](FrameHeader& h) { h.src = 40, h.hops = 5; }), "");  // its 6th link ends here
  // Refused, each naming the field.
  EXPECT_NE(check([](FrameHeader& h) { h.src = 40, h.hops = 6; }).find("more links than the torus diameter, 6"),
            std::string::npos);
  EXPECT_NE(check([](FrameHeader& h) { h.dst = 9, h.src = 40, h.hops = 5; }).find("torus diameter"),
            std::string::npos);  // forwarding it would make 7
  EXPECT_NE(check([](FrameHeader& h) { h.dst = 64; }).find("destination rank 64"), std::string::npos);
  EXPECT_NE(check([](FrameHeader& h) { h.dst = -1; }).find("destination rank -1"), std::string::npos);
  EXPECT_NE(check([](FrameHeader& h) { h.src = 64, h.hops = 1; }).find("source rank 64"), std::string::npos);
  EXPECT_NE(check([](FrameHeader& h) { h.src = 5, h.hops = 1; }).find("source rank 5"), std::string::npos);
  EXPECT_NE(check([](FrameHeader& h) { h.src = 40; }).find("source rank 40 on the link to rank 3"),
            std::string::npos);  // not forwarded, so from the peer
  EXPECT_NE(check([](FrameHeader& h) {
              h.type = static_cast<std::uint8_t>(FrameType::kBye);
              h.length = 0;
              h.dst = 9;
            }).find("destination rank 9"),
            std::string::npos);
  EXPECT_NE(check([](FrameHeader& h) { h.e2e_credits = 1; }).find("end-to-end credits 1"), std::string::npos);
  // A relay's NO_ROUTE (rank 40 says rank 9 is cut off) carries no payload.
  EXPECT_EQ(check([](FrameHeader& h) {
              h.type = static_cast<std::uint8_t>(FrameType::kNoRoute);
              h.src = 40, h.hops = 2, h.length = 0, h.addr = 9;
            }),
            "");
  EXPECT_NE(check([](FrameHeader& h) {
              h.type = static_cast<std::uint8_t>(FrameType::kNoRoute);
              h.src = 40, h.hops = 2, h.length = 8;
            }).find("NO_ROUTE with payload 8"),
            std::string::npos);
}

// Detours (wire version 4): a routed frame's end-to-end sequence number in
// the high byte of flags, never on a neighbour's own frame; CABLE_DOWN only
// from the link's peer, for this rank, with no payload, and only where
// ranks forward.
TEST(WireHeader, SequenceNumbersAndCableDownAreCheckedToo) {
  auto check = check_routed;
  EXPECT_EQ(check([](FrameHeader& h) { h.src = 40, h.hops = 1, h.flags = 200 << kE2eSeqShift; }), "");
  // This rank's own frame, sent back to it by a relay's detour, passes on.
  EXPECT_EQ(check([](FrameHeader& h) { h.src = 5, h.hops = 1, h.dst = 9; }), "");
  EXPECT_EQ(check([](FrameHeader& h) { h.dst = 9, h.flags = kFlagSync | (7 << kE2eSeqShift); }), "");
  EXPECT_NE(check([](FrameHeader& h) { h.flags = 1 << kE2eSeqShift; }).find("unknown flags 256"), std::string::npos);
  EXPECT_NE(check([](FrameHeader& h) { h.flags = 64; }).find("unknown flags 64"), std::string::npos);
  auto cable_down = [](FrameHeader& h) {
    h.type = static_cast<std::uint8_t>(FrameType::kCableDown);
    h.length = 0, h.addr = 1, h.key = 3;
  };
  EXPECT_EQ(check(cable_down), "");
  EXPECT_NE(check([](FrameHeader& h) {
              h.type = static_cast<std::uint8_t>(FrameType::kCableDown);
              h.length = 0, h.dst = 9;
            }).find("destination rank 9"),
            std::string::npos);
  EXPECT_NE(check([](FrameHeader& h) {
              h.type = static_cast<std::uint8_t>(FrameType::kCableDown);
              h.length = 0, h.src = 40, h.hops = 1;
            }).find("hops"),
            std::string::npos);
  EXPECT_NE(check([](FrameHeader& h) {
              h.type = static_cast<std::uint8_t>(FrameType::kCableDown);
              h.length = 4;
            }).find("CABLE_DOWN with payload 4"),
            std::string::npos);
  // Without forwarding neither a sequence number nor CABLE_DOWN is valid.
  EXPECT_NE(describe(check_header([] {
              FrameHeader h = good_header();
              h.flags = 3 << kE2eSeqShift;
              return h;
            }(), kView)).find("unknown flags"),
            std::string::npos);
  EXPECT_NE(describe(check_header([&] {
              FrameHeader h = good_header();
              cable_down(h);
              return h;
            }(), kView)).find("bad frame type 14"),
            std::string::npos);
}

// ---- credits ------------------------------------------------------------------

TEST(CreditLedger, DataStopsAtTheReservedToken) {
  CreditLedger c(8);
  int sent = 0;
  while (c.can_send_data()) {
    c.spend();
    ++sent;
  }
  EXPECT_EQ(sent, 7);  // one token kept for an explicit CREDIT
  EXPECT_EQ(c.tokens(), 1u);
  EXPECT_FALSE(c.can_send_credit());  // nothing to return yet
  c.slot_freed();
  EXPECT_TRUE(c.can_send_credit());
}

TEST(CreditLedger, PiggybacksAndAsksForExplicitCreditAtHalf) {
  CreditLedger c(8);
  for (int i = 0; i < 3; ++i) c.slot_freed();
  EXPECT_FALSE(c.wants_explicit_credit());
  c.slot_freed();
  EXPECT_TRUE(c.wants_explicit_credit());  // 4 of 8 unreturned
  EXPECT_EQ(c.spend(), 4u);                // all four ride on the next frame
  EXPECT_EQ(c.unreturned(), 0u);
  EXPECT_FALSE(c.wants_explicit_credit());
}

// Where ranks relay: the sender's own messages leave the reserved tokens to
// routed frames; the receiver's withheld credits are not returned until
// released, and count towards the explicit CREDIT of what it does return.
TEST(CreditLedger, OwnMessagesLeaveTheRoutedReserve) {
  CreditLedger c(32);
  c.reserve_for_routed(4);
  int messages = 0;
  while (c.can_send_message()) {
    c.spend();
    ++messages;
  }
  EXPECT_EQ(messages, 27);  // 32 - the CREDIT's token - 4 for routed frames
  int routed = 0;
  while (c.can_send_data()) {
    c.spend();
    ++routed;
  }
  EXPECT_EQ(routed, 4);
}

TEST(CreditLedger, WithheldCreditsGoBackOnlyWhenReleased) {
  CreditLedger c(32);
  for (int i = 0; i < 26; ++i) c.slot_withheld();
  EXPECT_EQ(c.withheld(), 26u);
  EXPECT_FALSE(c.can_send_credit());  // nothing returnable
  c.slot_freed();                     // a routed frame taken: its credit goes at once
  EXPECT_TRUE(c.wants_explicit_credit());
  EXPECT_EQ(c.spend(), 1u);
  c.release_withheld();
  EXPECT_EQ(c.withheld(), 0u);
  EXPECT_EQ(c.unreturned(), 26u);
  EXPECT_TRUE(c.wants_explicit_credit());
  EXPECT_EQ(c.spend(), 26u);
  for (int i = 0; i < 15; ++i) c.slot_freed();
  EXPECT_FALSE(c.wants_explicit_credit());  // back to half the slots
  c.slot_freed();
  EXPECT_TRUE(c.wants_explicit_credit());
}

TEST(CreditLedger, RejectsMoreCreditsThanSlotsInFlight) {
  CreditLedger c(8);
  EXPECT_FALSE(c.receive_credits(1));  // nothing spent, nothing to return
  c.spend();
  c.spend();
  EXPECT_TRUE(c.receive_credits(2));
  EXPECT_EQ(c.tokens(), 8u);
  EXPECT_FALSE(c.receive_credits(1));
}

// Two ledgers exchanging frames over a lossless pipe never deadlock and never
// exceed the slots: a model of one link under a one-way flood.
TEST(CreditLedger, OneWayFloodKeepsFlowing) {
  CreditLedger a(8), b(8);
  std::vector<std::uint32_t> to_b, to_a;  // credits carried by frames in flight
  int delivered = 0;
  for (int step = 0; step < 10000; ++step) {
    if (a.can_send_data()) to_b.push_back(a.spend());
    ASSERT_LE(to_b.size(), 8u) << "more frames in flight than slots";
    if (!to_b.empty()) {  // b consumes one frame per step
      ASSERT_TRUE(b.receive_credits(to_b.front()));
      to_b.erase(to_b.begin());
      b.slot_freed();
      ++delivered;
    }
    if (b.wants_explicit_credit() && b.can_send_credit()) to_a.push_back(b.spend());
    while (!to_a.empty()) {
      ASSERT_TRUE(a.receive_credits(to_a.front()));
      to_a.erase(to_a.begin());
      a.slot_freed();
      if (a.wants_explicit_credit() && a.can_send_credit()) to_b.push_back(a.spend());
    }
  }
  EXPECT_GT(delivered, 5000);
}

// ---- slot ring ------------------------------------------------------------------

TEST(SlotRing, PublishesInOrderAndWrapsAround) {
  const std::uint32_t n = 4;
  const std::size_t slot = SlotRing::slot_size_for(256);
  EXPECT_EQ(slot % 64, 0u);
  std::vector<std::uint64_t> mem(SlotRing::bytes(n, slot) / 8 + 1, 0);
  SlotRing producer(mem.data(), n, slot), consumer(mem.data(), n, slot);
  EXPECT_GE(producer.payload_capacity(), 256u);
  for (std::uint64_t seq = 0; seq < 3 * n; ++seq) {
    char* out = producer.slot(seq);
    char* in = consumer.slot(seq);
    EXPECT_FALSE(SlotRing::ready(in, seq));
    SlotRing::header(out)->tag = static_cast<int>(seq);
    std::memset(SlotRing::payload(out), static_cast<int>(seq), 256);
    SlotRing::publish(out, seq);
    ASSERT_TRUE(SlotRing::ready(in, seq));
    EXPECT_EQ(SlotRing::header(in)->tag, static_cast<int>(seq));
    EXPECT_EQ(SlotRing::payload(in)[255], static_cast<char>(seq));
    EXPECT_FALSE(SlotRing::ready(consumer.slot(seq + 1), seq + 1));
    // The slot reused n frames later is not "ready" for the later sequence.
    EXPECT_FALSE(SlotRing::ready(in, seq + n));
  }
}

// A link walks the ring slot by slot (SlotRing::next) instead of dividing
// its sequence number: the walk meets slot(seq) at every step and wraps to
// the first slot after the last.
TEST(SlotRing, WalkingSlotBySlotMeetsEachSequencesSlot) {
  const std::uint32_t n = 5;
  const std::size_t slot = SlotRing::slot_size_for(64);
  std::vector<std::uint64_t> mem(SlotRing::bytes(n, slot) / 8 + 1, 0);
  SlotRing producer(mem.data(), n, slot), consumer(mem.data(), n, slot);
  char* at = producer.slot(0);
  char* read_at = consumer.slot(0);
  for (std::uint64_t seq = 0; seq < 3 * n + 2; ++seq) {
    ASSERT_EQ(at, producer.slot(seq)) << "seq " << seq;
    EXPECT_FALSE(SlotRing::ready(read_at, seq));
    SlotRing::header(at)->tag = static_cast<int>(seq);
    SlotRing::publish(at, seq);
    ASSERT_TRUE(SlotRing::ready(read_at, seq));
    EXPECT_EQ(SlotRing::header(read_at)->tag, static_cast<int>(seq));
    at = producer.next(at);
    read_at = consumer.next(read_at);
  }
  EXPECT_EQ(producer.next(producer.slot(n - 1)), producer.slot(0));
}

// A small EAGER frame rides in its cell's first line: the consumer gets
// the same header (with recv_id, addr and key 0) and payload either way; 9
// bytes, a channel's EAGER and other types keep the payload in the cell's
// second line, after the header. (A cell whose first line alone was
// written, the second holds the previous frame's bytes: 0xee here.)
TEST(SlotRing, SmallEagerFramesRideInTheFirstLine) {
  const std::uint32_t n = 4;
  std::vector<std::uint64_t> mem(SlotRing::bytes(n, SlotRing::kCellBytes) / 8, 0xeeeeeeeeeeeeeeee);
  SlotRing cells(mem.data(), n, SlotRing::kCellBytes);
  struct Case {
    FrameType type;
    std::uint16_t flags;
    std::size_t length;
    bool inline_expected;
  };
  // (Every inline length: the move copies `length` bytes, in pieces of 1,
  // 4 or 8 bytes, not always 8.)
  const Case cases[] = {{FrameType::kEager, 0, 0, true},           {FrameType::kEager, 0, 1, true},
                        {FrameType::kEager, 0, 2, true},           {FrameType::kEager, 0, 3, true},
                        {FrameType::kEager, 0, 4, true},           {FrameType::kEager, 0, 5, true},
                        {FrameType::kEager, 0, 7, true},
                        {FrameType::kEager, kFlagSync, 8, true},   {FrameType::kEager, 0, 9, false},
                        {FrameType::kEager, 0, 48, false},         {FrameType::kEager, kFlagChannel, 8, false},
                        {FrameType::kData, 0, 8, false},           {FrameType::kRts, 0, 1 << 20, false}};
  std::uint64_t seq = 0;
  for (const Case& c : cases) {
    char* at = cells.slot(seq);
    FrameHeader h{};
    h.version = kWireVersion;
    h.type = static_cast<std::uint8_t>(c.type);
    h.flags = c.flags;
    h.length = c.length;
    h.tag = 7;
    h.send_id = 99;
    h.recv_id = 4321;  // a DATA frame's receive request
    h.addr = 1234;     // a channel's number, a DATA offset
    h.key = 5678;
    const std::size_t bytes = payload_bytes(h);
    std::string expected;
    for (std::size_t i = 0; i < bytes; ++i) expected += static_cast<char>('a' + i % 26);
    if (bytes <= SlotRing::kInlineBytes) {  // written by the link, then copied in
      SlotRing::write_cell(at, h, expected.data(), bytes);
    } else {  // written in place
      std::memcpy(SlotRing::header(at), &h, sizeof h);
      std::memcpy(SlotRing::payload(at), expected.data(), bytes);
    }
    SlotRing::publish(at, seq);

    ASSERT_TRUE(SlotRing::ready(at, seq));
    FrameHeader got{};
    const char* payload = SlotRing::read_cell(at, &got);
    ASSERT_NE(payload, nullptr) << "length " << c.length;
    EXPECT_EQ(payload != SlotRing::payload(at), c.inline_expected) << "length " << c.length;
    EXPECT_LE(payload + bytes, at + SlotRing::kCellBytes);
    EXPECT_EQ(std::string(payload, bytes), expected);
    EXPECT_EQ(got.type, h.type);
    EXPECT_EQ(got.flags, h.flags);
    EXPECT_EQ(got.length, h.length);
    EXPECT_EQ(got.tag, 7);
    EXPECT_EQ(got.send_id, 99u);
    EXPECT_EQ(got.recv_id, c.inline_expected ? 0u : 4321u);
    EXPECT_EQ(got.addr, c.inline_expected ? 0u : 1234u);
    EXPECT_EQ(got.key, c.inline_expected ? 0u : 5678u);
    ++seq;
  }
}

// A cell whose header claims more payload than the cell holds (a peer's
// fault) is refused: that payload would lie beyond the cell.
TEST(SlotRing, ACellRefusesMorePayloadThanItHolds) {
  struct Case {
    FrameType type;
    std::uint16_t flags;
    std::size_t length;
    bool refused;
  };
  const Case cases[] = {{FrameType::kEager, 0, 48, false},     {FrameType::kEager, 0, 49, true},
                        {FrameType::kEager, 0, 16384, true},   {FrameType::kEager, kFlagChannel, 49, true},
                        {FrameType::kData, 0, 49, true},       {FrameType::kData, 0, 48, false},
                        {FrameType::kRts, 0, 1 << 20, false},  {FrameType::kCredit, 0, 0, false}};
  std::vector<std::uint64_t> mem(SlotRing::kCellBytes / 8, 0);
  char* cell = reinterpret_cast<char*>(mem.data());
  for (const Case& c : cases) {
    FrameHeader h{};
    h.version = kWireVersion;
    h.type = static_cast<std::uint8_t>(c.type);
    h.flags = c.flags;
    h.length = c.length;
    std::memcpy(SlotRing::header(cell), &h, sizeof h);
    FrameHeader got{};
    EXPECT_EQ(SlotRing::read_cell(cell, &got) == nullptr, c.refused) << frame_type_name(c.type) << " of " << c.length;
  }
}

// The shortest frames travel in 32-byte records: what the consumer makes
// of one is the header and payload the producer had, the link's peer as
// source, this rank as destination, the sequence number it expected.
TEST(SlotRing, ShortRecordsCarryAPlainOrSynchronousEagerOfUpTo8Bytes) {
  const std::uint32_t n = 4;
  std::vector<std::uint64_t> mem(SlotRing::bytes(n, sizeof(SlotRing::ShortRecord)) / 8, 0);
  SlotRing records(mem.data(), n, sizeof(SlotRing::ShortRecord));
  for (std::uint64_t seq = 0; seq < 2 * SlotRing::kInlineBytes + 2; ++seq) {
    FrameHeader h{};
    h.version = kWireVersion;
    h.type = static_cast<std::uint8_t>(FrameType::kEager);
    h.flags = seq % 2 ? kFlagSync : 0;
    h.credits = static_cast<std::uint32_t>(seq * 15 % 256);
    h.seq = 1000 + seq;
    h.src = 3;
    h.dst = 5;
    h.tag = seq % 3 ? 77 : 0x7fffffff;
    h.context = static_cast<std::uint16_t>(0xfff0 + seq % 16);
    h.length = seq % (SlotRing::kInlineBytes + 1);
    h.send_id = 0x8000000000000000ull | seq;
    ASSERT_TRUE(SlotRing::fits_short(h, 3, 5)) << "seq " << seq;
    const std::string bytes = std::string("abcdefgh").substr(0, h.length);
    char* at = records.slot(seq);
    std::memset(at, 0xee, sizeof(SlotRing::ShortRecord));
    SlotRing::write_short(at, h, bytes.data());
    EXPECT_FALSE(SlotRing::ready(at, h.seq)) << "not before it is published";
    SlotRing::publish(at, h.seq);
    ASSERT_TRUE(SlotRing::ready(at, h.seq));
    EXPECT_FALSE(SlotRing::ready(at, h.seq + n)) << "nor as a later frame of the same place";
    FrameHeader got;
    std::memset(&got, 0x55, sizeof got);
    const char* payload = SlotRing::read_short(at, h.seq, 3, 5, &got);
    ASSERT_NE(payload, nullptr);
    EXPECT_EQ(std::memcmp(&got, &h, sizeof h), 0) << "seq " << seq;
    EXPECT_EQ(std::string(payload, got.length), bytes);
    EXPECT_GE(payload, at);
    EXPECT_LE(payload + got.length, at + sizeof(SlotRing::ShortRecord));
  }
}

// Only such frames fit a record; one that claims more than 8 bytes is
// refused (a peer's fault).
TEST(SlotRing, OtherFramesDoNotFitAShortRecordAndAClaimOfMoreIsRefused) {
  FrameHeader h{};
  h.version = kWireVersion;
  h.type = static_cast<std::uint8_t>(FrameType::kEager);
  h.length = 8;
  h.src = 0;
  h.dst = 1;
  EXPECT_TRUE(SlotRing::fits_short(h, 0, 1));
  auto changed = [&](auto change) {
    FrameHeader c = h;
    change(c);
    return SlotRing::fits_short(c, 0, 1);
  };
  EXPECT_FALSE(changed([](FrameHeader& c) { c.length = 9; }));
  EXPECT_FALSE(changed([](FrameHeader& c) { c.flags = kFlagChannel; }));
  EXPECT_FALSE(changed([](FrameHeader& c) { c.type = static_cast<std::uint8_t>(FrameType::kData); }));
  EXPECT_FALSE(changed([](FrameHeader& c) { c.type = static_cast<std::uint8_t>(FrameType::kCredit); }));
  EXPECT_FALSE(changed([](FrameHeader& c) { c.hops = 1; }));
  EXPECT_FALSE(changed([](FrameHeader& c) { c.e2e_credits = 1; }));
  EXPECT_FALSE(changed([](FrameHeader& c) { c.credits = 256; }));
  EXPECT_FALSE(changed([](FrameHeader& c) { c.src = 2; }));  // relayed
  EXPECT_FALSE(changed([](FrameHeader& c) { c.dst = 2; }));  // to be relayed

  SlotRing::ShortRecord r{};
  for (std::uint8_t claim : {std::uint8_t{9}, std::uint8_t{0x7f}, std::uint8_t{0x80 | 9}}) {
    r.length_sync = claim;
    FrameHeader got;
    EXPECT_EQ(SlotRing::read_short(reinterpret_cast<char*>(&r), 0, 0, 1, &got), nullptr) << int{claim};
  }
}

// ---- matching ---------------------------------------------------------------------

TEST(Matcher, EarliestPostedWinsBetweenSpecificAndAnySource) {
  Matcher m(4);
  PostedRecv any{{0, -1, -1}}, specific{{0, 2, 5}}, later_any{{0, -1, 5}};
  m.post(&any);
  m.post(&specific);
  m.post(&later_any);
  EXPECT_EQ(m.match_arrival(0, 2, 5), &any);       // posted first
  EXPECT_EQ(m.match_arrival(0, 2, 5), &specific);  // then the specific one
  EXPECT_EQ(m.match_arrival(0, 2, 5), &later_any);
  EXPECT_EQ(m.match_arrival(0, 2, 5), nullptr);
}

TEST(Matcher, ContextAndTagSeparateMessages) {
  Matcher m(2);
  PostedRecv r{{7, 1, 3}};
  m.post(&r);
  EXPECT_EQ(m.match_arrival(8, 1, 3), nullptr);  // other communicator
  EXPECT_EQ(m.match_arrival(7, 1, 4), nullptr);  // other tag
  EXPECT_EQ(m.match_arrival(7, 0, 3), nullptr);  // other source
  EXPECT_EQ(m.match_arrival(7, 1, 3), &r);
}

TEST(Matcher, UnexpectedMatchInArrivalOrderPerSourceAndAcrossSources) {
  Matcher m(3);
  UnexpectedMsg a{0, 1, 9}, b{0, 2, 9}, c{0, 1, 9}, d{0, 1, 4};
  for (UnexpectedMsg* x : {&a, &b, &c, &d}) m.add_unexpected(x);
  EXPECT_EQ(m.unexpected_count(), 4u);
  EXPECT_EQ(m.match_unexpected({0, 1, 4}, false), &d);  // probe leaves it
  EXPECT_EQ(m.unexpected_count(), 4u);
  EXPECT_EQ(m.match_unexpected({0, -1, 9}, true), &a);  // earliest of all sources
  EXPECT_EQ(m.match_unexpected({0, -1, 9}, true), &b);
  EXPECT_EQ(m.match_unexpected({0, 1, -1}, true), &c);
  EXPECT_EQ(m.match_unexpected({0, 1, -1}, true), &d);
  EXPECT_EQ(m.match_unexpected({0, -1, -1}, true), nullptr);
  EXPECT_EQ(m.unexpected_count(), 0u);
}

TEST(Matcher, UnpostRemovesOnlyQueuedReceives) {
  Matcher m(2);
  PostedRecv r{{0, 1, 1}}, s{{0, -1, 1}};
  m.post(&r);
  m.post(&s);
  EXPECT_TRUE(m.unpost(&s));
  EXPECT_FALSE(m.unpost(&s));
  EXPECT_EQ(m.match_arrival(0, 1, 1), &r);
  EXPECT_FALSE(m.unpost(&r));
}

}  // namespace
}  // namespace meshmp::mesh
