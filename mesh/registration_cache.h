// The registration cache of seed 000 §3.7: MP_Lite registers a buffer once
// and reuses the registration for later transfers, because registering
// (pinning and mapping for the adapter) costs far more than a small
// transfer. Each entry is INVALID (its memory went away), CACHED (registered,
// no transfer holds it) or IN_USE (held by at least one transfer); beyond a
// byte limit the least recently used CACHED entries are deregistered.
//
// It sits on top of any memory domain that must register memory before a
// put can reach it (ofi: fi_mr_reg; on verbs that pins the pages); such a
// domain implements Registrar and keeps caches (ofi: one per peer, and one
// for the sources of writes where the fabric needs them registered). shm
// needs no registration of ordinary memory (a put is process_vm_writev).
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>

namespace meshmp::mesh {

class RegistrationCache {
 public:
  /// The expensive calls a domain makes the cache take care of.
  class Registrar {
   public:
    virtual ~Registrar() = default;
    /// Registers [addr, addr + len); false if it cannot (the transfer then
    /// goes without, e.g. through the slots).
    virtual bool register_range(std::uintptr_t addr, std::size_t len, std::uint64_t* handle) = 0;
    virtual void deregister(std::uint64_t handle) = 0;
  };

  enum class State : std::uint8_t { kInvalid, kCached, kInUse };
  struct Entry {
    std::uintptr_t addr = 0;  ///< start of the registered range (page-aligned)
    std::size_t len = 0;      ///< bytes registered (whole pages)
    std::uint64_t handle = 0; ///< the registrar's handle (a verbs domain: its memory region)
    State state = State::kCached;
    int users = 0;            ///< transfers holding it
    std::list<Entry*>::iterator lru;  ///< its place among the CACHED entries
  };

  /// `max_cached_bytes`: registered bytes no transfer holds that the cache
  /// keeps; `page`: the registration granularity (a power of two).
  RegistrationCache(Registrar& r, std::size_t max_cached_bytes, std::size_t page = 4096);
  /// Deregisters every entry, held or not.
  ~RegistrationCache();
  RegistrationCache(const RegistrationCache&) = delete;
  RegistrationCache& operator=(const RegistrationCache&) = delete;

  /// An IN_USE registration covering [p, p + len): a valid entry that covers
  /// it (a hit), else a new one over the range rounded out to pages (a
  /// miss). nullptr if the registrar refuses. Every acquire() needs one
  /// release().
  Entry* acquire(const void* p, std::size_t len);
  /// The transfer is done with `e`: the last user makes it CACHED (or, if
  /// it was invalidated meanwhile, deregisters it), then entries beyond the
  /// limit are deregistered, least recently used first.
  void release(Entry* e);
  /// [p, p + len) is being freed or unmapped: entries overlapping it will
  /// never be handed out again; those no transfer holds are deregistered
  /// now, the others at their last release.
  void invalidate(const void* p, std::size_t len);

  struct Stats {
    std::uint64_t hits = 0, misses = 0, registrations = 0, deregistrations = 0;
    std::size_t cached_bytes = 0;  ///< registered bytes in CACHED entries
    std::size_t entries = 0;       ///< entries of any state
  };
  Stats stats() const;

 private:
  void drop(Entry* e);  // deregisters and forgets e (no transfer holds it)
  void evict();

  Registrar& reg_;
  std::size_t max_cached_;
  std::size_t page_;
  std::multimap<std::uintptr_t, std::unique_ptr<Entry>> by_addr_;
  std::list<Entry*> lru_;  ///< CACHED entries, least recently used first
  Stats stats_;
};

}  // namespace meshmp::mesh
