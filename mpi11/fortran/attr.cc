// Fortran bindings of attribute caching (MPI-1.1 §5.7) and its MPI-2 names.
//
// A Fortran attribute value and extra state are INTEGERs (MPI_ATTR_PUT) or
// INTEGER(KIND=MPI_ADDRESS_KIND)s (MPI_COMM_SET_ATTR); either is kept as the
// C attribute's pointer value. A Fortran key's callbacks take every argument
// by reference and return through IERR, so the C key holds trampolines and a
// record of the Fortran callbacks (Keyval::binding). The predefined keys'
// values are C pointers to ints; Fortran reads the int itself.
#include <cstdint>
#include <memory>

#include "mpi11/fortran/fortran.h"
#include "mpi11/internal.h"

using namespace meshmp::mpi;
using namespace meshmp::mpi::fortran;

namespace {

// V: INTEGER (MPI-1 names) or MPI_Aint (MPI-2 names).
template <typename V>
using CopyFn = void(const F* oldcomm, const F* keyval, const V* extra_state, const V* attribute_val_in,
                    V* attribute_val_out, F* flag, F* ierr);
template <typename V>
using DeleteFn = void(const F* comm, const F* keyval, const V* attribute_val, const V* extra_state, F* ierr);

template <typename V>
struct FortranKey {
  CopyFn<V>* copy;
  DeleteFn<V>* del;
  V extra_state;
};

template <typename V>
V to_value(void* p) { return static_cast<V>(reinterpret_cast<std::intptr_t>(p)); }
template <typename V>
void* from_value(V v) { return reinterpret_cast<void*>(static_cast<std::intptr_t>(v)); }

template <typename V>
int copy_trampoline(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  const auto& k = *static_cast<const FortranKey<V>*>(extra);
  const F c = oldcomm, kv = keyval;
  const V vin = to_value<V>(in);
  V vout = 0;
  F f = 0, ierr = MPI_SUCCESS;
  k.copy(&c, &kv, &k.extra_state, &vin, &vout, &f, &ierr);
  *static_cast<void**>(out) = from_value(vout);
  *flag = f != 0;
  return ierr;
}

template <typename V>
int delete_trampoline(MPI_Comm comm, int keyval, void* value, void* extra) {
  const auto& k = *static_cast<const FortranKey<V>*>(extra);
  const F c = comm, kv = keyval;
  const V v = to_value<V>(value);
  F ierr = MPI_SUCCESS;
  k.del(&c, &kv, &v, &k.extra_state, &ierr);
  return ierr;
}

template <typename V>
int keyval_create(int (*create)(MPI_Copy_function*, MPI_Delete_function*, int*, void*), CopyFn<V>* copy,
                  DeleteFn<V>* del, F* keyval, const V* extra_state) {
  auto key = std::make_shared<FortranKey<V>>(FortranKey<V>{copy, del, *extra_state});
  const int rc = create(copy_trampoline<V>, delete_trampoline<V>, keyval, key.get());
  if (rc == MPI_SUCCESS) state().keyvals[static_cast<std::size_t>(*keyval)].binding = std::move(key);
  return rc;
}

template <typename V>
int attr_get(int (*get)(MPI_Comm, int, void*, int*), F comm, F keyval, V* value, F* flag) {
  void* p = nullptr;
  int c = 0;
  const int rc = get(comm, keyval, &p, &c);
  if (rc == MPI_SUCCESS && c) *value = predefined_keyval(keyval) ? static_cast<V>(*static_cast<int*>(p)) : to_value<V>(p);
  *flag = logical(c);
  return rc;
}

}  // namespace

MESHMP_FORTRAN_FN(void, keyval_create, (CopyFn<F>* copy_fn, DeleteFn<F>* delete_fn, F* keyval, const F* extra_state,
                                        F* ierror)) {
  *ierror = keyval_create<F>(PMPI_Keyval_create, copy_fn, delete_fn, keyval, extra_state);
}
MESHMP_FORTRAN_FN(void, comm_create_keyval, (CopyFn<MPI_Aint>* copy_fn, DeleteFn<MPI_Aint>* delete_fn, F* keyval,
                                             const MPI_Aint* extra_state, F* ierror)) {
  *ierror = keyval_create<MPI_Aint>(PMPI_Comm_create_keyval, copy_fn, delete_fn, keyval, extra_state);
}
MESHMP_FORTRAN_FN(void, keyval_free, (F* keyval, F* ierror)) { *ierror = PMPI_Keyval_free(keyval); }
MESHMP_FORTRAN_FN(void, comm_free_keyval, (F* keyval, F* ierror)) { *ierror = PMPI_Comm_free_keyval(keyval); }

MESHMP_FORTRAN_FN(void, attr_put, (const F* comm, const F* keyval, const F* attribute_val, F* ierror)) {
  *ierror = PMPI_Attr_put(*comm, *keyval, from_value(*attribute_val));
}
MESHMP_FORTRAN_FN(void, comm_set_attr, (const F* comm, const F* keyval, const MPI_Aint* attribute_val, F* ierror)) {
  *ierror = PMPI_Comm_set_attr(*comm, *keyval, from_value(*attribute_val));
}
MESHMP_FORTRAN_FN(void, attr_get, (const F* comm, const F* keyval, F* attribute_val, F* flag, F* ierror)) {
  *ierror = attr_get<F>(PMPI_Attr_get, *comm, *keyval, attribute_val, flag);
}
MESHMP_FORTRAN_FN(void, comm_get_attr, (const F* comm, const F* keyval, MPI_Aint* attribute_val, F* flag,
                                        F* ierror)) {
  *ierror = attr_get<MPI_Aint>(PMPI_Comm_get_attr, *comm, *keyval, attribute_val, flag);
}
MESHMP_FORTRAN_FN(void, attr_delete, (const F* comm, const F* keyval, F* ierror)) {
  *ierror = PMPI_Attr_delete(*comm, *keyval);
}
MESHMP_FORTRAN_FN(void, comm_delete_attr, (const F* comm, const F* keyval, F* ierror)) {
  *ierror = PMPI_Comm_delete_attr(*comm, *keyval);
}

// MPI-2.2 §6.7.4: datatype keys and attributes, INTEGER(KIND=MPI_ADDRESS_KIND) values.
MESHMP_FORTRAN_FN(void, type_create_keyval, (CopyFn<MPI_Aint>* copy_fn, DeleteFn<MPI_Aint>* delete_fn, F* keyval,
                                             const MPI_Aint* extra_state, F* ierror)) {
  *ierror = keyval_create<MPI_Aint>(PMPI_Type_create_keyval, copy_fn, delete_fn, keyval, extra_state);
}
MESHMP_FORTRAN_FN(void, type_free_keyval, (F* keyval, F* ierror)) { *ierror = PMPI_Type_free_keyval(keyval); }
MESHMP_FORTRAN_FN(void, type_set_attr, (const F* datatype, const F* keyval, const MPI_Aint* attribute_val,
                                        F* ierror)) {
  *ierror = PMPI_Type_set_attr(*datatype, *keyval, from_value(*attribute_val));
}
MESHMP_FORTRAN_FN(void, type_get_attr, (const F* datatype, const F* keyval, MPI_Aint* attribute_val, F* flag,
                                        F* ierror)) {
  *ierror = attr_get<MPI_Aint>(PMPI_Type_get_attr, *datatype, *keyval, attribute_val, flag);
}
MESHMP_FORTRAN_FN(void, type_delete_attr, (const F* datatype, const F* keyval, F* ierror)) {
  *ierror = PMPI_Type_delete_attr(*datatype, *keyval);
}

// The predefined callbacks as Fortran procedures (mpif.h declares them
// EXTERNAL): copy nothing, copy the value, do nothing.
extern "C" {
void mpi_null_copy_fn_(const F*, const F*, const F*, const F*, F*, F* flag, F* ierr) { *flag = 0, *ierr = MPI_SUCCESS; }
void mpi_dup_fn_(const F*, const F*, const F*, const F* in, F* out, F* flag, F* ierr) {
  *out = *in, *flag = 1, *ierr = MPI_SUCCESS;
}
void mpi_null_delete_fn_(const F*, const F*, const F*, const F*, F* ierr) { *ierr = MPI_SUCCESS; }
void mpi_comm_null_copy_fn_(const F*, const F*, const MPI_Aint*, const MPI_Aint*, MPI_Aint*, F* flag, F* ierr) {
  *flag = 0, *ierr = MPI_SUCCESS;
}
void mpi_comm_dup_fn_(const F*, const F*, const MPI_Aint*, const MPI_Aint* in, MPI_Aint* out, F* flag, F* ierr) {
  *out = *in, *flag = 1, *ierr = MPI_SUCCESS;
}
void mpi_comm_null_delete_fn_(const F*, const F*, const MPI_Aint*, const MPI_Aint*, F* ierr) { *ierr = MPI_SUCCESS; }
// A datatype key's callbacks have the communicator key's shapes.
void mpi_type_null_copy_fn_(const F* a, const F* b, const MPI_Aint* c, const MPI_Aint* d, MPI_Aint* e, F* flag,
                            F* ierr) {
  mpi_comm_null_copy_fn_(a, b, c, d, e, flag, ierr);
}
void mpi_type_dup_fn_(const F* a, const F* b, const MPI_Aint* c, const MPI_Aint* in, MPI_Aint* out, F* flag, F* ierr) {
  mpi_comm_dup_fn_(a, b, c, in, out, flag, ierr);
}
void mpi_type_null_delete_fn_(const F* a, const F* b, const MPI_Aint* c, const MPI_Aint* d, F* ierr) {
  mpi_comm_null_delete_fn_(a, b, c, d, ierr);
}
// A window key's too (MPI-3.1 §11.2.6), the communicator key's under
// other names: windows are refused (mpi11/fortran/refused.cc), but a
// program naming these links.
void mpi_win_null_copy_fn_(const F*, const F*, const MPI_Aint*, const MPI_Aint*, MPI_Aint*, F*, F*)
    __attribute__((alias("mpi_comm_null_copy_fn_")));
void mpi_win_dup_fn_(const F*, const F*, const MPI_Aint*, const MPI_Aint*, MPI_Aint*, F*, F*)
    __attribute__((alias("mpi_comm_dup_fn_")));
void mpi_win_null_delete_fn_(const F*, const F*, const MPI_Aint*, const MPI_Aint*, F*)
    __attribute__((alias("mpi_comm_null_delete_fn_")));
}
