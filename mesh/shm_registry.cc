#include "mesh/shm_registry.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "mesh/shm_segment.h"

namespace meshmp::mesh {

namespace {
constexpr std::uint32_t kRegionMagic = 0x6d73'6852;  // "Rhsm"

// At the start of every region segment; the user bytes follow at `offset`.
struct RegionHeader {
  std::uint32_t magic;
  std::uint32_t region;
  std::uint64_t owner_addr;  ///< address of the user bytes in the owner
  std::uint64_t bytes;       ///< user bytes
  std::uint64_t offset;      ///< of the user bytes in the segment
};
}  // namespace

ShmRegistry::ShmRegistry(std::string job, int rank) : job_(std::move(job)), rank_(rank) {}

ShmRegistry::~ShmRegistry() {
  for (auto& [addr, o] : own_) ::shm_unlink(name(rank_, o.region).c_str());
  for (auto& [key, p] : peer_) ::munmap(p.map, p.map_bytes);
}

std::string ShmRegistry::name(int rank, std::uint32_t region) const {
  return "/meshmp-" + job_ + "-m" + std::to_string(rank) + "-" + std::to_string(region);
}

void* ShmRegistry::allocate(std::size_t bytes, std::size_t alignment) {
  if (alignment < alignof(RegionHeader)) alignment = alignof(RegionHeader);
  // The mapping is page aligned; larger alignments need room to round up.
  const std::size_t slack = alignment > 4096 ? alignment : 0;
  const std::size_t offset = (sizeof(RegionHeader) + alignment - 1) & ~(alignment - 1);
  if (bytes > (std::size_t{1} << 46)) {
    errno = ENOMEM;
    return nullptr;
  }
  const std::uint32_t region = next_region_++;
  std::size_t mapped = 0;
  auto* map = static_cast<char*>(map_segment(name(rank_, region), round_page(offset + slack + bytes), true, &mapped));
  if (!map) return nullptr;
  const auto base = reinterpret_cast<std::uintptr_t>(map) + offset;
  char* user = reinterpret_cast<char*>((base + alignment - 1) & ~(alignment - 1));
  auto* h = reinterpret_cast<RegionHeader*>(map);
  h->region = region;
  h->owner_addr = reinterpret_cast<std::uint64_t>(user);
  h->bytes = bytes;
  h->offset = static_cast<std::uint64_t>(user - map);
  h->magic = kRegionMagic;
  own_[reinterpret_cast<std::uintptr_t>(user)] = Own{region, bytes, map, mapped};
  return user;
}

bool ShmRegistry::release(void* p) {
  auto it = own_.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == own_.end()) return false;
  ::shm_unlink(name(rank_, it->second.region).c_str());
  ::munmap(it->second.map, it->second.map_bytes);
  own_.erase(it);
  return true;
}

std::uint32_t ShmRegistry::region_of(const void* p, std::size_t len) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = own_.upper_bound(a);
  if (it == own_.begin()) return 0;
  --it;
  const std::uintptr_t off = a - it->first;
  return off <= it->second.bytes && len <= it->second.bytes - off ? it->second.region : 0;
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
    auto* map = static_cast<char*>(map_segment(name(peer, region), 0, false, &mapped));
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
