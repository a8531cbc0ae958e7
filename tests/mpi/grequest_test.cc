// Generalized requests (MPI-2.2 §12.2): a request the program completes
// with MPI_Grequest_complete, whose status comes from its query_fn and
// whose end runs its free_fn -- through every call that completes, frees,
// cancels or inspects a request, alone and mixed with point-to-point
// requests.
#include <mpi.h>

#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;
using mpitest::partner;
using mpitest::rank;

// What the callbacks saw and what they answer: each test's extra_state.
struct Calls {
  int query = 0, free = 0, cancel = 0;
  int last_complete = -1;  // cancel_fn's `complete`
  bool status_was_null = false;
  int source = 7, tag = 42, elements = 3;  // what query_fn reports (MPI_INT elements)
  int cancelled = 0;
  int query_rc = MPI_SUCCESS, free_rc = MPI_SUCCESS, cancel_rc = MPI_SUCCESS;
};

int query_fn(void* extra_state, MPI_Status* status) {
  Calls& c = *static_cast<Calls*>(extra_state);
  ++c.query;
  c.status_was_null |= status == nullptr;
  if (!status) return MPI_ERR_ARG;
  status->MPI_SOURCE = c.source;
  status->MPI_TAG = c.tag;
  MPI_Status_set_elements(status, MPI_INT, c.elements);
  MPI_Status_set_cancelled(status, c.cancelled);
  return c.query_rc;
}
int free_fn(void* extra_state) {
  Calls& c = *static_cast<Calls*>(extra_state);
  ++c.free;
  return c.free_rc;
}
int cancel_fn(void* extra_state, int complete) {
  Calls& c = *static_cast<Calls*>(extra_state);
  ++c.cancel;
  c.last_complete = complete;
  if (complete == 0) c.cancelled = 1;  // not done yet: the operation is given up
  return c.cancel_rc;
}

MPI_Request start(Calls* c) {
  MPI_Request r = MPI_REQUEST_NULL;
  EXPECT_EQ(MPI_Grequest_start(query_fn, free_fn, cancel_fn, c, &r), MPI_SUCCESS);
  EXPECT_NE(r, MPI_REQUEST_NULL);
  return r;
}

TEST(Grequest, IncompleteUntilTheProgramCompletesItThenQueriedAndFreedByTheWait) {
  Calls c;
  MPI_Request r = start(&c);
  int flag = 1;
  MPI_Status st;
  ASSERT_EQ(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
  EXPECT_EQ(flag, 0);
  EXPECT_NE(r, MPI_REQUEST_NULL);
  EXPECT_EQ(c.query, 0);
  EXPECT_EQ(c.free, 0);
  ASSERT_EQ(MPI_Grequest_complete(r), MPI_SUCCESS);
  EXPECT_EQ(c.free, 0);  // only the wait ends it
  ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
  EXPECT_EQ(r, MPI_REQUEST_NULL);
  EXPECT_EQ(c.query, 1);
  EXPECT_EQ(c.free, 1);
  EXPECT_EQ(st.MPI_SOURCE, 7);
  EXPECT_EQ(st.MPI_TAG, 42);
  int count = -1, cancelled = 1;
  MPI_Get_count(&st, MPI_INT, &count);
  EXPECT_EQ(count, 3);
  MPI_Test_cancelled(&st, &cancelled);
  EXPECT_EQ(cancelled, 0);
}

TEST(Grequest, QueryFnGetsAStatusEvenWhenTheCallerIgnoresIt) {
  Calls c;
  MPI_Request r = start(&c);
  MPI_Grequest_complete(r);
  int flag = 0;
  ASSERT_EQ(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(c.query, 1);
  EXPECT_FALSE(c.status_was_null);
  EXPECT_EQ(c.free, 1);

  Calls d;
  MPI_Request rs[2] = {start(&d), start(&d)};
  MPI_Grequest_complete(rs[0]);
  MPI_Grequest_complete(rs[1]);
  ASSERT_EQ(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(d.query, 2);
  EXPECT_EQ(d.free, 2);
  EXPECT_FALSE(d.status_was_null);
}

TEST(Grequest, GetStatusQueriesAndLeavesTheRequestForTheWait) {
  Calls c;
  MPI_Request r = start(&c);
  int flag = 1;
  MPI_Status st;
  ASSERT_EQ(MPI_Request_get_status(r, &flag, &st), MPI_SUCCESS);
  EXPECT_EQ(flag, 0);
  EXPECT_EQ(c.query, 0);
  MPI_Grequest_complete(r);
  c.tag = 5;
  st.MPI_TAG = -1;
  ASSERT_EQ(MPI_Request_get_status(r, &flag, &st), MPI_SUCCESS);
  EXPECT_EQ(flag, 1);
  EXPECT_EQ(st.MPI_TAG, 5);
  EXPECT_EQ(c.query, 1);
  EXPECT_EQ(c.free, 0);
  ASSERT_EQ(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(c.query, 2);
  EXPECT_FALSE(c.status_was_null);
  c.tag = 6;
  ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_TAG, 6);  // queried again
  EXPECT_EQ(c.query, 3);
  EXPECT_EQ(c.free, 1);
}

TEST(Grequest, FreedBeforeCompletionRunsFreeFnOnceAtCompletion) {
  Calls c;
  MPI_Request r = start(&c);
  const MPI_Request kept = r;
  ASSERT_EQ(MPI_Request_free(&r), MPI_SUCCESS);
  EXPECT_EQ(r, MPI_REQUEST_NULL);
  EXPECT_EQ(c.free, 0);
  ASSERT_EQ(MPI_Grequest_complete(kept), MPI_SUCCESS);
  EXPECT_EQ(c.free, 1);
  EXPECT_EQ(c.query, 0);  // nobody asks for its status

  Calls d;  // and freed after completion: free_fn in MPI_Request_free
  MPI_Request q = start(&d);
  MPI_Grequest_complete(q);
  EXPECT_EQ(d.free, 0);
  ASSERT_EQ(MPI_Request_free(&q), MPI_SUCCESS);
  EXPECT_EQ(q, MPI_REQUEST_NULL);
  EXPECT_EQ(d.free, 1);
  EXPECT_EQ(d.query, 0);
}

TEST(Grequest, CancelRunsCancelFnWithWhetherItWasComplete) {
  Calls c;
  MPI_Request r = start(&c);
  ASSERT_EQ(MPI_Cancel(&r), MPI_SUCCESS);
  EXPECT_EQ(c.cancel, 1);
  EXPECT_EQ(c.last_complete, 0);
  MPI_Grequest_complete(r);
  MPI_Status st;
  ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
  int cancelled = 0;
  MPI_Test_cancelled(&st, &cancelled);
  EXPECT_EQ(cancelled, 1);  // as query_fn said

  Calls d;
  MPI_Request q = start(&d);
  MPI_Grequest_complete(q);
  ASSERT_EQ(MPI_Cancel(&q), MPI_SUCCESS);
  EXPECT_EQ(d.last_complete, 1);
  ASSERT_EQ(MPI_Wait(&q, &st), MPI_SUCCESS);
  MPI_Test_cancelled(&st, &cancelled);
  EXPECT_EQ(cancelled, 0);
}

// Mixed with a receive from the partner: the multiple completions find the
// generalized request among point-to-point ones and give it its status.
TEST(Grequest, MultipleCompletionsAmongPointToPointRequests) {
  const int peer = partner();
  int in = -1, out = rank();
  Calls c;
  MPI_Request rs[3];
  MPI_Irecv(&in, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &rs[0]);
  rs[1] = start(&c);
  MPI_Isend(&out, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &rs[2]);

  // Waitany: the generalized request, once complete, is found although the others may not be.
  MPI_Grequest_complete(rs[1]);
  int done = 0;
  std::vector<bool> seen(3, false);
  while (done < 3) {
    int index = -1;
    MPI_Status st;
    ASSERT_EQ(MPI_Waitany(3, rs, &index, &st), MPI_SUCCESS);
    ASSERT_GE(index, 0);
    ASSERT_FALSE(seen[static_cast<std::size_t>(index)]);
    seen[static_cast<std::size_t>(index)] = true;
    if (index == 1) {
      EXPECT_EQ(st.MPI_TAG, 42);
    }
    if (index == 0) {
      EXPECT_EQ(st.MPI_SOURCE, peer);
    }
    ++done;
  }
  EXPECT_EQ(in, peer);
  EXPECT_EQ(c.free, 1);

  // Testsome and Waitall: statuses in place, free_fn once each.
  Calls d;
  MPI_Irecv(&in, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &rs[0]);
  rs[1] = start(&d);
  MPI_Isend(&out, 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &rs[2]);
  int outcount = -1, indices[3];
  MPI_Status sts[3];
  MPI_Grequest_complete(rs[1]);
  bool got = false;
  while (!got) {
    ASSERT_EQ(MPI_Testsome(3, rs, &outcount, indices, sts), MPI_SUCCESS);
    for (int i = 0; i < outcount; ++i)
      if (indices[i] == 1) {
        got = true;
        EXPECT_EQ(sts[i].MPI_TAG, 42);
        EXPECT_EQ(sts[i].MPI_ERROR, MPI_SUCCESS);
      }
  }
  EXPECT_EQ(rs[1], MPI_REQUEST_NULL);
  ASSERT_EQ(MPI_Waitall(3, rs, sts), MPI_SUCCESS);
  EXPECT_EQ(d.free, 1);
  EXPECT_EQ(d.query, 1);

  Calls e;  // Waitall with the generalized request still to complete when the others are done
  MPI_Irecv(&in, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rs[0]);
  rs[1] = start(&e);
  MPI_Isend(&out, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rs[2]);
  int flag = 1;
  ASSERT_EQ(MPI_Testall(3, rs, &flag, sts), MPI_SUCCESS);
  EXPECT_EQ(flag, 0);
  EXPECT_NE(rs[1], MPI_REQUEST_NULL);
  MPI_Grequest_complete(rs[1]);
  ASSERT_EQ(MPI_Waitall(3, rs, sts), MPI_SUCCESS);
  EXPECT_EQ(sts[1].MPI_TAG, 42);
  EXPECT_EQ(sts[0].MPI_SOURCE, peer);
  EXPECT_EQ(e.free, 1);
}

// The callbacks' error codes are the calls' (MPI-2.2 §12.2): free_fn's,
// else query_fn's; MPI_ERR_IN_STATUS from a multiple completion with the
// code in the status; a value that is no MPI code becomes MPI_ERR_OTHER.
TEST(Grequest, CallbackErrorsAreTheCallsErrors) {
  mpitest::ErrorsReturn errors_return;
  int mine_class, mine;
  ASSERT_EQ(MPI_Add_error_class(&mine_class), MPI_SUCCESS);
  ASSERT_EQ(MPI_Add_error_code(mine_class, &mine), MPI_SUCCESS);

  Calls c;
  c.free_rc = mine;
  MPI_Request r = start(&c);
  MPI_Grequest_complete(r);
  EXPECT_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), mine);
  EXPECT_EQ(r, MPI_REQUEST_NULL);
  EXPECT_EQ(c.free, 1);

  Calls d;
  d.query_rc = MPI_ERR_TRUNCATE;
  r = start(&d);
  MPI_Grequest_complete(r);
  int flag = 0;
  MPI_Status st;
  EXPECT_EQ(error_class(MPI_Request_get_status(r, &flag, &st)), MPI_ERR_TRUNCATE);
  EXPECT_EQ(MPI_Wait(&r, &st), MPI_ERR_TRUNCATE);
  EXPECT_EQ(d.free, 1);

  Calls e;
  e.free_rc = MPI_ERR_OTHER;
  e.query_rc = MPI_ERR_TRUNCATE;  // free_fn's comes first
  MPI_Request rs[2] = {start(&e), start(&c)};
  MPI_Grequest_complete(rs[0]);
  MPI_Grequest_complete(rs[1]);
  MPI_Status sts[2];
  c.free_rc = MPI_SUCCESS;
  EXPECT_EQ(error_class(MPI_Waitall(2, rs, sts)), MPI_ERR_IN_STATUS);
  EXPECT_EQ(sts[0].MPI_ERROR, MPI_ERR_OTHER);
  EXPECT_EQ(sts[1].MPI_ERROR, MPI_SUCCESS);

  Calls f;
  f.cancel_rc = -5;
  f.free_rc = 123456;
  r = start(&f);
  EXPECT_EQ(error_class(MPI_Cancel(&r)), MPI_ERR_OTHER);
  MPI_Grequest_complete(r);
  EXPECT_EQ(error_class(MPI_Wait(&r, MPI_STATUS_IGNORE)), MPI_ERR_OTHER);
  EXPECT_EQ(f.free, 1);
}

// A free_fn may itself complete requests (a generalized request made of
// others): an MPI_Waitall inside it, run from an outer MPI_Waitall, leaves
// the outer one's requests and statuses as they were.
int inner_ok = 0;
int free_waiting(void* extra_state) {
  const int me = 0;  // on MPI_COMM_SELF
  int a[3] = {1, 2, 3}, b[3] = {0, 0, 0};
  MPI_Request r[3];
  MPI_Status st[3];
  for (int i = 0; i < 3; ++i) MPI_Irecv(&b[i], 1, MPI_INT, me, 70 + i, MPI_COMM_SELF, &r[i]);
  for (int i = 0; i < 3; ++i) MPI_Send(&a[i], 1, MPI_INT, me, 70 + i, MPI_COMM_SELF);
  MPI_Waitall(3, r, st);
  inner_ok = b[0] == 1 && b[1] == 2 && b[2] == 3 && st[2].MPI_TAG == 72;
  ++static_cast<Calls*>(extra_state)->free;
  return MPI_SUCCESS;
}

TEST(Grequest, CallbacksMayCompleteRequestsInsideAnOuterWaitall) {
  const int peer = partner();
  Calls c;
  int in[2] = {-1, -1}, out[2] = {rank(), rank() + 100};
  MPI_Request rs[4];
  MPI_Irecv(&in[0], 1, MPI_INT, peer, 11, MPI_COMM_WORLD, &rs[0]);
  ASSERT_EQ(MPI_Grequest_start(query_fn, free_waiting, cancel_fn, &c, &rs[1]), MPI_SUCCESS);
  MPI_Irecv(&in[1], 1, MPI_INT, peer, 12, MPI_COMM_WORLD, &rs[2]);
  MPI_Isend(out, 2, MPI_INT, peer, 13, MPI_COMM_WORLD, &rs[3]);
  MPI_Grequest_complete(rs[1]);
  MPI_Send(&out[0], 1, MPI_INT, peer, 11, MPI_COMM_WORLD);
  MPI_Send(&out[1], 1, MPI_INT, peer, 12, MPI_COMM_WORLD);
  MPI_Status sts[4];
  ASSERT_EQ(MPI_Waitall(4, rs, sts), MPI_SUCCESS);
  EXPECT_EQ(c.free, 1);
  EXPECT_EQ(inner_ok, 1);
  EXPECT_EQ(in[0], peer);
  EXPECT_EQ(in[1], peer + 100);
  EXPECT_EQ(sts[0].MPI_TAG, 11);
  EXPECT_EQ(sts[1].MPI_TAG, 42);  // query_fn's
  EXPECT_EQ(sts[2].MPI_TAG, 12);
  EXPECT_EQ(sts[2].MPI_SOURCE, peer);
  for (MPI_Request r : rs) EXPECT_EQ(r, MPI_REQUEST_NULL);
  int got[2];
  MPI_Recv(got, 2, MPI_INT, peer, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT_EQ(got[1], peer + 100);
}

TEST(Grequest, BadArgumentsAreNamed) {
  mpitest::ErrorsReturn errors_return;
  Calls c;
  MPI_Request r = MPI_REQUEST_NULL;
  EXPECT_EQ(error_class(MPI_Grequest_start(nullptr, free_fn, cancel_fn, &c, &r)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &c, nullptr)), MPI_ERR_ARG);
  EXPECT_EQ(r, MPI_REQUEST_NULL);

  r = start(&c);
  ASSERT_EQ(MPI_Grequest_complete(r), MPI_SUCCESS);
  EXPECT_EQ(error_class(MPI_Grequest_complete(r)), MPI_ERR_REQUEST);  // twice
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  EXPECT_EQ(c.free, 1);

  int x = 0;
  MPI_Request p2p;
  MPI_Irecv(&x, 1, MPI_INT, rank(), 9, MPI_COMM_WORLD, &p2p);
  EXPECT_EQ(error_class(MPI_Grequest_complete(p2p)), MPI_ERR_REQUEST);  // not generalized
  EXPECT_EQ(error_class(MPI_Grequest_complete(MPI_REQUEST_NULL)), MPI_ERR_REQUEST);
  MPI_Send(&x, 1, MPI_INT, rank(), 9, MPI_COMM_WORLD);
  MPI_Wait(&p2p, MPI_STATUS_IGNORE);
}

}  // namespace

MPI_TEST_MAIN()
