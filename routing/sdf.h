// Shortest-Direction-First routing on a torus or mesh of 1-6 axes (seed 003
// 003_106e7c8e7ab06676.txt §5.1: "chooses the direction that has the
// smallest number of remaining steps for a packet"; §4: the switching is
// done below user space). Pure functions of the geometry: no processes, no
// system calls.
#pragma once

#include <optional>
#include <vector>

#include "mesh/geometry.h"

namespace meshmp::routing {

using mesh::Direction;
using mesh::Torus;

/// The SDF next hop from `from` towards `to`: among the productive
/// directions (those that shorten the way), the one with the fewest
/// remaining steps along its axis; ties go to the lower axis. The steps
/// along an axis are the shortest way round on a periodic one (dim/2 the +
/// way when both ways are equally long on an even axis: ties go +), the
/// plain difference on an open one. nullopt when
/// from == to. Ranks must be in [0, t.size()); std::out_of_range otherwise.
std::optional<Direction> sdf_next_hop(const Torus& t, int from, int to);

/// The whole SDF route: the ranks visited, `from` first and `to` last;
/// t.hop_distance(from, to) + 1 entries.
std::vector<int> sdf_route(const Torus& t, int from, int to);

}  // namespace meshmp::routing
