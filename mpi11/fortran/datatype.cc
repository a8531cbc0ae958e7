// Fortran bindings of derived datatypes and packing (MPI-1.1 §3.12-3.13) and
// their MPI-2 forms. MPI-1's Fortran addresses, extents and displacements are
// INTEGERs (MPI_TYPE_HVECTOR's stride, MPI_TYPE_STRUCT's displacements,
// MPI_ADDRESS, MPI_TYPE_EXTENT); the MPI-2 calls take
// INTEGER(KIND=MPI_ADDRESS_KIND), which is MPI_Aint.
//
// A Fortran address is C's, the location's own address: MPI_GET_ADDRESS
// returns the same value in all languages (MPI-2.2 §16.3.6), and MPI_BOTTOM
// as a buffer is C's (fortran.h), so a type of absolute addresses built in
// either language is sent from MPI_BOTTOM in either. MPI-1's MPI_ADDRESS
// returns it as an INTEGER, and MPI_ERR_ARG where it does not fit (on x86-64
// Linux, where programs are position-independent, it never does: such
// programs call MPI_GET_ADDRESS, as with MPICH).
#include <climits>
#include <string>
#include <vector>

#include "mpi11/fortran/fortran.h"
#include "mpi11/internal.h"

using namespace meshmp::mpi;
using namespace meshmp::mpi::fortran;

namespace {

// MPI_BOTTOM's own address is address 0, as in C.
MPI_Aint address_of(const void* location) {
  return location == &mpi_fortran_bottom_ ? 0 : reinterpret_cast<MPI_Aint>(location);
}

// An MPI_Aint result of an MPI-1 call as INTEGER; MPI_ERR_ARG if it does not fit.
int to_integer(MPI_Aint v, F* out, const char* call, const char* what) {
  if (v < INT_MIN || v > INT_MAX)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                 std::string(what) + " " + std::to_string(v) + " does not fit in a Fortran INTEGER (use the MPI-2 call " +
                     "with INTEGER(KIND=MPI_ADDRESS_KIND))");
  *out = static_cast<F>(v);
  return MPI_SUCCESS;
}

std::vector<MPI_Aint> widen(const F* v, int n) { return n > 0 ? std::vector<MPI_Aint>(v, v + n) : std::vector<MPI_Aint>{}; }

}  // namespace

MESHMP_FORTRAN_FN(void, type_contiguous, (const F* count, const F* oldtype, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_contiguous(*count, *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_vector, (const F* count, const F* blocklength, const F* stride, const F* oldtype,
                                      F* newtype, F* ierror)) {
  *ierror = PMPI_Type_vector(*count, *blocklength, *stride, *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_hvector, (const F* count, const F* blocklength, const F* stride, const F* oldtype,
                                       F* newtype, F* ierror)) {
  *ierror = PMPI_Type_hvector(*count, *blocklength, *stride, *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_indexed, (const F* count, const F* blocklengths, const F* displacements,
                                       const F* oldtype, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_indexed(*count, blocklengths, displacements, *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_hindexed, (const F* count, const F* blocklengths, const F* displacements,
                                        const F* oldtype, F* newtype, F* ierror)) {
  const std::vector<MPI_Aint> d = widen(displacements, *count);
  *ierror = PMPI_Type_hindexed(*count, blocklengths, d.data(), *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_struct, (const F* count, const F* blocklengths, const F* displacements,
                                      const F* types, F* newtype, F* ierror)) {
  const std::vector<MPI_Aint> d = widen(displacements, *count);
  *ierror = PMPI_Type_struct(*count, blocklengths, d.data(), types, newtype);
}
MESHMP_FORTRAN_FN(void, type_commit, (F* datatype, F* ierror)) { *ierror = PMPI_Type_commit(datatype); }
MESHMP_FORTRAN_FN(void, type_free, (F* datatype, F* ierror)) { *ierror = PMPI_Type_free(datatype); }
MESHMP_FORTRAN_FN(void, type_size, (const F* datatype, F* size, F* ierror)) {
  *ierror = PMPI_Type_size(*datatype, size);
}

// MPI_TYPE_EXTENT / _LB / _UB (DATATYPE, INTEGER RESULT, IERROR)
#define MESHMP_F_TYPE_BOUND(name, Name)                                                \
  MESHMP_FORTRAN_FN(void, name, (const F* datatype, F* result, F* ierror)) {           \
    MPI_Aint v = 0;                                                                    \
    *ierror = PMPI_##Name(*datatype, &v);                                              \
    if (*ierror == MPI_SUCCESS) *ierror = to_integer(v, result, "MPI_" #Name, "the value"); \
  }
MESHMP_F_TYPE_BOUND(type_extent, Type_extent)
MESHMP_F_TYPE_BOUND(type_lb, Type_lb)
MESHMP_F_TYPE_BOUND(type_ub, Type_ub)

MESHMP_FORTRAN_FN(void, address, (const void* location, F* address, F* ierror)) {
  *ierror = to_integer(address_of(location), address, "MPI_Address", "the address");
}
MESHMP_FORTRAN_FN(void, get_address, (const void* location, MPI_Aint* address, F* ierror)) {
  *address = address_of(location);
  *ierror = MPI_SUCCESS;
}

// INTEGER(KIND=MPI_ADDRESS_KIND) FUNCTION MPI_AINT_ADD(BASE, DISP), and
// MPI_AINT_DIFF(ADDR1, ADDR2) (MPI-3.1 §4.1.12)
MESHMP_FORTRAN_FN(MPI_Aint, aint_add, (const MPI_Aint* base, const MPI_Aint* disp)) {
  return PMPI_Aint_add(*base, *disp);
}
MESHMP_FORTRAN_FN(MPI_Aint, aint_diff, (const MPI_Aint* addr1, const MPI_Aint* addr2)) {
  return PMPI_Aint_diff(*addr1, *addr2);
}

MESHMP_FORTRAN_FN(void, pack, (const void* inbuf, const F* incount, const F* datatype, void* outbuf,
                               const F* outsize, F* position, const F* comm, F* ierror)) {
  *ierror = PMPI_Pack(buffer(inbuf), *incount, *datatype, buffer(outbuf), *outsize, position, *comm);
}
MESHMP_FORTRAN_FN(void, unpack, (const void* inbuf, const F* insize, F* position, void* outbuf,
                                 const F* outcount, const F* datatype, const F* comm, F* ierror)) {
  *ierror = PMPI_Unpack(buffer(inbuf), *insize, position, buffer(outbuf), *outcount, *datatype, *comm);
}
MESHMP_FORTRAN_FN(void, pack_size, (const F* incount, const F* datatype, const F* comm, F* size, F* ierror)) {
  *ierror = PMPI_Pack_size(*incount, *datatype, *comm, size);
}

// MPI-2 forms, with INTEGER(KIND=MPI_ADDRESS_KIND) addresses.
MESHMP_FORTRAN_FN(void, type_create_hvector, (const F* count, const F* blocklength, const MPI_Aint* stride,
                                              const F* oldtype, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_hvector(*count, *blocklength, *stride, *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_create_hindexed, (const F* count, const F* blocklengths, const MPI_Aint* displacements,
                                               const F* oldtype, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_hindexed(*count, blocklengths, displacements, *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_create_indexed_block, (const F* count, const F* blocklength, const F* displacements,
                                                    const F* oldtype, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_indexed_block(*count, *blocklength, displacements, *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_create_hindexed_block, (const F* count, const F* blocklength,
                                                     const MPI_Aint* displacements, const F* oldtype, F* newtype,
                                                     F* ierror)) {
  *ierror = PMPI_Type_create_hindexed_block(*count, *blocklength, displacements, *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_dup, (const F* oldtype, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_dup(*oldtype, newtype);
}
// MPI-2.2 §4.1.3-4.1.4: the array types (MPI_ORDER_FORTRAN is what a
// Fortran program's arrays are).
MESHMP_FORTRAN_FN(void, type_create_subarray, (const F* ndims, const F* sizes, const F* subsizes, const F* starts,
                                               const F* order, const F* oldtype, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_subarray(*ndims, sizes, subsizes, starts, *order, *oldtype, newtype);
}
MESHMP_FORTRAN_FN(void, type_create_darray, (const F* size, const F* rank, const F* ndims, const F* gsizes,
                                             const F* distribs, const F* dargs, const F* psizes, const F* order,
                                             const F* oldtype, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_darray(*size, *rank, *ndims, gsizes, distribs, dargs, psizes, *order, *oldtype, newtype);
}
// MPI-2.2 §4.1.13; the addresses are INTEGER(KIND=MPI_ADDRESS_KIND).
MESHMP_FORTRAN_FN(void, type_get_envelope, (const F* datatype, F* num_integers, F* num_addresses, F* num_datatypes,
                                            F* combiner, F* ierror)) {
  *ierror = PMPI_Type_get_envelope(*datatype, num_integers, num_addresses, num_datatypes, combiner);
}
MESHMP_FORTRAN_FN(void, type_get_contents, (const F* datatype, const F* max_integers, const F* max_addresses,
                                            const F* max_datatypes, F* integers, MPI_Aint* addresses, F* datatypes,
                                            F* ierror)) {
  *ierror = PMPI_Type_get_contents(*datatype, *max_integers, *max_addresses, *max_datatypes, integers, addresses,
                                   datatypes);
}
MESHMP_FORTRAN_FN(void, type_create_struct, (const F* count, const F* blocklengths, const MPI_Aint* displacements,
                                             const F* types, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_struct(*count, blocklengths, displacements, types, newtype);
}
MESHMP_FORTRAN_FN(void, type_create_resized, (const F* oldtype, const MPI_Aint* lb, const MPI_Aint* extent,
                                              F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_resized(*oldtype, *lb, *extent, newtype);
}
MESHMP_FORTRAN_FN(void, type_get_extent, (const F* datatype, MPI_Aint* lb, MPI_Aint* extent, F* ierror)) {
  *ierror = PMPI_Type_get_extent(*datatype, lb, extent);
}
MESHMP_FORTRAN_FN(void, type_get_true_extent, (const F* datatype, MPI_Aint* true_lb, MPI_Aint* true_extent,
                                               F* ierror)) {
  *ierror = PMPI_Type_get_true_extent(*datatype, true_lb, true_extent);
}
MESHMP_FORTRAN_FN(void, type_get_name, (const F* datatype, char* name, F* resultlen, F* ierror, FLen name_len)) {
  char c[MPI_MAX_OBJECT_NAME] = {};
  *ierror = PMPI_Type_get_name(*datatype, c, resultlen);
  if (*ierror == MPI_SUCCESS) to_fortran(c, name, name_len);
}
MESHMP_FORTRAN_FN(void, type_set_name, (const F* datatype, const char* name, F* ierror, FLen name_len)) {
  *ierror = PMPI_Type_set_name(*datatype, from_fortran(name, name_len).c_str());
}

MESHMP_FORTRAN_FN(void, type_match_size, (const F* typeclass, const F* size, F* datatype, F* ierror)) {
  *ierror = PMPI_Type_match_size(*typeclass, *size, datatype);
}
MESHMP_FORTRAN_FN(void, type_create_f90_real, (const F* p, const F* r, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_f90_real(*p, *r, newtype);
}
MESHMP_FORTRAN_FN(void, type_create_f90_complex, (const F* p, const F* r, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_f90_complex(*p, *r, newtype);
}
MESHMP_FORTRAN_FN(void, type_create_f90_integer, (const F* r, F* newtype, F* ierror)) {
  *ierror = PMPI_Type_create_f90_integer(*r, newtype);
}

// MPI-3.1's MPI_Count queries (INTEGER(KIND=MPI_COUNT_KIND)) and the status
// setters of MPI-2.2 §12.3, whose STATUS is read and written.
MESHMP_FORTRAN_FN(void, type_size_x, (const F* datatype, MPI_Count* size, F* ierror)) {
  *ierror = PMPI_Type_size_x(*datatype, size);
}
MESHMP_FORTRAN_FN(void, type_get_extent_x, (const F* datatype, MPI_Count* lb, MPI_Count* extent, F* ierror)) {
  *ierror = PMPI_Type_get_extent_x(*datatype, lb, extent);
}
MESHMP_FORTRAN_FN(void, type_get_true_extent_x, (const F* datatype, MPI_Count* true_lb, MPI_Count* true_extent,
                                                 F* ierror)) {
  *ierror = PMPI_Type_get_true_extent_x(*datatype, true_lb, true_extent);
}
MESHMP_FORTRAN_FN(void, get_elements_x, (const F* status, const F* datatype, MPI_Count* count, F* ierror)) {
  const MPI_Status s = status_in(status);
  *ierror = PMPI_Get_elements_x(&s, *datatype, count);
}
MESHMP_FORTRAN_FN(void, status_set_elements, (F* status, const F* datatype, const F* count, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Status_set_elements(s.get(), *datatype, *count);
}
MESHMP_FORTRAN_FN(void, status_set_elements_x, (F* status, const F* datatype, const MPI_Count* count, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Status_set_elements_x(s.get(), *datatype, *count);
}
MESHMP_FORTRAN_FN(void, status_set_cancelled, (F* status, const F* flag, F* ierror)) {
  Statuses s(status, 1);
  *ierror = PMPI_Status_set_cancelled(s.get(), *flag != 0);
}

// MPI-2.2 §4.2: external32 packing; sizes and positions are
// INTEGER(KIND=MPI_ADDRESS_KIND), DATAREP a CHARACTER*(*).
MESHMP_FORTRAN_FN(void, pack_external, (const char* datarep, const void* inbuf, const F* incount, const F* datatype,
                                        void* outbuf, const MPI_Aint* outsize, MPI_Aint* position, F* ierror,
                                        FLen datarep_len)) {
  *ierror = PMPI_Pack_external(from_fortran(datarep, datarep_len).c_str(), buffer(inbuf), *incount, *datatype, buffer(outbuf),
                               *outsize, position);
}
MESHMP_FORTRAN_FN(void, unpack_external, (const char* datarep, const void* inbuf, const MPI_Aint* insize,
                                          MPI_Aint* position, void* outbuf, const F* outcount, const F* datatype,
                                          F* ierror, FLen datarep_len)) {
  *ierror = PMPI_Unpack_external(from_fortran(datarep, datarep_len).c_str(), buffer(inbuf), *insize, position, buffer(outbuf),
                                 *outcount, *datatype);
}
MESHMP_FORTRAN_FN(void, pack_external_size, (const char* datarep, const F* incount, const F* datatype,
                                             MPI_Aint* size, F* ierror, FLen datarep_len)) {
  *ierror = PMPI_Pack_external_size(from_fortran(datarep, datarep_len).c_str(), *incount, *datatype, size);
}
