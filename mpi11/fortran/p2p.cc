// Fortran bindings of point-to-point communication (MPI-1.1 §3): sends,
// receives, requests, probes, statuses. Indices returned into request arrays
// (MPI_WAITANY, MPI_WAITSOME, ...) are 1-based, as Fortran counts.
#include <memory>

#include "mpi11/fortran/fortran.h"

using namespace meshmp::mpi::fortran;

// MPI_xSEND(BUF, COUNT, DATATYPE, DEST, TAG, COMM, IERROR)
#define MESHMP_F_SEND(name, Name)                                                                   \
  MESHMP_FORTRAN_FN(void, name, (const void* buf, const F* count, const F* datatype, const F* dest, \
                                 const F* tag, const F* comm, F* ierror)) {                          \
    *ierror = PMPI_##Name(buffer(buf), *count, *datatype, *dest, *tag, *comm);                              \
  }
MESHMP_F_SEND(send, Send)
MESHMP_F_SEND(bsend, Bsend)
MESHMP_F_SEND(ssend, Ssend)
MESHMP_F_SEND(rsend, Rsend)

// MPI_Ix(BUF, COUNT, DATATYPE, PEER, TAG, COMM, REQUEST, IERROR), and the
// persistent x_INIT of the same shape.
#define MESHMP_F_START(name, Name, Buf)                                                      \
  MESHMP_FORTRAN_FN(void, name, (Buf * buf, const F* count, const F* datatype, const F* peer, \
                                 const F* tag, const F* comm, F* request, F* ierror)) {       \
    *ierror = PMPI_##Name(buffer(buf), *count, *datatype, *peer, *tag, *comm, request);              \
  }
MESHMP_F_START(isend, Isend, const void)
MESHMP_F_START(ibsend, Ibsend, const void)
MESHMP_F_START(issend, Issend, const void)
MESHMP_F_START(irsend, Irsend, const void)
MESHMP_F_START(irecv, Irecv, void)
MESHMP_F_START(send_init, Send_init, const void)
MESHMP_F_START(bsend_init, Bsend_init, const void)
MESHMP_F_START(ssend_init, Ssend_init, const void)
MESHMP_F_START(rsend_init, Rsend_init, const void)
MESHMP_F_START(recv_init, Recv_init, void)

MESHMP_FORTRAN_FN(void, recv, (void* buf, const F* count, const F* datatype, const F* source, const F* tag,
                               const F* comm, F* status, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Recv(buffer(buf), *count, *datatype, *source, *tag, *comm, s.get());
}

MESHMP_FORTRAN_FN(void, start, (F* request, F* ierror)) { *ierror = PMPI_Start(request); }
MESHMP_FORTRAN_FN(void, startall, (const F* count, F* requests, F* ierror)) {
  *ierror = PMPI_Startall(*count, requests);
}
MESHMP_FORTRAN_FN(void, request_free, (F* request, F* ierror)) { *ierror = PMPI_Request_free(request); }

MESHMP_FORTRAN_FN(void, wait, (F* request, F* status, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Wait(request, s.get());
}
MESHMP_FORTRAN_FN(void, test, (F* request, F* flag, F* status, F* ierror)) {
  Statuses s(status, 1);
  int c = 0;
  *ierror = PMPI_Test(request, &c, s.get());
  *flag = logical(c);
}
// MPI_GREQUEST_START(QUERY_FN, FREE_FN, CANCEL_FN, EXTRA_STATE, REQUEST,
// IERROR) (MPI-2.2 §12.2). The Fortran callbacks take every argument by
// reference and return through IERROR, so the C request holds trampolines
// and a record of them. EXTRA_STATE reaches them as the caller's variable
// itself, by reference (as in MPICH and Open MPI): it must outlive the
// request, and what a callback stores there the program sees.
namespace {
using GreqQueryFn = void(MPI_Aint* extra_state, F* status, F* ierror);
using GreqFreeFn = void(MPI_Aint* extra_state, F* ierror);
using GreqCancelFn = void(MPI_Aint* extra_state, const F* complete, F* ierror);
struct FortranGreq {
  GreqQueryFn* query;
  GreqFreeFn* free;
  GreqCancelFn* cancel;
  MPI_Aint* extra_state;
};
int greq_query(void* x, MPI_Status* status) {  // status: never MPI_STATUS_IGNORE (p2p.cc)
  const FortranGreq& g = *static_cast<const FortranGreq*>(x);
  F ierr = MPI_SUCCESS;
  g.query(g.extra_state, reinterpret_cast<F*>(status), &ierr);  // the layouts agree (fortran.h)
  return ierr;
}
int greq_free(void* x) {  // the request's last callback: the record goes with it
  const FortranGreq* g = static_cast<const FortranGreq*>(x);
  F ierr = MPI_SUCCESS;
  g->free(g->extra_state, &ierr);
  delete g;
  return ierr;
}
int greq_cancel(void* x, int complete) {
  const FortranGreq& g = *static_cast<const FortranGreq*>(x);
  const F c = logical(complete);
  F ierr = MPI_SUCCESS;
  g.cancel(g.extra_state, &c, &ierr);
  return ierr;
}
}  // namespace

MESHMP_FORTRAN_FN(void, grequest_start, (GreqQueryFn* query_fn, GreqFreeFn* free_fn, GreqCancelFn* cancel_fn,
                                         MPI_Aint* extra_state, F* request, F* ierror)) {
  auto g = std::make_unique<FortranGreq>(FortranGreq{query_fn, free_fn, cancel_fn, extra_state});
  *ierror = PMPI_Grequest_start(query_fn ? greq_query : nullptr, free_fn ? greq_free : nullptr,
                                cancel_fn ? greq_cancel : nullptr, g.get(), request);
  if (*ierror == MPI_SUCCESS) g.release();
}
MESHMP_FORTRAN_FN(void, grequest_complete, (const F* request, F* ierror)) {
  *ierror = PMPI_Grequest_complete(*request);
}

MESHMP_FORTRAN_FN(void, request_get_status, (const F* request, F* flag, F* status, F* ierror)) {
  Statuses s(status, 1);
  int c = 0;
  *ierror = PMPI_Request_get_status(*request, &c, s.get());
  *flag = logical(c);
}
MESHMP_FORTRAN_FN(void, waitany, (const F* count, F* requests, F* index, F* status, F* ierror)) {
  Statuses s(status, 1);
  int i = MPI_UNDEFINED;
  *ierror = PMPI_Waitany(*count, requests, &i, s.get());
  *index = fortran_index(i);
}
MESHMP_FORTRAN_FN(void, testany, (const F* count, F* requests, F* index, F* flag, F* status, F* ierror)) {
  Statuses s(status, 1);
  int i = MPI_UNDEFINED, c = 0;
  *ierror = PMPI_Testany(*count, requests, &i, &c, s.get());
  *index = fortran_index(i);
  *flag = logical(c);
}
MESHMP_FORTRAN_FN(void, waitall, (const F* count, F* requests, F* statuses, F* ierror)) {
  Statuses s(statuses, *count);
  *ierror = PMPI_Waitall(*count, requests, s.get());
}
MESHMP_FORTRAN_FN(void, testall, (const F* count, F* requests, F* flag, F* statuses, F* ierror)) {
  Statuses s(statuses, *count);
  int c = 0;
  *ierror = PMPI_Testall(*count, requests, &c, s.get());
  *flag = logical(c);
}

namespace {
// Waitsome/Testsome: 1-based indices out.
void some(int (*call)(int, MPI_Request*, int*, int*, MPI_Status*), const F* incount, F* requests, F* outcount,
          F* indices, F* statuses, F* ierror) {
  Statuses s(statuses, *incount);
  int out = 0;  // stays 0 if the call fails before completing anything
  *ierror = call(*incount, requests, &out, indices, s.get());
  for (int i = 0; i < out; ++i) indices[i] = fortran_index(indices[i]);
  *outcount = out;
}
}  // namespace

MESHMP_FORTRAN_FN(void, waitsome, (const F* incount, F* requests, F* outcount, F* indices, F* statuses, F* ierror)) {
  some(PMPI_Waitsome, incount, requests, outcount, indices, statuses, ierror);
}
MESHMP_FORTRAN_FN(void, testsome, (const F* incount, F* requests, F* outcount, F* indices, F* statuses, F* ierror)) {
  some(PMPI_Testsome, incount, requests, outcount, indices, statuses, ierror);
}

MESHMP_FORTRAN_FN(void, probe, (const F* source, const F* tag, const F* comm, F* status, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Probe(*source, *tag, *comm, s.get());
}
MESHMP_FORTRAN_FN(void, iprobe, (const F* source, const F* tag, const F* comm, F* flag, F* status, F* ierror)) {
  Statuses s(status, 1);
  int c = 0;
  *ierror = PMPI_Iprobe(*source, *tag, *comm, &c, s.get());
  *flag = logical(c);
}
MESHMP_FORTRAN_FN(void, mprobe, (const F* source, const F* tag, const F* comm, F* message, F* status, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Mprobe(*source, *tag, *comm, message, s.get());
}
MESHMP_FORTRAN_FN(void, improbe, (const F* source, const F* tag, const F* comm, F* flag, F* message, F* status,
                                  F* ierror)) {
  Statuses s(status, 1);
  int c = 0;
  *ierror = PMPI_Improbe(*source, *tag, *comm, &c, message, s.get());
  *flag = logical(c);
}
MESHMP_FORTRAN_FN(void, mrecv, (void* buf, const F* count, const F* datatype, F* message, F* status, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Mrecv(buffer(buf), *count, *datatype, message, s.get());
}
MESHMP_FORTRAN_FN(void, imrecv, (void* buf, const F* count, const F* datatype, F* message, F* request, F* ierror)) {
  *ierror = PMPI_Imrecv(buffer(buf), *count, *datatype, message, request);
}
MESHMP_FORTRAN_FN(void, cancel, (F* request, F* ierror)) { *ierror = PMPI_Cancel(request); }
MESHMP_FORTRAN_FN(void, test_cancelled, (const F* status, F* flag, F* ierror)) {
  const MPI_Status s = status_in(status);
  int c = 0;
  *ierror = PMPI_Test_cancelled(&s, &c);
  *flag = logical(c);
}
MESHMP_FORTRAN_FN(void, get_count, (const F* status, const F* datatype, F* count, F* ierror)) {
  const MPI_Status s = status_in(status);
  *ierror = PMPI_Get_count(&s, *datatype, count);
}
MESHMP_FORTRAN_FN(void, get_elements, (const F* status, const F* datatype, F* count, F* ierror)) {
  const MPI_Status s = status_in(status);
  *ierror = PMPI_Get_elements(&s, *datatype, count);
}

MESHMP_FORTRAN_FN(void, sendrecv, (const void* sendbuf, const F* sendcount, const F* sendtype, const F* dest,
                                   const F* sendtag, void* recvbuf, const F* recvcount, const F* recvtype,
                                   const F* source, const F* recvtag, const F* comm, F* status, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Sendrecv(buffer(sendbuf), *sendcount, *sendtype, *dest, *sendtag, buffer(recvbuf), *recvcount, *recvtype, *source,
                          *recvtag, *comm, s.get());
}
MESHMP_FORTRAN_FN(void, sendrecv_replace, (void* buf, const F* count, const F* datatype, const F* dest,
                                           const F* sendtag, const F* source, const F* recvtag, const F* comm,
                                           F* status, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Sendrecv_replace(buffer(buf), *count, *datatype, *dest, *sendtag, *source, *recvtag, *comm, s.get());
}

MESHMP_FORTRAN_FN(void, buffer_attach, (void* buffer, const F* size, F* ierror)) {
  *ierror = PMPI_Buffer_attach(buffer, *size);
}
// MPI_BUFFER_DETACH(BUFFER, SIZE, IERROR): Fortran cannot take the address
// back; the size is what it uses.
MESHMP_FORTRAN_FN(void, buffer_detach, (void*, F* size, F* ierror)) {
  void* address = nullptr;
  *ierror = PMPI_Buffer_detach(&address, size);
}
