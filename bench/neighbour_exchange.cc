// Every rank sends a message to each of its 2*D torus neighbours and
// receives one from each, at once, over and over -- the six-neighbour
// exchange of seed 003 §5.1 (~400 MB/s per node over six GigE links there).
// Prints, on rank 0, the bytes each rank sent per second (all its links
// together) and the job's total:
//   exchange ranks=P links=L bytes=N per_rank_MBps=X total_MBps=Y
// Run: qmprun --config configs/test-2x2x2.toml [--netns NAME] bench/neighbour_exchange
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <vector>

#include "collectives/collectives.h"
#include "mesh/engine.h"

int main(int argc, char** argv) {
  CLI::App app{"six-neighbour exchange bandwidth"};
  std::size_t bytes = 1 << 20;
  int iters = 50;
  app.add_option("--bytes", bytes, "message size, bytes");
  app.add_option("--iters", iters, "exchanges");
  CLI11_PARSE(app, argc, argv);
  using meshmp::mesh::Direction;
  using meshmp::mesh::Engine;
  Engine& e = Engine::init();
  const int ndirs = 2 * e.torus().ndims();
  std::vector<std::vector<char>> out(ndirs, std::vector<char>(bytes, 1)), in(ndirs, std::vector<char>(bytes));
  meshmp::collectives::Group g;
  g.engine = &e;
  g.context = 7;
  g.me = e.rank();
  for (int r = 0; r < e.size(); ++r) g.ranks.push_back(r);
  g.torus = e.torus();
  int links = 0;
  for (int d = 0; d < ndirs; ++d) {
    const int p = e.neighbour(Direction::from_index(d));
    links += p >= 0 && p != e.rank();
  }
  double t0 = 0;
  for (int i = -2; i < iters; ++i) {
    if (i == 0) {
      meshmp::collectives::barrier(g);
      t0 = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    std::vector<meshmp::mesh::Request*> reqs;
    for (int d = 0; d < ndirs; ++d) {
      const int p = e.neighbour(Direction::from_index(d));
      if (p < 0 || p == e.rank()) continue;
      reqs.push_back(e.irecv(in[d].data(), bytes, p, 10 + (d ^ 1), 0));
      reqs.push_back(e.isend(out[d].data(), bytes, p, 10 + d, 0));
    }
    e.waitall(reqs.size(), reqs.data(), nullptr);
  }
  meshmp::collectives::barrier(g);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() - t0;
  const double per_rank = static_cast<double>(bytes) * links * iters / s / 1e6;
  if (e.rank() == 0)
    std::printf("exchange ranks=%d links=%d bytes=%zu per_rank_MBps=%.1f total_MBps=%.1f\n", e.size(), links, bytes,
                per_rank, per_rank * e.size());
  Engine::finalize();
  return 0;
}
