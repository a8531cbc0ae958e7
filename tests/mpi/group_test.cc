// Groups (MPI-1.1 §5.3) and MPI_Comm_create (§5.4.2), against the
// standard's definitions: set operations keep group1's order then group2's,
// range triplets include both ends, translate_ranks gives MPI_UNDEFINED for
// processes not in the target group.
#include <algorithm>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::rank;
using mpitest::size;

using mpitest::world_ranks;

TEST(Groups, WorldGroupMatchesTheCommunicator) {
  MPI_Group g;
  ASSERT_EQ(MPI_Comm_group(MPI_COMM_WORLD, &g), MPI_SUCCESS);
  int n, r;
  MPI_Group_size(g, &n);
  MPI_Group_rank(g, &r);
  EXPECT_EQ(n, size());
  EXPECT_EQ(r, rank());
  int result;
  MPI_Group_compare(g, g, &result);
  EXPECT_EQ(result, MPI_IDENT);
  MPI_Group_free(&g);
  EXPECT_EQ(g, MPI_GROUP_NULL);
}

TEST(Groups, InclExclAndRangesFollowTheStandard) {
  const int p = size();
  MPI_Group world, even, odd_by_excl, rev, by_range;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> evens, odds, reversed;
  for (int i = 0; i < p; ++i) (i % 2 ? odds : evens).push_back(i);
  for (int i = p - 1; i >= 0; --i) reversed.push_back(i);
  MPI_Group_incl(world, static_cast<int>(evens.size()), evens.data(), &even);
  MPI_Group_excl(world, static_cast<int>(evens.size()), evens.data(), &odd_by_excl);
  MPI_Group_incl(world, p, reversed.data(), &rev);
  int ranges[1][3] = {{0, p - 1, 2}};  // every other rank from 0: the evens
  MPI_Group_range_incl(world, 1, ranges, &by_range);
  EXPECT_EQ(world_ranks(even), evens);
  EXPECT_EQ(world_ranks(by_range), evens);
  if (!odds.empty()) {
    EXPECT_EQ(world_ranks(odd_by_excl), odds);
  }
  EXPECT_EQ(world_ranks(rev), reversed);
  int result;
  MPI_Group_compare(even, by_range, &result);
  EXPECT_EQ(result, MPI_IDENT);
  MPI_Group_compare(world, rev, &result);
  EXPECT_EQ(result, p > 1 ? MPI_SIMILAR : MPI_IDENT);
  int r;
  MPI_Group_rank(rev, &r);
  EXPECT_EQ(r, p - 1 - rank());
  MPI_Group_rank(even, &r);
  EXPECT_EQ(r, rank() % 2 ? MPI_UNDEFINED : rank() / 2);
  // A descending range: last < first with a negative stride.
  int down[1][3] = {{p - 1, 0, -1}};
  MPI_Group by_down;
  MPI_Group_range_incl(world, 1, down, &by_down);
  EXPECT_EQ(world_ranks(by_down), reversed);
  MPI_Group range_excl;
  MPI_Group_range_excl(world, 1, ranges, &range_excl);
  int n;
  MPI_Group_size(range_excl, &n);
  EXPECT_EQ(n, static_cast<int>(odds.size()));
  for (MPI_Group* g : {&world, &even, &odd_by_excl, &rev, &by_range, &by_down, &range_excl}) MPI_Group_free(g);
}

TEST(Groups, SetOperationsKeepTheirOrder) {
  const int p = size();
  MPI_Group world, a, b, u, i, d;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  // a = the first half reversed, b = the second half plus rank 0.
  std::vector<int> av, bv;
  for (int r = p / 2 - 1; r >= 0; --r) av.push_back(r);
  for (int r = p / 2; r < p; ++r) bv.push_back(r);
  bv.push_back(0);
  if (p == 1) bv = {0};
  MPI_Group_incl(world, static_cast<int>(av.size()), av.data(), &a);
  MPI_Group_incl(world, static_cast<int>(bv.size()), bv.data(), &b);
  MPI_Group_union(a, b, &u);
  MPI_Group_intersection(a, b, &i);
  MPI_Group_difference(a, b, &d);
  std::vector<int> want_u = av, want_i, want_d;
  for (int r : bv)
    if (std::find(av.begin(), av.end(), r) == av.end()) want_u.push_back(r);
  for (int r : av) (std::find(bv.begin(), bv.end(), r) != bv.end() ? want_i : want_d).push_back(r);
  EXPECT_EQ(world_ranks(u), want_u);
  EXPECT_EQ(world_ranks(i), want_i);
  EXPECT_EQ(world_ranks(d), want_d);
  MPI_Group empty;
  MPI_Group_difference(world, world, &empty);
  EXPECT_EQ(empty, MPI_GROUP_EMPTY);
  int n;
  MPI_Group_size(MPI_GROUP_EMPTY, &n);
  EXPECT_EQ(n, 0);
  for (MPI_Group* g : {&world, &a, &b, &u, &i, &d}) MPI_Group_free(g);
}

TEST(Groups, BadArgumentsGiveTheirClass) {
  mpitest::ErrorsReturn errors_return;
  MPI_Group world, out;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int dup[2] = {0, 0};
  EXPECT_EQ(mpitest::error_class(MPI_Group_incl(world, 2, dup, &out)), MPI_ERR_RANK);
  int beyond = size();
  EXPECT_EQ(mpitest::error_class(MPI_Group_incl(world, 1, &beyond, &out)), MPI_ERR_RANK);
  // A triplet whose stride walks away from its last rank names no rank the
  // standard's formula defines (§5.3.2): refused, as MPICH does.
  if (size() >= 2) {
    int away[1][3] = {{0, 1, -1}};
    EXPECT_EQ(mpitest::error_class(MPI_Group_range_incl(world, 1, away, &out)), MPI_ERR_ARG);
    EXPECT_EQ(mpitest::error_class(MPI_Group_range_excl(world, 1, away, &out)), MPI_ERR_ARG);
    int back[1][3] = {{1, 0, 1}};
    EXPECT_EQ(mpitest::error_class(MPI_Group_range_incl(world, 1, back, &out)), MPI_ERR_ARG);
  }
  int n;
  EXPECT_EQ(mpitest::error_class(MPI_Group_size(MPI_GROUP_NULL, &n)), MPI_ERR_GROUP);
  MPI_Group_free(&world);
  EXPECT_EQ(mpitest::error_class(MPI_Group_size(world, &n)), MPI_ERR_GROUP);
}

TEST(Groups, CommCreateFromASubgroupCarriesItsOwnTraffic) {
  const int p = size();
  MPI_Group world, upper;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int range[1][3] = {{p / 2, p - 1, 1}};
  MPI_Group_range_incl(world, 1, range, &upper);
  MPI_Comm c;
  ASSERT_EQ(MPI_Comm_create(MPI_COMM_WORLD, upper, &c), MPI_SUCCESS);
  if (rank() < p / 2) {
    EXPECT_EQ(c, MPI_COMM_NULL);
  } else {
    ASSERT_NE(c, MPI_COMM_NULL);
    EXPECT_EQ(mpitest::size(c), p - p / 2);
    EXPECT_EQ(mpitest::rank(c), rank() - p / 2);
    int sum = 0, one = rank();
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    int want = 0;
    for (int r = p / 2; r < p; ++r) want += r;
    EXPECT_EQ(sum, want);
    MPI_Comm_free(&c);
  }
  MPI_Group_free(&world);
  MPI_Group_free(&upper);
}

}  // namespace

MPI_TEST_MAIN()
