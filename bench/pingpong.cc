// NetPIPE-style point-to-point benchmark through the core API (not a test):
// half round-trip latency and streaming bandwidth between ranks 0 and 1 (or
// --peer R) for 8 B .. 4 MiB. Run: qmprun -n 2 bench/pingpong. One line per size:
//   pingpong bytes=N latency_us=L bandwidth_MBps=B
// bench/mpi_pingpong.c measures the same with MPI, for bench/compare.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <vector>

#include "mesh/engine.h"

using meshmp::mesh::Engine;
using meshmp::mesh::Request;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int iterations_for(std::size_t n, int base) {
  int it = static_cast<int>(base * 8192.0 / (n + 8192.0));
  return it < 20 ? 20 : it;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Ping-pong latency and streaming bandwidth between ranks 0 and 1 (core API)."};
  std::size_t min_bytes = 8, max_bytes = 4u << 20;
  int base_iters = 20000, window = 16, peer = 1;
  app.add_option("--min", min_bytes, "smallest message, bytes");
  app.add_option("--max", max_bytes, "largest message, bytes");
  app.add_option("--iters", base_iters, "round trips for small messages (fewer for large)");
  app.add_option("--window", window, "messages in flight in the bandwidth run");
  app.add_option("--peer", peer, "the rank rank 0 measures against (the others wait)");
  CLI11_PARSE(app, argc, argv);

  Engine& e = Engine::init();
  if (e.size() < 2) {
    std::fprintf(stderr, "pingpong: needs 2 ranks (qmprun -n 2)\n");
    return 2;
  }
  const int me = e.rank();
  if (peer < 1 || peer >= e.size()) {
    std::fprintf(stderr, "pingpong: --peer must be in 1..%d\n", e.size() - 1);
    return 2;
  }
  std::vector<char> buf(max_bytes), ack(4);
  std::vector<Request*> reqs(window);
  if (me == 0) std::printf("# meshmp core pingpong, eager limit %zu bytes\n", e.eager_limit_to(peer));
  for (std::size_t n = min_bytes; n <= max_bytes; n *= 2) {
    if (me != 0 && me != peer) continue;
    const int other = me == 0 ? peer : 0;
    const int iters = iterations_for(n, base_iters);
    // Latency: round trips, after a warm-up.
    double t0 = 0;
    for (int i = -iters / 10 - 1; i < iters; ++i) {
      if (i == 0) t0 = now();
      if (me == 0) {
        e.wait(e.isend(buf.data(), n, other, 1, 0), nullptr);
        e.wait(e.irecv(buf.data(), n, other, 1, 0), nullptr);
      } else {
        e.wait(e.irecv(buf.data(), n, other, 1, 0), nullptr);
        e.wait(e.isend(buf.data(), n, other, 1, 0), nullptr);
      }
    }
    const double latency_us = (now() - t0) / iters / 2 * 1e6;
    // Bandwidth: windows of back-to-back messages, one ack per window.
    const int rounds = iters / window < 4 ? 4 : iters / window;
    for (int r = -1; r < rounds; ++r) {
      if (r == 0) t0 = now();
      for (int k = 0; k < window; ++k)
        reqs[k] = me == 0 ? e.isend(buf.data(), n, other, 2, 0) : e.irecv(buf.data(), n, other, 2, 0);
      e.waitall(window, reqs.data(), nullptr);
      if (me == 0) e.wait(e.irecv(ack.data(), 4, other, 3, 0), nullptr);
      else e.wait(e.isend(ack.data(), 4, other, 3, 0), nullptr);
    }
    const double mbps = static_cast<double>(n) * window * rounds / (now() - t0) / 1e6;
    if (me == 0) {
      std::printf("pingpong bytes=%zu latency_us=%.3f bandwidth_MBps=%.1f\n", n, latency_us, mbps);
      std::fflush(stdout);
    }
  }
  Engine::finalize();
  return 0;
}
