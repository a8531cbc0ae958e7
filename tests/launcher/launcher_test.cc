// qmprun's contract, observed from outside: exit statuses, the message naming
// a failed rank, teardown within the promised time, --timeout, SIGTERM, and
// no processes or shared-memory segments left behind.
#include <dirent.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/shm_names.h"

namespace {

std::string g_qmprun, g_probe, g_qmp_mesh, g_qmp_abort, g_mpi_abort, g_mpi_appnum, g_mpi_dead_peer;

struct Result {
  int status = -1;         // qmprun's exit status
  std::string out, err;
  double seconds = 0;
};

std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) s.append(buf, n);
  return s;
}

int count_shm(const std::string& prefix = "meshmp-") {
  return static_cast<int>(meshmp::testing_support::shm_names(prefix).size());
}

// Number of live processes running the probe binary.
int count_probes() {
  int n = 0;
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      std::string cmd = "/proc/" + std::string(e->d_name) + "/cmdline";
      int fd = ::open(cmd.c_str(), O_RDONLY);
      if (fd < 0) continue;
      std::string c = read_all(fd);
      ::close(fd);
      std::string stat_path = "/proc/" + std::string(e->d_name) + "/stat";
      if (c.find("job_probe") != std::string::npos && c.find("launcher_test") == std::string::npos) {
        int sfd = ::open(stat_path.c_str(), O_RDONLY);
        std::string st = sfd >= 0 ? read_all(sfd) : "";
        if (sfd >= 0) ::close(sfd);
        if (st.find(") Z ") == std::string::npos) ++n;  // zombies do not count
      }
    }
    ::closedir(d);
  }
  return n;
}

// Runs qmprun with args; `signal_after` > 0 sends SIGTERM to it after that
// many seconds. A hard 60 s bound kills it if it never returns.
Result run_program(std::vector<std::string> args, double signal_after = 0) {
  int out[2], err[2];
  EXPECT_EQ(::pipe(out), 0);
  EXPECT_EQ(::pipe(err), 0);
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ::close(out[0]);
    ::close(err[0]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  std::thread killer([&] {
    if (signal_after > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(signal_after));
      ::kill(pid, SIGTERM);
    }
  });
  std::thread guard([pid] {
    for (int i = 0; i < 600; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (::kill(pid, 0) != 0) return;
    }
    ::kill(pid, SIGKILL);
  });
  Result r;
  std::thread eread([&] { r.err = read_all(err[0]); });
  r.out = read_all(out[0]);
  eread.join();
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  killer.join();
  guard.join();
  ::close(out[0]);
  ::close(err[0]);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

Result run(std::vector<std::string> args, double signal_after = 0) {
  args.insert(args.begin(), g_qmprun);
  return run_program(args, signal_after);
}

TEST(Qmprun, PassesRankSizeAndGeometry) {
  Result r = run({"-n", "4", "--geometry", "2x2", g_probe, "env"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (int k = 0; k < 4; ++k)
    EXPECT_NE(r.out.find("rank " + std::to_string(k) + " of 4 on 2x2"), std::string::npos) << r.out;
}

// qmprun started by an outer PMIx launcher (srun --mpi=pmix -n 1 qmprun
// ...): its ranks are qmprun's, not the outer job's.
TEST(Qmprun, RanksIgnoreAnOuterPmixJob) {
  Result r = run_program({"/usr/bin/env", "PMIX_NAMESPACE=outer.job", "PMIX_RANK=0",
                          "PMIX_SERVER_URI41=outer;tcp4://127.0.0.1:1", g_qmprun, "-n", "4", g_probe, "env"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (int k = 0; k < 4; ++k)
    EXPECT_NE(r.out.find("rank " + std::to_string(k) + " of 4"), std::string::npos) << r.out << r.err;
}

TEST(Qmprun, MpirunSpellingAndTaggedOutput) {
  // Open MPI's --tag-output, MPICH's -l and -prepend-rank, srun's --label.
  for (const char* tag : {"--tag-output", "-tag-output", "-l", "-prepend-rank", "--label"}) {
    Result r = run({"-np", "2", tag, g_probe, "env"});
    EXPECT_EQ(r.status, 0) << tag << " " << r.err;
    EXPECT_NE(r.out.find("[1] rank 1 of 2"), std::string::npos) << tag << " " << r.out;
  }
}

TEST(Qmprun, RejectsAGeometryThatDoesNotFit) {
  Result r = run({"-n", "4", "--geometry", "2x3", g_probe, "env"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("geometry 2x3 has 6 nodes but -n is 4"), std::string::npos) << r.err;
}

TEST(Qmprun, FirstFailingRanksStatusAndName) {
  Result r = run({"-n", "4", g_probe, "exit", "7", "2"});
  EXPECT_EQ(r.status, 7);
  EXPECT_NE(r.err.find("rank 2 (pid "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exited with status 7"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
}

// Issue 29: a rank that exits with status 0 without finalizing leaves the
// others waiting (here for a message from it): the job ends at once, named.
TEST(Qmprun, ARankExitingWithoutFinalizeEndsTheJob) {
  Result r = run({"-n", "4", "--timeout", "30", g_probe, "exit", "0", "2"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("rank 2 (pid "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exited with status 0 without finalizing"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
}

// MPICH's -disable-auto-cleanup (Open MPI's --enable-recovery): a rank that
// exits without finalizing leaves the others running. A receive from it
// and a collective over all ranks fail with an error (MPI_ERRORS_RETURN),
// the others still talk and finalize, and the job's status is the dead
// rank's. Without the option
// the job ends at once.
TEST(Qmprun, DisableAutoCleanupLetsTheOtherRanksGoOn) {
  for (const char* option : {"--disable-auto-cleanup", "-disable-auto-cleanup", "--enable-recovery"}) {
    Result r = run({"-n", "3", "--timeout", "30", option, g_mpi_dead_peer});
    EXPECT_EQ(r.status, 3) << option << ": " << r.err;
    EXPECT_NE(r.out.find("rank 0: receive from the dead rank: MPI_ERR_OTHER\n"), std::string::npos)
        << option << ": " << r.out;
    EXPECT_NE(r.out.find("rank 0: allreduce failed"), std::string::npos) << option << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("rank 1: allreduce failed"), std::string::npos) << option << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("rank 0 finalized"), std::string::npos) << option << ": " << r.out << r.err;
    EXPECT_NE(r.out.find("rank 1 finalized"), std::string::npos) << option << ": " << r.out << r.err;
    EXPECT_EQ(r.err.find("ending the job"), std::string::npos) << option << ": " << r.err;
    EXPECT_LT(r.seconds, 10.0) << option;
  }
  Result r = run({"-n", "3", "--timeout", "30", g_mpi_dead_peer});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("rank 2 (pid "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exited with status 3; ending the job"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("finalized"), std::string::npos) << r.out;
}

// Every rank leaving without finalize is not a success either.
TEST(Qmprun, NoRankFinalizingIsAFailure) {
  Result r = run({"-n", "2", "--timeout", "30", g_probe, "no-finalize"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("without finalizing"), std::string::npos) << r.err;
}

// A rank that finalized sends BYE: the others' receive from it fails at once
// (with a message naming it) instead of waiting with it in finalize forever.
TEST(Qmprun, AReceiveFromAFinalizedRankFailsInsteadOfHanging) {
  Result r = run({"-n", "4", "--geometry", "4", "--timeout", "30", g_probe, "bye", "1"});
  EXPECT_EQ(r.status, 3) << r.err;  // wait_for saw kPeerDead
  EXPECT_NE(r.err.find("rank 1 has finalized; 1 request waiting on it fail"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
}

// ... also where ranks relay (a mesh fabric over shm, or ofi), whose
// finalize waits for every rank: its neighbours (linked, which get its BYE
// only after that) and the ranks beyond them (routed) all see the finalize
// -- through shm's flag, or qmprun's notice.
TEST(Qmprun, AReceiveFromAFinalizedRankFailsWhereRanksRelay) {
  for (const char* provider : {"shm", "ofi"}) {
    Result r = run({"-x", std::string("MESHMP_PROVIDER=") + provider, "-x", "MESHMP_OFI_PROVIDER=tcp", "-n", "5",
                    "--config", "tests/launcher/line-5.toml", "--timeout", "30", g_probe, "bye", "2"});
    EXPECT_EQ(r.status, 3) << provider << ": " << r.err;
    for (int k : {0, 1, 3, 4})
      EXPECT_NE(r.err.find("rank " + std::to_string(k) + ": rank 2 has finalized; 1 request waiting on it fail"),
                std::string::npos)
          << provider << ", rank " << k << ": " << r.err;
    EXPECT_LT(r.seconds, 5.0) << provider;
    EXPECT_EQ(count_probes(), 0);
  }
}

// Ranks that wait in finalize name the one that has not come.
TEST(Qmprun, RanksWaitingInFinalizeNameTheMissingOne) {
  Result r = run({"-n", "3", "--finalize-warning", "1", "--timeout", "30", g_probe, "late-finalize", "2"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("2 ranks have been in finalize for 1 s, waiting for rank 2 (pid "), std::string::npos) << r.err;
}

TEST(Qmprun, KilledRankEndsTheJobWithinFiveSecondsAndLeavesNothing) {
  const int shm_before = count_shm();
  Result r = run({"-n", "8", "--geometry", "2x2x2", g_probe, "kill", "3"});
  EXPECT_EQ(r.status, 128 + SIGKILL);
  EXPECT_NE(r.err.find("rank 3 (pid "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("killed by signal 9"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
  EXPECT_EQ(count_shm(), shm_before);
}

// A 4-rank ring where job_probe's `mode` kills rank `victim` while the
// others wait on it: their wait ends with `said` (the engine's liveness
// check, 100 ms, comes before qmprun's SIGKILL one second after the death),
// the job ends by the victim's signal within 5 s, and no rank is left.
void expect_survivors_see(const char* mode, const char* victim, const std::string& said) {
  Result r = run({"-n", "4", "--geometry", "4", g_probe, mode, victim});
  EXPECT_EQ(r.status, 128 + SIGKILL) << mode;
  EXPECT_NE(r.err.find(said), std::string::npos) << mode << ": " << r.err;
  EXPECT_LT(r.seconds, 5.0) << mode;
  EXPECT_EQ(count_probes(), 0) << mode;
}

TEST(Qmprun, BlockedRanksSeeTheDeadPeerAsAnErrorNotAHang) {
  expect_survivors_see("kill-watch", "2", "receive from 2 ended: peer or link gone");
}

// On a mesh fabric over shm, a relay that dies cuts the routes through it:
// both ends of each fail their receive from the other (issue 31), though
// neither is dead -- shm shows every rank's death to every rank.
TEST(Qmprun, ARoutedPeerBehindADeadRelayFailsOnBothEnds) {
  Result r = run({"-n", "5", "--config", "tests/launcher/line-5.toml", g_probe, "relay-watch", "2"});
  EXPECT_EQ(r.status, 128 + SIGKILL);
  for (const char* said : {"rank 0: receive from 4 ended: peer or link gone", "rank 4: receive from 0 ended: peer or link gone",
                           "rank 1: receive from 3 ended: peer or link gone", "rank 3: receive from 1 ended: peer or link gone"})
    EXPECT_NE(r.err.find(said), std::string::npos) << said << ": " << r.err;
  EXPECT_NE(r.err.find("its route runs through rank 2, which failed"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
}

// The same for ranks waiting in a shared-memory broadcast whose root died
// before writing it.
TEST(Qmprun, RanksWaitingOnADeadBroadcastRootSeeAnError) {
  expect_survivors_see("bcast-watch", "0", "broadcast from 0 ended: peer or link gone");
}

// ... for ranks in a nonblocking broadcast whose root died: its death, not a
// length mismatch (a broadcast's exact receives, collectives/forwarding.h).
TEST(Qmprun, RanksInANonblockingBroadcastFromADeadRootSeeItsDeath) {
  expect_survivors_see("ibcast-watch", "0", "rank 3: ibcast from 0 ended: peer or link gone");
}

// ... and for ranks in a blocking broadcast by messages (tcp: no
// host-local combine) whose root died: rank 2 hears from relay 1 or 3
// (the axis sweep of a ring of 4 from 0), which has nothing to forward --
// it must see the death too, not a message of the wrong length.
TEST(Qmprun, RanksBelowARelayOfABroadcastFromADeadRootSeeItsDeath) {
  Result r = run({"-n", "4", "--geometry", "4", "-x", "MESHMP_PROVIDER=tcp", g_probe, "sweep-bcast-watch", "0"});
  EXPECT_EQ(r.status, 128 + SIGKILL);
  for (const char* said : {"rank 1: broadcast from 0 ended: peer or link gone",
                           "rank 2: broadcast from 0 ended: peer or link gone",
                           "rank 3: broadcast from 0 ended: peer or link gone"})
    EXPECT_NE(r.err.find(said), std::string::npos) << said << ": " << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
}

// ... and for ranks waiting for flags in a barrier over flag windows, and
// (gone before the first one) in the windows' set-up.
TEST(Qmprun, RanksInAFlagBarrierWithoutADeadRankSeeAnError) {
  expect_survivors_see("barrier-watch", "2", "rank 0: barrier without 2 ended: peer or link gone");
  expect_survivors_see("barrier-setup-watch", "2", "rank 0: barrier without 2 ended: peer or link gone");
}

// MESHMP_BARRIER names a barrier or stops the start.
TEST(Qmprun, AnUnknownBarrierStopsTheStartNamingTheChoices) {
  Result r = run({"-x", "MESHMP_BARRIER=fastest", "-n", "2", g_probe, "env"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("MESHMP_BARRIER=fastest: expected auto, rdma, flat, exchange or combine"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("rank 0 of 2"), std::string::npos) << r.out;
  r = run({"-x", "MESHMP_BARRIER=flat", "-n", "2", g_probe, "env"});
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(Qmprun, SegmentOfARankKilledMidConnectIsRemoved) {
  const int shm_before = count_shm();
  Result r = run({"-n", "4", "--geometry", "4", g_probe, "orphan-segment"});
  EXPECT_EQ(r.status, 128 + SIGKILL) << r.err;
  EXPECT_EQ(count_shm(), shm_before);
  EXPECT_EQ(count_probes(), 0);
}

// A client that sends half a frame and stalls must not blind the launcher:
// a rank killed meanwhile still ends the job within 5 s (issue 15, item 2).
TEST(Qmprun, AStalledBootstrapClientDoesNotDelayTheWatch) {
  Result r = run({"-n", "3", "--geometry", "3", g_probe, "stall-client", "2"});
  EXPECT_EQ(r.status, 128 + SIGKILL) << r.err;
  EXPECT_NE(r.err.find("rank 2 (pid "), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
}

// A rank stopped longer than --stopped-warning is named (issue 15, item 4);
// the job waits for it, here until --timeout.
TEST(Qmprun, AStoppedRankIsNamed) {
  Result r = run({"-n", "3", "--stopped-warning", "1", "--timeout", "3", g_probe, "stop", "1"});
  EXPECT_EQ(r.status, 124) << r.err;
  EXPECT_NE(r.err.find("rank 1 (pid "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("has been stopped for 1 s"), std::string::npos) << r.err;
  EXPECT_EQ(count_probes(), 0);
}

TEST(Qmprun, TimeoutEndsAHungJob) {
  Result r = run({"-n", "3", "--timeout", "1", g_probe, "hang"});
  EXPECT_EQ(r.status, 124);
  EXPECT_NE(r.err.find("exceeded --timeout"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
}

// MPICH's and Open MPI's mpiexec read MPIEXEC_TIMEOUT; MPICH's test suite
// sets it for every program (a hung one hung the suite before).
TEST(Qmprun, MpiexecTimeoutFromTheEnvironmentEndsAHungJob) {
  ::setenv("MPIEXEC_TIMEOUT", "1", 1);
  Result r = run({"-n", "2", g_probe, "hang"});
  ::unsetenv("MPIEXEC_TIMEOUT");
  EXPECT_EQ(r.status, 124);
  EXPECT_NE(r.err.find("MPIEXEC_TIMEOUT"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
}

TEST(Qmprun, SigtermToTheLauncherEndsTheJob) {
  const int shm_before = count_shm();
  Result r = run({"-n", "4", g_probe, "hang"}, /*signal_after=*/1.0);
  EXPECT_EQ(r.status, 128 + SIGTERM);
  EXPECT_NE(r.err.find("interrupted by"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  EXPECT_EQ(count_probes(), 0);
  EXPECT_EQ(count_shm(), shm_before);
}

// SIGUSR1 and SIGUSR2 to the launcher reach every rank (a batch system's
// warning before the time limit, a checkpoint trigger), and end nothing. The
// signal is sent once both ranks have said (a file each) that they trap it;
// a job not ready within 30 s is killed.
TEST(Qmprun, UserSignalsArePassedToEveryRank) {
  const char* driver = R"(sig=$1; dir=$(mktemp -d)
"$0" -n 2 /bin/sh -c "trap 'echo \"\$MESHMP_RANK got $sig\"; exit 0' $sig; : > $dir/ready.\$MESHMP_RANK; while :; do sleep 0.05; done" &
q=$!; n=0
while { [ ! -e $dir/ready.0 ] || [ ! -e $dir/ready.1 ]; } && [ $n -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
[ $n -lt 600 ] && kill -$sig $q || kill -KILL $q
wait $q; rc=$?; rm -rf "$dir"; exit $rc)";
  for (const char* name : {"USR1", "USR2"}) {
    Result r = run_program({"/bin/sh", "-c", driver, g_qmprun, name});
    EXPECT_EQ(r.status, 0) << name << " " << r.err;
    EXPECT_NE(r.out.find(std::string("0 got ") + name), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::string("1 got ") + name), std::string::npos) << r.out;
  }
}

// Every line each rank printed before the job ended reaches the job's
// output, the aborting rank's and the others' (stdout to a pipe, as in a
// batch job's log; before, all were lost in the ranks' stdio buffers).
void expect_printed_lines(const Result& r, const char* who, int ranks) {
  for (int k = 0; k < ranks; ++k) {
    const std::string line = std::string(who) + " " + std::to_string(k) + " printed before the end\n";
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "not in\n" << r.out;
  }
}

TEST(Qmprun, QmpAbortEndsTheWholeJobWithItsCode) {
  Result r = run({"-n", "4", g_qmp_abort, "abort", "9"});
  EXPECT_EQ(r.status, 9) << r.err;
  EXPECT_NE(r.err.find("rank 1 aborted the job with code 9: QMP_abort"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  expect_printed_lines(r, "node", 4);
  Result s = run({"-n", "3", g_qmp_abort, "abort_string", "6"});
  EXPECT_EQ(s.status, 6) << s.err;
  EXPECT_NE(s.err.find("rank 1 aborted the job with code 6: QMP_abort_string: stop here"), std::string::npos) << s.err;
  expect_printed_lines(s, "node", 3);
}

TEST(Mpirun, MpiAbortEndsTheWholeJobWithItsCode) {
  Result r = run({"-n", "4", g_mpi_abort, "abort", "7"});
  EXPECT_EQ(r.status, 7) << r.err;
  EXPECT_NE(r.err.find("rank 1 aborted the job with code 7: MPI_Abort"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  expect_printed_lines(r, "rank", 4);
}

// MPI_ERRORS_ARE_FATAL (the default) prints the error, naming the function
// and the argument, and ends the job (MPI-1.1 §7.2).
TEST(Mpirun, AFatalMpiErrorEndsTheJobAndNamesTheCall) {
  Result r = run({"-n", "3", g_mpi_abort, "fatal", "0"});
  EXPECT_NE(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("MPI_Send: dest = 8 is out of range: the communicator has 3 ranks"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 1 aborted the job"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
  expect_printed_lines(r, "rank", 3);
}

// MPI_APPNUM (MPI-2.2 §10.5.3) tells each rank of an MPMD job its program,
// and a split by it gives each program a communicator of its own ranks.
TEST(Mpirun, MpiAppnumNamesEachRanksProgram) {
  Result r = run({"-n", "1", g_mpi_appnum, ":", "-n", "2", g_mpi_appnum});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* line : {"rank 0 of 3: appnum 0, rank 0 of 1 in its program",
                           "rank 1 of 3: appnum 1, rank 0 of 2 in its program",
                           "rank 2 of 3: appnum 1, rank 1 of 2 in its program"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " in\n" << r.out;
  r = run({"-n", "2", g_mpi_appnum});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rank 1 of 2: appnum 0, rank 1 of 2 in its program"), std::string::npos) << r.out;
}

// Standard input goes to rank 0 alone (--stdin picks another rank, all or
// none), as under Open MPI's mpirun and MPICH's mpiexec: the others read
// /dev/null, so none takes rank 0's input, even when rank 0 reads late.
TEST(Qmprun, OnlyRankZeroReadsStandardInput) {
  const std::string reader =
      "[ $MESHMP_RANK = 0 ] && sleep 0.5; read x; echo \"$MESHMP_RANK:${x:-none}\"";
  for (const auto& [option, want] :
       std::vector<std::pair<std::string, std::string>>{{"", "0:line1 1:none 2:none "},
                                                        {"--stdin 2", "0:none 1:none 2:line1 "},
                                                        {"--stdin none", "0:none 1:none 2:none "}}) {
    Result r = run_program({"/bin/sh", "-c",
                            "printf 'line1\\nline2\\n' | \"$0\" " + option + " -n 3 /bin/sh -c '" + reader +
                                "' | sort | tr '\\n' ' '",
                            g_qmprun});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, want) << option;
  }
  Result r = run({"--stdin", "3", "-n", "3", g_probe, "env"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--stdin 3: the job has 3 ranks"), std::string::npos) << r.err;
}

TEST(Qmprun, MissingProgramIsReported) {
  Result r = run({"-n", "2", "/nonexistent/program"});
  EXPECT_EQ(r.status, 127);
  EXPECT_NE(r.err.find("cannot run /nonexistent/program"), std::string::npos) << r.err;
}

// ---- options typed from Open MPI's and MPICH's habits (issue 30) ----------------

TEST(QmprunOptions, OpenMpiAndMpichSpellingsAreTaken) {
  for (const std::vector<std::string>& opts :
       {std::vector<std::string>{"--oversubscribe", "--allow-run-as-root", "-np=2", "-genvall"},
        std::vector<std::string>{"-c", "2", "--map-by", "ppr:2:node", "--bind-to", "none"},
        std::vector<std::string>{"--np", "2", "-ppn", "2", "-H", "localhost"},
        // a host with its slots (Open MPI's host:N, MPICH's -hosts host:N), and IPv6's loopback
        std::vector<std::string>{"-np", "2", "-H", "localhost:4,::1", "-hosts", "127.0.0.1:2"},
        std::vector<std::string>{"-n2", "--map-by", "core", "--use-hwthread-cpus"},
        // one dash before a long option, as MPICH's and Open MPI's take it
        std::vector<std::string>{"-oversubscribe", "-bind-to", "none", "-map-by", "core", "-geometry", "2", "-np",
                                 "2"},
        // Open MPI's --prefix (its directory on remote nodes), MPICH's -launcher and -bootstrap
        std::vector<std::string>{"--prefix", "/usr/lib/x86_64-linux-gnu/openmpi", "-np", "2"},
        std::vector<std::string>{"-launcher", "fork", "-np", "2", "-bootstrap=ssh"}}) {
    std::vector<std::string> args = opts;
    args.insert(args.end(), {g_probe, "env"});
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << opts[0] << " " << r.err;
    EXPECT_NE(r.out.find("rank 1 of 2"), std::string::npos) << opts[0] << " " << r.out;
  }
  // A launcher that would not start the ranks at once (Hydra's "manual"
  // prints the commands) is refused by name.
  Result r = run({"-launcher", "manual", "-np", "2", g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("manual not in {fork,ssh,rsh,slurm}"), std::string::npos) << r.err;
}

TEST(QmprunOptions, EnvironmentForTheRanks) {
  Result r = run({"-x", "MM_A=one", "-genv", "MM_B", "two", "-env", "MM_C", "three", "-n", "2", "/bin/sh", "-c",
                  "echo \"$MESHMP_RANK:$MM_A:$MM_B:$MM_C\""});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("0:one:two:three"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1:one:two:three"), std::string::npos) << r.out;
  // The job's own variables win over -x: a rank is still its rank.
  r = run({"-x", "MESHMP_RANK=99", "-x", "MESHMP_SIZE=99", "-n", "2", "/bin/sh", "-c",
           "echo \"r$MESHMP_RANK/$MESHMP_SIZE\""});
  EXPECT_NE(r.out.find("r0/2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("r1/2"), std::string::npos) << r.out;
  // -x VAR passes the launcher's own value; so do MPICH's -genvlist and
  // -envlist for each VAR of a list.
  r = run_program({"/usr/bin/env", "MM_D=four", g_qmprun, "-x", "MM_D", "/bin/sh", "-c", "echo \"d=$MM_D\""});
  EXPECT_NE(r.out.find("d=four"), std::string::npos) << r.out << r.err;
  r = run_program({"/usr/bin/env", "MM_D=four", "MM_E=five", "MM_F=six", g_qmprun, "-genvlist", "MM_D,MM_E",
                   "-envlist", "MM_F", "/bin/sh", "-c", "echo \"$MM_D $MM_E $MM_F\""});
  EXPECT_NE(r.out.find("four five six"), std::string::npos) << r.out << r.err;
}

TEST(QmprunOptions, TheProgramsArgumentsAreLeftAlone) {
  Result r = run({"-n", "1", "/bin/echo", "-env", "-np=3", "-x", "--foo"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "-env -np=3 -x --foo\n");
  r = run({"-n", "1", "--", "/bin/sh", "-c", "echo after-dashes"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "after-dashes\n");
  // After a flag (an option without a value) the program begins: its
  // options are not qmprun's.
  for (const char* flag : {"--disable-auto-cleanup", "-disable-auto-cleanup", "--enable-recovery", "--oversubscribe",
                           "--allow-run-as-root", "-genvall", "--use-hwthread-cpus", "--merge-stderr-to-stdout"}) {
    r = run({"-n", "1", flag, "/bin/echo", "--foo", "-n", "2"});
    EXPECT_EQ(r.status, 0) << flag << ": " << r.err;
    EXPECT_EQ(r.out, "--foo -n 2\n") << flag;
  }
}

// MPMD (MPI-2.2 §8.8): programs separated by ":" are one job, ranks numbered
// program by program; after a ":" -n, -x, -env and --wdir are that
// program's, over what the options before the first program set for all.
TEST(QmprunOptions, SeveralProgramsSeparatedByColonsRunAsOneJob) {
  const std::string say = "echo \"$0 $MESHMP_RANK/$MESHMP_SIZE $MESHMP_APPNUM $MM_A:${MM_B:-none} $PWD\"";
  Result r = run({"-x", "MM_A=job", "--wdir", "/tmp", "-n", "1", "/bin/sh", "-c", say, "p1",  //
                  ":", "-n", "2", "-x", "MM_A=own", "--wdir", "/", "/bin/sh", "-c", say, "p2",      //
                  ":", "-np", "1", "-env", "MM_B", "b", "/bin/sh", "-c", say, "p3"});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* line : {"p1 0/4 0 job:none /tmp\n", "p2 1/4 1 own:none /\n", "p2 2/4 1 own:none /\n",
                           "p3 3/4 2 job:b /tmp\n"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " in\n" << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4) << r.out;
  // A colon inside a word is the program's.
  r = run({"-n", "1", "/bin/echo", "a:b", "::"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "a:b ::\n");
}

TEST(QmprunOptions, AProgramAfterAColonTakesOnlyItsOwnOptions) {
  const struct {
    std::vector<std::string> args;
    std::string said;
  } cases[] = {
      {{"-n", "1", g_probe, "env", ":", g_probe, "env"}, "needs its own -n; " + g_probe + " (program 2) has none"},
      {{"-n", "1", g_probe, "env", ":", "--geometry", "2", "-n", "1", g_probe, "env"},
       "--geometry after ':' number 1: a program there takes -n, -x, -env, --wdir and --host"},
      {{"-n", "1", g_probe, "env", ":", "-n", "1", g_probe, "env", ":"}, "no PROGRAM after ':' number 2"},
      {{"-n", "1", g_probe, "env", ":", "-n", "1", "-H", "node9.example", g_probe, "env"},
       "--host node9.example names another host"},
      {{"--geometry", "2x2", "-n", "1", g_probe, "env", ":", "-n", "2", g_probe, "env"},
       "geometry 2x2 has 4 nodes but -n is 3"},
  };
  for (const auto& c : cases) {
    Result r = run(c.args);
    EXPECT_EQ(r.status, 2) << c.said;
    EXPECT_NE(r.err.find(c.said), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("rank"), std::string::npos) << r.out;
  }
}

// Writes `text` to a fresh file under /tmp; the caller unlinks it.
std::string temp_file(const std::string& text) {
  char path[] = "/tmp/qmp-mesh-test-XXXXXX";
  const int fd = ::mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
  return path;
}

// A file of the programs, one a line (MPI-2.2 §8.8's -configfile, Open
// MPI's --app): each line as after a ':', split into words as a shell does.
TEST(QmprunOptions, AConfigfileNamesThePrograms) {
  const std::string say = "/bin/sh -c 'echo \"$0 $MESHMP_RANK/$MESHMP_SIZE $MESHMP_APPNUM ${MM:-none}\"'";
  const std::string good = temp_file("# ocean, then the atmosphere\n-n 1 " + say + " ocean\n\n  -np 2 -x MM=\"two words\" " +
                                     say + " atmos\n");
  for (const char* option : {"-configfile", "--app"}) {
    Result r = run({"-x", "MM=all", option, good});
    EXPECT_EQ(r.status, 0) << option << " " << r.err;
    for (const char* line : {"ocean 0/3 0 all\n", "atmos 1/3 1 two words\n", "atmos 2/3 1 two words\n"})
      EXPECT_NE(r.out.find(line), std::string::npos) << line << " in\n" << r.out;
  }
  const struct {
    std::string text;
    std::vector<std::string> more;
    std::string said;
  } bad[] = {
      {"-n 1 /bin/echo fine\n-n 1 /bin/echo 'unbalanced\n", {}, " line 2: cannot be split into words"},
      {"-n 1 /bin/echo $(id)\n", {}, " line 1: holds a command substitution, which is not run"},
      {"\n-n 1 --timeout 3 /bin/echo\n", {}, "--timeout "},
      {"# nothing\n", {}, " names no program"},
      {"-n 1 /bin/echo\n", {"-n", "2"}, " names the programs and their -n: give no PROGRAM, ':' or -n beside it"},
  };
  for (const auto& b : bad) {
    const std::string path = temp_file(b.text);
    std::vector<std::string> args = b.more;
    args.insert(args.end(), {"-configfile", path});
    Result r = run(args);
    ::unlink(path.c_str());
    EXPECT_EQ(r.status, 2) << b.text;
    EXPECT_NE(r.err.find(b.said), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(path), std::string::npos) << "the file is named: " << r.err;
    EXPECT_EQ(r.out, "") << b.text;
  }
  ::unlink(good.c_str());
}

// In a Slurm allocation outside a step (sbatch script, salloc shell) the
// allocation's tasks are the default -n where it is this host; where it is
// several hosts or another one, qmprun would crowd every rank here: refused.
TEST(QmprunOptions, ASlurmAllocationOfThisHostGivesTheDefaultRankCount) {
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  const std::vector<std::string> alloc = {"/usr/bin/env", "SLURM_JOB_ID=77", "SLURM_JOB_NUM_NODES=1",
                                          std::string("SLURM_JOB_NODELIST=") + host, "SLURM_NTASKS=3"};
  auto with = [&](std::vector<std::string> more, std::vector<std::string> args) {
    more.insert(more.begin(), alloc.begin(), alloc.end());
    more.push_back(g_qmprun);
    more.insert(more.end(), args.begin(), args.end());
    return run_program(more);
  };
  Result r = with({}, {g_probe, "env"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rank 2 of 3"), std::string::npos) << r.out;
  r = with({}, {"-n", "2", g_probe, "env"});  // -n wins
  EXPECT_NE(r.out.find("rank 1 of 2"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("of 3"), std::string::npos) << r.out;

  r = with({"SLURM_JOB_NUM_NODES=2"}, {"-n", "2", g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("this shell holds Slurm allocation 77 of 2 nodes, but qmprun starts ranks on this host only: "
                       "start the job with srun --mpi=pmix PROGRAM"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  r = with({"SLURM_JOB_NODELIST=login-elsewhere"}, {g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("allocation 77 on login-elsewhere but runs on " + std::string(host)), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "");
  // On the allocated node (a batch script: SLURMD_NODENAME) it runs.
  r = with({"SLURM_JOB_NODELIST=n01", "SLURMD_NODENAME=n01"}, {g_probe, "env"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rank 2 of 3"), std::string::npos) << r.out;
  // Inside a job step (srun -n 1 qmprun ...) the allocation is not qmprun's.
  r = with({"SLURM_JOB_NUM_NODES=2", "SLURM_STEP_ID=0"}, {g_probe, "env"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rank 0 of 1"), std::string::npos) << r.out;
}

TEST(QmprunOptions, AnUnknownOptionIsAnErrorAndStartsNothing) {
  Result r = run({"--frobnicate", "-n", "2", g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown option --frobnicate (see qmprun --help)"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("rank"), std::string::npos) << r.out;
  // Open MPI's MCA parameters: refused, saying where meshmp's settings are.
  r = run({"--mca", "btl", "self,vader", "-n", "1", g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--mca sets Open MPI's parameters, which meshmp does not read"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  // An unknown option before others: named, not read as their values
  // (once "-np 2" after it was taken as "-n p").
  for (const char* unknown : {"--display-map", "-q", "--nolocal"}) {
    r = run({unknown, "-np", "2", g_probe, "env"});
    EXPECT_EQ(r.status, 2) << unknown;
    EXPECT_EQ(r.err, "qmprun: unknown option " + std::string(unknown) + " (see qmprun --help)\n");
  }
  r = run({"--mca", "btl", "self", "-np", "2", g_probe, "env"});
  EXPECT_NE(r.err.find("--mca sets Open MPI's parameters"), std::string::npos) << r.err;
  // Not taken for "-l" (MPICH's label flag) and letters after it.
  r = run({"-localonly", "-n", "1", g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown option -localonly (see qmprun --help)"), std::string::npos) << r.err;
  r = run({"--map-by", "diagonal", "-n", "1", g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--map-by diagonal"), std::string::npos) << r.err;
  // --version (also -V), as `mpirun --version` tells which MPI is first in PATH.
  for (const char* v : {"--version", "-V", "-version"}) {
    r = run({v});
    EXPECT_EQ(r.status, 0) << v;
    EXPECT_EQ(r.out.rfind("qmprun (meshmp): MPI 1.1 with MPI-2.2/3.1 additions, QMP 2.5.", 0), 0u) << v << r.out;
  }
  r = run({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("PROGRAM [ARGS...] follow the options"), std::string::npos) << r.out;
}

// A program built with another MPI ran as N jobs of one rank, each "rank 0
// of 1". The stand-in here needs a library of Open MPI's name,
// libmpi.so.40, which the test builds; meshmp's programs (every other test)
// need its unversioned libmpi.so or none.
TEST(QmprunOptions, AProgramOfAnotherMpiIsRefusedUnlessItIsOneRank) {
  char tmpl[] = "/tmp/meshmp-foreign-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  struct Remove {
    std::string dir;
    ~Remove() { (void)std::system(("rm -rf " + dir).c_str()); }
  } remove{dir};
  const std::string build =
      "cd " + dir +
      " && echo 'int other_mpi(void) { return 0; }' > lib.c"
      " && cc -shared -fPIC -o libmpi.so.40 -Wl,-soname,libmpi.so.40 lib.c"
      " && echo 'int other_mpi(void); int main(void) { return other_mpi(); }' > prog.c"
      " && cc -o prog prog.c ./libmpi.so.40 -Wl,-rpath," + dir;
  ASSERT_EQ(std::system(build.c_str()), 0) << build;
  const std::string prog = dir + "/prog";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-n", "2", prog}, std::vector<std::string>{"-n", "1", g_probe, "env", ":", "-n", "1", prog}}) {
    Result r = run(args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(prog + " was built with another MPI (it needs libmpi.so.40; meshmp's is libmpi.so): started "
                                "by qmprun, each of its ranks would run alone, as rank 0 of 1."),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out, "");
  }
  // One rank of it is what it would be anyway.
  Result r = run({"-n", "1", prog});
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(QmprunOptions, OtherHostsAreRefusedWithWhereToGo) {
  Result r = run({"--host", "node17.example", "-n", "1", g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--host node17.example names another host"), std::string::npos) << r.err;
  r = run({"--host", "localhost:2,node17.example:2", "-n", "1", g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--host node17.example:2 names another host"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("srun --mpi=pmix"), std::string::npos) << r.err;
  char path[] = "/tmp/meshmp-hostfile-XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = "# this host, then another\nlocalhost slots=2\nnode18:4\n";
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
  r = run({"-machinefile", path, "-n", "1", g_probe, "env"});
  ::unlink(path);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("line 3 (node18)"), std::string::npos) << r.err;
}

// Without -n, the slots -H or a hostfile give this host are the job, as
// Open MPI's mpirun and MPICH's mpiexec take them (`mpirun --hostfile
// $PBS_NODEFILE ./prog`, the host once per slot; "slots=N"; "host:N").
TEST(QmprunOptions, TheSlotsOfThisHostGiveTheDefaultRankCount) {
  const std::string size = "echo size=$MESHMP_SIZE";
  Result r = run({"-H", "localhost:3", "/bin/sh", "-c", size});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "size=3\nsize=3\nsize=3\n");
  r = run({"-H", "localhost,127.0.0.1", "/bin/sh", "-c", size});
  EXPECT_EQ(r.out, "size=2\nsize=2\n") << r.err;
  const std::string path =
      temp_file("localhost\nlocalhost  # a PBS_NODEFILE's line per slot\nlocalhost slots=2 max_slots=8\n");
  r = run({"--hostfile", path, "/bin/sh", "-c", size});
  EXPECT_EQ(r.out, "size=4\nsize=4\nsize=4\nsize=4\n") << r.err;
  r = run({"--hostfile", path, "-n", "1", "/bin/sh", "-c", size});  // -n counts
  EXPECT_EQ(r.out, "size=1\n") << r.err;
  ::unlink(path.c_str());
  r = run({"-H", "localhost:0", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--host localhost:0: the slots are not a positive number"), std::string::npos) << r.err;
}

// The value after `tag` in `text`, to the end of its line ("" if absent).
std::string after(const std::string& text, const std::string& tag) {
  const std::size_t at = text.find(tag);
  if (at == std::string::npos) return "";
  const std::size_t from = at + tag.size();
  return text.substr(from, text.find('\n', from) - from);
}

// --bind-to core, and --report-bindings saying what the kernel says.
TEST(QmprunOptions, BindToCorePutsEachRankOnItsOwnCpu) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  if (CPU_COUNT(&mine) < 2) GTEST_SKIP() << "one CPU";
  Result r = run({"--bind-to", "core", "--report-bindings", "-n", "2", "--tag-output", "/bin/sh", "-c",
                  "grep Cpus_allowed_list /proc/self/status"});
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> cpus;
  for (const char* rank : {"0", "1"}) {
    const std::string cpu = after(r.out, "[" + std::string(rank) + "] Cpus_allowed_list:\t");
    EXPECT_EQ(cpu.find_first_of("-,"), std::string::npos) << "one CPU each: " << r.out;
    EXPECT_NE(cpu, "") << r.out;
    EXPECT_NE(r.err.find("[" + std::string(rank) + "] qmprun: rank " + rank + " (pid "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(") bound to CPU " + cpu + "\n"), std::string::npos) << r.err;
    cpus.push_back(cpu);
  }
  EXPECT_NE(cpus[0], cpus[1]);
  // Unbound: every CPU qmprun may use, as Linux lists them.
  r = run({"--report-bindings", "-n", "1", "/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status"});
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string all = after(r.out, "Cpus_allowed_list:\t");
  EXPECT_NE(all.find_first_of("-,"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(") not bound, on CPUs " + all + "\n"), std::string::npos) << r.err;
}

// A CPU list as Linux writes it ("0-3,8") as the CPUs' numbers.
std::set<int> cpu_list(const std::string& list) {
  std::set<int> cpus;
  std::istringstream in(list);
  std::string range;
  while (std::getline(in, range, ',')) {
    if (range.empty()) continue;
    const std::size_t dash = range.find('-');
    const int first = std::stoi(range.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
    for (int c = first; c <= last; ++c) cpus.insert(c);
  }
  return cpus;
}

// The first line of a file ("" if it cannot be read).
std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Each rank's Cpus_allowed_list under `options` (-n ranks, tagged output).
std::vector<std::set<int>> bound_cpus(std::vector<std::string> options, int ranks, std::string* err = nullptr) {
  options.insert(options.end(), {"-n", std::to_string(ranks), "--tag-output", "--report-bindings", "/bin/sh", "-c",
                                 "grep Cpus_allowed_list /proc/self/status"});
  Result r = run(options);
  EXPECT_EQ(r.status, 0) << r.err;
  if (err) *err = r.err;
  std::vector<std::set<int>> cpus;
  for (int k = 0; k < ranks; ++k)
    cpus.push_back(cpu_list(after(r.out, "[" + std::to_string(k) + "] Cpus_allowed_list:\t")));
  return cpus;
}

// Cores per rank (Open MPI's --map-by slot:PE=N and --cpus-per-rank N,
// MPICH's -bind-to core:N), and binding to the rank's socket or NUMA node,
// checked against what Linux says of each CPU (/sys/devices/system).
TEST(QmprunOptions, BindToSeveralCoresOrTheSocketOrTheNumaNode) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  std::set<int> allowed;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &mine)) allowed.insert(c);
  // Cores with one hardware thread each, as on the machines CI runs on.
  bool one_thread_each = true;
  for (int c : allowed)
    one_thread_each &= cpu_list(first_line("/sys/devices/system/cpu/cpu" + std::to_string(c) +
                                           "/topology/thread_siblings_list")).size() == 1;
  if (allowed.size() >= 2 && one_thread_each) {
    for (const std::vector<std::string>& opts :
         {std::vector<std::string>{"--map-by", "slot:PE=2"}, std::vector<std::string>{"--cpus-per-rank", "2"},
          std::vector<std::string>{"-bind-to", "core:2"}, std::vector<std::string>{"--map-by", "ppr:1:node:pe=2"}}) {
      std::string err;
      const std::vector<std::set<int>> cpus = bound_cpus(opts, 1, &err);
      EXPECT_EQ(cpus[0], (std::set<int>{*allowed.begin(), *std::next(allowed.begin())})) << opts[0] << " " << opts[1];
      EXPECT_NE(err.find(") bound to CPUs "), std::string::npos) << err;
    }
  }
  // A socket or NUMA node: every CPU qmprun may use that Linux puts in the
  // same package (node) as the rank's, and no other.
  const auto package_of = [](int c) {
    return first_line("/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/physical_package_id");
  };
  const auto node_of = [](int c) {
    for (int n = 0; n < 1024; ++n) {
      const std::string list = first_line("/sys/devices/system/node/node" + std::to_string(n) + "/cpulist");
      if (cpu_list(list).count(c)) return std::to_string(n);
    }
    return std::string("none");
  };
  for (const auto& [object, of] : {std::pair<std::string, std::function<std::string(int)>>{"socket", package_of},
                                   {"numa", node_of}}) {
    for (const std::set<int>& cpus : bound_cpus({"--bind-to", object}, 2)) {
      ASSERT_FALSE(cpus.empty()) << object;
      std::set<int> same;
      for (int c : allowed)
        if (of(c) == of(*cpus.begin())) same.insert(c);
      EXPECT_EQ(cpus, same) << object;
    }
  }
  // qmprun itself kept to one CPU (taskset, an outer launcher's binding):
  // its ranks are bound within it, not to the host's first cores.
  const std::string last = std::to_string(*allowed.rbegin());
  Result r = run_program({"/usr/bin/taskset", "-c", last, g_qmprun, "--bind-to", "core", "-n", "2", "--tag-output",
                          "/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(after(r.out, "[0] Cpus_allowed_list:\t"), last) << r.out;
  EXPECT_EQ(after(r.out, "[1] Cpus_allowed_list:\t"), last) << r.out;
  // Values no launcher takes are refused, naming them.
  r = run({"--bind-to", "l3cache", "-n", "1", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--bind-to l3cache: not core, hwthread, socket, package, numa or none"), std::string::npos)
      << r.err;
  r = run({"--map-by", "core:PE=x", "-n", "1", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--map-by core:PE=x: unknown modifier PE=x"), std::string::npos) << r.err;
}

// --map-by socket deals bound ranks round the sockets (Open MPI's mpirun(1)).
// The host is hwloc's synthetic one ($HWLOC_SYNTHETIC): two sockets of two
// cores, the first socket's CPUs numbered 0 and 2, the second's 1 and 3. So
// ranks 0 and 1 go to CPUs 0 and 1 mapped by socket, and to 0 and 2 in core
// order; this machine has no CPU 2 for the latter.
TEST(QmprunOptions, MapBySocketDealsRanksRoundTheSockets) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  if (!CPU_ISSET(0, &mine) || !CPU_ISSET(1, &mine)) GTEST_SKIP() << "needs CPUs 0 and 1";
  for (const char* map : {"socket", "package", "numa"}) {
    const std::string host = std::string(map) == "numa" ? "numa:2 core:2 pu:1(indexes=0,2,1,3)"
                                                        : "package:2 core:2 pu:1(indexes=0,2,1,3)";
    const Result r = run_program({"/usr/bin/env", "HWLOC_SYNTHETIC=" + host, g_qmprun, "-n", "2", "--map-by", map,
                                  "--bind-to", "core", "--tag-output", "/bin/sh", "-c",
                                  "grep Cpus_allowed_list /proc/self/status"});
    EXPECT_EQ(r.status, 0) << map << ": " << r.err;
    EXPECT_EQ(after(r.out, "[0] Cpus_allowed_list:\t"), "0") << map << ": " << r.out;
    EXPECT_EQ(after(r.out, "[1] Cpus_allowed_list:\t"), "1") << map << ": " << r.out;
  }
}

// Open MPI's -N K and --map-by ppr:K:node, MPICH's -ppn K: K ranks on each
// node. Without -n, on this one host, that is the job (it was 1 rank).
TEST(QmprunOptions, RanksPerNodeWithoutNIsTheRankCount) {
  for (const std::vector<std::string>& opts :
       {std::vector<std::string>{"-N", "3"}, std::vector<std::string>{"--npernode", "3"},
        std::vector<std::string>{"-ppn", "3"}, std::vector<std::string>{"--map-by", "ppr:3:node"}}) {
    std::vector<std::string> args = opts;
    args.insert(args.end(), {g_probe, "env"});
    Result r = run(args);
    EXPECT_EQ(r.status, 0) << opts[0] << " " << r.err;
    EXPECT_NE(r.out.find("rank 2 of 3"), std::string::npos) << opts[0] << " " << r.out;
  }
  // With -n, -n counts.
  Result r = run({"-N", "3", "-n", "2", g_probe, "env"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rank 1 of 2"), std::string::npos) << r.out;
}

// Open MPI's --output-filename DIR (DIR/1/rank.R/stdout and stderr, and the
// terminal as before), --merge-stderr-to-stdout, MPICH's -outfile-pattern
// and -errfile-pattern (files instead of the terminal).
TEST(QmprunOptions, OutputToFilesAsOpenMpiAndMpichWriteIt) {
  char tmpl[] = "/tmp/meshmp-output-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const auto contents = [](const std::string& path) {
    std::ifstream in(path);
    return in ? std::string(std::istreambuf_iterator<char>(in), {}) : std::string("(none)");
  };
  const std::string say = "echo out $MESHMP_RANK; echo err $MESHMP_RANK >&2";
  Result r = run({"--output-filename", dir + "/a", "-n", "2", "/bin/sh", "-c", say});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* k : {"0", "1"}) {
    const std::string rank = dir + "/a/1/rank." + k + "/";
    EXPECT_EQ(contents(rank + "stdout"), "out " + std::string(k) + "\n");
    EXPECT_EQ(contents(rank + "stderr"), "err " + std::string(k) + "\n");
    EXPECT_NE(r.out.find("out " + std::string(k) + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("err " + std::string(k) + "\n"), std::string::npos) << r.err;
  }
  r = run({"--output-filename", dir + "/b", "--merge-stderr-to-stdout", "-n", "1", "/bin/sh", "-c", say});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(contents(dir + "/b/1/rank.0/stdout"), "out 0\nerr 0\n");
  EXPECT_EQ(contents(dir + "/b/1/rank.0/stderr"), "(none)");
  EXPECT_EQ(r.out, "out 0\nerr 0\n");
  r = run({"-outfile-pattern", dir + "/o.%r", "-errfile-pattern", dir + "/e.%r.%%", "-n", "2", "/bin/sh", "-c", say});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(contents(dir + "/o.1"), "out 1\n");
  EXPECT_EQ(contents(dir + "/e.1.%"), "err 1\n");
  r = run({"-outfile-pattern", dir + "/o.%q", "-n", "1", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("%q is not %r (rank), %h (host) or %%"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
  // A value CLI11 refuses ends qmprun with 2, as an unknown option does.
  r = run({"--provider", "carrier-pigeon", "-n", "1", "/bin/true"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("carrier-pigeon not in {auto,shm,tcp,ofi}"), std::string::npos) << r.err;
}

// What a wrapper script reads before it starts the program (to pick a GPU
// or a NUMA domain by the rank's place on its host): meshmp's names, Open
// MPI's (mpirun(1), "Exported Environment Variables") and MPICH Hydra's.
// On this one host every rank is local; -x cannot change them.
TEST(QmprunOptions, RanksSeeTheirLocalRankUnderEachLaunchersNames) {
  Result r = run({"-x", "OMPI_COMM_WORLD_LOCAL_RANK=9", "-n", "3", "/bin/sh", "-c",
                  "echo \"r$MESHMP_RANK: $MESHMP_LOCAL_RANK/$MESHMP_LOCAL_SIZE"
                  " $OMPI_COMM_WORLD_RANK/$OMPI_COMM_WORLD_SIZE $OMPI_COMM_WORLD_LOCAL_RANK/$OMPI_COMM_WORLD_LOCAL_SIZE"
                  " $OMPI_COMM_WORLD_NODE_RANK $OMPI_UNIVERSE_SIZE $MPI_LOCALRANKID/$MPI_LOCALNRANKS\""});
  EXPECT_EQ(r.status, 0) << r.err;
  for (int k = 0; k < 3; ++k) {
    const std::string s = std::to_string(k);
    EXPECT_NE(r.out.find("r" + s + ": " + s + "/3 " + s + "/3 " + s + "/3 " + s + " 3 " + s + "/3\n"), std::string::npos)
        << r.out;
  }
}

TEST(QmpMesh, CheckPrintsASummary) {
  Result r = run_program({g_qmp_mesh, "check", "configs/jlab-4x8x8.toml"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ok: 3-D torus 4x8x8, 256 nodes, fabric mesh, eager limit 16384 bytes"), std::string::npos)
      << r.out;
}

TEST(QmpMesh, ShowListsCoordinatesNeighboursAndInterfaces) {
  Result r = run_program({g_qmp_mesh, "show", "configs/test-2x2x2.toml"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rank 7 host node7 coords (1,1,1)  x+->6 via eth1  x-->6 via eth2"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("z+->3 via eth5"), std::string::npos) << r.out;
}

TEST(QmpMesh, ABadFileIsRejectedWithFileLineAndKey) {
  char path[] = "/tmp/qmp-mesh-test-XXXXXX";
  int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text = "[mesh]\ndims = [2, 2]\nfabric = \"ring\"\n";
  ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fd);
  Result r = run_program({g_qmp_mesh, "check", path});
  ::unlink(path);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(std::string(path) + ":3: mesh.fabric: must be \"mesh\" or \"switched\""), std::string::npos)
      << r.err;
}


// Issue 16, then 31: on a fabric = "mesh" config only neighbours are cabled;
// traffic to a non-neighbour is routed through neighbours by the forwarding
// agent -- delivered, with no notice, and no rank opens a link to a rank
// that is not its neighbour (MESHMP_STATS lists every link a rank opened:
// three directions, two links each on a 2x2x2 torus). Without a mesh
// fabric, a direct link carries it.
TEST(Qmprun, NonNeighbourTrafficOnAMeshFabricIsRoutedThroughNeighbours) {
  Result r = run({"-x", "MESHMP_STATS=1", "--config", "configs/test-2x2x2.toml", "--timeout", "30", g_probe, "far"});
  EXPECT_EQ(r.status, 0) << r.err;
  int ok = 0;
  for (std::size_t p = 0; (p = r.out.find(": far ok", p)) != std::string::npos; ++p) ++ok;
  EXPECT_EQ(ok, 8) << r.out;
  EXPECT_EQ(r.err.find("fabric = \"mesh\""), std::string::npos) << r.err;
  const std::string links = "meshmp stats: rank 0 shm 0<->";
  int opened = 0;
  for (std::size_t p = 0; (p = r.err.find(links, p)) != std::string::npos; ++p) {
    ++opened;
    const int peer = std::atoi(r.err.c_str() + p + links.size());
    EXPECT_TRUE(peer == 1 || peer == 2 || peer == 4) << "rank 0 opened a link to rank " << peer;
  }
  EXPECT_EQ(opened, 6) << r.err;
  long relayed = 0;
  for (std::size_t p = 0; (p = r.err.find(", relayed ", p)) != std::string::npos; ++p)
    relayed += std::atol(r.err.c_str() + p + 10);
  EXPECT_GT(relayed, 0) << "no rank relayed a frame: " << r.err;

  Result plain = run({"-x", "MESHMP_STATS=1", "--geometry", "2x2x2", "-n", "8", "--timeout", "30", g_probe, "far"});
  EXPECT_EQ(plain.status, 0) << plain.err;
  EXPECT_NE(plain.err.find("meshmp stats: rank 0 shm 0<->7 #0"), std::string::npos) << plain.err;
}

// Issue 15, item 10: hostile configs are refused with file, line and key by
// both tools, before anything is started.
TEST(QmpMesh, DeeplyNestedDevicesAndDirectoriesAreRefused) {
  const std::string deep = temp_file("[mesh]\ndims = [2]\nfabric = \"switched\"\nx = " + std::string(10000, '[') + "\n");
  Result check = run_program({g_qmp_mesh, "check", deep});
  Result launch = run({"--config", deep, g_probe, "env"});
  ::unlink(deep.c_str());
  EXPECT_EQ(check.status, 1);
  EXPECT_NE(check.err.find(deep + ":4: x: nested more than 32 deep"), std::string::npos) << check.err;
  EXPECT_EQ(launch.status, 2);
  EXPECT_NE(launch.err.find(deep + ":4: x: nested more than 32 deep"), std::string::npos) << launch.err;
  Result zero = run_program({g_qmp_mesh, "check", "/dev/zero"});
  EXPECT_EQ(zero.status, 1);
  EXPECT_NE(zero.err.find("/dev/zero:0: (file): is not a regular file"), std::string::npos) << zero.err;
  Result dir = run_program({g_qmp_mesh, "check", "/tmp"});
  EXPECT_EQ(dir.status, 1);
  EXPECT_NE(dir.err.find("/tmp:0: (file): is a directory"), std::string::npos) << dir.err;
}

TEST(Qmprun, AMillionNodeConfigIsRefusedUnlessAskedFor) {
  const std::string big = temp_file("[mesh]\ndims = [1000, 1000]\nfabric = \"switched\"\n");
  Result r = run({"--config", big, g_probe, "env"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("config " + big + " has 1000000 nodes, more than the 256 ranks qmprun starts on one host"),
            std::string::npos)
      << r.err;
  EXPECT_LT(r.seconds, 10);
  EXPECT_EQ(count_probes(), 0);
  ::unlink(big.c_str());
  Result n = run({"-n", "3", "--max-ranks", "2", g_probe, "env"});
  EXPECT_EQ(n.status, 2);
  EXPECT_NE(n.err.find("-n 3 is more than the 2 ranks qmprun starts on one host; raise --max-ranks"),
            std::string::npos)
      << n.err;
  Result g = run({"--geometry", "3x1", "--max-ranks", "3", g_probe, "env"});
  EXPECT_EQ(g.status, 0) << g.err;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc != 8) {
    std::fprintf(stderr,
                 "usage: launcher_test QMPRUN JOB_PROBE QMP_MESH QMP_ABORT_PROBE MPI_ABORT_PROBE MPI_APPNUM_PROBE "
                 "MPI_DEAD_PEER_PROBE\n");
    return 2;
  }
  g_qmp_abort = argv[4];
  g_mpi_abort = argv[5];
  g_mpi_appnum = argv[6];
  g_mpi_dead_peer = argv[7];
  g_qmprun = argv[1];
  g_probe = argv[2];
  g_qmp_mesh = argv[3];
  return RUN_ALL_TESTS();
}
