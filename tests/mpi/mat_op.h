// A non-commutative, associative MPI operation for the reduction tests:
// 2x2 matrices of unsigned 64-bit integers (arithmetic mod 2^64), so a
// combine in the wrong order gives other bits.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace mpitest {

struct Mat {
  std::uint64_t a, b, c, d;
  bool operator==(const Mat&) const = default;
};
inline Mat times(const Mat& x, const Mat& y) {
  return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}
/// The MPI_User_function: inoutvec = invec x inoutvec.
inline void mat_times(void* in, void* inout, int* len, MPI_Datatype*) {
  Mat* x = static_cast<Mat*>(in);
  Mat* y = static_cast<Mat*>(inout);
  for (int i = 0; i < *len; ++i) y[i] = times(x[i], y[i]);
}

}  // namespace mpitest
