// Registered memory for the shm provider: the registration of seed 000 §3.7
// (MP_Lite keeps a buffer registered once and reuses the registration from a
// cache instead of registering it per transfer). On one host "registering" a
// buffer means placing it in a shared segment of its own, which a peer maps
// on its first RDMA write into it and keeps in an LRU cache; every write after
// that is a plain memcpy -- no system call per transfer, and no CMA
// permission needed (ARCHITECTURE.md §3, "RDMA write into memory the peer
// registered"). QMP_MEM_COMMS memory is allocated here.
//
// Segment names are "/meshmp-<job>-m<rank>-<region>", 0600; the launcher's
// sweep of "/meshmp-<job>-*" covers a rank that dies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace meshmp::mesh {

/// A registration key as it travels in FrameHeader::key: the registered
/// region (0: none, the buffer is ordinary memory) in the high 32 bits, a
/// per-transfer nonce in the low 32 (never 0), which DONE/DATA must echo.
inline std::uint64_t make_registration_key(std::uint32_t region, std::uint32_t nonce) {
  return (std::uint64_t{region} << 32) | nonce | 1u;
}
inline std::uint32_t registered_region_of(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 32); }

class ShmRegistry {
 public:
  /// `job`: the launcher's job id; `rank`: this rank's world rank.
  ShmRegistry(std::string job, int rank);
  /// Removes the names of this rank's regions. Their mappings stay until the
  /// process exits: the application may still hold pointers into them.
  ~ShmRegistry();
  ShmRegistry(const ShmRegistry&) = delete;
  ShmRegistry& operator=(const ShmRegistry&) = delete;

  /// `bytes` aligned to `alignment` (a power of two) in a new region.
  /// Returns nullptr with errno set if the segment cannot be created.
  void* allocate(std::size_t bytes, std::size_t alignment);
  /// Unmaps and unlinks a region allocate() returned; false if `p` is not one.
  bool release(void* p);
  /// The region (> 0) holding all of [p, p+len), or 0.
  std::uint32_t region_of(const void* p, std::size_t len) const;

  /// Copies `len` bytes to `remote_addr` inside region `region` of `peer`,
  /// mapping it on first use (at most kMaxPeerRegions stay mapped; the least
  /// recently used is unmapped). Returns 0; EFAULT if the range lies outside
  /// the region or the region's header is malformed (the announcement was
  /// not to be trusted); another errno if the region cannot be mapped now.
  int write(int peer, std::uint32_t region, std::uint64_t remote_addr, const void* src, std::size_t len);

  static constexpr std::size_t kMaxPeerRegions = 256;
  /// Regions of peers currently mapped here.
  std::size_t peer_regions_mapped() const { return peer_.size(); }

 private:
  std::string name(int rank, std::uint32_t region) const;

  struct Own {
    std::uint32_t region;
    std::size_t bytes;     ///< user bytes
    char* map;
    std::size_t map_bytes;
  };
  struct Peer {
    char* map;
    std::size_t map_bytes;
    char* user;                  ///< where the owner's user bytes start in our mapping
    std::uint64_t owner_addr;    ///< ... and in the owner's address space
    std::uint64_t bytes;
    std::uint64_t last_use;
  };

  std::string job_;
  int rank_;
  std::uint32_t next_region_ = 1;
  std::map<std::uintptr_t, Own> own_;  ///< by user start address
  std::map<std::pair<int, std::uint32_t>, Peer> peer_;
  std::uint64_t clock_ = 0;
};

}  // namespace meshmp::mesh
