// The environment (MPI-1.1 §7): init and finalize over the shared core,
// abort through the launcher, the clock, the processor name.
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "mpi11/internal.h"

using namespace meshmp;
using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Init, (int* argc, char*** argv)) {
  (void)argc;
  (void)argv;
  State& s = state();
  if (s.initialized || s.finalized)
    return raise(MPI_COMM_NULL, "MPI_Init", MPI_ERR_OTHER, s.finalized ? "MPI was finalized; it cannot be started again" : "MPI is already initialized");
  try {
    s.engine = &mesh::Engine::init();
  } catch (const std::exception& e) {
    return raise(MPI_COMM_NULL, "MPI_Init", MPI_ERR_OTHER, e.what());
  }
  make_builtin_comms();
  s.initialized = true;
  return MPI_SUCCESS;
}

MESHMP_MPI_FN(int, Finalize, (void)) {
  int err;
  if (!check_init("MPI_Finalize", &err)) return err;
  State& s = state();
  finish_requests();
  mesh::Engine::finalize();
  s.finalized = true;
  s.engine = nullptr;
  return MPI_SUCCESS;
}

MESHMP_MPI_FN(int, Initialized, (int* flag)) {
  if (!flag) return raise(MPI_COMM_NULL, "MPI_Initialized", MPI_ERR_ARG, "flag is NULL");
  *flag = state().initialized;
  return MPI_SUCCESS;
}

MESHMP_MPI_FN(int, Finalized, (int* flag)) {
  if (!flag) return raise(MPI_COMM_NULL, "MPI_Finalized", MPI_ERR_ARG, "flag is NULL");
  *flag = state().finalized;
  return MPI_SUCCESS;
}

MESHMP_MPI_FN(int, Abort, (MPI_Comm comm, int errorcode)) {
  // Ends every process of the job, not only comm's (allowed by §7.5).
  (void)comm;
  const std::string why = "MPI_Abort(errorcode=" + std::to_string(errorcode) + ")";
  if (mesh::Engine* e = mesh::Engine::get()) e->abort(errorcode, why);
  std::fprintf(stderr, "meshmp: %s\n", why.c_str());
  std::_Exit(errorcode ? errorcode : 1);
}

MESHMP_MPI_FN(int, Get_processor_name, (char* name, int* resultlen)) {
  if (!name || !resultlen) return raise(MPI_COMM_NULL, "MPI_Get_processor_name", MPI_ERR_ARG, "name or resultlen is NULL");
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  std::strcpy(name, host);
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

MESHMP_MPI_FN(int, Get_version, (int* version, int* subversion)) {
  if (!version || !subversion) return raise(MPI_COMM_NULL, "MPI_Get_version", MPI_ERR_ARG, "version or subversion is NULL");
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

// Seconds on CLOCK_MONOTONIC: local to each process (MPI_WTIME_IS_GLOBAL = 0).
MESHMP_MPI_FN(double, Wtime, (void)) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

MESHMP_MPI_FN(double, Wtick, (void)) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Profiling control (§8.2): meshmp itself has no profiling levels; the call
// is there for a profiling library to intercept.
MESHMP_MPI_FN(int, Pcontrol, (const int level, ...)) {
  (void)level;
  return MPI_SUCCESS;
}
