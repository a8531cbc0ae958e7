// The 4-D lattice split over a 4-D logical topology of QMP nodes (seed 003
// §6: each node holds a sub-lattice and exchanges 3-D faces with its
// neighbours). Local fields are stored on the sub-lattice extended by one
// halo layer in every direction, so a neighbour -- and, for the gauge field,
// a diagonal neighbour -- is an index away. Axis 0 is x, 3 is t; x runs
// fastest everywhere (as in the NERSC format).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace lqcd {

using Coord = std::array<int, 4>;

struct Layout {
  Coord global{};  ///< lattice extent L_mu
  Coord grid{};    ///< nodes along each axis
  Coord node{};    ///< this node's position in the grid
  Coord local{};   ///< sub-lattice extent l_mu = L_mu / grid_mu
  Coord ext{};     ///< l_mu + 2 (one halo layer each side)
  std::int64_t volume = 0;      ///< local sites
  std::int64_t ext_volume = 0;  ///< local sites plus halo
  Coord stride{};               ///< of the extended index per axis

  /// Throws std::invalid_argument naming the axis if grid does not divide global.
  Layout(const Coord& global, const Coord& grid, const Coord& node);

  /// Extended index of local coordinates x (each in [-1, l_mu]).
  std::int64_t index(const Coord& x) const {
    return (x[0] + 1) + (x[1] + 1) * stride[1] + (x[2] + 1) * stride[2] + (x[3] + 1) * stride[3];
  }
  /// Global coordinates of local x (interior sites).
  Coord global_coord(const Coord& x) const {
    Coord g;
    for (int mu = 0; mu < 4; ++mu) g[mu] = node[mu] * local[mu] + x[mu];
    return g;
  }
  /// Lexicographic global site number (x fastest): the RNG key and file order.
  std::int64_t global_site(const Coord& x) const {
    const Coord g = global_coord(x);
    return g[0] + global[0] * (g[1] + std::int64_t{global[1]} * (g[2] + std::int64_t{global[2]} * g[3]));
  }
  /// Checkerboard parity (0 even, 1 odd) of the global site.
  int parity(const Coord& x) const {
    const Coord g = global_coord(x);
    return (g[0] + g[1] + g[2] + g[3]) & 1;
  }
  std::int64_t global_volume() const {
    return std::int64_t{global[0]} * global[1] * global[2] * global[3];
  }

  /// Calls f(x) for every interior site, x fastest.
  template <typename F>
  void for_each_site(F&& f) const {
    Coord x;
    for (x[3] = 0; x[3] < local[3]; ++x[3])
      for (x[2] = 0; x[2] < local[2]; ++x[2])
        for (x[1] = 0; x[1] < local[1]; ++x[1])
          for (x[0] = 0; x[0] < local[0]; ++x[0]) f(x);
  }
};

}  // namespace lqcd
