// MPI_Init_thread, MPI_Query_thread and MPI_Is_thread_main (MPI-2.2
// §12.4): SINGLE, FUNNELED and SERIALIZED are provided; a request for
// MULTIPLE gets SERIALIZED, and then any thread may call, one at a time.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <functional>
#include <thread>

namespace {

int g_required = MPI_THREAD_MULTIPLE, g_provided = -1;

TEST(Thread, ProvidedIsAtMostSerialized) {
  EXPECT_EQ(g_provided, g_required <= MPI_THREAD_SERIALIZED ? g_required : MPI_THREAD_SERIALIZED);
  int q;
  MPI_Query_thread(&q);
  EXPECT_EQ(q, g_provided);
}

// Runs `body` on this thread or on a new one (joined before returning).
void on_thread(bool fresh, const std::function<void()>& body) {
  if (fresh) std::thread(body).join();
  else body();
}

// MPI_THREAD_SERIALIZED (MPI-2.2 §12.4.3): each round some ranks call from
// a new thread and the others from the main one, as an OpenMP program
// calling MPI inside `omp single` does. The barrier runs on the algorithm
// MESHMP_BARRIER names (flag windows: set up at a communicator's first
// barrier, found again at the next one whichever thread calls it). A
// nonblocking barrier started on one thread completes on another.
TEST(Thread, SerializedCallsFromAnyThread) {
  if (g_provided < MPI_THREAD_SERIALIZED) GTEST_SKIP() << "provided " << g_provided;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
  for (int round = 0; round < 6; ++round) {
    int sum = -1, root_value = -1, from_left = -1;
    MPI_Request ibarrier = MPI_REQUEST_NULL;
    on_thread((rank + round) % 2 == 1, [&] {
      EXPECT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
      EXPECT_EQ(MPI_Barrier(dup), MPI_SUCCESS);
      int mine = rank + round;
      EXPECT_EQ(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, dup), MPI_SUCCESS);
      root_value = rank == round % size ? 100 + round : -1;
      EXPECT_EQ(MPI_Bcast(&root_value, 1, MPI_INT, round % size, MPI_COMM_WORLD), MPI_SUCCESS);
      EXPECT_EQ(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, round, &from_left, 1, MPI_INT,
                             (rank + size - 1) % size, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                MPI_SUCCESS);
      EXPECT_EQ(MPI_Ibarrier(dup, &ibarrier), MPI_SUCCESS);
    });
    on_thread((rank + round) % 2 == 0, [&] { EXPECT_EQ(MPI_Wait(&ibarrier, MPI_STATUS_IGNORE), MPI_SUCCESS); });
    EXPECT_EQ(sum, size * (size - 1) / 2 + size * round) << "round " << round;
    EXPECT_EQ(root_value, 100 + round) << "round " << round;
    EXPECT_EQ(from_left, (rank + size - 1) % size) << "round " << round;
    EXPECT_EQ(ibarrier, MPI_REQUEST_NULL);
  }
  EXPECT_EQ(MPI_Comm_free(&dup), MPI_SUCCESS);
}

TEST(Thread, OnlyTheInitialisingThreadIsMain) {
  int flag = 0;
  MPI_Is_thread_main(&flag);
  EXPECT_TRUE(flag);
  int other = 1;
  std::thread([&] { MPI_Is_thread_main(&other); }).join();
  EXPECT_FALSE(other);
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* r = std::getenv("MESHMP_TEST_THREAD_LEVEL")) g_required = std::atoi(r);
  if (MPI_Init_thread(&argc, &argv, g_required, &g_provided) != MPI_SUCCESS) return 2;
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
