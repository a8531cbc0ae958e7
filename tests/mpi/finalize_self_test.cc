// MPI-2.2 §8.7.1: MPI_Finalize first frees MPI_COMM_SELF, so the delete
// callbacks of its attributes run -- while MPI still works -- before MPI
// shuts down (how a library hooks Finalize). Exit 0 only if the callback ran
// once, inside MPI_Finalize, and could still make MPI calls.
#include <mpi.h>

#include <cstdio>

namespace {
int g_calls = 0;
bool g_mpi_worked = false;

int on_delete(MPI_Comm comm, int, void* value, void*) {
  ++g_calls;
  int finalized = 1, rank = -1, sum = 0, one = 1;
  MPI_Finalized(&finalized);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);  // every rank is in Finalize
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  g_mpi_worked = comm == MPI_COMM_SELF && !finalized && rank >= 0 && sum == size && value == &g_calls;
  return MPI_SUCCESS;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int key;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &key, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, key, &g_calls);
  if (g_calls != 0) return 3;
  const int rc = MPI_Finalize();
  if (rc != MPI_SUCCESS || g_calls != 1 || !g_mpi_worked) {
    std::fprintf(stderr, "MPI_Finalize: rc %d, %d delete callback call(s), MPI usable in it: %d\n", rc, g_calls,
                 g_mpi_worked);
    return 1;
  }
  return 0;
}
