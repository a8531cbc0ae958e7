// Registered memory for the shm provider: the registration of seed 000 §3.7
// (MP_Lite keeps a buffer registered once and reuses the registration from a
// cache instead of registering it per transfer). On one host "registering"
// memory means placing it in a shared segment, which a peer maps on its first
// RDMA write into it and keeps in an LRU cache; every write after that is a
// plain memcpy -- no system call per transfer, and no CMA permission needed
// (ARCHITECTURE.md §3). QMP_MEM_COMMS memory is allocated here.
//
// Buffers come from a pool of large segments ("arenas": 4 MiB, then twice
// as large as the pool so far, up to 256 MiB each), created once and kept.
// Up to 1 MiB a buffer is rounded up to a size class (at most 25% more) and
// a released buffer waits in its class for the next allocation of that
// class, as in a size-class allocator (tcmalloc's design); larger ones take
// a best-fit free block and merge back with their free neighbours. So a
// steady allocate/free pattern makes no system call and no malloc (about
// 30 ns a pair), and a peer maps each arena once, however many buffers come
// and go in it (issue 14: one segment per buffer cost six system calls per
// allocate/free pair and a remap in every peer). The pool never holds more
// than its limit: there the classes' blocks are merged back first, and then
// allocate() fails and the caller uses ordinary memory.
//
// Arenas have no name (Sharing::kDescriptor, the default): each is a memfd
// whose descriptor the owner keeps, and its region number is that
// descriptor with the top bit set, so a peer maps region R of rank r by
// opening /proc/<pid of r>/fd/<R & 0x7fffffff>. Nothing of them is in
// /dev/shm, for another user to see or for a rank killed by SIGKILL to leave
// behind under srun or mpirun, which sweep nothing (issue 29). Where such a
// descriptor cannot be opened (a process that is not dumpable, a /proc that
// hides it), MESHMP_SHM_ARENA_NAMES=1 gives named segments (Sharing::kName):
// "/meshmp-<job>-<tag>-m<rank>-<region>", the tag keyed by the job's secret
// (shm_names.h), 0600, checked before a peer maps them; qmprun's sweep of
// "/meshmp-<job>-*" covers a rank that dies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

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
  /// How peers on this host reach an arena (see above).
  enum class Sharing : std::uint8_t { kDescriptor, kName };
  /// Region numbers of descriptor-shared arenas: this bit and the descriptor.
  static constexpr std::uint32_t kDescriptorRegion = 0x8000'0000u;
  static constexpr std::size_t kFirstArena = std::size_t{4} << 20;
  static constexpr std::size_t kLargestArena = std::size_t{256} << 20;

  /// `job`: the launcher's job id; `rank`: this rank's world rank; `limit`:
  /// bytes of arenas this registry may create in all
  /// (EngineOptions::registered_limit, MESHMP_REGISTERED_LIMIT);
  /// `first_arena`: bytes of the first arena (smaller in tests).
  /// `secret`: the job's, keying the names' token part (shm_names.h).
  /// `sharing`: how this rank's arenas are shared (a peer's are told apart
  /// by their region numbers).
  ShmRegistry(std::string job, int rank, std::string token, std::size_t limit, std::size_t first_arena = kFirstArena,
              std::string secret = "", Sharing sharing = Sharing::kDescriptor);
  /// Every rank's name token (learnt at the launcher's fence): a peer's
  /// arenas are found by their names, which carry its token.
  void set_peer_tokens(std::vector<std::string> tokens) { tokens_ = std::move(tokens); }
  /// Every rank's process id on this host (0 elsewhere): a peer's unnamed
  /// arenas are found through it.
  void set_peer_pids(std::vector<int> pids) { pids_ = std::move(pids); }
  /// Removes the names of this rank's arenas, or closes their descriptors.
  /// Their mappings stay until the process exits: the application may still
  /// hold pointers into them.
  ~ShmRegistry();
  ShmRegistry(const ShmRegistry&) = delete;
  ShmRegistry& operator=(const ShmRegistry&) = delete;

  /// `bytes` (0 counts as 1) aligned to `alignment` (a power of two; at
  /// least 64) from the pool, growing it by a new arena if no free block
  /// fits. Returns nullptr with errno = ENOMEM when the pool would exceed its
  /// limit, or the errno of a segment that cannot be created.
  void* allocate(std::size_t bytes, std::size_t alignment);
  /// Returns what allocate() gave back to the pool (the arena stays, mapped
  /// here and in peers); false if `p` is not such memory.
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

  /// The pool, for MESHMP_STATS: bytes handed out now and at most so far,
  /// bytes of arenas created (never more than the limit), and their number.
  struct Usage {
    std::size_t in_use = 0, high_water = 0, arena_bytes = 0, arenas = 0;
  };
  Usage usage() const { return usage_; }
  /// The name in /dev/shm of rank `rank`'s arena `region` (Sharing::kName).
  std::string name(int rank, std::uint32_t region) const;

 private:
  /// A new arena of at least `bytes` usable bytes, added as one free block;
  /// false (errno set) if it would pass the limit or cannot be created.
  bool grow(std::size_t bytes);
  // Free blocks are kept in two trees; a block that shrinks, grows or
  // moves keeps its two nodes (re-keyed), and nodes taken out are kept for
  // reuse, so a steady allocate/free pattern allocates no tree node.
  void add_free(std::uintptr_t start, std::size_t bytes);
  void remove_free(std::map<std::uintptr_t, std::size_t>::iterator it);
  void rekey_free(std::map<std::uintptr_t, std::size_t>::iterator it, std::uintptr_t start, std::size_t bytes);
  std::multimap<std::size_t, std::uintptr_t>::iterator by_size(std::map<std::uintptr_t, std::size_t>::iterator it);

  /// Maps region `region` of `peer` whole (nullptr, errno set, if it cannot).
  char* map_peer(int peer, std::uint32_t region, std::size_t* mapped) const;

  struct Arena {
    std::uint32_t region;
    int fd;  ///< Sharing::kDescriptor: the memfd peers open; else -1
    char* map;
    std::size_t map_bytes;
    std::size_t bytes;  ///< usable bytes, from the arena's key in arenas_
  };
  /// The arena holding address a (which must lie in one).
  std::map<std::uintptr_t, Arena>::iterator arena_of(std::uintptr_t a);
  struct Peer {
    char* map;
    std::size_t map_bytes;
    char* user;                  ///< where the owner's arena starts in our mapping
    std::uint64_t owner_addr;    ///< ... and in the owner's address space
    std::uint64_t bytes;
    std::uint64_t last_use;
  };

  std::string job_;
  std::string secret_;
  int rank_;
  Sharing sharing_;
  std::vector<std::string> tokens_;  ///< by rank; ours only until set_peer_tokens
  std::vector<int> pids_;            ///< by rank (set_peer_pids)
  std::size_t limit_;
  std::size_t first_arena_;
  std::uint32_t next_region_ = 1;
  // The allocator's bookkeeping lives in ordinary memory: peers write into
  // the arenas, and nothing they write can mislead it.
  std::map<std::uintptr_t, Arena> arenas_;                   ///< by start of the usable bytes
  std::map<std::uintptr_t, std::size_t> free_by_addr_;       ///< free blocks: start -> bytes
  std::multimap<std::size_t, std::uintptr_t> free_by_size_;  ///< the same blocks: bytes -> start
  /// Handed out: start -> bytes. Looked up by exact start only, on every
  /// allocation and release (a code's halo gather makes a dozen of each):
  /// hashed, which cost half a tree's instructions.
  std::unordered_map<std::uintptr_t, std::size_t> used_;
  /// Released blocks up to kLargestClass, by size class (cached_[class]):
  /// handed out again at once for the next allocation of that class, as a
  /// size-class allocator does -- codes free and allocate the same buffers
  /// over and over. Sizes are rounded up to a class (exact below 1 KiB, four
  /// classes per power of two above, so at most 25% is lost to rounding).
  /// Merged back into the free blocks only when the pool is at its limit.
  static constexpr std::size_t kLargestClass = std::size_t{1} << 20;
  std::vector<std::vector<std::uintptr_t>> cached_;
  void flush_cached();
  void merge_free(std::uintptr_t start, std::size_t bytes);
  // Tree nodes taken out, kept for the next insertion: no malloc in steady state.
  std::vector<std::map<std::uintptr_t, std::size_t>::node_type> spare_addr_;
  std::vector<std::multimap<std::size_t, std::uintptr_t>::node_type> spare_size_;
  std::vector<std::unordered_map<std::uintptr_t, std::size_t>::node_type> spare_used_;

  Usage usage_;
  std::map<std::pair<int, std::uint32_t>, Peer> peer_;
  std::uint64_t clock_ = 0;
};

}  // namespace meshmp::mesh
