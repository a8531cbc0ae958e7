// Fortran bindings of the info objects (MPI-2.2 §9). Keys and values are
// CHARACTER*(*) arguments: leading and trailing blanks are dropped going in
// (§9), and MPI_INFO_GET / MPI_INFO_GET_NTHKEY blank-pad what they return;
// MPI_INFO_GET returns at most VALUELEN characters.
#include <algorithm>
#include <string>
#include <vector>

#include "mpi11/fortran/fortran.h"

using namespace meshmp::mpi::fortran;

namespace {
// A key or value as C wants it: blanks dropped at both ends.
std::string trimmed(const char* f, FLen len) {
  std::string s = from_fortran(f, len);
  s.erase(0, std::min(s.find_first_not_of(' '), s.size()));
  return s;
}
}  // namespace

MESHMP_FORTRAN_FN(void, info_create, (F* info, F* ierror)) { *ierror = PMPI_Info_create(info); }
MESHMP_FORTRAN_FN(void, info_free, (F* info, F* ierror)) { *ierror = PMPI_Info_free(info); }
MESHMP_FORTRAN_FN(void, info_dup, (const F* info, F* newinfo, F* ierror)) { *ierror = PMPI_Info_dup(*info, newinfo); }
MESHMP_FORTRAN_FN(void, info_get_nkeys, (const F* info, F* nkeys, F* ierror)) {
  *ierror = PMPI_Info_get_nkeys(*info, nkeys);
}
MESHMP_FORTRAN_FN(void, info_set, (const F* info, const char* key, const char* value, F* ierror, FLen key_len,
                                   FLen value_len)) {
  *ierror = PMPI_Info_set(*info, trimmed(key, key_len).c_str(), trimmed(value, value_len).c_str());
}
MESHMP_FORTRAN_FN(void, info_delete, (const F* info, const char* key, F* ierror, FLen key_len)) {
  *ierror = PMPI_Info_delete(*info, trimmed(key, key_len).c_str());
}
MESHMP_FORTRAN_FN(void, info_get, (const F* info, const char* key, const F* valuelen, char* value, F* flag,
                                   F* ierror, FLen key_len, FLen value_len)) {
  std::vector<char> c(static_cast<std::size_t>(std::max<F>(*valuelen, 0)) + 1);
  int found = 0;
  *ierror = PMPI_Info_get(*info, trimmed(key, key_len).c_str(), *valuelen, c.data(), &found);
  if (*ierror != MPI_SUCCESS) return;
  *flag = logical(found);
  if (found) to_fortran(c.data(), value, value_len);
}
MESHMP_FORTRAN_FN(void, info_get_valuelen, (const F* info, const char* key, F* valuelen, F* flag, F* ierror,
                                            FLen key_len)) {
  int found = 0;
  *ierror = PMPI_Info_get_valuelen(*info, trimmed(key, key_len).c_str(), valuelen, &found);
  if (*ierror == MPI_SUCCESS) *flag = logical(found);
}
MESHMP_FORTRAN_FN(void, info_get_nthkey, (const F* info, const F* n, char* key, F* ierror, FLen key_len)) {
  char c[MPI_MAX_INFO_KEY + 1] = {};
  *ierror = PMPI_Info_get_nthkey(*info, *n, c);
  if (*ierror == MPI_SUCCESS) to_fortran(c, key, key_len);
}
