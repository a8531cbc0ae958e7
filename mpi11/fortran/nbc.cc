// Fortran bindings of the nonblocking collectives (MPI-3.1 §5.12): the
// blocking binding's arguments, then REQUEST, then IERROR. The buffers must
// stay where they are until the request completes (§17.1.17: in Fortran 77,
// no copy-in/copy-out of array sections).
#include "mpi11/fortran/fortran.h"

using namespace meshmp::mpi::fortran;

MESHMP_FORTRAN_FN(void, ibarrier, (const F* comm, F* request, F* ierror)) { *ierror = PMPI_Ibarrier(*comm, request); }
MESHMP_FORTRAN_FN(void, ibcast, (void* buf, const F* count, const F* datatype, const F* root, const F* comm,
                                 F* request, F* ierror)) {
  *ierror = PMPI_Ibcast(buffer(buf), *count, *datatype, *root, *comm, request);
}

// MPI_IGATHER / MPI_ISCATTER (SENDBUF, SENDCOUNT, SENDTYPE, RECVBUF, RECVCOUNT, RECVTYPE, ROOT, COMM, REQUEST, IERROR)
#define MESHMP_F_IROOTED(name, Name)                                                                         \
  MESHMP_FORTRAN_FN(void, name, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf,  \
                                 const F* recvcount, const F* recvtype, const F* root, const F* comm,        \
                                 F* request, F* ierror)) {                                                   \
    *ierror = PMPI_##Name(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype,    \
                          *root, *comm, request);                                                            \
  }
MESHMP_F_IROOTED(igather, Igather)
MESHMP_F_IROOTED(iscatter, Iscatter)

// MPI_IALLGATHER / MPI_IALLTOALL (SENDBUF, SENDCOUNT, SENDTYPE, RECVBUF, RECVCOUNT, RECVTYPE, COMM, REQUEST, IERROR)
#define MESHMP_F_IALL(name, Name)                                                                            \
  MESHMP_FORTRAN_FN(void, name, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf,  \
                                 const F* recvcount, const F* recvtype, const F* comm, F* request,           \
                                 F* ierror)) {                                                               \
    *ierror = PMPI_##Name(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype,    \
                          *comm, request);                                                                   \
  }
MESHMP_F_IALL(iallgather, Iallgather)
MESHMP_F_IALL(ialltoall, Ialltoall)

MESHMP_FORTRAN_FN(void, igatherv, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf,
                                   const F* recvcounts, const F* displs, const F* recvtype, const F* root,
                                   const F* comm, F* request, F* ierror)) {
  *ierror = PMPI_Igatherv(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), recvcounts, displs, *recvtype, *root,
                          *comm, request);
}
MESHMP_FORTRAN_FN(void, iscatterv, (const void* sendbuf, const F* sendcounts, const F* displs, const F* sendtype,
                                    void* recvbuf, const F* recvcount, const F* recvtype, const F* root,
                                    const F* comm, F* request, F* ierror)) {
  *ierror = PMPI_Iscatterv(buffer(sendbuf), sendcounts, displs, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *root,
                           *comm, request);
}
MESHMP_FORTRAN_FN(void, iallgatherv, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf,
                                      const F* recvcounts, const F* displs, const F* recvtype, const F* comm,
                                      F* request, F* ierror)) {
  *ierror = PMPI_Iallgatherv(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), recvcounts, displs, *recvtype, *comm,
                             request);
}
MESHMP_FORTRAN_FN(void, ialltoallv, (const void* sendbuf, const F* sendcounts, const F* sdispls, const F* sendtype,
                                     void* recvbuf, const F* recvcounts, const F* rdispls, const F* recvtype,
                                     const F* comm, F* request, F* ierror)) {
  *ierror = PMPI_Ialltoallv(buffer(sendbuf), sendcounts, sdispls, *sendtype, buffer(recvbuf), recvcounts, rdispls,
                            *recvtype, *comm, request);
}
MESHMP_FORTRAN_FN(void, ialltoallw, (const void* sendbuf, const F* sendcounts, const F* sdispls, const F* sendtypes,
                                     void* recvbuf, const F* recvcounts, const F* rdispls, const F* recvtypes,
                                     const F* comm, F* request, F* ierror)) {
  *ierror = PMPI_Ialltoallw(buffer(sendbuf), sendcounts, sdispls, sendtypes, buffer(recvbuf), recvcounts, rdispls, recvtypes,
                            *comm, request);
}

MESHMP_FORTRAN_FN(void, ireduce, (const void* sendbuf, void* recvbuf, const F* count, const F* datatype, const F* op,
                                  const F* root, const F* comm, F* request, F* ierror)) {
  *ierror = PMPI_Ireduce(buffer(sendbuf), buffer(recvbuf), *count, *datatype, *op, *root, *comm, request);
}
// MPI_IALLREDUCE / MPI_ISCAN / MPI_IEXSCAN (SENDBUF, RECVBUF, COUNT, DATATYPE, OP, COMM, REQUEST, IERROR)
#define MESHMP_F_IREDUCE_ALL(name, Name)                                                                  \
  MESHMP_FORTRAN_FN(void, name, (const void* sendbuf, void* recvbuf, const F* count, const F* datatype,  \
                                 const F* op, const F* comm, F* request, F* ierror)) {                  \
    *ierror = PMPI_##Name(buffer(sendbuf), buffer(recvbuf), *count, *datatype, *op, *comm, request);            \
  }
MESHMP_F_IREDUCE_ALL(iallreduce, Iallreduce)
MESHMP_F_IREDUCE_ALL(iscan, Iscan)
MESHMP_F_IREDUCE_ALL(iexscan, Iexscan)
MESHMP_FORTRAN_FN(void, ireduce_scatter_block, (const void* sendbuf, void* recvbuf, const F* recvcount,
                                                const F* datatype, const F* op, const F* comm, F* request,
                                                F* ierror)) {
  *ierror = PMPI_Ireduce_scatter_block(buffer(sendbuf), buffer(recvbuf), *recvcount, *datatype, *op, *comm, request);
}
MESHMP_FORTRAN_FN(void, ireduce_scatter, (const void* sendbuf, void* recvbuf, const F* recvcounts,
                                          const F* datatype, const F* op, const F* comm, F* request, F* ierror)) {
  *ierror = PMPI_Ireduce_scatter(buffer(sendbuf), buffer(recvbuf), recvcounts, *datatype, *op, *comm, request);
}

// The nonblocking neighbourhood collectives (MPI-3.1 §7.7); as
// MPI_NEIGHBOR_ALLTOALLW's, MPI_INEIGHBOR_ALLTOALLW's displacements are
// INTEGER(KIND=MPI_ADDRESS_KIND).
MESHMP_FORTRAN_FN(void, ineighbor_allgather, (const void* sendbuf, const F* sendcount, const F* sendtype,
                                              void* recvbuf, const F* recvcount, const F* recvtype, const F* comm,
                                              F* request, F* ierror)) {
  *ierror = PMPI_Ineighbor_allgather(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *comm, request);
}
MESHMP_FORTRAN_FN(void, ineighbor_allgatherv, (const void* sendbuf, const F* sendcount, const F* sendtype,
                                               void* recvbuf, const F* recvcounts, const F* displs,
                                               const F* recvtype, const F* comm, F* request, F* ierror)) {
  *ierror = PMPI_Ineighbor_allgatherv(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), recvcounts, displs, *recvtype, *comm,
                                      request);
}
MESHMP_FORTRAN_FN(void, ineighbor_alltoall, (const void* sendbuf, const F* sendcount, const F* sendtype,
                                             void* recvbuf, const F* recvcount, const F* recvtype, const F* comm,
                                             F* request, F* ierror)) {
  *ierror = PMPI_Ineighbor_alltoall(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *comm, request);
}
MESHMP_FORTRAN_FN(void, ineighbor_alltoallv, (const void* sendbuf, const F* sendcounts, const F* sdispls,
                                              const F* sendtype, void* recvbuf, const F* recvcounts,
                                              const F* rdispls, const F* recvtype, const F* comm, F* request,
                                              F* ierror)) {
  *ierror = PMPI_Ineighbor_alltoallv(buffer(sendbuf), sendcounts, sdispls, *sendtype, buffer(recvbuf), recvcounts, rdispls,
                                     *recvtype, *comm, request);
}
MESHMP_FORTRAN_FN(void, ineighbor_alltoallw, (const void* sendbuf, const F* sendcounts, const MPI_Aint* sdispls,
                                              const F* sendtypes, void* recvbuf, const F* recvcounts,
                                              const MPI_Aint* rdispls, const F* recvtypes, const F* comm,
                                              F* request, F* ierror)) {
  *ierror = PMPI_Ineighbor_alltoallw(buffer(sendbuf), sendcounts, sdispls, sendtypes, buffer(recvbuf), recvcounts, rdispls,
                                     recvtypes, *comm, request);
}
