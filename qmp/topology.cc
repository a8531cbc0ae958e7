// QMP logical topology and lattice layout (QMP_API.md "Logical topology").
#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "qmp/internal.h"
#include "qmp/layout.h"

namespace meshmp::qmp {

std::vector<int> Topology::coords_of(int node) const {
  std::vector<int> c(dims.size());
  for (int axis : map) {
    c[axis] = node % dims[axis];
    node /= dims[axis];
  }
  return c;
}

int Topology::node_of(const std::vector<int>& c) const { return neighbour(c, 0, 0); }

int Topology::neighbour(const std::vector<int>& c, int axis, int step) const {
  int node = 0;
  for (int k = static_cast<int>(map.size()) - 1; k >= 0; --k) {
    const int a = map[k], n = dims[a];
    const int x = c[a] + (a == axis ? step : 0);
    node = node * n + ((x % n) + n) % n;
  }
  return node;
}

mesh::Torus Topology::rank_order_torus() const {
  std::vector<int> d;
  for (int axis : map) d.push_back(dims[axis]);
  return mesh::Torus(d);
}

namespace {

// `map` (mapdim entries; null: the identity) is named `map_name` in errors:
// the caller's argument or -qmp-logic-map.
QMP_status_t declare(QMP_comm_t comm, const int dims[], int ndim, const int map[], int mapdim, const char* map_name,
                     const char* call) {
  if (!check_comm(comm, call)) return state().last_error;
  if (comm->topo) return fail(QMP_TOPOLOGY_EXISTS, call, "a logical topology is already declared on this communicator");
  if (!dims || ndim < 1) return fail(QMP_INVALID_ARG, call, "dims must hold ndim >= 1 sizes, got ndim = " + std::to_string(ndim));
  long prod = 1;
  for (int i = 0; i < ndim; ++i) {
    if (dims[i] < 1) return fail(QMP_INVALID_ARG, call, "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]));
    prod *= dims[i];
  }
  if (prod != comm->group.size())
    return fail(QMP_INVALID_ARG, call, "dims multiply to " + std::to_string(prod) + " but the communicator has " +
                                           std::to_string(comm->group.size()) + " nodes");
  if (map && mapdim != ndim)
    return fail(QMP_INVALID_ARG, call, std::string(map_name) + " has " + std::to_string(mapdim) +
                                           " entries but the topology " + std::to_string(ndim) + " dimensions");
  Topology t;
  t.dims.assign(dims, dims + ndim);
  if (map) {
    t.map.assign(map, map + mapdim);
  } else {
    t.map.resize(ndim);
    std::iota(t.map.begin(), t.map.end(), 0);
  }
  std::vector<int> sorted = t.map;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> want(ndim);
  std::iota(want.begin(), want.end(), 0);
  if (sorted != want)
    return fail(QMP_INVALID_ARG, call, std::string(map_name) + " must be a permutation of 0.." + std::to_string(ndim - 1));
  t.coords = t.coords_of(comm->group.me);
  for (int axis = 0; axis < ndim; ++axis)
    for (int dir : {+1, -1}) t.neighbours.push_back(t.neighbour(t.coords, axis, dir));
  comm->group.torus = t.rank_order_torus();
  comm->topo = std::move(t);
  return QMP_SUCCESS;
}

const Topology* topo(QMP_comm_t comm, const char* call) {
  if (!check_comm(comm, call)) return nullptr;
  if (!comm->topo) {
    fail(QMP_NONEIGHBOR_INFO, call, "no logical topology is declared");
    return nullptr;
  }
  return &*comm->topo;
}

}  // namespace
}  // namespace meshmp::qmp

using namespace meshmp::qmp;

extern "C" {

QMP_status_t QMP_declare_logical_topology(const int dims[], int ndim) try {
  return QMP_comm_declare_logical_topology(state().dflt, dims, ndim);
} QMP_END_STATUS(QMP_declare_logical_topology)

QMP_status_t QMP_comm_declare_logical_topology(QMP_comm_t comm, const int dims[], int ndim) try {
  // -qmp-logic-map applies to declarations without an explicit map; one of
  // another length is an error, as in USQCD QMP (which asserts it).
  const std::vector<int>& lm = state().logic_map;
  return declare(comm, dims, ndim, lm.empty() ? nullptr : lm.data(), static_cast<int>(lm.size()), "-qmp-logic-map",
                 "QMP_declare_logical_topology");
} QMP_END_STATUS(QMP_comm_declare_logical_topology)

QMP_status_t QMP_declare_logical_topology_map(const int dims[], int ndim, const int map[], int mapdim) try {
  return QMP_comm_declare_logical_topology_map(state().dflt, dims, ndim, map, mapdim);
} QMP_END_STATUS(QMP_declare_logical_topology_map)

QMP_status_t QMP_comm_declare_logical_topology_map(QMP_comm_t comm, const int dims[], int ndim, const int map[],
                                                   int mapdim) try {
  if (!map) return fail(QMP_INVALID_ARG, "QMP_declare_logical_topology_map", "map is NULL");
  return declare(comm, dims, ndim, map, mapdim, "map", "QMP_declare_logical_topology_map");
} QMP_END_STATUS(QMP_comm_declare_logical_topology_map)

QMP_bool_t QMP_logical_topology_is_declared(void) { return QMP_comm_logical_topology_is_declared(state().dflt); }
QMP_bool_t QMP_comm_logical_topology_is_declared(QMP_comm_t comm) {
  return check_comm(comm, "QMP_logical_topology_is_declared") && comm->topo ? QMP_TRUE : QMP_FALSE;
}

int QMP_get_logical_number_of_dimensions(void) { return QMP_comm_get_logical_number_of_dimensions(state().dflt); }
int QMP_comm_get_logical_number_of_dimensions(QMP_comm_t comm) {
  const Topology* t = topo(comm, "QMP_get_logical_number_of_dimensions");
  return t ? static_cast<int>(t->dims.size()) : 0;
}

const int* QMP_get_logical_dimensions(void) { return QMP_comm_get_logical_dimensions(state().dflt); }
const int* QMP_comm_get_logical_dimensions(QMP_comm_t comm) {
  const Topology* t = topo(comm, "QMP_get_logical_dimensions");
  return t ? t->dims.data() : nullptr;
}

const int* QMP_get_logical_coordinates(void) { return QMP_comm_get_logical_coordinates(state().dflt); }
const int* QMP_comm_get_logical_coordinates(QMP_comm_t comm) {
  const Topology* t = topo(comm, "QMP_get_logical_coordinates");
  return t ? t->coords.data() : nullptr;
}

int* QMP_get_logical_coordinates_from(int node) { return QMP_comm_get_logical_coordinates_from(state().dflt, node); }
int* QMP_comm_get_logical_coordinates_from(QMP_comm_t comm, int node) {
  const Topology* t = topo(comm, "QMP_get_logical_coordinates_from");
  if (!t) return nullptr;
  if (node < 0 || node >= comm->group.size()) {
    fail(QMP_NODE_OUTRANGE, "QMP_get_logical_coordinates_from", "node " + std::to_string(node) + " out of range");
    return nullptr;
  }
  std::vector<int> c = t->coords_of(node);
  int* out = static_cast<int*>(std::malloc(c.size() * sizeof(int)));
  if (out) std::copy(c.begin(), c.end(), out);
  return out;
}

void QMP_get_logical_coordinates_from2(int coords[], int node) {
  QMP_comm_get_logical_coordinates_from2(state().dflt, coords, node);
}
void QMP_comm_get_logical_coordinates_from2(QMP_comm_t comm, int coords[], int node) {
  const Topology* t = topo(comm, "QMP_get_logical_coordinates_from2");
  if (!t || !coords) return;
  if (node < 0 || node >= comm->group.size()) {
    fail(QMP_NODE_OUTRANGE, "QMP_get_logical_coordinates_from2", "node " + std::to_string(node) + " out of range");
    return;
  }
  std::vector<int> c = t->coords_of(node);
  std::copy(c.begin(), c.end(), coords);
}

int QMP_get_node_number_from(const int coordinates[]) { return QMP_comm_get_node_number_from(state().dflt, coordinates); }
int QMP_comm_get_node_number_from(QMP_comm_t comm, const int coordinates[]) {
  const Topology* t = topo(comm, "QMP_get_node_number_from");
  if (!t || !coordinates) return -1;
  return t->node_of(std::vector<int>(coordinates, coordinates + t->dims.size()));
}

QMP_status_t QMP_layout_grid(const int dimensions[], int ndims) try {
  QMP_comm_t comm = state().dflt;
  if (!check_comm(comm, "QMP_layout_grid")) return state().last_error;
  if (!dimensions || ndims < 1) return fail(QMP_INVALID_ARG, "QMP_layout_grid", "dimensions must hold ndims >= 1 sizes");
  if (!comm->topo) {
    // As USQCD QMP: a job cut from the machine grid (-qmp-geom with a
    // -qmp-job divisor per axis) keeps the job's grid; otherwise the nodes
    // are spread over the lattice by layout_nodes().
    std::vector<int> logical;
    if (comm == state().job && state().job_grid) {
      logical = state().job_geometry;
      if (static_cast<int>(logical.size()) > ndims)
        return fail(QMP_INVALID_ARG, "QMP_layout_grid",
                    "the job grid has " + std::to_string(logical.size()) + " axes but the lattice only " +
                        std::to_string(ndims));
    } else {
      const auto spread = layout_nodes(std::vector<int>(dimensions, dimensions + ndims), comm->group.size());
      if (!spread)
        return fail(QMP_INVALID_ARG, "QMP_layout_grid",
                    "the lattice cannot be divided evenly over " + std::to_string(comm->group.size()) + " nodes");
      logical = *spread;
    }
    if (QMP_status_t st = QMP_declare_logical_topology(logical.data(), static_cast<int>(logical.size()));
        st != QMP_SUCCESS)
      return st;
  }
  const Topology& t = *comm->topo;
  comm->subgrid.assign(ndims, 0);
  comm->subgrid_sites = 1;
  for (int i = 0; i < ndims; ++i) {
    const int nodes = i < static_cast<int>(t.dims.size()) ? t.dims[i] : 1;
    if (dimensions[i] < 1 || dimensions[i] % nodes != 0)
      return fail(QMP_INVALID_ARG, "QMP_layout_grid",
                  "lattice extent " + std::to_string(dimensions[i]) + " on axis " + std::to_string(i) +
                      " is not a multiple of the " + std::to_string(nodes) + " nodes on that axis");
    comm->subgrid[i] = dimensions[i] / nodes;
    comm->subgrid_sites *= comm->subgrid[i];
  }
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_layout_grid)

const int* QMP_get_subgrid_dimensions(void) {
  QMP_comm_t comm = state().dflt;
  if (!check_comm(comm, "QMP_get_subgrid_dimensions")) return nullptr;
  if (comm->subgrid.empty()) {
    fail(QMP_INVALID_OP, "QMP_get_subgrid_dimensions", "QMP_layout_grid has not been called");
    return nullptr;
  }
  return comm->subgrid.data();
}

int QMP_get_number_of_subgrid_sites(void) {
  QMP_comm_t comm = state().dflt;
  return check_comm(comm, "QMP_get_number_of_subgrid_sites") ? comm->subgrid_sites : 0;
}

}  // extern "C"
