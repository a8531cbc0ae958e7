// A communicator as the collectives see it: the members' world ranks, a
// context reserved for collective traffic, and -- when the group is congruent
// to a torus -- that torus, so the torus algorithms of seed 003 §5.2 apply.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "mesh/engine.h"
#include "mesh/geometry.h"

namespace meshmp::collectives {

struct Group {
  mesh::Engine* engine = nullptr;
  std::uint32_t context = 0;   ///< context id used only by collective traffic
  std::vector<int> ranks;      ///< world rank of each member, indexed by group rank
  int me = 0;                  ///< this process's group rank
  /// Set when group rank g sits at torus().coords(g) and torus neighbours are
  /// one link apart (the logical topology, or a job of it).
  std::optional<mesh::Torus> torus;

  int size() const { return static_cast<int>(ranks.size()); }
};

/// An elementwise combine: inout[i] = inout[i] (op) in[i] for `count`
/// elements of `elem_size` bytes. Must be deterministic; the algorithms fix
/// the order in which partial results are combined, so every member gets the
/// same bits whatever order messages arrive in.
struct ReduceOp {
  void (*combine)(void* inout, const void* in, std::size_t count, void* ctx) = nullptr;
  void* ctx = nullptr;
  std::size_t elem_size = 1;
  /// False for an operation whose operands must be combined in rank order
  /// (MPI-1.1 §4.9.4): the collectives then combine member i's partial as the
  /// left operand of member i+1's, `in` being the right one. combine may
  /// overwrite `in` (always scratch memory of the algorithm).
  bool commutative = true;
  /// True where combine never writes `in` (the predefined operations): an
  /// algorithm may then pass another rank's memory as `in` directly (the
  /// host-local long combine reads the others' staging buffers) instead of
  /// copying it to scratch first.
  bool keeps_in = false;
};

/// Which global-combine algorithm to use (chosen by size unless forced).
enum class CombineAlgorithm {
  kAuto,              ///< shared memory when it applies, else dimension-wise exchange up to
                      ///< kExchangeMaxBytes, reduce + broadcast below kRingMinBytes, else ring
  kSharedMemory,      ///< every rank of the job on one host: publish once; the last to arrive
                      ///< combines all in rank order and releases the result (seed 002 §5.2's
                      ///< flat tree); falls back when it does not apply
  kReduceBroadcast,   ///< axis-sweep reduce to node 0, then axis-sweep broadcast (2x steps)
  kDimensionExchange, ///< per-axis bidirectional exchange: sum(floor(dim/2)) steps
  kRing,              ///< reduce-scatter then all-gather around the ranks: 2(p-1) steps, each
                      ///< moving 1/p of the vector (bandwidth-optimal, for long vectors)
};

/// Which schedule a personalised collective follows.
enum class ScatterAlgorithm {
  kAuto,    ///< OPT on a torus group of a mesh fabric, else kDirect (collectives.h)
  kDirect,  ///< every block straight between the root and its member (the linear algorithm)
  kOpt,     ///< seed 003 §5.2 OPT: regions per root link, furthest first
  kSdf,    ///< seed 003 §5.2 SDF: SDF routes, first come first served per link
};

/// Above this many bytes the dimension-wise exchange (which moves every
/// partial of a line to every node of it) costs more than reduce + broadcast.
/// Measured with bench/combine_crossover on 8 ranks (2x2x2, 2 cores):
/// exchange 26.5 us vs 27.8 us at 2 KiB, 29.7 us vs 26.9 us at 4 KiB.
/// A group of two takes the exchange below kRingMinBytes: one message each
/// way against two in a row (2 ranks, 2-core machine, MPI_Allreduce of
/// 3-6 KiB: 0.60-0.88 us against 0.95-1.30 with reduce + broadcast).
inline constexpr std::size_t kExchangeMaxBytes = 2048;

/// From this many bytes the ring (reduce-scatter + all-gather) beats reduce +
/// broadcast. bench/combine_crossover on 2x2x2: 118 us vs 148 us at 16 KiB,
/// 697 us vs 1081 us at 256 KiB (on 2 ranks the ring wins from 2 KiB).
inline constexpr std::size_t kRingMinBytes = 16384;

/// Critical-path length of the last collective this rank took part in: the
/// number of messages in sequence from the start to this rank's last
/// receive (0 if it received nothing). Collective messages carry their depth
/// in the tag, so this is measured, not computed.
int last_critical_path();

}  // namespace meshmp::collectives
