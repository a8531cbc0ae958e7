// Intercommunicators (MPI-1.1 §5.6) between two groups of different sizes:
// the first third of the world (at least one rank) and the rest.
#include <algorithm>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::rank;
using mpitest::size;

struct Sides {
  MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  bool low = false;  // in the first third
  int low_size = 0;
};

// Local leaders are local rank 0: world ranks 0 and low_size.
Sides make_sides() {
  Sides s;
  s.low_size = std::max(1, size() / 3);
  s.low = rank() < s.low_size;
  MPI_Comm_split(MPI_COMM_WORLD, s.low ? 0 : 1, rank(), &s.local);
  const int remote_leader = s.low ? s.low_size : 0;
  EXPECT_EQ(MPI_Intercomm_create(s.local, 0, MPI_COMM_WORLD, remote_leader, 77, &s.inter), MPI_SUCCESS);
  return s;
}

void free_sides(Sides& s) {
  MPI_Comm_free(&s.inter);
  MPI_Comm_free(&s.local);
}

TEST(Intercomm, SizesGroupsAndTest) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  int flag, n, rn;
  MPI_Comm_test_inter(s.inter, &flag);
  EXPECT_TRUE(flag);
  MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
  EXPECT_FALSE(flag);
  MPI_Comm_size(s.inter, &n);
  MPI_Comm_remote_size(s.inter, &rn);
  EXPECT_EQ(n, s.low ? s.low_size : size() - s.low_size);
  EXPECT_EQ(rn, s.low ? size() - s.low_size : s.low_size);
  MPI_Group remote, world;
  MPI_Comm_remote_group(s.inter, &remote);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> in(rn), out(rn);
  for (int i = 0; i < rn; ++i) in[i] = i;
  MPI_Group_translate_ranks(remote, rn, in.data(), world, out.data());
  for (int i = 0; i < rn; ++i) EXPECT_EQ(out[i], s.low ? s.low_size + i : i);
  MPI_Group_free(&remote);
  MPI_Group_free(&world);
  free_sides(s);
}

// Every process sends its world rank to every remote rank; sources in the
// statuses are remote ranks.
TEST(Intercomm, PointToPointNamesRemoteRanks) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  int rn, me;
  MPI_Comm_remote_size(s.inter, &rn);
  MPI_Comm_rank(s.inter, &me);
  const int world_me = rank();
  std::vector<MPI_Request> sends(rn);
  for (int r = 0; r < rn; ++r) MPI_Isend(&world_me, 1, MPI_INT, r, 5, s.inter, &sends[r]);
  const int remote_base = s.low ? s.low_size : 0;
  for (int k = 0; k < rn; ++k) {
    int got;
    MPI_Status st;
    ASSERT_EQ(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, s.inter, &st), MPI_SUCCESS);
    EXPECT_EQ(got, remote_base + st.MPI_SOURCE);
  }
  MPI_Waitall(rn, sends.data(), MPI_STATUSES_IGNORE);
  // Ranks are checked against the remote group's size.
  mpitest::ErrorsReturn errors_return;
  MPI_Errhandler_set(s.inter, MPI_ERRORS_RETURN);
  EXPECT_EQ(mpitest::error_class(MPI_Send(&me, 1, MPI_INT, rn, 5, s.inter)), MPI_ERR_RANK);
  int dummy = 0;
  EXPECT_EQ(mpitest::error_class(MPI_Allreduce(&me, &dummy, 1, MPI_INT, MPI_SUM, s.inter)), MPI_ERR_COMM);
  free_sides(s);
}

TEST(Intercomm, DupKeepsTheGroupsAndSeparatesTraffic) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  MPI_Comm d;
  ASSERT_EQ(MPI_Comm_dup(s.inter, &d), MPI_SUCCESS);
  int result;
  MPI_Comm_compare(s.inter, d, &result);
  EXPECT_EQ(result, MPI_CONGRUENT);
  MPI_Comm_compare(s.inter, s.local, &result);
  EXPECT_EQ(result, MPI_UNEQUAL);
  // The same tag on both: each receive gets its own communicator's message.
  int me;
  MPI_Comm_rank(s.inter, &me);
  if (me == 0) {
    const int a = 1, b = 2;
    MPI_Send(&a, 1, MPI_INT, 0, 3, s.inter);
    MPI_Send(&b, 1, MPI_INT, 0, 3, d);
    int x, y;
    MPI_Recv(&y, 1, MPI_INT, 0, 3, d, MPI_STATUS_IGNORE);
    MPI_Recv(&x, 1, MPI_INT, 0, 3, s.inter, MPI_STATUS_IGNORE);
    EXPECT_EQ(x, 1);
    EXPECT_EQ(y, 2);
  }
  MPI_Comm_free(&d);
  free_sides(s);
}

TEST(Intercomm, MergeOrdersTheLowGroupFirst) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  for (int low_is_high : {0, 1}) {
    MPI_Comm merged;
    const int high = s.low ? low_is_high : !low_is_high;
    ASSERT_EQ(MPI_Intercomm_merge(s.inter, high, &merged), MPI_SUCCESS);
    EXPECT_EQ(mpitest::size(merged), size());
    int local_rank;
    MPI_Comm_rank(s.local, &local_rank);
    const int others = s.low ? size() - s.low_size : s.low_size;
    EXPECT_EQ(mpitest::rank(merged), high ? others + local_rank : local_rank);
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    EXPECT_EQ(sum, size());
    MPI_Comm_free(&merged);
  }
  free_sides(s);
}

// §5.6.2: every process of one group passes the same `high`. When the low
// group disagrees, every process of both groups gets MPI_ERR_ARG and no
// communicator; the intercommunicator still works afterwards.
TEST(Intercomm, MergeRefusesDifferentHighValuesWithinAGroup) {
  if (size() < 3) GTEST_SKIP() << "needs a group of two";
  mpitest::ErrorsReturn er;
  Sides s = make_sides();
  MPI_Errhandler_set(s.inter, MPI_ERRORS_RETURN);
  int local_rank;
  MPI_Comm_rank(s.local, &local_rank);
  // The larger group (at least two) disagrees with itself.
  const int high = s.low ? 0 : local_rank % 2;
  MPI_Comm merged = MPI_COMM_WORLD;
  EXPECT_EQ(mpitest::error_class(MPI_Intercomm_merge(s.inter, high, &merged)), MPI_ERR_ARG);
  EXPECT_EQ(merged, MPI_COMM_WORLD);
  ASSERT_EQ(MPI_Intercomm_merge(s.inter, s.low ? 0 : 1, &merged), MPI_SUCCESS);
  EXPECT_EQ(mpitest::size(merged), size());
  MPI_Comm_free(&merged);
  free_sides(s);
}

}  // namespace

MPI_TEST_MAIN()
