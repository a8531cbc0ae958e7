// The PMI-2 bootstrap (mesh/bootstrap/pmi2.h) under a PMI-2 launcher
// (MPICH's mpiexec, srun --mpi=pmi2), used directly: values of every byte,
// longer than one PMI-2 value (so in several pieces), empty ones, and a key
// nobody put. Prints "pmi2 probe: rank R of N ok" when all of it holds.
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "mesh/bootstrap/bootstrap.h"

namespace {

std::string pattern(int rank, std::size_t bytes) {
  std::string s(bytes, '\0');
  for (std::size_t i = 0; i < bytes; ++i) s[i] = static_cast<char>((i * 7 + rank * 31) & 0xff);
  return s;
}

}  // namespace

int main() {
  try {
    std::unique_ptr<meshmp::mesh::Bootstrap> b = meshmp::mesh::connect_bootstrap();
    if (!b || std::strcmp(b->kind(), "PMI-2") != 0) {
      std::fprintf(stderr, "pmi2 probe: not started through PMI-2 (%s)\n", b ? b->kind() : "no launcher");
      return 1;
    }
    const int me = b->rank(), n = b->size();
    b->put("big", pattern(me, 5000));
    b->put("empty", "");
    b->fence();
    for (int r = 0; r < n; ++r) {
      if (b->get(r, "big") != pattern(r, 5000) || !b->get(r, "empty").empty()) {
        std::fprintf(stderr, "pmi2 probe: rank %d: rank %d's values differ\n", me, r);
        return 1;
      }
      if (b->host_of(r).empty()) {
        std::fprintf(stderr, "pmi2 probe: rank %d: no host for rank %d\n", me, r);
        return 1;
      }
    }
    try {
      (void)b->get((me + 1) % n, "never-put");
      std::fprintf(stderr, "pmi2 probe: a key nobody put was found\n");
      return 1;
    } catch (const std::runtime_error& e) {
      if (!std::strstr(e.what(), "published no \"never-put\"")) {
        std::fprintf(stderr, "pmi2 probe: %s\n", e.what());
        return 1;
      }
    }
    b->fence();  // nobody leaves before everyone has read
    std::printf("pmi2 probe: rank %d of %d ok, %d on this host, job %s\n", me, n, b->local_ranks(), b->job().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pmi2 probe: %s\n", e.what());
    return 1;
  }
}
