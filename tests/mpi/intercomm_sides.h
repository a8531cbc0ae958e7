// The intercommunicator the intercommunicator tests use: the first third of
// the world (at least one rank) against the rest, so the two groups differ
// in size; local leaders are local rank 0 (world ranks 0 and low_size).
#pragma once

#include <algorithm>

#include "tests/mpi/mpi_main.h"

namespace mpitest {

struct Sides {
  MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  bool low = false;  // in the first third
  int low_size = 0;
  int me = 0, n = 0, rn = 0;  // rank in the local group, its size, the remote group's size
  int world_of_remote(int r) const { return low ? low_size + r : r; }
};

inline Sides make_sides() {
  Sides s;
  s.low_size = std::max(1, size() / 3);
  s.low = rank() < s.low_size;
  MPI_Comm_split(MPI_COMM_WORLD, s.low ? 0 : 1, rank(), &s.local);
  EXPECT_EQ(MPI_Intercomm_create(s.local, 0, MPI_COMM_WORLD, s.low ? s.low_size : 0, 77, &s.inter), MPI_SUCCESS);
  MPI_Comm_rank(s.inter, &s.me);
  MPI_Comm_size(s.inter, &s.n);
  MPI_Comm_remote_size(s.inter, &s.rn);
  return s;
}

inline void free_sides(Sides& s) {
  MPI_Comm_free(&s.inter);
  MPI_Comm_free(&s.local);
}

}  // namespace mpitest
