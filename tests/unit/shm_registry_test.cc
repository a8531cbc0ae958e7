// The shm registry (registered memory, seed 000 §3.7) within one process: two
// registries of one job stand for two ranks; writes go through the owner's
// descriptor (/proc/<pid>/fd) or the name it created, exactly as between
// processes. Memory comes from a pool of arenas: reused after release, one
// mapping per arena in a peer.
#include "mesh/providers/shm/shm_registry.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace meshmp::mesh {
namespace {

std::string unique_job() {
  return "t" + std::to_string(::getpid()) + "x" + std::to_string(std::random_device{}());
}

// Each rank's name token (in a job they come from the launcher's fence).
std::string tok(int rank) { return "tok" + std::to_string(rank); }
std::vector<std::string> tokens(int n) {
  std::vector<std::string> t;
  for (int r = 0; r < n; ++r) t.push_back(tok(r));
  return t;
}

bool name_exists(const std::string& job, int rank, std::uint32_t region) {
  struct stat st {};
  const std::string path =
      "/dev/shm/meshmp-" + job + "-" + tok(rank) + "-m" + std::to_string(rank) + "-" + std::to_string(region);
  return ::stat(path.c_str(), &st) == 0;
}

// Names in /dev/shm that begin with "meshmp-<job>".
std::vector<std::string> job_names(const std::string& job) {
  std::vector<std::string> v;
  const std::string prefix = "meshmp-" + job;
  if (DIR* d = ::opendir("/dev/shm")) {
    while (dirent* e = ::readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0) v.push_back(e->d_name);
    ::closedir(d);
  }
  return v;
}

// This process's id for every rank: the registries here are all in it.
std::vector<int> pids(int n) { return std::vector<int>(n, ::getpid()); }

std::uint64_t addr(const void* p) { return reinterpret_cast<std::uint64_t>(p); }
using Sharing = ShmRegistry::Sharing;

constexpr std::size_t kLimit = std::size_t{1} << 30;
constexpr std::size_t kSmallArena = 64 * 1024;

// Arena names in a job (a secret): the listed name of one arena gives away
// neither the rank's token nor the name of the next one (issue 29), and a
// peer registry with the secret still finds them.
TEST(ShmRegistry, NamesUnderASecretCannotBeWorkedOutFromOneAnother) {
  const std::string job = unique_job(), secret = "0123456789abcdef0123456789abcdef";
  ShmRegistry owner(job, 0, tok(0), kLimit, kSmallArena, secret, Sharing::kName);
  ShmRegistry peer(job, 1, tok(1), kLimit, kSmallArena, secret, Sharing::kName);
  peer.set_peer_tokens(tokens(2));
  void* a = owner.allocate(kSmallArena / 2, 64);
  void* b = owner.allocate(kSmallArena, 64);  // a second arena
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(name_exists(job, 0, 1)) << "the name carries the token";
  const std::string first = owner.name(0, 1), second = owner.name(0, 2);
  struct stat st {};
  EXPECT_EQ(::stat(("/dev/shm" + first).c_str(), &st), 0) << first;
  EXPECT_EQ(::stat(("/dev/shm" + second).c_str(), &st), 0) << second;
  EXPECT_EQ(first.find(tok(0)), std::string::npos) << first;
  // The tag parts differ beyond the region number.
  const std::string tag1 = first.substr(0, first.rfind("-m")), tag2 = second.substr(0, second.rfind("-m"));
  EXPECT_NE(tag1, tag2);
  const char msg[] = "through the keyed name";
  ASSERT_EQ(peer.write(0, owner.region_of(b, sizeof msg), addr(b), msg, sizeof msg), 0);
  EXPECT_EQ(std::memcmp(b, msg, sizeof msg), 0);
  owner.release(a);
  owner.release(b);
}

TEST(ShmRegistry, KeysCarryTheRegionAndANonzeroNonce) {
  EXPECT_EQ(registered_region_of(make_registration_key(7, 0)), 7u);
  EXPECT_NE(make_registration_key(0, 0), 0u);
  EXPECT_EQ(registered_region_of(make_registration_key(0, 12345)), 0u);
}

TEST(ShmRegistry, HonoursAlignment) {
  ShmRegistry owner(unique_job(), 0, tok(0), kLimit);
  std::vector<void*> kept;
  for (std::size_t align : {std::size_t{1}, std::size_t{64}, std::size_t{4096}, std::size_t{1} << 16}) {
    void* p = owner.allocate(1000, align);
    ASSERT_NE(p, nullptr) << std::strerror(errno);
    EXPECT_EQ(addr(p) % align, 0u) << align;
    EXPECT_EQ(addr(p) % 64, 0u) << "whole cache lines";
    std::memset(p, 0xab, 1000);  // all of it is usable
    kept.push_back(p);
  }
  for (void* p : kept) EXPECT_TRUE(owner.release(p));
  EXPECT_FALSE(owner.release(kept[0])) << "released twice";
}

TEST(ShmRegistry, AllocationsDoNotOverlap) {
  ShmRegistry owner(unique_job(), 0, tok(0), kLimit, kSmallArena);
  std::mt19937 rng(5);
  std::vector<std::pair<unsigned char*, std::size_t>> live;
  for (int i = 0; i < 3000; ++i) {
    if (!live.empty() && rng() % 3 == 0) {  // free one at random
      const std::size_t k = rng() % live.size();
      for (std::size_t j = 0; j < live[k].second; ++j) ASSERT_EQ(live[k].first[j], static_cast<unsigned char>(k + live[k].second)) << "overwritten";
      ASSERT_TRUE(owner.release(live[k].first));
      live[k] = live.back();
      live.pop_back();
      for (std::size_t m = 0; m < live.size(); ++m) std::memset(live[m].first, static_cast<int>(m + live[m].second), live[m].second);
      continue;
    }
    const std::size_t n = 1 + rng() % 20000;
    auto* p = static_cast<unsigned char*>(owner.allocate(n, std::size_t{1} << (rng() % 10)));
    ASSERT_NE(p, nullptr);
    live.emplace_back(p, n);
    std::memset(p, static_cast<int>(live.size() - 1 + n), n);
  }
  for (auto& [p, n] : live) EXPECT_TRUE(owner.release(p));
  EXPECT_EQ(owner.usage().in_use, 0u);
}

// Steady allocate/free: the same memory comes back, and once every size
// has been seen no arena is added (no segment created, so no system call),
// however many pairs follow.
TEST(ShmRegistry, ReleasedMemoryIsReusedWithoutNewArenas) {
  ShmRegistry owner(unique_job(), 0, tok(0), kLimit);
  void* first = owner.allocate(96 * 1024, 64);
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(owner.release(first));
  void* again = owner.allocate(96 * 1024, 64);
  EXPECT_EQ(again, first) << "the released block comes back";
  ASSERT_TRUE(owner.release(again));
  auto pairs = [&](int n) {
    for (int i = 0; i < n; ++i) {
      void* p = owner.allocate(1024 * (1 + (i * 37) % 96), 64);
      ASSERT_NE(p, nullptr);
      ASSERT_TRUE(owner.release(p));
    }
  };
  pairs(96);  // every size once
  const ShmRegistry::Usage warm = owner.usage();
  pairs(10000);
  EXPECT_EQ(owner.usage().arenas, warm.arenas);
  EXPECT_EQ(owner.usage().arena_bytes, warm.arena_bytes);
  EXPECT_EQ(owner.usage().in_use, 0u);
  EXPECT_EQ(owner.usage().high_water, 96u * 1024);
}

// Sizes are rounded up to their class (at most a quarter more); every byte
// asked for is usable.
TEST(ShmRegistry, SizeClassesRoundUpByAtMostAQuarter) {
  ShmRegistry owner(unique_job(), 0, tok(0), kLimit);
  for (std::size_t n : {std::size_t{1}, std::size_t{64}, std::size_t{1000}, std::size_t{1025}, std::size_t{5000},
                        std::size_t{65537}, std::size_t{1} << 20, (std::size_t{1} << 20) + 1}) {
    void* p = owner.allocate(n, 64);
    ASSERT_NE(p, nullptr) << n;
    std::memset(p, 1, n);
    EXPECT_GE(owner.usage().in_use, n);
    EXPECT_LE(owner.usage().in_use, std::max<std::size_t>(64, n + n / 4 + 64)) << n;
    EXPECT_TRUE(owner.release(p));
  }
}

// Neighbouring free blocks merge: three adjacent buffers, freed, hold one
// buffer of their combined size at the first one's address -- at once for
// buffers above the largest class, and for classed ones when the pool is at
// its limit (what the classes hold is merged back before giving up).
TEST(ShmRegistry, FreeNeighboursMerge) {
  {
    ShmRegistry owner(unique_job(), 0, tok(0), kLimit, std::size_t{16} << 20);
    const std::size_t big = std::size_t{2} << 20;
    auto* a = static_cast<char*>(owner.allocate(big, 64));
    auto* b = static_cast<char*>(owner.allocate(big, 64));
    auto* c = static_cast<char*>(owner.allocate(big, 64));
    ASSERT_EQ(b, a + big);
    ASSERT_EQ(c, b + big);
    EXPECT_TRUE(owner.release(a));
    EXPECT_TRUE(owner.release(c));
    EXPECT_TRUE(owner.release(b));  // joins both
    EXPECT_EQ(owner.allocate(3 * big, 64), a);
  }
  {
    ShmRegistry owner(unique_job(), 0, tok(0), kSmallArena, kSmallArena);  // one arena, no more
    const std::size_t part = kSmallArena / 4;
    auto* a = static_cast<char*>(owner.allocate(part, 64));
    auto* b = static_cast<char*>(owner.allocate(part, 64));
    auto* c = static_cast<char*>(owner.allocate(part, 64));
    ASSERT_EQ(b, a + part);
    ASSERT_EQ(c, b + part);
    EXPECT_TRUE(owner.release(a));
    EXPECT_TRUE(owner.release(b));
    EXPECT_TRUE(owner.release(c));
    EXPECT_EQ(owner.allocate(3 * part, 64), a);
    EXPECT_EQ(owner.usage().arenas, 1u);
  }
}

TEST(ShmRegistry, RegionOfCoversTheArenaAndNothingElse) {
  ShmRegistry owner(unique_job(), 0, tok(0), kLimit, kSmallArena);
  auto* p = static_cast<char*>(owner.allocate(4096, 64));
  ASSERT_NE(p, nullptr);
  const std::uint32_t region = owner.region_of(p, 4096);
  EXPECT_GT(region, 0u);
  EXPECT_EQ(owner.region_of(p + 100, 3996), region);
  EXPECT_EQ(owner.region_of(p, kSmallArena), region);     // the arena starts at the first block
  EXPECT_EQ(owner.region_of(p, kSmallArena + 1), 0u);     // ... and ends kSmallArena later
  EXPECT_EQ(owner.region_of(p - 1, 1), 0u);
  int stack_buffer[4];
  EXPECT_EQ(owner.region_of(stack_buffer, sizeof stack_buffer), 0u);
  // A buffer that does not fit the first arena gets an arena of its own.
  auto* q = static_cast<char*>(owner.allocate(kSmallArena, 64));
  ASSERT_NE(q, nullptr);
  EXPECT_NE(owner.region_of(q, kSmallArena), region);
  EXPECT_GT(owner.region_of(q, kSmallArena), 0u);
  EXPECT_EQ(owner.usage().arenas, 2u);
  EXPECT_TRUE(owner.release(p));
  EXPECT_TRUE(owner.release(q));
}

void APeerWritesIntoTheArenaAndNowhereElse(Sharing sharing) {
  const std::string job = unique_job();
  ShmRegistry owner(job, 0, tok(0), kLimit, kSmallArena, "", sharing), writer(job, 1, tok(1), kLimit, kSmallArena, "", sharing);
  writer.set_peer_tokens(tokens(2));
  writer.set_peer_pids({::getpid(), ::getpid()});
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

  // A second buffer in the same arena needs no new mapping.
  auto* p2 = static_cast<unsigned char*>(owner.allocate(100, 64));
  ASSERT_EQ(owner.region_of(p2, 100), region);
  ASSERT_EQ(writer.write(0, region, addr(p2), src.data(), 100), 0);
  EXPECT_EQ(std::memcmp(p2, src.data(), 100), 0);
  EXPECT_EQ(writer.peer_regions_mapped(), 1u);

  // Outside the arena, or a region that does not exist: refused.
  EXPECT_EQ(writer.write(0, region, addr(p) + kSmallArena - 8, src.data(), 9), EFAULT);
  EXPECT_EQ(writer.write(0, region, addr(p) - 8, src.data(), 8), EFAULT);
  EXPECT_EQ(writer.write(0, region, addr(p) + kSmallArena, src.data(), 1), EFAULT);
  EXPECT_EQ(writer.write(0, region + 1000, addr(p), src.data(), 1), EFAULT);
  EXPECT_EQ(writer.write(2, region, addr(p), src.data(), 1), EFAULT);
  EXPECT_TRUE(owner.release(p));
  EXPECT_TRUE(owner.release(p2));
}
TEST(ShmRegistry, APeerWritesIntoTheArenaAndNowhereElse) { APeerWritesIntoTheArenaAndNowhereElse(Sharing::kDescriptor); }
TEST(ShmRegistry, APeerWritesIntoTheNamedArenaAndNowhereElse) { APeerWritesIntoTheArenaAndNowhereElse(Sharing::kName); }

// Arenas shared by descriptor have no name (issue 29): nothing of the job
// is in /dev/shm for another user to see, or for a killed rank to leave
// behind; a peer still writes into them, through /proc/<pid>/fd.
TEST(ShmRegistry, ArenasSharedByDescriptorHaveNoName) {
  const std::string job = unique_job();
  ShmRegistry owner(job, 0, tok(0), kLimit, kSmallArena), writer(job, 1, tok(1), kLimit);
  writer.set_peer_pids(pids(2));
  std::vector<char*> bufs;
  for (int i = 0; i < 3; ++i) bufs.push_back(static_cast<char*>(owner.allocate(kSmallArena, 64)));  // three arenas
  EXPECT_EQ(owner.usage().arenas, 3u);
  EXPECT_TRUE(job_names(job).empty());
  for (char* b : bufs) {
    ASSERT_NE(b, nullptr);
    const std::uint32_t region = owner.region_of(b, kSmallArena);
    EXPECT_NE(region & ShmRegistry::kDescriptorRegion, 0u);
    const char v = static_cast<char>(region);
    ASSERT_EQ(writer.write(0, region, addr(b) + 100, &v, 1), 0);
    EXPECT_EQ(b[100], v);
  }
  EXPECT_TRUE(job_names(job).empty());
  for (char* b : bufs) EXPECT_TRUE(owner.release(b));
}

// A region number is the owner's word: one that names a descriptor of the
// owner's that is not an arena -- a file, a pipe, shared memory without an
// arena's header -- is refused, and nothing is written into it.
TEST(ShmRegistry, ADescriptorThatIsNotAnArenaIsRefused) {
  const std::string job = unique_job();
  ShmRegistry writer(job, 1, tok(1), kLimit);
  writer.set_peer_pids(pids(2));
  char path[] = "/tmp/shm_registry_test.XXXXXX";
  const int file = ::mkstemp(path);
  ASSERT_GE(file, 0);
  ::unlink(path);
  const std::string zeros(8192, '\0');
  ASSERT_EQ(::write(file, zeros.data(), zeros.size()), static_cast<ssize_t>(zeros.size()));
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const int bare = ::memfd_create("not-an-arena", MFD_CLOEXEC);
  ASSERT_GE(bare, 0);
  ASSERT_EQ(::ftruncate(bare, 8192), 0);
  const char v = 'x';
  for (int fd : {file, pipe_fds[0], bare}) {
    EXPECT_NE(writer.write(0, ShmRegistry::kDescriptorRegion | static_cast<std::uint32_t>(fd), 64, &v, 1), 0) << fd;
    EXPECT_EQ(writer.peer_regions_mapped(), 0u) << fd;
  }
  char back[8192];
  ASSERT_EQ(::pread(file, back, sizeof back, 0), static_cast<ssize_t>(sizeof back));
  EXPECT_EQ(std::string(back, sizeof back), zeros);
  ASSERT_EQ(::pread(bare, back, sizeof back, 0), static_cast<ssize_t>(sizeof back));
  EXPECT_EQ(std::string(back, sizeof back), zeros);
  // ... and a descriptor or process that is not there is a bad announcement.
  EXPECT_EQ(writer.write(0, ShmRegistry::kDescriptorRegion | 1000000u, 64, &v, 1), EFAULT);
  ::close(file);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  ::close(bare);
}

TEST(ShmRegistry, ArenasStayUntilTheRegistryGoes) {
  const std::string job = unique_job();
  std::uint32_t region = 0;
  {
    ShmRegistry owner(job, 3, tok(3), kLimit, ShmRegistry::kFirstArena, "", Sharing::kName);
    void* a = owner.allocate(100, 8);
    ASSERT_NE(a, nullptr);
    region = owner.region_of(a, 100);
    EXPECT_TRUE(name_exists(job, 3, region));
    EXPECT_TRUE(owner.release(a));
    EXPECT_TRUE(name_exists(job, 3, region)) << "a released buffer's arena stays for the next";
  }
  EXPECT_FALSE(name_exists(job, 3, region));
}

// Beyond its limit the pool refuses (ENOMEM) instead of growing; what was
// released is still handed out.
TEST(ShmRegistry, StaysWithinItsLimit) {
  ShmRegistry owner(unique_job(), 0, tok(0), 3 * kSmallArena, kSmallArena);
  std::vector<void*> held;
  for (void* p; (p = owner.allocate(kSmallArena / 2, 64)) != nullptr;) held.push_back(p);
  EXPECT_EQ(errno, ENOMEM);
  EXPECT_LE(owner.usage().arena_bytes, 3 * kSmallArena);
  EXPECT_GE(held.size(), 4u);
  ASSERT_TRUE(owner.release(held.back()));
  held.pop_back();
  void* again = owner.allocate(kSmallArena / 2, 64);
  EXPECT_NE(again, nullptr);
  held.push_back(again);
  EXPECT_EQ(owner.allocate(4 * kSmallArena, 64), nullptr);
  for (void* p : held) EXPECT_TRUE(owner.release(p));
}

// A rank writing into the arenas of many peers keeps at most
// kMaxPeerRegions of them mapped (the least recently used goes).
TEST(ShmRegistry, PeerMappingsStayBounded) {
  const std::string job = unique_job();
  const int n = static_cast<int>(ShmRegistry::kMaxPeerRegions) + 20;
  std::vector<std::unique_ptr<ShmRegistry>> owners;
  std::vector<char*> bufs;
  for (int r = 0; r < n; ++r) {
    owners.push_back(std::make_unique<ShmRegistry>(job, r, tok(r), kLimit, kSmallArena));
    bufs.push_back(static_cast<char*>(owners.back()->allocate(64, 8)));
    ASSERT_NE(bufs.back(), nullptr);
  }
  ShmRegistry writer(job, n, tok(n), kLimit);
  writer.set_peer_tokens(tokens(n + 1));
  writer.set_peer_pids(pids(n + 1));
  for (int round = 0; round < 2; ++round)
    for (int r = 0; r < n; ++r) {
      const char v = static_cast<char>(r + round);
      ASSERT_EQ(writer.write(r, owners[r]->region_of(bufs[r], 64), addr(bufs[r]), &v, 1), 0) << r;
      ASSERT_EQ(bufs[r][0], v);
    }
  EXPECT_EQ(writer.peer_regions_mapped(), ShmRegistry::kMaxPeerRegions);
}

}  // namespace
}  // namespace meshmp::mesh
