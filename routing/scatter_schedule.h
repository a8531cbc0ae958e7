// Store-and-forward schedules for personalised one-to-all communication
// (scatter) on a torus or mesh, after seed 003 (003_106e7c8e7ab06676.txt)
// §5.2, Figure 6: every node holds one message for every other node at the
// root; a step moves at most one message across each link (multi-port: a
// node sends on all its links in the same step), and a message is forwarded
// only after it has arrived (store-and-forward). Gather is the reverse
// schedule. Pure functions of the geometry: no processes, no system calls.
#pragma once

#include <vector>

#include "mesh/geometry.h"

namespace meshmp::routing {

using mesh::Direction;
using mesh::Torus;

/// One hop of one message: in step `step` (1-based) node `from` sends the
/// message destined for node `message` over its link in direction `dir`.
/// On a periodic axis of size 2 the + and - links are two cables to the
/// same neighbour (Torus::link_index) and count as two links.
struct Transfer {
  int step = 0;
  int from = 0;
  Direction dir;
  int message = 0;
};

/// A whole scatter from `root`: `steps` steps, transfers ordered by step,
/// then by sending node, then by direction index. Node numbers are torus
/// ranks.
struct ScatterSchedule {
  int root = 0;
  int steps = 0;
  std::vector<Transfer> transfers;
};

/// The links leaving `node`: every direction along an axis longer than 1
/// that has a neighbour (an open axis ends), in direction-index order.
std::vector<Direction> links_of(const Torus& t, int node);

/// OPT (seed 003 §5.2): the nodes are partitioned into one region per
/// neighbour of the root (the regions of a size-2 axis's two links are one,
/// fed through both), each node joining, in order of distance, a region
/// that holds one of its predecessors on a shortest path, chosen so that the
/// region's Furthest-Distance-First finishing step stays smallest. A
/// message leaves the root on its region's link(s), furthest first, and
/// then follows its region's shortest-path tree; every node forwards the
/// furthest-travelling message first on each link. Takes
/// max{ceil((p-1)/k), max distance} steps on 2x2x2, 3x3x3, 4x4x4, 8x8,
/// 4x8x8 and 6x8x8 from every root (k = links of the root; the paper's
/// bound allows one more), and on rings. On a torus every root's schedule is
/// root 0's translated. On open meshes the schedule is valid but the greedy
/// partition is not always optimal (it can take a step more than SDF).
/// Throws std::out_of_range for a root outside t.
ScatterSchedule opt_scatter(const Torus& t, int root);

/// SDF scatter, the paper's baseline (§5.2): every message follows its SDF
/// route (routing/sdf.h, on the SDF direction's own link) and waits in a
/// first-come-first-served queue at each link, ties by destination rank.
ScatterSchedule sdf_scatter(const Torus& t, int root);

/// The region (as the root's first link to it: a Direction index) of every
/// node under OPT; -1 for the root. For tests and for the README.
std::vector<int> opt_regions(const Torus& t, int root);

/// max{ceil((p-1)/k), max hop distance from root}: no scatter can finish in
/// fewer steps (the root sends one message per link per step; the furthest
/// message needs its distance). 0 for a torus of one node.
int scatter_lower_bound(const Torus& t, int root);

/// The gather that is `s` run backwards: a transfer of message m from u in
/// direction d at step k becomes one from u's neighbour back to u at step
/// steps + 1 - k, carrying m's block towards the root.
ScatterSchedule reverse_schedule(const Torus& t, const ScatterSchedule& s);

/// Replays a scatter schedule independently of how it was built: every
/// transfer leaves a node that holds its message (received in an earlier
/// step, or the root), over a link that exists; no link carries two
/// messages in one step; every message reaches its destination exactly
/// once and is not sent on from there; `steps` is the last transfer's step.
/// Returns the number of steps; throws std::logic_error naming the first
/// violation (step, node, direction, message).
int simulate_scatter(const Torus& t, const ScatterSchedule& s);

/// The same check for a gather (reverse_schedule's output): message m
/// starts at node m and must end at the root, forwarded by the same rules.
int simulate_gather(const Torus& t, const ScatterSchedule& s);

}  // namespace meshmp::routing
