// Measures the two message-passing global combines against each other by
// size, to place collectives::kExchangeMaxBytes (not a test). Run on the
// torus it is for, e.g.: qmprun -n 8 --geometry 2x2x2 bench/combine_crossover
// Output: crossover bytes=N exchange_us=A reduce_bcast_us=B ring_us=C
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <vector>

#include "collectives/collectives.h"

using namespace meshmp;

int main(int argc, char** argv) {
  CLI::App app{"Dimension-wise exchange vs reduce + broadcast, by message size."};
  int iters = 2000;
  app.add_option("--iters", iters, "combines per size (fewer for large sizes)");
  CLI11_PARSE(app, argc, argv);
  mesh::Engine& e = mesh::Engine::init();
  collectives::Group g;
  g.engine = &e;
  g.context = 7;
  g.me = e.rank();
  for (int r = 0; r < e.size(); ++r) g.ranks.push_back(r);
  g.torus = e.torus();
  collectives::ReduceOp sum;
  sum.elem_size = sizeof(double);
  sum.combine = [](void* io, const void* in, std::size_t n, void*) {
    for (std::size_t i = 0; i < n; ++i) static_cast<double*>(io)[i] += static_cast<const double*>(in)[i];
  };
  for (std::size_t bytes = 8; bytes <= (256u << 10); bytes *= 2) {
    std::vector<double> v(bytes / sizeof(double), 1.0);
    const int it = std::max(10, static_cast<int>(iters * 4096.0 / (bytes + 4096.0)));
    double us[3];
    int k = 0;
    for (auto algo : {collectives::CombineAlgorithm::kDimensionExchange, collectives::CombineAlgorithm::kReduceBroadcast,
                      collectives::CombineAlgorithm::kRing}) {
      collectives::barrier(g, collectives::CombineAlgorithm::kDimensionExchange);
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < it; ++i) collectives::allreduce(g, v.data(), v.size(), sum, algo);
      us[k++] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / it;
    }
    if (e.rank() == 0)
      std::printf("crossover bytes=%zu exchange_us=%.2f reduce_bcast_us=%.2f ring_us=%.2f\n", bytes, us[0], us[1], us[2]);
    std::fflush(stdout);
  }
  mesh::Engine::finalize();
  return 0;
}
