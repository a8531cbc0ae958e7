// The lattice-QCD job's building blocks on every layout (1, 2, 4 and 8
// ranks): SU(3) updates stay in SU(3), gauge invariance, the free-field
// Dirac operator against its analytic form, and NERSC files.
#include <gtest/gtest.h>
#include <qmp.h>
#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "examples/lqcd/gauge.h"
#include "examples/lqcd/nersc.h"
#include "examples/lqcd/rng.h"
#include "examples/lqcd/wilson.h"

namespace lqcd {
namespace {

// The process grid, declared once for the job (QMP allows one topology):
// balanced for an 8^4 lattice, so every lattice below divides evenly.
Coord grid, node;

class QmpEnvironment : public ::testing::Environment {
 public:
  QmpEnvironment(int* argc, char*** argv) : argc_(argc), argv_(argv) {}
  void SetUp() override {
    QMP_thread_level_t provided;
    ASSERT_EQ(QMP_init_msg_passing(argc_, argv_, QMP_THREAD_SINGLE, &provided), QMP_SUCCESS);
    const int lattice[4] = {8, 8, 8, 8};
    ASSERT_EQ(QMP_layout_grid(lattice, 4), QMP_SUCCESS);
    for (int mu = 0; mu < 4; ++mu) {
      grid[mu] = QMP_get_logical_dimensions()[mu];
      node[mu] = QMP_get_logical_coordinates()[mu];
    }
  }
  void TearDown() override { QMP_finalize_msg_passing(); }

 private:
  int* argc_;
  char*** argv_;
};

Layout layout_of(Coord lattice) { return Layout(lattice, grid, node); }

// A path every rank agrees on (node 0 reads and writes it).
std::string temp_path(const char* name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name + "-" + std::to_string(QMP_get_number_of_nodes());
}

double max_unitarity_violation(const GaugeField& u) {
  const Layout& l = u.layout();
  double worst = 0;
  l.for_each_site([&](const Coord& x) {
    for (int mu = 0; mu < 4; ++mu) {
      const Su3& m = u(l.index(x), mu);
      worst = std::max(worst, (m * m.adjoint() - Su3::Identity()).cwiseAbs().maxCoeff());
      worst = std::max(worst, std::abs(m.determinant() - 1.0));
    }
  });
  QMP_max_double(&worst);
  return worst;
}

TEST(Su3, UpdatesKeepEveryLinkUnitaryWithUnitDeterminant) {
  const Layout l = layout_of({4, 4, 4, 4});
  GaugeField u(l);
  u.set_random(7);
  EXPECT_LT(max_unitarity_violation(u), 1e-12);
  for (int sweep = 0; sweep < 3; ++sweep) {
    heatbath_sweep(u, 6.0, 7, sweep);
    overrelax_sweep(u);
    u.reunitarize_all();
    EXPECT_LT(max_unitarity_violation(u), 1e-12) << "sweep " << sweep;
  }
}

TEST(Su3, OverrelaxationKeepsTheAction) {
  const Layout l = layout_of({4, 4, 4, 4});
  GaugeField u(l);
  u.set_random(3);
  for (int sweep = 0; sweep < 2; ++sweep) heatbath_sweep(u, 5.5, 3, sweep);
  const double before = measure(u).plaquette;
  overrelax_sweep(u);
  const double after = measure(u).plaquette;
  EXPECT_NEAR(after, before, 1e-12);
  EXPECT_NE(after, 0.0);
}

// A random gauge transformation g: U_mu(x) -> g(x) U_mu(x) g(x+mu)^dag,
// psi(x) -> g(x) psi(x) leaves the plaquette and the CG residual history as
// they were.
TEST(Physics, GaugeInvariance) {
  const Layout l = layout_of({4, 4, 4, 8});
  GaugeField u(l);
  u.set_random(11);
  for (int sweep = 0; sweep < 2; ++sweep) heatbath_sweep(u, 6.0, 11, sweep);
  std::vector<Su3> g(l.ext_volume, Su3::Identity());
  l.for_each_site([&](const Coord& x) {
    SiteRng rng(99, l.global_site(x), 0, 500);
    g[l.index(x)] = random_su3(rng);
  });
  Halo halo(l, sizeof(Su3), Halo::Shape::kFaces);
  halo.exchange(reinterpret_cast<char*>(g.data()));

  SpinorField b(l.ext_volume, Spinor::Zero());
  l.for_each_site([&](const Coord& x) {
    SiteRng rng(5, l.global_site(x), 0, 600);
    for (int c = 0; c < 3; ++c)
      for (int s = 0; s < 4; ++s) b[l.index(x)](c, s) = Complex(rng.gaussian(), rng.gaussian());
  });
  const double plaq = measure(u).plaquette;
  WilsonDirac m(u, 0.11, true);
  SpinorField x = m.new_field();
  const CgResult before = solve_cg(m, x, b, 1e-10, 500);

  GaugeField v(l);
  l.for_each_site([&](const Coord& y) {
    const std::int64_t s = l.index(y);
    for (int mu = 0; mu < 4; ++mu) v(s, mu) = g[s] * u(s, mu) * g[s + l.stride[mu]].adjoint();
    b[s] = g[s] * b[s];
  });
  v.refresh();
  EXPECT_NEAR(measure(v).plaquette, plaq, 1e-13);
  WilsonDirac mv(v, 0.11, true);
  SpinorField xv = mv.new_field();
  const CgResult after = solve_cg(mv, xv, b, 1e-10, 500);
  ASSERT_EQ(after.iterations, before.iterations);
  ASSERT_GT(before.iterations, 10);
  for (std::size_t k = 0; k < before.history.size(); ++k)
    EXPECT_NEAR(after.history[k] / before.history[k], 1.0, 1e-8) << "iteration " << k + 1;
  // The solution transforms too: x' = g x.
  double worst = 0;
  l.for_each_site([&](const Coord& y) {
    const std::int64_t s = l.index(y);
    worst = std::max(worst, (xv[s] - g[s] * x[s]).cwiseAbs().maxCoeff());
  });
  QMP_max_double(&worst);
  EXPECT_LT(worst, 1e-8);
}

// Unit links: D e^{ipx} u = sum_mu [2 cos p_mu - 2i sin p_mu gamma_mu] e^{ipx} u,
// with p_t = (2n + 1) pi / L_t for the antiperiodic time boundary.
TEST(Physics, FreeFieldPlaneWave) {
  const Layout l = layout_of({4, 4, 4, 8});
  GaugeField u(l);
  u.refresh();
  const int n[4] = {1, 3, 0, 2};
  double p[4];
  for (int mu = 0; mu < 3; ++mu) p[mu] = 2 * M_PI * n[mu] / l.global[mu];
  p[3] = (2 * n[3] + 1) * M_PI / l.global[3];
  Spinor amplitude;
  for (int c = 0; c < 3; ++c)
    for (int s = 0; s < 4; ++s) amplitude(c, s) = Complex(1.0 + c, 0.5 * s - 1.0);
  SpinorField psi(l.ext_volume, Spinor::Zero());
  auto wave = [&](const Coord& x) {
    const Coord gx = l.global_coord(x);
    double phase = 0;
    for (int mu = 0; mu < 4; ++mu) phase += p[mu] * gx[mu];
    return std::exp(Complex(0, phase));
  };
  l.for_each_site([&](const Coord& x) { psi[l.index(x)] = wave(x) * amplitude; });
  // The analytic operator on the spin index, from the dense gamma matrices.
  Eigen::Matrix4cd k = Eigen::Matrix4cd::Zero();
  for (int mu = 0; mu < 4; ++mu)
    k += 2 * std::cos(p[mu]) * Eigen::Matrix4cd::Identity() - Complex(0, 2 * std::sin(p[mu])) * gamma_matrices()[mu];
  const Spinor expected_amplitude = amplitude * k.transpose();  // spin index is the column
  WilsonDirac m(u, 0.1, true);
  SpinorField out = m.new_field();
  m.dslash(out, psi, false);
  double worst = 0;
  l.for_each_site([&](const Coord& x) {
    worst = std::max(worst, (out[l.index(x)] - wave(x) * expected_amplitude).cwiseAbs().maxCoeff());
  });
  QMP_max_double(&worst);
  EXPECT_LT(worst, 1e-12);
}

TEST(GammaMatrices, FormACliffordAlgebra) {
  const auto& g = gamma_matrices();
  for (int mu = 0; mu < 4; ++mu)
    for (int nu = 0; nu < 4; ++nu) {
      const Eigen::Matrix4cd anti = g[mu] * g[nu] + g[nu] * g[mu];
      const Eigen::Matrix4cd want = (mu == nu ? 2.0 : 0.0) * Eigen::Matrix4cd::Identity();
      EXPECT_LT((anti - want).norm(), 1e-15) << mu << nu;
    }
}

bool identical(const GaugeField& a, const GaugeField& b) {
  const Layout& l = a.layout();
  int differ = 0;
  l.for_each_site([&](const Coord& x) {
    for (int mu = 0; mu < 4; ++mu) differ |= std::memcmp(&a(l.index(x), mu), &b(l.index(x), mu), sizeof(Su3)) != 0;
  });
  QMP_sum_int(&differ);
  return differ == 0;
}

const Coord kFileLattice{4, 4, 4, 8};

// A field a few heatbath sweeps away from random, on kFileLattice (made once;
// it keeps a reference to its layout, so both live for the whole run).
GaugeField& thermalised() {
  static const Layout l = layout_of(kFileLattice);
  static GaugeField* u = nullptr;
  if (!u) {
    u = new GaugeField(l);
    u->set_random(21);
    for (int sweep = 0; sweep < 3; ++sweep) heatbath_sweep(*u, 5.8, 21, sweep);
    u->reunitarize_all();
  }
  return *u;
}

TEST(Nersc, RoundTripIsBitIdentical) {
  const Layout l = layout_of(kFileLattice);
  GaugeField& u = thermalised();
  const std::string path = temp_path("roundtrip.nersc");
  const NerscInfo written = write_nersc(path, u);
  GaugeField v(l);
  const NerscInfo read = read_nersc(path, v);
  EXPECT_EQ(read.checksum, written.checksum);
  EXPECT_TRUE(identical(u, v));
  EXPECT_DOUBLE_EQ(read.plaquette, written.plaquette);
}

TEST(Nersc, TwoRowFilesRebuildTheThirdRow) {
  const Layout l = layout_of(kFileLattice);
  GaugeField& u = thermalised();
  const std::string path = temp_path("tworow.nersc");
  write_nersc(path, u, true);
  GaugeField v(l);
  read_nersc(path, v);
  double worst = 0;
  l.for_each_site([&](const Coord& x) {
    for (int mu = 0; mu < 4; ++mu) worst = std::max(worst, (u(l.index(x), mu) - v(l.index(x), mu)).cwiseAbs().maxCoeff());
  });
  QMP_max_double(&worst);
  EXPECT_LT(worst, 1e-14);
}

// A file made here byte by byte -- IEEE32LITTLE, two rows, keys in another
// order and spacing -- with the checksum of NERSC_FORMAT.md computed from
// those bytes: it loads, and a unit field's plaquette is 1.
TEST(Nersc, ReadsAFileWrittenByHand) {
  const Layout l = layout_of({4, 4, 4, 4});
  const std::string path = temp_path("byhand.nersc");
  if (QMP_get_node_number() == 0) {
    std::vector<float> data;
    for (std::int64_t site = 0; site < l.global_volume() * 4; ++site)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) {
          data.push_back(i == j ? 1.0f : 0.0f);
          data.push_back(0.0f);
        }
    std::uint32_t sum = 0;
    for (float f : data) {
      std::uint32_t w;
      std::memcpy(&w, &f, 4);
      sum += w;  // this host is little-endian, as the file
    }
    char cs[16];
    std::snprintf(cs, sizeof cs, "%x", sum);
    std::ofstream out(path, std::ios::binary);
    out << "BEGIN_HEADER\nPLAQUETTE=1.0\nDATATYPE =4D_SU3_GAUGE\nDIMENSION_4 = 4\nDIMENSION_3= 4\n"
        << "DIMENSION_2 = 4\nDIMENSION_1 = 4\nCHECKSUM = " << cs << "\nFLOATING_POINT = IEEE32LITTLE\n"
        << "ENSEMBLE_ID = test\nEND_HEADER\n";
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() * 4));
  }
  GaugeField v(l);
  const NerscInfo info = read_nersc(path, v);
  EXPECT_DOUBLE_EQ(info.plaquette, 1.0);
  EXPECT_DOUBLE_EQ(info.link_trace, 1.0);
}

// Copies `from` to `to` through `edit` (node 0), then expects reading it to
// fail on every node with a message containing `needle`.
void expect_rejected(const std::string& from, const std::string& to, void (*edit)(std::string&), const char* needle) {
  if (QMP_get_node_number() == 0) {
    std::ifstream in(from, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    edit(bytes);
    std::ofstream(to, std::ios::binary) << bytes;
  }
  const Layout l = layout_of(kFileLattice);
  GaugeField v(l);
  try {
    read_nersc(to, v);
    ADD_FAILURE() << "accepted " << to;
  } catch (const NerscError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Nersc, RejectsCorruptMismatchedAndTruncatedFiles) {
  const Layout l = layout_of(kFileLattice);
  const std::string good = temp_path("good.nersc");
  write_nersc(good, thermalised());
  // One flipped bit in the data.
  expect_rejected(good, temp_path("corrupt.nersc"), [](std::string& b) { b[b.size() - 100] ^= 0x10; }, "CHECKSUM");
  expect_rejected(good, temp_path("dims.nersc"),
                  [](std::string& b) { b.replace(b.find("DIMENSION_2 = 4"), 15, "DIMENSION_2 = 8"); }, "DIMENSION_2 = 8");
  expect_rejected(good, temp_path("short.nersc"), [](std::string& b) { b.resize(b.size() - 8); }, "truncated");
  expect_rejected(good, temp_path("plaq.nersc"),
                  [](std::string& b) { b.replace(b.find("PLAQUETTE = ") + 12, 3, "0.1"); }, "PLAQUETTE");
  expect_rejected(good, temp_path("type.nersc"),
                  [](std::string& b) { b.replace(b.find("4D_SU3_GAUGE_3x3"), 16, "4D_SU3_GAUGE_3x2"); }, "DATATYPE");
  GaugeField v(l);
  EXPECT_THROW(read_nersc(temp_path("missing.nersc"), v), NerscError);
}

}  // namespace
}  // namespace lqcd

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new lqcd::QmpEnvironment(&argc, &argv));
  return RUN_ALL_TESTS();
}
