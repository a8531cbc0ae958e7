// The registration cache (mesh/registration_cache.h, seed 000 §3.7) over a
// registrar that counts what it is asked to do.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "mesh/registration_cache.h"

namespace meshmp::mesh {
namespace {

class CountingRegistrar : public RegistrationCache::Registrar {
 public:
  bool register_range(std::uintptr_t addr, std::size_t len, std::uint64_t* handle) override {
    if (refuse) return false;
    *handle = ++next;
    live[*handle] = {addr, len};
    return true;
  }
  void deregister(std::uint64_t handle) override {
    EXPECT_EQ(live.erase(handle), 1u) << "deregistered twice or never registered: " << handle;
  }
  bool refuse = false;
  std::uint64_t next = 0;
  std::map<std::uint64_t, std::pair<std::uintptr_t, std::size_t>> live;
};

constexpr std::size_t kPage = 4096;

// Addresses only: the cache never touches the memory.
const void* at(std::uintptr_t a) { return reinterpret_cast<const void*>(a); }

TEST(RegistrationCache, ABufferUsedAgainIsRegisteredOnce) {
  CountingRegistrar r;
  RegistrationCache c(r, 1 << 20, kPage);
  for (int i = 0; i < 100; ++i) {
    RegistrationCache::Entry* e = c.acquire(at(0x10010), 5000);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->state, RegistrationCache::State::kInUse);
    EXPECT_EQ(e->addr, 0x10000u);          // rounded out to pages
    EXPECT_EQ(e->len, 2 * kPage);
    c.release(e);
    EXPECT_EQ(e->state, RegistrationCache::State::kCached);
  }
  // A range inside the registered pages is a hit too.
  c.release(c.acquire(at(0x11000), 100));
  const auto s = c.stats();
  EXPECT_EQ(s.registrations, 1u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 100u);
  EXPECT_EQ(r.live.size(), 1u);
}

TEST(RegistrationCache, TheLeastRecentlyUsedGoBeyondTheLimitButNeverOneInUse) {
  CountingRegistrar r;
  RegistrationCache c(r, 2 * kPage, kPage);  // room for two one-page entries
  RegistrationCache::Entry* held = c.acquire(at(0x100000), 10);
  c.release(c.acquire(at(0x200000), 10));
  c.release(c.acquire(at(0x300000), 10));
  c.release(c.acquire(at(0x200000), 10));  // 0x200000 is now the most recent
  c.release(c.acquire(at(0x400000), 10));  // over the limit: 0x300000 goes
  EXPECT_EQ(c.stats().deregistrations, 1u);
  EXPECT_EQ(c.stats().cached_bytes, 2 * kPage);
  EXPECT_EQ(held->state, RegistrationCache::State::kInUse);  // held: never evicted
  std::vector<std::uintptr_t> left;
  for (auto& [h, range] : r.live) left.push_back(range.first);
  EXPECT_EQ(left, (std::vector<std::uintptr_t>{0x100000, 0x200000, 0x400000}));
  c.release(c.acquire(at(0x300000), 10));  // a miss again
  EXPECT_EQ(c.stats().registrations, 5u);
  c.release(held);
}

TEST(RegistrationCache, InvalidatedMemoryIsNeverHandedOutAndGoesAtItsLastRelease) {
  CountingRegistrar r;
  RegistrationCache c(r, 1 << 20, kPage);
  c.release(c.acquire(at(0x10000), 100));
  RegistrationCache::Entry* busy = c.acquire(at(0x20000), 100);
  RegistrationCache::Entry* busy2 = c.acquire(at(0x20000), 50);
  EXPECT_EQ(busy, busy2);
  c.invalidate(at(0x10000), 2 * 0x10000);  // both are freed by the application
  EXPECT_EQ(c.stats().deregistrations, 1u);  // the cached one at once
  EXPECT_EQ(busy->state, RegistrationCache::State::kInvalid);
  RegistrationCache::Entry* fresh = c.acquire(at(0x20000), 100);  // not the invalid one
  EXPECT_NE(fresh, busy);
  c.release(busy);
  EXPECT_EQ(c.stats().deregistrations, 1u);  // one user left
  c.release(busy2);
  EXPECT_EQ(c.stats().deregistrations, 2u);
  c.release(fresh);
  EXPECT_EQ(r.live.size(), 1u);  // only `fresh`, cached
}

TEST(RegistrationCache, ARefusedRegistrationIsNullAndTheDestructorDeregistersAll) {
  CountingRegistrar r;
  {
    RegistrationCache c(r, 1 << 20, kPage);
    c.release(c.acquire(at(0x10000), 100));
    RegistrationCache::Entry* held = c.acquire(at(0x90000), 100);
    ASSERT_NE(held, nullptr);
    r.refuse = true;
    EXPECT_EQ(c.acquire(at(0x50000), 100), nullptr);
    EXPECT_EQ(c.acquire(at(0x10000), 100), c.acquire(at(0x10000), 10)) << "hits need no registrar";
  }
  EXPECT_TRUE(r.live.empty());
}

}  // namespace
}  // namespace meshmp::mesh
