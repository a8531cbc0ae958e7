// The environment (MPI-1.1 §7): init and finalize over the shared core,
// abort through the launcher, the clock, the processor name.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "mpi11/internal.h"
#include "mpi11/qmp_bridge.h"

using namespace meshmp;
using namespace meshmp::mpi;

namespace meshmp::mpi {
namespace {

std::thread::id g_main_thread;

// Starts the engine and the built-in communicators; the reason on failure.
std::string bring_up() {
  State& s = state();
  if (s.finalized) return "MPI was finalized; it cannot be started again";
  try {
    s.engine = &mesh::Engine::init();
  } catch (const std::exception& e) {
    return e.what();
  }
  make_builtin_comms();
  g_main_thread = std::this_thread::get_id();
  s.initialized = true;
  return {};
}

// MPI_Init's work, shared with MPI_Init_thread.
int start_mpi(const char* call) {
  State& s = state();
  if (s.initialized && s.started_by_qmp && !s.finalized) {  // QMP started it: the program takes it over
    s.started_by_qmp = false;
    return MPI_SUCCESS;
  }
  if (s.initialized && !s.finalized) return raise(MPI_COMM_NULL, call, MPI_ERR_OTHER, "MPI is already initialized");
  const std::string why = bring_up();
  return why.empty() ? MPI_SUCCESS : raise(MPI_COMM_NULL, call, MPI_ERR_OTHER, why);
}

}  // namespace

bool start_for_qmp(const char** why) {
  State& s = state();
  if (s.initialized) return true;  // the program started MPI first (and may have ended it)
  static std::string message;
  message = bring_up();
  if (!message.empty()) {
    *why = message.c_str();
    return false;
  }
  s.started_by_qmp = true;
  return true;
}

void finish_for_qmp() {
  if (state().started_by_qmp && state().initialized && !state().finalized) PMPI_Finalize();
}

}  // namespace meshmp::mpi

MESHMP_MPI_FN(int, Init, (int* argc, char*** argv)) {
  (void)argc;
  (void)argv;
  return start_mpi("MPI_Init");
} MESHMP_MPI_END(Init)

// The engine stays up while QMP still uses it (Engine::finalize is counted).
MESHMP_MPI_FN(int, Finalize, (void)) {
  int err;
  if (!check_init("MPI_Finalize", &err)) return err;
  State& s = state();
  // MPI-2.2 §8.7.1: MPI_COMM_SELF is freed first, as if by MPI_Comm_free, so
  // its attributes' delete callbacks run while MPI still works (a library
  // flushes its state this way); one that fails makes Finalize report it.
  const int self_err = delete_attributes(MPI_COMM_SELF, "MPI_Finalize");
  finish_requests();
  const std::string failure = mesh::Engine::finalize();
  s.finalized = true;
  s.engine = nullptr;
  // The engine is gone, so no error handler can run: the failure (printed
  // by the engine: a rank has gone) is only returned.
  return !failure.empty() ? MPI_ERR_OTHER : self_err;
} MESHMP_MPI_END(Finalize)

// MPI-2.2 §12.4.3: meshmp's progress runs in the calling thread, whichever
// it is (no state is kept per thread), one call at a time: SINGLE, FUNNELED
// and SERIALIZED are provided; a request for MULTIPLE gets SERIALIZED.
MESHMP_MPI_FN(int, Init_thread, (int* argc, char*** argv, int required, int* provided)) {
  (void)argc;
  (void)argv;
  if (!provided) return raise(MPI_COMM_NULL, "MPI_Init_thread", MPI_ERR_ARG, "provided is NULL");
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    return raise(MPI_COMM_NULL, "MPI_Init_thread", MPI_ERR_ARG, "required = " + std::to_string(required) + " is not a thread level");
  if (int err = start_mpi("MPI_Init_thread")) return err;
  state().thread_level = *provided = std::min(required, MPI_THREAD_SERIALIZED);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Init_thread)

MESHMP_MPI_FN(int, Query_thread, (int* provided)) {
  int err;
  if (!check_init("MPI_Query_thread", &err)) return err;
  if (!provided) return raise(MPI_COMM_NULL, "MPI_Query_thread", MPI_ERR_ARG, "provided is NULL");
  *provided = state().thread_level;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Query_thread)

MESHMP_MPI_FN(int, Is_thread_main, (int* flag)) {
  int err;
  if (!check_init("MPI_Is_thread_main", &err)) return err;
  if (!flag) return raise(MPI_COMM_NULL, "MPI_Is_thread_main", MPI_ERR_ARG, "flag is NULL");
  *flag = std::this_thread::get_id() == g_main_thread;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Is_thread_main)

// MPI-2 §4.11: ordinary memory (any memory is fine for meshmp's transfers);
// no info keys are interpreted.
MESHMP_MPI_FN(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void* baseptr)) {
  (void)info;
  if (size < 0) return raise(MPI_COMM_NULL, "MPI_Alloc_mem", MPI_ERR_ARG, "size = " + std::to_string(size) + " is negative");
  if (!baseptr) return raise(MPI_COMM_NULL, "MPI_Alloc_mem", MPI_ERR_ARG, "baseptr is NULL");
  if (!info_valid(info)) return raise(MPI_COMM_NULL, "MPI_Alloc_mem", MPI_ERR_INFO, "info is not an info object");
  void* p = std::malloc(size ? static_cast<std::size_t>(size) : 1);
  if (!p) return raise(MPI_COMM_NULL, "MPI_Alloc_mem", MPI_ERR_OTHER, "out of memory (" + std::to_string(size) + " bytes)");  // MPI_ERR_NO_MEM is MPI-2
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Alloc_mem)

MESHMP_MPI_FN(int, Free_mem, (void* base)) {
  std::free(base);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Free_mem)

MESHMP_MPI_FN(int, Initialized, (int* flag)) {
  if (!flag) return raise(MPI_COMM_NULL, "MPI_Initialized", MPI_ERR_ARG, "flag is NULL");
  *flag = state().initialized;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Initialized)

MESHMP_MPI_FN(int, Finalized, (int* flag)) {
  if (!flag) return raise(MPI_COMM_NULL, "MPI_Finalized", MPI_ERR_ARG, "flag is NULL");
  *flag = state().finalized;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Finalized)

MESHMP_MPI_FN(int, Abort, (MPI_Comm comm, int errorcode)) {
  // Ends every process of the job, not only comm's (allowed by §7.5).
  (void)comm;
  const std::string why = "MPI_Abort(errorcode=" + std::to_string(errorcode) + ")";
  if (mesh::Engine* e = mesh::Engine::get()) e->abort(errorcode, why);
  std::fflush(nullptr);
  std::fprintf(stderr, "meshmp: %s\n", why.c_str());
  std::_Exit(errorcode ? errorcode : 1);
} MESHMP_MPI_END(Abort)

MESHMP_MPI_FN(int, Get_processor_name, (char* name, int* resultlen)) {
  if (!name || !resultlen) return raise(MPI_COMM_NULL, "MPI_Get_processor_name", MPI_ERR_ARG, "name or resultlen is NULL");
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  std::strcpy(name, host);
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
} MESHMP_MPI_END(Get_processor_name)

MESHMP_MPI_FN(int, Get_version, (int* version, int* subversion)) {
  if (!version || !subversion) return raise(MPI_COMM_NULL, "MPI_Get_version", MPI_ERR_ARG, "version or subversion is NULL");
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Get_version)

MESHMP_MPI_FN(int, Get_library_version, (char* version, int* resultlen)) {
  if (!version || !resultlen)
    return raise(MPI_COMM_NULL, "MPI_Get_library_version", MPI_ERR_ARG, "version or resultlen is NULL");
  const int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                              "meshmp: MPI-%d.%d with MPI-2.2/3.1 additions, over a torus of nearest-neighbour links",
                              MPI_VERSION, MPI_SUBVERSION);
  *resultlen = std::min(n, MPI_MAX_LIBRARY_VERSION_STRING - 1);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Get_library_version)

// Handle conversions (MPI-2.2 §16.3.4): the same ints on both sides.
#define MESHMP_HANDLE_CONVERSIONS(Kind, Type)                                                              \
  MESHMP_MPI_FN_NOTHROW(Type, Kind##_f2c, (MPI_Fint h)) { return static_cast<Type>(h); }                  \
  MESHMP_MPI_FN_NOTHROW(MPI_Fint, Kind##_c2f, (Type h)) { return static_cast<MPI_Fint>(h); }
MESHMP_HANDLE_CONVERSIONS(Comm, MPI_Comm)
MESHMP_HANDLE_CONVERSIONS(Type, MPI_Datatype)
MESHMP_HANDLE_CONVERSIONS(Group, MPI_Group)
MESHMP_HANDLE_CONVERSIONS(Request, MPI_Request)
MESHMP_HANDLE_CONVERSIONS(Op, MPI_Op)
MESHMP_HANDLE_CONVERSIONS(Errhandler, MPI_Errhandler)
MESHMP_HANDLE_CONVERSIONS(Info, MPI_Info)
MESHMP_HANDLE_CONVERSIONS(Message, MPI_Message)  // MPI-3.1 §17.2.4
#undef MESHMP_HANDLE_CONVERSIONS

// Seconds on CLOCK_MONOTONIC: local to each process (MPI_WTIME_IS_GLOBAL = 0).
MESHMP_MPI_FN_NOTHROW(double, Wtime, (void)) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

MESHMP_MPI_FN_NOTHROW(double, Wtick, (void)) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Profiling control (§8.2): meshmp itself has no profiling levels; the call
// is there for a profiling library to intercept.
MESHMP_MPI_FN(int, Pcontrol, (const int level, ...)) {
  (void)level;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Pcontrol)
