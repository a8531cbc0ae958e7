// libfabric is loaded only by a job that uses it (issue 28): loading it
// loads every libfabric provider's libraries, and one of them (PSM's)
// spends 0.2 s calibrating a timer -- which every meshmp program paid at
// start while libfabric was linked. EXPECT_LIBFABRIC says which case this is.
#include <cstdlib>
#include <fstream>
#include <string>

#include "tests/mp/rank_main.h"

namespace meshmp {
namespace {

bool libfabric_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libfabric.so") != std::string::npos) return true;
  return false;
}

TEST(Libfabric, IsLoadedOnlyByAJobThatUsesIt) {
  testing::engine();  // started: its providers are open
  const char* expect = std::getenv("EXPECT_LIBFABRIC");
  ASSERT_NE(expect, nullptr);
  EXPECT_EQ(libfabric_mapped(), std::string(expect) == "1");
}

}  // namespace
}  // namespace meshmp

MESHMP_RANK_TEST_MAIN()
