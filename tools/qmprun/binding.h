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

/// How ranks are dealt to the units (Open MPI's --map-by OBJ).
enum class MapBy {
  kCore,     ///< in core order: rank r takes the units from r * cpus_per_rank on (core, slot, node)
  kPackage,  ///< round the packages (sockets): rank r on package r mod P, its next free units
  kNuma,     ///< round the NUMA nodes, as round the packages
};

/// The CPU set of each of `nranks` ranks. A unit is a core, or a hardware
/// thread for kHwthread or with `hwthreads_as_cpus` (--use-hwthread-cpus);
/// only the units this process may run on count, in hwloc's order. Each
/// rank takes `cpus_per_rank` units. kCore: rank r the units from
/// r * cpus_per_rank on. kPackage/kNuma (Open MPI's --map-by socket, numa):
/// rank r those of package (NUMA node) r mod D, the (r / D)-th group of
/// `cpus_per_rank` on it, D being the number of packages (NUMA nodes) with
/// units; one domain where hwloc shows none. Ranks that need more units
/// than a domain has wrap round it (the cores are then shared, as without
/// binding). kPackage and kNuma binding binds to the package or NUMA node
/// that holds the rank's first unit. Throws std::runtime_error naming what
/// hwloc could not do. `bind` must not be kNone.
std::vector<cpu_set_t> plan_bindings(int nranks, BindTo bind, MapBy map, int cpus_per_rank, bool hwthreads_as_cpus);

}  // namespace meshmp::tools
