// Writes mpif.h, the Fortran 77 header of meshmp's MPI (MPI-1.1 §2.4, Annex
// A.4), to standard output. The values are taken from mpi.h at build time, so
// the two headers cannot disagree.
//
// The output is valid both as fixed-form and as free-form source (every line
// starts in column 7 or is a "!" comment in column 1, none is longer than 72
// columns, none is continued), so mpif77 and mpif90 programs include the same
// file, and the installer compiles it into the `mpi` module.
#include <cstdio>
#include <cstring>

#include "mpi11/fortran/fortran.h"

namespace {

struct Constant {
  const char* name;
  long value;
};
#define C(name) {#name, static_cast<long>(name)}

const Constant kConstants[] = {
    {"MPI_VERSION", MPI_VERSION}, {"MPI_SUBVERSION", MPI_SUBVERSION},
    // error classes (§7.4)
    C(MPI_SUCCESS), C(MPI_ERR_BUFFER), C(MPI_ERR_COUNT), C(MPI_ERR_TYPE), C(MPI_ERR_TAG), C(MPI_ERR_COMM),
    C(MPI_ERR_RANK), C(MPI_ERR_REQUEST), C(MPI_ERR_ROOT), C(MPI_ERR_GROUP), C(MPI_ERR_OP), C(MPI_ERR_TOPOLOGY),
    C(MPI_ERR_DIMS), C(MPI_ERR_ARG), C(MPI_ERR_UNKNOWN), C(MPI_ERR_TRUNCATE), C(MPI_ERR_OTHER), C(MPI_ERR_INTERN),
    C(MPI_ERR_IN_STATUS), C(MPI_ERR_PENDING), C(MPI_ERR_NO_MEM), C(MPI_ERR_INFO), C(MPI_ERR_INFO_KEY),
    C(MPI_ERR_INFO_VALUE), C(MPI_ERR_INFO_NOKEY), C(MPI_ERR_LASTCODE),
    C(MPI_ERR_ACCESS), C(MPI_ERR_AMODE), C(MPI_ERR_ASSERT), C(MPI_ERR_BAD_FILE),
    C(MPI_ERR_BASE), C(MPI_ERR_CONVERSION), C(MPI_ERR_DISP), C(MPI_ERR_DUP_DATAREP),
    C(MPI_ERR_FILE_EXISTS), C(MPI_ERR_FILE_IN_USE), C(MPI_ERR_FILE), C(MPI_ERR_IO),
    C(MPI_ERR_KEYVAL), C(MPI_ERR_LOCKTYPE), C(MPI_ERR_NAME), C(MPI_ERR_NOT_SAME),
    C(MPI_ERR_NO_SPACE), C(MPI_ERR_NO_SUCH_FILE), C(MPI_ERR_PORT), C(MPI_ERR_QUOTA),
    C(MPI_ERR_READ_ONLY), C(MPI_ERR_RMA_ATTACH), C(MPI_ERR_RMA_CONFLICT), C(MPI_ERR_RMA_RANGE),
    C(MPI_ERR_RMA_SHARED), C(MPI_ERR_RMA_SYNC), C(MPI_ERR_RMA_FLAVOR), C(MPI_ERR_SERVICE),
    C(MPI_ERR_SIZE), C(MPI_ERR_SPAWN), C(MPI_ERR_UNSUPPORTED_DATAREP), C(MPI_ERR_UNSUPPORTED_OPERATION),
    C(MPI_ERR_WIN),
    // special values and sizes
    C(MPI_PROC_NULL), C(MPI_ANY_SOURCE), C(MPI_ROOT), C(MPI_ANY_TAG), C(MPI_UNDEFINED), C(MPI_BSEND_OVERHEAD),
    C(MPI_MAX_PROCESSOR_NAME), C(MPI_MAX_ERROR_STRING), C(MPI_MAX_OBJECT_NAME), C(MPI_IDENT), C(MPI_CONGRUENT),
    C(MPI_SIMILAR), C(MPI_UNEQUAL), C(MPI_CART), C(MPI_GRAPH), C(MPI_DIST_GRAPH), C(MPI_THREAD_SINGLE), C(MPI_THREAD_FUNNELED),
    C(MPI_THREAD_SERIALIZED), C(MPI_THREAD_MULTIPLE), C(MPI_KEYVAL_INVALID), C(MPI_TAG_UB), C(MPI_HOST), C(MPI_IO),
    C(MPI_WTIME_IS_GLOBAL), C(MPI_LASTUSEDCODE), C(MPI_UNIVERSE_SIZE), C(MPI_APPNUM),
    // null handles and predefined objects
    C(MPI_COMM_NULL), C(MPI_COMM_WORLD), C(MPI_COMM_SELF), C(MPI_REQUEST_NULL), C(MPI_GROUP_NULL),
    C(MPI_GROUP_EMPTY), C(MPI_INFO_NULL), C(MPI_INFO_ENV), C(MPI_MAX_INFO_KEY), C(MPI_MAX_INFO_VAL),
    C(MPI_COMM_TYPE_SHARED), C(MPI_MAX_LIBRARY_VERSION_STRING), C(MPI_MESSAGE_NULL), C(MPI_MESSAGE_NO_PROC), C(MPI_ERRHANDLER_NULL), C(MPI_ERRORS_ARE_FATAL), C(MPI_ERRORS_RETURN),
    C(MPI_OP_NULL), C(MPI_MAX), C(MPI_MIN), C(MPI_SUM), C(MPI_PROD), C(MPI_LAND), C(MPI_BAND), C(MPI_LOR),
    C(MPI_BOR), C(MPI_LXOR), C(MPI_BXOR), C(MPI_MAXLOC), C(MPI_MINLOC),
    // datatypes: Fortran's (§3.2.2), then the C ones a Fortran program may
    // name when it talks to C
    C(MPI_DATATYPE_NULL), C(MPI_INTEGER), C(MPI_REAL), C(MPI_DOUBLE_PRECISION), C(MPI_COMPLEX),
    C(MPI_DOUBLE_COMPLEX), C(MPI_LOGICAL), C(MPI_CHARACTER), C(MPI_BYTE), C(MPI_PACKED), C(MPI_LB), C(MPI_UB),
    C(MPI_2REAL), C(MPI_2DOUBLE_PRECISION), C(MPI_2INTEGER), C(MPI_2COMPLEX), C(MPI_2DOUBLE_COMPLEX), C(MPI_INTEGER1), C(MPI_INTEGER2), C(MPI_INTEGER4),
    C(MPI_INTEGER8), C(MPI_INTEGER16), C(MPI_REAL4), C(MPI_REAL8), C(MPI_REAL16), C(MPI_COMPLEX8), C(MPI_COMPLEX16),
    C(MPI_COMPLEX32), C(MPI_CHAR), C(MPI_SIGNED_CHAR), C(MPI_UNSIGNED_CHAR),
    C(MPI_WCHAR), C(MPI_SHORT), C(MPI_UNSIGNED_SHORT), C(MPI_INT), C(MPI_UNSIGNED), C(MPI_LONG),
    C(MPI_UNSIGNED_LONG), C(MPI_LONG_LONG_INT), C(MPI_LONG_LONG), C(MPI_UNSIGNED_LONG_LONG), C(MPI_FLOAT),
    C(MPI_DOUBLE), C(MPI_LONG_DOUBLE), C(MPI_FLOAT_INT), C(MPI_DOUBLE_INT), C(MPI_LONG_INT), C(MPI_SHORT_INT),
    C(MPI_2INT), C(MPI_LONG_DOUBLE_INT), C(MPI_INT8_T), C(MPI_INT16_T), C(MPI_INT32_T), C(MPI_INT64_T),
    C(MPI_UINT8_T), C(MPI_UINT16_T), C(MPI_UINT32_T), C(MPI_UINT64_T), C(MPI_C_BOOL), C(MPI_C_FLOAT_COMPLEX),
    C(MPI_C_COMPLEX), C(MPI_C_DOUBLE_COMPLEX), C(MPI_C_LONG_DOUBLE_COMPLEX), C(MPI_AINT), C(MPI_OFFSET), C(MPI_COUNT),
    C(MPI_TYPECLASS_REAL), C(MPI_TYPECLASS_INTEGER), C(MPI_TYPECLASS_COMPLEX),
    C(MPI_COMBINER_NAMED), C(MPI_COMBINER_DUP), C(MPI_COMBINER_CONTIGUOUS), C(MPI_COMBINER_VECTOR),
    C(MPI_COMBINER_HVECTOR_INTEGER), C(MPI_COMBINER_HVECTOR), C(MPI_COMBINER_INDEXED),
    C(MPI_COMBINER_HINDEXED_INTEGER), C(MPI_COMBINER_HINDEXED), C(MPI_COMBINER_INDEXED_BLOCK),
    C(MPI_COMBINER_STRUCT_INTEGER), C(MPI_COMBINER_STRUCT), C(MPI_COMBINER_SUBARRAY), C(MPI_COMBINER_DARRAY),
    C(MPI_COMBINER_F90_REAL), C(MPI_COMBINER_F90_COMPLEX), C(MPI_COMBINER_F90_INTEGER), C(MPI_COMBINER_RESIZED),
    C(MPI_COMBINER_HINDEXED_BLOCK), C(MPI_ORDER_C), C(MPI_ORDER_FORTRAN), C(MPI_DISTRIBUTE_BLOCK),
    C(MPI_DISTRIBUTE_CYCLIC), C(MPI_DISTRIBUTE_NONE), C(MPI_DISTRIBUTE_DFLT_DARG),
    // Fortran only: the status array and the MPI-2 integer kinds
    {"MPI_STATUS_SIZE", kStatusSize},
    {"MPI_SOURCE", offsetof(MPI_Status, MPI_SOURCE) / sizeof(F) + 1},
    {"MPI_TAG", offsetof(MPI_Status, MPI_TAG) / sizeof(F) + 1},
    {"MPI_ERROR", offsetof(MPI_Status, MPI_ERROR) / sizeof(F) + 1},
    {"MPI_ADDRESS_KIND", sizeof(MPI_Aint)},
    {"MPI_OFFSET_KIND", sizeof(long long)},
    {"MPI_COUNT_KIND", sizeof(MPI_Count)},
    {"MPI_INTEGER_KIND", sizeof(F)},
};
#undef C

void line(const char* text) {
  if (std::strlen(text) > 72) {
    std::fprintf(stderr, "gen_mpif: line longer than 72 columns: %s\n", text);
    std::exit(1);
  }
  std::printf("%s\n", text);
}

}  // namespace

int main() {
  line("! mpif.h -- meshmp's MPI-1.1 Fortran header (generated from mpi.h).");
  line("! Fixed- and free-form source alike; INCLUDE 'mpif.h' in each unit.");
  char buf[128];
  for (const Constant& c : kConstants) {
    std::snprintf(buf, sizeof buf, "      INTEGER %s", c.name);
    line(buf);
    std::snprintf(buf, sizeof buf, "      PARAMETER (%s=%ld)", c.name, c.value);
    line(buf);
  }
  // The special addresses (fortran.h): one COMMON block each, recognised by
  // the library by address.
  line("      INTEGER MPI_BOTTOM, MPI_IN_PLACE");
  line("      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)");
  line("      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)");
  line("      COMMON /MPI_FORTRAN_BOTTOM/ MPI_BOTTOM");
  line("      COMMON /MPI_FORTRAN_IN_PLACE/ MPI_IN_PLACE");
  line("      COMMON /MPI_FORTRAN_STATUS_IGNORE/ MPI_STATUS_IGNORE");
  line("      COMMON /MPI_FORTRAN_STATUSES_IGNORE/ MPI_STATUSES_IGNORE");
  line("      SAVE /MPI_FORTRAN_BOTTOM/, /MPI_FORTRAN_IN_PLACE/");
  line("      SAVE /MPI_FORTRAN_STATUS_IGNORE/");
  line("      SAVE /MPI_FORTRAN_STATUSES_IGNORE/");
  line("      INTEGER MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY");
  line("      COMMON /MPI_FORTRAN_UNWEIGHTED/ MPI_UNWEIGHTED");
  line("      COMMON /MPI_FORTRAN_WEIGHTS_EMPTY/ MPI_WEIGHTS_EMPTY");
  line("      SAVE /MPI_FORTRAN_UNWEIGHTED/, /MPI_FORTRAN_WEIGHTS_EMPTY/");
  // The functions that return a value, and the predefined callbacks.
  line("      DOUBLE PRECISION MPI_WTIME, MPI_WTICK");
  line("      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK");
  line("      EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK");
  line("      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF");
  line("      INTEGER(KIND=MPI_ADDRESS_KIND) PMPI_AINT_ADD, PMPI_AINT_DIFF");
  line("      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF");
  line("      EXTERNAL PMPI_AINT_ADD, PMPI_AINT_DIFF");
  line("      EXTERNAL MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN");
  line("      EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN");
  line("      EXTERNAL MPI_COMM_NULL_DELETE_FN");
  line("      EXTERNAL MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN");
  line("      EXTERNAL MPI_TYPE_NULL_DELETE_FN");
  return 0;
}
