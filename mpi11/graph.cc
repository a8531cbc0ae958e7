// Graph topologies (MPI-1.1 §6.5.3, §6.5.4, §6.5.7). Node i's neighbours are
// edges[index[i-1] .. index[i]-1] (index[-1] = 0). Reordering is allowed
// but not done: graph ranks are comm_old's first nnodes ranks, which
// MPI_Graph_map reports likewise.
#include <string>
#include <vector>

#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

int check_graph_args(MPI_Comm comm, const char* call, const CommInfo& c, int nnodes, const int* index,
                     const int* edges) {
  if (nnodes < 0 || nnodes > c.size())
    return raise(comm, call, MPI_ERR_ARG, "nnodes = " + std::to_string(nnodes) + " is outside 0.." + std::to_string(c.size()));
  if (nnodes > 0 && !index) return raise(comm, call, MPI_ERR_ARG, "index is NULL");
  for (int i = 0; i < nnodes; ++i)
    if (index[i] < (i ? index[i - 1] : 0))
      return raise(comm, call, MPI_ERR_ARG, "index[" + std::to_string(i) + "] = " + std::to_string(index[i]) + " decreases");
  const int nedges = nnodes ? index[nnodes - 1] : 0;
  if (nedges > 0 && !edges) return raise(comm, call, MPI_ERR_ARG, "edges is NULL");
  for (int k = 0; k < nedges; ++k)
    if (edges[k] < 0 || edges[k] >= nnodes)
      return raise(comm, call, MPI_ERR_ARG, "edges[" + std::to_string(k) + "] = " + std::to_string(edges[k]) + " is not a node (0.." + std::to_string(nnodes - 1) + ")");
  return MPI_SUCCESS;
}

CommInfo* check_graph(MPI_Comm comm, const char* call, int* err) {
  CommInfo* c = check_comm(comm, call, err);
  if (c && c->topo != Topo::kGraph) {
    *err = raise(comm, call, MPI_ERR_TOPOLOGY, "comm has no graph topology");
    return nullptr;
  }
  return c;
}

// Node `rank`'s neighbours as [first, last) into c.edges.
std::pair<int, int> neighbours_of(const CommInfo& c, int rank) {
  return {rank ? c.index[rank - 1] : 0, c.index[rank]};
}

}  // namespace
}  // namespace meshmp::mpi

using namespace meshmp;
using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int* index, const int* edges, int reorder, MPI_Comm* comm_graph)) {
  const char* call = "MPI_Graph_create";
  (void)reorder;
  int err;
  CommInfo* c = check_comm(comm_old, call, &err);
  if (!c) return err;
  if ((err = start_new_comm(comm_old, call, comm_graph, "comm_graph"))) return err;
  if (c->inter) return raise(comm_old, call, MPI_ERR_COMM, "comm_old is an intercommunicator");
  if ((err = check_graph_args(comm_old, call, *c, nnodes, index, edges))) return err;
  std::vector<int> members(c->group.ranks.begin(), c->group.ranks.begin() + nnodes);
  const int me = c->rank() < nnodes ? c->rank() : -1;
  std::vector<int> idx(index, index + nnodes), edg(edges, edges + (nnodes ? index[nnodes - 1] : 0));
  *comm_graph = make_comm(comm_old, std::move(members), me, call, &err);
  if (err) return err;
  if (*comm_graph != MPI_COMM_NULL) {
    CommInfo& g = comm_ref(*comm_graph);
    g.topo = Topo::kGraph;
    g.index = std::move(idx);
    g.edges = std::move(edg);
  }
  return MPI_SUCCESS;
} MESHMP_MPI_END(Graph_create)

MESHMP_MPI_FN(int, Graphdims_get, (MPI_Comm comm, int* nnodes, int* nedges)) {
  int err;
  CommInfo* c = check_graph(comm, "MPI_Graphdims_get", &err);
  if (!c) return err;
  if (!nnodes || !nedges) return raise(comm, "MPI_Graphdims_get", MPI_ERR_ARG, "nnodes or nedges is NULL");
  *nnodes = static_cast<int>(c->index.size());
  *nedges = static_cast<int>(c->edges.size());
  return MPI_SUCCESS;
} MESHMP_MPI_END(Graphdims_get)

MESHMP_MPI_FN(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int* index, int* edges)) {
  int err;
  CommInfo* c = check_graph(comm, "MPI_Graph_get", &err);
  if (!c) return err;
  if ((maxindex > 0 && !index) || (maxedges > 0 && !edges))
    return raise(comm, "MPI_Graph_get", MPI_ERR_ARG, "index or edges is NULL");
  for (int i = 0; i < maxindex && i < static_cast<int>(c->index.size()); ++i) index[i] = c->index[i];
  for (int k = 0; k < maxedges && k < static_cast<int>(c->edges.size()); ++k) edges[k] = c->edges[k];
  return MPI_SUCCESS;
} MESHMP_MPI_END(Graph_get)

MESHMP_MPI_FN(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int* nneighbors)) {
  const char* call = "MPI_Graph_neighbors_count";
  int err;
  CommInfo* c = check_graph(comm, call, &err);
  if (!c) return err;
  if ((err = check_rank(comm, *c, call, rank, "rank", false))) return err;
  if (!nneighbors) return raise(comm, call, MPI_ERR_ARG, "nneighbors is NULL");
  const auto [first, last] = neighbours_of(*c, rank);
  *nneighbors = last - first;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Graph_neighbors_count)

MESHMP_MPI_FN(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int* neighbors)) {
  const char* call = "MPI_Graph_neighbors";
  int err;
  CommInfo* c = check_graph(comm, call, &err);
  if (!c) return err;
  if ((err = check_rank(comm, *c, call, rank, "rank", false))) return err;
  if (maxneighbors > 0 && !neighbors) return raise(comm, call, MPI_ERR_ARG, "neighbors is NULL");
  const auto [first, last] = neighbours_of(*c, rank);
  for (int k = first; k < last && k - first < maxneighbors; ++k) neighbors[k - first] = c->edges[k];
  return MPI_SUCCESS;
} MESHMP_MPI_END(Graph_neighbors)

MESHMP_MPI_FN(int, Graph_map, (MPI_Comm comm, int nnodes, const int* index, const int* edges, int* newrank)) {
  const char* call = "MPI_Graph_map";
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if ((err = check_graph_args(comm, call, *c, nnodes, index, edges))) return err;
  if (!newrank) return raise(comm, call, MPI_ERR_ARG, "newrank is NULL");
  *newrank = c->rank() < nnodes ? c->rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Graph_map)
