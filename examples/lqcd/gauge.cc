#include "examples/lqcd/gauge.h"
#include "examples/lqcd/comm_error.h"

#include <qmp.h>

#include <cmath>


namespace lqcd {

namespace {

constexpr std::uint64_t kHotStartSweep = ~std::uint64_t{0};

// x0 of an SU(2) element with density sqrt(1 - x0^2) exp(alpha x0):
// Kennedy & Pendleton, Phys. Lett. 156B (1985) 393. Returns false if no
// candidate was accepted (only for tiny alpha), leaving the link unchanged.
bool kennedy_pendleton(double alpha, SiteRng& rng, double* x0) {
  for (int tries = 0; tries < 200; ++tries) {
    const double r1 = rng.uniform(), r2 = rng.uniform(), r3 = rng.uniform(), r4 = rng.uniform();
    const double c = std::cos(2.0 * M_PI * r2);
    const double lambda2 = -(std::log(r1) + c * c * std::log(r3)) / (2.0 * alpha);
    if (r4 * r4 <= 1.0 - lambda2) {
      *x0 = 1.0 - 2.0 * lambda2;
      return true;
    }
  }
  return false;
}

// An SU(2) element with the heatbath distribution exp(alpha x0), then times v^dagger.
bool heatbath_su2(double alpha, const Su2& v, SiteRng& rng, Su2* r) {
  double x0;
  if (!kennedy_pendleton(alpha, rng, &x0)) return false;
  const double rad = std::sqrt(std::max(0.0, 1.0 - x0 * x0));
  const double cos_theta = 2.0 * rng.uniform() - 1.0;
  const double sin_theta = std::sqrt(std::max(0.0, 1.0 - cos_theta * cos_theta));
  const double phi = 2.0 * M_PI * rng.uniform();
  const Su2 x{{x0, rad * sin_theta * std::cos(phi), rad * sin_theta * std::sin(phi), rad * cos_theta}};
  *r = su2_mul(x, su2_dagger(v));
  return true;
}

// Calls f(site, x) for the interior sites of one checkerboard parity.
template <typename F>
void for_parity(const Layout& l, int parity, F&& f) {
  l.for_each_site([&](const Coord& x) {
    if (l.parity(x) == parity) f(l.index(x), x);
  });
}

}  // namespace

GaugeField::GaugeField(const Layout& layout)
    : layout_(layout), links_(layout.ext_volume), halo_(layout, sizeof(Links), Halo::Shape::kCorners) {
  set_unit();
}

void GaugeField::refresh() { halo_.exchange(reinterpret_cast<char*>(links_.data())); }

void GaugeField::set_unit() {
  for (Links& l : links_)
    for (Su3& m : l.u) m.setIdentity();
}

void GaugeField::set_random(std::uint64_t seed) {
  layout_.for_each_site([&](const Coord& x) {
    for (int mu = 0; mu < 4; ++mu) {
      SiteRng rng(seed, layout_.global_site(x), kHotStartSweep, 100 + mu);
      (*this)(layout_.index(x), mu) = random_su3(rng);
    }
  });
  refresh();
}

void GaugeField::reunitarize_all() {
  layout_.for_each_site([&](const Coord& x) {
    for (int mu = 0; mu < 4; ++mu) reunitarize((*this)(layout_.index(x), mu));
  });
  refresh();
}

Su3 random_su3(SiteRng& rng) {
  Su3 m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = Complex(rng.gaussian(), rng.gaussian());
  reunitarize(m);
  return m;
}

Su3 staple(const GaugeField& u, std::int64_t s, int mu) {
  const Layout& l = u.layout();
  const std::int64_t up_mu = s + l.stride[mu];
  Su3 a = Su3::Zero();
  for (int nu = 0; nu < 4; ++nu) {
    if (nu == mu) continue;
    const std::int64_t up_nu = s + l.stride[nu], down_nu = s - l.stride[nu];
    // Forward: U_nu(x+mu) U_mu(x+nu)^dag U_nu(x)^dag.
    a.noalias() += u(up_mu, nu) * u(up_nu, mu).adjoint() * u(s, nu).adjoint();
    // Backward: U_nu(x+mu-nu)^dag U_mu(x-nu)^dag U_nu(x-nu).
    a.noalias() += u(up_mu - l.stride[nu], nu).adjoint() * u(down_nu, mu).adjoint() * u(down_nu, nu);
  }
  return a;
}

Averages measure(const GaugeField& u) {
  const Layout& l = u.layout();
  double sums[2] = {0, 0};
  l.for_each_site([&](const Coord& x) {
    const std::int64_t s = l.index(x);
    for (int mu = 0; mu < 4; ++mu) {
      sums[1] += re_tr3(u(s, mu));
      for (int nu = mu + 1; nu < 4; ++nu) {
        const Su3 p = u(s, mu) * u(s + l.stride[mu], nu) * u(s + l.stride[nu], mu).adjoint() * u(s, nu).adjoint();
        sums[0] += re_tr3(p);
      }
    }
  });
  if (QMP_sum_double_array(sums, 2) != QMP_SUCCESS)
    throw CommError(std::string("QMP_sum_double_array: ") + QMP_get_error_string(nullptr));
  const double v = static_cast<double>(l.global_volume());
  return Averages{sums[0] / (6.0 * v), sums[1] / (4.0 * v)};
}

void heatbath_sweep(GaugeField& u, double beta, std::uint64_t seed, std::uint64_t sweep) {
  const Layout& l = u.layout();
  for (int mu = 0; mu < 4; ++mu)
    for (int parity = 0; parity < 2; ++parity) {
      for_parity(l, parity, [&](std::int64_t s, const Coord& x) {
        SiteRng rng(seed, l.global_site(x), sweep, mu);
        const Su3 a = staple(u, s, mu);
        Su3& link = u(s, mu);
        for (const auto& sg : kSubgroup) {
          Su2 v, r;
          double k;
          if (!unit_su2_part(link * a, sg[0], sg[1], &v, &k)) continue;
          if (heatbath_su2(2.0 * beta * k / 3.0, v, rng, &r)) left_multiply(link, r, sg[0], sg[1]);
        }
      });
      u.refresh();
    }
}

void overrelax_sweep(GaugeField& u) {
  const Layout& l = u.layout();
  for (int mu = 0; mu < 4; ++mu)
    for (int parity = 0; parity < 2; ++parity) {
      for_parity(l, parity, [&](std::int64_t s, const Coord&) {
        const Su3 a = staple(u, s, mu);
        Su3& link = u(s, mu);
        for (const auto& sg : kSubgroup) {
          Su2 v;
          double k;
          if (!unit_su2_part(link * a, sg[0], sg[1], &v, &k)) continue;
          // r = (v^dag)^2 leaves Re tr(r w) -- the action -- unchanged.
          const Su2 vd = su2_dagger(v);
          left_multiply(link, su2_mul(vd, vd), sg[0], sg[1]);
        }
      });
      u.refresh();
    }
}

}  // namespace lqcd
