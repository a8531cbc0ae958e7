// One-sided communication (MPI-3.1 chapter 11) is out of scope (issue 33):
// meshmp's own one-sided traffic -- RDMA rendezvous, the flag windows of
// seed 002's barrier -- lies below the MPI interface. The chapter's C names
// exist so that a program whose shared code mentions windows (a benchmark
// suite's utility file, a library with an optional one-sided path) compiles
// and links, and learns at the first call what it cannot have: every call
// fails with MPI_ERR_UNSUPPORTED_OPERATION (MPI-3.1 Table 8.2), raised on
// the communicator's error handler where the call takes one (§8.3: window
// creation reports on the communicator), else on MPI_COMM_WORLD's, since no
// window exists to carry a handler. The creating calls set *win to
// MPI_WIN_NULL first, so that a program going on under MPI_ERRORS_RETURN
// holds no handle that looks like a window.
#include "mpi11/internal.h"

using namespace meshmp::mpi;

namespace {

constexpr const char* kWhat = "one-sided communication (MPI-3.1 chapter 11)";

int refuse_creation(const char* call, MPI_Comm comm, MPI_Win* win) {
  if (win) *win = MPI_WIN_NULL;
  return refuse_unsupported(call, kWhat, comm);
}

}  // namespace

// ---- window creation (§11.2) ------------------------------------------------

MESHMP_MPI_FN(int, Win_create, (void*, MPI_Aint, int, MPI_Info, MPI_Comm comm, MPI_Win* win)) {
  return refuse_creation("MPI_Win_create", comm, win);
} MESHMP_MPI_END(Win_create)

MESHMP_MPI_FN(int, Win_allocate, (MPI_Aint, int, MPI_Info, MPI_Comm comm, void*, MPI_Win* win)) {
  return refuse_creation("MPI_Win_allocate", comm, win);
} MESHMP_MPI_END(Win_allocate)

MESHMP_MPI_FN(int, Win_allocate_shared, (MPI_Aint, int, MPI_Info, MPI_Comm comm, void*, MPI_Win* win)) {
  return refuse_creation("MPI_Win_allocate_shared", comm, win);
} MESHMP_MPI_END(Win_allocate_shared)

MESHMP_MPI_FN(int, Win_create_dynamic, (MPI_Info, MPI_Comm comm, MPI_Win* win)) {
  return refuse_creation("MPI_Win_create_dynamic", comm, win);
} MESHMP_MPI_END(Win_create_dynamic)

// ---- calls on a window: none exists ------------------------------------------

MESHMP_MPI_REFUSED(Win_shared_query, (MPI_Win, int, MPI_Aint*, int*, void*), kWhat)
MESHMP_MPI_REFUSED(Win_attach, (MPI_Win, void*, MPI_Aint), kWhat)
MESHMP_MPI_REFUSED(Win_detach, (MPI_Win, const void*), kWhat)
MESHMP_MPI_REFUSED(Win_free, (MPI_Win*), kWhat)
MESHMP_MPI_REFUSED(Win_get_group, (MPI_Win, MPI_Group*), kWhat)
MESHMP_MPI_REFUSED(Win_set_info, (MPI_Win, MPI_Info), kWhat)
MESHMP_MPI_REFUSED(Win_get_info, (MPI_Win, MPI_Info*), kWhat)
// Communication (§11.3)
MESHMP_MPI_REFUSED(Put, (const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Get, (void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Accumulate, (const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win),
                   kWhat)
MESHMP_MPI_REFUSED(Get_accumulate,
                   (const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op,
                    MPI_Win),
                   kWhat)
MESHMP_MPI_REFUSED(Fetch_and_op, (const void*, void*, MPI_Datatype, int, MPI_Aint, MPI_Op, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Compare_and_swap, (const void*, const void*, void*, MPI_Datatype, int, MPI_Aint, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Rput, (const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win, MPI_Request*),
                   kWhat)
MESHMP_MPI_REFUSED(Rget, (void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Win, MPI_Request*), kWhat)
MESHMP_MPI_REFUSED(Raccumulate,
                   (const void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op, MPI_Win, MPI_Request*),
                   kWhat)
MESHMP_MPI_REFUSED(Rget_accumulate,
                   (const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Aint, int, MPI_Datatype, MPI_Op,
                    MPI_Win, MPI_Request*),
                   kWhat)
// Synchronization (§11.5)
MESHMP_MPI_REFUSED(Win_fence, (int, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_start, (MPI_Group, int, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_complete, (MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_post, (MPI_Group, int, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_wait, (MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_test, (MPI_Win, int*), kWhat)
MESHMP_MPI_REFUSED(Win_lock, (int, int, int, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_lock_all, (int, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_unlock, (int, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_unlock_all, (MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_flush, (int, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_flush_all, (MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_flush_local, (int, MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_flush_local_all, (MPI_Win), kWhat)
MESHMP_MPI_REFUSED(Win_sync, (MPI_Win), kWhat)
// Attributes, names and error handlers of windows (§6.7, §6.8, §8.3.2)
MESHMP_MPI_REFUSED(Win_create_keyval, (MPI_Win_copy_attr_function*, MPI_Win_delete_attr_function*, int*, void*), kWhat)
MESHMP_MPI_REFUSED(Win_free_keyval, (int*), kWhat)
MESHMP_MPI_REFUSED(Win_set_attr, (MPI_Win, int, void*), kWhat)
MESHMP_MPI_REFUSED(Win_get_attr, (MPI_Win, int, void*, int*), kWhat)
MESHMP_MPI_REFUSED(Win_delete_attr, (MPI_Win, int), kWhat)
MESHMP_MPI_REFUSED(Win_set_name, (MPI_Win, const char*), kWhat)
MESHMP_MPI_REFUSED(Win_get_name, (MPI_Win, char*, int*), kWhat)
MESHMP_MPI_REFUSED(Win_create_errhandler, (MPI_Win_errhandler_function*, MPI_Errhandler*), kWhat)
MESHMP_MPI_REFUSED(Win_set_errhandler, (MPI_Win, MPI_Errhandler), kWhat)
MESHMP_MPI_REFUSED(Win_get_errhandler, (MPI_Win, MPI_Errhandler*), kWhat)
MESHMP_MPI_REFUSED(Win_call_errhandler, (MPI_Win, int), kWhat)

// Handle conversions (§17.2.4): with no window, every Fortran handle is
// MPI_WIN_NULL's, 0.
MESHMP_MPI_FN_NOTHROW(MPI_Win, Win_f2c, (MPI_Fint)) { return MPI_WIN_NULL; }
MESHMP_MPI_FN_NOTHROW(MPI_Fint, Win_c2f, (MPI_Win)) { return 0; }
