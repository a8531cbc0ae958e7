// Fortran bindings of the collectives and reduction operations (MPI-1.1 §4).
// Every buffer may be MPI_IN_PLACE where the C call takes it. A Fortran user
// operation FUNCTION(INVEC, INOUTVEC, LEN, DATATYPE) has C's calling shape
// (all by reference), so MPI_OP_CREATE registers it as it is.
#include "mpi11/fortran/fortran.h"

using namespace meshmp::mpi::fortran;

MESHMP_FORTRAN_FN(void, barrier, (const F* comm, F* ierror)) { *ierror = PMPI_Barrier(*comm); }
MESHMP_FORTRAN_FN(void, bcast, (void* buf, const F* count, const F* datatype, const F* root, const F* comm,
                                F* ierror)) {
  *ierror = PMPI_Bcast(buffer(buf), *count, *datatype, *root, *comm);
}

// MPI_GATHER / MPI_SCATTER (SENDBUF, SENDCOUNT, SENDTYPE, RECVBUF, RECVCOUNT, RECVTYPE, ROOT, COMM, IERROR)
#define MESHMP_F_ROOTED(name, Name)                                                                         \
  MESHMP_FORTRAN_FN(void, name, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf, \
                                 const F* recvcount, const F* recvtype, const F* root, const F* comm,       \
                                 F* ierror)) {                                                              \
    *ierror = PMPI_##Name(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype,   \
                          *root, *comm);                                                                    \
  }
MESHMP_F_ROOTED(gather, Gather)
MESHMP_F_ROOTED(scatter, Scatter)

// MPI_ALLGATHER / MPI_ALLTOALL (SENDBUF, SENDCOUNT, SENDTYPE, RECVBUF, RECVCOUNT, RECVTYPE, COMM, IERROR)
#define MESHMP_F_ALL(name, Name)                                                                            \
  MESHMP_FORTRAN_FN(void, name, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf, \
                                 const F* recvcount, const F* recvtype, const F* comm, F* ierror)) {        \
    *ierror = PMPI_##Name(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), *recvcount, *recvtype,   \
                          *comm);                                                                           \
  }
MESHMP_F_ALL(allgather, Allgather)
MESHMP_F_ALL(alltoall, Alltoall)

MESHMP_FORTRAN_FN(void, gatherv, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf,
                                  const F* recvcounts, const F* displs, const F* recvtype, const F* root,
                                  const F* comm, F* ierror)) {
  *ierror = PMPI_Gatherv(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), recvcounts, displs, *recvtype, *root,
                         *comm);
}
MESHMP_FORTRAN_FN(void, scatterv, (const void* sendbuf, const F* sendcounts, const F* displs, const F* sendtype,
                                   void* recvbuf, const F* recvcount, const F* recvtype, const F* root,
                                   const F* comm, F* ierror)) {
  *ierror = PMPI_Scatterv(buffer(sendbuf), sendcounts, displs, *sendtype, buffer(recvbuf), *recvcount, *recvtype, *root,
                          *comm);
}
MESHMP_FORTRAN_FN(void, allgatherv, (const void* sendbuf, const F* sendcount, const F* sendtype, void* recvbuf,
                                     const F* recvcounts, const F* displs, const F* recvtype, const F* comm,
                                     F* ierror)) {
  *ierror = PMPI_Allgatherv(buffer(sendbuf), *sendcount, *sendtype, buffer(recvbuf), recvcounts, displs, *recvtype, *comm);
}
MESHMP_FORTRAN_FN(void, alltoallv, (const void* sendbuf, const F* sendcounts, const F* sdispls, const F* sendtype,
                                    void* recvbuf, const F* recvcounts, const F* rdispls, const F* recvtype,
                                    const F* comm, F* ierror)) {
  *ierror = PMPI_Alltoallv(buffer(sendbuf), sendcounts, sdispls, *sendtype, buffer(recvbuf), recvcounts, rdispls, *recvtype,
                           *comm);
}

MESHMP_FORTRAN_FN(void, reduce, (const void* sendbuf, void* recvbuf, const F* count, const F* datatype, const F* op,
                                 const F* root, const F* comm, F* ierror)) {
  *ierror = PMPI_Reduce(buffer(sendbuf), buffer(recvbuf), *count, *datatype, *op, *root, *comm);
}
// MPI_ALLREDUCE / MPI_SCAN (SENDBUF, RECVBUF, COUNT, DATATYPE, OP, COMM, IERROR)
#define MESHMP_F_REDUCE_ALL(name, Name)                                                                  \
  MESHMP_FORTRAN_FN(void, name, (const void* sendbuf, void* recvbuf, const F* count, const F* datatype, \
                                 const F* op, const F* comm, F* ierror)) {                             \
    *ierror = PMPI_##Name(buffer(sendbuf), buffer(recvbuf), *count, *datatype, *op, *comm);                    \
  }
MESHMP_F_REDUCE_ALL(allreduce, Allreduce)
MESHMP_F_REDUCE_ALL(scan, Scan)
MESHMP_F_REDUCE_ALL(exscan, Exscan)
MESHMP_FORTRAN_FN(void, reduce_scatter_block, (const void* sendbuf, void* recvbuf, const F* recvcount,
                                               const F* datatype, const F* op, const F* comm, F* ierror)) {
  *ierror = PMPI_Reduce_scatter_block(buffer(sendbuf), buffer(recvbuf), *recvcount, *datatype, *op, *comm);
}
MESHMP_FORTRAN_FN(void, alltoallw, (const void* sendbuf, const F* sendcounts, const F* sdispls, const F* sendtypes,
                                    void* recvbuf, const F* recvcounts, const F* rdispls, const F* recvtypes,
                                    const F* comm, F* ierror)) {
  *ierror = PMPI_Alltoallw(buffer(sendbuf), sendcounts, sdispls, sendtypes, buffer(recvbuf), recvcounts, rdispls, recvtypes,
                           *comm);
}
MESHMP_FORTRAN_FN(void, reduce_scatter, (const void* sendbuf, void* recvbuf, const F* recvcounts,
                                         const F* datatype, const F* op, const F* comm, F* ierror)) {
  *ierror = PMPI_Reduce_scatter(buffer(sendbuf), buffer(recvbuf), recvcounts, *datatype, *op, *comm);
}
MESHMP_FORTRAN_FN(void, reduce_local, (const void* inbuf, void* inoutbuf, const F* count, const F* datatype,
                                       const F* op, F* ierror)) {
  *ierror = PMPI_Reduce_local(buffer(inbuf), buffer(inoutbuf), *count, *datatype, *op);
}

MESHMP_FORTRAN_FN(void, op_create, (MPI_User_function* function, const F* commute, F* op, F* ierror)) {
  *ierror = PMPI_Op_create(function, *commute, op);
}
MESHMP_FORTRAN_FN(void, op_free, (F* op, F* ierror)) { *ierror = PMPI_Op_free(op); }
MESHMP_FORTRAN_FN(void, op_commutative, (const F* op, F* commute, F* ierror)) {
  int c = 0;
  *ierror = PMPI_Op_commutative(*op, &c);
  *commute = logical(c);
}
