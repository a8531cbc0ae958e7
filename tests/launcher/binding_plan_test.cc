// qmprun's binding plan (tools/qmprun/binding.h) on hosts this machine is
// not: hwloc reads the host from $HWLOC_SYNTHETIC, a description such as
// "package:2 core:4 pu:2" (two sockets of four cores of two hardware
// threads; hwloc numbers the PUs 0-15 in that order). The expected CPU sets
// are worked out by hand from Open MPI's mpirun(1): --map-by socket deals
// ranks round the sockets, each taking the next free cores of its socket.
// Open MPI 4.1.4 agrees on every case it accepts (`HWLOC_SYNTHETIC=...
// mpirun --map-by socket --bind-to core --report-bindings --do-not-launch`);
// it refuses the wrap-round one.
#include <gtest/gtest.h>
#include <sched.h>
#include <stdlib.h>

#include <set>
#include <vector>

#include "tools/qmprun/binding.h"

namespace meshmp::tools {
namespace {

std::set<int> cpus(const cpu_set_t& s) {
  std::set<int> out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &s)) out.insert(c);
  return out;
}

std::vector<std::set<int>> plan(const char* host, int nranks, BindTo bind, MapBy map, int per_rank = 1,
                                bool hwthreads = false) {
  ::setenv("HWLOC_SYNTHETIC", host, 1);
  std::vector<std::set<int>> out;
  for (const cpu_set_t& s : plan_bindings(nranks, bind, map, per_rank, hwthreads)) out.push_back(cpus(s));
  ::unsetenv("HWLOC_SYNTHETIC");
  return out;
}

using Sets = std::vector<std::set<int>>;
constexpr const char* kTwoSockets = "package:2 core:4 pu:2";  // cores 0-3 on socket 0: PUs 0-7

TEST(BindingPlan, CoreOrderFillsTheFirstSocketFirst) {
  EXPECT_EQ(plan(kTwoSockets, 3, BindTo::kCore, MapBy::kCore), (Sets{{0, 1}, {2, 3}, {4, 5}}));
}

TEST(BindingPlan, MapBySocketDealsRanksRoundTheSockets) {
  EXPECT_EQ(plan(kTwoSockets, 4, BindTo::kCore, MapBy::kPackage), (Sets{{0, 1}, {8, 9}, {2, 3}, {10, 11}}));
  EXPECT_EQ(plan(kTwoSockets, 3, BindTo::kHwthread, MapBy::kPackage), (Sets{{0}, {8}, {1}}));
  // --bind-to socket: each rank its socket's 8 threads.
  const std::set<int> s0{0, 1, 2, 3, 4, 5, 6, 7}, s1{8, 9, 10, 11, 12, 13, 14, 15};
  EXPECT_EQ(plan(kTwoSockets, 3, BindTo::kPackage, MapBy::kPackage), (Sets{s0, s1, s0}));
}

TEST(BindingPlan, MapBySocketWithSeveralCoresPerRank) {
  // --map-by socket:PE=2: two cores each, the next two of the rank's socket.
  EXPECT_EQ(plan(kTwoSockets, 4, BindTo::kCore, MapBy::kPackage, 2),
            (Sets{{0, 1, 2, 3}, {8, 9, 10, 11}, {4, 5, 6, 7}, {12, 13, 14, 15}}));
}

TEST(BindingPlan, MoreRanksThanASocketHasWrapRoundItsCores) {
  const Sets p = plan("package:2 core:2 pu:1", 6, BindTo::kCore, MapBy::kPackage);
  EXPECT_EQ(p, (Sets{{0}, {2}, {1}, {3}, {0}, {2}}));
}

TEST(BindingPlan, MapByNumaDealsRanksRoundTheNumaNodes) {
  // One socket of two NUMA nodes (cores 0-1 and 2-3).
  EXPECT_EQ(plan("package:1 numa:2 core:2 pu:1", 4, BindTo::kCore, MapBy::kNuma), (Sets{{0}, {2}, {1}, {3}}));
  EXPECT_EQ(plan("package:1 numa:2 core:2 pu:1", 2, BindTo::kNuma, MapBy::kNuma), (Sets{{0, 1}, {2, 3}}));
  // Mapped by socket, both ranks are on the one socket.
  EXPECT_EQ(plan("package:1 numa:2 core:2 pu:1", 2, BindTo::kCore, MapBy::kPackage), (Sets{{0}, {1}}));
}

TEST(BindingPlan, AHostWithoutTheObjectMappedByIsOneDomain) {
  // A synthetic host of cores alone shows no NUMA node but the machine's.
  EXPECT_EQ(plan("core:3 pu:1", 4, BindTo::kCore, MapBy::kNuma), (Sets{{0}, {1}, {2}, {0}}));
}

}  // namespace
}  // namespace meshmp::tools
