// Array datatypes (MPI-2.2 §4.1.3-4.1.4): a subarray of an n-dimensional
// array (a lattice code's halo face), and one process's part of an array
// distributed block, cyclic(k) or not at all along each dimension over a
// process grid. Both are built as the standard defines them, one dimension
// at a time from the fastest-varying, each step resized to the full extent
// of its dimension, so the result has lower bound 0 and the extent of the
// whole array.
#include <memory>
#include <string>
#include <vector>

#include "mpi11/internal.h"

using namespace meshmp;
using namespace meshmp::mpi;

namespace {

using Ptr = std::shared_ptr<const TypeInfo>;

// `blocks` resized to a lower bound at 0 and an upper bound at `extent`,
// whatever bounds the old type's markers would give (§4.1.3: the result is
// MPI_Type_create_resized's).
std::shared_ptr<TypeInfo> bounded(const std::vector<TypeBlock>& blocks, MPI_Aint extent) {
  return resize_type(build_type(blocks, false), 0, extent);
}

// The dimensions from the fastest-varying to the slowest.
std::vector<int> fastest_first(int ndims, int order) {
  std::vector<int> dims(static_cast<std::size_t>(ndims));
  for (int k = 0; k < ndims; ++k) dims[k] = order == MPI_ORDER_C ? ndims - 1 - k : k;
  return dims;
}

int bad(const char* call, const std::string& what) { return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, what); }

std::string at(const char* array, int i) { return std::string(array) + "[" + std::to_string(i) + "]"; }

// Common checks: ndims, the arrays, order and oldtype.
int check_common(const char* call, int ndims, std::initializer_list<const int*> arrays, int order,
                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (ndims <= 0) return bad(call, "ndims = " + std::to_string(ndims) + " is not positive");
  for (const int* a : arrays)
    if (!a) return bad(call, "an array argument is NULL");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return bad(call, "order = " + std::to_string(order) + " is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN");
  if (!newtype) return bad(call, "newtype is NULL");
  int err;
  if (!old_type(call, oldtype, &err)) return err;
  return MPI_SUCCESS;
}

}  // namespace

MESHMP_MPI_FN(int, Type_create_subarray, (int ndims, const int* array_of_sizes, const int* array_of_subsizes, const int* array_of_starts, int order, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  const char* call = "MPI_Type_create_subarray";
  if (int err = check_common(call, ndims, {array_of_sizes, array_of_subsizes, array_of_starts}, order, oldtype, newtype))
    return err;
  for (int i = 0; i < ndims; ++i) {
    const int n = array_of_sizes[i], m = array_of_subsizes[i], s = array_of_starts[i];
    if (n < 1) return bad(call, at("array_of_sizes", i) + " = " + std::to_string(n) + " is below 1");
    if (m < 1 || m > n)
      return bad(call, at("array_of_subsizes", i) + " = " + std::to_string(m) + " is not in 1.." + std::to_string(n));
    if (s < 0 || s > n - m)
      return bad(call, at("array_of_starts", i) + " = " + std::to_string(s) + " is not in 0.." + std::to_string(n - m));
  }
  Ptr t = keep_type(oldtype);
  MPI_Aint stride = t->extent(), disp = 0;
  bool fastest = true;
  for (int d : fastest_first(ndims, order)) {
    const auto m = static_cast<std::size_t>(array_of_subsizes[d]);
    // The fastest dimension: subsizes instances back to back; the others,
    // one of the previous per index, a row of this dimension apart.
    t = build_type({fastest ? TypeBlock{0, m, 1, 0, t} : TypeBlock{0, 1, m, stride, t}}, false);
    disp += array_of_starts[d] * stride;
    stride *= array_of_sizes[d];
    fastest = false;
  }
  Envelope env{MPI_COMBINER_SUBARRAY, {ndims}, {}, {oldtype}, {}};
  for (const int* a : {array_of_sizes, array_of_subsizes, array_of_starts}) env.ints.insert(env.ints.end(), a, a + ndims);
  env.ints.push_back(order);
  return make_type(call, bounded({TypeBlock{disp, 1, 1, 0, t}}, stride), newtype, std::move(env));
} MESHMP_MPI_END(Type_create_subarray)

// §4.1.4: the processes form a row-major grid of psizes; along dimension i
// the gsizes[i] indices are dealt out in blocks of dargs[i] (BLOCK: one
// block each, of ceil(gsize/psize) by default; CYCLIC: round robin, blocks
// of 1 by default; NONE: all of them, psizes[i] must be 1), and this
// process's type holds its indices of every dimension.
MESHMP_MPI_FN(int, Type_create_darray, (int size, int rank, int ndims, const int* array_of_gsizes, const int* array_of_distribs, const int* array_of_dargs, const int* array_of_psizes, int order, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  const char* call = "MPI_Type_create_darray";
  if (int err = check_common(call, ndims, {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes}, order,
                             oldtype, newtype))
    return err;
  if (size < 1) return bad(call, "size = " + std::to_string(size) + " is below 1");
  if (rank < 0 || rank >= size) return bad(call, "rank = " + std::to_string(rank) + " is not in 0.." + std::to_string(size - 1));
  long long procs = 1;
  for (int i = 0; i < ndims; ++i) {
    const int g = array_of_gsizes[i], p = array_of_psizes[i], dist = array_of_distribs[i], darg = array_of_dargs[i];
    if (g < 1) return bad(call, at("array_of_gsizes", i) + " = " + std::to_string(g) + " is below 1");
    if (p < 1) return bad(call, at("array_of_psizes", i) + " = " + std::to_string(p) + " is below 1");
    procs *= p;
    if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC && dist != MPI_DISTRIBUTE_NONE)
      return bad(call, at("array_of_distribs", i) + " = " + std::to_string(dist) + " is not a distribution");
    if (dist == MPI_DISTRIBUTE_NONE && p != 1)
      return bad(call, at("array_of_psizes", i) + " must be 1 under MPI_DISTRIBUTE_NONE");
    if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg < 1)
      return bad(call, at("array_of_dargs", i) + " = " + std::to_string(darg) + " is neither positive nor MPI_DISTRIBUTE_DFLT_DARG");
    if (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG && static_cast<long long>(darg) * p < g)
      return bad(call, at("array_of_dargs", i) + " * " + at("array_of_psizes", i) + " is below " + at("array_of_gsizes", i));
  }
  if (procs != size)
    return bad(call, "the process grid has " + std::to_string(procs) + " processes, not size = " + std::to_string(size));
  std::vector<int> coord(static_cast<std::size_t>(ndims));
  for (int i = ndims - 1, r = rank; i >= 0; --i) coord[i] = r % array_of_psizes[i], r /= array_of_psizes[i];
  Ptr t = keep_type(oldtype);
  std::shared_ptr<TypeInfo> built;
  MPI_Aint ex = t->extent();
  for (int d : fastest_first(ndims, order)) {
    const long long g = array_of_gsizes[d], p = array_of_psizes[d], c = coord[d];
    const int dist = array_of_distribs[d], darg = array_of_dargs[d];
    long long block = g;  // NONE: one block of the whole dimension
    if (dist == MPI_DISTRIBUTE_BLOCK) block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    if (dist == MPI_DISTRIBUTE_CYCLIC) block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    // Blocks start at c*block, every p*block; the whole ones as one strided
    // block, then a shorter last one if the dimension ends inside it.
    const long long first = c * block, period = p * block;
    const long long whole = g - first >= block ? (g - first - block) / period + 1 : 0;
    std::vector<TypeBlock> blocks;
    if (whole)
      blocks.push_back({first * ex, static_cast<std::size_t>(block), static_cast<std::size_t>(whole), period * ex, t});
    const long long rest_at = first + whole * period;
    if (rest_at < g) blocks.push_back({rest_at * ex, static_cast<std::size_t>(g - rest_at), 1, 0, t});
    t = built = bounded(std::move(blocks), g * ex);
    ex *= g;
  }
  Envelope env{MPI_COMBINER_DARRAY, {size, rank, ndims}, {}, {oldtype}, {}};
  for (const int* a : {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes})
    env.ints.insert(env.ints.end(), a, a + ndims);
  env.ints.push_back(order);
  return make_type(call, std::move(built), newtype, std::move(env));
} MESHMP_MPI_END(Type_create_darray)
