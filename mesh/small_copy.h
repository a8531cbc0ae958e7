// The copy of an eager payload from its slot into the receive buffer
// (Engine::Impl::deliver_eager): most are a few bytes (the 8-byte message of
// a halo exchange or a message-rate loop), for which a call to memcpy
// through the PLT cost more than the copy (~12 instructions per message).
// And the shm provider's move of a small payload into its slot's first line
// (slot_ring.h), just after the engine wrote it: loads no wider than the
// stores memcpy made, which the core can forward from its store buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace meshmp::mesh {

/// The first and the last sizeof(Word) bytes of n (sizeof(Word) <= n <=
/// 2 sizeof(Word)), which together cover all n.
template <typename Word>
[[gnu::always_inline]] inline void copy_ends(char* d, const char* s, std::size_t n) {
  Word first, last;
  std::memcpy(&first, s, sizeof first);
  std::memcpy(&last, s + n - sizeof last, sizeof last);
  std::memcpy(d, &first, sizeof first);
  std::memcpy(d + n - sizeof last, &last, sizeof last);
}

/// Copies n bytes from `src` to `dst` (not overlapping). Up to 16 bytes in
/// two loads and two stores, inline; longer copies call memcpy.
[[gnu::always_inline]] inline void copy_payload(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  if (n > 16) [[unlikely]] {
    std::memcpy(d, s, n);
  } else if (n >= 8) {
    copy_ends<std::uint64_t>(d, s, n);
  } else if (n >= 4) {
    copy_ends<std::uint32_t>(d, s, n);
  } else if (n) {
    const char a = s[0], b = s[n / 2], c = s[n - 1];
    d[0] = a;
    d[n / 2] = b;
    d[n - 1] = c;
  }
}

}  // namespace meshmp::mesh
