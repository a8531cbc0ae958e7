// Where qmprun binds each rank (--bind-to, --map-by ...:PE=N,
// --cpus-per-rank), from the host's topology as hwloc sees it: the cores,
// hardware threads, packages (sockets) and NUMA nodes this process may run
// on.
#pragma once

#include <sched.h>

#include <vector>

namespace meshmp::tools {

/// What a rank is bound to (Open MPI's --bind-to; MPICH's -bind-to).
enum class BindTo {
  kNone,      ///< not bound: every CPU qmprun may use
  kCore,      ///< its cores, each with all of its hardware threads
  kHwthread,  ///< its hardware threads (one per unit)
  kPackage,   ///< the package (socket) of its first core
  kNuma,      ///< the NUMA node of its first core
};

/// The CPU set of each of `nranks` ranks. Rank r's units are the
/// `cpus_per_rank` units from r * cpus_per_rank on, in hwloc's order of the
/// units this process may run on, wrapping round when ranks need more units
/// than there are (the cores are then shared, as without binding). A unit
/// is a core, or a hardware thread for kHwthread or with `hwthreads_as_cpus`
/// (--use-hwthread-cpus). kPackage and kNuma bind to the package or NUMA
/// node that holds the rank's first unit. Throws std::runtime_error naming
/// what hwloc could not do. `bind` must not be kNone.
std::vector<cpu_set_t> plan_bindings(int nranks, BindTo bind, int cpus_per_rank, bool hwthreads_as_cpus);

}  // namespace meshmp::tools
