// MPI-2.2 §4.1.2 and §4.1.10: MPI_Type_create_indexed_block,
// MPI_Type_create_hindexed_block and MPI_Type_dup, checked against element
// maps written out by hand (which bytes of the buffer a send takes, in which
// order), through MPI_Pack and through a message; MPI-2.2's C99 types and
// the multi-language integers in reductions, and the 16-byte and complex
// sized types of §16.2.5 and the C++ types; MPI-3.1's MPI_Count queries,
// the status setters, MPI_Type_match_size, MPI_Get_library_version and the
// handle conversions; the array types of §4.1.3-4.1.4 (subarray, darray)
// against hand-computed element maps in C and Fortran order, and the
// envelope and contents of §4.1.13 for every constructor; attributes on
// datatypes (§6.7.4) through MPI_Type_dup and MPI_Type_free; external32
// packing (§4.2) byte for byte.
#include <mpi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <utility>
#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;

// The ints `t` (count instances) takes from buf = 0, 1, 2, ...: packed.
std::vector<int> packed_ints(MPI_Datatype t, int count, int buf_ints) {
  std::vector<int> buf(static_cast<std::size_t>(buf_ints));
  for (int i = 0; i < buf_ints; ++i) buf[i] = i;
  int size = 0;
  MPI_Pack_size(count, t, MPI_COMM_WORLD, &size);
  std::vector<char> out(static_cast<std::size_t>(size));
  int pos = 0;
  EXPECT_EQ(MPI_Pack(buf.data(), count, t, out.data(), size, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
  std::vector<int> got(static_cast<std::size_t>(pos) / sizeof(int));
  if (!got.empty()) std::memcpy(got.data(), out.data(), got.size() * sizeof(int));
  return got;
}

TEST(TypeBlocks, IndexedBlockTakesEqualBlocksAtElementDisplacements) {
  const int displs[] = {7, 0, 3};
  MPI_Datatype t;
  ASSERT_EQ(MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &t), MPI_SUCCESS);
  MPI_Type_commit(&t);
  int size = 0;
  MPI_Type_size(t, &size);
  EXPECT_EQ(size, 6 * static_cast<int>(sizeof(int)));
  MPI_Aint lb = -1, extent = -1;
  MPI_Type_get_extent(t, &lb, &extent);
  EXPECT_EQ(lb, 0);
  EXPECT_EQ(extent, 9 * static_cast<MPI_Aint>(sizeof(int)));  // from element 0 to the end of 7..8
  // Two instances, the second one extent (9 ints) further on.
  EXPECT_EQ(packed_ints(t, 2, 18), (std::vector<int>{7, 8, 0, 1, 3, 4, 16, 17, 9, 10, 12, 13}));
  MPI_Type_free(&t);
}

TEST(TypeBlocks, HindexedBlockTakesEqualBlocksAtByteDisplacements) {
  const MPI_Aint displs[] = {5 * sizeof(int), 1 * sizeof(int)};
  MPI_Datatype t;
  ASSERT_EQ(MPI_Type_create_hindexed_block(2, 3, displs, MPI_INT, &t), MPI_SUCCESS);
  MPI_Type_commit(&t);
  EXPECT_EQ(packed_ints(t, 1, 8), (std::vector<int>{5, 6, 7, 1, 2, 3}));
  MPI_Type_free(&t);
}

TEST(TypeBlocks, BadArguments) {
  mpitest::ErrorsReturn er;
  const int displs[] = {0, 1};
  MPI_Datatype t;
  EXPECT_EQ(error_class(MPI_Type_create_indexed_block(2, -1, displs, MPI_INT, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_create_indexed_block(-2, 1, displs, MPI_INT, &t)), MPI_ERR_COUNT);
  EXPECT_EQ(error_class(MPI_Type_create_indexed_block(2, 1, nullptr, MPI_INT, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_create_hindexed_block(1, 1, nullptr, MPI_DATATYPE_NULL, &t)), MPI_ERR_ARG);
  const MPI_Aint h[] = {0};
  EXPECT_EQ(error_class(MPI_Type_create_hindexed_block(1, 1, h, MPI_DATATYPE_NULL, &t)), MPI_ERR_TYPE);
  EXPECT_EQ(error_class(MPI_Type_dup(MPI_DATATYPE_NULL, &t)), MPI_ERR_TYPE);
}

TEST(TypeDup, SameMapNewHandleCommittedAsTheOriginal) {
  MPI_Datatype vec;
  MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &vec);  // not committed
  MPI_Datatype dup;
  ASSERT_EQ(MPI_Type_dup(vec, &dup), MPI_SUCCESS);
  EXPECT_NE(dup, vec);
  {
    mpitest::ErrorsReturn er;
    double x[9] = {};
    EXPECT_EQ(error_class(MPI_Send(x, 1, dup, MPI_PROC_NULL, 0, MPI_COMM_WORLD)), MPI_ERR_TYPE)
        << "the duplicate of an uncommitted type must be committed first";
  }
  MPI_Type_commit(&vec);
  MPI_Datatype dup2;
  MPI_Type_dup(vec, &dup2);  // of a committed type: committed
  int s1 = 0, s2 = 0;
  MPI_Type_size(vec, &s1);
  MPI_Type_size(dup2, &s2);
  EXPECT_EQ(s1, s2);
  MPI_Aint lb1, e1, lb2, e2;
  MPI_Type_get_extent(vec, &lb1, &e1);
  MPI_Type_get_extent(dup2, &lb2, &e2);
  EXPECT_EQ(lb1, lb2);
  EXPECT_EQ(e1, e2);
  // A message in the duplicate, to this rank: elements 0, 4, 8 of each.
  double out[18], in[18];
  for (int i = 0; i < 18; ++i) out[i] = i, in[i] = -1;
  MPI_Type_free(&vec);  // the duplicate outlives the original
  ASSERT_EQ(MPI_Sendrecv(out, 1, dup2, mpitest::rank(), 1, in, 1, dup2, mpitest::rank(), 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE),
            MPI_SUCCESS);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(in[i], i % 4 == 0 ? i : -1) << i;
  MPI_Type_free(&dup);
  MPI_Type_free(&dup2);
}

TEST(Environment, LibraryVersionAndHandleConversions) {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = -1;
  ASSERT_EQ(MPI_Get_library_version(v, &len), MPI_SUCCESS);
  EXPECT_EQ(len, static_cast<int>(std::strlen(v)));
  EXPECT_EQ(std::string(v).rfind("meshmp", 0), 0u) << v;
  EXPECT_EQ(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)), MPI_COMM_WORLD);
  EXPECT_EQ(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)), MPI_DOUBLE);
  EXPECT_EQ(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)), MPI_SUM);
  EXPECT_EQ(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)), MPI_INFO_NULL);
  EXPECT_EQ(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)), MPI_MESSAGE_NO_PROC);
  MPI_Group g;
  MPI_Comm_group(MPI_COMM_WORLD, &g);
  EXPECT_EQ(MPI_Group_f2c(MPI_Group_c2f(g)), g);
  MPI_Group_free(&g);
  MPI_Request r;
  int x = 0;
  MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
  EXPECT_EQ(MPI_Request_f2c(MPI_Request_c2f(r)), r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  EXPECT_EQ(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)), MPI_ERRORS_RETURN);
}

// MPI-3.1 §4.1.12: the sums of absolute addresses, which a displacement
// from MPI_BOTTOM or from an array's start makes.
TEST(AddressArithmetic, AintAddAndDiffOfGetAddressResults) {
  double a[10] = {};
  MPI_Aint base, fifth;
  MPI_Get_address(&a[0], &base);
  MPI_Get_address(&a[5], &fifth);
  EXPECT_EQ(MPI_Aint_diff(fifth, base), static_cast<MPI_Aint>(5 * sizeof(double)));
  EXPECT_EQ(MPI_Aint_add(base, 5 * sizeof(double)), fifth);
  EXPECT_EQ(MPI_Aint_diff(base, fifth), -static_cast<MPI_Aint>(5 * sizeof(double)));
  // A type at the sum's absolute address, sent from MPI_BOTTOM: a[5].
  a[5] = 42.5;
  int one = 1;
  const MPI_Aint at = MPI_Aint_add(base, 5 * sizeof(double));
  MPI_Datatype t;
  MPI_Type_create_hindexed(1, &one, &at, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  double got = 0;
  const int me = mpitest::rank();
  MPI_Sendrecv(MPI_BOTTOM, 1, t, me, 1, &got, 1, MPI_DOUBLE, me, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT_EQ(got, 42.5);
  MPI_Type_free(&t);
}

TEST(C99Types, SizesNamesAndReductions) {
  const std::pair<MPI_Datatype, int> sizes[] = {
      {MPI_INT8_T, 1},  {MPI_INT16_T, 2},  {MPI_INT32_T, 4},  {MPI_INT64_T, 8}, {MPI_UINT8_T, 1},
      {MPI_UINT16_T, 2}, {MPI_UINT32_T, 4}, {MPI_UINT64_T, 8}, {MPI_C_BOOL, static_cast<int>(sizeof(bool))},
      {MPI_C_FLOAT_COMPLEX, 8}, {MPI_C_DOUBLE_COMPLEX, 16}, {MPI_AINT, static_cast<int>(sizeof(MPI_Aint))},
      {MPI_OFFSET, 8}, {MPI_COUNT, 8}};
  for (const auto& [t, size] : sizes) {
    int s = -1;
    MPI_Type_size(t, &s);
    EXPECT_EQ(s, size) << t;
  }
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Type_get_name(MPI_UINT64_T, name, &len);
  EXPECT_STREQ(name, "MPI_UINT64_T");
  const int me = mpitest::rank(), p = mpitest::size();
  // Sums past 32 bits, unsigned wrap-around, logical or, complex sums.
  std::int64_t big = (std::int64_t{1} << 40) + me, big_sum = 0;
  MPI_Allreduce(&big, &big_sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(big_sum, p * (std::int64_t{1} << 40) + p * (p - 1) / 2);
  std::uint8_t u = 200, u_sum = 0;
  MPI_Allreduce(&u, &u_sum, 1, MPI_UINT8_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(u_sum, static_cast<std::uint8_t>(200 * p));
  bool mine = me == p - 1, any = false;
  MPI_Allreduce(&mine, &any, 1, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD);
  EXPECT_TRUE(any);
  double z[2] = {1.0, static_cast<double>(me)}, zs[2] = {0, 0};  // re, im
  MPI_Allreduce(z, zs, 1, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(zs[0], p);
  EXPECT_EQ(zs[1], p * (p - 1) / 2.0);
  MPI_Count c = me * 3, cmax = -1;
  MPI_Allreduce(&c, &cmax, 1, MPI_COUNT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(cmax, 3 * (p - 1));
  mpitest::ErrorsReturn er;
  EXPECT_EQ(error_class(MPI_Allreduce(&mine, &any, 1, MPI_C_BOOL, MPI_SUM, MPI_COMM_WORLD)), MPI_ERR_OP)
      << "MPI_C_BOOL takes the logical operations only";
}

TEST(LargeCounts, SizesExtentsAndStatusSetters) {
  MPI_Datatype v;
  MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &v);
  MPI_Type_commit(&v);
  MPI_Count size = -1, lb = -1, extent = -1, tlb = -1, textent = -1;
  ASSERT_EQ(MPI_Type_size_x(v, &size), MPI_SUCCESS);
  EXPECT_EQ(size, 6 * 8);
  ASSERT_EQ(MPI_Type_get_extent_x(v, &lb, &extent), MPI_SUCCESS);
  EXPECT_EQ(lb, 0);
  EXPECT_EQ(extent, 12 * 8);
  ASSERT_EQ(MPI_Type_get_true_extent_x(v, &tlb, &textent), MPI_SUCCESS);
  EXPECT_EQ(textent, 12 * 8);
  // A status filled in by hand reads back: 7 doubles = one vector and 1.
  MPI_Status st;
  ASSERT_EQ(MPI_Status_set_elements(&st, v, 7), MPI_SUCCESS);
  int n = -1;
  MPI_Get_elements(&st, v, &n);
  EXPECT_EQ(n, 7);
  MPI_Get_count(&st, v, &n);
  EXPECT_EQ(n, MPI_UNDEFINED);
  MPI_Get_count(&st, MPI_DOUBLE, &n);
  EXPECT_EQ(n, 7);
  MPI_Count nx = -1;
  ASSERT_EQ(MPI_Status_set_elements_x(&st, MPI_INT, MPI_Count{1} << 33), MPI_SUCCESS);
  ASSERT_EQ(MPI_Get_elements_x(&st, MPI_INT, &nx), MPI_SUCCESS);
  EXPECT_EQ(nx, MPI_Count{1} << 33);
  int flag = -1;
  MPI_Status_set_cancelled(&st, 1);
  MPI_Test_cancelled(&st, &flag);
  EXPECT_TRUE(flag);
  MPI_Status_set_cancelled(&st, 0);
  MPI_Test_cancelled(&st, &flag);
  EXPECT_FALSE(flag);
  // Part of an instance of a type of mixed elements has no byte count.
  mpitest::ErrorsReturn er;
  MPI_Datatype mixed;
  const int lens[] = {1, 1};
  const MPI_Aint disps[] = {0, 8};
  const MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lens, disps, types, &mixed);
  MPI_Type_commit(&mixed);
  EXPECT_EQ(MPI_Status_set_elements(&st, mixed, 4), MPI_SUCCESS);
  EXPECT_EQ(error_class(MPI_Status_set_elements(&st, mixed, 3)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Status_set_elements(&st, MPI_INT, -1)), MPI_ERR_COUNT);
  MPI_Type_free(&mixed);
  MPI_Type_free(&v);
}

// MPI-2.2 §16.2.5's REAL16, COMPLEX8/16/32 and INTEGER16 (gfortran's
// REAL*16 is IEEE binary128, INTEGER*16 128 bits) and §3.2.2's C++ types:
// names, sizes, reductions, external32.
TEST(SizedTypes, SixteenByteRealsAndIntegersComplexesAndTheCxxTypes) {
  const std::pair<MPI_Datatype, const char*> named[] = {
      {MPI_REAL16, "MPI_REAL16"}, {MPI_COMPLEX8, "MPI_COMPLEX8"}, {MPI_COMPLEX16, "MPI_COMPLEX16"},
      {MPI_COMPLEX32, "MPI_COMPLEX32"}, {MPI_INTEGER16, "MPI_INTEGER16"}, {MPI_CXX_BOOL, "MPI_CXX_BOOL"},
      {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"}, {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"}};
  const int sizes[] = {16, 8, 16, 32, 16, 1, 8, 16, static_cast<int>(2 * sizeof(long double))};
  for (std::size_t i = 0; i < std::size(named); ++i) {
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0, size = -1;
    MPI_Type_get_name(named[i].first, name, &len);
    EXPECT_STREQ(name, named[i].second);
    MPI_Type_size(named[i].first, &size);
    EXPECT_EQ(size, sizes[i]) << named[i].second;
  }
  const int me = mpitest::rank(), p = mpitest::size();
  // A sum that needs binary128's 113-bit mantissa: 2^100 + rank.
  __float128 q = static_cast<__float128>(std::ldexp(1.0, 100)) + me, qs = 0;
  ASSERT_EQ(MPI_Allreduce(&q, &qs, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_TRUE(qs == static_cast<__float128>(std::ldexp(1.0, 100)) * p + p * (p - 1) / 2) << "rank part lost";
  // 128-bit integers: a sum past 64 bits, and exclusive or.
  const __int128 i = (static_cast<__int128>(1) << 100) + me;
  __int128 is = 0, ix = 0;
  ASSERT_EQ(MPI_Allreduce(&i, &is, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_TRUE(is == (static_cast<__int128>(p) << 100) + p * (p - 1) / 2);
  ASSERT_EQ(MPI_Allreduce(&i, &ix, 1, MPI_INTEGER16, MPI_BXOR, MPI_COMM_WORLD), MPI_SUCCESS);
  int want_x = 0;
  for (int r = 0; r < p; ++r) want_x ^= r;
  EXPECT_TRUE(ix == ((p % 2 ? static_cast<__int128>(1) << 100 : 0) ^ want_x));
  // Complex products: (0 + 1i)^p, in COMPLEX16 and COMPLEX32.
  double z[2] = {0, 1}, zp[2];
  ASSERT_EQ(MPI_Allreduce(z, zp, 1, MPI_COMPLEX16, MPI_PROD, MPI_COMM_WORLD), MPI_SUCCESS);
  const double re[4] = {1, 0, -1, 0}, im[4] = {0, 1, 0, -1};
  EXPECT_EQ(zp[0], re[p % 4]);
  EXPECT_EQ(zp[1], im[p % 4]);
  __float128 w[2] = {0, 1}, wp[2];
  ASSERT_EQ(MPI_Allreduce(w, wp, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_TRUE(wp[0] == re[p % 4] && wp[1] == im[p % 4]);
  bool mine = me == 0, all = true;
  ASSERT_EQ(MPI_Allreduce(&mine, &all, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(all, p == 1);
  {
    mpitest::ErrorsReturn er;
    EXPECT_EQ(error_class(MPI_Allreduce(z, zp, 1, MPI_COMPLEX32, MPI_MAX, MPI_COMM_WORLD)), MPI_ERR_OP);
  }
  // external32: binary128 and 128-bit integers big-endian, 16 bytes each.
  unsigned char ext[32];
  MPI_Aint pos = 0;
  const __float128 one = 1;
  ASSERT_EQ(MPI_Pack_external("external32", &one, 1, MPI_REAL16, ext, sizeof ext, &pos), MPI_SUCCESS);
  ASSERT_EQ(MPI_Pack_external("external32", &i, 1, MPI_INTEGER16, ext, sizeof ext, &pos), MPI_SUCCESS);
  EXPECT_EQ(pos, 32);
  EXPECT_EQ(ext[0], 0x3f);  // sign 0, exponent 0x3fff
  EXPECT_EQ(ext[1], 0xff);
  EXPECT_EQ(ext[2], 0);
  EXPECT_EQ(ext[16 + 3], 0x10) << "2^100: bit 4 of the fourth byte";
  EXPECT_EQ(ext[31], me & 0xff);
  __float128 back_q = 0;
  __int128 back_i = 0;
  pos = 0;
  ASSERT_EQ(MPI_Unpack_external("external32", ext, sizeof ext, &pos, &back_q, 1, MPI_REAL16), MPI_SUCCESS);
  ASSERT_EQ(MPI_Unpack_external("external32", ext, sizeof ext, &pos, &back_i, 1, MPI_INTEGER16), MPI_SUCCESS);
  EXPECT_TRUE(back_q == one && back_i == i);
}

// MPI-2.2 §16.2.5: a type per (p, r), as gfortran's SELECTED_REAL_KIND and
// SELECTED_INT_KIND pick the kind; its envelope gives p and r back.
TEST(TypeCreateF90, KindsByPrecisionAndRangeOneHandleEach) {
  struct Case {
    int p, r, size;
  };
  for (const Case c : {Case{6, MPI_UNDEFINED, 4}, Case{MPI_UNDEFINED, 38, 8}, Case{15, 300, 8},
                       Case{18, MPI_UNDEFINED, static_cast<int>(sizeof(long double))}, Case{30, 4000, 16}}) {
    SCOPED_TRACE("p = " + std::to_string(c.p) + ", r = " + std::to_string(c.r));
    MPI_Datatype real, again, complex;
    ASSERT_EQ(MPI_Type_create_f90_real(c.p, c.r, &real), MPI_SUCCESS);
    ASSERT_EQ(MPI_Type_create_f90_real(c.p, c.r, &again), MPI_SUCCESS);
    EXPECT_EQ(real, again) << "one handle per (p, r)";
    ASSERT_EQ(MPI_Type_create_f90_complex(c.p, c.r, &complex), MPI_SUCCESS);
    int size = 0, ni, na, nd, combiner;
    MPI_Type_size(real, &size);
    EXPECT_EQ(size, c.size);
    MPI_Type_size(complex, &size);
    EXPECT_EQ(size, 2 * c.size);
    MPI_Type_get_envelope(real, &ni, &na, &nd, &combiner);
    EXPECT_EQ(combiner, MPI_COMBINER_F90_REAL);
    ASSERT_EQ(ni, 2);
    EXPECT_EQ(na + nd, 0);
    int pr[2];
    ASSERT_EQ(MPI_Type_get_contents(real, 2, 0, 0, pr, nullptr, nullptr), MPI_SUCCESS);
    EXPECT_EQ(pr[0], c.p);
    EXPECT_EQ(pr[1], c.r);
    MPI_Type_get_envelope(complex, &ni, &na, &nd, &combiner);
    EXPECT_EQ(combiner, MPI_COMBINER_F90_COMPLEX);
  }
  // Reductions take the kind's operations: a DOUBLE PRECISION sum.
  MPI_Datatype dp;
  ASSERT_EQ(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &dp), MPI_SUCCESS);
  double x = 0.5 + mpitest::rank(), sum = 0;
  ASSERT_EQ(MPI_Allreduce(&x, &sum, 1, dp, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  const int p = mpitest::size();
  EXPECT_EQ(sum, 0.5 * p + p * (p - 1) / 2.0);
  // INTEGER by range: r = 8 and r = 9 are both 4 bytes, different handles.
  MPI_Datatype i8, i9, i18;
  ASSERT_EQ(MPI_Type_create_f90_integer(8, &i8), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_f90_integer(9, &i9), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_f90_integer(18, &i18), MPI_SUCCESS);
  EXPECT_NE(i8, i9);
  int size = 0, ni, na, nd, combiner, r = 0;
  MPI_Type_size(i9, &size);
  EXPECT_EQ(size, 4);
  MPI_Type_size(i18, &size);
  EXPECT_EQ(size, 8);
  MPI_Type_get_envelope(i9, &ni, &na, &nd, &combiner);
  EXPECT_EQ(combiner, MPI_COMBINER_F90_INTEGER);
  ASSERT_EQ(ni, 1);
  MPI_Type_get_contents(i9, 1, 0, 0, &r, nullptr, nullptr);
  EXPECT_EQ(r, 9);
  mpitest::ErrorsReturn er;
  MPI_Datatype t = i9;
  EXPECT_EQ(error_class(MPI_Type_free(&t)), MPI_ERR_TYPE) << "predefined: not to be freed";
  EXPECT_EQ(error_class(MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_create_f90_integer(39, &t)), MPI_ERR_ARG);
}

TEST(TypeMatchSize, TheFortranTypeOfAClassAndSize) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  ASSERT_EQ(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t), MPI_SUCCESS);
  EXPECT_EQ(t, MPI_INTEGER8);
  ASSERT_EQ(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t), MPI_SUCCESS);
  EXPECT_EQ(t, MPI_REAL4);
  ASSERT_EQ(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t), MPI_SUCCESS);
  EXPECT_EQ(t, MPI_DOUBLE_COMPLEX);
  ASSERT_EQ(MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &t), MPI_SUCCESS);
  EXPECT_EQ(t, MPI_REAL16);
  ASSERT_EQ(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &t), MPI_SUCCESS);
  EXPECT_EQ(t, MPI_INTEGER16);
  ASSERT_EQ(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 32, &t), MPI_SUCCESS);
  EXPECT_EQ(t, MPI_COMPLEX32);
  mpitest::ErrorsReturn er;
  EXPECT_EQ(error_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_match_size(99, 4, &t)), MPI_ERR_ARG);
}


// ---- subarray and darray (MPI-2.2 §4.1.3-4.1.4) ------------------------------------

std::pair<MPI_Aint, MPI_Aint> bounds(MPI_Datatype t) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(t, &lb, &extent);
  return {lb, extent};
}

TEST(Subarray, CAndFortranOrderElementMaps) {
  const int sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 2};
  MPI_Datatype c, f;
  ASSERT_EQ(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &c), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &f), MPI_SUCCESS);
  MPI_Type_commit(&c);
  MPI_Type_commit(&f);
  // C: element (i, j) at i*5 + j, j fastest; Fortran: at i + 4*j, i fastest.
  EXPECT_EQ(packed_ints(c, 1, 20), (std::vector<int>{7, 8, 9, 12, 13, 14}));
  EXPECT_EQ(packed_ints(f, 1, 20), (std::vector<int>{9, 10, 13, 14, 17, 18}));
  // The whole array's extent from 0: a second instance is the next array.
  EXPECT_EQ(bounds(c), std::make_pair(MPI_Aint{0}, MPI_Aint{20 * sizeof(int)}));
  EXPECT_EQ(packed_ints(c, 2, 40), (std::vector<int>{7, 8, 9, 12, 13, 14, 27, 28, 29, 32, 33, 34}));
  int size = 0;
  MPI_Type_size(f, &size);
  EXPECT_EQ(size, 6 * static_cast<int>(sizeof(int)));
  MPI_Type_free(&c);
  MPI_Type_free(&f);
}

// MPI-2.2 §4.1.7: a resized type's bounds are the ones given; the old
// type's markers are erased, not kept as MPI-1's sticky MPI_LB/MPI_UB
// would be. So are the old type's in a subarray (§4.1.3: it is resized to
// the whole array). MPICH's dtpools found a subarray 40 bytes too wide.
TEST(Subarray, OldTypeBoundsOutsideItsCellDoNotWidenIt) {
  MPI_Datatype wide, narrow, sub;
  // An int whose bounds reach 4 bytes below it and 4 above.
  ASSERT_EQ(MPI_Type_create_resized(MPI_INT, -4, 12, &wide), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_resized(wide, 0, 4, &narrow), MPI_SUCCESS);
  EXPECT_EQ(bounds(narrow), std::make_pair(MPI_Aint{0}, MPI_Aint{4}));
  MPI_Type_commit(&narrow);
  EXPECT_EQ(packed_ints(narrow, 3, 3), (std::vector<int>{0, 1, 2})) << "ints back to back";
  // Elements 0 and 1 of a 3-element array of `wide` (12 bytes apart).
  const int sizes[] = {3}, subsizes[] = {2}, starts[] = {0};
  ASSERT_EQ(MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, wide, &sub), MPI_SUCCESS);
  EXPECT_EQ(bounds(sub), std::make_pair(MPI_Aint{0}, MPI_Aint{36}));
  MPI_Type_commit(&sub);
  EXPECT_EQ(packed_ints(sub, 1, 9), (std::vector<int>{0, 3}));
  MPI_Type_free(&sub);
  MPI_Type_free(&narrow);
  MPI_Type_free(&wide);
}

TEST(Subarray, AHaloFaceOfA3dLatticeThroughAMessage) {
  // The x = 4 face of a 3x4x5 (t, y, x) block of doubles: 12 of them.
  const int sizes[] = {3, 4, 5}, subsizes[] = {3, 4, 1}, starts[] = {0, 0, 4};
  MPI_Datatype face;
  ASSERT_EQ(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &face), MPI_SUCCESS);
  MPI_Type_commit(&face);
  std::vector<double> lattice(60), got(12, -1);
  for (int i = 0; i < 60; ++i) lattice[i] = i + 0.5;
  MPI_Status st;
  ASSERT_EQ(MPI_Sendrecv(lattice.data(), 1, face, 0, 4, got.data(), 12, MPI_DOUBLE, 0, 4, MPI_COMM_SELF, &st),
            MPI_SUCCESS);
  for (int t = 0, k = 0; t < 3; ++t)
    for (int y = 0; y < 4; ++y, ++k) EXPECT_EQ(got[k], t * 20 + y * 5 + 4 + 0.5) << k;
  MPI_Type_free(&face);
}

TEST(Subarray, BadArguments) {
  mpitest::ErrorsReturn errors;
  const int sizes[] = {4, 5}, too_big[] = {5, 1}, starts[] = {0, 0}, late[] = {3, 0}, two[] = {2, 2};
  MPI_Datatype t;
  EXPECT_EQ(error_class(MPI_Type_create_subarray(2, sizes, too_big, starts, MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_create_subarray(2, sizes, two, late, MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_create_subarray(0, sizes, two, starts, MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_create_subarray(2, sizes, two, starts, 3, MPI_INT, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_create_subarray(2, sizes, two, starts, MPI_ORDER_C, MPI_DATATYPE_NULL, &t)),
            MPI_ERR_TYPE);
}

// The ints rank r's darray takes of an array 0, 1, 2, ... of `total`.
std::vector<int> darray_ints(int size, int rank, int ndims, const int* gsizes, const int* distribs, const int* dargs,
                             const int* psizes, int order, int total) {
  MPI_Datatype t;
  EXPECT_EQ(MPI_Type_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, MPI_INT, &t),
            MPI_SUCCESS);
  MPI_Type_commit(&t);
  EXPECT_EQ(bounds(t), std::make_pair(MPI_Aint{0}, MPI_Aint(total * sizeof(int))));
  std::vector<int> got = packed_ints(t, 1, total);
  MPI_Type_free(&t);
  return got;
}

TEST(Darray, BlockAndCyclicInOneDimension) {
  const int g[] = {10}, block[] = {MPI_DISTRIBUTE_BLOCK}, dflt[] = {MPI_DISTRIBUTE_DFLT_DARG}, p[] = {3};
  // Blocks of ceil(10/3) = 4.
  EXPECT_EQ(darray_ints(3, 0, 1, g, block, dflt, p, MPI_ORDER_C, 10), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(darray_ints(3, 1, 1, g, block, dflt, p, MPI_ORDER_C, 10), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(darray_ints(3, 2, 1, g, block, dflt, p, MPI_ORDER_C, 10), (std::vector<int>{8, 9}));
  // Cyclic(2) over 11: rank 0 takes 0 1 6 7, rank 1 2 3 8 9, rank 2 4 5 10.
  const int g11[] = {11}, cyclic[] = {MPI_DISTRIBUTE_CYCLIC}, two[] = {2};
  EXPECT_EQ(darray_ints(3, 0, 1, g11, cyclic, two, p, MPI_ORDER_C, 11), (std::vector<int>{0, 1, 6, 7}));
  EXPECT_EQ(darray_ints(3, 1, 1, g11, cyclic, two, p, MPI_ORDER_C, 11), (std::vector<int>{2, 3, 8, 9}));
  EXPECT_EQ(darray_ints(3, 2, 1, g11, cyclic, two, p, MPI_ORDER_C, 11), (std::vector<int>{4, 5, 10}));
  // Blocks of 5 over 3 processes of 10: the last one gets nothing.
  const int five[] = {5};
  EXPECT_EQ(darray_ints(3, 2, 1, g, block, five, p, MPI_ORDER_C, 10), (std::vector<int>{}));
}

TEST(Darray, TwoDimensionsOnAProcessGridInBothOrders) {
  // 4x6 over a 2x3 grid (processes row-major: rank 4 sits at (1, 1)):
  // dimension 0 by blocks of 2, dimension 1 cyclic.
  const int g[] = {4, 6}, d[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            a[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p[] = {2, 3};
  // C order: element (i, j) at i*6 + j; rows 2..3, columns 1 and 4.
  EXPECT_EQ(darray_ints(6, 4, 2, g, d, a, p, MPI_ORDER_C, 24), (std::vector<int>{13, 16, 19, 22}));
  // Fortran order: at i + 4*j, i fastest.
  EXPECT_EQ(darray_ints(6, 4, 2, g, d, a, p, MPI_ORDER_FORTRAN, 24), (std::vector<int>{6, 7, 18, 19}));
  // Every element belongs to exactly one process.
  std::vector<int> owners(24, 0);
  for (int r = 0; r < 6; ++r)
    for (int e : darray_ints(6, r, 2, g, d, a, p, MPI_ORDER_C, 24)) ++owners[e];
  EXPECT_EQ(owners, std::vector<int>(24, 1));
  // MPI_DISTRIBUTE_NONE: the whole dimension, on a grid extent of 1.
  const int none[] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK}, p13[] = {1, 3};
  EXPECT_EQ(darray_ints(3, 2, 2, g, none, a, p13, MPI_ORDER_C, 24),
            (std::vector<int>{4, 5, 10, 11, 16, 17, 22, 23}));
}

TEST(Darray, BadArguments) {
  mpitest::ErrorsReturn errors;
  const int g[] = {10}, block[] = {MPI_DISTRIBUTE_BLOCK}, none[] = {MPI_DISTRIBUTE_NONE}, dflt[] = {MPI_DISTRIBUTE_DFLT_DARG},
            p[] = {3}, small[] = {3};
  MPI_Datatype t;
  EXPECT_EQ(error_class(MPI_Type_create_darray(4, 0, 1, g, block, dflt, p, MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG)
      << "size differs from the grid";
  EXPECT_EQ(error_class(MPI_Type_create_darray(3, 3, 1, g, block, dflt, p, MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG)
      << "rank out of range";
  EXPECT_EQ(error_class(MPI_Type_create_darray(3, 0, 1, g, block, small, p, MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG)
      << "3 blocks of 3 do not cover 10";
  EXPECT_EQ(error_class(MPI_Type_create_darray(3, 0, 1, g, none, dflt, p, MPI_ORDER_C, MPI_INT, &t)), MPI_ERR_ARG)
      << "MPI_DISTRIBUTE_NONE over 3 processes";
}

// ---- envelope and contents (MPI-2.2 §4.1.13) -------------------------------------------

struct Contents {
  int combiner = 0;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Datatype> types;
};
Contents contents_of(MPI_Datatype t) {
  Contents c;
  int ni, na, nd;
  EXPECT_EQ(MPI_Type_get_envelope(t, &ni, &na, &nd, &c.combiner), MPI_SUCCESS);
  c.ints.resize(ni);
  c.aints.resize(na);
  c.types.resize(nd);
  EXPECT_EQ(MPI_Type_get_contents(t, ni, na, nd, c.ints.data(), c.aints.data(), c.types.data()), MPI_SUCCESS);
  return c;
}

TEST(Envelope, EveryConstructorGivesBackItsArguments) {
  MPI_Datatype v, hv, idx, hidx, blk, st, rs, dup, sub;
  MPI_Type_vector(3, 2, 5, MPI_INT, &v);
  MPI_Type_create_hvector(2, 1, 64, v, &hv);
  const int lens[] = {1, 2}, displs[] = {4, 0}, sizes[] = {4, 5}, subsizes[] = {2, 3}, starts[] = {1, 2};
  const MPI_Aint bdispls[] = {16, 0};
  MPI_Type_indexed(2, lens, displs, MPI_DOUBLE, &idx);
  MPI_Type_create_hindexed(2, lens, bdispls, MPI_DOUBLE, &hidx);
  MPI_Type_create_indexed_block(2, 3, displs, MPI_SHORT, &blk);
  const MPI_Datatype types[] = {MPI_CHAR, v};
  MPI_Type_create_struct(2, lens, bdispls, types, &st);
  MPI_Type_create_resized(MPI_INT, -4, 12, &rs);
  MPI_Type_dup(MPI_FLOAT, &dup);
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &sub);

  Contents c = contents_of(v);
  EXPECT_EQ(c.combiner, MPI_COMBINER_VECTOR);
  EXPECT_EQ(c.ints, (std::vector<int>{3, 2, 5}));
  EXPECT_EQ(c.types, std::vector<MPI_Datatype>{MPI_INT});
  c = contents_of(hv);
  EXPECT_EQ(c.combiner, MPI_COMBINER_HVECTOR);
  EXPECT_EQ(c.ints, (std::vector<int>{2, 1}));
  EXPECT_EQ(c.aints, std::vector<MPI_Aint>{64});
  // A derived constituent comes back as a new handle with the same map.
  ASSERT_EQ(c.types.size(), 1u);
  EXPECT_NE(c.types[0], v);
  Contents inner = contents_of(c.types[0]);
  EXPECT_EQ(inner.combiner, MPI_COMBINER_VECTOR);
  EXPECT_EQ(inner.ints, (std::vector<int>{3, 2, 5}));
  MPI_Type_free(&c.types[0]);
  c = contents_of(idx);
  EXPECT_EQ(c.combiner, MPI_COMBINER_INDEXED);
  EXPECT_EQ(c.ints, (std::vector<int>{2, 1, 2, 4, 0}));
  c = contents_of(hidx);
  EXPECT_EQ(c.combiner, MPI_COMBINER_HINDEXED);
  EXPECT_EQ(c.ints, (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(c.aints, (std::vector<MPI_Aint>{16, 0}));
  c = contents_of(blk);
  EXPECT_EQ(c.combiner, MPI_COMBINER_INDEXED_BLOCK);
  EXPECT_EQ(c.ints, (std::vector<int>{2, 3, 4, 0}));
  EXPECT_EQ(c.types, std::vector<MPI_Datatype>{MPI_SHORT});
  c = contents_of(st);
  EXPECT_EQ(c.combiner, MPI_COMBINER_STRUCT);
  EXPECT_EQ(c.ints, (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(c.aints, (std::vector<MPI_Aint>{16, 0}));
  ASSERT_EQ(c.types.size(), 2u);
  EXPECT_EQ(c.types[0], MPI_CHAR);
  MPI_Type_free(&c.types[1]);
  c = contents_of(rs);
  EXPECT_EQ(c.combiner, MPI_COMBINER_RESIZED);
  EXPECT_EQ(c.aints, (std::vector<MPI_Aint>{-4, 12}));
  c = contents_of(dup);
  EXPECT_EQ(c.combiner, MPI_COMBINER_DUP);
  EXPECT_EQ(c.types, std::vector<MPI_Datatype>{MPI_FLOAT});
  c = contents_of(sub);
  EXPECT_EQ(c.combiner, MPI_COMBINER_SUBARRAY);
  EXPECT_EQ(c.ints, (std::vector<int>{2, 4, 5, 2, 3, 1, 2, MPI_ORDER_FORTRAN}));
  for (MPI_Datatype* t : {&v, &hv, &idx, &hidx, &blk, &st, &rs, &dup, &sub}) MPI_Type_free(t);
}

TEST(Envelope, APredefinedTypeIsNamedAndHasNoContents) {
  int ni = -1, na = -1, nd = -1, combiner = -1;
  ASSERT_EQ(MPI_Type_get_envelope(MPI_DOUBLE, &ni, &na, &nd, &combiner), MPI_SUCCESS);
  EXPECT_EQ(combiner, MPI_COMBINER_NAMED);
  EXPECT_EQ(ni + na + nd, 0);
  mpitest::ErrorsReturn errors;
  EXPECT_EQ(error_class(MPI_Type_get_contents(MPI_DOUBLE, 0, 0, 0, nullptr, nullptr, nullptr)), MPI_ERR_TYPE);
  MPI_Datatype v;
  MPI_Type_vector(3, 2, 5, MPI_INT, &v);
  int ints[2];
  MPI_Datatype types[1];
  EXPECT_EQ(error_class(MPI_Type_get_contents(v, 2, 0, 1, ints, nullptr, types)), MPI_ERR_ARG) << "3 ints do not fit 2";
  MPI_Type_free(&v);
}


// ---- attributes on datatypes (MPI-2.2 §6.7.4) -------------------------------------------

struct AttrLog {
  std::vector<std::intptr_t> deleted;
  int copies = 0;
};
int copy_plus_one(MPI_Datatype, int, void* extra, void* in, void* out, int* flag) {
  ++static_cast<AttrLog*>(extra)->copies;
  *static_cast<void**>(out) = reinterpret_cast<void*>(reinterpret_cast<std::intptr_t>(in) + 1);
  *flag = 1;
  return MPI_SUCCESS;
}
int log_delete(MPI_Datatype, int, void* value, void* extra) {
  static_cast<AttrLog*>(extra)->deleted.push_back(reinterpret_cast<std::intptr_t>(value));
  return MPI_SUCCESS;
}
int refuse_delete(MPI_Datatype, int, void*, void*) { return 77; }

std::intptr_t attr_of(MPI_Datatype t, int key, int* flag) {
  void* v = nullptr;
  EXPECT_EQ(MPI_Type_get_attr(t, key, &v, flag), MPI_SUCCESS);
  return reinterpret_cast<std::intptr_t>(v);
}

TEST(TypeAttributes, CopiedByDupDeletedByFreeAndDelete) {
  AttrLog log;
  int key = MPI_KEYVAL_INVALID, plain = MPI_KEYVAL_INVALID;
  ASSERT_EQ(MPI_Type_create_keyval(copy_plus_one, log_delete, &key, &log), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &plain, nullptr), MPI_SUCCESS);
  MPI_Datatype v, d;
  MPI_Type_vector(2, 1, 3, MPI_INT, &v);
  ASSERT_EQ(MPI_Type_set_attr(v, key, reinterpret_cast<void*>(std::intptr_t{40})), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_set_attr(v, plain, reinterpret_cast<void*>(std::intptr_t{9})), MPI_SUCCESS);
  int flag = 0;
  EXPECT_EQ(attr_of(v, key, &flag), 40);
  EXPECT_EQ(flag, 1);
  // Setting again deletes the old value first.
  ASSERT_EQ(MPI_Type_set_attr(v, key, reinterpret_cast<void*>(std::intptr_t{41})), MPI_SUCCESS);
  EXPECT_EQ(log.deleted, std::vector<std::intptr_t>{40});
  ASSERT_EQ(MPI_Type_dup(v, &d), MPI_SUCCESS);
  EXPECT_EQ(log.copies, 1);
  EXPECT_EQ(attr_of(d, key, &flag), 42);
  EXPECT_EQ(flag, 1);
  attr_of(d, plain, &flag);
  EXPECT_EQ(flag, 0) << "MPI_TYPE_NULL_COPY_FN copies nothing";
  ASSERT_EQ(MPI_Type_delete_attr(v, key), MPI_SUCCESS);
  attr_of(v, key, &flag);
  EXPECT_EQ(flag, 0);
  ASSERT_EQ(MPI_Type_free(&d), MPI_SUCCESS);
  EXPECT_EQ(log.deleted, (std::vector<std::intptr_t>{40, 41, 42}));
  // On a predefined type too.
  ASSERT_EQ(MPI_Type_set_attr(MPI_INT, key, reinterpret_cast<void*>(std::intptr_t{5})), MPI_SUCCESS);
  EXPECT_EQ(attr_of(MPI_INT, key, &flag), 5);
  ASSERT_EQ(MPI_Type_delete_attr(MPI_INT, key), MPI_SUCCESS);
  MPI_Type_free(&v);
  MPI_Type_free_keyval(&key);
  MPI_Type_free_keyval(&plain);
  EXPECT_EQ(key, MPI_KEYVAL_INVALID);
}

TEST(TypeAttributes, WrongKeysAndAFailingDeleteCallback) {
  mpitest::ErrorsReturn errors;
  int comm_key, type_key;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_key, nullptr);
  MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, refuse_delete, &type_key, nullptr);
  MPI_Datatype v;
  MPI_Type_contiguous(2, MPI_INT, &v);
  EXPECT_EQ(error_class(MPI_Type_set_attr(v, comm_key, nullptr)), MPI_ERR_ARG) << "a communicator's key";
  EXPECT_EQ(error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, type_key, nullptr)), MPI_ERR_ARG) << "a datatype's key";
  EXPECT_EQ(error_class(MPI_Type_set_attr(MPI_DATATYPE_NULL, type_key, nullptr)), MPI_ERR_TYPE);
  ASSERT_EQ(MPI_Type_set_attr(v, type_key, nullptr), MPI_SUCCESS);
  MPI_Datatype kept = v;
  EXPECT_EQ(error_class(MPI_Type_free(&v)), MPI_ERR_OTHER);
  int size = 0;
  EXPECT_EQ(MPI_Type_size(kept, &size), MPI_SUCCESS) << "the type stays when its delete callback fails";
  EXPECT_EQ(size, 2 * static_cast<int>(sizeof(int)));
  MPI_Comm_free_keyval(&comm_key);
}


// ---- external32 (MPI-2.2 §4.2, §13.5.2) ------------------------------------------------

std::vector<unsigned> external(const void* buf, int count, MPI_Datatype t) {
  MPI_Aint size = -1, pos = 0;
  EXPECT_EQ(MPI_Pack_external_size("external32", count, t, &size), MPI_SUCCESS);
  std::vector<unsigned char> out(static_cast<std::size_t>(size) + 4, 0xee);
  EXPECT_EQ(MPI_Pack_external("external32", buf, count, t, out.data(), size, &pos), MPI_SUCCESS);
  EXPECT_EQ(pos, size);
  return std::vector<unsigned>(out.begin(), out.begin() + pos);
}

TEST(PackExternal, BigEndianAtTheStandardSizes) {
  // The bytes MPICH 4.0.2 produces for the same values.
  const int ints[3] = {1, -2, 0x01020304};
  EXPECT_EQ(external(ints, 3, MPI_INT),
            (std::vector<unsigned>{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 1, 2, 3, 4}));
  const long longs[2] = {5, -3};  // 4 bytes each in external32
  EXPECT_EQ(external(longs, 2, MPI_LONG), (std::vector<unsigned>{0, 0, 0, 5, 0xff, 0xff, 0xff, 0xfd}));
  const double d = 1.0;
  EXPECT_EQ(external(&d, 1, MPI_DOUBLE), (std::vector<unsigned>{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}));
  const long double ld = 1.0L;  // IEEE binary128
  std::vector<unsigned> quad(16, 0);
  quad[0] = 0x3f, quad[1] = 0xff;
  EXPECT_EQ(external(&ld, 1, MPI_LONG_DOUBLE), quad);
  struct {
    short v;
    int i;
  } si = {3, 9};  // the pair's padding is not packed
  EXPECT_EQ(external(&si, 1, MPI_SHORT_INT), (std::vector<unsigned>{0, 3, 0, 0, 0, 9}));
}

TEST(PackExternal, RoundTripsThroughUnpackIncludingADerivedType) {
  struct Rec {
    char c;
    long l;
    long double x;
    double d[2];
  };
  MPI_Datatype rec;
  const int lens[] = {1, 1, 1, 2};
  const MPI_Aint displs[] = {offsetof(Rec, c), offsetof(Rec, l), offsetof(Rec, x), offsetof(Rec, d)};
  const MPI_Datatype types[] = {MPI_CHAR, MPI_LONG, MPI_LONG_DOUBLE, MPI_DOUBLE};
  MPI_Type_create_struct(4, lens, displs, types, &rec);
  MPI_Type_commit(&rec);
  const Rec in[2] = {{'a', -123456, 1.0L / 3, {0.5, -2.25}}, {'z', 2147483647, -7.0L, {1e300, -0.0}}};
  MPI_Aint size = 0;
  ASSERT_EQ(MPI_Pack_external_size("external32", 2, rec, &size), MPI_SUCCESS);
  EXPECT_EQ(size, 2 * (1 + 4 + 16 + 16));
  std::vector<char> packed(static_cast<std::size_t>(size));
  MPI_Aint pos = 0;
  ASSERT_EQ(MPI_Pack_external("external32", in, 2, rec, packed.data(), size, &pos), MPI_SUCCESS);
  Rec out[2];
  std::memset(out, 0, sizeof out);
  pos = 0;
  ASSERT_EQ(MPI_Unpack_external("external32", packed.data(), size, &pos, out, 2, rec), MPI_SUCCESS);
  EXPECT_EQ(pos, size);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(out[k].c, in[k].c);
    EXPECT_EQ(out[k].l, in[k].l);
    EXPECT_EQ(out[k].x, in[k].x) << "binary128 holds every x87 long double";
    EXPECT_EQ(out[k].d[0], in[k].d[0]);
    EXPECT_EQ(out[k].d[1], in[k].d[1]);
  }
  MPI_Type_free(&rec);
}

TEST(PackExternal, BadArguments) {
  mpitest::ErrorsReturn errors;
  const long big = 1L << 40;
  char out[16];
  MPI_Aint pos = 0;
  EXPECT_EQ(error_class(MPI_Pack_external("external32", &big, 1, MPI_LONG, out, 16, &pos)), MPI_ERR_ARG)
      << "2^40 does not fit external32's 4-byte long";
  const int x = 1;
  pos = 0;
  EXPECT_EQ(error_class(MPI_Pack_external("native", &x, 1, MPI_INT, out, 16, &pos)), MPI_ERR_ARG);
  pos = 14;
  EXPECT_EQ(error_class(MPI_Pack_external("external32", &x, 1, MPI_INT, out, 16, &pos)), MPI_ERR_ARG)
      << "4 bytes into the 2 left";
  EXPECT_EQ(pos, 14);
}

}  // namespace

MPI_TEST_MAIN()
