// One program using QMP and MPI side by side (issue 6): QMP relative sends
// and MPI collectives on the same ranks, over one engine. MESHMP_TEST_ORDER
// picks how the program starts and ends them:
//   qmp_first: QMP_init, MPI_Init   ... MPI_Finalize, QMP_finalize
//   mpi_first: MPI_Init, QMP_init   ... QMP_finalize, MPI_Finalize
//   qmp_only:  QMP_init (MPI comes up with it) ... QMP_finalize
#include <gtest/gtest.h>
#include <mpi.h>
#include <qmp.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::string order() {
  const char* o = std::getenv("MESHMP_TEST_ORDER");
  return o ? o : "qmp_first";
}

TEST(QmpAndMpi, OneInitServesBoth) {
  int flag = 0;
  MPI_Initialized(&flag);
  EXPECT_TRUE(flag);
  EXPECT_EQ(QMP_is_initialized(), QMP_TRUE);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(rank, QMP_get_node_number());
  EXPECT_EQ(size, QMP_get_number_of_nodes());
}

TEST(QmpAndMpi, RelativeSendsThenMpiAllreduce) {
  const int me = QMP_get_node_number(), n = QMP_get_number_of_nodes();
  if (!QMP_logical_topology_is_declared()) {
    ASSERT_EQ(QMP_declare_logical_topology(&n, 1), QMP_SUCCESS);  // a ring
  }
  int out = me, in = -1;
  QMP_msgmem_t mo = QMP_declare_msgmem(&out, sizeof out), mi = QMP_declare_msgmem(&in, sizeof in);
  QMP_msghandle_t s = QMP_declare_send_relative(mo, 0, +1, 0), r = QMP_declare_receive_relative(mi, 0, -1, 0);
  ASSERT_NE(s, nullptr);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(QMP_start(r), QMP_SUCCESS);
  ASSERT_EQ(QMP_start(s), QMP_SUCCESS);
  // An MPI collective while the QMP messages are in flight: separate traffic.
  int sum = 0;
  ASSERT_EQ(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(sum, n * (n - 1) / 2);
  ASSERT_EQ(QMP_wait(s), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait(r), QMP_SUCCESS);
  EXPECT_EQ(in, (me + n - 1) % n) << "the ring neighbour in -x";
  QMP_free_msghandle(s);
  QMP_free_msghandle(r);
  QMP_free_msgmem(mo);
  QMP_free_msgmem(mi);
}

TEST(QmpAndMpi, HiddenCommIsTheMatchingMpiComm) {
  void* hidden = nullptr;
  ASSERT_EQ(QMP_get_hidden_comm(QMP_comm_get_default(), &hidden), QMP_SUCCESS);
  ASSERT_NE(hidden, nullptr);
  MPI_Comm c = *static_cast<MPI_Comm*>(hidden);
  void* again = nullptr;
  QMP_get_hidden_comm(QMP_comm_get_default(), &again);
  EXPECT_EQ(again, hidden) << "one MPI_Comm per QMP communicator";
  int rank, size, result;
  MPI_Comm_rank(c, &rank);
  MPI_Comm_size(c, &size);
  EXPECT_EQ(rank, QMP_get_node_number());
  EXPECT_EQ(size, QMP_get_number_of_nodes());
  MPI_Comm_compare(c, MPI_COMM_WORLD, &result);
  EXPECT_EQ(result, MPI_CONGRUENT);
  // Its traffic does not meet MPI_COMM_WORLD's with the same tag.
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  int a = 100 + rank, b = 200 + rank, x = 0, y = 0;
  MPI_Request q[2];
  MPI_Isend(&a, 1, MPI_INT, to, 9, MPI_COMM_WORLD, &q[0]);
  MPI_Isend(&b, 1, MPI_INT, to, 9, c, &q[1]);
  MPI_Recv(&y, 1, MPI_INT, from, 9, c, MPI_STATUS_IGNORE);
  MPI_Recv(&x, 1, MPI_INT, from, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
  EXPECT_EQ(x, 100 + from);
  EXPECT_EQ(y, 200 + from);
  // A split QMP communicator has its own matching MPI_Comm.
  QMP_comm_t half;
  ASSERT_EQ(QMP_comm_split(QMP_comm_get_default(), rank % 2, rank, &half), QMP_SUCCESS);
  void* hh = nullptr;
  ASSERT_EQ(QMP_get_hidden_comm(half, &hh), QMP_SUCCESS);
  int hs;
  MPI_Comm_size(*static_cast<MPI_Comm*>(hh), &hs);
  EXPECT_EQ(hs, QMP_comm_get_number_of_nodes(half));
  int sum = 0, one = 1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, *static_cast<MPI_Comm*>(hh));
  EXPECT_EQ(sum, hs);
  QMP_comm_free(half);
}

// USQCD QMP's MPI-backend call, which codes built for that backend link
// against: the same MPI_Comm as QMP_get_hidden_comm.
TEST(QmpAndMpi, GetMpiCommIsTheHiddenComm) {
  void* hidden = nullptr;
  void* mpi = nullptr;
  ASSERT_EQ(QMP_get_hidden_comm(QMP_comm_get_default(), &hidden), QMP_SUCCESS);
  ASSERT_EQ(QMP_get_mpi_comm(QMP_comm_get_default(), &mpi), QMP_SUCCESS);
  EXPECT_EQ(mpi, hidden);
  int size = 0;
  MPI_Comm_size(*static_cast<MPI_Comm*>(mpi), &size);
  EXPECT_EQ(size, QMP_get_number_of_nodes());
  EXPECT_EQ(QMP_get_mpi_comm(QMP_comm_get_default(), nullptr), QMP_INVALID_ARG);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string o = order();
  QMP_thread_level_t provided;
  if (o == "mpi_first") MPI_Init(&argc, &argv);
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 2;
  if (o == "qmp_first" && MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    std::fprintf(stderr, "MPI_Init after QMP_init_msg_passing failed\n");
    return 3;
  }
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  if (o == "qmp_first") MPI_Finalize();
  QMP_finalize_msg_passing();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (o == "mpi_first") {
    if (finalized) {
      std::fprintf(stderr, "QMP_finalize_msg_passing finalized the program's MPI\n");
      return 4;
    }
    MPI_Finalize();
  } else if (!finalized) {
    std::fprintf(stderr, "MPI is still running after both finalizes\n");
    return 5;
  }
  return rc;
}
