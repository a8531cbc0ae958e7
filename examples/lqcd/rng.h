// Random numbers keyed by what they are for, not by who draws them: a
// Philox4x64 counter-based generator (Random123, Salmon et al., SC'11) whose
// counter is (global site, sweep, purpose, draw). The same seed therefore
// gives the same configuration whatever the number of nodes.
#pragma once

#include <Random123/philox.h>

#include <cmath>
#include <cstdint>

namespace lqcd {

class SiteRng {
 public:
  /// `purpose` separates the streams of one site and sweep (link direction,
  /// heatbath / source / gauge transformation ...).
  SiteRng(std::uint64_t seed, std::int64_t global_site, std::uint64_t sweep, std::uint64_t purpose) {
    key_ = {{seed, 0x6c716364u}};  // "lqcd"
    ctr_ = {{static_cast<std::uint64_t>(global_site), sweep, purpose, 0}};
  }

  /// Uniform in (0, 1]: never 0, so log() is safe.
  double uniform() {
    if (left_ == 0) {
      out_ = r123::Philox4x64()(ctr_, key_);
      ++ctr_.v[3];
      left_ = 4;
    }
    const std::uint64_t bits = out_.v[--left_] >> 11;  // 53 bits
    return (static_cast<double>(bits) + 1.0) * 0x1p-53;
  }
  /// Standard normal (Box-Muller).
  double gaussian() {
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    return r * std::cos(2.0 * M_PI * uniform());
  }

 private:
  r123::Philox4x64::ctr_type ctr_{}, out_{};
  r123::Philox4x64::key_type key_{};
  int left_ = 0;
};

}  // namespace lqcd
