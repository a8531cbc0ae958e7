#include "examples/lqcd/wilson.h"
#include "examples/lqcd/comm_error.h"

#include <qmp.h>

#include <cmath>
#include <stdexcept>

namespace lqcd {

namespace {

// gamma_mu psi, row r, is phase[r] * psi[perm[r]]: one non-zero per row.
struct SparseGamma {
  int perm[4];
  Complex phase[4];
};

std::array<SparseGamma, 4> sparse_gammas() {
  std::array<SparseGamma, 4> g{};
  const auto& dense = gamma_matrices();
  for (int mu = 0; mu < 4; ++mu)
    for (int r = 0; r < 4; ++r) {
      int nonzero = 0;
      for (int c = 0; c < 4; ++c)
        if (std::abs(dense[mu](r, c)) > 0) {
          g[mu].perm[r] = c;
          g[mu].phase[r] = dense[mu](r, c);
          ++nonzero;
        }
      // The projection trick needs rows 0, 1 to couple to rows 2, 3.
      if (nonzero != 1 || (r < 2) == (g[mu].perm[r] < 2)) throw std::logic_error("gamma basis is not chiral-blocked");
    }
  return g;
}

const std::array<SparseGamma, 4>& sparse() {
  static const std::array<SparseGamma, 4> g = sparse_gammas();
  return g;
}

double g_sum_seconds = 0;  // time in global sums, for the communication share

void global_sum(double* v, int n) {
  const double t0 = QMP_time();
  if (QMP_sum_double_array(v, n) != QMP_SUCCESS)
    throw CommError(std::string("QMP_sum_double_array: ") + QMP_get_error_string(nullptr));
  g_sum_seconds += QMP_time() - t0;
}

// out += (1 - s gamma_mu) U chi_from, via the half spinor: h_k = psi_k - s c_k psi_{p_k}
// for k = 0, 1, then rows 2, 3 are (-s c_r) times row p_r (gamma_mu^2 = 1).
template <bool kDagger>
inline void accumulate(Spinor& out, const Su3& u, const Spinor& psi, const SparseGamma& g, double s, double phase) {
  Eigen::Matrix<Complex, 3, 2> h;
  for (int k = 0; k < 2; ++k) h.col(k) = psi.col(k) - (s * g.phase[k]) * psi.col(g.perm[k]);
  Eigen::Matrix<Complex, 3, 2> chi;
  if constexpr (kDagger) chi.noalias() = u.adjoint() * h;
  else chi.noalias() = u * h;
  if (phase != 1.0) chi *= phase;
  out.col(0) += chi.col(0);
  out.col(1) += chi.col(1);
  for (int r = 2; r < 4; ++r) out.col(r) += (-s * g.phase[r]) * chi.col(g.perm[r]);
}

}  // namespace

const std::array<Eigen::Matrix4cd, 4>& gamma_matrices() {
  static const std::array<Eigen::Matrix4cd, 4> g = [] {
    const Complex i(0, 1);
    std::array<Eigen::Matrix4cd, 4> m;
    m[0] << 0, 0, 0, i, 0, 0, i, 0, 0, -i, 0, 0, -i, 0, 0, 0;
    m[1] << 0, 0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, -1, 0, 0, 0;
    m[2] << 0, 0, i, 0, 0, 0, 0, -i, -i, 0, 0, 0, 0, i, 0, 0;
    m[3] << 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0;
    return m;
  }();
  return g;
}

WilsonDirac::WilsonDirac(const GaugeField& u, double kappa, bool antiperiodic_t)
    : u_(u), layout_(u.layout()), kappa_(kappa), halo_(u.layout(), sizeof(Spinor), Halo::Shape::kFaces) {
  sparse();  // check the basis once
  if (antiperiodic_t) {
    if (layout_.node[3] == 0) t_sign_first_ = -1;
    if (layout_.node[3] == layout_.grid[3] - 1) t_sign_last_ = -1;
  }
  // Sites with a neighbour in another node's halo wait for the exchange.
  layout_.for_each_site([&](const Coord& x) {
    bool edge = false;
    for (int mu = 0; mu < 4; ++mu)
      edge |= layout_.grid[mu] > 1 && (x[mu] == 0 || x[mu] == layout_.local[mu] - 1);
    (edge ? boundary_ : interior_).emplace_back(layout_.index(x), x);
  });
}

void WilsonDirac::hop_site(Spinor& out, const SpinorField& in, std::int64_t s, const Coord& x, bool dagger) const {
  const auto& g = sparse();
  // D: (1 - gamma) forward, (1 + gamma) backward; D^dag swaps the signs.
  const double fwd = dagger ? -1.0 : 1.0;
  out.setZero();
  for (int mu = 0; mu < 4; ++mu) {
    const std::int64_t up = s + layout_.stride[mu], down = s - layout_.stride[mu];
    double phase_up = 1, phase_down = 1;
    if (mu == 3) {
      if (x[3] == layout_.local[3] - 1) phase_up = t_sign_last_;
      if (x[3] == 0) phase_down = t_sign_first_;
    }
    accumulate<false>(out, u_(s, mu), in[up], g[mu], fwd, phase_up);
    accumulate<true>(out, u_(down, mu), in[down], g[mu], -fwd, phase_down);
  }
}

void WilsonDirac::dslash(SpinorField& out, SpinorField& in, bool dagger) {
  const double t0 = QMP_time();
  char* field = reinterpret_cast<char*>(in.data());
  halo_.start(field);
  for (const auto& [s, x] : interior_) hop_site(out[s], in, s, x, dagger);
  halo_.finish(field);
  for (const auto& [s, x] : boundary_) hop_site(out[s], in, s, x, dagger);
  dslash_seconds_ += QMP_time() - t0;
  ++dslash_count_;
}

void WilsonDirac::apply_m(SpinorField& out, SpinorField& in, bool dagger) {
  dslash(out, in, dagger);
  layout_.for_each_site([&](const Coord& x) {
    const std::int64_t s = layout_.index(x);
    out[s] = in[s] - kappa_ * out[s];
  });
}

Complex dot(const Layout& l, const SpinorField& a, const SpinorField& b) {
  double v[2] = {0, 0};
  l.for_each_site([&](const Coord& x) {
    const std::int64_t s = l.index(x);
    const Complex c = a[s].conjugate().cwiseProduct(b[s]).sum();
    v[0] += c.real();
    v[1] += c.imag();
  });
  global_sum(v, 2);
  return Complex(v[0], v[1]);
}

double norm2(const Layout& l, const SpinorField& a) {
  double v = 0;
  l.for_each_site([&](const Coord& x) { v += a[l.index(x)].squaredNorm(); });
  global_sum(&v, 1);
  return v;
}

CgResult solve_cg(WilsonDirac& m, SpinorField& x, SpinorField& b, double tol, int maxiter,
                  const std::function<void(int, double)>& progress, int report_every) {
  const Layout& l = m.layout();
  CgResult res;
  const double t0 = QMP_time();
  const double wait0 = m.wait_seconds();
  g_sum_seconds = 0;
  auto axpy = [&](SpinorField& y, Complex a, const SpinorField& v) {  // y += a v
    l.for_each_site([&](const Coord& c) {
      const std::int64_t s = l.index(c);
      y[s] += a * v[s];
    });
  };
  SpinorField r = m.new_field(), p = m.new_field(), ap = m.new_field(), tmp = m.new_field();
  for (auto& s : x) s.setZero();
  m.apply_m(r, b, true);  // r = M^dag b (x = 0)
  const double source_norm = std::sqrt(norm2(l, r));
  double rr = source_norm * source_norm;
  p = r;
  if (source_norm == 0) return res;
  while (res.iterations < maxiter && std::sqrt(rr) / source_norm >= tol) {
    m.apply_m(tmp, p, false);
    m.apply_m(ap, tmp, true);
    const double pap = dot(l, p, ap).real();
    const double alpha = rr / pap;
    axpy(x, alpha, p);
    axpy(r, -alpha, ap);
    const double rr_new = norm2(l, r);
    const double beta = rr_new / rr;
    rr = rr_new;
    l.for_each_site([&](const Coord& c) {
      const std::int64_t s = l.index(c);
      p[s] = r[s] + beta * p[s];
    });
    ++res.iterations;
    res.history.push_back(std::sqrt(rr) / source_norm);
    if (progress && res.iterations % report_every == 0) progress(res.iterations, res.history.back());
  }
  res.seconds = QMP_time() - t0;
  res.comm_seconds = (m.wait_seconds() - wait0) + g_sum_seconds;
  // The true residual of the original system.
  m.apply_m(tmp, x, false);
  l.for_each_site([&](const Coord& c) {
    const std::int64_t s = l.index(c);
    tmp[s] = b[s] - tmp[s];
  });
  res.residual = std::sqrt(norm2(l, tmp) / norm2(l, b));
  return res;
}

}  // namespace lqcd
