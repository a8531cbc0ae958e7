// MPI-1.1 §5.4, communicators: size and rank, dup, split, compare, free,
// and the isolation of their traffic (§5.1: a message sent in one
// communicator is never received in another).
#include <mpi.h>

#include <algorithm>

#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::rank;
using mpitest::size;

TEST(Comm, WorldAndSelf) {
  EXPECT_EQ(size(MPI_COMM_SELF), 1);
  EXPECT_EQ(rank(MPI_COMM_SELF), 0);
  EXPECT_GE(size(), 1);
  int result;
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
  EXPECT_EQ(result, MPI_IDENT);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result);
  EXPECT_EQ(result, size() == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
}

TEST(Comm, DupIsCongruentAndItsTrafficIsSeparate) {
  MPI_Comm dup;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
  int result;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &result);
  EXPECT_EQ(result, MPI_CONGRUENT);
  EXPECT_EQ(rank(dup), rank());
  // The same (source, tag) on both: each receive gets its own
  // communicator's message, whatever the order of sending.
  const int next = (rank() + 1) % size(), prev = (rank() + size() - 1) % size();
  int a = 100 + rank(), b = 200 + rank(), got_world = -1, got_dup = -1;
  MPI_Request r[2];
  MPI_Irecv(&got_world, 1, MPI_INT, prev, 5, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&got_dup, 1, MPI_INT, prev, 5, dup, &r[1]);
  MPI_Send(&b, 1, MPI_INT, next, 5, dup);
  MPI_Send(&a, 1, MPI_INT, next, 5, MPI_COMM_WORLD);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  EXPECT_EQ(got_world, 100 + prev);
  EXPECT_EQ(got_dup, 200 + prev);
  // Collectives too.
  int x = rank(), sum = 0;
  MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup);
  EXPECT_EQ(sum, size() * (size() - 1) / 2);
  ASSERT_EQ(MPI_Comm_free(&dup), MPI_SUCCESS);
  EXPECT_EQ(dup, MPI_COMM_NULL);
}

TEST(Comm, SplitByColourOrdersByKeyThenOldRank) {
  const int p = size(), me = rank();
  // Colour: parity; key: reversed rank, so ranks come out in reverse order.
  MPI_Comm half;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, me % 2, p - me, &half), MPI_SUCCESS);
  const int n = (p - me % 2 + 1) / 2;
  EXPECT_EQ(size(half), n);
  // Members of my colour in reversed order: the highest old rank is 0.
  int expect = 0;
  for (int r = p - 1; r > me; --r) expect += r % 2 == me % 2;
  EXPECT_EQ(rank(half), expect);
  // A reduction over the half sees only its members.
  int x = me, sum = 0, ref = 0;
  MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, half);
  for (int r = me % 2; r < p; r += 2) ref += r;
  EXPECT_EQ(sum, ref);
  int result;
  MPI_Comm_compare(MPI_COMM_WORLD, half, &result);
  EXPECT_EQ(result, p == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
  MPI_Comm_free(&half);
  // Equal keys keep the old order; MPI_UNDEFINED gives MPI_COMM_NULL.
  MPI_Comm some;
  MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : 1, 0, &some);
  if (me == 0) {
    EXPECT_EQ(some, MPI_COMM_NULL);
  } else {
    EXPECT_EQ(rank(some), me - 1);
    MPI_Comm_free(&some);
  }
}

TEST(Comm, SimilarWhenTheSameRanksComeInAnotherOrder) {
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size() - rank(), &reversed);
  int result;
  MPI_Comm_compare(MPI_COMM_WORLD, reversed, &result);
  EXPECT_EQ(result, size() == 1 ? MPI_CONGRUENT : MPI_SIMILAR);
  // Point-to-point ranks are the new ones.
  const int me = rank(reversed), p = size(reversed);
  int v = rank(), got = -1;
  MPI_Status st;
  MPI_Sendrecv(&v, 1, MPI_INT, (me + 1) % p, 0, &got, 1, MPI_INT, (me + p - 1) % p, 0, reversed, &st);
  EXPECT_EQ(st.MPI_SOURCE, (me + p - 1) % p);
  EXPECT_EQ(got, size() - 1 - (me + p - 1) % p);  // the world rank of that member
  MPI_Comm_free(&reversed);
}

TEST(Comm, BuiltinCommunicatorsCannotBeFreed) {
  mpitest::ErrorsReturn er;
  MPI_Comm w = MPI_COMM_WORLD;
  EXPECT_EQ(mpitest::error_class(MPI_Comm_free(&w)), MPI_ERR_COMM);
  int n;
  EXPECT_EQ(mpitest::error_class(MPI_Comm_size(MPI_COMM_NULL, &n)), MPI_ERR_COMM);
}

// Context ids come from one allocator of 2048 pairs shared by QMP and MPI
// (mesh/context_ids.h): communicators beyond it are a clear MPI_ERR_OTHER,
// not a wrapped id, and freed communicators' pairs are used again.
TEST(Comm, ContextIdsAreReusedAndTheirExhaustionIsAnError) {
  mpitest::ErrorsReturn er;
  std::vector<MPI_Comm> dups;
  int rc = MPI_SUCCESS;
  for (int i = 0; i < 3000 && rc == MPI_SUCCESS; ++i) {
    MPI_Comm d = MPI_COMM_NULL;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &d);
    if (rc == MPI_SUCCESS) dups.push_back(d);
  }
  ASSERT_NE(rc, MPI_SUCCESS) << "3000 communicators at once";
  EXPECT_EQ(mpitest::error_class(rc), MPI_ERR_OTHER);
  const std::string text = mpitest::error_text(rc);
  EXPECT_NE(text.find("no context id is free"), std::string::npos) << text;
  EXPECT_GE(dups.size(), 2000u);
  EXPECT_LT(dups.size(), 2048u);
  // The last one works: its traffic is its own.
  int x = 1, sum = 0;
  EXPECT_EQ(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dups.back()), MPI_SUCCESS);
  EXPECT_EQ(sum, size());
  const std::size_t made = dups.size();
  for (MPI_Comm& d : dups) ASSERT_EQ(MPI_Comm_free(&d), MPI_SUCCESS);
  // Every pair came back: as many again, and split too.
  dups.clear();
  for (std::size_t i = 0; i < made; ++i) {
    MPI_Comm d = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS) << "dup " << i << " after freeing";
    dups.push_back(d);
  }
  for (MPI_Comm& d : dups) MPI_Comm_free(&d);
  MPI_Comm half;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, rank() % 2, 0, &half), MPI_SUCCESS);
  EXPECT_EQ(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, half), MPI_SUCCESS);
  EXPECT_EQ(sum, (size() + 1 - rank() % 2) / 2);
  MPI_Comm_free(&half);
}

// MPI_Comm_idup is nonblocking (MPI-3.1 §6.4.2, §5.12): a rank may go on to
// other communication before another member has called it. Rank 0 starts
// it, then sends to rank 1, which calls MPI_Comm_idup only after that
// message came. (When idup agreed on its context within the call, rank 0
// waited there for rank 1, which waited for rank 0's message.)
TEST(Comm, IdupLetsARankCommunicateBeforeTheOthersCallIt) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks";
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Request r = MPI_REQUEST_NULL;
  int token = 7;
  if (rank() == 0) {
    ASSERT_EQ(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r), MPI_SUCCESS);
    MPI_Send(&token, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
  } else if (rank() == 1) {
    token = 0;
    MPI_Recv(&token, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ASSERT_EQ(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r), MPI_SUCCESS);
  } else {
    ASSERT_EQ(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r), MPI_SUCCESS);
  }
  ASSERT_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
  if (rank() == 1) {
    EXPECT_EQ(token, 7);
  }
  int sum = 0, one = 1;
  ASSERT_EQ(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup), MPI_SUCCESS);
  EXPECT_EQ(sum, size());
  MPI_Comm_free(&dup);
}

// Several MPI_Comm_idup outstanding at once, on different communicators
// started in different orders on different ranks, beside a blocking
// MPI_Comm_dup: each gets a context of its own (their traffic stays
// apart), the same on every member, and the copy callbacks ran for each.
TEST(Comm, OutstandingIdupsInAnyOrderBesideABlockingDup) {
  MPI_Comm base;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &base), MPI_SUCCESS);
  int keyval, value = 42, *got = nullptr, found = 0;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, nullptr);
  MPI_Comm_set_attr(base, keyval, &value);
  MPI_Comm d[4];
  MPI_Request r[3];
  if (rank() % 2 == 0) {
    ASSERT_EQ(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &r[0]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Comm_idup(base, &d[1], &r[1]), MPI_SUCCESS);
  } else {
    ASSERT_EQ(MPI_Comm_idup(base, &d[1], &r[1]), MPI_SUCCESS);
    ASSERT_EQ(MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &r[0]), MPI_SUCCESS);
  }
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &d[2]), MPI_SUCCESS);  // while both are pending
  ASSERT_EQ(MPI_Comm_idup(d[2], &d[3], &r[2]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Waitall(3, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  MPI_Comm_get_attr(d[1], keyval, &got, &found);
  EXPECT_TRUE(found && got && *got == 42) << "the attribute was not copied to the duplicate";
  // The same (source, tag) on all four and on the world, sent in one order
  // and received in the reverse: each receive gets its own communicator's.
  const int to = (rank() + 1) % size(), from = (rank() + size() - 1) % size();
  MPI_Comm all[5] = {MPI_COMM_WORLD, d[0], d[1], d[2], d[3]};
  int out[5], in[5];
  MPI_Request s[5];
  for (int i = 0; i < 5; ++i) {
    out[i] = 10 * rank() + i;
    MPI_Isend(&out[i], 1, MPI_INT, to, 9, all[i], &s[i]);
  }
  for (int i = 4; i >= 0; --i) MPI_Recv(&in[i], 1, MPI_INT, from, 9, all[i], MPI_STATUS_IGNORE);
  MPI_Waitall(5, s, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(in[i], 10 * from + i) << "communicator " << i;
  for (MPI_Comm& c : d) MPI_Comm_free(&c);
  MPI_Comm_free(&base);
  MPI_Comm_free_keyval(&keyval);
}

// MPI-3.1 §6.4.2: MPI_Comm_dup_with_info and MPI_Comm_idup make congruent
// communicators of their own context (traffic on one is not seen on the
// other); idup's request completes.
TEST(Comm, DupWithInfoAndIdupMakeCongruentCommunicators) {
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "mpi_assert_no_any_tag", "true");
  MPI_Comm a, b;
  ASSERT_EQ(MPI_Comm_dup_with_info(MPI_COMM_WORLD, hints, &a), MPI_SUCCESS);
  MPI_Info_free(&hints);
  MPI_Request r = MPI_REQUEST_NULL;
  ASSERT_EQ(MPI_Comm_idup(MPI_COMM_WORLD, &b, &r), MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(r, MPI_REQUEST_NULL);
  int result = -1;
  MPI_Comm_compare(a, MPI_COMM_WORLD, &result);
  EXPECT_EQ(result, MPI_CONGRUENT);
  MPI_Comm_compare(b, a, &result);
  EXPECT_EQ(result, MPI_CONGRUENT);
  // A message on b is not received on a.
  const int me = rank(), to = (me + 1) % size(), from = (me + size() - 1) % size();
  int x = me, got = -1, flag = 1;
  MPI_Request s;
  MPI_Isend(&x, 1, MPI_INT, to, 5, b, &s);
  MPI_Probe(from, 5, b, MPI_STATUS_IGNORE);  // here, on b
  MPI_Iprobe(from, 5, a, &flag, MPI_STATUS_IGNORE);
  EXPECT_FALSE(flag) << "a message on b was seen on a";
  MPI_Recv(&got, 1, MPI_INT, from, 5, b, MPI_STATUS_IGNORE);
  EXPECT_EQ(got, from);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  mpitest::ErrorsReturn er;
  MPI_Comm c;
  EXPECT_EQ(mpitest::error_class(MPI_Comm_dup_with_info(MPI_COMM_WORLD, 4242, &c)), MPI_ERR_INFO);
}

// MPI-3.1 §6.4.4: hints set on a communicator are accepted; meshmp uses
// none, so the info of the hints in use is a new, empty one.
TEST(Comm, SetInfoIsAcceptedAndGetInfoGivesTheHintsInUse) {
  MPI_Info hints, used = MPI_INFO_NULL;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "mpi_assert_no_any_source", "true");
  ASSERT_EQ(MPI_Comm_set_info(MPI_COMM_WORLD, hints), MPI_SUCCESS);
  MPI_Info_free(&hints);
  ASSERT_EQ(MPI_Comm_get_info(MPI_COMM_WORLD, &used), MPI_SUCCESS);
  ASSERT_NE(used, MPI_INFO_NULL);
  int nkeys = -1;
  ASSERT_EQ(MPI_Info_get_nkeys(used, &nkeys), MPI_SUCCESS);
  EXPECT_EQ(nkeys, 0);
  ASSERT_EQ(MPI_Info_free(&used), MPI_SUCCESS);
  mpitest::ErrorsReturn er;
  EXPECT_EQ(mpitest::error_class(MPI_Comm_set_info(MPI_COMM_WORLD, 4242)), MPI_ERR_INFO);
  EXPECT_EQ(mpitest::error_class(MPI_Comm_get_info(MPI_COMM_NULL, &used)), MPI_ERR_COMM);
  EXPECT_EQ(mpitest::error_class(MPI_Comm_get_info(MPI_COMM_WORLD, nullptr)), MPI_ERR_ARG);
}

// MPI-3.1 §6.4.2: MPI_Comm_create_group is collective over the group only:
// the even ranks make theirs while the odd ranks make their own, at once,
// and each works (ranks in group order, a sum over it).
TEST(Comm, CreateGroupInvolvesOnlyItsMembers) {
  const int me = rank(), p = size();
  MPI_Group world, mine;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks;
  for (int r = me % 2; r < p; r += 2) ranks.push_back(r);
  std::reverse(ranks.begin(), ranks.end());  // group order is not world order
  MPI_Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &mine);
  MPI_Comm half = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_create_group(MPI_COMM_WORLD, mine, 7, &half), MPI_SUCCESS);
  ASSERT_NE(half, MPI_COMM_NULL);
  EXPECT_EQ(size(half), static_cast<int>(ranks.size()));
  EXPECT_EQ(rank(half), static_cast<int>(std::find(ranks.begin(), ranks.end(), me) - ranks.begin()));
  int sum = 0;
  MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, half);
  int want = 0;
  for (int r : ranks) want += r;
  EXPECT_EQ(sum, want);
  MPI_Comm_free(&half);
  // A caller outside the group gets MPI_COMM_NULL and takes part in nothing.
  MPI_Group others;
  MPI_Group_excl(world, 1, &me, &others);
  MPI_Comm none = MPI_COMM_WORLD;
  if (p == 1) {
    ASSERT_EQ(MPI_Comm_create_group(MPI_COMM_WORLD, others, 8, &none), MPI_SUCCESS);
    EXPECT_EQ(none, MPI_COMM_NULL);
  }
  MPI_Group_free(&others);
  MPI_Group_free(&mine);
  MPI_Group_free(&world);
  MPI_Barrier(MPI_COMM_WORLD);
}

// A constructor given a valid communicator that fails on its other
// arguments leaves MPI_COMM_NULL in its output, whatever was there: what a
// program testing the result for MPI_COMM_NULL after MPI_ERRORS_RETURN
// expects (MPICH's errors/topo/cartsmall does).
TEST(Comm, AFailedConstructorLeavesMpiCommNull) {
  const int p = size();
  mpitest::ErrorsReturn errors_return;
  MPI_Comm out = MPI_COMM_WORLD;
  auto failed = [&](int rc) {
    const bool ok = rc != MPI_SUCCESS && out == MPI_COMM_NULL;
    out = MPI_COMM_WORLD;
    return ok;
  };
  const int too_many[2] = {p, p + 1}, periods[2] = {0, 0};
  EXPECT_TRUE(failed(MPI_Cart_create(MPI_COMM_WORLD, 2, too_many, periods, 0, &out)));
  const int bad_edge = p + 3, one = 1;
  EXPECT_TRUE(failed(MPI_Graph_create(MPI_COMM_WORLD, 1, &one, &bad_edge, 0, &out)));
  EXPECT_TRUE(failed(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &out)));
  EXPECT_TRUE(failed(MPI_Comm_split_type(MPI_COMM_WORLD, -5, 0, MPI_INFO_NULL, &out)));
  EXPECT_TRUE(failed(MPI_Comm_dup_with_info(MPI_COMM_WORLD, 12345, &out)));
  EXPECT_TRUE(failed(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &out)));
  EXPECT_TRUE(failed(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_NULL, 0, &out)));
  EXPECT_TRUE(failed(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad_edge, MPI_UNWEIGHTED, 0, nullptr,
                                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &out)));
  EXPECT_TRUE(failed(MPI_Intercomm_create(MPI_COMM_WORLD, p, MPI_COMM_WORLD, 0, 0, &out)));
  const int line[1] = {p}, open[1] = {0};
  MPI_Comm cart;
  ASSERT_EQ(MPI_Cart_create(MPI_COMM_WORLD, 1, line, open, 0, &cart), MPI_SUCCESS);
  MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
  EXPECT_TRUE(failed(MPI_Cart_sub(cart, nullptr, &out)));
  MPI_Comm_free(&cart);
  // A NULL output is refused by name.
  EXPECT_EQ(mpitest::error_class(MPI_Comm_dup(MPI_COMM_WORLD, nullptr)), MPI_ERR_ARG);
  EXPECT_EQ(mpitest::error_class(MPI_Cart_create(MPI_COMM_WORLD, 1, line, open, 0, nullptr)), MPI_ERR_ARG);
}

}  // namespace

MPI_TEST_MAIN()
