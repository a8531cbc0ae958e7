// Collectives on intercommunicators (MPI-2.2 §5.2.2): coll_inter.cc. The
// blocking MPI calls of coll.cc hand an intercommunicator here, its checked
// CommInfo with it; each returns an MPI error code, raised on `comm`.
// The v-forms serve the plain ones too (recvcounts/sendcounts NULL: every
// block `recvcount`/`sendcount` elements, at i * that many extents).
#pragma once

#include "collectives/group.h"
#include "mpi11/mpi.h"

namespace meshmp::mpi {

struct CommInfo;

/// Where a call's request goes: none for the blocking calls; an MPI_I...
/// call (MPI-3.1 §5.12) passes its own (NULL: MPI_ERR_REQUEST), and the
/// call's messages become a schedule that progresses in any MPI call.
struct InterRequest {
  bool nonblocking = false;
  MPI_Request* request = nullptr;
};

bool is_intercomm(MPI_Comm comm);
/// An intercommunicator's local group for the nonblocking forms' schedules
/// (no torus: their binomial trees and dissemination).
collectives::Group inter_local_group(const CommInfo& ic);
int inter_barrier(MPI_Comm comm, CommInfo* c);
int inter_bcast(MPI_Comm comm, CommInfo* c, void* buffer, int count, MPI_Datatype type, int root);
/// The nonblocking forms (MPI-3.1 §5.12) of barrier and bcast: the same
/// phases as a schedule in the intercommunicator's nonblocking context.
int inter_ibarrier(MPI_Comm comm, CommInfo* c, MPI_Request* request);
int inter_ibcast(MPI_Comm comm, CommInfo* c, void* buffer, int count, MPI_Datatype type, int root,
                 MPI_Request* request);
int inter_reduce(MPI_Comm comm, CommInfo* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                 MPI_Op op, int root);
int inter_allreduce(MPI_Comm comm, CommInfo* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                    MPI_Op op);
int inter_reduce_scatter(MPI_Comm comm, CommInfo* c, const void* sendbuf, void* recvbuf, const int* recvcounts,
                         MPI_Datatype type, MPI_Op op, const char* name);
int inter_reduce_scatter_block(MPI_Comm comm, CommInfo* c, const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype type, MPI_Op op);
int inter_gatherv(MPI_Comm comm, CommInfo* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, const char* name,
                  int recvcount = 0, InterRequest nb = {});
int inter_scatterv(MPI_Comm comm, CommInfo* c, const void* sendbuf, const int* sendcounts, const int* displs,
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                   const char* name, int sendcount = 0, InterRequest nb = {});
int inter_allgatherv(MPI_Comm comm, CommInfo* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, const char* name,
                     int recvcount = 0, InterRequest nb = {});
/// Alltoall(v) too: one type per block, displacements in bytes
/// (`byte_displs`, alltoallw) or in the block type's extents.
int inter_alltoallw(MPI_Comm comm, CommInfo* c, const void* sendbuf, const int* sendcounts, const int* sdispls,
                    const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls,
                    const MPI_Datatype* recvtypes, bool byte_displs, const char* name, InterRequest nb = {});
int inter_alltoall(MPI_Comm comm, CommInfo* c, const void* sendbuf, const int* sendcounts, const int* sdispls,
                   MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                   MPI_Datatype recvtype, const char* name, InterRequest nb = {});
int inter_alltoall(MPI_Comm comm, CommInfo* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, const char* name = "MPI_Alltoall",
                   InterRequest nb = {});

}  // namespace meshmp::mpi
