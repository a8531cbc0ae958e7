#include "examples/lqcd/layout.h"

#include <stdexcept>

namespace lqcd {

Layout::Layout(const Coord& g, const Coord& p, const Coord& n) : global(g), grid(p), node(n) {
  static const char* names = "xyzt";
  volume = 1;
  ext_volume = 1;
  for (int mu = 0; mu < 4; ++mu) {
    if (g[mu] < 1 || p[mu] < 1 || g[mu] % p[mu] != 0)
      throw std::invalid_argument(std::string("lattice extent ") + std::to_string(g[mu]) + " along " + names[mu] +
                                  " is not divisible by the " + std::to_string(p[mu]) + " nodes on that axis");
    local[mu] = g[mu] / p[mu];
    ext[mu] = local[mu] + 2;
    stride[mu] = static_cast<int>(ext_volume);
    volume *= local[mu];
    ext_volume *= ext[mu];
  }
}

}  // namespace lqcd
