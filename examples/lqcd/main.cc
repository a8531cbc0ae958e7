// lqcd: quenched lattice QCD over QMP -- the main job of meshmp (seed 003 §6,
// Table 1). Thermalises an SU(3) gauge field with the Wilson action
// (Cabibbo-Marinari heatbath + over-relaxation), measures the plaquette every
// sweep, then solves the Wilson-Dirac equation with CG. Reads and writes NERSC
// gauge files. Uses only the public QMP API.
//
//   qmprun -n 8 --geometry 2x2x2x1 lqcd -qmp-geom native --lattice 8x8x8x8
#include <qmp.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "examples/lqcd/comm_error.h"
#include "examples/lqcd/gauge.h"
#include "examples/lqcd/nersc.h"
#include "examples/lqcd/rng.h"
#include "examples/lqcd/wilson.h"

using namespace lqcd;

namespace {

bool primary() { return QMP_is_primary_node() == QMP_TRUE; }

template <typename... Args>
void say(const char* fmt, Args... args) {
  if (primary()) {
    std::printf(fmt, args...);
    std::fflush(stdout);
  }
}

struct Options {
  std::vector<int> lattice{8, 8, 8, 8}, grid;
  double beta = 6.0, kappa = 0.12, cg_tol = 1e-8;
  int therm = 50, sweeps = 50, or_per_hb = 4, cg_maxiter = 1000, bench = 0;
  std::uint64_t seed = 1;
  std::string load, save, start = "cold";
  bool periodic_t = false, two_rows = false;
};

// The process grid: --grid, else the allocated machine (-qmp-geom), else a
// balanced one for the lattice (QMP_layout_grid).
Coord declare_grid(const Options& o) {
  std::vector<int> grid = o.grid;
  const int alloc_dims = QMP_get_allocated_number_of_dimensions();
  if (grid.empty() && alloc_dims > 0 && alloc_dims <= 4) {
    const int* a = QMP_get_allocated_dimensions();
    grid.assign(a, a + alloc_dims);
    grid.resize(4, 1);
  }
  if (!grid.empty()) {
    if (QMP_declare_logical_topology(grid.data(), 4) != QMP_SUCCESS)
      throw std::invalid_argument(std::string("process grid: ") + QMP_get_error_string(nullptr));
  } else if (QMP_layout_grid(o.lattice.data(), 4) != QMP_SUCCESS) {
    throw std::invalid_argument(std::string("QMP_layout_grid: ") + QMP_get_error_string(nullptr));
  }
  const int* d = QMP_get_logical_dimensions();
  return Coord{d[0], d[1], d[2], d[3]};
}

// This node's part of the lattice on the declared grid.
Layout make_layout(const Options& o) {
  const Coord grid = declare_grid(o);
  const int* c = QMP_get_logical_coordinates();
  return Layout(Coord{o.lattice[0], o.lattice[1], o.lattice[2], o.lattice[3]}, grid, Coord{c[0], c[1], c[2], c[3]});
}

// A Gaussian source keyed by global site: the same on any number of nodes.
void gaussian_source(const Layout& l, SpinorField& b, std::uint64_t seed) {
  l.for_each_site([&](const Coord& x) {
    SiteRng rng(seed, l.global_site(x), 0, 1000);
    Spinor& s = b[l.index(x)];
    for (int c = 0; c < 3; ++c)
      for (int sp = 0; sp < 4; ++sp) s(c, sp) = Complex(rng.gaussian(), rng.gaussian());
  });
}

// Mean and error of the mean from blocks (autocorrelation-safe for block
// lengths beyond the integrated autocorrelation time).
std::pair<double, double> mean_and_error(const std::vector<double>& v) {
  const std::size_t blocks = std::min<std::size_t>(10, v.size());
  if (blocks == 0) return {0, 0};
  const std::size_t len = v.size() / blocks;  // the last v.size() % blocks values are left out
  std::vector<double> bm(blocks, 0);
  double mean = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    for (std::size_t i = 0; i < len; ++i) bm[b] += v[b * len + i];
    bm[b] /= len;
    mean += bm[b] / blocks;
  }
  if (blocks < 2) return {mean, 0};
  double var = 0;
  for (double x : bm) var += (x - mean) * (x - mean);
  return {mean, std::sqrt(var / (blocks * (blocks - 1.0)))};
}

int run(const Options& o) {
  const Layout layout = make_layout(o);
  const Coord& grid = layout.grid;
  say("lqcd: %dx%dx%dx%d lattice on %d nodes (grid %dx%dx%dx%d, %dx%dx%dx%d sites each), beta %.4f\n",
      o.lattice[0], o.lattice[1], o.lattice[2], o.lattice[3], QMP_get_number_of_nodes(), grid[0], grid[1], grid[2],
      grid[3], layout.local[0], layout.local[1], layout.local[2], layout.local[3], o.beta);

  GaugeField u(layout);
  if (!o.load.empty()) {
    const NerscInfo info = read_nersc(o.load, u);
    say("loaded %s: checksum %08x, plaquette %.10f, link trace %.10f (checked against the header)\n", o.load.c_str(),
        info.checksum, info.plaquette, info.link_trace);
  } else if (o.start == "hot") {
    u.set_random(o.seed);
  } else {
    u.refresh();
  }

  std::vector<double> measured;
  const int total = o.therm + o.sweeps;
  double sweep_seconds = 0;
  for (int sweep = 0; sweep < total; ++sweep) {
    const double t0 = QMP_time();
    heatbath_sweep(u, o.beta, o.seed, static_cast<std::uint64_t>(sweep));
    for (int k = 0; k < o.or_per_hb; ++k) overrelax_sweep(u);
    u.reunitarize_all();
    const Averages a = measure(u);
    const double dt = QMP_time() - t0;
    sweep_seconds += dt;
    if (sweep >= o.therm) measured.push_back(a.plaquette);
    say("sweep %4d %s plaquette %.15f  link trace %+.6f  %.3f s\n", sweep + 1, sweep < o.therm ? "therm  " : "measure",
        a.plaquette, a.link_trace, dt);
  }
  if (!o.save.empty()) {
    const NerscInfo info = write_nersc(o.save, u, o.two_rows);
    say("saved %s: checksum %08x, plaquette %.10f\n", o.save.c_str(), info.checksum, info.plaquette);
  }

  WilsonDirac m(u, o.kappa, !o.periodic_t);
  SpinorField b = m.new_field(), x = m.new_field();
  gaussian_source(layout, b, o.seed);
  say("CG on M^dag M: kappa %.6f, tolerance %.1e, fermion time boundary %s\n", o.kappa, o.cg_tol,
      o.periodic_t ? "periodic" : "antiperiodic");
  const CgResult r = solve_cg(m, x, b, o.cg_tol, o.cg_maxiter,
                              [](int it, double res) { say("  CG iteration %5d  residual %.3e\n", it, res); });
  const auto [plaq, plaq_err] = mean_and_error(measured);
  const double v = static_cast<double>(layout.volume);
  const double dslash_gflops = kDslashFlopsPerSite * v * m.dslash_count() / m.dslash_seconds() / 1e9;
  const double cg_gflops = kCgFlopsPerSite * v * r.iterations / r.seconds / 1e9;
  say("summary:\n");
  if (!measured.empty()) say("  plaquette          %.8f +- %.8f over %zu sweeps\n", plaq, plaq_err, measured.size());
  if (total > 0) say("  time per sweep     %.3f s (1 heatbath + %d over-relaxation)\n", sweep_seconds / total, o.or_per_hb);
  say("  CG                 %d iterations, true residual |b - M x| / |b| = %.3e%s\n", r.iterations, r.residual,
      r.history.empty() || r.history.back() < o.cg_tol ? "" : " (not converged)");
  say("  Dslash             %.2f us per application, %.3f Gflop/s per rank\n",
      1e6 * m.dslash_seconds() / m.dslash_count(), dslash_gflops);
  say("  CG                 %.3f Gflop/s per rank, %.1f%% of its time waiting on communication\n", cg_gflops,
      100.0 * r.comm_seconds / r.seconds);
  return r.history.empty() || r.history.back() < o.cg_tol ? 0 : 3;
}

// Seed 003 Table 1 style: Dslash and CG Gflop/s per rank on a random field.
int bench(const Options& o) {
  const Layout layout = make_layout(o);
  GaugeField u(layout);
  u.set_random(o.seed);
  WilsonDirac m(u, o.kappa, true);
  SpinorField b = m.new_field(), x = m.new_field();
  gaussian_source(layout, b, o.seed);
  for (int i = 0; i < 5; ++i) m.dslash(x, b, false);  // warm-up
  const std::uint64_t n0 = m.dslash_count();
  const double t0 = m.dslash_seconds(), w0 = m.wait_seconds();
  for (int i = 0; i < o.bench; ++i) m.dslash(x, b, false);
  const double dslash_s = m.dslash_seconds() - t0;
  const double v = static_cast<double>(layout.volume);
  const double dslash_gflops = kDslashFlopsPerSite * v * static_cast<double>(m.dslash_count() - n0) / dslash_s / 1e9;
  const double dslash_wait = (m.wait_seconds() - w0) / dslash_s;
  const CgResult r = solve_cg(m, x, b, 0, o.bench);  // a fixed number of iterations
  say("bench ranks=%d local=%dx%dx%dx%d dslash_gflops=%.4f dslash_us=%.2f dslash_wait=%.3f cg_gflops=%.4f "
      "cg_comm=%.3f\n",
      QMP_get_number_of_nodes(), layout.local[0], layout.local[1], layout.local[2], layout.local[3], dslash_gflops,
      1e6 * dslash_s / o.bench, dslash_wait, kCgFlopsPerSite * v * r.iterations / r.seconds / 1e9,
      r.comm_seconds / r.seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) {
    std::fprintf(stderr, "lqcd: QMP_init_msg_passing failed\n");
    return 1;
  }
  Options o;
  CLI::App app{"Quenched lattice QCD over QMP: SU(3) heatbath, plaquette, Wilson-Dirac CG, NERSC gauge files."};
  app.add_option("--lattice", o.lattice, "lattice extent LXxLYxLZxLT")->delimiter('x')->expected(4)->check(CLI::PositiveNumber);
  app.add_option("--grid", o.grid, "process grid PXxPYxPZxPT (default: -qmp-geom, else balanced)")
      ->delimiter('x')->expected(4)->check(CLI::PositiveNumber);
  app.add_option("--beta", o.beta, "gauge coupling beta = 6/g^2")->check(CLI::PositiveNumber);
  app.add_option("--therm", o.therm, "thermalisation sweeps")->check(CLI::NonNegativeNumber);
  app.add_option("--sweeps", o.sweeps, "measured sweeps after thermalisation")->check(CLI::NonNegativeNumber);
  app.add_option("--or-per-hb", o.or_per_hb, "over-relaxation sweeps per heatbath sweep")->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "random seed (the same seed gives the same run on any number of nodes)");
  app.add_option("--start", o.start, "initial field when not loading")->check(CLI::IsMember({"cold", "hot"}));
  app.add_option("--load", o.load, "read the gauge field from this NERSC file");
  app.add_option("--save", o.save, "write the gauge field to this NERSC file after the sweeps");
  app.add_flag("--two-rows", o.two_rows, "save as 4D_SU3_GAUGE (two rows per link) instead of 3x3");
  app.add_option("--kappa", o.kappa, "Wilson hopping parameter")->check(CLI::Range(0.0, 0.25));
  app.add_option("--cg-tol", o.cg_tol, "CG stops at |r| / |M^dag b| below this")->check(CLI::PositiveNumber);
  app.add_option("--cg-maxiter", o.cg_maxiter, "CG iteration limit")->check(CLI::PositiveNumber);
  app.add_flag("--periodic-t", o.periodic_t, "periodic instead of antiperiodic fermion time boundary");
  app.add_option("--bench", o.bench, "benchmark only: N Dslash applications and N CG iterations on a hot field")
      ->check(CLI::NonNegativeNumber);
  int code = 0;
  try {
    app.parse(argc, argv);
    code = o.bench ? bench(o) : run(o);
  } catch (const CLI::ParseError& e) {
    code = primary() ? app.exit(e) : (e.get_exit_code() ? 2 : 0);
    if (code) code = 2;
  } catch (const CommError& e) {
    // Other ranks may wait for this one in a halo exchange or a sum: end
    // them all now rather than leave them to a finalize that never completes.
    std::fprintf(stderr, "lqcd: rank %d: %s; ending the job (QMP_abort)\n", QMP_get_node_number(), e.what());
    QMP_abort(1);
  } catch (const std::exception& e) {
    if (primary()) std::fprintf(stderr, "lqcd: %s\n", e.what());
    code = 1;
  }
  QMP_finalize_msg_passing();
  return code;
}
