// Collectives on intercommunicators (MPI-2.2 §5.2.2 and each operation's
// intercommunicator case): the first third of the world (at least one rank)
// against the rest, so the groups differ in size. Every value is a function
// of the sender's world rank and the element's index, checked against what
// the standard says each process receives; some calls use a strided vector
// type, so data is packed and unpacked on the way.
#include <unistd.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "tests/mpi/intercomm_sides.h"
#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::rank;
using mpitest::size;

using mpitest::free_sides;
using mpitest::make_sides;
using mpitest::Sides;

int value(int world, int i) { return 1000 * world + i; }

// The root argument of a rooted call whose root is local rank `root` of
// the low group (low: true) or of the high group.
int root_arg(const Sides& s, bool root_low, int root) {
  if (s.low == root_low) return s.me == root ? MPI_ROOT : MPI_PROC_NULL;
  return root;
}

// No process leaves before every process of the other group entered: each
// posts receives for the other group's "left" messages, waits a while (one
// group comes late, the other next round), and finds none of them arrived
// before it entered `barrier`.
template <typename Barrier>
void check_ordering(const Sides& s, int tag, Barrier barrier) {
  for (int round = 0; round < 3; ++round) {
    std::vector<int> got(s.rn);
    std::vector<MPI_Request> rq(s.rn);
    for (int r = 0; r < s.rn; ++r) MPI_Irecv(&got[r], 1, MPI_INT, r, tag + round, s.inter, &rq[r]);
    if (s.low == (round % 2 == 0)) usleep(20000);
    int flag = 1;
    MPI_Testall(s.rn, rq.data(), &flag, MPI_STATUSES_IGNORE);
    EXPECT_FALSE(flag) << "a remote process left the barrier before this one entered";
    barrier();
    const int one = 1;
    for (int r = 0; r < s.rn; ++r) MPI_Send(&one, 1, MPI_INT, r, tag + round, s.inter);
    MPI_Waitall(s.rn, rq.data(), MPI_STATUSES_IGNORE);
  }
}

TEST(IntercommColl, BarrierLetsNoOneLeaveBeforeTheOtherGroupEntered) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  check_ordering(s, 40, [&] { ASSERT_EQ(MPI_Barrier(s.inter), MPI_SUCCESS); });
  free_sides(s);
}

// Two broadcasts: low group's rank 0 to the high group, 50 contiguous ints;
// the high group's last rank to the low group, every other int of 2 x 30.
struct BcastCase {
  const Sides& s;
  const int high_root, high_root_world;
  std::vector<int> buf = std::vector<int>(50, -1), v = std::vector<int>(60, -1);
  MPI_Datatype strided = MPI_DATATYPE_NULL;
  explicit BcastCase(const Sides& sides)
      : s(sides), high_root(size() - s.low_size - 1), high_root_world(s.low_size + high_root) {
    if (rank() == 0)
      for (int i = 0; i < 50; ++i) buf[i] = value(0, i);
    if (rank() == high_root_world)
      for (int i = 0; i < 60; ++i) v[i] = value(high_root_world, i);
    MPI_Type_vector(30, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
  }
  int low_root() const { return root_arg(s, true, 0); }
  int high_root_arg() const { return root_arg(s, false, high_root); }
  void check() const {
    for (int i = 0; i < 50; ++i) EXPECT_EQ(buf[i], s.low && rank() != 0 ? -1 : value(0, i)) << i;
    for (int i = 0; i < 60; ++i) {
      const bool sent = rank() == high_root_world || (s.low && i % 2 == 0);
      EXPECT_EQ(v[i], sent ? value(high_root_world, i) : -1) << i;
    }
  }
};

TEST(IntercommColl, BcastFromEitherGroupWithAStridedType) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  BcastCase c(s);
  ASSERT_EQ(MPI_Bcast(c.buf.data(), 50, MPI_INT, c.low_root(), s.inter), MPI_SUCCESS);
  ASSERT_EQ(MPI_Bcast(c.v.data(), 1, c.strided, c.high_root_arg(), s.inter), MPI_SUCCESS);
  MPI_Type_free(&c.strided);
  c.check();
  free_sides(s);
}

// The nonblocking forms (MPI-3.1 §5.12): the barrier's ordering probe with
// MPI_Ibarrier completed by a test loop that also moves point-to-point
// traffic between the groups, and MPI_Ibcast from either group.
TEST(IntercommColl, IbarrierAndIbcastCompleteByTestLoopsBesidePointToPoint) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  check_ordering(s, 60, [&] {
    MPI_Request b;
    ASSERT_EQ(MPI_Ibarrier(s.inter, &b), MPI_SUCCESS);
    // Traffic beside it: the leaders swap a word while it runs.
    int ping = rank(), pong = -1;
    MPI_Request pr[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (s.me == 0) {
      MPI_Irecv(&pong, 1, MPI_INT, 0, 90, s.inter, &pr[0]);
      MPI_Isend(&ping, 1, MPI_INT, 0, 90, s.inter, &pr[1]);
    }
    int done = 0;
    while (!done) ASSERT_EQ(MPI_Test(&b, &done, MPI_STATUS_IGNORE), MPI_SUCCESS);
    MPI_Waitall(2, pr, MPI_STATUSES_IGNORE);
    if (s.me == 0) {
      EXPECT_EQ(pong, s.world_of_remote(0));
    }
  });
  // Both broadcasts in flight at once, the strided type freed meanwhile
  // (the operation keeps its own reference).
  BcastCase c(s);
  MPI_Request r[2];
  ASSERT_EQ(MPI_Ibcast(c.buf.data(), 50, MPI_INT, c.low_root(), s.inter, &r[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Ibcast(c.v.data(), 1, c.strided, c.high_root_arg(), s.inter, &r[1]), MPI_SUCCESS);
  MPI_Type_free(&c.strided);
  int done = 0;
  while (!done) ASSERT_EQ(MPI_Test(&r[1], &done, MPI_STATUS_IGNORE), MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&r[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
  c.check();
  free_sides(s);
}

TEST(IntercommColl, ReduceAndAllreduceCombineTheOtherGroup) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  const int n = 7;
  std::vector<int> mine(n), out(n, -1);
  for (int i = 0; i < n; ++i) mine[i] = value(rank(), i);
  auto sum_of_remote = [&](int i) {
    int t = 0;
    for (int r = 0; r < s.rn; ++r) t += value(s.world_of_remote(r), i);
    return t;
  };
  // Allreduce: each process gets the sum over the other group.
  ASSERT_EQ(MPI_Allreduce(mine.data(), out.data(), n, MPI_INT, MPI_SUM, s.inter), MPI_SUCCESS);
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], sum_of_remote(i)) << i;
  // Reduce to the high group's rank 0: the low group's maximum.
  std::fill(out.begin(), out.end(), -1);
  ASSERT_EQ(MPI_Reduce(mine.data(), out.data(), n, MPI_INT, MPI_MAX, root_arg(s, false, 0), s.inter), MPI_SUCCESS);
  const bool root = !s.low && s.me == 0;
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], root ? value(s.low_size - 1, i) : -1) << i;
  free_sides(s);
}

// The nonblocking forms: MPI_Iallreduce (a strided type) and MPI_Ireduce to
// a root that is not its group's leader, both in flight at once, completed
// by a test loop.
TEST(IntercommColl, IallreduceAndIreduceCombineTheOtherGroup) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  const int n = 7;
  MPI_Datatype every_other;
  MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> mine(2 * n), sum(2 * n, -1), max(n, -1);
  for (int i = 0; i < 2 * n; ++i) mine[i] = value(rank(), i);
  MPI_Request rq[2];
  ASSERT_EQ(MPI_Iallreduce(mine.data(), sum.data(), 1, every_other, MPI_SUM, s.inter, &rq[0]), MPI_SUCCESS);
  // To the low group's last rank: the high group's maximum.
  const int low_root = s.low_size - 1;
  ASSERT_EQ(MPI_Ireduce(mine.data(), max.data(), n, MPI_INT, MPI_MAX, root_arg(s, true, low_root), s.inter, &rq[1]),
            MPI_SUCCESS);
  MPI_Type_free(&every_other);
  int done = 0;
  while (!done) ASSERT_EQ(MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  for (int i = 0; i < 2 * n; ++i) {
    int t = 0;
    for (int r = 0; r < s.rn; ++r) t += value(s.world_of_remote(r), i);
    EXPECT_EQ(sum[i], i % 2 == 0 ? t : -1) << i;
  }
  const bool root = s.low && s.me == low_root;
  for (int i = 0; i < n; ++i) EXPECT_EQ(max[i], root ? value(size() - 1, i) : -1) << i;
  free_sides(s);
}

// The data-moving collectives' tests run twice: blocking, and as the
// MPI_I... form completed by a test loop (MPI-3.1 §5.12) with the same
// arguments and expectations.
bool g_nonblocking = false;
MPI_Request g_request = MPI_REQUEST_NULL;
int completed(int started) {
  if (started != MPI_SUCCESS) return started;
  int done = 0;
  while (!done)
    if (int e = MPI_Test(&g_request, &done, MPI_STATUS_IGNORE)) return e;
  return MPI_SUCCESS;
}
struct NonblockingForms {
  NonblockingForms() { g_nonblocking = true; }
  ~NonblockingForms() { g_nonblocking = false; }
};
#define COLL(BLOCKING, NONBLOCKING, ...) \
  (g_nonblocking ? completed(MPI_##NONBLOCKING(__VA_ARGS__, &g_request)) : MPI_##BLOCKING(__VA_ARGS__))

void reduce_scatter_case() {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  // Both groups reduce `total` elements: the low group in blocks of
  // total / low_size, the high group in blocks of 1 and one long last block.
  const int total = 12 * s.n * s.rn;
  std::vector<int> counts(s.n);
  if (s.low) std::fill(counts.begin(), counts.end(), total / s.n);
  else {
    std::fill(counts.begin(), counts.end(), 1);
    counts.back() = total - (s.n - 1);
  }
  std::vector<int> mine(total), out(counts[s.me], -1);
  for (int i = 0; i < total; ++i) mine[i] = value(rank(), i);
  ASSERT_EQ(COLL(Reduce_scatter, Ireduce_scatter, mine.data(), out.data(), counts.data(), MPI_INT, MPI_SUM, s.inter), MPI_SUCCESS);
  const int first = std::accumulate(counts.begin(), counts.begin() + s.me, 0);
  for (int k = 0; k < counts[s.me]; ++k) {
    int t = 0;
    for (int r = 0; r < s.rn; ++r) t += value(s.world_of_remote(r), first + k);
    EXPECT_EQ(out[k], t) << k;
  }
  // Block form: recvcount * local size elements, the same total both sides.
  const int rc = total / s.n;
  std::vector<int> blk(rc, -1);
  ASSERT_EQ(COLL(Reduce_scatter_block, Ireduce_scatter_block, mine.data(), blk.data(), rc, MPI_INT, MPI_SUM, s.inter), MPI_SUCCESS);
  for (int k = 0; k < rc; ++k) {
    int t = 0;
    for (int r = 0; r < s.rn; ++r) t += value(s.world_of_remote(r), s.me * rc + k);
    EXPECT_EQ(blk[k], t) << k;
  }
  free_sides(s);
}

TEST(IntercommColl, ReduceScatterSpreadsTheOtherGroupsSum) { reduce_scatter_case(); }

TEST(IntercommColl, ReduceScatterSpreadsTheOtherGroupsSumNonblocking) {
  const NonblockingForms on;
  reduce_scatter_case();
}

void gather_scatter_case() {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  const int b = 5;
  // Gather to the low group's rank 0 from every high process.
  std::vector<int> mine(b), all(b * s.rn + 1, -1);
  for (int i = 0; i < b; ++i) mine[i] = value(rank(), i);
  ASSERT_EQ(COLL(Gather, Igather, mine.data(), b, MPI_INT, all.data(), b, MPI_INT, root_arg(s, true, 0), s.inter), MPI_SUCCESS);
  const bool root = s.low && s.me == 0;
  for (int r = 0; r < s.rn; ++r)
    for (int i = 0; i < b; ++i) EXPECT_EQ(all[r * b + i], root ? value(s.world_of_remote(r), i) : -1);
  EXPECT_EQ(all[b * s.rn], -1);
  // Gatherv to the high group's rank 0: remote rank r sends r + 1 ints,
  // placed in reverse order.
  std::vector<int> counts(s.rn), displs(s.rn);
  int at = 0;
  for (int r = s.rn - 1; r >= 0; --r) counts[r] = r + 1, displs[r] = at, at += r + 1;
  std::vector<int> v(at + 1, -1);
  const int my_count = s.me + 1;
  ASSERT_EQ(COLL(Gatherv, Igatherv, mine.data(), my_count > b ? b : my_count, MPI_INT, v.data(), counts.data(), displs.data(),
                        MPI_INT, root_arg(s, false, 0), s.inter),
            MPI_SUCCESS);
  const bool vroot = !s.low && s.me == 0;
  if (vroot) {
    for (int r = 0; r < s.rn; ++r)
      for (int i = 0; i <= r; ++i) EXPECT_EQ(v[displs[r] + i], value(s.world_of_remote(r), i));
  }
  EXPECT_EQ(v[at], -1);
  // Scatter from the high group's last rank: block r to low rank r.
  const int sroot = s.low ? s.rn - 1 : s.n - 1;
  std::vector<int> src(b * s.rn), got(b, -1);
  for (int i = 0; i < b * s.rn; ++i) src[i] = value(rank(), i);
  ASSERT_EQ(COLL(Scatter, Iscatter, src.data(), b, MPI_INT, got.data(), b, MPI_INT, root_arg(s, false, sroot), s.inter),
            MPI_SUCCESS);
  if (s.low) {
    for (int i = 0; i < b; ++i) EXPECT_EQ(got[i], value(s.world_of_remote(sroot), s.me * b + i));
  }
  // Scatterv from the low group's rank 0: high rank r gets r % 3 ints from offset 2r.
  std::vector<int> sc(s.rn), sd(s.rn), src2(2 * s.rn + 3);
  for (int r = 0; r < s.rn; ++r) sc[r] = r % 3, sd[r] = 2 * r;
  for (std::size_t i = 0; i < src2.size(); ++i) src2[i] = value(rank(), static_cast<int>(i));
  std::vector<int> got2(3, -1);
  ASSERT_EQ(COLL(Scatterv, Iscatterv, src2.data(), sc.data(), sd.data(), MPI_INT, got2.data(), s.me % 3, MPI_INT,
                         root_arg(s, true, 0), s.inter),
            MPI_SUCCESS);
  if (!s.low) {
    for (int i = 0; i < 3; ++i) EXPECT_EQ(got2[i], i < s.me % 3 ? value(0, 2 * s.me + i) : -1);
  }
  free_sides(s);
}

TEST(IntercommColl, GatherAndScatterBetweenARootAndTheOtherGroup) { gather_scatter_case(); }

TEST(IntercommColl, GatherAndScatterBetweenARootAndTheOtherGroupNonblocking) {
  const NonblockingForms on;
  gather_scatter_case();
}

void allgather_alltoall_case() {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  // The groups send different amounts (allowed): low 3 ints, high 2.
  const int mine_n = s.low ? 3 : 2, theirs_n = s.low ? 2 : 3;
  std::vector<int> mine(mine_n), all(theirs_n * s.rn, -1);
  for (int i = 0; i < mine_n; ++i) mine[i] = value(rank(), i);
  ASSERT_EQ(COLL(Allgather, Iallgather, mine.data(), mine_n, MPI_INT, all.data(), theirs_n, MPI_INT, s.inter), MPI_SUCCESS);
  for (int r = 0; r < s.rn; ++r)
    for (int i = 0; i < theirs_n; ++i) EXPECT_EQ(all[r * theirs_n + i], value(s.world_of_remote(r), i));
  // Allgatherv with a strided receive type: remote rank r's ints every other slot.
  MPI_Datatype strided;
  MPI_Type_vector(theirs_n, 1, 2, MPI_INT, &strided);
  MPI_Datatype resized;
  MPI_Type_create_resized(strided, 0, 2 * theirs_n * static_cast<MPI_Aint>(sizeof(int)), &resized);
  MPI_Type_commit(&resized);
  std::vector<int> counts(s.rn, 1), displs(s.rn), spread(2 * theirs_n * s.rn, -1);
  for (int r = 0; r < s.rn; ++r) displs[r] = s.rn - 1 - r;  // reversed
  ASSERT_EQ(COLL(Allgatherv, Iallgatherv, mine.data(), mine_n, MPI_INT, spread.data(), counts.data(), displs.data(), resized, s.inter),
            MPI_SUCCESS);
  for (int r = 0; r < s.rn; ++r)
    for (int i = 0; i < 2 * theirs_n; ++i)
      EXPECT_EQ(spread[displs[r] * 2 * theirs_n + i], i % 2 ? -1 : value(s.world_of_remote(r), i / 2));
  MPI_Type_free(&resized);
  MPI_Type_free(&strided);
  // Alltoall: block r (2 ints) to remote rank r, tagged with both ends.
  std::vector<int> out(2 * s.rn), in(2 * s.rn, -1);
  for (int r = 0; r < s.rn; ++r) out[2 * r] = rank(), out[2 * r + 1] = s.world_of_remote(r);
  ASSERT_EQ(COLL(Alltoall, Ialltoall, out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, s.inter), MPI_SUCCESS);
  for (int r = 0; r < s.rn; ++r) {
    EXPECT_EQ(in[2 * r], s.world_of_remote(r));
    EXPECT_EQ(in[2 * r + 1], rank());
  }
  // Alltoallv: to remote rank r, (my world rank + r) % 3 ints.
  std::vector<int> sc(s.rn), sd(s.rn), rc(s.rn), rd(s.rn);
  int sat = 0, rat = 0;
  for (int r = 0; r < s.rn; ++r) {
    sc[r] = (rank() + r) % 3, sd[r] = sat, sat += sc[r];
    rc[r] = (s.world_of_remote(r) + s.me) % 3, rd[r] = rat, rat += rc[r];
  }
  std::vector<int> vout(sat + 1), vin(rat + 1, -1);
  for (int r = 0; r < s.rn; ++r)
    for (int i = 0; i < sc[r]; ++i) vout[sd[r] + i] = value(rank(), 10 * r + i);
  ASSERT_EQ(COLL(Alltoallv, Ialltoallv, vout.data(), sc.data(), sd.data(), MPI_INT, vin.data(), rc.data(), rd.data(), MPI_INT,
                          s.inter),
            MPI_SUCCESS);
  for (int r = 0; r < s.rn; ++r)
    for (int i = 0; i < rc[r]; ++i) EXPECT_EQ(vin[rd[r] + i], value(s.world_of_remote(r), 10 * s.me + i));
  EXPECT_EQ(vin[rat], -1);
  // Alltoallw: one double to each remote rank, displacements in bytes.
  std::vector<double> dout(s.rn), din(s.rn, -1);
  std::vector<int> ones(s.rn, 1), bytes(s.rn);
  std::vector<MPI_Datatype> types(s.rn, MPI_DOUBLE);
  for (int r = 0; r < s.rn; ++r) dout[r] = rank() + 0.5 * r, bytes[r] = r * static_cast<int>(sizeof(double));
  ASSERT_EQ(COLL(Alltoallw, Ialltoallw, dout.data(), ones.data(), bytes.data(), types.data(), din.data(), ones.data(), bytes.data(),
                          types.data(), s.inter),
            MPI_SUCCESS);
  for (int r = 0; r < s.rn; ++r) EXPECT_EQ(din[r], s.world_of_remote(r) + 0.5 * s.me);
  free_sides(s);
}

TEST(IntercommColl, AllgatherAndAlltoallExchangeWithEveryRemoteProcess) { allgather_alltoall_case(); }

TEST(IntercommColl, AllgatherAndAlltoallExchangeWithEveryRemoteProcessNonblocking) {
  const NonblockingForms on;
  allgather_alltoall_case();
}

TEST(IntercommColl, BadArgumentsAndUndefinedOperations) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  Sides s = make_sides();
  mpitest::ErrorsReturn errors_return;
  MPI_Comm_set_errhandler(s.inter, MPI_ERRORS_RETURN);
  int x = 1, y = 0;
  // Every process fails these before any message moves.
  EXPECT_EQ(mpitest::error_class(MPI_Bcast(&x, 1, MPI_INT, s.rn, s.inter)), MPI_ERR_ROOT);
  EXPECT_EQ(mpitest::error_class(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, s.inter)), MPI_ERR_ARG);
  EXPECT_EQ(mpitest::error_class(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, s.inter)), MPI_ERR_COMM);
  EXPECT_EQ(mpitest::error_class(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, s.inter)), MPI_ERR_COMM);
  MPI_Request rq;
  EXPECT_EQ(mpitest::error_class(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, s.inter, &rq)), MPI_ERR_COMM);
  EXPECT_EQ(mpitest::error_class(MPI_Iallgather(&x, 1, MPI_INT, &y, 1, MPI_INT, s.inter, nullptr)), MPI_ERR_REQUEST);
  EXPECT_EQ(mpitest::error_class(MPI_Igather(&x, 1, MPI_INT, &y, 1, MPI_INT, s.rn, s.inter, &rq)), MPI_ERR_ROOT);
  EXPECT_EQ(mpitest::error_class(MPI_Iallreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, s.inter, &rq)), MPI_ERR_ARG);
  EXPECT_EQ(mpitest::error_class(MPI_Ireduce(&x, &y, 1, MPI_INT, MPI_SUM, s.rn, s.inter, &rq)), MPI_ERR_ROOT);
  EXPECT_EQ(mpitest::error_class(MPI_Ibarrier(s.inter, nullptr)), MPI_ERR_REQUEST);
  EXPECT_EQ(mpitest::error_class(MPI_Ibcast(&x, 1, MPI_INT, s.rn, s.inter, &rq)), MPI_ERR_ROOT);
  EXPECT_EQ(mpitest::error_class(MPI_Ibcast(&x, 1, MPI_INT, MPI_ROOT, s.inter, nullptr)), MPI_ERR_REQUEST);
  // The intercommunicator still works after them, and after a dup.
  MPI_Comm dup;
  ASSERT_EQ(MPI_Comm_dup(s.inter, &dup), MPI_SUCCESS);
  ASSERT_EQ(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup), MPI_SUCCESS);
  EXPECT_EQ(y, s.rn);
  MPI_Comm_free(&dup);
  free_sides(s);
}

// Many collectives on freshly made intercommunicators: each one's local
// communicator is freed with it (no handle or context leaks, no crosstalk).
TEST(IntercommColl, ManyIntercommunicatorsComeAndGo) {
  if (size() < 2) GTEST_SKIP() << "needs two groups";
  for (int k = 0; k < 40; ++k) {
    Sides s = make_sides();
    int x = rank(), y = -1;
    ASSERT_EQ(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, s.inter), MPI_SUCCESS);
    EXPECT_EQ(y, s.world_of_remote(s.rn - 1));
    free_sides(s);
  }
}

}  // namespace

MPI_TEST_MAIN()
