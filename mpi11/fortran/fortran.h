// meshmp's Fortran 77 bindings (MPI-1.1 §2.4, and the Fortran binding of
// each function in chapters 3-7): what the mpi11/fortran/*.cc wrappers share.
//
// A Fortran call MPI_SEND(BUF, COUNT, ..., IERROR) arrives as
// pmpi_send_(buf, &count, ..., &ierror) -- gfortran's names are lower case
// with one trailing underscore, every argument is passed by reference, and a
// CHARACTER argument adds its length (size_t) after all the others. Handles
// are INTEGERs equal to the C handles (mpi.h's handles are ints), so no
// translation table is needed. mpi_name_ is a weak alias of pmpi_name_, the
// Fortran form of the profiling interface (§8.3).
#pragma once

#include <cstddef>
#include <cstring>
#include <string>

#include "mpi11/mpi.h"

#define MESHMP_FORTRAN_FN(ret, name, params)                                             \
  extern "C" ret mpi_##name##_ params __attribute__((weak, alias("pmpi_" #name "_"))); \
  extern "C" ret pmpi_##name##_ params

/// A Fortran INTEGER (and LOGICAL, and handle).
using F = MPI_Fint;
/// The hidden length gfortran passes for a CHARACTER argument.
using FLen = std::size_t;

/// MPI_STATUS_SIZE: a Fortran status is an INTEGER array laid out as MPI_Status.
constexpr int kStatusSize = sizeof(MPI_Status) / sizeof(F);
static_assert(sizeof(MPI_Status) == kStatusSize * sizeof(F), "MPI_Status must be a whole number of INTEGERs");
static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 && offsetof(MPI_Status, MPI_TAG) == sizeof(F) &&
                  offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(F),
              "mpif.h's MPI_SOURCE, MPI_TAG, MPI_ERROR are status indices 1, 2, 3");

// The Fortran special addresses, one COMMON block each (mpif.h), recognised
// by address: MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE.
extern "C" {
extern F mpi_fortran_bottom_;
extern F mpi_fortran_in_place_;
extern F mpi_fortran_status_ignore_[kStatusSize];
extern F mpi_fortran_statuses_ignore_[kStatusSize];
extern F mpi_fortran_unweighted_;
extern F mpi_fortran_weights_empty_;
}

namespace meshmp::mpi::fortran {

/// A C flag as a gfortran LOGICAL: .TRUE. is 1, .FALSE. is 0.
inline F logical(int flag) { return flag ? 1 : 0; }

/// A choice buffer: MPI_BOTTOM and MPI_IN_PLACE become C's. Fortran
/// addresses are C's (datatype.cc), so a datatype of absolute addresses
/// built in one language is sent from MPI_BOTTOM in the other (MPI-2.2
/// §16.3.6, MPI-3.1 §17.2.6: "MPI_GET_ADDRESS returns the same value in all
/// languages", and the example of R(5) passed to a C_ROUTINE).
inline const void* buffer(const void* p) {
  return p == &mpi_fortran_bottom_ ? MPI_BOTTOM : p == &mpi_fortran_in_place_ ? MPI_IN_PLACE : p;
}
inline void* buffer(void* p) { return const_cast<void*>(buffer(static_cast<const void*>(p))); }

/// A weights array: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY become C's.
inline const int* weights(const F* w) {
  return w == &mpi_fortran_unweighted_ ? MPI_UNWEIGHTED : w == &mpi_fortran_weights_empty_ ? MPI_WEIGHTS_EMPTY : w;
}
inline int* weights(F* w) { return const_cast<int*>(weights(static_cast<const F*>(w))); }

/// A 0-based C index (or MPI_UNDEFINED) as a 1-based Fortran one (§3.7.5:
/// indices into request arrays are Fortran indices in Fortran).
inline F fortran_index(int i) { return i >= 0 ? i + 1 : i; }

/// An output status array STATUSES(MPI_STATUS_SIZE, n) seen as n MPI_Status
/// (the same bytes): used in place when aligned for MPI_Status, else copied
/// in and back. MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE become C's.
class Statuses {
 public:
  Statuses(F* f, int n);
  ~Statuses();
  Statuses(const Statuses&) = delete;
  Statuses& operator=(const Statuses&) = delete;
  MPI_Status* get() { return c_; }

 private:
  F* f_;
  std::size_t n_;
  MPI_Status* c_;
  MPI_Status one_;           // the copy for one misaligned status
  MPI_Status* heap_ = nullptr;  // the copy for several
};

/// An input status (MPI_GET_COUNT, MPI_TEST_CANCELLED) as an MPI_Status.
inline MPI_Status status_in(const F* f) {
  MPI_Status s;
  std::memcpy(&s, f, sizeof s);
  return s;
}

/// A CHARACTER*(*) argument as a C string, trailing blanks dropped.
std::string from_fortran(const char* f, FLen len);
/// Copies a C string into a CHARACTER*(len) argument, blank-padded.
void to_fortran(const char* s, char* f, FLen len);

}  // namespace meshmp::mpi::fortran
