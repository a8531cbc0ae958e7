// MPI-2.2 §5.8, §5.10.1, §5.11.2: the collectives MPI-2 added to MPI-1.1's
// -- MPI_Exscan, MPI_Reduce_scatter_block, MPI_Alltoallw -- each checked
// against a serial reference computed from every rank's inputs: predefined
// and non-commutative user operations, MPI_IN_PLACE, derived datatypes, a
// communicator whose rank order is not the world's, and the argument errors.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/mpi/mat_op.h"
#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::rank;
using mpitest::size;

constexpr int kCount = 5;

int input(int r, int i) { return r * 10 + i + 1; }

using mpitest::Mat;
using mpitest::mat_times;
using mpitest::times;

Mat mat_of(int r, int k) {
  const auto u = static_cast<std::uint64_t>(r * 3 + k);
  return {u + 1, u + 2, 1, u};
}

TEST(Exscan, SumOfTheLowerRanksAndRankZeroUntouched) {
  const int me = rank();
  std::vector<int> in(kCount), out(kCount, -7);
  for (int i = 0; i < kCount; ++i) in[i] = input(me, i);
  ASSERT_EQ(MPI_Exscan(in.data(), out.data(), kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int i = 0; i < kCount; ++i) {
    int want = -7;  // rank 0: left as it was
    if (me > 0) {
      want = 0;
      for (int r = 0; r < me; ++r) want += input(r, i);
    }
    EXPECT_EQ(out[i], want) << "element " << i;
  }
  // In place: the data come from the receive buffer.
  for (int i = 0; i < kCount; ++i) out[i] = input(me, i);
  ASSERT_EQ(MPI_Exscan(MPI_IN_PLACE, out.data(), kCount, MPI_INT, MPI_MAX, MPI_COMM_WORLD), MPI_SUCCESS);
  if (me > 0) {
    for (int i = 0; i < kCount; ++i) EXPECT_EQ(out[i], input(me - 1, i)) << "in place, element " << i;
  }
}

TEST(Exscan, NonCommutativeOpCombinesInRankOrder) {
  const int me = rank(), p = size();
  MPI_Datatype mat;
  static_assert(sizeof(unsigned long) == sizeof(std::uint64_t));
  MPI_Type_contiguous(4, MPI_UNSIGNED_LONG, &mat);
  MPI_Type_commit(&mat);
  MPI_Op op;
  MPI_Op_create(mat_times, 0, &op);
  // The world's order and its reverse (rank i is world rank p-1-i).
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - me, &reversed);
  for (MPI_Comm c : {MPI_COMM_WORLD, reversed}) {
    const int cr = rank(c);
    Mat in[3], out[3];
    for (int k = 0; k < 3; ++k) in[k] = mat_of(cr, k), out[k] = Mat{9, 9, 9, 9};
    ASSERT_EQ(MPI_Exscan(in, out, 3, mat, op, c), MPI_SUCCESS);
    for (int k = 0; k < 3 && cr > 0; ++k) {
      Mat want = mat_of(0, k);
      for (int r = 1; r < cr; ++r) want = times(want, mat_of(r, k));
      EXPECT_EQ(out[k], want) << (c == reversed ? "reversed, " : "") << "rank " << cr << " matrix " << k;
    }
  }
  MPI_Comm_free(&reversed);
  MPI_Op_free(&op);
  MPI_Type_free(&mat);
}

// MPI-2.2 §5.9.5: predefined operations are commutative, a user one is as
// it was created; no operation is MPI_ERR_OP.
TEST(OpCommutative, PredefinedAndAsCreated) {
  int commute = -1;
  for (MPI_Op op : {MPI_SUM, MPI_MAX, MPI_LXOR, MPI_MAXLOC}) {
    ASSERT_EQ(MPI_Op_commutative(op, &commute), MPI_SUCCESS);
    EXPECT_EQ(commute, 1) << "op " << op;
  }
  MPI_Op ordered, unordered;
  MPI_Op_create(mat_times, 0, &ordered);
  MPI_Op_create(mat_times, 1, &unordered);
  ASSERT_EQ(MPI_Op_commutative(ordered, &commute), MPI_SUCCESS);
  EXPECT_EQ(commute, 0);
  ASSERT_EQ(MPI_Op_commutative(unordered, &commute), MPI_SUCCESS);
  EXPECT_EQ(commute, 1);
  MPI_Op_free(&ordered);
  MPI_Op freed = unordered;
  MPI_Op_free(&unordered);
  mpitest::ErrorsReturn errors_return;
  EXPECT_EQ(mpitest::error_class(MPI_Op_commutative(freed, &commute)), MPI_ERR_OP);
  EXPECT_EQ(mpitest::error_class(MPI_Op_commutative(MPI_OP_NULL, &commute)), MPI_ERR_OP);
  EXPECT_EQ(mpitest::error_class(MPI_Op_commutative(MPI_SUM, nullptr)), MPI_ERR_ARG);
}

// MPI-3.1 §11.3.4: MPI_REPLACE (a op b = b) and MPI_NO_OP (a op b = a) are
// predefined operations of one-sided accumulates only: not commutative,
// not freeable, and a collective or MPI_Reduce_local given one fails with
// MPI_ERR_OP, naming it, on every rank.
TEST(OneSidedOps, ExistButServeNoCollective) {
  mpitest::ErrorsReturn errors_return;
  for (MPI_Op op : {MPI_REPLACE, MPI_NO_OP}) {
    int commute = -1;
    ASSERT_EQ(MPI_Op_commutative(op, &commute), MPI_SUCCESS);
    EXPECT_EQ(commute, 0) << "op " << op;
    MPI_Op copy = op;
    EXPECT_EQ(mpitest::error_class(MPI_Op_free(&copy)), MPI_ERR_OP);
    EXPECT_EQ(copy, op);
    int x = 1, y = 0;
    const int err = MPI_Allreduce(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD);
    EXPECT_EQ(mpitest::error_class(err), MPI_ERR_OP);
    const std::string text = mpitest::error_text(err);
    EXPECT_NE(text.find(op == MPI_REPLACE ? "MPI_REPLACE is for one-sided" : "MPI_NO_OP is for one-sided"),
              std::string::npos)
        << text;
    EXPECT_EQ(mpitest::error_class(MPI_Reduce_local(&x, &y, 1, MPI_INT, op)), MPI_ERR_OP);
  }
  EXPECT_NE(MPI_REPLACE, MPI_NO_OP);
}

TEST(ReduceScatterBlock, EachRankGetsItsBlockOfTheSum) {
  const int me = rank(), p = size();
  for (int block : {0, 1, 3, 2000}) {
    SCOPED_TRACE("block of " + std::to_string(block));
    std::vector<double> in(static_cast<std::size_t>(block) * p), out(static_cast<std::size_t>(block) + 1, -1.0);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = me + 0.25 * static_cast<double>(i);
    ASSERT_EQ(MPI_Reduce_scatter_block(in.data(), out.data(), block, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
              MPI_SUCCESS);
    for (int i = 0; i < block; ++i) {
      const double at = 0.25 * (static_cast<double>(me) * block + i);
      EXPECT_DOUBLE_EQ(out[i], p * (p - 1) / 2.0 + p * at) << i;
    }
    EXPECT_EQ(out[static_cast<std::size_t>(block)], -1.0) << "written past the block";
  }
  // In place: the whole vector in recvbuf, the result at its start.
  std::vector<int> v(static_cast<std::size_t>(2 * p));
  for (int i = 0; i < 2 * p; ++i) v[i] = i * (me + 1);
  ASSERT_EQ(MPI_Reduce_scatter_block(MPI_IN_PLACE, v.data(), 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int j = 0; j < 2; ++j) EXPECT_EQ(v[j], (2 * me + j) * p * (p + 1) / 2);
}

TEST(Alltoallw, ATypePerBlockAndByteDisplacements) {
  const int me = rank(), p = size();
  // To rank j: j + 1 ints taken every other int (a resized type), from byte
  // offset 64 * j. From every rank: me + 1 ints received contiguously,
  // blocks in reverse order of rank.
  MPI_Datatype strided;
  MPI_Type_vector(1, 1, 2, MPI_INT, &strided);  // one int, extent 1 int
  MPI_Datatype every_other;
  MPI_Type_create_resized(strided, 0, 2 * sizeof(int), &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> send(static_cast<std::size_t>(16 * p + 2 * p + 2), -1);
  std::vector<int> sendcounts(p), sdispls(p), rcounts(p), rdispls(p);
  std::vector<MPI_Datatype> stypes(p, every_other), rtypes(p, MPI_INT);
  for (int j = 0; j < p; ++j) {
    sendcounts[j] = j + 1;
    sdispls[j] = 64 * j;
    for (int k = 0; k <= j; ++k) send[static_cast<std::size_t>(16 * j + 2 * k)] = 1000 * me + 10 * j + k;
  }
  int at = 0;
  for (int i = p - 1; i >= 0; --i) {
    rcounts[i] = me + 1;
    rdispls[i] = at * static_cast<int>(sizeof(int));
    at += me + 1;
  }
  std::vector<int> recv(static_cast<std::size_t>(at), -1);
  ASSERT_EQ(MPI_Alltoallw(send.data(), sendcounts.data(), sdispls.data(), stypes.data(), recv.data(), rcounts.data(),
                          rdispls.data(), rtypes.data(), MPI_COMM_WORLD),
            MPI_SUCCESS);
  for (int i = 0; i < p; ++i)
    for (int k = 0; k < me + 1; ++k)
      EXPECT_EQ(recv[static_cast<std::size_t>(rdispls[i] / 4 + k)], 1000 * i + 10 * me + k) << "from " << i;
  MPI_Type_free(&strided);
  MPI_Type_free(&every_other);
}

TEST(Alltoallw, InPlaceExchangesTheReceiveBuffer) {
  const int me = rank(), p = size();
  std::vector<double> buf(static_cast<std::size_t>(p));
  for (int j = 0; j < p; ++j) buf[j] = me * 100.0 + j;
  std::vector<int> counts(p, 1), displs(p);
  std::vector<MPI_Datatype> types(p, MPI_DOUBLE);
  for (int j = 0; j < p; ++j) displs[j] = j * static_cast<int>(sizeof(double));
  ASSERT_EQ(MPI_Alltoallw(MPI_IN_PLACE, nullptr, nullptr, nullptr, buf.data(), counts.data(), displs.data(),
                          types.data(), MPI_COMM_WORLD),
            MPI_SUCCESS);
  for (int i = 0; i < p; ++i) EXPECT_EQ(buf[i], i * 100.0 + me);
}

TEST(Mpi2Collectives, BadArgumentsNameTheFunction) {
  mpitest::ErrorsReturn er;
  int x = 0, y = 0;
  EXPECT_EQ(mpitest::error_class(MPI_Exscan(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)), MPI_ERR_COUNT);
  EXPECT_EQ(mpitest::error_class(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD)), MPI_ERR_OP);
  EXPECT_EQ(mpitest::error_class(MPI_Reduce_scatter_block(&x, &y, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD)),
            MPI_ERR_COUNT);
  EXPECT_EQ(mpitest::error_class(MPI_Reduce_scatter_block(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL)),
            MPI_ERR_COMM);
  const int p = size();
  std::vector<int> counts(p, 1), displs(p, 0);
  std::vector<MPI_Datatype> types(p, MPI_INT);
  types[static_cast<std::size_t>(p - 1)] = MPI_DATATYPE_NULL;
  std::vector<int> buf(static_cast<std::size_t>(p));
  EXPECT_EQ(mpitest::error_class(MPI_Alltoallw(buf.data(), counts.data(), displs.data(), types.data(), buf.data(),
                                               counts.data(), displs.data(), types.data(), MPI_COMM_WORLD)),
            MPI_ERR_TYPE);
  const std::string text = mpitest::error_text(MPI_Exscan(&x, &y, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_NE(text.find("MPI_Exscan"), std::string::npos) << text;
}

}  // namespace

MPI_TEST_MAIN()
