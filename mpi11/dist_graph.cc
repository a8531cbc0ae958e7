// Distributed graph topologies (MPI-2.2 §7.5.4): each process names its own
// in- and out-neighbours (MPI_Dist_graph_create_adjacent), or any process
// names any edges and they are delivered to both their ends
// (MPI_Dist_graph_create); the neighbourhood collectives then receive from
// the sources and send to the destinations (neighbor.cc). Reordering is
// allowed and not done; info is accepted and read for nothing.
#include <string>
#include <vector>

#include "mpi11/internal.h"

using namespace meshmp;
using namespace meshmp::mpi;

namespace {

// comm_old's checks shared by both constructors: an intracommunicator, a
// valid info, somewhere to put the result.
CommInfo* check_old(const char* call, MPI_Comm comm_old, MPI_Info info, MPI_Comm* newcomm, int* err) {
  CommInfo* c = check_comm(comm_old, call, err);
  if (!c) return nullptr;
  if ((*err = start_new_comm(comm_old, call, newcomm, "comm_dist_graph"))) return nullptr;
  if (c->inter) *err = raise(comm_old, call, MPI_ERR_COMM, "comm_old is an intercommunicator");
  else if (!info_valid(info)) *err = raise(comm_old, call, MPI_ERR_INFO, "info is not an info object");
  else return c;
  return nullptr;
}

// `n` ranks of comm_old in `ranks` (named `what` in errors), and their
// weights unless MPI_UNWEIGHTED (or MPI_WEIGHTS_EMPTY for none).
int check_edges(const char* call, MPI_Comm comm, const CommInfo& c, int n, const int* ranks, const int* weights,
                const char* what) {
  if (n < 0) return raise(comm, call, MPI_ERR_ARG, std::string("the degree of ") + what + " is negative");
  if (n > 0 && !ranks) return raise(comm, call, MPI_ERR_ARG, std::string(what) + " is NULL");
  if (n > 0 && (!weights || weights == MPI_WEIGHTS_EMPTY))
    return raise(comm, call, MPI_ERR_ARG, std::string("the weights of ") + what + " are NULL or MPI_WEIGHTS_EMPTY");
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= c.size())
      return raise(comm, call, MPI_ERR_ARG,
                   std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(ranks[i]) +
                       " is not a rank of comm_old (size " + std::to_string(c.size()) + ")");
  return MPI_SUCCESS;
}

// The new communicator over all of comm_old's members, with the edges.
int make_dist_graph(const char* call, MPI_Comm comm_old, const CommInfo& c, std::vector<int> in, std::vector<int> in_w,
                    std::vector<int> out, std::vector<int> out_w, bool weighted, MPI_Comm* newcomm) {
  int err;
  *newcomm = make_comm(comm_old, c.group.ranks, c.rank(), call, &err);
  if (err) return err;
  CommInfo& g = comm_ref(*newcomm);
  g.topo = Topo::kDistGraph;
  g.sources = std::move(in);
  g.destinations = std::move(out);
  g.weighted = weighted;
  if (weighted) g.source_weights = std::move(in_w), g.dest_weights = std::move(out_w);
  return MPI_SUCCESS;
}

CommInfo* check_dist_graph(const char* call, MPI_Comm comm, int* err) {
  CommInfo* c = check_comm(comm, call, err);
  if (c && c->topo != Topo::kDistGraph) {
    *err = raise(comm, call, MPI_ERR_TOPOLOGY, "comm has no distributed graph topology");
    return nullptr;
  }
  return c;
}

}  // namespace

MESHMP_MPI_FN(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int* sources, const int* sourceweights, int outdegree, const int* destinations, const int* destweights, MPI_Info info, int reorder, MPI_Comm* comm_dist_graph)) {
  const char* call = "MPI_Dist_graph_create_adjacent";
  (void)reorder;
  int err;
  CommInfo* c = check_old(call, comm_old, info, comm_dist_graph, &err);
  if (!c) return err;
  if ((err = check_edges(call, comm_old, *c, indegree, sources, sourceweights, "sources")) ||
      (err = check_edges(call, comm_old, *c, outdegree, destinations, destweights, "destinations")))
    return err;
  const bool weighted = sourceweights != MPI_UNWEIGHTED;
  auto list = [](int n, const int* a) { return n > 0 ? std::vector<int>(a, a + n) : std::vector<int>{}; };
  auto weights = [&](int n, const int* w) { return weighted && w != MPI_UNWEIGHTED ? list(n, w) : std::vector<int>{}; };
  return make_dist_graph(call, comm_old, *c, list(indegree, sources), weights(indegree, sourceweights),
                         list(outdegree, destinations), weights(outdegree, destweights), weighted, comm_dist_graph);
} MESHMP_MPI_END(Dist_graph_create_adjacent)

// Every edge s -> d given anywhere goes, as (s, d, weight), to process s
// (an out-edge) and to process d (an in-edge): one MPI_Alltoall of counts
// and one MPI_Alltoallv of the triples over comm_old. Each process keeps its
// edges in the order they arrive (by the naming process, then as named).
MESHMP_MPI_FN(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int* sources, const int* degrees, const int* destinations, const int* weights, MPI_Info info, int reorder, MPI_Comm* comm_dist_graph)) {
  const char* call = "MPI_Dist_graph_create";
  (void)reorder;
  int err;
  CommInfo* c = check_old(call, comm_old, info, comm_dist_graph, &err);
  if (!c) return err;
  if (n < 0) return raise(comm_old, call, MPI_ERR_ARG, "n = " + std::to_string(n) + " is negative");
  if (n > 0 && (!sources || !degrees)) return raise(comm_old, call, MPI_ERR_ARG, "sources or degrees is NULL");
  if ((err = check_edges(call, comm_old, *c, n, sources, MPI_UNWEIGHTED, "sources"))) return err;
  int edges = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0) return raise(comm_old, call, MPI_ERR_ARG, "degrees[" + std::to_string(i) + "] is negative");
    edges += degrees[i];
  }
  if ((err = check_edges(call, comm_old, *c, edges, destinations, weights, "destinations"))) return err;
  const bool weighted = weights != MPI_UNWEIGHTED;
  const int p = c->size();
  std::vector<std::vector<int>> to(static_cast<std::size_t>(p));  // triples for each process
  for (int i = 0, k = 0; i < n; ++i)
    for (int j = 0; j < degrees[i]; ++j, ++k) {
      const int w = weighted ? weights[k] : 1;
      to[sources[i]].insert(to[sources[i]].end(), {sources[i], destinations[k], w});
      if (destinations[k] != sources[i])  // a loop goes once: it is both there
        to[destinations[k]].insert(to[destinations[k]].end(), {sources[i], destinations[k], w});
    }
  std::vector<int> scounts(p), sdispls(p), rcounts(p), rdispls(p), sbuf;
  for (int q = 0; q < p; ++q) {
    scounts[q] = static_cast<int>(to[q].size());
    sdispls[q] = static_cast<int>(sbuf.size());
    sbuf.insert(sbuf.end(), to[q].begin(), to[q].end());
  }
  if ((err = PMPI_Alltoall(scounts.data(), 1, MPI_INT, rcounts.data(), 1, MPI_INT, comm_old))) return err;
  int total = 0;
  for (int q = 0; q < p; ++q) rdispls[q] = total, total += rcounts[q];
  std::vector<int> rbuf(static_cast<std::size_t>(total));
  if ((err = PMPI_Alltoallv(sbuf.data(), scounts.data(), sdispls.data(), MPI_INT, rbuf.data(), rcounts.data(),
                            rdispls.data(), MPI_INT, comm_old)))
    return err;
  std::vector<int> in, in_w, out, out_w;
  const int me = c->rank();
  for (int k = 0; k + 2 < total; k += 3) {
    const int s = rbuf[k], d = rbuf[k + 1], w = rbuf[k + 2];
    if (s == me) out.push_back(d), out_w.push_back(w);
    if (d == me) in.push_back(s), in_w.push_back(w);
  }
  return make_dist_graph(call, comm_old, *c, std::move(in), std::move(in_w), std::move(out), std::move(out_w), weighted,
                         comm_dist_graph);
} MESHMP_MPI_END(Dist_graph_create)

MESHMP_MPI_FN(int, Dist_graph_neighbors_count, (MPI_Comm comm, int* indegree, int* outdegree, int* weighted)) {
  const char* call = "MPI_Dist_graph_neighbors_count";
  int err;
  CommInfo* c = check_dist_graph(call, comm, &err);
  if (!c) return err;
  if (!indegree || !outdegree || !weighted) return raise(comm, call, MPI_ERR_ARG, "an output argument is NULL");
  *indegree = static_cast<int>(c->sources.size());
  *outdegree = static_cast<int>(c->destinations.size());
  *weighted = c->weighted;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Dist_graph_neighbors_count)

// At most maxindegree sources and maxoutdegree destinations, in the order
// the edges were given; weights where the graph has them and the caller
// did not pass MPI_UNWEIGHTED.
MESHMP_MPI_FN(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int* sources, int* sourceweights, int maxoutdegree, int* destinations, int* destweights)) {
  const char* call = "MPI_Dist_graph_neighbors";
  int err;
  CommInfo* c = check_dist_graph(call, comm, &err);
  if (!c) return err;
  if ((maxindegree > 0 && !sources) || (maxoutdegree > 0 && !destinations))
    return raise(comm, call, MPI_ERR_ARG, "sources or destinations is NULL");
  auto copy = [](const std::vector<int>& from, int max, int* to) {
    for (int i = 0; i < max && i < static_cast<int>(from.size()); ++i) to[i] = from[i];
  };
  copy(c->sources, maxindegree, sources);
  copy(c->destinations, maxoutdegree, destinations);
  if (c->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED) copy(c->source_weights, maxindegree, sourceweights);
  if (c->weighted && destweights && destweights != MPI_UNWEIGHTED) copy(c->dest_weights, maxoutdegree, destweights);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Dist_graph_neighbors)
