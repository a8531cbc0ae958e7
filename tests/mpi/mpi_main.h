// Shared main for the MPI test programs: every rank runs the same GoogleTest
// cases in the same order under mpirun, between MPI_Init and MPI_Finalize. A
// failed assertion on any rank makes that rank exit non-zero, failing the job.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

namespace mpitest {

inline int rank(MPI_Comm c = MPI_COMM_WORLD) {
  int r;
  MPI_Comm_rank(c, &r);
  return r;
}
inline int size(MPI_Comm c = MPI_COMM_WORLD) {
  int s;
  MPI_Comm_size(c, &s);
  return s;
}
/// The class of an error code (codes carry a message index above the class).
inline int error_class(int code) {
  int c;
  MPI_Error_class(code, &c);
  return c;
}
/// The world ranks of a group's members, in the group's rank order.
inline std::vector<int> world_ranks(MPI_Group g) {
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n;
  MPI_Group_size(g, &n);
  std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(g, n, in.data(), world, out.data());
  MPI_Group_free(&world);
  return out;
}
/// MPI_Error_string's text for a code: what the error names (call, argument).
inline std::string error_text(int code) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, s, &len);
  return std::string(s, static_cast<std::size_t>(len));
}

/// The rank this one pairs with: rank^1, or itself on a job of one (or the
/// odd last rank); the even rank of a pair sends first.
inline int partner() {
  const int p = rank() ^ 1;
  return p < size() ? p : rank();
}
inline bool sender() { return rank() % 2 == 0; }

/// Switches MPI_COMM_WORLD to MPI_ERRORS_RETURN for the life of the object.
struct ErrorsReturn {
  ErrorsReturn() { MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN); }
  ~ErrorsReturn() { MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL); }
};

}  // namespace mpitest

#define MPI_TEST_MAIN()                           \
  int main(int argc, char** argv) {               \
    MPI_Init(&argc, &argv);                       \
    ::testing::InitGoogleTest(&argc, argv);       \
    const int rc = RUN_ALL_TESTS();               \
    MPI_Finalize();                               \
    return rc;                                    \
  }
