// MPI-2.2 §4.1.2 and §4.1.10: MPI_Type_create_indexed_block,
// MPI_Type_create_hindexed_block and MPI_Type_dup, checked against element
// maps written out by hand (which bytes of the buffer a send takes, in which
// order), through MPI_Pack and through a message; MPI-2.2's C99 types and
// the multi-language integers in reductions; MPI-3.1's MPI_Count queries,
// the status setters, MPI_Type_match_size, MPI_Get_library_version and the
// handle conversions.
#include <mpi.h>

#include <cstdint>
#include <cstring>
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
  std::memcpy(got.data(), out.data(), got.size() * sizeof(int));
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

TEST(TypeMatchSize, TheFortranTypeOfAClassAndSize) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  ASSERT_EQ(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t), MPI_SUCCESS);
  EXPECT_EQ(t, MPI_INTEGER8);
  ASSERT_EQ(MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t), MPI_SUCCESS);
  EXPECT_EQ(t, MPI_REAL4);
  ASSERT_EQ(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t), MPI_SUCCESS);
  EXPECT_EQ(t, MPI_DOUBLE_COMPLEX);
  mpitest::ErrorsReturn er;
  EXPECT_EQ(error_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Type_match_size(99, 4, &t)), MPI_ERR_ARG);
}

}  // namespace

MPI_TEST_MAIN()
