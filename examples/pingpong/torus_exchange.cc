// Every rank of the torus sends `--bytes` to each of its 2*D neighbours and
// receives from each, all at once, verifies the data and reports the time
// and per-link counters. Part of the ping-pong demo.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <vector>

#include "mesh/engine.h"

using namespace meshmp::mesh;

int main(int argc, char** argv) {
  CLI::App app{"Exchange a message with every torus neighbour at once."};
  std::size_t bytes = 1 << 20;
  int rounds = 20;
  app.add_option("--bytes", bytes, "message size per neighbour, bytes");
  app.add_option("--rounds", rounds, "exchanges to time");
  CLI11_PARSE(app, argc, argv);

  Engine& e = Engine::init();
  const int ndirs = 2 * e.torus().ndims();
  std::vector<std::vector<unsigned char>> out(ndirs), in(ndirs);
  std::vector<Request*> reqs;
  auto t0 = std::chrono::steady_clock::now();
  bool ok = true;
  for (int r = 0; r < rounds; ++r) {
    reqs.clear();
    for (int d = 0; d < ndirs; ++d) {
      const int peer = e.neighbour(Direction::from_index(d));
      if (peer < 0 || peer == e.rank()) continue;
      out[d].assign(bytes, static_cast<unsigned char>(e.rank() * 16 + d + r));
      in[d].assign(bytes, 0);
      reqs.push_back(e.irecv(in[d].data(), bytes, peer, d ^ 1, 0));
      reqs.push_back(e.isend(out[d].data(), bytes, peer, d, 0));
    }
    e.waitall(reqs.size(), reqs.data(), nullptr);
    for (int d = 0; d < ndirs; ++d) {
      const int peer = e.neighbour(Direction::from_index(d));
      if (peer < 0 || peer == e.rank()) continue;
      const unsigned char want = static_cast<unsigned char>(peer * 16 + (d ^ 1) + r);
      ok &= in[d].front() == want && in[d].back() == want;
    }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double mb = static_cast<double>(bytes) * (reqs.size() / 2) * rounds / 1e6;
  std::printf("rank %d %s: %d links, %d exchanges of %zu bytes per link in %.3f s (%.0f MB/s sent), data %s\n",
              e.rank(), e.torus().to_string().c_str(), e.open_links(), rounds, bytes, s, mb / s,
              ok ? "verified" : "WRONG");
  Engine::finalize();
  return ok ? 0 : 1;
}
