// Fortran bindings of the environment (MPI-1.1 §7): start and end, time,
// processor names, errors and error handlers, and the MPI-2 thread and memory
// calls. A Fortran error handler SUBROUTINE H(COMM, ERRORCODE) is called the
// way C's are (both by reference), so MPI_ERRHANDLER_CREATE registers it as
// it is.
#include "mpi11/fortran/fortran.h"

using namespace meshmp::mpi::fortran;

MESHMP_FORTRAN_FN(void, init, (F* ierror)) { *ierror = PMPI_Init(nullptr, nullptr); }
MESHMP_FORTRAN_FN(void, init_thread, (const F* required, F* provided, F* ierror)) {
  *ierror = PMPI_Init_thread(nullptr, nullptr, *required, provided);
}
MESHMP_FORTRAN_FN(void, finalize, (F* ierror)) { *ierror = PMPI_Finalize(); }

// MPI_x(LOGICAL FLAG, IERROR)
#define MESHMP_F_FLAG(name, Name)                                 \
  MESHMP_FORTRAN_FN(void, name, (F* flag, F* ierror)) {           \
    int c = 0;                                                    \
    *ierror = PMPI_##Name(&c);                                    \
    *flag = logical(c);                                           \
  }
MESHMP_F_FLAG(initialized, Initialized)
MESHMP_F_FLAG(finalized, Finalized)
MESHMP_F_FLAG(is_thread_main, Is_thread_main)

MESHMP_FORTRAN_FN(void, query_thread, (F* provided, F* ierror)) { *ierror = PMPI_Query_thread(provided); }
MESHMP_FORTRAN_FN(void, abort, (const F* comm, const F* errorcode, F* ierror)) {
  *ierror = PMPI_Abort(*comm, *errorcode);
}
MESHMP_FORTRAN_FN(void, get_processor_name, (char* name, F* resultlen, F* ierror, FLen name_len)) {
  char c[MPI_MAX_PROCESSOR_NAME] = {};
  *ierror = PMPI_Get_processor_name(c, resultlen);
  if (*ierror == MPI_SUCCESS) to_fortran(c, name, name_len);
}
MESHMP_FORTRAN_FN(void, get_version, (F* version, F* subversion, F* ierror)) {
  *ierror = PMPI_Get_version(version, subversion);
}
MESHMP_FORTRAN_FN(void, get_library_version, (char* version, F* resultlen, F* ierror, FLen version_len)) {
  char c[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  *ierror = PMPI_Get_library_version(c, resultlen);
  if (*ierror == MPI_SUCCESS) to_fortran(c, version, version_len);
}
// DOUBLE PRECISION MPI_WTIME(), MPI_WTICK(): functions, no IERROR.
MESHMP_FORTRAN_FN(double, wtime, ()) { return PMPI_Wtime(); }
MESHMP_FORTRAN_FN(double, wtick, ()) { return PMPI_Wtick(); }
// MPI_PCONTROL(LEVEL): no IERROR (§8.2).
MESHMP_FORTRAN_FN(void, pcontrol, (const F* level)) { PMPI_Pcontrol(*level); }
// MPI_F_SYNC_REG(BUF) (MPI-3.1 §17.1.8): a call the compiler cannot see
// into, so a nonblocking operation's buffer is not kept in a register
// across it (MPI_WAIT's completion); its doing nothing is its definition.
MESHMP_FORTRAN_FN(void, f_sync_reg, (void*)) {}

MESHMP_FORTRAN_FN(void, error_string, (const F* errorcode, char* string, F* resultlen, F* ierror, FLen string_len)) {
  char c[MPI_MAX_ERROR_STRING] = {};
  *ierror = PMPI_Error_string(*errorcode, c, resultlen);
  if (*ierror == MPI_SUCCESS) to_fortran(c, string, string_len);
}
MESHMP_FORTRAN_FN(void, error_class, (const F* errorcode, F* errorclass, F* ierror)) {
  *ierror = PMPI_Error_class(*errorcode, errorclass);
}

MESHMP_FORTRAN_FN(void, errhandler_create, (MPI_Handler_function* function, F* errhandler, F* ierror)) {
  *ierror = PMPI_Errhandler_create(function, errhandler);
}
MESHMP_FORTRAN_FN(void, comm_create_errhandler, (MPI_Handler_function* function, F* errhandler, F* ierror)) {
  *ierror = PMPI_Comm_create_errhandler(function, errhandler);
}
MESHMP_FORTRAN_FN(void, errhandler_free, (F* errhandler, F* ierror)) { *ierror = PMPI_Errhandler_free(errhandler); }
MESHMP_FORTRAN_FN(void, errhandler_set, (const F* comm, const F* errhandler, F* ierror)) {
  *ierror = PMPI_Errhandler_set(*comm, *errhandler);
}
MESHMP_FORTRAN_FN(void, comm_set_errhandler, (const F* comm, const F* errhandler, F* ierror)) {
  *ierror = PMPI_Comm_set_errhandler(*comm, *errhandler);
}
MESHMP_FORTRAN_FN(void, errhandler_get, (const F* comm, F* errhandler, F* ierror)) {
  *ierror = PMPI_Errhandler_get(*comm, errhandler);
}
MESHMP_FORTRAN_FN(void, comm_get_errhandler, (const F* comm, F* errhandler, F* ierror)) {
  *ierror = PMPI_Comm_get_errhandler(*comm, errhandler);
}

// MPI_ALLOC_MEM(SIZE, INFO, BASEPTR, IERROR): BASEPTR is an
// INTEGER(KIND=MPI_ADDRESS_KIND) receiving the address (a Cray pointer).
MESHMP_FORTRAN_FN(void, alloc_mem, (const MPI_Aint* size, const F* info, MPI_Aint* baseptr, F* ierror)) {
  *ierror = PMPI_Alloc_mem(*size, *info, baseptr);
}
MESHMP_FORTRAN_FN(void, free_mem, (void* base, F* ierror)) { *ierror = PMPI_Free_mem(base); }

// MPI-2.2 §8.5 and §8.3.
MESHMP_FORTRAN_FN(void, add_error_class, (F* errorclass, F* ierror)) { *ierror = PMPI_Add_error_class(errorclass); }
MESHMP_FORTRAN_FN(void, add_error_code, (const F* errorclass, F* errorcode, F* ierror)) {
  *ierror = PMPI_Add_error_code(*errorclass, errorcode);
}
MESHMP_FORTRAN_FN(void, add_error_string, (const F* errorcode, const char* string, F* ierror, FLen string_len)) {
  *ierror = PMPI_Add_error_string(*errorcode, from_fortran(string, string_len).c_str());
}
MESHMP_FORTRAN_FN(void, comm_call_errhandler, (const F* comm, const F* errorcode, F* ierror)) {
  *ierror = PMPI_Comm_call_errhandler(*comm, *errorcode);
}
