// A rank program with selectable behaviour, driven by launcher_test:
//   env                 print rank, size and geometry, exit 0
//   exit CODE RANK      RANK exits with CODE after init; the others wait for it
//   kill RANK           RANK kills itself with SIGKILL; the others wait for a
//                       message from it
//   kill-watch RANK     the same, but the others ignore qmprun's SIGTERM, so
//                       the engine's own dead-peer detection ends their wait
//   orphan-segment      rank 0 starts a connection to a non-neighbour and is
//                       killed before the peer can open it
//   hang                every rank sleeps (for --timeout and SIGTERM tests)
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "mesh/engine.h"

using meshmp::mesh::Engine;

namespace {

// Waits for a message from `peer` that never comes; returns when the engine
// reports the peer dead (or never, if the launcher ends us first).
int wait_for(Engine& e, int peer) {
  int v = 0;
  meshmp::mesh::Status st;
  e.wait(e.irecv(&v, sizeof v, peer, 1, 0), &st);
  std::fprintf(stderr, "rank %d: receive from %d ended: %s\n", e.rank(), peer, meshmp::mesh::error_name(st.error));
  return st.error == meshmp::mesh::Error::kPeerDead ? 3 : 4;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  // Before init: qmprun's SIGTERM may follow the victim's death at once.
  if (mode == "kill-watch") ::signal(SIGTERM, SIG_IGN);
  Engine& e = Engine::init();
  if (mode == "env") {
    std::printf("rank %d of %d on %s\n", e.rank(), e.size(), e.torus().to_string().c_str());
  } else if (mode == "exit" && argc == 4) {
    const int code = std::atoi(argv[2]), who = std::atoi(argv[3]);
    if (e.rank() == who) std::_Exit(code);
    return wait_for(e, who);
  } else if (mode == "kill" && argc == 3) {
    const int who = std::atoi(argv[2]);
    if (e.rank() == who) ::raise(SIGKILL);
    return wait_for(e, who);
  } else if (mode == "kill-watch" && argc == 3) {
    const int who = std::atoi(argv[2]);
    if (e.rank() == who) ::raise(SIGKILL);
    return wait_for(e, who);
  } else if (mode == "orphan-segment") {
    if (e.rank() == 0) {
      int v = 1;
      e.isend(&v, sizeof v, e.size() / 2, 1, 0);  // creates the link segment
      ::raise(SIGKILL);
    }
    ::pause();
  } else if (mode == "hang") {
    for (;;) ::pause();
  } else {
    return 2;
  }
  Engine::finalize();
  return 0;
}
