// Cartesian topologies (MPI-1.1 §6.5). Ranks of a Cartesian communicator are
// numbered row-major (the last dimension varies fastest, §6.5.4). With
// reorder = 1 on a communicator spanning the physical torus, a grid whose
// non-trivial extents match the torus's, axis for axis in some order, is
// placed so that Cartesian neighbours are torus neighbours (the placement
// Cart_map reports). Every Cartesian communicator carries its grid as the
// collectives' torus, so its collectives run the axis sweeps of seed 003
// §5.2 along the grid.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

std::vector<int> cart_coords(const std::vector<int>& dims, int rank) {
  std::vector<int> c(dims.size());
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    c[i] = rank % dims[i];
    rank /= dims[i];
  }
  return c;
}

int cart_rank(const std::vector<int>& dims, const std::vector<int>& c) {
  int r = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) r = r * dims[i] + c[i];
  return r;
}

// placement[cart rank] = rank in `comm` of the process that takes it.
std::vector<int> placement(const CommInfo& c, const std::vector<int>& dims, bool reorder) {
  const int n = std::accumulate(dims.begin(), dims.end(), 1, std::multiplies<int>());
  std::vector<int> place(n);
  std::iota(place.begin(), place.end(), 0);
  const auto& torus = c.group.torus;
  if (!reorder || !torus || torus->size() != c.size() || n != c.size()) return place;
  // Match each non-trivial grid axis to an unused torus axis of equal extent.
  const std::vector<int>& td = torus->dims();
  std::vector<int> axis_of(dims.size(), -1);
  std::vector<bool> used(td.size(), false);
  for (std::size_t a = 0; a < dims.size(); ++a) {
    if (dims[a] == 1) continue;
    for (std::size_t b = 0; b < td.size() && axis_of[a] < 0; ++b)
      if (!used[b] && td[b] == dims[a]) axis_of[a] = static_cast<int>(b), used[b] = true;
    if (axis_of[a] < 0) return place;
  }
  for (std::size_t b = 0; b < td.size(); ++b)
    if (!used[b] && td[b] != 1) return place;
  for (int r = 0; r < n; ++r) {
    const std::vector<int> gc = cart_coords(dims, r);
    std::vector<int> tc(td.size(), 0);
    for (std::size_t a = 0; a < dims.size(); ++a)
      if (axis_of[a] >= 0) tc[axis_of[a]] = gc[a];
    place[r] = torus->rank(tc);  // a group rank of c (torus order is group order)
  }
  return place;
}

int check_dims(MPI_Comm comm, const char* call, int ndims, const int* dims, const int* periods, int size) {
  if (ndims < 0) return raise(comm, call, MPI_ERR_DIMS, "ndims = " + std::to_string(ndims) + " is negative");
  if (ndims > 0 && (!dims || !periods)) return raise(comm, call, MPI_ERR_ARG, "dims or periods is NULL");
  long long n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return raise(comm, call, MPI_ERR_DIMS, "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is not positive");
    n *= dims[i];
  }
  if (n > size)
    return raise(comm, call, MPI_ERR_TOPOLOGY,
                 "the grid has " + std::to_string(n) + " points but the communicator only " + std::to_string(size) + " ranks");
  return MPI_SUCCESS;
}

// The Cartesian communicator behind a handle, or nullptr after raising.
CommInfo* check_cart(MPI_Comm comm, const char* call, int* err) {
  CommInfo* c = check_comm(comm, call, err);
  if (c && c->topo != Topo::kCart) {
    *err = raise(comm, call, MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology");
    return nullptr;
  }
  return c;
}

// Makes `h` a Cartesian communicator over dims/periods, its grid the
// collectives' torus (axis 0 fastest there, so the axes are reversed).
void set_cart(MPI_Comm h, std::vector<int> dims, std::vector<int> periods) {
  CommInfo& c = comm_ref(h);
  c.topo = Topo::kCart;
  if (!dims.empty()) {
    std::vector<int> td(dims.rbegin(), dims.rend());
    std::vector<bool> tp;
    for (auto it = periods.rbegin(); it != periods.rend(); ++it) tp.push_back(*it != 0);
    if (td.size() <= static_cast<std::size_t>(mesh::kMaxDims)) c.group.torus = mesh::Torus(td, tp);
    else c.group.torus.reset();
  } else {
    c.group.torus.reset();
  }
  c.dims = std::move(dims);
  for (int& p : periods) p = p != 0;  // MPI_Cart_get reports 1 (Fortran's .TRUE.) for any true flag
  c.periods = std::move(periods);
}

}  // namespace
}  // namespace meshmp::mpi

using namespace meshmp;
using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Dims_create, (int nnodes, int ndims, int* dims)) {
  const char* call = "MPI_Dims_create";
  if (nnodes < 1) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "nnodes = " + std::to_string(nnodes) + " is not positive");
  if (ndims < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_DIMS, "ndims = " + std::to_string(ndims) + " is negative");
  if (ndims > 0 && !dims) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "dims is NULL");
  int fixed = 1, free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_DIMS, "dims[" + std::to_string(i) + "] is negative");
    if (dims[i] > 0) fixed *= dims[i];
    else ++free_dims;
  }
  if (nnodes % fixed)
    return raise(MPI_COMM_NULL, call, MPI_ERR_DIMS, "nnodes = " + std::to_string(nnodes) + " is not a multiple of the fixed dims' product " + std::to_string(fixed));
  if (free_dims == 0) {
    if (fixed != nnodes) return raise(MPI_COMM_NULL, call, MPI_ERR_DIMS, "the dims multiply to " + std::to_string(fixed) + ", not nnodes = " + std::to_string(nnodes));
    return MPI_SUCCESS;
  }
  // As close to each other as possible, in non-increasing order (§6.5.2).
  const std::vector<int> f = mesh::balanced_dims(nnodes / fixed, free_dims);
  for (int i = 0, k = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = f[k++];
  return MPI_SUCCESS;
} MESHMP_MPI_END(Dims_create)

MESHMP_MPI_FN(int, Cart_create, (MPI_Comm comm_old, int ndims, const int* dims, const int* periods, int reorder, MPI_Comm* comm_cart)) {
  const char* call = "MPI_Cart_create";
  int err;
  CommInfo* c = check_comm(comm_old, call, &err);
  if (!c) return err;
  if ((err = start_new_comm(comm_old, call, comm_cart, "comm_cart"))) return err;
  if (c->inter) return raise(comm_old, call, MPI_ERR_COMM, "comm_old is an intercommunicator");
  if ((err = check_dims(comm_old, call, ndims, dims, periods, c->size()))) return err;
  std::vector<int> d(dims, dims + ndims), per(periods, periods + ndims);
  const std::vector<int> place = placement(*c, d, reorder != 0);
  std::vector<int> members;
  int me = -1;
  for (std::size_t r = 0; r < place.size(); ++r) {
    if (place[r] == c->rank()) me = static_cast<int>(r);
    members.push_back(c->group.ranks[place[r]]);
  }
  *comm_cart = make_comm(comm_old, std::move(members), me, call, &err);
  if (err) return err;
  if (*comm_cart != MPI_COMM_NULL) set_cart(*comm_cart, std::move(d), std::move(per));
  return MPI_SUCCESS;
} MESHMP_MPI_END(Cart_create)

MESHMP_MPI_FN(int, Cart_map, (MPI_Comm comm, int ndims, const int* dims, const int* periods, int* newrank)) {
  const char* call = "MPI_Cart_map";
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if ((err = check_dims(comm, call, ndims, dims, periods, c->size()))) return err;
  if (!newrank) return raise(comm, call, MPI_ERR_ARG, "newrank is NULL");
  const std::vector<int> place = placement(*c, std::vector<int>(dims, dims + ndims), true);
  *newrank = MPI_UNDEFINED;
  for (std::size_t r = 0; r < place.size(); ++r)
    if (place[r] == c->rank()) *newrank = static_cast<int>(r);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Cart_map)

MESHMP_MPI_FN(int, Cartdim_get, (MPI_Comm comm, int* ndims)) {
  int err;
  CommInfo* c = check_cart(comm, "MPI_Cartdim_get", &err);
  if (!c) return err;
  if (!ndims) return raise(comm, "MPI_Cartdim_get", MPI_ERR_ARG, "ndims is NULL");
  *ndims = static_cast<int>(c->dims.size());
  return MPI_SUCCESS;
} MESHMP_MPI_END(Cartdim_get)

MESHMP_MPI_FN(int, Cart_get, (MPI_Comm comm, int maxdims, int* dims, int* periods, int* coords)) {
  int err;
  CommInfo* c = check_cart(comm, "MPI_Cart_get", &err);
  if (!c) return err;
  const int n = static_cast<int>(c->dims.size());
  if (maxdims < n) return raise(comm, "MPI_Cart_get", MPI_ERR_ARG, "maxdims = " + std::to_string(maxdims) + " is below the " + std::to_string(n) + " dimensions");
  if (n > 0 && (!dims || !periods || !coords)) return raise(comm, "MPI_Cart_get", MPI_ERR_ARG, "dims, periods or coords is NULL");
  const std::vector<int> me = cart_coords(c->dims, c->rank());
  for (int i = 0; i < n; ++i) dims[i] = c->dims[i], periods[i] = c->periods[i], coords[i] = me[i];
  return MPI_SUCCESS;
} MESHMP_MPI_END(Cart_get)

MESHMP_MPI_FN(int, Cart_rank, (MPI_Comm comm, const int* coords, int* rank)) {
  const char* call = "MPI_Cart_rank";
  int err;
  CommInfo* c = check_cart(comm, call, &err);
  if (!c) return err;
  if (!rank || (!coords && !c->dims.empty())) return raise(comm, call, MPI_ERR_ARG, "coords or rank is NULL");
  std::vector<int> x(c->dims.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int d = c->dims[i];
    x[i] = coords[i];
    if (c->periods[i]) x[i] = ((x[i] % d) + d) % d;  // periodic: taken modulo the extent (§6.5.4)
    else if (x[i] < 0 || x[i] >= d)
      return raise(comm, call, MPI_ERR_ARG, "coords[" + std::to_string(i) + "] = " + std::to_string(coords[i]) + " is outside 0.." + std::to_string(d - 1) + " on a non-periodic dimension");
  }
  *rank = cart_rank(c->dims, x);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Cart_rank)

MESHMP_MPI_FN(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int* coords)) {
  const char* call = "MPI_Cart_coords";
  int err;
  CommInfo* c = check_cart(comm, call, &err);
  if (!c) return err;
  if ((err = check_rank(comm, *c, call, rank, "rank", false))) return err;
  if (rank == MPI_PROC_NULL) return raise(comm, call, MPI_ERR_RANK, "rank is MPI_PROC_NULL");
  const int n = static_cast<int>(c->dims.size());
  if (maxdims < n) return raise(comm, call, MPI_ERR_ARG, "maxdims = " + std::to_string(maxdims) + " is below the " + std::to_string(n) + " dimensions");
  if (n > 0 && !coords) return raise(comm, call, MPI_ERR_ARG, "coords is NULL");
  const std::vector<int> x = cart_coords(c->dims, rank);
  std::copy(x.begin(), x.end(), coords);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Cart_coords)

MESHMP_MPI_FN(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest)) {
  const char* call = "MPI_Cart_shift";
  int err;
  CommInfo* c = check_cart(comm, call, &err);
  if (!c) return err;
  const int n = static_cast<int>(c->dims.size());
  if (direction < 0 || direction >= n)
    return raise(comm, call, MPI_ERR_ARG, "direction = " + std::to_string(direction) + " is not a dimension (0.." + std::to_string(n - 1) + ")");
  if (!rank_source || !rank_dest) return raise(comm, call, MPI_ERR_ARG, "rank_source or rank_dest is NULL");
  const std::vector<int> me = cart_coords(c->dims, c->rank());
  const int d = c->dims[direction];
  auto shifted = [&](int by) {
    std::vector<int> x = me;
    x[direction] += by;
    if (c->periods[direction]) x[direction] = ((x[direction] % d) + d) % d;
    else if (x[direction] < 0 || x[direction] >= d) return MPI_PROC_NULL;  // off an open edge (§6.5.6)
    return cart_rank(c->dims, x);
  };
  *rank_source = shifted(-disp);
  *rank_dest = shifted(disp);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Cart_shift)

MESHMP_MPI_FN(int, Cart_sub, (MPI_Comm comm, const int* remain_dims, MPI_Comm* newcomm)) {
  const char* call = "MPI_Cart_sub";
  int err;
  CommInfo* c = check_cart(comm, call, &err);
  if (!c) return err;
  if ((err = start_new_comm(comm, call, newcomm, "newcomm"))) return err;
  const int n = static_cast<int>(c->dims.size());
  if (n > 0 && !remain_dims) return raise(comm, call, MPI_ERR_ARG, "remain_dims is NULL");
  // My slice: the ranks whose dropped coordinates equal mine, in rank order
  // (so the kept coordinates vary row-major, as the sub-grid's ranks must).
  const std::vector<int> me = cart_coords(c->dims, c->rank());
  std::vector<int> members, dims, periods;
  int my_rank = -1;
  for (int r = 0; r < c->size(); ++r) {
    const std::vector<int> x = cart_coords(c->dims, r);
    bool same = true;
    for (int i = 0; i < n; ++i) same &= remain_dims[i] || x[i] == me[i];
    if (!same) continue;
    if (r == c->rank()) my_rank = static_cast<int>(members.size());
    members.push_back(c->group.ranks[r]);
  }
  for (int i = 0; i < n; ++i)
    if (remain_dims[i]) dims.push_back(c->dims[i]), periods.push_back(c->periods[i]);
  *newcomm = make_comm(comm, std::move(members), my_rank, call, &err);
  if (err) return err;
  set_cart(*newcomm, std::move(dims), std::move(periods));
  return MPI_SUCCESS;
} MESHMP_MPI_END(Cart_sub)

MESHMP_MPI_FN(int, Topo_test, (MPI_Comm comm, int* status)) {
  int err;
  CommInfo* c = check_comm(comm, "MPI_Topo_test", &err);
  if (!c) return err;
  if (!status) return raise(comm, "MPI_Topo_test", MPI_ERR_ARG, "status is NULL");
  *status = c->topo == Topo::kCart        ? MPI_CART
            : c->topo == Topo::kGraph     ? MPI_GRAPH
            : c->topo == Topo::kDistGraph ? MPI_DIST_GRAPH
                                          : MPI_UNDEFINED;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Topo_test)
