// How a datatype was made, asked back (MPI-2.2 §4.1.13): MPI_Type_get_envelope
// gives the combiner and how many integer, address and datatype arguments
// its constructor took; MPI_Type_get_contents gives those arguments. Every
// constructor records them (Envelope, mpi11/internal.h).
#include <algorithm>
#include <memory>
#include <string>

#include "mpi11/internal.h"

using namespace meshmp;
using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Type_get_envelope, (MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes, int* combiner)) {
  const char* call = "MPI_Type_get_envelope";
  const TypeInfo* t = type_info(datatype);
  if (!t) return raise(MPI_COMM_NULL, call, MPI_ERR_TYPE, "datatype is not a valid datatype");
  if (!num_integers || !num_addresses || !num_datatypes || !combiner)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "an output argument is NULL");
  const Envelope& e = t->envelope;
  *num_integers = static_cast<int>(e.ints.size());
  *num_addresses = static_cast<int>(e.aints.size());
  *num_datatypes = static_cast<int>(e.types.size());
  *combiner = e.combiner;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_get_envelope)

// The datatypes come back as the standard says: a predefined one as itself,
// a derived one as a new handle (a copy of the type as it was when passed)
// that the program frees.
MESHMP_MPI_FN(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int* array_of_integers, MPI_Aint* array_of_addresses, MPI_Datatype* array_of_datatypes)) {
  const char* call = "MPI_Type_get_contents";
  const TypeInfo* t = type_info(datatype);
  if (!t) return raise(MPI_COMM_NULL, call, MPI_ERR_TYPE, "datatype is not a valid datatype");
  const Envelope& e = t->envelope;
  if (e.combiner == MPI_COMBINER_NAMED)
    return raise(MPI_COMM_NULL, call, MPI_ERR_TYPE, "datatype is predefined (MPI_COMBINER_NAMED): it has no contents");
  auto fits = [](int max, std::size_t n, const void* a) { return max >= 0 && static_cast<std::size_t>(max) >= n && (n == 0 || a); };
  if (!fits(max_integers, e.ints.size(), array_of_integers) ||
      !fits(max_addresses, e.aints.size(), array_of_addresses) ||
      !fits(max_datatypes, e.types.size(), array_of_datatypes))
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                 "the arrays take fewer than MPI_Type_get_envelope's counts (" + std::to_string(e.ints.size()) + ", " +
                     std::to_string(e.aints.size()) + ", " + std::to_string(e.types.size()) + ")");
  std::copy(e.ints.begin(), e.ints.end(), array_of_integers);
  std::copy(e.aints.begin(), e.aints.end(), array_of_addresses);
  for (std::size_t i = 0; i < e.types.size(); ++i) {
    const TypeInfo& was = *e.kept[i];
    if (was.predefined) {
      array_of_datatypes[i] = e.types[i];
      continue;
    }
    auto copy = std::make_shared<TypeInfo>(was);
    copy->in_use = true;
    copy->attributes.clear();  // a new object: no attributes
    array_of_datatypes[i] = g_types.add(std::move(copy));
  }
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_get_contents)
