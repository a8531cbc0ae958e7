// MPI-3.1's large-count datatype queries (§4.1.5, §4.1.7, §4.1.8: MPI_Count
// sizes, bounds and element counts), the setters a library fills a status
// with (MPI-2.2 §12.3: MPI_Status_set_elements(_x), MPI_Status_set_cancelled)
// and MPI_Type_match_size (MPI-2.2 §16.2.5).
#include <string>

#include "mpi11/internal.h"

using namespace meshmp;
using namespace meshmp::mpi;

namespace {

// The bytes a status must hold for `count` elements of t to be read back by
// MPI_Get_elements: whole instances, then the first elements of one more
// where the type is made of one basic type.
int bytes_for(const char* call, const TypeInfo& t, MPI_Count count, long long* bytes) {
  if (count < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_COUNT, "count = " + std::to_string(count) + " is negative");
  if (t.elements == 0 || t.size == 0) {
    *bytes = 0;
    return MPI_SUCCESS;
  }
  const MPI_Count whole = count / static_cast<MPI_Count>(t.elements);
  const MPI_Count rest = count % static_cast<MPI_Count>(t.elements);
  if (rest && !(t.uniform && type_info(t.uniform)))
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                 "count = " + std::to_string(count) + " is not a whole number of instances of a type of mixed elements");
  *bytes = whole * static_cast<MPI_Count>(t.size) +
           (rest ? rest * static_cast<MPI_Count>(type_info(t.uniform)->size) : 0);
  return MPI_SUCCESS;
}

}  // namespace

MESHMP_MPI_FN(int, Type_size_x, (MPI_Datatype datatype, MPI_Count* size)) {
  if (int err = check_type(MPI_COMM_NULL, "MPI_Type_size_x", datatype)) return err;
  if (!size) return raise(MPI_COMM_NULL, "MPI_Type_size_x", MPI_ERR_ARG, "size is NULL");
  *size = static_cast<MPI_Count>(type_info(datatype)->size);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_size_x)

MESHMP_MPI_FN(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent)) {
  MPI_Aint l, e;
  if (int err = PMPI_Type_get_extent(datatype, &l, &e)) return err;
  if (!lb || !extent) return raise(MPI_COMM_NULL, "MPI_Type_get_extent_x", MPI_ERR_ARG, "lb or extent is NULL");
  *lb = l, *extent = e;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_get_extent_x)

MESHMP_MPI_FN(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent)) {
  MPI_Aint l, e;
  if (int err = PMPI_Type_get_true_extent(datatype, &l, &e)) return err;
  if (!true_lb || !true_extent)
    return raise(MPI_COMM_NULL, "MPI_Type_get_true_extent_x", MPI_ERR_ARG, "true_lb or true_extent is NULL");
  *true_lb = l, *true_extent = e;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_get_true_extent_x)

MESHMP_MPI_FN(int, Get_elements_x, (const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count)) {
  if (int err = check_type(MPI_COMM_NULL, "MPI_Get_elements_x", datatype)) return err;
  if (!status || !count) return raise(MPI_COMM_NULL, "MPI_Get_elements_x", MPI_ERR_ARG, "status or count is NULL");
  const std::size_t n = elements_in(*type_info(datatype), static_cast<std::size_t>(status->meshmp_bytes));
  *count = n == static_cast<std::size_t>(-1) ? MPI_UNDEFINED : static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Get_elements_x)

namespace {
int set_elements(const char* call, MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  if (int err = check_type(MPI_COMM_NULL, call, datatype)) return err;
  if (!status) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "status is NULL");
  long long bytes = 0;
  if (int err = bytes_for(call, *type_info(datatype), count, &bytes)) return err;
  status->meshmp_bytes = bytes;
  return MPI_SUCCESS;
}
}  // namespace

MESHMP_MPI_FN(int, Status_set_elements_x, (MPI_Status* status, MPI_Datatype datatype, MPI_Count count)) {
  return set_elements("MPI_Status_set_elements_x", status, datatype, count);
} MESHMP_MPI_END(Status_set_elements_x)

MESHMP_MPI_FN(int, Status_set_elements, (MPI_Status* status, MPI_Datatype datatype, int count)) {
  return set_elements("MPI_Status_set_elements", status, datatype, count);
} MESHMP_MPI_END(Status_set_elements)

MESHMP_MPI_FN(int, Status_set_cancelled, (MPI_Status* status, int flag)) {
  if (!status) return raise(MPI_COMM_NULL, "MPI_Status_set_cancelled", MPI_ERR_ARG, "status is NULL");
  status->meshmp_cancelled = flag != 0;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Status_set_cancelled)

MESHMP_MPI_FN(int, Type_match_size, (int typeclass, int size, MPI_Datatype* datatype)) {
  const char* call = "MPI_Type_match_size";
  if (!datatype) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "datatype is NULL");
  MPI_Datatype t = MPI_DATATYPE_NULL;
  switch (typeclass) {
    case MPI_TYPECLASS_INTEGER:
      t = size == 1 ? MPI_INTEGER1 : size == 2 ? MPI_INTEGER2 : size == 4 ? MPI_INTEGER4 : size == 8 ? MPI_INTEGER8
          : size == 16 ? MPI_INTEGER16 : MPI_DATATYPE_NULL;
      break;
    case MPI_TYPECLASS_REAL:
      t = size == 4 ? MPI_REAL4 : size == 8 ? MPI_REAL8 : size == 16 ? MPI_REAL16 : MPI_DATATYPE_NULL;
      break;
    case MPI_TYPECLASS_COMPLEX:
      t = size == 8 ? MPI_COMPLEX : size == 16 ? MPI_DOUBLE_COMPLEX : size == 32 ? MPI_COMPLEX32 : MPI_DATATYPE_NULL;
      break;
    default:
      return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "typeclass = " + std::to_string(typeclass) + " is not an MPI_TYPECLASS_");
  }
  if (t == MPI_DATATYPE_NULL)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "no type of that class has " + std::to_string(size) + " bytes");
  *datatype = t;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_match_size)
