// Scatter, gather, all-to-all, scatterv and gatherv (every count equal to
// the block, so the two differ from scatter and gather by the counts the
// root broadcasts first) on the world torus with each schedule --
// OPT and SDF (seed 003 §5.2, store and forward over the neighbour links)
// and the direct algorithm -- in the same job, alternating, best of
// --rounds (not a test). Run on the torus it is for, e.g.
//   qmprun -n 27 --geometry 3x3x3 bazel-bin/bench/personalized
// Output, from rank 0, one line per operation, size and schedule:
//   personalized op=scatter algo=opt ranks=27 bytes=1024 us=T steps=S
// (bytes per block; steps = the critical path the collective measured).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "collectives/collectives.h"
#include "collectives/personalized.h"

using namespace meshmp;
using collectives::ScatterAlgorithm;

template <typename T>
collectives::ReduceOp max_op() {
  collectives::ReduceOp m;
  m.elem_size = sizeof(T);
  m.combine = [](void* io, const void* in, std::size_t n, void*) {
    for (std::size_t k = 0; k < n; ++k) static_cast<T*>(io)[k] = std::max(static_cast<T*>(io)[k], static_cast<const T*>(in)[k]);
  };
  return m;
}

int main(int argc, char** argv) {
  CLI::App app{"OPT vs SDF vs direct scatter, gather and all-to-all."};
  int iters = 2000, rounds = 3;
  std::vector<std::size_t> sizes{8, 1024, 65536};
  app.add_option("--iters", iters, "calls per measurement at 8 bytes (fewer for larger blocks)");
  app.add_option("--rounds", rounds, "measurements per case; the best is reported");
  app.add_option("--bytes", sizes, "block sizes");
  CLI11_PARSE(app, argc, argv);
  mesh::Engine& e = mesh::Engine::init();
  collectives::Group g;
  g.engine = &e;
  g.context = 7;
  g.me = e.rank();
  for (int r = 0; r < e.size(); ++r) g.ranks.push_back(r);
  g.torus = e.torus();
  const int p = g.size();
  // gatherv: the counts broadcast first (what collectives::gatherv takes);
  // gatherv-hdr: the lengths in each message's header instead.
  const char* ops[] = {"scatter", "gather", "alltoall", "scatterv", "gatherv", "gatherv-hdr"};
  const ScatterAlgorithm algos[] = {ScatterAlgorithm::kOpt, ScatterAlgorithm::kSdf, ScatterAlgorithm::kDirect};
  const char* names[] = {"opt", "sdf", "direct"};
  for (std::size_t bytes : sizes) {
    std::vector<char> send(bytes * p, 1), recv(bytes * p, 0);
    std::vector<std::size_t> counts(p, bytes), displs(p);
    for (int r = 0; r < p; ++r) displs[r] = r * bytes;
    const int it = std::max(10, static_cast<int>(iters * 4096.0 / (bytes * (p - 1) + 4096.0) * 8));
    for (int op = 0; op < 6; ++op) {
      double best[3] = {1e30, 1e30, 1e30};
      int steps[3] = {0, 0, 0};
      for (int round = 0; round < rounds; ++round)
        for (int a = 0; a < 3; ++a) {
          collectives::barrier(g);
          const auto t0 = std::chrono::steady_clock::now();
          for (int i = 0; i < it; ++i) {
            if (op == 0) collectives::scatter(g, send.data(), recv.data(), bytes, 0, algos[a]);
            if (op == 1) collectives::gather(g, send.data(), recv.data(), bytes, 0, algos[a]);
            if (op == 2) collectives::alltoall(g, send.data(), recv.data(), bytes, algos[a]);
            if (op == 3)
              collectives::scatterv(g, send.data(), counts.data(), displs.data(), recv.data(), bytes, 0, algos[a]);
            if (op == 4)
              collectives::gatherv(g, send.data(), bytes, recv.data(), counts.data(), displs.data(), 0, algos[a]);
            if (op == 5 && algos[a] != ScatterAlgorithm::kDirect)
              collectives::torus_gatherv_headers(g, send.data(), bytes, recv.data(), counts.data(), displs.data(), 0,
                                                 algos[a]);
          }
          double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / it;
          int depth = collectives::last_critical_path();
          // The slowest rank's time and the longest path count.
          collectives::allreduce(g, &us, 1, max_op<double>());
          collectives::allreduce(g, &depth, 1, max_op<int>());
          best[a] = std::min(best[a], us);
          steps[a] = depth;
        }
      if (e.rank() == 0)
        for (int a = 0; a < 3; ++a)
          std::printf("personalized op=%s algo=%s ranks=%d bytes=%zu us=%.2f steps=%d\n", ops[op], names[a], p, bytes,
                      best[a], steps[a]);
      std::fflush(stdout);
    }
  }
  mesh::Engine::finalize();
  return 0;
}
