// MPI-2.2 §4.1.2 and §4.1.10: MPI_Type_create_indexed_block,
// MPI_Type_create_hindexed_block and MPI_Type_dup, checked against element
// maps written out by hand (which bytes of the buffer a send takes, in which
// order), through MPI_Pack and through a message; and MPI-3.1's
// MPI_Get_library_version and the handle conversions.
#include <mpi.h>

#include <cstring>
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

}  // namespace

MPI_TEST_MAIN()
