// MPI-1.1 §4, collective communication: the fourteen collectives, every
// predefined reduction operation on every type it is defined for, and user
// operations (commutative, and a non-commutative one that must combine in
// rank order), each checked against a serial reference computed from every
// rank's inputs.
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::rank;
using mpitest::size;

constexpr int kCount = 7;

// Input element i of rank r for a reduction: small, so products do not
// overflow, and with ties across ranks (MAXLOC/MINLOC tie-breaks).
template <typename T>
T input(int r, int i) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(((r * 7 + i * 3) % 5) + 0.5);
  else return static_cast<T>(((r * 7 + i * 3) % 5) + (i == 0 ? 0 : 1));
}

template <typename T>
T apply(MPI_Op op, T a, T b) {
  if (op == MPI_MAX) return a < b ? b : a;
  if (op == MPI_MIN) return b < a ? b : a;
  if (op == MPI_SUM) return static_cast<T>(a + b);
  if (op == MPI_PROD) return static_cast<T>(a * b);
  if constexpr (std::is_integral_v<T>) {
    if (op == MPI_LAND) return static_cast<T>(a && b);
    if (op == MPI_LOR) return static_cast<T>(a || b);
    if (op == MPI_LXOR) return static_cast<T>(!a != !b);
    if (op == MPI_BAND) return static_cast<T>(a & b);
    if (op == MPI_BOR) return static_cast<T>(a | b);
    if (op == MPI_BXOR) return static_cast<T>(a ^ b);
  }
  ADD_FAILURE() << "no reference for op " << op;
  return a;
}

// Reference: the op over ranks lo..hi of element i.
template <typename T>
T reference(MPI_Op op, int lo, int hi, int i) {
  T x = input<T>(lo, i);
  for (int r = lo + 1; r <= hi; ++r) x = apply(op, x, input<T>(r, i));
  return x;
}

template <typename T>
void check_reductions(MPI_Datatype type, MPI_Op op, const char* what) {
  SCOPED_TRACE(what);
  const int p = size(), me = rank();
  std::vector<T> in(kCount), out(kCount);
  for (int i = 0; i < kCount; ++i) in[i] = input<T>(me, i);
  auto near = [](T a, T b) {
    if constexpr (std::is_floating_point_v<T>) return std::fabs(static_cast<double>(a - b)) <= 1e-6 * (1 + std::fabs(static_cast<double>(b)));
    else return a == b;
  };
  ASSERT_EQ(MPI_Allreduce(in.data(), out.data(), kCount, type, op, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int i = 0; i < kCount; ++i) EXPECT_TRUE(near(out[i], reference<T>(op, 0, p - 1, i))) << "allreduce " << i;
  const int root = p - 1;
  std::fill(out.begin(), out.end(), T{});
  ASSERT_EQ(MPI_Reduce(in.data(), out.data(), kCount, type, op, root, MPI_COMM_WORLD), MPI_SUCCESS);
  if (me == root) {
    for (int i = 0; i < kCount; ++i) EXPECT_TRUE(near(out[i], reference<T>(op, 0, p - 1, i))) << "reduce " << i;
  }
  ASSERT_EQ(MPI_Scan(in.data(), out.data(), kCount, type, op, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int i = 0; i < kCount; ++i) EXPECT_TRUE(near(out[i], reference<T>(op, 0, me, i))) << "scan " << i;
  // Reduce_scatter: rank r gets r % 3 + 1 elements of a vector of the sum.
  std::vector<int> counts(p);
  for (int r = 0; r < p; ++r) counts[r] = r % 3 + 1;
  const int total = std::accumulate(counts.begin(), counts.end(), 0);
  std::vector<T> big(total), mine(counts[me]);
  for (int i = 0; i < total; ++i) big[i] = input<T>(me, i % kCount);
  ASSERT_EQ(MPI_Reduce_scatter(big.data(), mine.data(), counts.data(), type, op, MPI_COMM_WORLD), MPI_SUCCESS);
  const int first = std::accumulate(counts.begin(), counts.begin() + me, 0);
  for (int i = 0; i < counts[me]; ++i)
    EXPECT_TRUE(near(mine[i], reference<T>(op, 0, p - 1, (first + i) % kCount))) << "reduce_scatter " << i;
}

#define CHECK_ARITH(T, type)                                                   \
  for (MPI_Op op : {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD}) check_reductions<T>(type, op, #T);
#define CHECK_INT(T, type)                                                                      \
  CHECK_ARITH(T, type)                                                                          \
  for (MPI_Op op : {MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR}) check_reductions<T>(type, op, #T);

TEST(Coll, EveryPredefinedOpOnEveryTypeItIsDefinedFor) {
  CHECK_INT(int, MPI_INT)
  CHECK_INT(long, MPI_LONG)
  CHECK_INT(short, MPI_SHORT)
  CHECK_INT(unsigned short, MPI_UNSIGNED_SHORT)
  CHECK_INT(unsigned, MPI_UNSIGNED)
  CHECK_INT(unsigned long, MPI_UNSIGNED_LONG)
  CHECK_INT(long long, MPI_LONG_LONG_INT)
  CHECK_INT(unsigned long long, MPI_UNSIGNED_LONG_LONG)
  CHECK_INT(signed char, MPI_SIGNED_CHAR)
  CHECK_INT(unsigned char, MPI_UNSIGNED_CHAR)
  CHECK_ARITH(float, MPI_FLOAT)
  CHECK_ARITH(double, MPI_DOUBLE)
  CHECK_ARITH(long double, MPI_LONG_DOUBLE)
  for (MPI_Op op : {MPI_BAND, MPI_BOR, MPI_BXOR}) check_reductions<unsigned char>(MPI_BYTE, op, "MPI_BYTE");
}

// I: the index type, int in C's pairs and the value's type in Fortran's.
template <typename V, typename I = int>
void check_loc(MPI_Datatype type) {
  struct Pair {
    V v;
    I i;
  };
  const int p = size(), me = rank();
  std::vector<Pair> in(kCount), out(kCount);
  for (int k = 0; k < kCount; ++k) in[k] = {input<V>(me, k), static_cast<I>(me)};
  for (MPI_Op op : {MPI_MAXLOC, MPI_MINLOC}) {
    ASSERT_EQ(MPI_Allreduce(in.data(), out.data(), kCount, type, op, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < kCount; ++k) {
      Pair best{input<V>(0, k), 0};
      for (int r = 1; r < p; ++r) {
        const V v = input<V>(r, k);
        if (op == MPI_MAXLOC ? v > best.v : v < best.v) best = {v, static_cast<I>(r)};  // ties keep the lower rank
      }
      EXPECT_EQ(out[k].v, best.v) << k;
      EXPECT_EQ(out[k].i, best.i) << k;
    }
  }
}

TEST(Coll, MaxlocAndMinlocOnEveryPairType) {
  check_loc<float>(MPI_FLOAT_INT);
  check_loc<double>(MPI_DOUBLE_INT);
  check_loc<long>(MPI_LONG_INT);
  check_loc<short>(MPI_SHORT_INT);
  check_loc<int>(MPI_2INT);
  check_loc<long double>(MPI_LONG_DOUBLE_INT);
}

// The Fortran types, as a C program may name them (MPI-1.1 §4.9.2).
TEST(Coll, FortranTypesTakeTheOpsDefinedForThem) {
  CHECK_ARITH(std::int32_t, MPI_INTEGER)
  for (MPI_Op op : {MPI_BAND, MPI_BOR, MPI_BXOR}) check_reductions<std::int32_t>(MPI_INTEGER, op, "MPI_INTEGER");
  CHECK_ARITH(std::int8_t, MPI_INTEGER1)
  CHECK_ARITH(std::int16_t, MPI_INTEGER2)
  CHECK_ARITH(std::int32_t, MPI_INTEGER4)
  CHECK_ARITH(std::int64_t, MPI_INTEGER8)
  CHECK_ARITH(float, MPI_REAL)
  CHECK_ARITH(float, MPI_REAL4)
  CHECK_ARITH(double, MPI_DOUBLE_PRECISION)
  CHECK_ARITH(double, MPI_REAL8)
  check_loc<float, float>(MPI_2REAL);
  check_loc<double, double>(MPI_2DOUBLE_PRECISION);
  check_loc<std::int32_t, std::int32_t>(MPI_2INTEGER);
}

TEST(Coll, ComplexSumsAndProducts) {
  const int p = size(), me = rank();
  std::complex<float> z(1.0f + me, 1.0f), sum, prod;
  ASSERT_EQ(MPI_Allreduce(&z, &sum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Allreduce(&z, &prod, 1, MPI_COMPLEX, MPI_PROD, MPI_COMM_WORLD), MPI_SUCCESS);
  std::complex<float> want_sum(0, 0), want_prod(1, 0);
  for (int r = 0; r < p; ++r) want_sum += std::complex<float>(1.0f + r, 1.0f), want_prod *= std::complex<float>(1.0f + r, 1.0f);
  EXPECT_NEAR(std::abs(sum - want_sum), 0, 1e-4);
  EXPECT_NEAR(std::abs(prod - want_prod), 0, 1e-4 * std::abs(want_prod));
  std::complex<double> w(0.5 * me, -1.0), wsum;
  ASSERT_EQ(MPI_Allreduce(&w, &wsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_DOUBLE_EQ(wsum.real(), 0.25 * p * (p - 1));
  EXPECT_DOUBLE_EQ(wsum.imag(), -p);
}

TEST(Coll, LogicalOpsGiveFortranTrueAndFalse) {
  const int p = size(), me = rank();
  const std::int32_t odd = me % 2;  // gfortran's .TRUE. is 1
  std::int32_t land = -1, lor = -1, lxor = -1;
  ASSERT_EQ(MPI_Allreduce(&odd, &land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Allreduce(&odd, &lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Allreduce(&odd, &lxor, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(land, 0);  // rank 0 is even: .FALSE.
  EXPECT_EQ(lor, p > 1 ? 1 : 0);
  EXPECT_EQ(lxor, (p / 2) % 2);  // an odd number of odd ranks
}

TEST(Coll, FortranTypesRefuseOpsTheyAreNotDefinedFor) {
  mpitest::ErrorsReturn er;
  std::int32_t i = 1, j;
  EXPECT_EQ(mpitest::error_class(MPI_Allreduce(&i, &j, 1, MPI_INTEGER, MPI_LAND, MPI_COMM_WORLD)), MPI_ERR_OP);
  EXPECT_EQ(mpitest::error_class(MPI_Allreduce(&i, &j, 1, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD)), MPI_ERR_OP);
  std::complex<float> z, w;
  EXPECT_EQ(mpitest::error_class(MPI_Allreduce(&z, &w, 1, MPI_COMPLEX, MPI_MAX, MPI_COMM_WORLD)), MPI_ERR_OP);
  char c = 'a', d;
  EXPECT_EQ(mpitest::error_class(MPI_Allreduce(&c, &d, 1, MPI_CHARACTER, MPI_MAX, MPI_COMM_WORLD)), MPI_ERR_OP);
}

TEST(Coll, PredefinedOpsRefuseTypesTheyAreNotDefinedFor) {
  mpitest::ErrorsReturn er;
  double d = 1, e;
  EXPECT_EQ(mpitest::error_class(MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD)), MPI_ERR_OP);
  int i = 1, j;
  EXPECT_EQ(mpitest::error_class(MPI_Allreduce(&i, &j, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD)), MPI_ERR_OP);
  EXPECT_EQ(mpitest::error_class(MPI_Reduce(&i, &j, 1, MPI_INT, MPI_SUM, size(), MPI_COMM_WORLD)), MPI_ERR_ROOT);
}

// Counts of 0 with NULL buffers on every rank are valid in every collective
// (MPI-1.1 §4.2: the buffers are not touched). Repeated, so that every rank
// is the last to arrive at a host-local combine some time: before, a
// combine of no bytes into a NULL buffer on 3 or more ranks of one host
// failed on all but the last with MPI_ERR_INTERN.
TEST(Coll, EveryCollectiveTakesNullBuffersWithZeroCounts) {
  mpitest::ErrorsReturn er;
  const int p = size();
  std::vector<int> zeros(static_cast<std::size_t>(p), 0);
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(p), MPI_INT);
  const int* z = zeros.data();
  const MPI_Comm w = MPI_COMM_WORLD;
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_EQ(MPI_Allreduce(nullptr, nullptr, 0, MPI_INT, MPI_SUM, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Allreduce(MPI_IN_PLACE, nullptr, 0, MPI_DOUBLE, MPI_MAX, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Reduce(nullptr, nullptr, 0, MPI_INT, MPI_SUM, 0, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Bcast(nullptr, 0, MPI_INT, p - 1, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Scan(nullptr, nullptr, 0, MPI_INT, MPI_SUM, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Reduce_scatter(nullptr, nullptr, z, MPI_INT, MPI_SUM, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Allgather(nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Allgatherv(nullptr, 0, MPI_INT, nullptr, z, z, MPI_INT, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Gather(nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, 0, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Gatherv(nullptr, 0, MPI_INT, nullptr, z, z, MPI_INT, 0, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Scatter(nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, 0, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Scatterv(nullptr, z, z, MPI_INT, nullptr, 0, MPI_INT, 0, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Alltoall(nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, w), MPI_SUCCESS);
    EXPECT_EQ(MPI_Alltoallv(nullptr, z, z, MPI_INT, nullptr, z, z, MPI_INT, w), MPI_SUCCESS);
    if (HasFailure()) return;
  }
}

// A bad count, datatype, buffer or root of a collective: the error class,
// and a text naming the call and the argument (MPI-1.1 §4.2's argument names).
TEST(Coll, BadArgumentsNameTheCallAndTheArgument) {
  mpitest::ErrorsReturn er;
  const int p = size();
  using mpitest::error_text;
  auto expect = [&](int code, int cls, const std::string& call, const std::string& says) {
    EXPECT_EQ(mpitest::error_class(code), cls) << error_text(code);
    const std::string t = error_text(code);
    EXPECT_NE(t.find(call), std::string::npos) << t;
    EXPECT_NE(t.find(says), std::string::npos) << t;
  };
  int x[4] = {0, 0, 0, 0};
  expect(MPI_Bcast(x, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Bcast", "count = -1 is negative");
  expect(MPI_Bcast(x, 1, 9999, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Bcast", "type is not a valid datatype (9999)");
  expect(MPI_Bcast(nullptr, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bcast", "buf is NULL");
  expect(MPI_Bcast(x, 1, MPI_INT, p, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast", "root = " + std::to_string(p));
  std::vector<int> all(static_cast<std::size_t>(p));
  expect(MPI_Allgather(x, -2, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Allgather",
         "sendcount = -2 is negative");
  expect(MPI_Allgather(x, 1, MPI_INT, all.data(), -2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Allgather",
         "recvcount = -2 is negative");  // (it used to name recvcounts[0], a name the call does not have)
  MPI_Datatype uncommitted;
  MPI_Type_contiguous(2, MPI_INT, &uncommitted);
  expect(MPI_Allgather(x, 1, uncommitted, all.data(), 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Allgather",
         "sendtype has not been committed");
  MPI_Type_free(&uncommitted);
  std::vector<int> counts(static_cast<std::size_t>(p), 1), displs(static_cast<std::size_t>(p));
  std::iota(displs.begin(), displs.end(), 0);
  for (int& d : displs) d *= static_cast<int>(sizeof(int));
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(p), MPI_INT), bad = types;
  bad[static_cast<std::size_t>(p - 1)] = MPI_DATATYPE_NULL;
  expect(MPI_Alltoallw(all.data(), counts.data(), displs.data(), types.data(), all.data(), counts.data(),
                       displs.data(), bad.data(), MPI_COMM_WORLD),
         MPI_ERR_TYPE, "MPI_Alltoallw", "recv[" + std::to_string(p - 1) + "] type");
  counts[0] = -1;
  expect(MPI_Alltoallw(all.data(), counts.data(), displs.data(), types.data(), all.data(), counts.data(),
                       displs.data(), types.data(), MPI_COMM_WORLD),
         MPI_ERR_COUNT, "MPI_Alltoallw", "sendcounts[0] is negative");
  // Nothing was left half done: a good call still works.
  x[0] = rank() == 0 ? 42 : 0;
  ASSERT_EQ(MPI_Bcast(x, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(x[0], 42);
}

// 2x2 integer matrices: a product is not commutative, so the result shows
// whether operands were combined in rank order.
struct Mat {
  long a, b, c, d;
};
void matmul(void* in, void* inout, int* len, MPI_Datatype*) {
  Mat* x = static_cast<Mat*>(in);
  Mat* y = static_cast<Mat*>(inout);
  for (int k = 0; k < *len; ++k) {
    const Mat l = x[k], r = y[k];
    y[k] = {l.a * r.a + l.b * r.c, l.a * r.b + l.b * r.d, l.c * r.a + l.d * r.c, l.c * r.b + l.d * r.d};
  }
}
Mat rank_matrix(int r, int k) { return {1, r + k + 1, 0, 1 + (r + k) % 2}; }
// The product of the matrices of world ranks from, from+step, ..., to.
Mat product(int from, int to, int k, int step = 1) {
  Mat m = rank_matrix(from, k);
  for (int r = from + step; r != to + step; r += step) {
    Mat x = m, y = rank_matrix(r, k);
    int one = 1;
    matmul(&x, &y, &one, nullptr);
    m = y;
  }
  return m;
}

TEST(Coll, NonCommutativeUserOpCombinesInRankOrder) {
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_LONG, &mat);
  MPI_Type_commit(&mat);
  MPI_Op op;
  ASSERT_EQ(MPI_Op_create(matmul, 0, &op), MPI_SUCCESS);
  const int p = size(), me = rank();
  Mat in[3], out[3];
  for (int k = 0; k < 3; ++k) in[k] = rank_matrix(me, k);
  auto same = [](const Mat& x, const Mat& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; };
  ASSERT_EQ(MPI_Allreduce(in, out, 3, mat, op, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(same(out[k], product(0, p - 1, k))) << "allreduce " << k;
  constexpr int kMats = 100;  // 3200 bytes: past the short combine
  std::vector<Mat> long_in(kMats), long_out(kMats);
  for (int k = 0; k < kMats; ++k) long_in[k] = rank_matrix(me, k);
  ASSERT_EQ(MPI_Allreduce(long_in.data(), long_out.data(), kMats, mat, op, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int k = 0; k < kMats; ++k) EXPECT_TRUE(same(long_out[k], product(0, p - 1, k))) << "long allreduce " << k;
  for (int root : {0, p - 1}) {
    std::memset(out, 0, sizeof out);
    ASSERT_EQ(MPI_Reduce(in, out, 3, mat, op, root, MPI_COMM_WORLD), MPI_SUCCESS);
    if (me == root) {
      for (int k = 0; k < 3; ++k) EXPECT_TRUE(same(out[k], product(0, p - 1, k))) << "reduce to " << root;
    }
  }
  ASSERT_EQ(MPI_Scan(in, out, 3, mat, op, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(same(out[k], product(0, me, k))) << "scan " << k;
  // Rank order is the communicator's: reversed, rank i is world rank p-1-i.
  MPI_Comm reversed;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - me, &reversed), MPI_SUCCESS);
  ASSERT_EQ(MPI_Allreduce(in, out, 3, mat, op, reversed), MPI_SUCCESS);
  for (int k = 0; k < 3; ++k) EXPECT_TRUE(same(out[k], product(p - 1, 0, k, -1))) << "reversed allreduce " << k;
  MPI_Comm_free(&reversed);
  MPI_Op_free(&op);
  EXPECT_EQ(op, MPI_OP_NULL);
  MPI_Type_free(&mat);
}

// A sum of doubles in the order binomial reduction takes: pairs of ranks
// first, then pairs of pairs (recursive doubling's order on 2^k ranks, so
// the bits agree with MPICH's and Open MPI's; hypre's regression suite
// compares its 4-rank residuals to the last digit).
double binomial_sum(const std::vector<double>& x, int lo, int n) {
  if (n == 1) return x[lo];
  const int half = n / 2;
  if (lo + half >= static_cast<int>(x.size())) return binomial_sum(x, lo, half);
  return binomial_sum(x, lo, half) + binomial_sum(x, lo + half, half);
}

TEST(Coll, SumsCombinePairsOfRanksFirstAtEveryLength) {
  const int p = size(), me = rank();
  int span = 1;
  while (span < p) span *= 2;
  // 1 on rank 0, half an ulp of 1 elsewhere: in rank order every addition
  // rounds back to 1; pairs of ranks first, the halves add up.
  const double tiny = std::ldexp(1.0, -53);
  std::vector<double> x(p);
  for (int r = 0; r < p; ++r) x[r] = r == 0 ? 1.0 : tiny;
  const double expected = binomial_sum(x, 0, span);
  double in_order = 0;
  for (double v : x) in_order += v;
  if (p >= 4) {
    ASSERT_NE(expected, in_order);  // the case tells the orders apart
  }
  for (int n : {1, 100, 1000}) {  // the short combine, and the long one from 1 KiB
    std::vector<double> in(n, x[me]), out(n, -1);
    ASSERT_EQ(MPI_Allreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], expected) << n << " elements, element " << i;
    out.assign(n, -1);
    ASSERT_EQ(MPI_Reduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    if (me == 0) {
      for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], expected) << "reduce, " << n << " elements, element " << i;
    }
  }
}

// A commutative user op on a struct type with a gap: sums the doubles,
// keeps the largest tag.
struct Tagged {
  double x;
  int tag;
};
void tagged_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  Tagged* a = static_cast<Tagged*>(in);
  Tagged* b = static_cast<Tagged*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = {a[i].x + b[i].x, std::max(a[i].tag, b[i].tag)};
}

TEST(Coll, CommutativeUserOpOnAStructType) {
  MPI_Op op;
  MPI_Op_create(tagged_sum, 1, &op);
  const int p = size(), me = rank();
  Tagged in[2] = {{1.0 * me, me}, {2.0, -me}}, out[2];
  // MPI_DOUBLE_INT is exactly {double, int} with C struct padding.
  ASSERT_EQ(MPI_Allreduce(in, out, 2, MPI_DOUBLE_INT, op, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(out[0].x, p * (p - 1) / 2.0);
  EXPECT_EQ(out[0].tag, p - 1);
  EXPECT_EQ(out[1].x, 2.0 * p);
  EXPECT_EQ(out[1].tag, 0);
  MPI_Op_free(&op);
}

TEST(Coll, BcastFromEveryRootWithABasicAndADerivedType) {
  const int p = size(), me = rank();
  MPI_Datatype strided;
  MPI_Type_vector(50, 1, 3, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  for (int root = 0; root < p; ++root) {
    std::vector<double> v(5000, me == root ? 0 : -1);
    if (me == root) std::iota(v.begin(), v.end(), root * 1.0);
    ASSERT_EQ(MPI_Bcast(v.data(), 5000, MPI_DOUBLE, root, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(v[4999], root + 4999.0);
    std::vector<int> s(150, -1);
    if (me == root)
      for (int i = 0; i < 150; ++i) s[i] = i % 3 == 0 ? root * 100 + i : -2;
    ASSERT_EQ(MPI_Bcast(s.data(), 1, strided, root, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int i = 0; i < 150; ++i) EXPECT_EQ(s[i], i % 3 == 0 ? root * 100 + i : (me == root ? -2 : -1)) << i;
  }
  MPI_Type_free(&strided);
}

TEST(Coll, GatherScatterAndTheirVForms) {
  const int p = size(), me = rank(), root = p / 2;
  // Gather: 3 ints each.
  int mine[3] = {me, me * 10, me * 100};
  std::vector<int> all(3 * p, -1);
  ASSERT_EQ(MPI_Gather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
  if (me == root) {
    for (int r = 0; r < p; ++r) EXPECT_EQ(all[3 * r + 1], r * 10);
  }
  // Gather received as one vector-typed element per rank (type maps differ).
  MPI_Datatype three;
  MPI_Type_contiguous(3, MPI_INT, &three);
  MPI_Type_commit(&three);
  std::fill(all.begin(), all.end(), -1);
  ASSERT_EQ(MPI_Gather(mine, 3, MPI_INT, all.data(), 1, three, root, MPI_COMM_WORLD), MPI_SUCCESS);
  if (me == root) {
    EXPECT_EQ(all[3 * (p - 1) + 2], (p - 1) * 100);
  }
  // Gatherv: rank r sends r+1 ints, placed with a gap of one.
  std::vector<int> counts(p), displs(p);
  for (int r = 0, at = 0; r < p; ++r) counts[r] = r + 1, displs[r] = at, at += r + 2;
  std::vector<int> send(me + 1, me), gv(displs[p - 1] + p + 1, -1);
  ASSERT_EQ(MPI_Gatherv(send.data(), me + 1, MPI_INT, gv.data(), counts.data(), displs.data(), MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
  if (me == root)
    for (int r = 0; r < p; ++r) {
      for (int k = 0; k < r + 1; ++k) EXPECT_EQ(gv[displs[r] + k], r);
      EXPECT_EQ(gv[displs[r] + r + 1], -1) << "gap after rank " << r;
    }
  // Scatter and Scatterv: the inverse.
  std::vector<int> src(3 * p);
  for (int i = 0; i < 3 * p; ++i) src[i] = 1000 + i;
  int got[3] = {-1, -1, -1};
  ASSERT_EQ(MPI_Scatter(src.data(), 3, MPI_INT, got, 3, MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(got[0], 1000 + 3 * me);
  EXPECT_EQ(got[2], 1002 + 3 * me);
  std::vector<int> sv(displs[p - 1] + p + 1);
  for (std::size_t i = 0; i < sv.size(); ++i) sv[i] = static_cast<int>(i);
  std::vector<int> part(me + 1, -1);
  ASSERT_EQ(MPI_Scatterv(sv.data(), counts.data(), displs.data(), MPI_INT, part.data(), me + 1, MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int k = 0; k <= me; ++k) EXPECT_EQ(part[k], displs[me] + k);
  MPI_Type_free(&three);
}

// MPI_Allgather's blocks at i * recvcount * extent(recvtype), whatever the
// types: 2 ints sent arrive as one pair (a contiguous type of extent 8), as
// 2 ints of a strided type (every other int) and as 2 ints resized to an
// extent of 12 bytes, the gaps untouched.
TEST(Coll, AllgatherPlacesBlocksByTheReceiveTypesExtent) {
  const int p = size(), me = rank();
  const int mine[2] = {10 * me + 1, 10 * me + 2};
  MPI_Datatype pair, every_other, padded;
  ASSERT_EQ(MPI_Type_contiguous(2, MPI_INT, &pair), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_vector(2, 1, 2, MPI_INT, &every_other), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_resized(MPI_INT, 0, 12, &padded), MPI_SUCCESS);
  for (MPI_Datatype* t : {&pair, &every_other, &padded}) ASSERT_EQ(MPI_Type_commit(t), MPI_SUCCESS);

  std::vector<int> pairs(2 * p, -1);
  ASSERT_EQ(MPI_Allgather(mine, 2, MPI_INT, pairs.data(), 1, pair, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(pairs[2 * r], 10 * r + 1);
    EXPECT_EQ(pairs[2 * r + 1], 10 * r + 2);
  }
  // every_other: 2 ints 8 bytes apart, extent 12; block r starts at 12 r bytes.
  std::vector<int> strided(3 * p + 1, -1);
  ASSERT_EQ(MPI_Allgather(mine, 2, MPI_INT, strided.data(), 1, every_other, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(strided[3 * r], 10 * r + 1) << "block " << r;
    EXPECT_EQ(strided[3 * r + 2], 10 * r + 2) << "block " << r;
  }
  for (int r = 0; r < p; ++r) EXPECT_EQ(strided[3 * r + 1], -1) << "gap of block " << r;
  // padded: each int in 12 bytes; block r (2 of them) starts at 24 r bytes.
  std::vector<int> spaced(6 * p, -1);
  ASSERT_EQ(MPI_Allgather(mine, 2, MPI_INT, spaced.data(), 2, padded, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(spaced[6 * r], 10 * r + 1) << "block " << r;
    EXPECT_EQ(spaced[6 * r + 3], 10 * r + 2) << "block " << r;
    for (int gap : {1, 2, 4, 5}) EXPECT_EQ(spaced[6 * r + gap], -1) << "gap " << gap << " of block " << r;
  }
  for (MPI_Datatype* t : {&pair, &every_other, &padded}) MPI_Type_free(t);
}

TEST(Coll, AllgatherAlltoallAndTheirVForms) {
  const int p = size(), me = rank();
  double mine[2] = {me + 0.5, -me - 0.5};
  std::vector<double> all(2 * p, 0);
  ASSERT_EQ(MPI_Allgather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int r = 0; r < p; ++r) EXPECT_EQ(all[2 * r + 1], -r - 0.5);
  std::vector<int> counts(p), displs(p);
  for (int r = 0, at = 0; r < p; ++r) counts[r] = (r % 2) + 1, displs[r] = at, at += counts[r] + 1;
  std::vector<int> send(counts[me], me * 3), av(displs[p - 1] + counts[p - 1] + 1, -1);
  ASSERT_EQ(MPI_Allgatherv(send.data(), counts[me], MPI_INT, av.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int r = 0; r < p; ++r) {
    for (int k = 0; k < counts[r]; ++k) EXPECT_EQ(av[displs[r] + k], r * 3);
    EXPECT_EQ(av[displs[r] + counts[r]], -1);
  }
  // Alltoall: block j from rank i is i*100+j.
  std::vector<int> out(p * 2), in(p * 2, -1);
  for (int j = 0; j < p; ++j) out[2 * j] = out[2 * j + 1] = me * 100 + j;
  ASSERT_EQ(MPI_Alltoall(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int i = 0; i < p; ++i) EXPECT_EQ(in[2 * i + 1], i * 100 + me);
  // Alltoallv: rank i sends j+1 copies of (i, j) to rank j.
  std::vector<int> sc(p), sd(p), rc(p), rd(p);
  int st = 0, rt = 0;
  for (int j = 0; j < p; ++j) sc[j] = j + 1, sd[j] = st, st += sc[j], rc[j] = me + 1, rd[j] = rt, rt += rc[j];
  std::vector<int> sbuf(st), rbuf(rt, -1);
  for (int j = 0; j < p; ++j)
    for (int k = 0; k < sc[j]; ++k) sbuf[sd[j] + k] = me * 1000 + j;
  ASSERT_EQ(MPI_Alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_INT, rbuf.data(), rc.data(), rd.data(), MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int i = 0; i < p; ++i)
    for (int k = 0; k < rc[i]; ++k) EXPECT_EQ(rbuf[rd[i] + k], i * 1000 + me);
}

TEST(Coll, InPlaceReductionsTakeTheirDataFromTheReceiveBuffer) {
  const int p = size(), me = rank();
  double v[3] = {1.0 * me, 2.0, -1.0 * me};
  ASSERT_EQ(MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(v[0], p * (p - 1) / 2.0);
  EXPECT_EQ(v[1], 2.0 * p);
  int x = me + 1;
  ASSERT_EQ(MPI_Scan(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD), MPI_SUCCESS);
  int fact = 1;
  for (int r = 1; r <= me + 1; ++r) fact *= r;
  EXPECT_EQ(x, fact);
  int y = me, root = p - 1, out = -1;
  if (me == root) {
    ASSERT_EQ(MPI_Reduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(y, p - 1);
  } else {
    ASSERT_EQ(MPI_Reduce(&y, &out, 1, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD), MPI_SUCCESS);
  }
}

// On one host CLOCK_MONOTONIC (MPI_Wtime) is shared, so a barrier's exits
// can be compared with the last entry.
TEST(Coll, NoRankLeavesTheBarrierBeforeTheLastEnters) {
  const int p = size(), me = rank();
  if (me == p - 1) usleep(200000);
  const double entered = MPI_Wtime();
  ASSERT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
  const double left = MPI_Wtime();
  double last_entry;
  MPI_Allreduce(&entered, &last_entry, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_GE(left, last_entry);
}

// MPI_IN_PLACE (MPI-2 §5.2) in the gathering, scattering and all-to-all
// collectives: the root's (or every rank's) own block stays in recvbuf.
TEST(Coll, InPlaceInEveryCollective) {
  const int p = mpitest::size(), me = mpitest::rank();
  std::vector<int> all(2 * p, -1);
  // Allgather: my two ints are at my place already.
  all[2 * me] = 10 * me, all[2 * me + 1] = 10 * me + 1;
  ASSERT_EQ(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), 2, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int r = 0; r < p; ++r) EXPECT_EQ(all[2 * r + 1], 10 * r + 1);
  // Gather at each root: the root's block is not sent.
  for (int root = 0; root < p; ++root) {
    std::vector<int> got(p, -1);
    int mine = 100 + me;
    if (me == root) got[root] = 100 + root;
    ASSERT_EQ(MPI_Gather(me == root ? MPI_IN_PLACE : &mine, 1, MPI_INT, got.data(), 1, MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
    if (me == root) {
      for (int r = 0; r < p; ++r) EXPECT_EQ(got[r], 100 + r);
    }
  }
  // Scatter: the root keeps its block in sendbuf.
  std::vector<int> blocks(p);
  for (int r = 0; r < p; ++r) blocks[r] = 7 * r;
  int mine = -1;
  ASSERT_EQ(MPI_Scatter(blocks.data(), 1, MPI_INT, me == 0 ? MPI_IN_PLACE : &mine, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_SUCCESS);
  if (me != 0) {
    EXPECT_EQ(mine, 7 * me);
  }
  // Alltoall: block r of my buffer goes to rank r; the answer replaces it.
  std::vector<int> a2a(p);
  for (int r = 0; r < p; ++r) a2a[r] = 1000 * me + r;
  ASSERT_EQ(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a2a.data(), 1, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int r = 0; r < p; ++r) EXPECT_EQ(a2a[r], 1000 * r + me);
  // Reduce_scatter: the full input is in recvbuf.
  std::vector<int> rs(p), counts(p, 1);
  for (int r = 0; r < p; ++r) rs[r] = r + me;
  ASSERT_EQ(MPI_Reduce_scatter(MPI_IN_PLACE, rs.data(), counts.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(rs[0], p * me + p * (p - 1) / 2);
}

// Mismatched counts (MPI-1.1 §4.1 requires them to match): a rank that is
// sent more than its count gets MPI_ERR_TRUNCATE, as with MPICH; a rank that
// is sent less is not told (MPICH neither). Odd ranks pass 3/4 of the count
// of even ones, within one size class of the allreduce algorithms (shared
// memory, dimension exchange, reduce + broadcast, ring), so every rank runs
// the same algorithm (counts in different classes hang, as with MPICH). Rank 1 always receives from an even rank; even ranks
// are never sent more than their count. Issue 15, item 9.
// MPI-1.1 §2.2: sendbuf and recvbuf may not be the same buffer (the
// program meant MPI_IN_PLACE): MPI_ERR_BUFFER where the receive buffer
// counts -- everywhere for MPI_Allreduce, at the root of a rooted one --
// as MPICH's errors/coll/noalias test expects; nonblocking forms too.
// Each erroneous rooted call is followed by a correct one on the ranks
// that did not fail, so no message is left behind.
TEST(Coll, OneBufferAsSendAndReceiveBufferIsRefused) {
  mpitest::ErrorsReturn er;
  const int p = size(), me = rank();
  std::vector<int> buf(static_cast<std::size_t>(p), me), other(static_cast<std::size_t>(p), -1);
  EXPECT_EQ(mpitest::error_class(MPI_Allreduce(buf.data(), buf.data(), 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
  MPI_Request r;
  EXPECT_EQ(mpitest::error_class(MPI_Iallreduce(buf.data(), buf.data(), 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r)),
            MPI_ERR_BUFFER);
  EXPECT_EQ(mpitest::error_class(MPI_Scan(buf.data(), buf.data(), 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
  EXPECT_EQ(mpitest::error_class(MPI_Allgather(buf.data(), 1, MPI_INT, buf.data(), 1, MPI_INT, MPI_COMM_WORLD)),
            MPI_ERR_BUFFER);
  EXPECT_EQ(mpitest::error_class(MPI_Alltoall(buf.data(), 1, MPI_INT, buf.data(), 1, MPI_INT, MPI_COMM_WORLD)),
            MPI_ERR_BUFFER);
  // A send block inside the receive buffer, not at its start (MPICH's
  // noalias2): refused on every rank, so none waits for another.
  EXPECT_EQ(mpitest::error_class(MPI_Allgather(&buf[static_cast<std::size_t>(me)], 1, MPI_INT, buf.data(), 1, MPI_INT,
                                               MPI_COMM_WORLD)),
            MPI_ERR_BUFFER);
  std::vector<int> ones(static_cast<std::size_t>(p), 1), displs(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) displs[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(mpitest::error_class(MPI_Allgatherv(&buf[static_cast<std::size_t>(me)], 1, MPI_INT, buf.data(), ones.data(),
                                                displs.data(), MPI_INT, MPI_COMM_WORLD)),
            MPI_ERR_BUFFER);
  EXPECT_EQ(mpitest::error_class(MPI_Alltoallv(buf.data(), ones.data(), displs.data(), MPI_INT, buf.data(), ones.data(),
                                               displs.data(), MPI_INT, MPI_COMM_WORLD)),
            MPI_ERR_BUFFER);
  EXPECT_EQ(mpitest::error_class(MPI_Reduce_scatter_block(buf.data(), buf.data(), 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)),
            MPI_ERR_BUFFER);
  // Rooted: only the root's receive buffer is aliased.
  if (me == 0) {
    EXPECT_EQ(mpitest::error_class(MPI_Reduce(buf.data(), buf.data(), 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD)), MPI_ERR_BUFFER);
    EXPECT_EQ(mpitest::error_class(MPI_Gather(buf.data(), 1, MPI_INT, buf.data(), 1, MPI_INT, 0, MPI_COMM_WORLD)),
              MPI_ERR_BUFFER);
    EXPECT_EQ(mpitest::error_class(MPI_Scatter(buf.data(), 1, MPI_INT, buf.data(), 1, MPI_INT, 0, MPI_COMM_WORLD)),
              MPI_ERR_BUFFER);
  }
  // The correct forms still work: in place, and separate buffers.
  buf.assign(static_cast<std::size_t>(p), me);
  ASSERT_EQ(MPI_Reduce(me == 0 ? MPI_IN_PLACE : buf.data(), buf.data(), 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
            MPI_SUCCESS);
  if (me == 0) {
    EXPECT_EQ(buf[0], p * (p - 1) / 2);
  }
  ASSERT_EQ(MPI_Gather(&me, 1, MPI_INT, other.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_SUCCESS);
  if (me == 0) {
    for (int i = 0; i < p; ++i) EXPECT_EQ(other[static_cast<std::size_t>(i)], i);
  }
}

// Send and receive buffers that share a pointer or an array but no byte
// are not aliased (PT-Scotch does both): one pointer for both where one
// side moves nothing (its coarsening passes an empty send array, allocated
// at its receive array's address, to MPI_Alltoallv: ranks 1.. send rank 0
// one int each here, rank 0 sends none); send data below the first
// displacement of an MPI_Allgatherv's receive blocks (its graphs' base
// value).
TEST(Coll, BuffersSharingAPointerOrAnArrayButNoByteAreNotAliased) {
  mpitest::ErrorsReturn er;
  const int p = size(), me = rank();
  const std::size_t n = static_cast<std::size_t>(p);
  std::vector<int> sendcounts(n, 0), recvcounts(n, 0), displs(n, 0);
  for (int i = 0; i < p; ++i) displs[static_cast<std::size_t>(i)] = i;
  if (me == 0)
    for (int i = 1; i < p; ++i) recvcounts[static_cast<std::size_t>(i)] = 1;
  else
    sendcounts[0] = 1;
  auto check = [&](const std::vector<int>& buf, const char* what) {
    if (me == 0) {
      for (int i = 1; i < p; ++i) EXPECT_EQ(buf[static_cast<std::size_t>(i)], 10 * i) << what << " from " << i;
    }
  };
  std::vector<int> buf(n, 10 * me);
  ASSERT_EQ(MPI_Alltoallv(buf.data(), sendcounts.data(), displs.data(), MPI_INT, buf.data(), recvcounts.data(),
                          displs.data(), MPI_INT, MPI_COMM_WORLD),
            MPI_SUCCESS);
  check(buf, "MPI_Alltoallv");
  buf.assign(n, 10 * me);
  MPI_Request r;
  ASSERT_EQ(MPI_Ialltoallv(buf.data(), sendcounts.data(), displs.data(), MPI_INT, buf.data(), recvcounts.data(),
                           displs.data(), MPI_INT, MPI_COMM_WORLD, &r),
            MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
  check(buf, "MPI_Ialltoallv");
  buf.assign(n, 10 * me);
  std::vector<int> bytes_displs(n);
  for (int i = 0; i < p; ++i) bytes_displs[static_cast<std::size_t>(i)] = i * static_cast<int>(sizeof(int));
  std::vector<MPI_Datatype> types(n, MPI_INT);
  ASSERT_EQ(MPI_Alltoallw(buf.data(), sendcounts.data(), bytes_displs.data(), types.data(), buf.data(),
                          recvcounts.data(), bytes_displs.data(), types.data(), MPI_COMM_WORLD),
            MPI_SUCCESS);
  check(buf, "MPI_Alltoallw");
  // The root contributes nothing of its own to a gather into that pointer.
  buf.assign(n, 10 * me);
  ASSERT_EQ(MPI_Gatherv(me == 0 ? buf.data() : &buf[static_cast<std::size_t>(me)], me == 0 ? 0 : 1, MPI_INT,
                        buf.data(), recvcounts.data(), displs.data(), MPI_INT, 0, MPI_COMM_WORLD),
            MPI_SUCCESS);
  check(buf, "MPI_Gatherv");
  std::vector<int> both(2 * n, -1), ones(n, 1), above(n);
  both[static_cast<std::size_t>(me)] = 10 * me;
  for (int i = 0; i < p; ++i) above[static_cast<std::size_t>(i)] = p + i;
  ASSERT_EQ(MPI_Allgatherv(&both[static_cast<std::size_t>(me)], 1, MPI_INT, both.data(), ones.data(), above.data(),
                           MPI_INT, MPI_COMM_WORLD),
            MPI_SUCCESS);
  for (int i = 0; i < p; ++i) EXPECT_EQ(both[n + static_cast<std::size_t>(i)], 10 * i) << "MPI_Allgatherv from " << i;
}

TEST(Coll, MismatchedCountsAreTruncationOnTheRanksThatSeeThem) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  mpitest::ErrorsReturn errors_return;
  const bool small = rank() % 2 == 1;
  for (const int n : {12, 512, 3000, 20000}) {
    SCOPED_TRACE("allreduce of " + std::to_string(n) + " ints on even ranks");
    const int count = small ? n * 3 / 4 : n;
    std::vector<int> in(static_cast<std::size_t>(n), 1), out(static_cast<std::size_t>(n), 0);
    const int rc = MPI_Allreduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!small) {
      EXPECT_EQ(rc, MPI_SUCCESS);
    }
    if (rank() == 1) {
      EXPECT_EQ(mpitest::error_class(rc), MPI_ERR_TRUNCATE);
    }
    if (rc != MPI_SUCCESS) {
      EXPECT_EQ(mpitest::error_class(rc), MPI_ERR_TRUNCATE);
    }
  }
  for (const int n : {10, 3000}) {
    SCOPED_TRACE("bcast of " + std::to_string(n) + " ints from rank 0");
    std::vector<int> buf(static_cast<std::size_t>(n), rank());
    const int rc = MPI_Bcast(buf.data(), rank() == 0 ? n : n / 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank() == 0) {
      EXPECT_EQ(rc, MPI_SUCCESS);
    }
    if (rc != MPI_SUCCESS) {
      EXPECT_EQ(mpitest::error_class(rc), MPI_ERR_TRUNCATE);
    }
  }
  // The root sends less than the others take (MPICH's bcastlength): every
  // other rank is told, and has the root's elements; blocking and not.
  for (const bool nonblocking : {false, true})
    for (const int n : {10, 3000, 40000}) {
      SCOPED_TRACE(std::string(nonblocking ? "ibcast" : "bcast") + " of " + std::to_string(n) +
                   " ints where the root sends half");
      std::vector<int> buf(static_cast<std::size_t>(n), rank() == 0 ? 7 : -1);
      const int count = rank() == 0 ? n / 2 : n;
      int rc;
      if (nonblocking) {
        MPI_Request r;
        ASSERT_EQ(MPI_Ibcast(buf.data(), count, MPI_INT, 0, MPI_COMM_WORLD, &r), MPI_SUCCESS);
        rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
      } else {
        rc = MPI_Bcast(buf.data(), count, MPI_INT, 0, MPI_COMM_WORLD);
      }
      if (rank() == 0) {
        EXPECT_EQ(rc, MPI_SUCCESS);
      } else {
        EXPECT_EQ(mpitest::error_class(rc), MPI_ERR_TRUNCATE);
        EXPECT_EQ(std::count(buf.begin(), buf.begin() + n / 2, 7), n / 2);
      }
    }
  {  // The same, the root sending more, nonblocking: the others keep their count.
    std::vector<int> buf(20, rank() == 0 ? 5 : -1);
    MPI_Request r;
    ASSERT_EQ(MPI_Ibcast(buf.data(), rank() == 0 ? 20 : 10, MPI_INT, 0, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    const int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (rank() == 0) {
      EXPECT_EQ(rc, MPI_SUCCESS);
    } else {
      EXPECT_EQ(mpitest::error_class(rc), MPI_ERR_TRUNCATE);
      EXPECT_EQ(std::count(buf.begin(), buf.begin() + 10, 5), 10);
      EXPECT_EQ(std::count(buf.begin() + 10, buf.end(), -1), 10) << "nothing past this rank's count";
    }
  }
  {  // Matching broadcasts after them are whole again.
    std::vector<int> buf(100, rank() == 0 ? 3 : 0);
    ASSERT_EQ(MPI_Bcast(buf.data(), 100, MPI_INT, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(std::count(buf.begin(), buf.end(), 3), 100);
  }
  {  // Gather: rank 1 sends 4 ints where the root takes 2 from each rank.
    std::vector<int> mine(4, rank()), all(static_cast<std::size_t>(2 * size()), -1);
    const int rc = MPI_Gather(mine.data(), rank() == 1 ? 4 : 2, MPI_INT, all.data(), 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank() == 0) EXPECT_EQ(mpitest::error_class(rc), MPI_ERR_TRUNCATE);
    else EXPECT_EQ(rc, MPI_SUCCESS);
  }
  ASSERT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS) << "the job goes on";
}

// Integer sums and products wrap modulo 2^bits (two's complement) rather
// than overflow, which is undefined in C++ (UBSan stopped the library on
// an MPI_SUM of ints whose counts differed between ranks).
TEST(Coll, IntegerSumsAndProductsWrapInsteadOfOverflowing) {
  int i = INT_MAX, io = INT_MAX;
  ASSERT_EQ(MPI_Reduce_local(&i, &io, 1, MPI_INT, MPI_SUM), MPI_SUCCESS);
  EXPECT_EQ(io, -2);
  long long l = LLONG_MIN, lo = -1;
  ASSERT_EQ(MPI_Reduce_local(&l, &lo, 1, MPI_LONG_LONG, MPI_SUM), MPI_SUCCESS);
  EXPECT_EQ(lo, LLONG_MAX);
  lo = -1;
  ASSERT_EQ(MPI_Reduce_local(&l, &lo, 1, MPI_LONG_LONG, MPI_PROD), MPI_SUCCESS);
  EXPECT_EQ(lo, LLONG_MIN);
  unsigned short u = 65535, uo = 65535;  // promoted to int, the product overflows it
  ASSERT_EQ(MPI_Reduce_local(&u, &uo, 1, MPI_UNSIGNED_SHORT, MPI_PROD), MPI_SUCCESS);
  EXPECT_EQ(uo, 1);
  const int p = size();
  int big = INT_MAX, sum = 0;
  ASSERT_EQ(MPI_Allreduce(&big, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(sum, static_cast<int>(static_cast<unsigned>(INT_MAX) * static_cast<unsigned>(p)));
}

// MPI_Reduce_local keeps the operand order: inoutbuf = inbuf (op) inoutbuf.
TEST(Coll, ReduceLocalKeepsTheOperandOrder) {
  MPI_Datatype mat;
  MPI_Type_contiguous(4, MPI_LONG, &mat);
  MPI_Type_commit(&mat);
  MPI_Op op;
  MPI_Op_create(matmul, 0, &op);
  const Mat a = rank_matrix(1, 0), b = rank_matrix(2, 1);
  Mat io = b;
  ASSERT_EQ(MPI_Reduce_local(&a, &io, 1, mat, op), MPI_SUCCESS);
  Mat want = b, left = a;
  int one = 1;
  matmul(&left, &want, &one, nullptr);  // a * b, not b * a
  EXPECT_EQ(io.a, want.a);
  EXPECT_EQ(io.b, want.b);
  EXPECT_EQ(io.c, want.c);
  EXPECT_EQ(io.d, want.d);
  int x = 3, y = 4;
  MPI_Reduce_local(&x, &y, 1, MPI_INT, MPI_PROD);
  EXPECT_EQ(y, 12);
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
}

// MPICH's errors/coll/reduce_local: MPI_IN_PLACE as either operand crashed
// MPI_Reduce_local (it is not defined there), and one buffer as both was
// taken. Each is MPI_ERR_BUFFER.
TEST(Coll, ReduceLocalRefusesInPlaceAndAliasedOperands) {
  mpitest::ErrorsReturn er;
  int a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
  EXPECT_EQ(mpitest::error_class(MPI_Reduce_local(MPI_IN_PLACE, b, 3, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
  EXPECT_EQ(mpitest::error_class(MPI_Reduce_local(a, MPI_IN_PLACE, 3, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
  EXPECT_EQ(mpitest::error_class(MPI_Reduce_local(b, b, 3, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
  EXPECT_EQ(b[0], 4) << "nothing was combined";
  ASSERT_EQ(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM), MPI_SUCCESS);
  EXPECT_EQ(b[2], 9);
}

// MPI_Comm_split_type (MPI-3.1 §6.4.2) is here because the network-namespace
// testbed runs this program with two ranks in each namespace, which meshmp
// counts as hosts (they share no memory across): the shared communicator
// must hold exactly the ranks whose host identity -- the kernel's boot id
// and the network namespace, read here by each rank -- equals this rank's,
// ordered by key.
std::string host_of_this_process() {
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  struct stat st {};
  ::stat("/proc/self/ns/net", &st);
  return boot + "/" + std::to_string(static_cast<unsigned long long>(st.st_ino));
}

TEST(Coll, SplitTypeSharedHoldsTheRanksOfThisHostOrderedByKey) {
  const int me = rank(), p = size();
  char host[64] = {};
  const std::string h = host_of_this_process();
  ASSERT_LT(h.size(), sizeof host);
  std::memcpy(host, h.data(), h.size());
  std::vector<char> hosts(sizeof host * static_cast<std::size_t>(p));
  MPI_Allgather(host, sizeof host, MPI_CHAR, hosts.data(), sizeof host, MPI_CHAR, MPI_COMM_WORLD);
  std::vector<int> expected;  // world ranks on my host, by key = -rank: descending
  for (int r = p - 1; r >= 0; --r)
    if (std::strcmp(&hosts[sizeof host * static_cast<std::size_t>(r)], host) == 0) expected.push_back(r);
  MPI_Comm shared;
  ASSERT_EQ(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -me, MPI_INFO_NULL, &shared), MPI_SUCCESS);
  ASSERT_NE(shared, MPI_COMM_NULL);
  ASSERT_EQ(size(shared), static_cast<int>(expected.size()));
  std::vector<int> members(expected.size());
  MPI_Allgather(&me, 1, MPI_INT, members.data(), 1, MPI_INT, shared);
  EXPECT_EQ(members, expected);
  MPI_Comm_free(&shared);
  MPI_Comm none = MPI_COMM_WORLD;
  ASSERT_EQ(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none), MPI_SUCCESS);
  EXPECT_EQ(none, MPI_COMM_NULL);
  mpitest::ErrorsReturn er;
  MPI_Comm bad;
  EXPECT_EQ(mpitest::error_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &bad)), MPI_ERR_ARG);
}

}  // namespace

MPI_TEST_MAIN()
