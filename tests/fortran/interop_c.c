/* The C half of interop.f (Fortran passes every argument by reference;
 * gfortran's names are lower case with one trailing underscore). */
#include <mpi.h>

void c_routine_(MPI_Fint* ftype, int* r, MPI_Fint* peer, MPI_Fint* bad);
void c_absolute_type_(MPI_Fint* rank, MPI_Fint* ctype);
void c_status_(MPI_Fint* f_status, MPI_Fint* peer, MPI_Fint* bad);
void c_status_ignore_(MPI_Fint* status_ignore, MPI_Fint* statuses_ignore, MPI_Fint* bad);

/* The Fortran type holds R's address as C sees it; the struct (count, R)
 * at absolute addresses goes from MPI_BOTTOM to peer, which sends its own. */
void c_routine_(MPI_Fint* ftype, int* r, MPI_Fint* peer, MPI_Fint* bad) {
  MPI_Datatype ft = MPI_Type_f2c(*ftype);
  int ints[2];
  MPI_Aint disp, addr;
  MPI_Datatype inner;
  MPI_Type_get_contents(ft, 2, 1, 1, ints, &disp, &inner);
  MPI_Get_address(r, &addr);
  if (disp != addr) ++*bad;

  int count = 5, lens[2] = {1, 1}, buf[6] = {0};
  MPI_Aint displs[2];
  MPI_Datatype types[2] = {MPI_INT, ft}, newtype;
  MPI_Get_address(&count, &displs[0]);
  displs[1] = 0;
  MPI_Type_create_struct(2, lens, displs, types, &newtype);
  MPI_Type_commit(&newtype);
  MPI_Sendrecv(MPI_BOTTOM, 1, newtype, *peer, 2, buf, 6, MPI_INT, *peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (buf[0] != 5) ++*bad;
  for (int i = 1; i < 6; ++i)
    if (buf[i] != *peer * 10 + i) ++*bad;
  MPI_Type_free(&newtype);
}

static int carray[3];

/* An absolute datatype for carray, filled with rank * 100 + 1, 2, 3. */
void c_absolute_type_(MPI_Fint* rank, MPI_Fint* ctype) {
  for (int i = 0; i < 3; ++i) carray[i] = *rank * 100 + i + 1;
  int len = 3;
  MPI_Aint where;
  MPI_Datatype t;
  MPI_Get_address(carray, &where);
  MPI_Type_create_hindexed(1, &len, &where, MPI_INT, &t);
  MPI_Type_commit(&t);
  *ctype = MPI_Type_c2f(t);
}

/* A status of 3 INTEGERs from peer with tag 4, read through
 * MPI_Status_f2c; written back through MPI_Status_c2f saying tag 99 and 2
 * elements. */
void c_status_(MPI_Fint* f_status, MPI_Fint* peer, MPI_Fint* bad) {
  MPI_Status st;
  int count = -1;
  if (MPI_Status_f2c(f_status, &st) != MPI_SUCCESS) ++*bad;
  MPI_Get_count(&st, MPI_INT, &count);
  if (st.MPI_SOURCE != *peer || st.MPI_TAG != 4 || count != 3) ++*bad;
  st.MPI_TAG = 99;
  MPI_Status_set_elements(&st, MPI_INT, 2);
  if (MPI_Status_c2f(&st, f_status) != MPI_SUCCESS) ++*bad;
}

/* Fortran's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are C's
 * MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE, which the conversions
 * refuse (MPI_ERR_ARG). */
void c_status_ignore_(MPI_Fint* status_ignore, MPI_Fint* statuses_ignore, MPI_Fint* bad) {
  if (status_ignore != MPI_F_STATUS_IGNORE || statuses_ignore != MPI_F_STATUSES_IGNORE) ++*bad;
  MPI_Status st;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st), &cls);
  if (cls != MPI_ERR_ARG) ++*bad;
  MPI_Error_class(MPI_Status_c2f(MPI_STATUS_IGNORE, status_ignore), &cls);
  if (cls != MPI_ERR_ARG) ++*bad;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}
