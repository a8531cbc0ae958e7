// The context-id allocator (mesh/context_ids.h): pairs agreed by AND over
// the members' masks, reused once freed, and a clear "none" when exhausted.
#include <gtest/gtest.h>

#include <set>

#include "mesh/context_ids.h"

namespace meshmp::mesh {
namespace {

TEST(ContextIds, ReservedPairsAreNeverHandedOutOrFreed) {
  ContextIds ids;
  EXPECT_EQ(ids.in_use(), ContextIds::kReserved);
  ContextIds::Mask all = ids.free_mask();
  const std::uint32_t first = ids.take(all);
  EXPECT_EQ(first, 2 * ContextIds::kReserved);
  for (std::uint32_t ctx : {ContextIds::kQmpWorld, ContextIds::kQmpWorldHidden, ContextIds::kMpiWorld,
                            ContextIds::kMpiSelf, ContextIds::kMpiSelf + 1})
    EXPECT_FALSE(ids.release(ctx)) << ctx;
  EXPECT_EQ(ids.in_use(), ContextIds::kReserved + 1);
}

TEST(ContextIds, AGroupTakesThePairFreeOnEveryMember) {
  // Rank a uses pairs 4 and 5; rank b uses 4 and 6 (it freed 5). Together
  // they agree on pair 7 (context 14), and each marks it used.
  ContextIds a, b;
  ContextIds::Mask m = a.free_mask();
  EXPECT_EQ(a.take(m), 8u);
  EXPECT_EQ(a.take(m), 10u);
  m = b.free_mask();
  EXPECT_EQ(b.take(m), 8u);
  EXPECT_EQ(b.take(m), 10u);
  EXPECT_EQ(b.take(m), 12u);
  EXPECT_TRUE(b.release(10));
  ContextIds::Mask agreed = a.free_mask();
  for (std::size_t w = 0; w < agreed.size(); ++w) agreed[w] &= b.free_mask()[w];
  ContextIds::Mask for_b = agreed;
  EXPECT_EQ(a.take(agreed), 14u);
  EXPECT_EQ(b.take(for_b), 14u);
  // Two pairs from one agreement are distinct.
  EXPECT_EQ(a.take(agreed), 16u);
  // Pair 5, free on b alone, is still free there.
  m = b.free_mask();
  EXPECT_EQ(b.take(m), 10u);
}

// Nonblocking agreements (MPI_Comm_idup) take from the top; a blocking
// agreement whose lowest agreed pair was taken here since its snapshot
// (by a nonblocking one) takes nothing rather than another pair than the
// rest of its group.
TEST(ContextIds, NonblockingAgreementsTakeFromTheTopAndAClashIsReported) {
  ContextIds ids;
  ContextIds::Mask snapshot = ids.free_mask();
  ContextIds::Mask top = ids.free_mask();
  EXPECT_EQ(ids.take_highest(top), 2 * (ContextIds::kPairs - 1));
  EXPECT_EQ(ids.take_highest(top), 2 * (ContextIds::kPairs - 2));
  EXPECT_EQ(ids.take_lowest_agreed(snapshot), 2 * ContextIds::kReserved);  // the bottom is untouched
  // A snapshot whose lowest pair a nonblocking agreement took meanwhile.
  ContextIds::Mask only_high{};
  only_high.back() = 0x80000000u | 0x40000000u | 0x20000000u;  // pairs kPairs-1 .. kPairs-3 (the first two taken)
  ContextIds::Mask mask = only_high;
  EXPECT_EQ(ids.take_lowest_agreed(mask), 2 * (ContextIds::kPairs - 3));
  mask = only_high;
  EXPECT_EQ(ids.take_lowest_agreed(mask), ContextIds::kNone);  // its lowest, pair kPairs-3, is now in use
  EXPECT_EQ(ids.in_use(), ContextIds::kReserved + 4);
  EXPECT_TRUE(ids.release(2 * (ContextIds::kPairs - 1)));
  ContextIds::Mask none{};
  EXPECT_EQ(ids.take_highest(none), ContextIds::kNone);
}

// A bucket: pairs p with p % 64 == bucket, from the top; another pair only
// when none of the bucket is free in both.
TEST(ContextIds, TakeHighestPrefersTheBucket) {
  ContextIds ids;
  ContextIds::Mask all = ids.free_mask();
  EXPECT_EQ(ids.take_highest(all, 5), 2 * (ContextIds::kPairs - 64 + 5));
  EXPECT_EQ(ids.take_highest(all, 5 + 64), 2 * (ContextIds::kPairs - 128 + 5));  // the bucket is taken mod 64
  EXPECT_EQ(ids.take_highest(all, 63), 2 * (ContextIds::kPairs - 1));
  ContextIds::Mask one{};
  one[10] = 1u << 7;  // pair 327 (bucket 7) only
  EXPECT_EQ(ids.take_highest(one, 5), 2u * 327);
  ContextIds::Mask none{};
  EXPECT_EQ(ids.take_highest(none, 5), ContextIds::kNone);
  EXPECT_EQ(ids.in_use(), ContextIds::kReserved + 4);
}

TEST(ContextIds, FreedPairsAreReusedAndExhaustionSaysNone) {
  ContextIds ids;
  std::set<std::uint32_t> taken;
  for (;;) {
    ContextIds::Mask m = ids.free_mask();
    const std::uint32_t c = ids.take(m);
    if (c == ContextIds::kNone) break;
    EXPECT_EQ(c % 2, 0u);
    EXPECT_TRUE(taken.insert(c).second) << "handed out twice: " << c;
  }
  EXPECT_EQ(taken.size(), ContextIds::kPairs - ContextIds::kReserved);
  EXPECT_EQ(ids.in_use(), ContextIds::kPairs);
  EXPECT_EQ(*taken.rbegin(), 2 * (ContextIds::kPairs - 1));
  // Freed by either id of the pair, once; counted per pair (state kept for
  // a communicator is stale once its pair was released).
  EXPECT_EQ(ids.releases(100), 0u);
  EXPECT_TRUE(ids.release(101));
  EXPECT_FALSE(ids.release(100)) << "a pair freed twice";
  EXPECT_FALSE(ids.release(2 * ContextIds::kPairs)) << "out of range";
  EXPECT_EQ(ids.releases(100), 1u);
  EXPECT_EQ(ids.releases(101), 1u);
  EXPECT_EQ(ids.releases(102), 0u);
  EXPECT_EQ(ids.releases(2 * ContextIds::kPairs), 0u);
  ContextIds::Mask m = ids.free_mask();
  EXPECT_EQ(ids.take(m), 100u);
  m = ids.free_mask();
  EXPECT_EQ(ids.take(m), ContextIds::kNone);
}

}  // namespace
}  // namespace meshmp::mesh
