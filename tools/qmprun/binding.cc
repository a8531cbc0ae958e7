#include "tools/qmprun/binding.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include <algorithm>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

namespace meshmp::tools {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

// The object of `type` whose CPUs hold all of `unit`'s (for a NUMA node,
// which hwloc 2 keeps beside the CPU tree, searched among all of them);
// nullptr if there is none.
hwloc_obj_t holder(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_obj_t unit) {
  if (type == HWLOC_OBJ_PACKAGE) return hwloc_get_ancestor_obj_by_type(t, type, unit);
  for (hwloc_obj_t o = nullptr; (o = hwloc_get_next_obj_by_type(t, type, o)) != nullptr;)
    if (o->cpuset && hwloc_bitmap_isincluded(unit->cpuset, o->cpuset)) return o;
  return nullptr;
}

}  // namespace

std::vector<cpu_set_t> plan_bindings(int nranks, BindTo bind, MapBy map, int cpus_per_rank, bool hwthreads_as_cpus) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw std::runtime_error("hwloc: cannot set up a topology");
  std::unique_ptr<hwloc_topology, TopologyDeleter> topology(raw);
  if (hwloc_topology_load(raw) != 0) throw std::runtime_error("hwloc: cannot read this host's topology");
  // Only the CPUs qmprun itself may run on (taskset, srun --cpu-bind, an
  // outer mpirun's binding): hwloc's allowed set is the cgroup's alone.
  Bitmap mine(hwloc_bitmap_alloc());
  if (!mine) throw std::bad_alloc();
  if (hwloc_get_cpubind(raw, mine.get(), HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(mine.get()) &&
      hwloc_topology_restrict(raw, mine.get(), 0) != 0)
    throw std::runtime_error("hwloc: cannot keep to the CPUs qmprun may run on");
  hwloc_obj_type_t unit_type = hwthreads_as_cpus || bind == BindTo::kHwthread ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
  if (hwloc_get_nbobjs_by_type(raw, unit_type) <= 0) unit_type = HWLOC_OBJ_PU;  // no cores known: threads
  const int units = hwloc_get_nbobjs_by_type(raw, unit_type);
  if (units <= 0) throw std::runtime_error("hwloc: no CPU this process may run on");
  const hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(raw);

  // The domains ranks are dealt round, each with its units in order: the
  // packages or NUMA nodes mapped by, or the whole host.
  std::vector<std::vector<hwloc_obj_t>> domains;
  std::vector<hwloc_obj_t> domain_of;  // the object of domains[i]
  for (int u = 0; u < units; ++u) {
    const hwloc_obj_t unit = hwloc_get_obj_by_type(raw, unit_type, static_cast<unsigned>(u));
    const hwloc_obj_t d = map == MapBy::kCore ? nullptr
                          : holder(raw, map == MapBy::kPackage ? HWLOC_OBJ_PACKAGE : HWLOC_OBJ_NUMANODE, unit);
    const auto at = std::find(domain_of.begin(), domain_of.end(), d);
    if (at == domain_of.end()) {
      domain_of.push_back(d);
      domains.push_back({unit});
    } else {
      domains[static_cast<std::size_t>(at - domain_of.begin())].push_back(unit);
    }
  }

  std::vector<cpu_set_t> plan(nranks);
  Bitmap set(hwloc_bitmap_alloc());
  if (!set) throw std::bad_alloc();
  for (int r = 0; r < nranks; ++r) {
    hwloc_bitmap_zero(set.get());
    const std::vector<hwloc_obj_t>& domain = domains[static_cast<std::size_t>(r) % domains.size()];
    const long first = static_cast<long>(r / static_cast<int>(domains.size())) * cpus_per_rank;
    for (int k = 0; k < cpus_per_rank; ++k) {
      const hwloc_obj_t unit = domain[static_cast<std::size_t>((first + k) % static_cast<long>(domain.size()))];
      if (bind == BindTo::kPackage || bind == BindTo::kNuma) {
        const hwloc_obj_t h = holder(raw, bind == BindTo::kPackage ? HWLOC_OBJ_PACKAGE : HWLOC_OBJ_NUMANODE, unit);
        // A host that shows no package or NUMA node is one of each.
        hwloc_bitmap_or(set.get(), set.get(), h && h->cpuset ? h->cpuset : allowed);
      } else {
        hwloc_bitmap_or(set.get(), set.get(), unit->cpuset);
      }
    }
    hwloc_bitmap_and(set.get(), set.get(), allowed);
    if (hwloc_cpuset_to_glibc_sched_affinity(raw, set.get(), &plan[r], sizeof plan[r]) != 0)
      throw std::runtime_error("hwloc: rank " + std::to_string(r) + "'s CPUs do not fit a cpu_set_t");
  }
  return plan;
}

}  // namespace meshmp::tools
