// The Fortran special addresses and the argument conversions of fortran.h.
#include <algorithm>
#include <cstdint>

#include "mpi11/fortran/fortran.h"

// The COMMON blocks mpif.h names (gfortran: /MPI_FORTRAN_BOTTOM/ is the
// symbol mpi_fortran_bottom_). Defined here, so every program shares one;
// aligned as gfortran aligns COMMON blocks.
extern "C" {
alignas(16) F mpi_fortran_bottom_ = 0;
alignas(16) F mpi_fortran_in_place_ = 0;
alignas(16) F mpi_fortran_status_ignore_[kStatusSize] = {};
alignas(16) F mpi_fortran_statuses_ignore_[kStatusSize] = {};
alignas(16) F mpi_fortran_unweighted_ = 0;
alignas(16) F mpi_fortran_weights_empty_ = 0;
}

namespace meshmp::mpi::fortran {

Statuses::Statuses(F* f, int n) : f_(f), n_(n > 0 ? static_cast<std::size_t>(n) : 0) {
  if (f == mpi_fortran_status_ignore_ || f == mpi_fortran_statuses_ignore_ || n_ == 0) {
    c_ = MPI_STATUS_IGNORE;
  } else if (reinterpret_cast<std::uintptr_t>(f) % alignof(MPI_Status) == 0) {
    c_ = reinterpret_cast<MPI_Status*>(f);
  } else {
    c_ = n_ == 1 ? &one_ : (heap_ = new MPI_Status[n_]);
    std::memcpy(c_, f, n_ * sizeof(MPI_Status));  // fields a call leaves alone keep their values
  }
}

Statuses::~Statuses() {
  if (c_ && c_ != reinterpret_cast<MPI_Status*>(f_)) std::memcpy(f_, c_, n_ * sizeof(MPI_Status));
  delete[] heap_;
}

std::string from_fortran(const char* f, FLen len) {
  while (len > 0 && f[len - 1] == ' ') --len;
  return std::string(f, len);
}

void to_fortran(const char* s, char* f, FLen len) {
  const FLen n = std::min<FLen>(std::strlen(s), len);
  std::memcpy(f, s, n);
  std::memset(f + n, ' ', len - n);
}

}  // namespace meshmp::mpi::fortran
