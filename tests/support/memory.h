// Memory measurements for tests that bound what an operation may cost.
#pragma once

#include <sys/resource.h>

namespace meshmp::testing_support {

/// Peak resident set of this process so far, in KiB (getrusage ru_maxrss).
inline long max_rss_kib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/// True in a --config=asan build. AddressSanitizer keeps freed blocks in a
/// quarantine (256 MiB by default) and adds redzones and shadow memory, so a
/// process's peak RSS there says nothing about what meshmp itself keeps.
inline constexpr bool kAddressSanitizer =
#if defined(__SANITIZE_ADDRESS__)
    true;
#else
    false;
#endif

}  // namespace meshmp::testing_support

/// EXPECT_LT(max_rss_kib() - before_kib, limit_kib), except in an ASan build,
/// where peak RSS counts the sanitizer's quarantine, redzones and shadow
/// memory rather than what meshmp keeps. Takes a streamed message like EXPECT_LT.
#define EXPECT_RSS_GROWTH_BELOW(before_kib, limit_kib)                                  \
  if (::meshmp::testing_support::kAddressSanitizer) {                                   \
  } else                                                                                \
    EXPECT_LT(::meshmp::testing_support::max_rss_kib() - (before_kib), (limit_kib))
