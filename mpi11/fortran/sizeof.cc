// The specifics of the `mpi` module's generic MPI_SIZEOF (MPI-3.1 §17.1.9;
// mpi_module.f90): each writes the bytes of one element of its type and kind
// as gfortran stores it (COMPLEX(k) is two REAL(k); REAL(10), x87
// extended, takes 16 bytes) and MPI_SUCCESS. The variable itself, passed
// as gfortran's descriptor of an assumed-rank array, is not read.
#include "mpi11/fortran/fortran.h"

#define MESHMP_SIZEOF(name, bytes)                                      \
  extern "C" void meshmp_sizeof_##name##_(const void*, F* size, F* ierror); \
  extern "C" void meshmp_sizeof_##name##_(const void*, F* size, F* ierror) { \
    *size = bytes;                                                      \
    *ierror = MPI_SUCCESS;                                              \
  }

MESHMP_SIZEOF(integer1, 1)
MESHMP_SIZEOF(integer2, 2)
MESHMP_SIZEOF(integer4, 4)
MESHMP_SIZEOF(integer8, 8)
MESHMP_SIZEOF(integer16, 16)
MESHMP_SIZEOF(real4, 4)
MESHMP_SIZEOF(real8, 8)
MESHMP_SIZEOF(real10, 16)
MESHMP_SIZEOF(real16, 16)
MESHMP_SIZEOF(complex4, 8)
MESHMP_SIZEOF(complex8, 16)
MESHMP_SIZEOF(complex10, 32)
MESHMP_SIZEOF(complex16, 32)
MESHMP_SIZEOF(logical1, 1)
MESHMP_SIZEOF(logical2, 2)
MESHMP_SIZEOF(logical4, 4)
MESHMP_SIZEOF(logical8, 8)
// CHARACTER: one character; the length is the variable's, not the element's.
extern "C" void meshmp_sizeof_character_(const void*, F* size, F* ierror, FLen);
extern "C" void meshmp_sizeof_character_(const void*, F* size, F* ierror, FLen) {
  *size = 1;
  *ierror = MPI_SUCCESS;
}
