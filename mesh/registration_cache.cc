#include "mesh/registration_cache.h"

namespace meshmp::mesh {

RegistrationCache::RegistrationCache(Registrar& r, std::size_t max_cached_bytes, std::size_t page)
    : reg_(r), max_cached_(max_cached_bytes), page_(page) {}

RegistrationCache::~RegistrationCache() {
  for (auto& [addr, e] : by_addr_) reg_.deregister(e->handle);
}

RegistrationCache::Entry* RegistrationCache::acquire(const void* p, std::size_t len) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t end = a + (len ? len : 1);
  // Entries starting at or below a, nearest first (a cache of bounded size:
  // a linear walk, as MP_Lite's list).
  for (auto it = by_addr_.upper_bound(a); it != by_addr_.begin();) {
    --it;
    Entry* e = it->second.get();
    if (e->state == State::kInvalid || e->addr + e->len < end) continue;
    if (e->state == State::kCached) {
      lru_.erase(e->lru);
      stats_.cached_bytes -= e->len;
      e->state = State::kInUse;
    }
    ++e->users;
    ++stats_.hits;
    return e;
  }
  ++stats_.misses;
  auto e = std::make_unique<Entry>();
  e->addr = a & ~(page_ - 1);
  e->len = ((end + page_ - 1) & ~(page_ - 1)) - e->addr;
  if (!reg_.register_range(e->addr, e->len, &e->handle)) return nullptr;
  ++stats_.registrations;
  e->state = State::kInUse;
  e->users = 1;
  Entry* raw = e.get();
  by_addr_.emplace(raw->addr, std::move(e));
  return raw;
}

void RegistrationCache::release(Entry* e) {
  if (--e->users > 0) return;
  if (e->state == State::kInvalid) {
    drop(e);
    return;
  }
  e->state = State::kCached;
  e->lru = lru_.insert(lru_.end(), e);
  stats_.cached_bytes += e->len;
  evict();
}

void RegistrationCache::invalidate(const void* p, std::size_t len) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t end = a + len;
  for (auto it = by_addr_.begin(); it != by_addr_.end() && it->first < end;) {
    Entry* e = (it++)->second.get();
    if (e->addr + e->len <= a || e->state == State::kInvalid) continue;
    if (e->state == State::kCached) {
      lru_.erase(e->lru);
      stats_.cached_bytes -= e->len;
      drop(e);  // `it` already points past it
    } else {
      e->state = State::kInvalid;  // deregistered at its last release
    }
  }
}

RegistrationCache::Stats RegistrationCache::stats() const {
  Stats s = stats_;
  s.entries = by_addr_.size();
  return s;
}

void RegistrationCache::drop(Entry* e) {
  reg_.deregister(e->handle);
  ++stats_.deregistrations;
  for (auto [it, last] = by_addr_.equal_range(e->addr); it != last; ++it)
    if (it->second.get() == e) {
      by_addr_.erase(it);
      return;
    }
}

void RegistrationCache::evict() {
  while (stats_.cached_bytes > max_cached_ && !lru_.empty()) {
    Entry* e = lru_.front();
    lru_.pop_front();
    stats_.cached_bytes -= e->len;
    drop(e);
  }
}

}  // namespace meshmp::mesh
