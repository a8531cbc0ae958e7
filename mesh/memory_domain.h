// Memory domain: a provider's registered memory (seed 000 §3.7), kept apart
// from its links as UCX keeps memory domains apart from endpoints
// (ARCHITECTURE.md §3). The engine asks it for the packed remote key a CTS
// or RECV_READY announces and never looks inside one; the Link that receives
// the key back in a put unpacks it. A domain that must register memory
// before a put can reach it (verbs) keeps its registrations in a
// RegistrationCache (registration_cache.h); shm's needs none.
#pragma once

#include <cstddef>
#include <cstdint>

namespace meshmp::mesh {

class MemoryDomain {
 public:
  virtual ~MemoryDomain() = default;

  /// The packed remote key announcing [buf, buf+len) as the target of a put,
  /// with `nonce` (a per-transfer number the DONE/DATA frames must echo, so
  /// a stale frame cannot complete a newer receive). Never 0. Memory that is
  /// not registered gets a key too: a provider that can put into ordinary
  /// memory (shm: process_vm_writev) accepts it.
  /// `peer` is the rank the key is announced to: a domain that checks puts
  /// against its keys (tcp) accepts this key only on links to that peer.
  virtual std::uint64_t remote_key(const void* buf, std::size_t len, std::uint32_t nonce, int peer) = 0;
  /// The receive that announced `rkey` is over (completed or failed): no put
  /// to it is accepted any more. Every key remote_key() made is forgotten once.
  virtual void forget(std::uint64_t rkey) { (void)rkey; }
  /// Whether a put to `rkey` is a plain memory copy into a region already
  /// registered (no system call per transfer): then a small message is
  /// better put than copied through the slots.
  virtual bool direct(std::uint64_t rkey) const = 0;

  /// Registered memory for the application (QMP_MEM_COMMS): `bytes` aligned
  /// to `alignment` (a power of two), registered for its whole life.
  /// nullptr with errno set (ENOMEM at the pool's limit) if it cannot be had.
  virtual void* allocate(std::size_t bytes, std::size_t alignment) = 0;
  /// Returns what allocate() gave; false if `p` is not such memory.
  virtual bool release(void* p) = 0;

  /// Bytes handed out now and at most so far, bytes of backing store made
  /// and their pieces -- for MESHMP_STATS.
  struct Usage {
    std::size_t in_use = 0, high_water = 0, backing_bytes = 0, pieces = 0;
  };
  virtual Usage usage() const = 0;
};

}  // namespace meshmp::mesh
