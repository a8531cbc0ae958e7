// A rank program with selectable behaviour, driven by launcher_test:
//   env                 print rank, size and geometry, exit 0
//   exit CODE RANK      RANK exits with CODE after init; the others wait for it
//   kill RANK           RANK kills itself with SIGKILL; the others wait for a
//                       message from it
//   kill-watch RANK     the same, but the others ignore qmprun's SIGTERM, so
//                       the engine's own dead-peer detection ends their wait
//   bcast-watch RANK    as kill-watch, but the others wait in a shared-memory
//                       broadcast from RANK (Engine::smp_broadcast)
//   sweep-bcast-watch RANK  as bcast-watch, but a blocking broadcast by
//                       messages (collectives::broadcast where no host-local
//                       combine serves, e.g. over tcp) along the torus: the
//                       ranks below a relay that RANK's death cut off must
//                       see that death
//   barrier-watch RANK  as kill-watch, but the others are in a barrier over
//                       flag windows (recursive doubling, issue 31) that
//                       RANK never enters
//   barrier-setup-watch RANK  the same, RANK gone before the first such
//                       barrier (the others fail in the windows' set-up)
//   relay-watch RANK    on a line (an open axis, fabric = "mesh"), every rank
//                       but RANK waits for a message from its mirror image
//                       (size-1-r), whose route crosses RANK, and RANK kills
//                       itself: the routes through it are cut (issue 31)
//   bye RANK            RANK finalizes at once; the others wait for a message
//                       from it (its BYE must fail that wait)
//   late-finalize RANK  RANK sleeps 3 s before it finalizes, the others
//                       finalize at once
//   no-finalize         every rank exits 0 without finalizing
//   orphan-segment      rank 0 starts a connection to a non-neighbour and is
//                       killed before the peer can open it
//   hang                every rank sleeps (for --timeout and SIGTERM tests)
//   stall-client RANK   rank 0's child connects to the launcher's socket,
//                       sends half a frame header and holds the connection;
//                       then RANK kills itself and the others wait for it
//   stop RANK           RANK stops itself (SIGSTOP); the others wait for it
//   where-hang          rank 0 prints "socket PATH" (the bootstrap socket),
//                       then every rank sleeps
//   secret              checks the per-job secret: not the job id, in no
//                       shared-memory name or path, gone from the
//                       environment after init; rank 0 then tries a HELLO
//                       that carries the job id instead, which the launcher
//                       must refuse (it closes the connection)
//   far                 every rank exchanges two ints with the rank whose
//                       every coordinate differs (rank ^ (size-1) on a
//                       2x2x2 torus: not a neighbour) and with its x+
//                       neighbour, checks them and prints "far ok"
//   hold FILE           (2 ranks) rank 0 makes registered memory, prints
//                       "ready SOCKET", every rank waits (at most 30 s) for
//                       FILE to exist; then rank 0 needs a second arena and
//                       sends 8 MB from registered memory to rank 1, which
//                       checks it and prints "data ok"
#include <dirent.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <vector>

#include "collectives/collectives.h"
#include "collectives/flag_barrier.h"
#include "collectives/nonblocking.h"
#include "collectives/schedule.h"
#include "mesh/bootstrap/protocol.h"
#include "mesh/engine.h"
#include "tests/support/shm_names.h"

using meshmp::mesh::Engine;

namespace {

// Every rank in rank order, on a collective context of its own; as the
// job's torus (the torus algorithms) or not (the generic ones).
meshmp::collectives::Group world_group(Engine& e, bool as_torus) {
  meshmp::collectives::Group g;
  g.engine = &e;
  g.context = 1001;
  g.me = e.rank();
  for (int r = 0; r < e.size(); ++r) g.ranks.push_back(r);
  if (as_torus) g.torus = e.torus();
  return g;
}

// Waits for a message from `peer` that never comes; returns when the engine
// reports the peer dead (or never, if the launcher ends us first).
int wait_for(Engine& e, int peer) {
  int v = 0;
  meshmp::mesh::Status st;
  e.wait(e.irecv(&v, sizeof v, peer, 1, 0), &st);
  std::fprintf(stderr, "rank %d: receive from %d ended: %s\n", e.rank(), peer, meshmp::mesh::error_name(st.error));
  return st.error == meshmp::mesh::Error::kPeerDead ? 3 : 4;
}

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

using meshmp::testing_support::shm_names;

// The "secret" mode's checks; prints one line per finding.
int check_secret(Engine& e, const std::string& secret, const std::string& job, const std::string& sock) {
  int bad = 0;
  auto say = [&](bool ok, const std::string& what) {
    std::printf("rank %d: %s: %s\n", e.rank(), ok ? "ok" : "BAD", what.c_str());
    bad += !ok;
  };
  say(secret.size() >= 32 && secret != job, "the secret is not the job id");
  say(sock.find(secret) == std::string::npos, "the secret is not in the socket path");
  for (const std::string& n : shm_names("meshmp-" + job)) say(n.find(secret) == std::string::npos, "not in " + n);
  say(std::getenv("MESHMP_SECRET") == nullptr, "the secret is gone from the environment");
  if (e.rank() == 0) {
    // What an onlooker can learn: the job id (in every name). Present it.
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    bool refused = false;
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      std::uint32_t hello[2] = {static_cast<std::uint32_t>(e.size()), 1};
      std::string body(reinterpret_cast<char*>(hello), sizeof hello);
      body += job;
      meshmp::mesh::bootstrap::send_frame(fd, meshmp::mesh::bootstrap::Msg::kHello, body);
      char c;
      refused = ::read(fd, &c, 1) == 0;  // closed on us
      ::close(fd);
    }
    say(refused, "a HELLO with the job id instead of the secret is refused");
  }
  return bad ? 5 : 0;
}

// The "hold" mode: see the top of the file.
int hold(Engine& e, const std::string& file, const std::string& sock) {
  constexpr std::size_t kBig = std::size_t{8} << 20;  // more than the first 4 MiB arena
  char* first = static_cast<char*>(e.allocate_registered(4096, 64));
  if (e.rank() == 0 && !first) return 6;
  int token = 0;
  for (int r = 0; r < e.size(); ++r)  // everyone has made its first arena
    if (r != e.rank()) e.wait(e.isend(&token, sizeof token, r, 7, 0), nullptr);
  for (int r = 0; r < e.size(); ++r)
    if (r != e.rank()) e.wait(e.irecv(&token, sizeof token, r, 7, 0), nullptr);
  if (e.rank() == 0) {
    std::printf("ready %s\n", sock.c_str());
    std::fflush(stdout);
  }
  struct stat st {};
  for (int i = 0; i < 3000 && ::stat(file.c_str(), &st) != 0; ++i) ::usleep(10000);
  std::vector<char> want(kBig);
  for (std::size_t i = 0; i < kBig; ++i) want[i] = static_cast<char>(i * 7 + 1);
  meshmp::mesh::Status status;
  if (e.rank() == 0) {
    char* big = static_cast<char*>(e.allocate_registered(kBig, 64));  // the planted name refuses it: nullptr
    std::vector<char> plain;
    if (!big) plain.resize(kBig), big = plain.data();
    std::memcpy(big, want.data(), kBig);
    e.send(big, kBig, 1, 8, 0, meshmp::mesh::SendMode::kStandard, &status);
  } else {
    std::vector<char> got(kBig);
    e.wait(e.irecv(got.data(), kBig, 0, 8, 0), &status);
    if (status.error != meshmp::mesh::Error::kOk || got != want) return 7;
    std::printf("data ok\n");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string mode = argv[1];
  // Before init: qmprun's SIGTERM may follow the victim's death at once.
  if (mode == "kill-watch" || mode == "bcast-watch" || mode == "barrier-watch" || mode == "barrier-setup-watch" ||
      mode == "relay-watch" || mode == "ibcast-watch" || mode == "sweep-bcast-watch")
    ::signal(SIGTERM, SIG_IGN);
  const std::string secret = env_or_empty("MESHMP_SECRET"), job = env_or_empty("MESHMP_JOB"),
                    sock = env_or_empty("MESHMP_BOOTSTRAP");
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
  } else if (mode == "relay-watch" && argc == 3) {
    const int who = std::atoi(argv[2]), mirror = e.size() - 1 - e.rank();
    if (e.rank() == who) ::raise(SIGKILL);
    return wait_for(e, mirror);
  } else if (mode == "bcast-watch" && argc == 3 && e.smp_available()) {
    const int who = std::atoi(argv[2]);
    if (e.rank() == who) ::raise(SIGKILL);
    char buf[64] = {};
    std::size_t root_bytes = 0;
    const meshmp::mesh::Error err = e.smp_broadcast(buf, sizeof buf, false, &root_bytes);
    std::fprintf(stderr, "rank %d: broadcast from %d ended: %s\n", e.rank(), who, meshmp::mesh::error_name(err));
    return err == meshmp::mesh::Error::kPeerDead ? 3 : 4;
  } else if ((mode == "barrier-watch" || mode == "barrier-setup-watch") && argc == 3) {
    const int who = std::atoi(argv[2]);
    const meshmp::collectives::Group g = world_group(e, false);
    for (int i = 0; i < (mode == "barrier-watch" ? 100 : 0); ++i)  // (the windows set up, the partners known)
      if (meshmp::collectives::flag_barrier(g, meshmp::mesh::BarrierChoice::kRdma) != meshmp::mesh::Error::kOk) return 5;
    if (e.rank() == who) ::raise(SIGKILL);
    const meshmp::mesh::Error err = meshmp::collectives::flag_barrier(g, meshmp::mesh::BarrierChoice::kRdma);
    std::fprintf(stderr, "rank %d: barrier without %d ended: %s\n", e.rank(), who, meshmp::mesh::error_name(err));
    return err == meshmp::mesh::Error::kPeerDead ? 3 : 4;
  } else if (mode == "ibcast-watch" && argc == 3) {
    // A nonblocking broadcast from `who`, which dies: the others' schedule
    // ends with its death (kPeerDead), not as a length mismatch.
    const int who = std::atoi(argv[2]);
    if (e.rank() == who) ::raise(SIGKILL);
    const meshmp::collectives::Group g = world_group(e, false);
    char buf[64] = {};
    meshmp::collectives::Schedule s;
    meshmp::collectives::add_broadcast(s, g, buf, sizeof buf, who);
    s.start(e, 3000, 0);
    e.wait_until([&] { return s.finished(); });
    std::fprintf(stderr, "rank %d: ibcast from %d ended: %s\n", e.rank(), who, meshmp::mesh::error_name(s.error()));
    return s.error() == meshmp::mesh::Error::kPeerDead ? 3 : 4;
  } else if (mode == "sweep-bcast-watch" && argc == 3 && !e.smp_available()) {
    const int who = std::atoi(argv[2]);
    if (e.rank() == who) ::raise(SIGKILL);
    const meshmp::collectives::Group g = world_group(e, true);  // the axis sweep: every message between neighbours
    char buf[64] = {};
    const meshmp::mesh::Error err = meshmp::collectives::broadcast(g, buf, sizeof buf, who);
    std::fprintf(stderr, "rank %d: broadcast from %d ended: %s\n", e.rank(), who, meshmp::mesh::error_name(err));
    return err == meshmp::mesh::Error::kPeerDead ? 3 : 4;
  } else if (mode == "bye" && argc == 3) {
    const int who = std::atoi(argv[2]);
    if (e.rank() == who) {
      Engine::finalize();
      return 0;
    }
    const int rc = wait_for(e, who);
    Engine::finalize();
    return rc;
  } else if (mode == "late-finalize" && argc == 3) {
    if (e.rank() == std::atoi(argv[2])) ::sleep(3);
  } else if (mode == "no-finalize") {
    return 0;
  } else if (mode == "orphan-segment") {
    if (e.rank() == 0) {
      int v = 1;
      e.isend(&v, sizeof v, e.size() / 2, 1, 0);  // creates the link segment
      ::raise(SIGKILL);
    }
    ::pause();
  } else if (mode == "hang") {
    for (;;) ::pause();
  } else if (mode == "stall-client" && argc == 3) {
    const int who = std::atoi(argv[2]);
    if (e.rank() == 0 && ::fork() == 0) {
      sockaddr_un addr{};
      addr.sun_family = AF_UNIX;
      std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
      const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::write(fd, "\1\0\0", 3) == 3)
        ::sleep(30);  // holding a partial frame
      ::_exit(0);
    }
    ::usleep(200000);  // the stalled connection is in place before the death
    if (e.rank() == who) ::raise(SIGKILL);
    return wait_for(e, who);
  } else if (mode == "stop" && argc == 3) {
    const int who = std::atoi(argv[2]);
    if (e.rank() == who) ::raise(SIGSTOP);
    return wait_for(e, who);
  } else if (mode == "where-hang") {
    if (e.rank() == 0) std::printf("socket %s\n", sock.c_str());
    std::fflush(stdout);
    for (;;) ::pause();
  } else if (mode == "far") {
    const int far = e.rank() ^ (e.size() - 1);
    const int near = e.torus().neighbour(e.rank(), meshmp::mesh::Direction::from_index(0));
    const int down = e.torus().neighbour(e.rank(), meshmp::mesh::Direction::from_index(1));
    int got[3] = {-1, -1, -1};
    meshmp::mesh::Request* r[3] = {e.irecv(&got[0], sizeof(int), far, 7, 0), e.irecv(&got[1], sizeof(int), far, 8, 0),
                                   e.irecv(&got[2], sizeof(int), down, 9, 0)};
    const int me = e.rank(), twice = 2 * e.rank();
    using meshmp::mesh::SendMode;
    e.send(&me, sizeof me, far, 7, 0, SendMode::kStandard, nullptr);
    e.send(&twice, sizeof twice, far, 8, 0, SendMode::kStandard, nullptr);
    e.send(&me, sizeof me, near, 9, 0, SendMode::kStandard, nullptr);
    for (auto* q : r) e.wait(q, nullptr);
    const bool ok = got[0] == far && got[1] == 2 * far && got[2] == down;
    std::printf("rank %d: far %s\n", e.rank(), ok ? "ok" : "WRONG");
  } else if (mode == "secret") {
    const int rc = check_secret(e, secret, job, sock);
    Engine::finalize();
    return rc;
  } else if (mode == "hold" && argc == 3 && e.size() == 2) {
    const int rc = hold(e, argv[2], sock);
    Engine::finalize();
    return rc;
  } else {
    return 2;
  }
  Engine::finalize();
  return 0;
}
