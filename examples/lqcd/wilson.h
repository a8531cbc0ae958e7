// The Wilson-Dirac operator M = 1 - kappa D, D the hopping term
//   D psi(x) = sum_mu [ (1 - gamma_mu) U_mu(x) psi(x+mu) + (1 + gamma_mu) U_mu(x-mu)^dag psi(x-mu) ],
// in the DeGrand-Rossi gamma basis (Chroma's), with the spin projection that
// gives the usual count of 1320 flops per site; and conjugate gradient on the
// normal equations M^dag M x = M^dag b. Spinor halos go through one
// QMP_declare_multiple handle of relative sends/receives, restarted for every
// application while the interior sites are computed (seed 003 §6).
#pragma once

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "examples/lqcd/gauge.h"
#include "examples/lqcd/halo.h"
#include "examples/lqcd/layout.h"

namespace lqcd {

/// colour x spin
using Spinor = Eigen::Matrix<Complex, 3, 4>;
using SpinorField = std::vector<Spinor>;  ///< ext_volume sites

/// gamma_mu (mu = 0..3: x, y, z, t), DeGrand-Rossi basis.
const std::array<Eigen::Matrix4cd, 4>& gamma_matrices();

inline constexpr double kDslashFlopsPerSite = 1320;
/// One CG iteration on M^dag M: two M (each D + 48), one dot, three axpy-like
/// updates and one norm, per site.
inline constexpr double kCgFlopsPerSite = 2 * (1320 + 48) + 5 * 48;

class WilsonDirac {
 public:
  /// `antiperiodic_t`: fermion fields change sign across the time boundary.
  WilsonDirac(const GaugeField& u, double kappa, bool antiperiodic_t);

  const Layout& layout() const { return layout_; }
  SpinorField new_field() const { return SpinorField(layout_.ext_volume, Spinor::Zero()); }

  /// out = D in (dagger: D^dag). `in`'s halo is filled here; `out`'s interior is written.
  void dslash(SpinorField& out, SpinorField& in, bool dagger);
  /// out = M in = in - kappa D in (or M^dag).
  void apply_m(SpinorField& out, SpinorField& in, bool dagger);

  std::uint64_t dslash_count() const { return dslash_count_; }
  double dslash_seconds() const { return dslash_seconds_; }
  /// Seconds spent waiting for spinor halos.
  double wait_seconds() const { return halo_.wait_seconds(); }

 private:
  void hop_site(Spinor& out, const SpinorField& in, std::int64_t s, const Coord& x, bool dagger) const;

  const GaugeField& u_;
  const Layout& layout_;
  double kappa_;
  double t_sign_first_ = 1, t_sign_last_ = 1;  // boundary phases of this node's t edges
  std::vector<std::pair<std::int64_t, Coord>> interior_, boundary_;
  Halo halo_;
  std::uint64_t dslash_count_ = 0;
  double dslash_seconds_ = 0;
};

/// Global <a, b> = sum over interior sites of a^dag b (QMP sum).
Complex dot(const Layout& l, const SpinorField& a, const SpinorField& b);
double norm2(const Layout& l, const SpinorField& a);

struct CgResult {
  int iterations = 0;
  double residual = 0;       ///< |b - M x| / |b|, recomputed at the end
  double seconds = 0;
  double comm_seconds = 0;   ///< halo waits and global sums inside the solve
  std::vector<double> history;  ///< |r_k| / |M^dag b| after every iteration
};

/// Solves M x = b by CG on M^dag M x = M^dag b, from x = 0, until
/// |r| / |M^dag b| < tol or maxiter. `progress(iteration, relative residual)`
/// is called every `report_every` iterations.
CgResult solve_cg(WilsonDirac& m, SpinorField& x, SpinorField& b, double tol, int maxiter,
                  const std::function<void(int, double)>& progress = nullptr, int report_every = 25);

}  // namespace lqcd
