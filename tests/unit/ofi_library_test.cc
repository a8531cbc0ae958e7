// What loading libfabric at run time brings into a meshmp program (issue
// 28). A binary of its own: this one must not link libfabric, as meshmp's
// programs do not (ofi_provider_test links it for its bare client).
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "mesh/providers/ofi/ofi_library.h"

namespace meshmp::mesh {
namespace {

// Loading libfabric loads PSM's libinfinipath, which installs a handler
// that writes "<program>.<time>-<pid>,<host>.btr" into the working
// directory when the process crashes: a job that uses ofi must not litter
// its users' directories with them.
TEST(OfiLibrary, ACrashAfterLoadingItLeavesNoFileBehind) {
  char dir[] = "/tmp/ofi-crash-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::chdir(dir) != 0) ::_exit(2);
    ofi::lib();
    std::abort();
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) << status;
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir)) left.push_back(e.path().filename());
  for (const auto& f : left) std::filesystem::remove(std::filesystem::path(dir) / f);
  ::rmdir(dir);
  EXPECT_TRUE(left.empty()) << "left behind: " << (left.empty() ? "" : left[0]);
}

}  // namespace
}  // namespace meshmp::mesh
