// Shared main for the MPI test programs: every rank runs the same GoogleTest
// cases in the same order under mpirun, between MPI_Init and MPI_Finalize. A
// failed assertion on any rank makes that rank exit non-zero, failing the job.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

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
