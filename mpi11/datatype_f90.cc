// MPI_Type_create_f90_real, _complex and _integer (MPI-2.2 §16.2.5,
// "Parameterized Datatypes with Specified Precision and Exponent Range"):
// the type of a Fortran 90 REAL(KIND=SELECTED_REAL_KIND(p, r)), COMPLEX of
// that kind, or INTEGER(KIND=SELECTED_INT_KIND(r)), as gfortran chooses the
// kind (REAL 4, 8, 10 = x87 extended in 16 bytes, 16 = binary128; INTEGER
// 1, 2, 4, 8, 16). Each (combiner, p, r) gets one handle, made on the first
// call and returned again after: a predefined type (MPI_Type_free refuses
// it) whose envelope is MPI_COMBINER_F90_* with p and r (r only for
// INTEGER), whose name and data are those of the matching named type.
#include <map>
#include <string>
#include <tuple>

#include "mpi11/internal.h"

using namespace meshmp;
using namespace meshmp::mpi;

namespace {

// gfortran's REAL kinds by decimal precision and exponent range.
struct RealKind {
  int precision, range;
  MPI_Datatype real, complex;
};
constexpr RealKind kRealKinds[] = {
    {6, 37, MPI_REAL4, MPI_COMPLEX8},
    {15, 307, MPI_REAL8, MPI_COMPLEX16},
    {18, 4931, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX},  // REAL(10)
    {33, 4931, MPI_REAL16, MPI_COMPLEX32},
};
// gfortran's INTEGER kinds by decimal exponent range.
constexpr std::pair<int, MPI_Datatype> kIntegerKinds[] = {
    {2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8}, {38, MPI_INTEGER16}};

std::map<std::tuple<int, int, int>, MPI_Datatype>& made() {
  static std::map<std::tuple<int, int, int>, MPI_Datatype> m;
  return m;
}

// The handle for (combiner, p, r) of the named type `base`: made once.
int f90_type(const char* call, int combiner, int p, int r, MPI_Datatype base, MPI_Datatype* newtype) {
  if (!newtype) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "newtype is NULL");
  auto key = std::make_tuple(combiner, p, r);
  if (auto it = made().find(key); it != made().end()) {
    *newtype = it->second;
    return MPI_SUCCESS;
  }
  std::shared_ptr<TypeInfo> t = build_type({{0, 1, 1, 0, keep_type(base)}}, false);
  t->committed = t->predefined = true;
  t->name = type_info(base)->name;
  Envelope env{combiner, {}, {}, {}, {}};
  env.ints = combiner == MPI_COMBINER_F90_INTEGER ? std::vector<int>{r} : std::vector<int>{p, r};
  if (int err = make_type(call, std::move(t), newtype, std::move(env))) return err;
  made()[key] = *newtype;
  return MPI_SUCCESS;
}

int real_kind(const char* call, int combiner, int p, int r, MPI_Datatype* newtype) {
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "p and r are both MPI_UNDEFINED");
  for (const RealKind& k : kRealKinds)
    if ((p == MPI_UNDEFINED || (p >= 0 && p <= k.precision)) && (r == MPI_UNDEFINED || (r >= 0 && r <= k.range)))
      return f90_type(call, combiner, p, r, combiner == MPI_COMBINER_F90_REAL ? k.real : k.complex, newtype);
  return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
               "no REAL kind has p = " + std::to_string(p) + " decimal digits and r = " + std::to_string(r) +
                   " (gfortran's largest: p = 33, r = 4931)");
}

}  // namespace

MESHMP_MPI_FN(int, Type_create_f90_real, (int p, int r, MPI_Datatype* newtype)) {
  return real_kind("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
} MESHMP_MPI_END(Type_create_f90_real)

MESHMP_MPI_FN(int, Type_create_f90_complex, (int p, int r, MPI_Datatype* newtype)) {
  return real_kind("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
} MESHMP_MPI_END(Type_create_f90_complex)

MESHMP_MPI_FN(int, Type_create_f90_integer, (int r, MPI_Datatype* newtype)) {
  const char* call = "MPI_Type_create_f90_integer";
  for (const auto& [range, type] : kIntegerKinds)
    if (r >= 0 && r <= range) return f90_type(call, MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, type, newtype);
  return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
               "no INTEGER kind has r = " + std::to_string(r) + " decimal digits (gfortran's largest: 38)");
} MESHMP_MPI_END(Type_create_f90_integer)
