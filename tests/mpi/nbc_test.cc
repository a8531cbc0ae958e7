// MPI-3.1 §5.12: the nonblocking collectives. Each is checked against a
// serial reference computed from every rank's inputs (predefined and
// non-commutative user operations, MPI_IN_PLACE, derived datatypes freed
// before completion, a communicator whose rank order is not the world's),
// each completed by a loop of MPI_Test after point-to-point traffic (the
// MPI_Wait and MPI_Waitall/any paths are used where said), and for what
// makes them nonblocking: progress while the program waits for
// something else (the NBX sparse exchange, whose Ibarrier must complete
// while ranks still receive), several outstanding at once and completed in
// any order, beside blocking collectives on the same communicator; and the
// request rules (no free or cancel while active, a NULL request).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "tests/mpi/mat_op.h"
#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::rank;
using mpitest::size;

int input(int r, int i) { return r * 100 + i + 1; }

using mpitest::Mat;
using mpitest::mat_times;
using mpitest::times;

Mat mat_of(int r, int k) {
  const auto u = static_cast<std::uint64_t>(r * 7 + k);
  return {u + 1, u + 2, 1, u};
}
// Ranks lo..hi-1 multiplied in rank order, element k.
Mat product(int lo, int hi, int k) {
  Mat m{1, 0, 0, 1};
  for (int r = lo; r < hi; ++r) m = times(m, mat_of(r, k));
  return m;
}
struct MatOp {
  MPI_Datatype type;
  MPI_Op op;
  MatOp() {
    MPI_Type_contiguous(4, MPI_UINT64_T, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(mat_times, 0, &op);
  }
  ~MatOp() {
    MPI_Op_free(&op);
    MPI_Type_free(&type);
  }
};

// Completes a started collective as an overlapping program would: point-
// to-point traffic around the ring first (which every rank's collective
// must not disturb, and which must not wait for it), then a loop of
// MPI_Test. MPI_ERR_OTHER if the ring's data came out wrong or the loop
// ran out.
int overlap_and_test(MPI_Request* r) {
  const int me = rank(), p = size();
  int out = me, in = -1;
  if (int err = MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % p, 99, &in, 1, MPI_INT, (me - 1 + p) % p, 99,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE))
    return err;
  if (in != (me - 1 + p) % p) return MPI_ERR_OTHER;
  int flag = 0;
  for (long spins = 0; !flag; ++spins) {
    if (spins > 100'000'000L) return MPI_ERR_OTHER;
    if (int err = MPI_Test(r, &flag, MPI_STATUS_IGNORE)) return err;
  }
  return *r == MPI_REQUEST_NULL ? MPI_SUCCESS : MPI_ERR_OTHER;
}
int wait(MPI_Request* r) { return overlap_and_test(r); }

TEST(Ibarrier, NbxSparseExchangeCompletesWhileRanksStillReceive) {
  // Hoefler, Siebert & Lumsdaine's NBX (PPoPP 2010): every rank sends to a
  // few ranks the receivers do not know, then takes what arrives until the
  // barrier it enters once its own synchronous sends matched completes.
  const int me = rank(), p = size();
  std::vector<int> to;
  for (int d : {1, 3}) to.push_back((me + d) % p);
  std::sort(to.begin(), to.end());
  to.erase(std::unique(to.begin(), to.end()), to.end());
  std::vector<int> payload(to.size());
  std::vector<MPI_Request> sends(to.size());
  for (std::size_t i = 0; i < to.size(); ++i) {
    payload[i] = me * 1000 + to[i];
    ASSERT_EQ(MPI_Issend(&payload[i], 1, MPI_INT, to[i], 5, MPI_COMM_WORLD, &sends[i]), MPI_SUCCESS);
  }
  std::vector<int> got_from;
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool in_barrier = false;
  for (int spins = 0;; ++spins) {
    ASSERT_LT(spins, 50'000'000) << "NBX did not finish";
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &st);
    if (flag) {
      int v;
      MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      EXPECT_EQ(v, st.MPI_SOURCE * 1000 + me);
      got_from.push_back(st.MPI_SOURCE);
    }
    if (!in_barrier) {
      int all = 0;
      MPI_Testall(static_cast<int>(sends.size()), sends.data(), &all, MPI_STATUSES_IGNORE);
      if (all) {
        ASSERT_EQ(MPI_Ibarrier(MPI_COMM_WORLD, &barrier), MPI_SUCCESS);
        in_barrier = true;
      }
    } else {
      int done = 0;
      MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
      if (done) break;
    }
  }
  std::vector<int> want;
  for (int r = 0; r < p; ++r)
    for (int d : {1, 3})
      if ((r + d) % p == me && std::find(want.begin(), want.end(), r) == want.end()) want.push_back(r);
  std::sort(want.begin(), want.end());
  std::sort(got_from.begin(), got_from.end());
  EXPECT_EQ(got_from, want);
  EXPECT_EQ(barrier, MPI_REQUEST_NULL);
}

TEST(Ibcast, EveryRootIntsAndAStridedTypeFreedBeforeTheWait) {
  const int me = rank(), p = size();
  for (int root = 0; root < p; ++root) {
    std::vector<int> v(7, -1);
    if (me == root)
      for (int i = 0; i < 7; ++i) v[i] = input(root, i);
    MPI_Request r;
    ASSERT_EQ(MPI_Ibcast(v.data(), 7, MPI_INT, root, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    ASSERT_EQ(wait(&r), MPI_SUCCESS);
    for (int i = 0; i < 7; ++i) EXPECT_EQ(v[i], input(root, i)) << "root " << root;
  }
  // Every other int of 12, the type freed before the wait.
  MPI_Datatype every_other;
  MPI_Type_vector(6, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> v(12, -1);
  const int root = p - 1;
  if (me == root) std::iota(v.begin(), v.end(), 0);
  MPI_Request r;
  ASSERT_EQ(MPI_Ibcast(v.data(), 1, every_other, root, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  MPI_Type_free(&every_other);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(v[i], i % 2 == 0 || me == root ? i : -1) << i;
}

TEST(Ireduce, SumAtEveryRootAndAMatrixProductInRankOrder) {
  const int me = rank(), p = size();
  for (int root = 0; root < p; ++root) {
    std::vector<int> in(5), out(5, -1);
    for (int i = 0; i < 5; ++i) in[i] = input(me, i);
    MPI_Request r;
    ASSERT_EQ(MPI_Ireduce(in.data(), out.data(), 5, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    ASSERT_EQ(wait(&r), MPI_SUCCESS);
    if (me == root)
      for (int i = 0; i < 5; ++i) {
        int want = 0;
        for (int q = 0; q < p; ++q) want += input(q, i);
        EXPECT_EQ(out[i], want) << "root " << root;
      }
  }
  MatOp m;
  const int root = p / 2;
  Mat in[3], out[3];
  for (int k = 0; k < 3; ++k) in[k] = mat_of(me, k);
  MPI_Request r;
  ASSERT_EQ(MPI_Ireduce(in, out, 3, m.type, m.op, root, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  if (me == root) {
    for (int k = 0; k < 3; ++k) EXPECT_EQ(out[k], product(0, p, k)) << k;
  }
}

TEST(Iallreduce, SumInPlaceAndAMatrixProduct) {
  const int me = rank(), p = size();
  std::vector<long> v(1000);
  for (int i = 0; i < 1000; ++i) v[i] = input(me, i);
  MPI_Request r;
  ASSERT_EQ(MPI_Iallreduce(MPI_IN_PLACE, v.data(), 1000, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int i = 0; i < 1000; ++i) {
    long want = 0;
    for (int q = 0; q < p; ++q) want += input(q, i);
    ASSERT_EQ(v[i], want) << i;
  }
  MatOp m;
  Mat in[2], out[2];
  for (int k = 0; k < 2; ++k) in[k] = mat_of(me, k);
  ASSERT_EQ(MPI_Iallreduce(in, out, 2, m.type, m.op, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int k = 0; k < 2; ++k) EXPECT_EQ(out[k], product(0, p, k)) << k;
}

TEST(Iscan, InclusiveAndExclusiveMatrixProducts) {
  const int me = rank();
  MatOp m;
  Mat in[2], incl[2], excl[2];
  const Mat untouched{9, 9, 9, 9};
  for (int k = 0; k < 2; ++k) in[k] = mat_of(me, k), excl[k] = untouched;
  MPI_Request r[2];
  ASSERT_EQ(MPI_Iscan(in, incl, 2, m.type, m.op, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Iexscan(in, excl, 2, m.type, m.op, MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(incl[k], product(0, me + 1, k)) << k;
    EXPECT_EQ(excl[k], me == 0 ? untouched : product(0, me, k)) << k;
  }
}

TEST(Igather, GatherGathervScatterScatterv) {
  const int me = rank(), p = size();
  const int root = p - 1;
  std::vector<int> mine(3), all(3 * p, -1);
  for (int i = 0; i < 3; ++i) mine[i] = input(me, i);
  MPI_Request r;
  ASSERT_EQ(MPI_Igather(mine.data(), 3, MPI_INT, all.data(), 3, MPI_INT, root, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  if (me == root) {
    for (int q = 0; q < p; ++q)
      for (int i = 0; i < 3; ++i) EXPECT_EQ(all[3 * q + i], input(q, i));
  }
  // Gatherv: rank q sends q+1 ints, placed in reverse rank order.
  std::vector<int> counts(p), displs(p);
  int total = 0;
  for (int q = p - 1; q >= 0; --q) counts[q] = q + 1, displs[q] = total, total += q + 1;
  std::vector<int> gv(total, -1), send(me + 1);
  for (int i = 0; i <= me; ++i) send[i] = input(me, i);
  ASSERT_EQ(MPI_Igatherv(send.data(), me + 1, MPI_INT, gv.data(), counts.data(), displs.data(), MPI_INT, 0,
                         MPI_COMM_WORLD, &r),
            MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  if (me == 0) {
    for (int q = 0; q < p; ++q)
      for (int i = 0; i <= q; ++i) EXPECT_EQ(gv[displs[q] + i], input(q, i));
  }
  // Scatter back what was gathered, then scatterv the v-blocks.
  std::vector<int> back(3, -1);
  ASSERT_EQ(MPI_Iscatter(all.data(), 3, MPI_INT, back.data(), 3, MPI_INT, root, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  EXPECT_EQ(back, mine);
  std::vector<int> vback(me + 1, -1);
  ASSERT_EQ(MPI_Iscatterv(gv.data(), counts.data(), displs.data(), MPI_INT, vback.data(), me + 1, MPI_INT, 0,
                          MPI_COMM_WORLD, &r),
            MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  EXPECT_EQ(vback, send);
}

TEST(Iallgather, AllgatherInPlaceAndAllgathervWithAStridedReceiveType) {
  const int me = rank(), p = size();
  std::vector<int> all(2 * p, -1);
  all[2 * me] = input(me, 0), all[2 * me + 1] = input(me, 1);
  MPI_Request r;
  ASSERT_EQ(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), 2, MPI_INT, MPI_COMM_WORLD, &r),
            MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int q = 0; q < p; ++q)
    for (int i = 0; i < 2; ++i) EXPECT_EQ(all[2 * q + i], input(q, i));
  // Allgatherv into every other int (a resized vector type): q sends q+1.
  MPI_Datatype strided, one_of_two;
  MPI_Type_vector(1, 1, 2, MPI_INT, &strided);
  MPI_Type_create_resized(strided, 0, 2 * sizeof(int), &one_of_two);
  MPI_Type_commit(&one_of_two);
  std::vector<int> counts(p), displs(p);
  int total = 0;
  for (int q = 0; q < p; ++q) counts[q] = q + 1, displs[q] = total, total += q + 1;
  std::vector<int> got(2 * total, -1), send(me + 1);
  for (int i = 0; i <= me; ++i) send[i] = input(me, i);
  ASSERT_EQ(MPI_Iallgatherv(send.data(), me + 1, MPI_INT, got.data(), counts.data(), displs.data(), one_of_two,
                            MPI_COMM_WORLD, &r),
            MPI_SUCCESS);
  MPI_Type_free(&one_of_two);
  MPI_Type_free(&strided);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int q = 0; q < p; ++q)
    for (int i = 0; i <= q; ++i) {
      EXPECT_EQ(got[2 * (displs[q] + i)], input(q, i));
      EXPECT_EQ(got[2 * (displs[q] + i) + 1], -1);
    }
}

TEST(Ialltoall, AlltoallAlltoallvAlltoallw) {
  const int me = rank(), p = size();
  std::vector<int> send(2 * p), recv(2 * p, -1);
  for (int q = 0; q < p; ++q) send[2 * q] = me * 1000 + q, send[2 * q + 1] = -(me * 1000 + q);
  MPI_Request r;
  ASSERT_EQ(MPI_Ialltoall(send.data(), 2, MPI_INT, recv.data(), 2, MPI_INT, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int q = 0; q < p; ++q) {
    EXPECT_EQ(recv[2 * q], q * 1000 + me);
    EXPECT_EQ(recv[2 * q + 1], -(q * 1000 + me));
  }
  // Alltoallv: me sends q+1 ints to q (all me*1000+q); receives me+1 from each.
  std::vector<int> sc(p), sd(p), rc(p), rd(p);
  int st = 0, rt = 0;
  for (int q = 0; q < p; ++q) sc[q] = q + 1, sd[q] = st, st += q + 1, rc[q] = me + 1, rd[q] = rt, rt += me + 1;
  std::vector<int> vs(st), vr(rt, -1);
  for (int q = 0; q < p; ++q)
    for (int i = 0; i < sc[q]; ++i) vs[sd[q] + i] = me * 1000 + q;
  ASSERT_EQ(MPI_Ialltoallv(vs.data(), sc.data(), sd.data(), MPI_INT, vr.data(), rc.data(), rd.data(), MPI_INT,
                           MPI_COMM_WORLD, &r),
            MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int q = 0; q < p; ++q)
    for (int i = 0; i <= me; ++i) EXPECT_EQ(vr[rd[q] + i], q * 1000 + me);
  // Alltoallw: one double to each rank, byte displacements.
  std::vector<double> ws(p), wr(p, -1);
  std::vector<int> ones(p, 1), bd(p);
  std::vector<MPI_Datatype> types(p, MPI_DOUBLE);
  for (int q = 0; q < p; ++q) ws[q] = me + q / 8.0, bd[q] = q * static_cast<int>(sizeof(double));
  ASSERT_EQ(MPI_Ialltoallw(ws.data(), ones.data(), bd.data(), types.data(), wr.data(), ones.data(), bd.data(),
                           types.data(), MPI_COMM_WORLD, &r),
            MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int q = 0; q < p; ++q) EXPECT_EQ(wr[q], q + me / 8.0);
}

TEST(Ireduce_scatter, VariableAndBlockCounts) {
  const int me = rank(), p = size();
  std::vector<int> counts(p);
  int total = 0;
  for (int q = 0; q < p; ++q) counts[q] = q + 1, total += q + 1;
  std::vector<int> in(total), out(me + 1, -1);
  for (int i = 0; i < total; ++i) in[i] = input(me, i);
  MPI_Request r;
  ASSERT_EQ(MPI_Ireduce_scatter(in.data(), out.data(), counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r),
            MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  const int first = me * (me + 1) / 2;
  for (int i = 0; i <= me; ++i) {
    int want = 0;
    for (int q = 0; q < p; ++q) want += input(q, first + i);
    EXPECT_EQ(out[i], want) << i;
  }
  std::vector<int> bin(2 * p), bout(2, -1);
  for (int i = 0; i < 2 * p; ++i) bin[i] = input(me, i);
  ASSERT_EQ(MPI_Ireduce_scatter_block(bin.data(), bout.data(), 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(bout[i], input(p - 1, 2 * me + i));
}

// Six allreduces and six broadcasts outstanding on `comm`, blocking
// collectives meanwhile (whose receives must not take their messages),
// completed last to first and then by MPI_Waitany.
void many_outstanding(MPI_Comm comm) {
  const int me = rank(comm), p = size(comm);
  constexpr int kN = 6;
  std::vector<int> sums(kN), bc(kN, -1);
  std::vector<MPI_Request> reqs(2 * kN);
  for (int j = 0; j < kN; ++j) {
    sums[j] = me + j;
    ASSERT_EQ(MPI_Iallreduce(MPI_IN_PLACE, &sums[j], 1, MPI_INT, MPI_SUM, comm, &reqs[2 * j]), MPI_SUCCESS);
    if (me == j % p) bc[j] = 50 + j;
    ASSERT_EQ(MPI_Ibcast(&bc[j], 1, MPI_INT, j % p, comm, &reqs[2 * j + 1]), MPI_SUCCESS);
  }
  for (int root = 0; root < p; ++root) {
    int b = root == me ? 1000 + root : -1;
    ASSERT_EQ(MPI_Bcast(&b, 1, MPI_INT, root, comm), MPI_SUCCESS);
    EXPECT_EQ(b, 1000 + root);
  }
  int b = me, total = 0;
  ASSERT_EQ(MPI_Allreduce(&b, &total, 1, MPI_INT, MPI_SUM, comm), MPI_SUCCESS);
  EXPECT_EQ(total, p * (p - 1) / 2);
  std::vector<int> all(p, -1);
  ASSERT_EQ(MPI_Allgather(&me, 1, MPI_INT, all.data(), 1, MPI_INT, comm), MPI_SUCCESS);
  for (int q = 0; q < p; ++q) EXPECT_EQ(all[q], q);
  ASSERT_EQ(MPI_Barrier(comm), MPI_SUCCESS);
  for (int j = 2 * kN - 1; j >= kN; --j) ASSERT_EQ(wait(&reqs[j]), MPI_SUCCESS);
  for (int n = 0; n < kN; ++n) {
    int idx;
    ASSERT_EQ(MPI_Waitany(kN, reqs.data(), &idx, MPI_STATUS_IGNORE), MPI_SUCCESS);
    ASSERT_NE(idx, MPI_UNDEFINED);
  }
  for (int j = 0; j < kN; ++j) {
    EXPECT_EQ(sums[j], p * (p - 1) / 2 + p * j) << j;
    EXPECT_EQ(bc[j], 50 + j) << j;
  }
}

TEST(Nonblocking, ManyOutstandingBesideBlockingCollectivesCompletedInAnyOrder) {
  many_outstanding(MPI_COMM_WORLD);
  // A communicator the torus and host algorithms do not serve: the
  // blocking collectives exchange messages.
  MPI_Comm rev;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, 0, size() - rank(), &rev), MPI_SUCCESS);
  many_outstanding(rev);
  MPI_Comm_free(&rev);
}

TEST(Nonblocking, ProgressesWhileTheRanksExchangeMessagesAndTest) {
  // The ring exchange between start and wait needs every rank; the
  // collective moves in its receives and in the MPI_Test loop.
  const int me = rank(), p = size();
  std::vector<double> v(20000, 1.0 + me);
  MPI_Request r;
  ASSERT_EQ(MPI_Iallreduce(MPI_IN_PLACE, v.data(), 20000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  for (int round = 0; round < 5; ++round) {
    int out = me * 10 + round, in = -1;
    ASSERT_EQ(MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % p, 9, &in, 1, MPI_INT, (me - 1 + p) % p, 9, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE),
              MPI_SUCCESS);
    EXPECT_EQ(in, ((me - 1 + p) % p) * 10 + round);
  }
  int flag = 0;
  for (long spins = 0; !flag; ++spins) {
    ASSERT_LT(spins, 100'000'000L);
    ASSERT_EQ(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
  }
  const double want = p + p * (p - 1) / 2.0;
  for (double x : v) ASSERT_EQ(x, want);
}

TEST(Nonblocking, MovesWhileARankBlocksInAReceive) {
  // Rank 0 blocks in MPI_Recv for a message rank 1 sends only after its
  // barrier completed, which takes rank 0's later rounds: they must go out
  // from inside rank 0's receive.
  const int me = rank(), p = size();
  MPI_Request r;
  ASSERT_EQ(MPI_Ibarrier(MPI_COMM_WORLD, &r), MPI_SUCCESS);
  if (p > 1 && me == 0) {
    int v = -1;
    ASSERT_EQ(MPI_Recv(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_EQ(v, 77);
  }
  ASSERT_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
  if (p > 1 && me == 1) {
    const int v = 77;
    ASSERT_EQ(MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD), MPI_SUCCESS);
  }
}

TEST(Nonblocking, OnASubcommunicatorInReverseRankOrder) {
  const int me = rank(), p = size();
  MPI_Comm rev;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &rev), MPI_SUCCESS);
  std::vector<int> all(p, -1);
  int mine = me;
  MPI_Request r;
  ASSERT_EQ(MPI_Iallgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, rev, &r), MPI_SUCCESS);
  ASSERT_EQ(wait(&r), MPI_SUCCESS);
  for (int q = 0; q < p; ++q) EXPECT_EQ(all[q], p - 1 - q);
  MPI_Comm_free(&rev);
}

TEST(Nonblocking, RequestRules) {
  const int me = rank();
  mpitest::ErrorsReturn errors;
  EXPECT_EQ(mpitest::error_class(MPI_Ibarrier(MPI_COMM_WORLD, nullptr)), MPI_ERR_REQUEST);
  int x = me;
  MPI_Request r;
  EXPECT_EQ(mpitest::error_class(MPI_Ibcast(&x, 1, MPI_INT, size(), MPI_COMM_WORLD, &r)), MPI_ERR_ROOT);
  ASSERT_EQ(MPI_Iallreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  MPI_Request copy = r;
  EXPECT_EQ(mpitest::error_class(MPI_Request_free(&copy)), MPI_ERR_REQUEST);
  EXPECT_EQ(mpitest::error_class(MPI_Cancel(&r)), MPI_ERR_REQUEST);
  MPI_Status st;
  ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
  EXPECT_EQ(r, MPI_REQUEST_NULL);
  EXPECT_EQ(x, size() * (size() - 1) / 2);
  int n = -1;
  MPI_Get_count(&st, MPI_INT, &n);
  EXPECT_EQ(n, 0);  // an empty status (§5.12)
}

// Last: a collective the program never completes is completed by
// MPI_Finalize (every rank started it), and the job ends cleanly.
TEST(Nonblocking, LeftForMpiFinalize) {
  static std::vector<double> v(100000, 1.0);  // outlives the test: MPI_Finalize writes it
  MPI_Request r;
  ASSERT_EQ(MPI_Iallreduce(MPI_IN_PLACE, v.data(), 100000, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  MPI_Request b;
  ASSERT_EQ(MPI_Ibarrier(MPI_COMM_WORLD, &b), MPI_SUCCESS);
}

}  // namespace

MPI_TEST_MAIN()
