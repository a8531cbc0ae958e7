// SU(3) algebra on Eigen 3x3 complex matrices, and the SU(2)-subgroup steps
// of the Cabibbo-Marinari pseudo-heatbath and over-relaxation.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <complex>

namespace lqcd {

using Complex = std::complex<double>;
using Su3 = Eigen::Matrix3cd;
using ColorVector = Eigen::Vector3cd;

/// Projects a near-unitary matrix back onto SU(3): Gram-Schmidt on rows 0
/// and 1, row 2 = conj(row0 x row1) (so det = 1).
inline void reunitarize(Su3& u) {
  Eigen::RowVector3cd r0 = u.row(0), r1 = u.row(1);
  r0 /= r0.norm();
  r1 -= r0.dot(r1) * r0;  // remove the r0 component (dot conjugates its left side)
  r1 /= r1.norm();
  u.row(0) = r0;
  u.row(1) = r1;
  u(2, 0) = std::conj(r0(1) * r1(2) - r0(2) * r1(1));
  u(2, 1) = std::conj(r0(2) * r1(0) - r0(0) * r1(2));
  u(2, 2) = std::conj(r0(0) * r1(1) - r0(1) * r1(0));
}

/// An SU(2) element a0 + i a.sigma as the four reals (a0, a1, a2, a3), in
/// the 2x2 form [[a0 + i a3, a2 + i a1], [-a2 + i a1, a0 - i a3]].
struct Su2 {
  double a[4];
};

/// The subgroup pairs of rows/columns Cabibbo-Marinari updates in turn.
inline constexpr int kSubgroup[3][2] = {{0, 1}, {0, 2}, {1, 2}};

/// The SU(2)-proportional part of the (i, j) block of w: Re tr(r w) = Re tr(r
/// k v) for every SU(2) r, with v in SU(2) and k = |result|.
inline Su2 su2_part(const Su3& w, int i, int j) {
  return Su2{{0.5 * (w(i, i).real() + w(j, j).real()), 0.5 * (w(i, j).imag() + w(j, i).imag()),
               0.5 * (w(i, j).real() - w(j, i).real()), 0.5 * (w(i, i).imag() - w(j, j).imag())}};
}

/// su2_part normalised to SU(2); *k gets its norm. False (v untouched) if
/// the part vanishes, when the subgroup step has nothing to act on.
inline bool unit_su2_part(const Su3& w, int i, int j, Su2* v, double* k) {
  Su2 p = su2_part(w, i, j);
  *k = std::sqrt(p.a[0] * p.a[0] + p.a[1] * p.a[1] + p.a[2] * p.a[2] + p.a[3] * p.a[3]);
  if (*k < 1e-15) return false;
  for (double& c : p.a) c /= *k;
  *v = p;
  return true;
}

inline Su2 su2_mul(const Su2& x, const Su2& y) {
  // Quaternion product in this representation.
  const double* a = x.a;
  const double* b = y.a;
  return Su2{{a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
              a[0] * b[1] + a[1] * b[0] - a[2] * b[3] + a[3] * b[2],
              a[0] * b[2] + a[2] * b[0] - a[3] * b[1] + a[1] * b[3],
              a[0] * b[3] + a[3] * b[0] - a[1] * b[2] + a[2] * b[1]}};
}

inline Su2 su2_dagger(const Su2& x) { return Su2{{x.a[0], -x.a[1], -x.a[2], -x.a[3]}}; }

/// u <- R u, R the SU(2) element r embedded at rows/columns (i, j).
inline void left_multiply(Su3& u, const Su2& r, int i, int j) {
  const Complex r00(r.a[0], r.a[3]), r01(r.a[2], r.a[1]), r10(-r.a[2], r.a[1]), r11(r.a[0], -r.a[3]);
  for (int c = 0; c < 3; ++c) {
    const Complex ui = u(i, c), uj = u(j, c);
    u(i, c) = r00 * ui + r01 * uj;
    u(j, c) = r10 * ui + r11 * uj;
  }
}

/// Re tr(a) / 3.
inline double re_tr3(const Su3& a) { return a.trace().real() / 3.0; }

}  // namespace lqcd
