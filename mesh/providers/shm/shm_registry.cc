#include "mesh/providers/shm/shm_registry.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mesh/providers/shm/shm_names.h"
#include "mesh/providers/shm/shm_segment.h"

namespace meshmp::mesh {

namespace {
constexpr std::uint32_t kRegionMagic = 0x6d73'6852;  // "Rhsm"
constexpr std::size_t kGrain = 64;                    // blocks are whole cache lines
constexpr std::size_t kHeaderBytes = 4096;            // the arena's first page

// At the start of every arena segment; the usable bytes follow at `offset`.
struct RegionHeader {
  std::uint32_t magic;
  std::uint32_t region;
  std::uint64_t owner_addr;  ///< address of the usable bytes in the owner
  std::uint64_t bytes;       ///< usable bytes
  std::uint64_t offset;      ///< of the usable bytes in the segment
};
static_assert(sizeof(RegionHeader) <= kHeaderBytes);

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) & ~(to - 1); }
}  // namespace

ShmRegistry::ShmRegistry(std::string job, int rank, std::string token, std::size_t limit, std::size_t first_arena,
                         std::string secret, Sharing sharing)
    : job_(std::move(job)), secret_(std::move(secret)), rank_(rank), sharing_(sharing),
      tokens_(static_cast<std::size_t>(rank) + 1), limit_(limit), first_arena_(first_arena) {
  tokens_[static_cast<std::size_t>(rank)] = std::move(token);
}

ShmRegistry::~ShmRegistry() {
  for (auto& [start, a] : arenas_) {
    if (a.fd >= 0)
      ::close(a.fd);
    else
      ::shm_unlink(name(rank_, a.region).c_str());
  }
  for (auto& [key, p] : peer_) ::munmap(p.map, p.map_bytes);
}

std::string ShmRegistry::name(int rank, std::uint32_t region) const {
  const std::string& token = rank >= 0 && static_cast<std::size_t>(rank) < tokens_.size() ? tokens_[rank] : "";
  const std::string what = "m" + std::to_string(rank) + "-" + std::to_string(region);
  return "/meshmp-" + job_ + "-" + shm_name_tag(secret_, token, what) + "-" + what;
}

namespace {
// Inserts (key, value) into a map, multimap or unordered_map, reusing a spare node.
template <typename Tree, typename Spares>
void insert_reusing(Tree& tree, Spares& spares, typename Tree::key_type key, typename Tree::mapped_type value) {
  if (spares.empty()) {
    tree.emplace(key, value);
    return;
  }
  spares.back().key() = key;
  spares.back().mapped() = value;
  tree.insert(std::move(spares.back()));
  spares.pop_back();
}
}  // namespace

void ShmRegistry::add_free(std::uintptr_t start, std::size_t bytes) {
  insert_reusing(free_by_addr_, spare_addr_, start, bytes);
  insert_reusing(free_by_size_, spare_size_, bytes, start);
}

std::multimap<std::size_t, std::uintptr_t>::iterator ShmRegistry::by_size(
    std::map<std::uintptr_t, std::size_t>::iterator it) {
  auto [lo, hi] = free_by_size_.equal_range(it->second);
  for (auto s = lo; s != hi; ++s)
    if (s->second == it->first) return s;
  return free_by_size_.end();  // not reached: the trees hold the same blocks
}

void ShmRegistry::remove_free(std::map<std::uintptr_t, std::size_t>::iterator it) {
  spare_size_.push_back(free_by_size_.extract(by_size(it)));
  spare_addr_.push_back(free_by_addr_.extract(it));
}

void ShmRegistry::rekey_free(std::map<std::uintptr_t, std::size_t>::iterator it, std::uintptr_t start,
                             std::size_t bytes) {
  remove_free(it);
  add_free(start, bytes);
}

bool ShmRegistry::grow(std::size_t bytes) {
  // Geometric: each new arena as large as the pool so far (4 MiB first, 256
  // MiB at most), so a growing application makes few arenas -- peers map
  // each once, and at most kMaxPeerRegions stay mapped.
  std::size_t want = std::clamp(usage_.arena_bytes, first_arena_, std::max(first_arena_, kLargestArena));
  want = round_page(std::max(want, bytes));
  if (usage_.arena_bytes + want > limit_) want = round_page(bytes);  // the rest of the limit, if it fits
  if (usage_.arena_bytes + want > limit_) {
    errno = ENOMEM;
    return false;
  }
  char* map = nullptr;
  std::size_t mapped = 0;
  std::uint32_t region = 0;
  int fd = -1;
  if (sharing_ == Sharing::kDescriptor) {
    map = static_cast<char*>(create_unnamed_segment(kHeaderBytes + want, &fd, &mapped));
    if (!map) return false;
    region = kDescriptorRegion | static_cast<std::uint32_t>(fd);
  }
  // A name someone else holds (planted: they can read our arena names) is
  // never used; say so and take the next. A few in a row is an attack.
  for (int tries = 0; tries < 4 && !map; ++tries) {
    region = next_region_++;
    map = static_cast<char*>(map_segment(name(rank_, region), kHeaderBytes + want, true, &mapped));
    if (!map && errno != EEXIST) return false;
    if (!map)
      std::fprintf(stderr, "meshmp: rank %d: refusing the segment name %s: someone else holds it (a squatted name?)\n",
                   rank_, name(rank_, region).c_str());
  }
  if (!map) return false;
  char* user = map + kHeaderBytes;
  auto* h = reinterpret_cast<RegionHeader*>(map);
  h->region = region;
  h->owner_addr = reinterpret_cast<std::uint64_t>(user);
  h->bytes = want;
  h->offset = kHeaderBytes;
  h->magic = kRegionMagic;
  arenas_.emplace(reinterpret_cast<std::uintptr_t>(user), Arena{region, fd, map, mapped, want});
  add_free(reinterpret_cast<std::uintptr_t>(user), want);
  usage_.arena_bytes += want;
  ++usage_.arenas;
  return true;
}

namespace {
// Size classes in granules: exact up to 16 (1 KiB), then four per power of
// two. class_size(class_of(n)) >= n.
std::size_t class_of(std::size_t granules) {
  if (granules <= 16) return granules;
  const int top = 63 - __builtin_clzll(granules - 1);  // granules - 1 < 2^(top+1)
  const std::size_t step = std::size_t{1} << (top - 2);
  return 16 + (top - 4) * 4 + (granules - 1 - (std::size_t{1} << top)) / step + 1;
}
std::size_t class_size(std::size_t cls) {
  if (cls <= 16) return cls;
  const std::size_t top = 4 + (cls - 17) / 4, k = (cls - 17) % 4;
  return (std::size_t{1} << top) + (k + 1) * (std::size_t{1} << (top - 2));
}
}  // namespace

void* ShmRegistry::allocate(std::size_t bytes, std::size_t alignment) {
  alignment = std::max(alignment, kGrain);
  if (bytes > limit_ || alignment > limit_) {
    errno = ENOMEM;
    return nullptr;
  }
  std::size_t need = round_up(std::max<std::size_t>(bytes, 1), kGrain);
  const bool classed = need <= kLargestClass;
  if (classed) {
    const std::size_t cls = class_of(need / kGrain);
    need = class_size(cls) * kGrain;
    if (cls < cached_.size()) {
      std::vector<std::uintptr_t>& c = cached_[cls];
      for (std::size_t i = c.size(); i-- > 0;)
        if (c[i] % alignment == 0) {
          const std::uintptr_t at = c[i];
          c[i] = c.back();
          c.pop_back();
          insert_reusing(used_, spare_used_, at, need);
          usage_.in_use += need;
          usage_.high_water = std::max(usage_.high_water, usage_.in_use);
          return reinterpret_cast<void*>(at);
        }
    }
  }
  int err = ENOMEM;
  for (int attempt = 0; attempt < 3; ++attempt) {
    // Best fit: the smallest free block in which an aligned start still
    // leaves `need` bytes.
    for (auto s = free_by_size_.lower_bound(need); s != free_by_size_.end(); ++s) {
      const std::uintptr_t start = s->second, end = start + s->first;
      const std::uintptr_t at = round_up(start, alignment);
      if (at + need > end) continue;
      auto block = free_by_addr_.find(start);
      if (at + need < end) {
        rekey_free(block, at + need, end - (at + need));  // the rest stays free
        if (at > start) add_free(start, at - start);
      } else if (at > start) {
        rekey_free(block, start, at - start);
      } else {
        remove_free(block);
      }
      insert_reusing(used_, spare_used_, at, need);
      usage_.in_use += need;
      usage_.high_water = std::max(usage_.high_water, usage_.in_use);
      return reinterpret_cast<void*>(at);
    }
    // Grow while the limit allows; at the limit, merge what the classes
    // hold and look again.
    if (grow(need + (alignment > kGrain ? alignment : 0))) continue;
    err = errno;
    flush_cached();
  }
  errno = err;
  return nullptr;
}

void ShmRegistry::flush_cached() {
  for (std::size_t cls = 0; cls < cached_.size(); ++cls) {
    for (std::uintptr_t start : cached_[cls]) merge_free(start, class_size(cls) * kGrain);
    cached_[cls].clear();
  }
}

bool ShmRegistry::release(void* p) {
  auto u = used_.find(reinterpret_cast<std::uintptr_t>(p));
  if (u == used_.end()) return false;
  const std::uintptr_t start = u->first;
  const std::size_t bytes = u->second;
  spare_used_.push_back(used_.extract(u));
  usage_.in_use -= bytes;
  if (bytes <= kLargestClass) {  // a class's size: kept for the next of its class
    const std::size_t cls = class_of(bytes / kGrain);
    if (cached_.size() <= cls) cached_.resize(cls + 1);
    cached_[cls].push_back(start);
  } else {
    merge_free(start, bytes);
  }
  return true;
}

void ShmRegistry::merge_free(std::uintptr_t start, std::size_t bytes) {
  auto arena = arena_of(start);
  // Merge with the free neighbours inside the same arena (arenas may lie
  // next to each other in memory, but a block never spans two).
  const std::uintptr_t lo = arena->first, hi = lo + arena->second.bytes;
  auto next = free_by_addr_.lower_bound(start);
  const bool join_next = next != free_by_addr_.end() && next->first == start + bytes && next->first < hi;
  auto prev = next == free_by_addr_.begin() ? free_by_addr_.end() : std::prev(next);
  const bool join_prev = prev != free_by_addr_.end() && prev->first >= lo && prev->first + prev->second == start;
  if (join_prev && join_next) {
    const std::size_t total = prev->second + bytes + next->second;
    remove_free(next);
    rekey_free(prev, prev->first, total);
  } else if (join_prev) {
    rekey_free(prev, prev->first, prev->second + bytes);
  } else if (join_next) {
    rekey_free(next, start, bytes + next->second);
  } else {
    add_free(start, bytes);
  }
}

std::map<std::uintptr_t, ShmRegistry::Arena>::iterator ShmRegistry::arena_of(std::uintptr_t a) {
  return std::prev(arenas_.upper_bound(a));
}

std::uint32_t ShmRegistry::region_of(const void* p, std::size_t len) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = arenas_.upper_bound(a);
  if (it == arenas_.begin()) return 0;
  --it;
  const std::uintptr_t off = a - it->first;
  return off <= it->second.bytes && len <= it->second.bytes - off ? it->second.region : 0;
}

char* ShmRegistry::map_peer(int peer, std::uint32_t region, std::size_t* mapped) const {
  if ((region & kDescriptorRegion) == 0) return static_cast<char*>(map_segment(name(peer, region), 0, false, mapped));
  const int pid = peer >= 0 && static_cast<std::size_t>(peer) < pids_.size() ? pids_[peer] : 0;
  return static_cast<char*>(map_process_segment(pid, static_cast<int>(region & ~kDescriptorRegion), mapped));
}

int ShmRegistry::write(int peer, std::uint32_t region, std::uint64_t remote_addr, const void* src, std::size_t len) {
  auto it = peer_.find({peer, region});
  if (it == peer_.end()) {
    if (peer_.size() >= kMaxPeerRegions) {
      auto lru = peer_.begin();
      for (auto i = peer_.begin(); i != peer_.end(); ++i)
        if (i->second.last_use < lru->second.last_use) lru = i;
      ::munmap(lru->second.map, lru->second.map_bytes);
      peer_.erase(lru);
    }
    std::size_t mapped = 0;
    char* map = map_peer(peer, region, &mapped);
    if (!map) return errno == ENOENT ? EFAULT : errno;  // no such region: a bad announcement
    // The header is the peer's word: copy it once and check it describes this mapping.
    RegionHeader h{};
    if (mapped >= sizeof h) std::memcpy(&h, map, sizeof h);
    if (h.magic != kRegionMagic || h.region != region || h.offset < sizeof h || h.offset > mapped ||
        h.bytes > mapped - h.offset) {
      ::munmap(map, mapped);
      return EFAULT;
    }
    it = peer_.emplace(std::make_pair(peer, region), Peer{map, mapped, map + h.offset, h.owner_addr, h.bytes, 0}).first;
  }
  Peer& p = it->second;
  p.last_use = ++clock_;
  if (remote_addr < p.owner_addr || remote_addr - p.owner_addr > p.bytes || len > p.bytes - (remote_addr - p.owner_addr))
    return EFAULT;
  std::memcpy(p.user + (remote_addr - p.owner_addr), src, len);
  return 0;
}

}  // namespace meshmp::mesh
