// Fortran bindings of groups, communicators and intercommunicators (MPI-1.1
// §5.3-5.6). MPI_GROUP_RANGE_INCL/EXCL take RANGES(3, N), which Fortran lays
// out as C's int[n][3].
#include "mpi11/fortran/fortran.h"

using namespace meshmp::mpi::fortran;

// MPI_x(HANDLE, INTEGER RESULT, IERROR): sizes, ranks, groups, dups.
#define MESHMP_F_QUERY(name, Name)                                                                    \
  MESHMP_FORTRAN_FN(void, name, (const F* handle, F* result, F* ierror)) { *ierror = PMPI_##Name(*handle, result); }
MESHMP_F_QUERY(comm_size, Comm_size)
MESHMP_F_QUERY(comm_rank, Comm_rank)
MESHMP_F_QUERY(comm_dup, Comm_dup)
MESHMP_F_QUERY(comm_group, Comm_group)
MESHMP_F_QUERY(comm_remote_size, Comm_remote_size)
MESHMP_F_QUERY(comm_remote_group, Comm_remote_group)
MESHMP_F_QUERY(group_size, Group_size)
MESHMP_F_QUERY(group_rank, Group_rank)

// MPI_x(HANDLE1, HANDLE2, INTEGER RESULT, IERROR): compares, set operations, create.
#define MESHMP_F_PAIR(name, Name)                                                     \
  MESHMP_FORTRAN_FN(void, name, (const F* a, const F* b, F* result, F* ierror)) {     \
    *ierror = PMPI_##Name(*a, *b, result);                                            \
  }
MESHMP_F_PAIR(comm_compare, Comm_compare)
MESHMP_F_PAIR(comm_create, Comm_create)
MESHMP_F_PAIR(group_compare, Group_compare)
MESHMP_F_PAIR(group_union, Group_union)
MESHMP_F_PAIR(group_intersection, Group_intersection)
MESHMP_F_PAIR(group_difference, Group_difference)

MESHMP_FORTRAN_FN(void, comm_split, (const F* comm, const F* color, const F* key, F* newcomm, F* ierror)) {
  *ierror = PMPI_Comm_split(*comm, *color, *key, newcomm);
}
MESHMP_FORTRAN_FN(void, comm_split_type, (const F* comm, const F* split_type, const F* key, const F* info,
                                          F* newcomm, F* ierror)) {
  *ierror = PMPI_Comm_split_type(*comm, *split_type, *key, *info, newcomm);
}
MESHMP_FORTRAN_FN(void, comm_dup_with_info, (const F* comm, const F* info, F* newcomm, F* ierror)) {
  *ierror = PMPI_Comm_dup_with_info(*comm, *info, newcomm);
}
MESHMP_FORTRAN_FN(void, comm_set_info, (const F* comm, const F* info, F* ierror)) {
  *ierror = PMPI_Comm_set_info(*comm, *info);
}
MESHMP_FORTRAN_FN(void, comm_get_info, (const F* comm, F* info_used, F* ierror)) {
  *ierror = PMPI_Comm_get_info(*comm, info_used);
}
MESHMP_FORTRAN_FN(void, comm_get_parent, (F* parent, F* ierror)) { *ierror = PMPI_Comm_get_parent(parent); }
MESHMP_FORTRAN_FN(void, comm_idup, (const F* comm, F* newcomm, F* request, F* ierror)) {
  *ierror = PMPI_Comm_idup(*comm, newcomm, request);
}
MESHMP_FORTRAN_FN(void, comm_create_group, (const F* comm, const F* group, const F* tag, F* newcomm, F* ierror)) {
  *ierror = PMPI_Comm_create_group(*comm, *group, *tag, newcomm);
}
MESHMP_FORTRAN_FN(void, comm_free, (F* comm, F* ierror)) { *ierror = PMPI_Comm_free(comm); }
MESHMP_FORTRAN_FN(void, comm_get_name, (const F* comm, char* name, F* resultlen, F* ierror, FLen name_len)) {
  char c[MPI_MAX_OBJECT_NAME] = {};
  *ierror = PMPI_Comm_get_name(*comm, c, resultlen);
  if (*ierror == MPI_SUCCESS) to_fortran(c, name, name_len);
}
MESHMP_FORTRAN_FN(void, comm_set_name, (const F* comm, const char* name, F* ierror, FLen name_len)) {
  *ierror = PMPI_Comm_set_name(*comm, from_fortran(name, name_len).c_str());
}

MESHMP_FORTRAN_FN(void, group_translate_ranks, (const F* group1, const F* n, const F* ranks1, const F* group2,
                                                F* ranks2, F* ierror)) {
  *ierror = PMPI_Group_translate_ranks(*group1, *n, ranks1, *group2, ranks2);
}
MESHMP_FORTRAN_FN(void, group_incl, (const F* group, const F* n, const F* ranks, F* newgroup, F* ierror)) {
  *ierror = PMPI_Group_incl(*group, *n, ranks, newgroup);
}
MESHMP_FORTRAN_FN(void, group_excl, (const F* group, const F* n, const F* ranks, F* newgroup, F* ierror)) {
  *ierror = PMPI_Group_excl(*group, *n, ranks, newgroup);
}
MESHMP_FORTRAN_FN(void, group_range_incl, (const F* group, const F* n, F* ranges, F* newgroup, F* ierror)) {
  *ierror = PMPI_Group_range_incl(*group, *n, reinterpret_cast<int(*)[3]>(ranges), newgroup);
}
MESHMP_FORTRAN_FN(void, group_range_excl, (const F* group, const F* n, F* ranges, F* newgroup, F* ierror)) {
  *ierror = PMPI_Group_range_excl(*group, *n, reinterpret_cast<int(*)[3]>(ranges), newgroup);
}
MESHMP_FORTRAN_FN(void, group_free, (F* group, F* ierror)) { *ierror = PMPI_Group_free(group); }

MESHMP_FORTRAN_FN(void, comm_test_inter, (const F* comm, F* flag, F* ierror)) {
  int c = 0;
  *ierror = PMPI_Comm_test_inter(*comm, &c);
  *flag = logical(c);
}
MESHMP_FORTRAN_FN(void, intercomm_create, (const F* local_comm, const F* local_leader, const F* peer_comm,
                                           const F* remote_leader, const F* tag, F* newintercomm, F* ierror)) {
  *ierror = PMPI_Intercomm_create(*local_comm, *local_leader, *peer_comm, *remote_leader, *tag, newintercomm);
}
MESHMP_FORTRAN_FN(void, intercomm_merge, (const F* intercomm, const F* high, F* newintracomm, F* ierror)) {
  *ierror = PMPI_Intercomm_merge(*intercomm, *high, newintracomm);
}
