// MPI-1.1 §3.12, derived datatypes: every constructor, sent with one type map
// and received with a different one of the same signature; extents with the
// MPI_LB/MPI_UB markers and struct alignment; MPI_Get_elements on partial
// messages; MPI_Pack/MPI_Unpack round trips. Each rank sends to the next
// around a ring (to itself on one rank).
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>


#include "tests/mpi/mpi_main.h"
#include "tests/support/memory.h"

namespace {

using mpitest::rank;
using mpitest::size;

int next() { return (rank() + 1) % size(); }
int prev() { return (rank() + size() - 1) % size(); }

// Sends `count` of `stype` from `sbuf` to the next rank and receives `rcount`
// of `rtype` into `rbuf` from the previous one.
void ring(const void* sbuf, int count, MPI_Datatype stype, void* rbuf, int rcount, MPI_Datatype rtype,
          MPI_Status* st = MPI_STATUS_IGNORE) {
  ASSERT_EQ(MPI_Sendrecv(sbuf, count, stype, next(), 0, rbuf, rcount, rtype, prev(), 0, MPI_COMM_WORLD, st), MPI_SUCCESS);
}

double value(int who, int i) { return who * 1000.0 + i; }

TEST(Datatype, VectorColumnArrivesAsContiguousAndBack) {
  // Column 2 of a 6x5 row-major matrix (MPI-1.1 §3.12.7, example 3.30's shape).
  constexpr int kRows = 6, kCols = 5;
  std::vector<double> m(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) m[i] = value(rank(), i);
  MPI_Datatype column;
  ASSERT_EQ(MPI_Type_vector(kRows, 1, kCols, MPI_DOUBLE, &column), MPI_SUCCESS);
  MPI_Type_commit(&column);
  int sz;
  MPI_Aint ext;
  MPI_Type_size(column, &sz);
  MPI_Type_extent(column, &ext);
  EXPECT_EQ(sz, kRows * 8);
  EXPECT_EQ(ext, ((kRows - 1) * kCols + 1) * 8);
  std::vector<double> got(kRows, -1);
  ring(&m[2], 1, column, got.data(), kRows, MPI_DOUBLE);
  for (int r = 0; r < kRows; ++r) EXPECT_EQ(got[r], value(prev(), r * kCols + 2));
  // And contiguous into a column.
  std::vector<double> back(kRows * kCols, -1);
  std::vector<double> col(kRows);
  for (int r = 0; r < kRows; ++r) col[r] = value(rank(), r);
  ring(col.data(), kRows, MPI_DOUBLE, &back[4], 1, column);
  for (int i = 0; i < kRows * kCols; ++i) EXPECT_EQ(back[i], i % kCols == 4 ? value(prev(), i / kCols) : -1) << i;
  MPI_Type_free(&column);
  EXPECT_EQ(column, MPI_DATATYPE_NULL);
}

TEST(Datatype, HvectorOfAVectorIsATransposedMatrix) {
  constexpr int kN = 4;
  std::vector<double> a(kN * kN), t(kN * kN, -1);
  for (int i = 0; i < kN * kN; ++i) a[i] = value(rank(), i);
  MPI_Datatype column, transposed;
  MPI_Type_vector(kN, 1, kN, MPI_DOUBLE, &column);
  MPI_Type_hvector(kN, 1, sizeof(double), column, &transposed);  // §3.12.7 example 3.33
  MPI_Type_commit(&transposed);
  ring(a.data(), 1, transposed, t.data(), kN * kN, MPI_DOUBLE);
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) EXPECT_EQ(t[i * kN + j], value(prev(), j * kN + i));
  MPI_Type_free(&column);
  MPI_Type_free(&transposed);
}

TEST(Datatype, IndexedAndHindexedPickTheSameElements) {
  std::vector<int> v(40);
  std::iota(v.begin(), v.end(), rank() * 100);
  const int lens[] = {3, 1, 4};
  const int disps[] = {0, 10, 30};
  const MPI_Aint hdisps[] = {0, 10 * sizeof(int), 30 * sizeof(int)};
  MPI_Datatype idx, hidx;
  MPI_Type_indexed(3, lens, disps, MPI_INT, &idx);
  MPI_Type_hindexed(3, lens, hdisps, MPI_INT, &hidx);
  MPI_Type_commit(&idx);
  MPI_Type_commit(&hidx);
  int sz;
  MPI_Type_size(idx, &sz);
  EXPECT_EQ(sz, 8 * 4);
  MPI_Aint lb, ub;
  MPI_Type_lb(idx, &lb);
  MPI_Type_ub(idx, &ub);
  EXPECT_EQ(lb, 0);
  EXPECT_EQ(ub, 34 * 4);
  std::vector<int> got(8, -1), back(40, -1);
  ring(v.data(), 1, idx, got.data(), 8, MPI_INT);
  const int expect_idx[] = {0, 1, 2, 10, 30, 31, 32, 33};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(got[i], prev() * 100 + expect_idx[i]);
  ring(v.data(), 1, idx, back.data(), 1, hidx);
  for (int i = 0; i < 40; ++i) {
    const bool picked = std::find(std::begin(expect_idx), std::end(expect_idx), i) != std::end(expect_idx);
    EXPECT_EQ(back[i], picked ? prev() * 100 + i : -1) << i;
  }
  MPI_Type_free(&idx);
  MPI_Type_free(&hidx);
}

struct Particle {
  double pos[3];
  char kind;
  int id;
};

MPI_Datatype particle_type() {
  Particle p{};
  MPI_Aint base, a_pos, a_kind, a_id;
  MPI_Address(&p, &base);
  MPI_Address(&p.pos, &a_pos);
  MPI_Address(&p.kind, &a_kind);
  MPI_Address(&p.id, &a_id);
  const int lens[] = {3, 1, 1};
  const MPI_Aint disps[] = {a_pos - base, a_kind - base, a_id - base};
  const MPI_Datatype types[] = {MPI_DOUBLE, MPI_CHAR, MPI_INT};
  MPI_Datatype t;
  MPI_Type_struct(3, lens, disps, types, &t);
  MPI_Type_commit(&t);
  return t;
}

TEST(Datatype, StructArraysMatchTheCLayout) {
  MPI_Datatype pt = particle_type();
  MPI_Aint ext;
  int sz;
  MPI_Type_extent(pt, &ext);
  MPI_Type_size(pt, &sz);
  EXPECT_EQ(ext, static_cast<MPI_Aint>(sizeof(Particle)));  // padded to the double's alignment
  EXPECT_EQ(sz, 3 * 8 + 1 + 4);
  std::vector<Particle> out(5), in(5);
  for (int i = 0; i < 5; ++i) out[i] = {{value(rank(), i), 1.0 * i, -1.0 * i}, static_cast<char>('a' + i), rank() * 10 + i};
  ring(out.data(), 5, pt, in.data(), 5, pt);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(in[i].pos[0], value(prev(), i));
    EXPECT_EQ(in[i].pos[2], -1.0 * i);
    EXPECT_EQ(in[i].kind, 'a' + i);
    EXPECT_EQ(in[i].id, prev() * 10 + i);
  }
  // The same particles received as a flat list of their members.
  std::vector<char> raw(5 * 29);
  ring(out.data(), 5, pt, raw.data(), 5 * 29, MPI_BYTE);
  double d0;
  std::memcpy(&d0, raw.data() + 29, sizeof d0);
  EXPECT_EQ(d0, value(prev(), 1));
  EXPECT_EQ(raw[29 + 24], 'b');
  MPI_Type_free(&pt);
}

TEST(Datatype, LbAndUbMarkersSetTheExtent) {
  // {MPI_LB at -8, int at 0, MPI_UB at 16}: extent 24, size 4 (§3.12.3).
  const int lens[] = {1, 1, 1};
  const MPI_Aint disps[] = {-8, 0, 16};
  const MPI_Datatype types[] = {MPI_LB, MPI_INT, MPI_UB};
  MPI_Datatype t;
  ASSERT_EQ(MPI_Type_struct(3, lens, disps, types, &t), MPI_SUCCESS);
  MPI_Type_commit(&t);
  MPI_Aint lb, ub, ext;
  int sz;
  MPI_Type_lb(t, &lb);
  MPI_Type_ub(t, &ub);
  MPI_Type_extent(t, &ext);
  MPI_Type_size(t, &sz);
  EXPECT_EQ(lb, -8);
  EXPECT_EQ(ub, 16);
  EXPECT_EQ(ext, 24);
  EXPECT_EQ(sz, 4);
  // Three of them take every sixth int, starting two ints in.
  std::vector<int> v(20);
  std::iota(v.begin(), v.end(), rank() * 100);
  int got[3] = {-1, -1, -1};
  ring(&v[2], 3, t, got, 3, MPI_INT);
  EXPECT_EQ(got[0], prev() * 100 + 2);
  EXPECT_EQ(got[1], prev() * 100 + 8);
  EXPECT_EQ(got[2], prev() * 100 + 14);
  // A contiguous of it keeps the markers' extent.
  MPI_Datatype c;
  MPI_Type_contiguous(2, t, &c);
  MPI_Type_extent(c, &ext);
  MPI_Type_lb(c, &lb);
  EXPECT_EQ(ext, 48);
  EXPECT_EQ(lb, -8);
  MPI_Type_free(&c);
  MPI_Type_free(&t);
}

TEST(Datatype, PairTypesHaveTheirStructLayout) {
  struct DI {
    double v;
    int i;
  };
  struct SI {
    short v;
    int i;
  };
  MPI_Aint ext;
  int sz;
  MPI_Type_extent(MPI_DOUBLE_INT, &ext);
  MPI_Type_size(MPI_DOUBLE_INT, &sz);
  EXPECT_EQ(ext, static_cast<MPI_Aint>(sizeof(DI)));
  EXPECT_EQ(sz, 12);
  MPI_Type_extent(MPI_SHORT_INT, &ext);
  MPI_Type_size(MPI_SHORT_INT, &sz);
  EXPECT_EQ(ext, static_cast<MPI_Aint>(sizeof(SI)));
  EXPECT_EQ(sz, 6);
  DI out[2] = {{1.5, rank()}, {2.5, -rank()}}, in[2] = {};
  ring(out, 2, MPI_DOUBLE_INT, in, 2, MPI_DOUBLE_INT);
  EXPECT_EQ(in[1].v, 2.5);
  EXPECT_EQ(in[1].i, -prev());
}

// gfortran's sizes (INTEGER and LOGICAL 4, DOUBLE PRECISION 8, COMPLEX two
// REALs); a COMPLEX is one element (§3.12.4), its pair type two.
TEST(Datatype, FortranTypesHaveGfortransSizes) {
  const std::pair<MPI_Datatype, int> sizes[] = {
      {MPI_INTEGER, 4},  {MPI_REAL, 4},      {MPI_DOUBLE_PRECISION, 8}, {MPI_COMPLEX, 8},
      {MPI_DOUBLE_COMPLEX, 16}, {MPI_LOGICAL, 4}, {MPI_CHARACTER, 1},   {MPI_2REAL, 8},
      {MPI_2DOUBLE_PRECISION, 16}, {MPI_2INTEGER, 8}, {MPI_INTEGER1, 1}, {MPI_INTEGER2, 2},
      {MPI_INTEGER4, 4}, {MPI_INTEGER8, 8}, {MPI_REAL4, 4}, {MPI_REAL8, 8},
      {MPI_2COMPLEX, 16}, {MPI_2DOUBLE_COMPLEX, 32}};
  for (const auto& [type, bytes] : sizes) {
    int sz = 0;
    MPI_Aint ext = 0;
    ASSERT_EQ(MPI_Type_size(type, &sz), MPI_SUCCESS) << type;
    MPI_Type_extent(type, &ext);
    EXPECT_EQ(sz, bytes) << type;
    EXPECT_EQ(ext, bytes) << type;
  }
  std::complex<float> out[5], in[5];
  for (int i = 0; i < 5; ++i) out[i] = {static_cast<float>(rank()), static_cast<float>(i)};
  MPI_Status st;
  ring(out, 5, MPI_COMPLEX, in, 5, MPI_COMPLEX, &st);
  int count = 0, elements = 0;
  MPI_Get_count(&st, MPI_COMPLEX, &count);
  MPI_Get_elements(&st, MPI_COMPLEX, &elements);
  EXPECT_EQ(count, 5);
  EXPECT_EQ(elements, 5);
  EXPECT_EQ(in[4], std::complex<float>(static_cast<float>(prev()), 4.0f));
  MPI_Get_elements(&st, MPI_2COMPLEX, &elements);
  EXPECT_EQ(elements, 5);  // two instances and one COMPLEX of a third
}

TEST(Datatype, GetElementsCountsBasicElementsOfPartialInstances) {
  MPI_Datatype three;
  MPI_Type_contiguous(3, MPI_INT, &three);
  MPI_Type_commit(&three);
  int out[5] = {1, 2, 3, 4, 5}, in[6] = {};
  MPI_Status st;
  ring(out, 5, MPI_INT, in, 2, three, &st);
  int count, elements;
  MPI_Get_count(&st, three, &count);
  MPI_Get_elements(&st, three, &elements);
  EXPECT_EQ(count, MPI_UNDEFINED);
  EXPECT_EQ(elements, 5);
  EXPECT_EQ(in[4], 5);
  EXPECT_EQ(in[5], 0);
  MPI_Type_free(&three);
  // Mixed signature: {double, int}; 1 instance + the double of the next.
  MPI_Get_elements(&st, MPI_INT, &elements);
  EXPECT_EQ(elements, 5);
  // 20 bytes arrive into room for two {double, int} (extent 16 each).
  char raw[12 + 8] = {};
  struct { double d; int i; } pairs[2];
  MPI_Status st2;
  ring(raw, 20, MPI_BYTE, pairs, 2, MPI_DOUBLE_INT, &st2);
  MPI_Get_elements(&st2, MPI_DOUBLE_INT, &elements);
  EXPECT_EQ(elements, 3);
}

TEST(Datatype, PackUnpackRoundTrips) {
  MPI_Datatype pt = particle_type();
  Particle ps[3];
  for (int i = 0; i < 3; ++i) ps[i] = {{1.0 * i, 2.0 * i, 3.0 * i}, static_cast<char>('x' + i), 7 * i};
  int sizes[3];
  MPI_Pack_size(3, pt, MPI_COMM_WORLD, &sizes[0]);
  MPI_Pack_size(4, MPI_INT, MPI_COMM_WORLD, &sizes[1]);
  EXPECT_GE(sizes[0], 3 * 29);
  EXPECT_GE(sizes[1], 16);
  std::vector<char> buf(sizes[0] + sizes[1]);
  int pos = 0;
  const int header[4] = {3, 1, 4, 1};
  ASSERT_EQ(MPI_Pack(header, 4, MPI_INT, buf.data(), static_cast<int>(buf.size()), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Pack(ps, 3, pt, buf.data(), static_cast<int>(buf.size()), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
  // Sent as MPI_PACKED, unpacked on the other side.
  std::vector<char> got(buf.size());
  MPI_Status st;
  ring(buf.data(), pos, MPI_PACKED, got.data(), static_cast<int>(got.size()), MPI_PACKED, &st);
  int n;
  MPI_Get_count(&st, MPI_PACKED, &n);
  EXPECT_EQ(n, pos);
  int h[4];
  Particle q[3] = {};
  int upos = 0;
  ASSERT_EQ(MPI_Unpack(got.data(), n, &upos, h, 4, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Unpack(got.data(), n, &upos, q, 3, pt, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(upos, pos);
  EXPECT_EQ(h[2], 4);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(q[i].pos[2], 3.0 * i);
    EXPECT_EQ(q[i].kind, 'x' + i);
    EXPECT_EQ(q[i].id, 7 * i);
  }
  // Too small an output buffer, or too little packed input, is refused with
  // MPI_ERR_ARG (the man pages' and MPICH 4.0.2's class; MPI_ERR_TRUNCATE
  // is a receive's), nothing is written past the buffer, position stays.
  mpitest::ErrorsReturn er;
  int small_pos = 0;
  char small[10];
  EXPECT_EQ(mpitest::error_class(MPI_Pack(ps, 1, pt, small, 10, &small_pos, MPI_COMM_WORLD)), MPI_ERR_ARG);
  EXPECT_EQ(small_pos, 0);
  int short_pos = 0;
  EXPECT_EQ(mpitest::error_class(MPI_Unpack(got.data(), 10, &short_pos, q, 1, pt, MPI_COMM_WORLD)), MPI_ERR_ARG);
  EXPECT_EQ(short_pos, 0);
  MPI_Type_free(&pt);
}

TEST(Datatype, AFreedTypeStillCompletesAPendingReceive) {
  MPI_Datatype every_other;
  MPI_Type_vector(4, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  int in[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  MPI_Request r;
  MPI_Irecv(in, 1, every_other, prev(), 7, MPI_COMM_WORLD, &r);
  MPI_Type_free(&every_other);
  const int out[4] = {rank(), 1, 2, 3};
  MPI_Send(out, 4, MPI_INT, next(), 7, MPI_COMM_WORLD);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  EXPECT_EQ(in[0], prev());
  EXPECT_EQ(in[1], -1);
  EXPECT_EQ(in[6], 3);
}

TEST(Datatype, MisuseIsRefused) {
  mpitest::ErrorsReturn er;
  MPI_Datatype t;
  EXPECT_EQ(mpitest::error_class(MPI_Type_contiguous(-1, MPI_INT, &t)), MPI_ERR_COUNT);
  // A negative count is MPI_ERR_COUNT, a negative block length MPI_ERR_ARG
  // (MPICH 4.0.2's choice; the standard names no class).
  EXPECT_EQ(mpitest::error_class(MPI_Type_vector(-1, 1, 2, MPI_INT, &t)), MPI_ERR_COUNT);
  EXPECT_EQ(mpitest::error_class(MPI_Type_vector(2, -1, 2, MPI_INT, &t)), MPI_ERR_ARG);
  const int lens[] = {1, -2};
  const int disps[] = {0, 4};
  const MPI_Aint hdisps[] = {0, 16};
  const MPI_Datatype types[] = {MPI_INT, MPI_INT};
  EXPECT_EQ(mpitest::error_class(MPI_Type_indexed(2, lens, disps, MPI_INT, &t)), MPI_ERR_ARG);
  EXPECT_EQ(mpitest::error_class(MPI_Type_hindexed(2, lens, hdisps, MPI_INT, &t)), MPI_ERR_ARG);
  EXPECT_EQ(mpitest::error_class(MPI_Type_struct(2, lens, hdisps, types, &t)), MPI_ERR_ARG);
  EXPECT_EQ(mpitest::error_class(MPI_Type_indexed(-1, lens, disps, MPI_INT, &t)), MPI_ERR_COUNT);
  EXPECT_EQ(mpitest::error_class(MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t)), MPI_ERR_TYPE);
  MPI_Datatype predefined = MPI_INT;
  EXPECT_EQ(mpitest::error_class(MPI_Type_free(&predefined)), MPI_ERR_TYPE);
  // An uncommitted type cannot interpret a status (as in MPICH).
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Status st{};
  int count = -7;
  EXPECT_EQ(mpitest::error_class(MPI_Get_elements(&st, pair, &count)), MPI_ERR_TYPE);
  EXPECT_EQ(mpitest::error_class(MPI_Get_count(&st, pair, &count)), MPI_ERR_TYPE);
  EXPECT_EQ(count, -7);
  MPI_Type_free(&pair);
}

using meshmp::testing_support::max_rss_kib;

// A type costs memory in proportion to its description, not its elements
// (issue 15, item 8): a vector of 2^30 doubles commits in a few kilobytes,
// with its size and extent right.
TEST(Datatype, AVectorOfAGigaElementsCommitsInConstantMemory) {
  const long before = max_rss_kib();
  MPI_Datatype v, twice;
  ASSERT_EQ(MPI_Type_vector(1 << 30, 1, 2, MPI_DOUBLE, &v), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&v), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_contiguous(2, v, &twice), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&twice), MPI_SUCCESS);
  EXPECT_RSS_GROWTH_BELOW(before, 1024) << "kilobytes";
  MPI_Aint lb, extent;
  MPI_Type_get_extent(v, &lb, &extent);
  EXPECT_EQ(extent, static_cast<MPI_Aint>((std::int64_t{1} << 31) - 1) * 8);
  int size = 0;
  MPI_Type_size(v, &size);
  EXPECT_EQ(size, MPI_UNDEFINED) << "8 GiB does not fit an int";
  MPI_Type_get_extent(twice, &lb, &extent);
  EXPECT_EQ(extent, static_cast<MPI_Aint>((std::int64_t{1} << 31) - 1) * 16);
  MPI_Type_free(&twice);
  MPI_Type_free(&v);
}

// Every constructor builds a block of 2^31 - 1 elements at once, without
// visiting them (issue 29: MPI_Type_contiguous took 55 s for this count,
// past this test's time limit; 0.31 s for 2^24), with size and extent right.
TEST(Datatype, ABlockOfAnyLengthIsBuiltWithoutVisitingItsElements) {
  const int n = INT_MAX;
  const MPI_Aint bytes = static_cast<MPI_Aint>(n) * 8;
  int len[1] = {n}, disp[1] = {0};
  MPI_Aint adisp[1] = {0};
  MPI_Datatype dbl[1] = {MPI_DOUBLE};
  MPI_Datatype t[5];
  ASSERT_EQ(MPI_Type_contiguous(n, MPI_DOUBLE, &t[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_vector(1, n, 1, MPI_DOUBLE, &t[1]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_indexed(1, len, disp, MPI_DOUBLE, &t[2]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_struct(1, len, adisp, dbl, &t[3]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_contiguous(n, MPI_BYTE, &t[4]), MPI_SUCCESS);
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(MPI_Type_commit(&t[i]), MPI_SUCCESS) << i;
    MPI_Aint lb = -1, extent = 0;
    MPI_Type_get_extent(t[i], &lb, &extent);
    EXPECT_EQ(lb, 0) << i;
    EXPECT_EQ(extent, i == 4 ? static_cast<MPI_Aint>(n) : bytes) << i;
    MPI_Type_free(&t[i]);
  }
  // Small ones of the same shape still carry data right.
  MPI_Datatype four;
  ASSERT_EQ(MPI_Type_contiguous(4, MPI_DOUBLE, &four), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&four), MPI_SUCCESS);
  std::vector<double> out(8), in(8, -1.0);
  for (int i = 0; i < 8; ++i) out[i] = value(rank(), i);
  ring(out.data(), 2, four, in.data(), 2, four);
  for (int i = 0; i < 8; ++i) ASSERT_EQ(in[i], value(prev(), i)) << i;
  MPI_Type_free(&four);
}

// A vector too long to flatten (4 Mi elements) is walked, not flattened:
// sent and received right, in both layouts.
TEST(Datatype, ALongVectorIsSentByWalkingItsDescription) {
  const int n = 1 << 22;
  MPI_Datatype v;
  ASSERT_EQ(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&v), MPI_SUCCESS);
  std::vector<double> out(2 * static_cast<std::size_t>(n)), in(2 * static_cast<std::size_t>(n), -1.0), packed(n);
  for (int i = 0; i < 2 * n; ++i) out[i] = value(rank(), i);
  ring(out.data(), 1, v, packed.data(), n, MPI_DOUBLE);  // strided out, contiguous in
  for (int i = 0; i < n; i += 4099) ASSERT_EQ(packed[i], value(prev(), 2 * i)) << i;
  for (int i = 0; i < n; ++i) packed[i] = value(rank(), i);
  ring(packed.data(), n, MPI_DOUBLE, in.data(), 1, v);  // contiguous out, strided in
  for (int i = 0; i < 2 * n; i += 4097) ASSERT_EQ(in[i], i % 2 ? -1.0 : value(prev(), i / 2)) << i;
  MPI_Status st;
  ring(out.data(), 1, v, in.data(), 1, v, &st);
  int elements = 0;
  MPI_Get_elements(&st, MPI_DOUBLE, &elements);
  EXPECT_EQ(elements, n);
  MPI_Type_free(&v);
}

// An allocation that fails returns MPI_ERR_NO_MEM instead of ending the
// program: a message of 2^50 bytes cannot be packed, and a type of more
// than 2^63 bytes cannot be built.
TEST(Datatype, WhatCannotBeAllocatedIsMpiErrNoMem) {
  if (::meshmp::testing_support::kAddressSanitizer)
    GTEST_SKIP() << "ASan's operator new reports a failed allocation as fatal; it never throws std::bad_alloc";
  mpitest::ErrorsReturn er;
  MPI_Datatype huge, bigger;
  ASSERT_EQ(MPI_Type_vector(1 << 20, 1 << 30, 1 << 30, MPI_BYTE, &huge), MPI_SUCCESS);  // 2^50 bytes of data
  ASSERT_EQ(MPI_Type_commit(&huge), MPI_SUCCESS);
  MPI_Datatype strided;
  ASSERT_EQ(MPI_Type_vector(2, 1, 2, huge, &strided), MPI_SUCCESS);  // not contiguous: packed to send
  ASSERT_EQ(MPI_Type_commit(&strided), MPI_SUCCESS);
  char c = 0;
  MPI_Request r;
  EXPECT_EQ(mpitest::error_class(MPI_Isend(&c, 1, strided, next(), 9, MPI_COMM_WORLD, &r)), MPI_ERR_NO_MEM);
  EXPECT_EQ(mpitest::error_class(MPI_Type_contiguous(1 << 20, huge, &bigger)), MPI_ERR_NO_MEM);
  MPI_Type_free(&strided);
  MPI_Type_free(&huge);
}

// The MPI-2 constructors build the same type maps as their MPI-1 forms.
TEST(Datatype, Mpi2ConstructorsMatchTheirMpi1Forms) {
  MPI_Datatype v1, v2, h1, h2, s1, s2;
  MPI_Type_hvector(3, 2, 5 * sizeof(int), MPI_INT, &v1);
  MPI_Type_create_hvector(3, 2, 5 * sizeof(int), MPI_INT, &v2);
  const int lens[2] = {1, 2};
  const MPI_Aint disps[2] = {0, 3 * sizeof(double)};
  MPI_Type_hindexed(2, lens, const_cast<MPI_Aint*>(disps), MPI_DOUBLE, &h1);
  MPI_Type_create_hindexed(2, lens, disps, MPI_DOUBLE, &h2);
  struct S {
    char c;
    double d;
  } x[2];
  MPI_Aint a0, a1;
  MPI_Get_address(&x[0].c, &a0);
  MPI_Get_address(&x[0].d, &a1);
  EXPECT_EQ(a1 - a0, static_cast<MPI_Aint>(offsetof(S, d)));
  const MPI_Aint sd[2] = {0, a1 - a0};
  const MPI_Datatype st[2] = {MPI_CHAR, MPI_DOUBLE};
  MPI_Type_struct(2, const_cast<int*>(lens), const_cast<MPI_Aint*>(sd), const_cast<MPI_Datatype*>(st), &s1);
  MPI_Type_create_struct(2, lens, sd, st, &s2);
  for (auto [a, b] : {std::pair{v1, v2}, std::pair{h1, h2}, std::pair{s1, s2}}) {
    MPI_Aint lb1, ext1, lb2, ext2, tlb1, text1, tlb2, text2;
    int size1, size2;
    MPI_Type_get_extent(a, &lb1, &ext1);
    MPI_Type_get_extent(b, &lb2, &ext2);
    MPI_Type_get_true_extent(a, &tlb1, &text1);
    MPI_Type_get_true_extent(b, &tlb2, &text2);
    MPI_Type_size(a, &size1);
    MPI_Type_size(b, &size2);
    EXPECT_EQ(lb1, lb2);
    EXPECT_EQ(ext1, ext2);
    EXPECT_EQ(tlb1, tlb2);
    EXPECT_EQ(text1, text2);
    EXPECT_EQ(size1, size2);
  }
  for (MPI_Datatype* t : {&v1, &v2, &h1, &h2, &s1, &s2}) MPI_Type_free(t);
}

// Resizing to a larger extent interleaves instances: MPI-2 §4.1.7.
TEST(Datatype, ResizedTypeStridesByItsNewExtent) {
  MPI_Datatype every_third;
  ASSERT_EQ(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &every_third), MPI_SUCCESS);
  MPI_Type_commit(&every_third);
  MPI_Aint lb, extent, tlb, textent;
  MPI_Type_get_extent(every_third, &lb, &extent);
  MPI_Type_get_true_extent(every_third, &tlb, &textent);
  EXPECT_EQ(lb, 0);
  EXPECT_EQ(extent, static_cast<MPI_Aint>(3 * sizeof(int)));
  EXPECT_EQ(tlb, 0);
  EXPECT_EQ(textent, static_cast<MPI_Aint>(sizeof(int)));
  int src[9], dst[3] = {0, 0, 0};
  for (int i = 0; i < 9; ++i) src[i] = i;
  const int me = mpitest::rank();
  MPI_Sendrecv(src, 3, every_third, me, 0, dst, 3, MPI_INT, me, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT_EQ(dst[0], 0);
  EXPECT_EQ(dst[1], 3);
  EXPECT_EQ(dst[2], 6);
  MPI_Type_free(&every_third);
}

TEST(Datatype, NamesOfTypesAndCommunicators) {
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Type_get_name(MPI_DOUBLE, name, &len);
  EXPECT_STREQ(name, "MPI_DOUBLE");
  EXPECT_EQ(len, 10);
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  EXPECT_STREQ(name, "MPI_COMM_WORLD");
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_get_name(c, name, &len);
  EXPECT_EQ(len, 0);
  MPI_Comm_set_name(c, "halo");
  MPI_Comm_get_name(c, name, &len);
  EXPECT_STREQ(name, "halo");
  MPI_Comm_free(&c);
  MPI_Datatype t;
  MPI_Type_contiguous(2, MPI_INT, &t);
  MPI_Type_set_name(t, "pair");
  MPI_Type_get_name(t, name, &len);
  EXPECT_STREQ(name, "pair");
  MPI_Type_free(&t);
}

}  // namespace

MPI_TEST_MAIN()
