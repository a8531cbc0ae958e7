// Fortran statuses as C sees them (MPI-2.2 §16.3.5): MPI_F_STATUS_IGNORE,
// MPI_F_STATUSES_IGNORE and MPI_Status_f2c/_c2f. A Fortran status is
// INTEGER(MPI_STATUS_SIZE) laid out as MPI_Status (fortran.h), so the
// conversions copy its bytes; they live with the Fortran bindings because
// the "ignore" values are the addresses of mpif.h's COMMON blocks.
#include <cstring>
#include <string>

#include "mpi11/fortran/fortran.h"
#include "mpi11/internal.h"

using namespace meshmp::mpi;
using namespace meshmp::mpi::fortran;

extern "C" {
MPI_Fint* MPI_F_STATUS_IGNORE = mpi_fortran_status_ignore_;
MPI_Fint* MPI_F_STATUSES_IGNORE = mpi_fortran_statuses_ignore_;
}

namespace {
bool ignored(const F* f) { return f == mpi_fortran_status_ignore_ || f == mpi_fortran_statuses_ignore_; }
}  // namespace

MESHMP_MPI_FN(int, Status_f2c, (const MPI_Fint* f_status, MPI_Status* c_status)) {
  const char* call = "MPI_Status_f2c";
  if (!f_status || ignored(f_status))
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "f_status is NULL or MPI_F_STATUS(ES)_IGNORE");
  if (!c_status) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "c_status is NULL (MPI_STATUS_IGNORE)");
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
} MESHMP_MPI_END(Status_f2c)

MESHMP_MPI_FN(int, Status_c2f, (const MPI_Status* c_status, MPI_Fint* f_status)) {
  const char* call = "MPI_Status_c2f";
  if (!c_status) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "c_status is NULL (MPI_STATUS_IGNORE)");
  if (!f_status || ignored(f_status))
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "f_status is NULL or MPI_F_STATUS(ES)_IGNORE");
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
} MESHMP_MPI_END(Status_c2f)
