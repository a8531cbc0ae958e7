// The SU(3) gauge field and the quenched Wilson gauge action: Cabibbo-Marinari
// pseudo-heatbath (Kennedy-Pendleton for each SU(2) subgroup) and
// over-relaxation on a checkerboard, plaquette and link trace.
#pragma once

#include <cstdint>
#include <vector>

#include "examples/lqcd/halo.h"
#include "examples/lqcd/layout.h"
#include "examples/lqcd/rng.h"
#include "examples/lqcd/su3.h"

namespace lqcd {

/// Four links U_mu(x), mu = 0..3, at every site of the extended sub-lattice.
struct Links {
  Su3 u[4];
};

class GaugeField {
 public:
  /// Keeps a reference to `layout`, which must outlive the field.
  explicit GaugeField(const Layout& layout);
  GaugeField(const Layout&&) = delete;  // a temporary layout would dangle

  const Layout& layout() const { return layout_; }
  Su3& operator()(std::int64_t site, int mu) { return links_[site].u[mu]; }
  const Su3& operator()(std::int64_t site, int mu) const { return links_[site].u[mu]; }
  Links* data() { return links_.data(); }

  /// Fills the halo (diagonal neighbours included) from the neighbours.
  void refresh();
  /// Seconds waited in halo exchanges so far.
  double wait_seconds() const { return halo_.wait_seconds(); }

  void set_unit();  ///< cold start
  /// Hot start: each link a random SU(3) matrix keyed by (seed, global site, mu).
  void set_random(std::uint64_t seed);
  /// Re-unitarises every interior link, then refreshes the halo.
  void reunitarize_all();

 private:
  const Layout& layout_;
  std::vector<Links> links_;
  Halo halo_;
};

/// Average over all plaquettes of Re tr U_P / 3, and over all links of
/// Re tr U / 3 (global: QMP sums). The halo must be current.
struct Averages {
  double plaquette;
  double link_trace;
};
Averages measure(const GaugeField& u);

/// A random SU(3) matrix: Gaussian entries, re-unitarised.
Su3 random_su3(SiteRng& rng);

/// Sum of the six staples around U_mu(x): Re tr(U_mu(x) * staple) summed over
/// the plaquettes containing the link.
Su3 staple(const GaugeField& u, std::int64_t site, int mu);

/// One sweep of Cabibbo-Marinari pseudo-heatbath for the Wilson action at
/// `beta` (every link once: for mu, for parity, update the links of that
/// parity, whose staples are all current, then refresh the halo). The random
/// numbers of a link are keyed by (seed, global site, sweep, mu), so the
/// result does not depend on the number of nodes.
void heatbath_sweep(GaugeField& u, double beta, std::uint64_t seed, std::uint64_t sweep);
/// One sweep of SU(2)-subgroup over-relaxation (microcanonical, no random numbers).
void overrelax_sweep(GaugeField& u);

}  // namespace lqcd
