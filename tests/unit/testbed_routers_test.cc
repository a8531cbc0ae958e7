// tools/qmp-mesh/routers: `net down` reads /proc/<pid>/stat of daemons that
// may end while it looks.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"
#include "tools/qmp-mesh/routers.h"

namespace meshmp::tools {
namespace {

// A child named meshrouted (its comm, as /proc/<pid>/stat shows it) that
// waits to be killed; returned once it has its name. It dies with this
// process, and by itself after 60 s (SIGALRM), whatever the test does.
pid_t fake_meshrouted() {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::alarm(60);
    ::prctl(PR_SET_NAME, "meshrouted");
    const char c = 1;
    if (::write(ready[1], &c, 1) != 1) ::_exit(1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c;
  const bool named = pid > 0 && ::read(ready[0], &c, 1) == 1;
  ::close(ready[0]);
  return named ? pid : -1;
}

int open_stat(pid_t pid) { return ::open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC); }

TEST(TestbedRouters, ARunningDaemonIsSeenAndAZombieIsNot) {
  const pid_t pid = fake_meshrouted();
  ASSERT_GT(pid, 0);
  const int running = open_stat(pid);
  ASSERT_GE(running, 0);
  EXPECT_TRUE(stat_is_running_meshrouted(running));
  ::close(running);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  siginfo_t info{};
  ASSERT_EQ(::waitid(P_PID, pid, &info, WEXITED | WNOWAIT), 0);  // a zombie, not reaped
  const int fd = open_stat(pid);
  ASSERT_GE(fd, 0);
  EXPECT_FALSE(stat_is_running_meshrouted(fd));
  ::close(fd);
  ASSERT_EQ(::waitpid(pid, nullptr, 0), pid);
}

// The race `net down` met (tests/netns interrupt, 2026-11-29): the daemon
// exits and is reaped between the open and the read, which then fails with
// ESRCH. std::ifstream threw there ("basic_filebuf::underflow error reading
// the file: No such process") and `net down` stopped, leaving the testbed.
TEST(TestbedRouters, ADaemonGoneBetweenOpenAndReadIsNotRunning) {
  const pid_t pid = fake_meshrouted();
  ASSERT_GT(pid, 0);
  const int fd = open_stat(pid);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  ASSERT_EQ(::waitpid(pid, nullptr, 0), pid);
  char c;
  ASSERT_LT(::pread(fd, &c, 1, 0), 0) << "reading a reaped process's stat no longer fails: the case is gone";
  EXPECT_FALSE(stat_is_running_meshrouted(fd));
  ::close(fd);
}

}  // namespace
}  // namespace meshmp::tools
