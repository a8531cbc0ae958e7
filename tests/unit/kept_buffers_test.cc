// qmp/kept_buffers.h: the registered buffers QMP_free_memory keeps for the
// next QMP_allocate_memory of their size and alignment.
#include "qmp/kept_buffers.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace meshmp::qmp {
namespace {

// Distinct fake buffers: the class never touches what they point to.
void* buf(int i) { return reinterpret_cast<void*>(std::uintptr_t{0x10000} + 64 * static_cast<std::uintptr_t>(i)); }

TEST(KeptBuffers, GivesBackOnlyTheSameSizeAndAlignment) {
  KeptBuffers kept(1 << 20);
  ASSERT_TRUE(kept.keep(buf(1), 1024, 64));
  EXPECT_EQ(kept.take(1024, 128), nullptr);
  EXPECT_EQ(kept.take(1025, 64), nullptr);
  EXPECT_EQ(kept.take(1023, 64), nullptr);
  EXPECT_EQ(kept.take(1024, 64), buf(1));
  EXPECT_EQ(kept.take(1024, 64), nullptr) << "a buffer is given back once";
  EXPECT_TRUE(kept.empty());
  EXPECT_EQ(kept.held(), 0u);
}

TEST(KeptBuffers, EarliestKeptFirst) {
  KeptBuffers kept(1 << 20);
  ASSERT_TRUE(kept.keep(buf(1), 4096, 64));
  ASSERT_TRUE(kept.keep(buf(2), 512, 64));
  ASSERT_TRUE(kept.keep(buf(3), 4096, 64));
  EXPECT_EQ(kept.take(4096, 64), buf(1));
  EXPECT_EQ(kept.take(4096, 64), buf(3));
  EXPECT_EQ(kept.take(512, 64), buf(2));
  // Faces freed in order come back in that order, gather after gather.
  for (int round = 0; round < 3; ++round) {
    for (int f = 0; f < 4; ++f) ASSERT_TRUE(kept.keep(buf(10 + f), 1024, 64));
    for (int f = 0; f < 4; ++f) EXPECT_EQ(kept.take(1024, 64), buf(10 + f)) << round;
  }
}

TEST(KeptBuffers, BoundedByCountAndBytes) {
  KeptBuffers small(3000);
  EXPECT_TRUE(small.keep(buf(1), 1000, 64));
  EXPECT_TRUE(small.keep(buf(2), 2000, 64));
  EXPECT_FALSE(small.keep(buf(3), 1, 64)) << "the budget is spent";
  EXPECT_EQ(small.held(), 3000u);
  EXPECT_EQ(small.take(1000, 64), buf(1));
  EXPECT_TRUE(small.keep(buf(3), 1000, 64));

  KeptBuffers none;  // no budget: nothing is kept
  EXPECT_FALSE(none.keep(buf(1), 64, 64));

  KeptBuffers many(std::size_t{1} << 40);
  for (std::size_t i = 0; i < KeptBuffers::kMaxBuffers; ++i) EXPECT_TRUE(many.keep(buf(static_cast<int>(i)), 64, 64));
  EXPECT_FALSE(many.keep(buf(99), 64, 64)) << "at most kMaxBuffers";
  EXPECT_EQ(many.size(), KeptBuffers::kMaxBuffers);

  // A budget lowered below what is held keeps nothing more.
  small.set_budget(100);
  EXPECT_FALSE(small.keep(buf(4), 1, 64));
}

TEST(KeptBuffers, EverySizeComesBackFromAFullList) {
  // Sizes that share hash bins and sizes that do not, taken in another
  // order than kept: each comes back as itself, then nothing.
  KeptBuffers kept(std::size_t{1} << 30);
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < KeptBuffers::kMaxBuffers; ++i) sizes.push_back(64 * (1 + (i * 37) % 96));
  for (std::size_t i = 0; i < sizes.size(); ++i) ASSERT_TRUE(kept.keep(buf(static_cast<int>(i)), sizes[i], 64));
  for (std::size_t i = sizes.size(); i-- > 0;) {
    const std::size_t j = (i * 7) % sizes.size();  // 7 is prime to 32: every index once
    EXPECT_EQ(kept.take(sizes[j], 64), buf(static_cast<int>(j))) << sizes[j];
  }
  for (std::size_t s : sizes) EXPECT_EQ(kept.take(s, 64), nullptr) << s;
  EXPECT_EQ(kept.held(), 0u);
}

TEST(KeptBuffers, TakingAndKeepingRoundAFullListKeepsTheOrder) {
  // Taking the earliest frees room at the front; keeping into a list whose
  // end is reached moves the kept ones down. Every buffer comes back once,
  // in the order kept, and the count bound holds throughout.
  KeptBuffers kept(std::size_t{1} << 30);
  const int n = static_cast<int>(KeptBuffers::kMaxBuffers);
  for (int i = 0; i < n; ++i) ASSERT_TRUE(kept.keep(buf(i), 256, 64));
  int next_taken = 0, next_kept = n;
  for (int round = 0; round < 3 * n; ++round) {
    EXPECT_EQ(kept.take(256, 64), buf(next_taken++));
    ASSERT_TRUE(kept.keep(buf(next_kept++), 256, 64));
    EXPECT_FALSE(kept.keep(buf(1000), 256, 64)) << "full again";
  }
  // One of another size kept after them: the rest still come first, in order.
  EXPECT_EQ(kept.take(256, 64), buf(next_taken++));
  ASSERT_TRUE(kept.keep(buf(2000), 512, 64));
  for (int i = 0; i < n - 1; ++i) EXPECT_EQ(kept.take(256, 64), buf(next_taken++));
  EXPECT_EQ(kept.take(512, 64), buf(2000));
  EXPECT_TRUE(kept.empty());
  EXPECT_EQ(kept.held(), 0u);
}

TEST(KeptBuffers, AnotherSizeTakenFromTheMiddle) {
  KeptBuffers kept(1 << 20);
  kept.keep(buf(1), 64, 64);
  kept.keep(buf(2), 128, 64);
  kept.keep(buf(3), 64, 64);
  kept.keep(buf(4), 128, 64);
  EXPECT_EQ(kept.take(128, 64), buf(2));
  EXPECT_EQ(kept.take(64, 64), buf(1));
  EXPECT_EQ(kept.take(64, 64), buf(3));
  EXPECT_EQ(kept.take(128, 64), buf(4));
  EXPECT_TRUE(kept.empty());
}

TEST(KeptBuffers, ReleaseAllGivesEachBackOnce) {
  KeptBuffers kept(1 << 20);
  kept.keep(buf(1), 100, 64);
  kept.keep(buf(2), 200, 64);
  std::vector<void*> released;
  kept.release_all([&](void* p) { released.push_back(p); });
  EXPECT_EQ(released, (std::vector<void*>{buf(1), buf(2)}));
  EXPECT_TRUE(kept.empty());
  EXPECT_EQ(kept.take(100, 64), nullptr);
  EXPECT_TRUE(kept.keep(buf(3), 100, 64)) << "the budget is free again";
}

TEST(KeptBuffers, AFullPoolGetsTheKeptBuffersBackBeforeRefusing) {
  KeptBuffers kept(1 << 20);
  kept.keep(buf(1), 512, 64);
  kept.keep(buf(2), 256, 64);
  int calls = 0;
  std::vector<void*> released;
  auto release = [&](void* p) { released.push_back(p); };
  // A kept one: no allocation.
  EXPECT_EQ(kept.take_or_allocate(256, 64, [&](std::size_t, std::size_t) { return ++calls, buf(9); }, release), buf(2));
  EXPECT_EQ(calls, 0);
  // The pool has room: allocated, the kept buffer stays.
  EXPECT_EQ(kept.take_or_allocate(4096, 64, [&](std::size_t, std::size_t) { return ++calls, buf(9); }, release), buf(9));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(released.empty());
  // The pool is full until the kept buffer goes back: it goes, and the
  // allocation is tried again.
  auto full_until_released = [&](std::size_t n, std::size_t a) -> void* {
    ++calls;
    EXPECT_EQ(n, 8192u);
    EXPECT_EQ(a, 128u);
    return released.empty() ? nullptr : buf(10);
  };
  EXPECT_EQ(kept.take_or_allocate(8192, 128, full_until_released, release), buf(10));
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(released, std::vector<void*>{buf(1)});
  EXPECT_TRUE(kept.empty());
  // Nothing kept and the pool full: nullptr after one try.
  EXPECT_EQ(kept.take_or_allocate(8192, 64, [&](std::size_t, std::size_t) -> void* { return ++calls, nullptr; }, release),
            nullptr);
  EXPECT_EQ(calls, 4);
}

}  // namespace
}  // namespace meshmp::qmp
