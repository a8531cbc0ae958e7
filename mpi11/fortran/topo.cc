// Fortran bindings of process topologies (MPI-1.1 §6): Cartesian and graph.
// PERIODS, REORDER and REMAIN_DIMS are LOGICALs; gfortran's .TRUE. is 1 and
// the C calls take any nonzero value as true.
#include "mpi11/fortran/fortran.h"

using namespace meshmp::mpi::fortran;

MESHMP_FORTRAN_FN(void, dims_create, (const F* nnodes, const F* ndims, F* dims, F* ierror)) {
  *ierror = PMPI_Dims_create(*nnodes, *ndims, dims);
}
MESHMP_FORTRAN_FN(void, cart_create, (const F* comm_old, const F* ndims, const F* dims, const F* periods,
                                      const F* reorder, F* comm_cart, F* ierror)) {
  *ierror = PMPI_Cart_create(*comm_old, *ndims, dims, periods, *reorder, comm_cart);
}
MESHMP_FORTRAN_FN(void, cart_get, (const F* comm, const F* maxdims, F* dims, F* periods, F* coords, F* ierror)) {
  *ierror = PMPI_Cart_get(*comm, *maxdims, dims, periods, coords);
}
MESHMP_FORTRAN_FN(void, cart_rank, (const F* comm, const F* coords, F* rank, F* ierror)) {
  *ierror = PMPI_Cart_rank(*comm, coords, rank);
}
MESHMP_FORTRAN_FN(void, cart_coords, (const F* comm, const F* rank, const F* maxdims, F* coords, F* ierror)) {
  *ierror = PMPI_Cart_coords(*comm, *rank, *maxdims, coords);
}
MESHMP_FORTRAN_FN(void, cart_shift, (const F* comm, const F* direction, const F* disp, F* rank_source,
                                     F* rank_dest, F* ierror)) {
  *ierror = PMPI_Cart_shift(*comm, *direction, *disp, rank_source, rank_dest);
}
MESHMP_FORTRAN_FN(void, cart_sub, (const F* comm, const F* remain_dims, F* newcomm, F* ierror)) {
  *ierror = PMPI_Cart_sub(*comm, remain_dims, newcomm);
}
MESHMP_FORTRAN_FN(void, cart_map, (const F* comm, const F* ndims, const F* dims, const F* periods, F* newrank,
                                   F* ierror)) {
  *ierror = PMPI_Cart_map(*comm, *ndims, dims, periods, newrank);
}
MESHMP_FORTRAN_FN(void, cartdim_get, (const F* comm, F* ndims, F* ierror)) { *ierror = PMPI_Cartdim_get(*comm, ndims); }
MESHMP_FORTRAN_FN(void, topo_test, (const F* comm, F* status, F* ierror)) { *ierror = PMPI_Topo_test(*comm, status); }

MESHMP_FORTRAN_FN(void, graph_create, (const F* comm_old, const F* nnodes, const F* index, const F* edges,
                                       const F* reorder, F* comm_graph, F* ierror)) {
  *ierror = PMPI_Graph_create(*comm_old, *nnodes, index, edges, *reorder, comm_graph);
}
MESHMP_FORTRAN_FN(void, graphdims_get, (const F* comm, F* nnodes, F* nedges, F* ierror)) {
  *ierror = PMPI_Graphdims_get(*comm, nnodes, nedges);
}
MESHMP_FORTRAN_FN(void, graph_get, (const F* comm, const F* maxindex, const F* maxedges, F* index, F* edges,
                                    F* ierror)) {
  *ierror = PMPI_Graph_get(*comm, *maxindex, *maxedges, index, edges);
}
MESHMP_FORTRAN_FN(void, graph_neighbors_count, (const F* comm, const F* rank, F* nneighbors, F* ierror)) {
  *ierror = PMPI_Graph_neighbors_count(*comm, *rank, nneighbors);
}
MESHMP_FORTRAN_FN(void, graph_neighbors, (const F* comm, const F* rank, const F* maxneighbors, F* neighbors,
                                          F* ierror)) {
  *ierror = PMPI_Graph_neighbors(*comm, *rank, *maxneighbors, neighbors);
}
MESHMP_FORTRAN_FN(void, graph_map, (const F* comm, const F* nnodes, const F* index, const F* edges, F* newrank,
                                    F* ierror)) {
  *ierror = PMPI_Graph_map(*comm, *nnodes, index, edges, newrank);
}

// Neighbourhood collectives (MPI-3.1 §7.6); MPI_NEIGHBOR_ALLTOALLW's
// displacements are INTEGER(KIND=MPI_ADDRESS_KIND).
MESHMP_FORTRAN_FN(void, neighbor_allgather, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf,
                                             const F* recvcount, const F* recvtype, const F* comm, F* ierror)) {
  *ierror = PMPI_Neighbor_allgather(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *comm);
}
MESHMP_FORTRAN_FN(void, neighbor_allgatherv, (const void* sendbuf, const F* sendcount, const F* sendtype,
                                              void* recvbuf, const F* recvcounts, const F* displs, const F* recvtype,
                                              const F* comm, F* ierror)) {
  *ierror = PMPI_Neighbor_allgatherv(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), recvcounts, displs, *recvtype, *comm);
}
MESHMP_FORTRAN_FN(void, neighbor_alltoall, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf,
                                            const F* recvcount, const F* recvtype, const F* comm, F* ierror)) {
  *ierror = PMPI_Neighbor_alltoall(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *comm);
}
MESHMP_FORTRAN_FN(void, neighbor_alltoallv, (const void* sendbuf, const F* sendcounts, const F* sdispls,
                                             const F* sendtype, void* recvbuf, const F* recvcounts, const F* rdispls,
                                             const F* recvtype, const F* comm, F* ierror)) {
  *ierror = PMPI_Neighbor_alltoallv(buffer(sendbuf), sendcounts, sdispls, *sendtype, buffer(recvbuf), recvcounts, rdispls, *recvtype,
                                    *comm);
}
MESHMP_FORTRAN_FN(void, neighbor_alltoallw, (const void* sendbuf, const F* sendcounts, const MPI_Aint* sdispls,
                                             const F* sendtypes, void* recvbuf, const F* recvcounts,
                                             const MPI_Aint* rdispls, const F* recvtypes, const F* comm, F* ierror)) {
  *ierror = PMPI_Neighbor_alltoallw(buffer(sendbuf), sendcounts, sdispls, sendtypes, buffer(recvbuf), recvcounts, rdispls, recvtypes,
                                    *comm);
}

// MPI-2.2 §7.5.4: distributed graphs; weights may be MPI_UNWEIGHTED or
// MPI_WEIGHTS_EMPTY, REORDER is a LOGICAL.
MESHMP_FORTRAN_FN(void, dist_graph_create_adjacent, (const F* comm_old, const F* indegree, const F* sources,
                                                     const F* sourceweights, const F* outdegree,
                                                     const F* destinations, const F* destweights, const F* info,
                                                     const F* reorder, F* comm_dist_graph, F* ierror)) {
  *ierror = PMPI_Dist_graph_create_adjacent(*comm_old, *indegree, sources, weights(sourceweights), *outdegree,
                                            destinations, weights(destweights), *info, *reorder != 0,
                                            comm_dist_graph);
}
MESHMP_FORTRAN_FN(void, dist_graph_create, (const F* comm_old, const F* n, const F* sources, const F* degrees,
                                            const F* destinations, const F* weights_, const F* info, const F* reorder,
                                            F* comm_dist_graph, F* ierror)) {
  *ierror = PMPI_Dist_graph_create(*comm_old, *n, sources, degrees, destinations, weights(weights_), *info,
                                   *reorder != 0, comm_dist_graph);
}
MESHMP_FORTRAN_FN(void, dist_graph_neighbors_count, (const F* comm, F* indegree, F* outdegree, F* weighted,
                                                     F* ierror)) {
  int w = 0;
  *ierror = PMPI_Dist_graph_neighbors_count(*comm, indegree, outdegree, &w);
  *weighted = logical(w);
}
MESHMP_FORTRAN_FN(void, dist_graph_neighbors, (const F* comm, const F* maxindegree, F* sources, F* sourceweights,
                                               const F* maxoutdegree, F* destinations, F* destweights, F* ierror)) {
  *ierror = PMPI_Dist_graph_neighbors(*comm, *maxindegree, sources, weights(sourceweights), *maxoutdegree,
                                      destinations, weights(destweights));
}
