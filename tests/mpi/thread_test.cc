// MPI_Init_thread, MPI_Query_thread and MPI_Is_thread_main (MPI-2 §8.7):
// SINGLE and FUNNELED are provided; a request for more gets FUNNELED.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <thread>

namespace {

int g_required = MPI_THREAD_MULTIPLE, g_provided = -1;

TEST(Thread, ProvidedIsAtMostFunneled) {
  EXPECT_EQ(g_provided, g_required <= MPI_THREAD_FUNNELED ? g_required : MPI_THREAD_FUNNELED);
  int q;
  MPI_Query_thread(&q);
  EXPECT_EQ(q, g_provided);
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
