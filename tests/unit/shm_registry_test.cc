// The shm registry (registered memory, seed 000 §3.7) within one process: two
// registries of one job stand for two ranks; writes go through the name the
// owner created, exactly as between processes.
#include "mesh/shm_registry.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace meshmp::mesh {
namespace {

std::string unique_job() {
  return "t" + std::to_string(::getpid()) + "x" + std::to_string(std::random_device{}());
}

bool name_exists(const std::string& job, int rank, std::uint32_t region) {
  struct stat st {};
  const std::string path = "/dev/shm/meshmp-" + job + "-m" + std::to_string(rank) + "-" + std::to_string(region);
  return ::stat(path.c_str(), &st) == 0;
}

std::uint64_t addr(const void* p) { return reinterpret_cast<std::uint64_t>(p); }

TEST(ShmRegistry, KeysCarryTheRegionAndANonzeroNonce) {
  EXPECT_EQ(registered_region_of(make_registration_key(7, 0)), 7u);
  EXPECT_NE(make_registration_key(0, 0), 0u);
  EXPECT_EQ(registered_region_of(make_registration_key(0, 12345)), 0u);
}

TEST(ShmRegistry, HonoursAlignment) {
  ShmRegistry owner(unique_job(), 0);
  for (std::size_t align : {std::size_t{1}, std::size_t{64}, std::size_t{4096}, std::size_t{1} << 16}) {
    void* p = owner.allocate(1000, align);
    ASSERT_NE(p, nullptr) << std::strerror(errno);
    EXPECT_EQ(addr(p) % align, 0u) << align;
    std::memset(p, 0xab, 1000);  // all of it is usable
    EXPECT_TRUE(owner.release(p));
  }
}

TEST(ShmRegistry, RegionOfCoversExactlyTheAllocation) {
  ShmRegistry owner(unique_job(), 0);
  auto* p = static_cast<char*>(owner.allocate(4096, 64));
  ASSERT_NE(p, nullptr);
  const std::uint32_t region = owner.region_of(p, 4096);
  EXPECT_GT(region, 0u);
  EXPECT_EQ(owner.region_of(p + 100, 3996), region);
  EXPECT_EQ(owner.region_of(p + 100, 3997), 0u);
  EXPECT_EQ(owner.region_of(p - 1, 1), 0u);
  int stack_buffer[4];
  EXPECT_EQ(owner.region_of(stack_buffer, sizeof stack_buffer), 0u);
  EXPECT_TRUE(owner.release(p));
  EXPECT_EQ(owner.region_of(p, 1), 0u);
  EXPECT_FALSE(owner.release(p));
}

TEST(ShmRegistry, APeerWritesIntoTheRegionAndNowhereElse) {
  const std::string job = unique_job();
  ShmRegistry owner(job, 0), writer(job, 1);
  const std::size_t n = 10000;
  auto* p = static_cast<unsigned char*>(owner.allocate(n, 64));
  ASSERT_NE(p, nullptr);
  std::memset(p, 0, n);
  const std::uint32_t region = owner.region_of(p, n);
  std::vector<unsigned char> src(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);

  ASSERT_EQ(writer.write(0, region, addr(p) + 16, src.data(), n - 16), 0);
  for (std::size_t i = 0; i < 16; ++i) ASSERT_EQ(p[i], 0) << i;
  for (std::size_t i = 16; i < n; ++i) ASSERT_EQ(p[i], src[i - 16]) << i;
  EXPECT_EQ(writer.peer_regions_mapped(), 1u);

  // Outside the region, or a region that does not exist: refused.
  EXPECT_EQ(writer.write(0, region, addr(p) + 1, src.data(), n), EFAULT);
  EXPECT_EQ(writer.write(0, region, addr(p) - 8, src.data(), 8), EFAULT);
  EXPECT_EQ(writer.write(0, region, addr(p) + n, src.data(), 1), EFAULT);
  EXPECT_EQ(writer.write(0, region + 1000, addr(p), src.data(), 1), EFAULT);
  EXPECT_EQ(writer.write(2, region, addr(p), src.data(), 1), EFAULT);
  EXPECT_TRUE(owner.release(p));
}

TEST(ShmRegistry, NamesGoWithReleaseAndWithTheRegistry) {
  const std::string job = unique_job();
  std::uint32_t kept = 0;
  {
    ShmRegistry owner(job, 3);
    void* a = owner.allocate(100, 8);
    void* b = owner.allocate(100, 8);
    ASSERT_TRUE(a && b);
    const std::uint32_t ra = owner.region_of(a, 100);
    kept = owner.region_of(b, 100);
    EXPECT_TRUE(name_exists(job, 3, ra));
    EXPECT_TRUE(owner.release(a));
    EXPECT_FALSE(name_exists(job, 3, ra));
    EXPECT_TRUE(name_exists(job, 3, kept));
  }
  EXPECT_FALSE(name_exists(job, 3, kept));
}

TEST(ShmRegistry, PeerMappingsStayBounded) {
  const std::string job = unique_job();
  ShmRegistry owner(job, 0), writer(job, 1);
  const int n = static_cast<int>(ShmRegistry::kMaxPeerRegions) + 20;
  std::vector<char*> regions;
  for (int i = 0; i < n; ++i) {
    regions.push_back(static_cast<char*>(owner.allocate(64, 8)));
    ASSERT_NE(regions.back(), nullptr);
  }
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < n; ++i) {
      const char v = static_cast<char>(i + round);
      ASSERT_EQ(writer.write(0, owner.region_of(regions[i], 64), addr(regions[i]), &v, 1), 0) << i;
      ASSERT_EQ(regions[i][0], v);
    }
  EXPECT_LE(writer.peer_regions_mapped(), ShmRegistry::kMaxPeerRegions);
  for (char* p : regions) EXPECT_TRUE(owner.release(p));
}

}  // namespace
}  // namespace meshmp::mesh
