// How QMP_layout_grid spreads nodes over a lattice (QMP_API.md "Topology"),
// as pure code so that it can be checked against reference layouts.
#pragma once

#include <optional>
#include <vector>

namespace meshmp::qmp {

/// Nodes per axis for a lattice of extents `lattice` on `nodes` nodes, by
/// USQCD QMP's rule (QMP_grid.c, MILC's layout before it), so that the same
/// lattice on the same node count gets the same layout as with USQCD QMP:
/// repeatedly take the largest prime factor p of the node count still to
/// place and divide by p the largest sub-lattice extent divisible by p;
/// among equal extents, keep an axis that was already divided, otherwise
/// take the last. (USQCD's table of primes ends at 53; here any prime
/// works.) std::nullopt if some factor divides no remaining extent. The
/// product of the result is `nodes`; result[i] divides lattice[i].
std::optional<std::vector<int>> layout_nodes(const std::vector<int>& lattice, int nodes);

}  // namespace meshmp::qmp
