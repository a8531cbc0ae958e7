// The random tests' draws (tests/mpi: traffic_stress, coll_stress,
// comm_stress, datatype_fuzz; tests/qmp: qmp_stress):
// xorshift64 (Marsaglia, 2003), the same stream on every rank for the same
// seed, so that every rank draws the same plan and knows what every other
// rank sends.
#pragma once

#include <cstdint>

namespace meshmp::testing_support {

struct Draw {
  std::uint64_t s;  ///< the state: any value but 0
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  /// 0..n-1 (0 for n <= 0).
  int below(int n) { return n <= 0 ? 0 : static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

}  // namespace meshmp::testing_support
