// Intercommunicators (MPI-1.1 §5.6) between two groups of different sizes:
// the first third of the world (at least one rank) and the rest; MPI-2.2
// §6.4.2's MPI_Comm_split and MPI_Comm_create of them.
#include <algorithm>
#include <vector>

#include "tests/mpi/intercomm_sides.h"
#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::rank;
using mpitest::size;

using mpitest::free_sides;
using mpitest::make_sides;
using mpitest::Sides;

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
  MPI_Group remote;
  MPI_Comm_remote_group(s.inter, &remote);
  const std::vector<int> out = mpitest::world_ranks(remote);
  ASSERT_EQ(static_cast<int>(out.size()), rn);
  for (int i = 0; i < rn; ++i) EXPECT_EQ(out[i], s.low ? s.low_size + i : i);
  MPI_Group_free(&remote);
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
  EXPECT_EQ(mpitest::error_class(MPI_Scan(&me, &dummy, 1, MPI_INT, MPI_SUM, s.inter)), MPI_ERR_COMM);
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

// MPI-3.1 §6.4.2: MPI_Comm_idup of an intercommunicator is nonblocking
// too (MPICH's comm_idup test): every member but the leaders starts it and
// then synchronously sends to the remote leader, which calls it only after
// those messages came. (An idup that agreed within the call hung here.)
// The duplicate then carries traffic of its own, both ways.
TEST(Intercomm, IdupLetsMembersSendToTheRemoteLeaderBeforeItCallsIt) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  MPI_Comm d = MPI_COMM_NULL;
  MPI_Request r = MPI_REQUEST_NULL;
  if (s.me == 0) {
    for (int i = 1; i < s.rn; ++i) {
      int got = -1;
      ASSERT_EQ(MPI_Recv(&got, 1, MPI_INT, i, 0, s.inter, MPI_STATUS_IGNORE), MPI_SUCCESS);
      EXPECT_EQ(got, i);
    }
    ASSERT_EQ(MPI_Comm_idup(s.inter, &d, &r), MPI_SUCCESS);
  } else {
    ASSERT_EQ(MPI_Comm_idup(s.inter, &d, &r), MPI_SUCCESS);
    ASSERT_EQ(MPI_Ssend(&s.me, 1, MPI_INT, 0, 0, s.inter), MPI_SUCCESS);
  }
  ASSERT_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
  int result = -1, rsize = -1;
  MPI_Comm_compare(s.inter, d, &result);
  EXPECT_EQ(result, MPI_CONGRUENT);
  MPI_Comm_remote_size(d, &rsize);
  EXPECT_EQ(rsize, s.rn);
  // Each leader sends its side's size to the other on both communicators,
  // with one tag: each receive gets its own communicator's.
  if (s.me == 0) {
    const int on_inter = -s.n, on_dup = s.n;
    int x = 0, y = 0;
    MPI_Request q[2];
    MPI_Isend(&on_inter, 1, MPI_INT, 0, 9, s.inter, &q[0]);
    MPI_Isend(&on_dup, 1, MPI_INT, 0, 9, d, &q[1]);
    MPI_Recv(&y, 1, MPI_INT, 0, 9, d, MPI_STATUS_IGNORE);
    MPI_Recv(&x, 1, MPI_INT, 0, 9, s.inter, MPI_STATUS_IGNORE);
    MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    EXPECT_EQ(x, -s.rn);
    EXPECT_EQ(y, s.rn);
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
  EXPECT_EQ(merged, MPI_COMM_NULL);  // what a failed constructor leaves (docs/mpi.md)
  ASSERT_EQ(MPI_Intercomm_merge(s.inter, s.low ? 0 : 1, &merged), MPI_SUCCESS);
  EXPECT_EQ(mpitest::size(merged), size());
  MPI_Comm_free(&merged);
  free_sides(s);
}


// The world ranks of an intercommunicator's remote group, in its order.
std::vector<int> remote_world(MPI_Comm inter) {
  MPI_Group remote;
  MPI_Comm_remote_group(inter, &remote);
  std::vector<int> out = mpitest::world_ranks(remote);
  MPI_Group_free(&remote);
  return out;
}

// Every member sends its world rank to every remote rank and checks what
// the remote ranks sent: the new intercommunicator carries traffic.
void exchange_world_ranks(MPI_Comm inter, const std::vector<int>& want_remote) {
  const int n = static_cast<int>(want_remote.size());
  const int me = rank();
  std::vector<int> got(n, -1);
  std::vector<MPI_Request> reqs(2 * n);
  for (int i = 0; i < n; ++i) {
    MPI_Irecv(&got[i], 1, MPI_INT, i, 5, inter, &reqs[2 * i]);
    MPI_Isend(&me, 1, MPI_INT, i, 5, inter, &reqs[2 * i + 1]);
  }
  ASSERT_EQ(MPI_Waitall(2 * n, reqs.data(), MPI_STATUSES_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(got, want_remote);
}

TEST(Intercomm, SplitJoinsTheSameColourOnBothSidesOrderedByKey) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  const int color = rank() % 2, key = -rank();  // key: descending world rank
  MPI_Comm split = MPI_COMM_WORLD;
  ASSERT_EQ(MPI_Comm_split(s.inter, color, key, &split), MPI_SUCCESS);
  // The members of my colour on each side, by descending world rank.
  std::vector<int> mine, theirs;
  for (int r = size() - 1; r >= 0; --r) {
    if (r % 2 != color) continue;
    ((r < s.low_size) == s.low ? mine : theirs).push_back(r);
  }
  if (mine.empty() || theirs.empty()) {
    EXPECT_EQ(split, MPI_COMM_NULL);
  } else {
    ASSERT_NE(split, MPI_COMM_NULL);
    int flag = 0, n = 0;
    MPI_Comm_test_inter(split, &flag);
    EXPECT_TRUE(flag);
    MPI_Comm_size(split, &n);
    EXPECT_EQ(n, static_cast<int>(mine.size()));
    EXPECT_EQ(mpitest::rank(split), static_cast<int>(std::find(mine.begin(), mine.end(), rank()) - mine.begin()));
    EXPECT_EQ(remote_world(split), theirs);
    exchange_world_ranks(split, theirs);
    MPI_Comm_free(&split);
  }
  // MPI_UNDEFINED everywhere: no communicator at all.
  ASSERT_EQ(MPI_Comm_split(s.inter, MPI_UNDEFINED, 0, &split), MPI_SUCCESS);
  EXPECT_EQ(split, MPI_COMM_NULL);
  free_sides(s);
}

TEST(Intercomm, CreateFromEachSidesSubgroup) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  // Each side passes the first half of its group (at least its leader).
  MPI_Group local;
  MPI_Comm_group(s.inter, &local);
  int n;
  MPI_Group_size(local, &n);
  const int range[1][3] = {{0, (n - 1) / 2, 1}};
  MPI_Group half;
  MPI_Group_range_incl(local, 1, const_cast<int(*)[3]>(range), &half);
  MPI_Comm created = MPI_COMM_WORLD;
  ASSERT_EQ(MPI_Comm_create(s.inter, half, &created), MPI_SUCCESS);
  const int low_half = (s.low_size - 1) / 2 + 1, high_half = (size() - s.low_size - 1) / 2 + 1;
  const int my_local = mpitest::rank(s.local);
  if (my_local >= (s.low ? low_half : high_half)) {
    EXPECT_EQ(created, MPI_COMM_NULL);
  } else {
    ASSERT_NE(created, MPI_COMM_NULL);
    std::vector<int> theirs;
    for (int i = 0; i < (s.low ? high_half : low_half); ++i) theirs.push_back(s.low ? s.low_size + i : i);
    EXPECT_EQ(remote_world(created), theirs);
    exchange_world_ranks(created, theirs);
    MPI_Comm_free(&created);
  }
  MPI_Group_free(&half);
  MPI_Group_free(&local);
  free_sides(s);
}

}  // namespace

MPI_TEST_MAIN()
