// Attribute caching (MPI-1.1 §5.7) under its MPI-1 and MPI-2 names, on
// communicators and (MPI-2.2 §6.7.4) on datatypes: MPI_Type_dup copies a
// type's attributes through their copy callbacks, MPI_Type_free deletes them. A key
// carries a copy callback, run for each attribute by MPI_Comm_dup, and a
// delete callback, run by MPI_Attr_delete, by MPI_Attr_put over an existing
// value and by MPI_Comm_free. The predefined keys of §7.1.1 (MPI_TAG_UB,
// MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL), MPI-2.2's MPI_LASTUSEDCODE (§8.5),
// MPI_UNIVERSE_SIZE (§10.5.1: the job's size, as no process can be spawned)
// and MPI_APPNUM (§10.5.3: the index of this process's program in an MPMD
// launch, `mpiexec -n 1 ocean : -n 8 atmos`, 0 for the first or only one)
// read on every communicator and cannot be set or deleted.
#include <map>
#include <string>

#include "mpi11/internal.h"

namespace meshmp::mpi {

bool predefined_keyval(int keyval) {
  return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
         keyval == MPI_LASTUSEDCODE || keyval == MPI_UNIVERSE_SIZE || keyval == MPI_APPNUM;
}

namespace {

constexpr int kFirstUserKeyval = 16;  // below: predefined or reserved

std::vector<Keyval>& keyvals() {
  std::vector<Keyval>& k = state().keyvals;
  if (k.size() < kFirstUserKeyval) k.resize(kFirstUserKeyval);
  return k;
}

// What an attribute hangs on: a communicator, or a datatype (MPI-2.2
// §6.7.4). Its table is looked up afresh each time: a callback may create
// communicators or types meanwhile.
struct Holder {
  bool is_type;
  int handle;
  MPI_Comm err_comm() const { return is_type ? MPI_COMM_NULL : handle; }
  std::map<int, void*>& attrs() const {
    return is_type ? g_types.table[static_cast<std::size_t>(handle)]->attributes : comm_ref(handle).attributes;
  }
};
Holder of_comm(MPI_Comm c) { return {false, c}; }
Holder of_type(MPI_Datatype t) { return {true, t}; }
const char* kind_name(bool is_type) { return is_type ? "a datatype" : "a communicator"; }

// A user key of the holder's kind that is live (or, with `freed_ok`, freed
// but still attached).
Keyval* check_keyval(MPI_Comm comm, bool for_types, const char* call, int keyval, bool freed_ok, int* err) {
  auto& k = keyvals();
  if (keyval >= kFirstUserKeyval && static_cast<std::size_t>(keyval) < k.size() &&
      (k[keyval].in_use || (freed_ok && k[keyval].refs > 0))) {
    if (k[keyval].for_types == for_types) return &k[keyval];
    *err = raise(comm, call, MPI_ERR_ARG,
                 "keyval " + std::to_string(keyval) + " is " + kind_name(k[keyval].for_types) + "'s key, not " +
                     kind_name(for_types) + "'s");
    return nullptr;
  }
  *err = raise(comm, call, MPI_ERR_ARG,
               predefined_keyval(keyval) ? "keyval " + std::to_string(keyval) + " is predefined and read-only"
                                  : "keyval " + std::to_string(keyval) + " is not an attribute key");
  return nullptr;
}

void unref(int keyval) {
  Keyval& k = keyvals()[keyval];
  if (--k.refs == 0) k = Keyval{};
}

// Runs the delete callback of one attribute and drops it.
int delete_one(const Holder& h, int keyval, const char* call) {
  auto it = h.attrs().find(keyval);
  if (it == h.attrs().end()) return MPI_SUCCESS;
  const Keyval k = keyvals()[keyval];
  void* value = it->second;
  if (k.del) {
    const int rc = k.del(h.handle, keyval, value, k.extra_state);
    if (rc != MPI_SUCCESS)
      return raise(h.err_comm(), call, MPI_ERR_OTHER,
                   "the delete callback of keyval " + std::to_string(keyval) + " returned " + std::to_string(rc));
  }
  h.attrs().erase(keyval);
  unref(keyval);
  return MPI_SUCCESS;
}

int keyval_create(const char* call, bool for_types, MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn,
                  int* keyval, void* extra_state) {
  int err;
  if (!check_init(call, &err)) return err;
  if (!keyval) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "keyval is NULL");
  auto& k = keyvals();
  std::size_t i = kFirstUserKeyval;
  while (i < k.size() && (k[i].in_use || k[i].refs > 0)) ++i;
  if (i == k.size()) k.emplace_back();
  k[i] = Keyval{true, 1, copy_fn, delete_fn, extra_state, nullptr, for_types};
  *keyval = static_cast<int>(i);
  return MPI_SUCCESS;
}

// Frees a key (§5.7.1): attributes still set keep it until they are deleted.
// A key freed already but still attached, freed again through another copy
// of its handle (a delete callback freeing its key, MPICH's
// attr/keyval_double_free), is left as it is; once the last attribute is
// gone, the handle is no key and freeing it is MPI_ERR_ARG.
int keyval_free(const char* call, bool for_types, int* keyval) {
  int err;
  if (!check_init(call, &err)) return err;
  if (!keyval) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "keyval is NULL");
  Keyval* k = check_keyval(MPI_COMM_NULL, for_types, call, *keyval, true, &err);
  if (!k) return err;
  if (k->in_use) {
    k->in_use = false;
    unref(*keyval);
  }
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

// The holder behind a communicator or datatype handle, after its check.
bool holder(const char* call, bool is_type, int handle, Holder* h, int* err) {
  if (is_type) {
    if (!check_init(call, err)) return false;
    if (!type_info(handle)) {
      *err = raise(MPI_COMM_NULL, call, MPI_ERR_TYPE, "datatype is not a valid datatype");
      return false;
    }
    *h = of_type(handle);
    return true;
  }
  if (!check_comm(handle, call, err)) return false;
  *h = of_comm(handle);
  return true;
}

int attr_put(const char* call, bool is_type, int handle, int keyval, void* value) {
  int err;
  Holder h;
  if (!holder(call, is_type, handle, &h, &err)) return err;
  if (!check_keyval(h.err_comm(), is_type, call, keyval, false, &err)) return err;
  if ((err = delete_one(h, keyval, call))) return err;
  h.attrs()[keyval] = value;
  ++keyvals()[keyval].refs;
  return MPI_SUCCESS;
}

int attr_get(const char* call, bool is_type, int handle, int keyval, void* attribute_val, int* flag) {
  int err;
  Holder h;
  if (!holder(call, is_type, handle, &h, &err)) return err;
  if (!attribute_val || !flag) return raise(h.err_comm(), call, MPI_ERR_ARG, "attribute_val or flag is NULL");
  if (!is_type && predefined_keyval(keyval)) {
    // The values of §7.1.1, held by MPI_COMM_WORLD (and, as in MPICH,
    // readable on any communicator): a pointer to the int.
    static int tag_ub = mesh::kTagUb, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0, last_used = 0,
               universe = 0, appnum = 0;
    last_used = last_used_code();  // MPI-2.2 §8.5: grows with MPI_Add_error_class/code
    universe = comm_ref(MPI_COMM_WORLD).size();
    appnum = state().engine->appnum();
    int* v = keyval == MPI_TAG_UB ? &tag_ub : keyval == MPI_HOST ? &host : keyval == MPI_IO ? &io
           : keyval == MPI_LASTUSEDCODE ? &last_used : keyval == MPI_UNIVERSE_SIZE ? &universe
           : keyval == MPI_APPNUM ? &appnum : &wtime_global;
    *static_cast<int**>(attribute_val) = v;
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (!check_keyval(h.err_comm(), is_type, call, keyval, true, &err)) return err;
  auto it = h.attrs().find(keyval);
  *flag = it != h.attrs().end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second;
  return MPI_SUCCESS;
}

int attr_delete(const char* call, bool is_type, int handle, int keyval) {
  int err;
  Holder h;
  if (!holder(call, is_type, handle, &h, &err)) return err;
  if (!check_keyval(h.err_comm(), is_type, call, keyval, true, &err)) return err;
  if (!h.attrs().count(keyval))
    return raise(h.err_comm(), call, MPI_ERR_ARG, "no attribute is set for keyval " + std::to_string(keyval));
  return delete_one(h, keyval, call);
}

// MPI_Comm_dup's and MPI_Type_dup's part: each attribute's copy callback.
int copy_all(const Holder& from, const Holder& to) {
  const std::map<int, void*> attrs = from.attrs();  // callbacks may touch the tables
  for (const auto& [keyval, value] : attrs) {
    const Keyval k = keyvals()[keyval];
    if (!k.copy) continue;
    void* out = nullptr;
    int flag = 0;
    const int rc = k.copy(from.handle, keyval, k.extra_state, value, &out, &flag);
    if (rc != MPI_SUCCESS) return report(from.err_comm(), rc);  // the callback's own code (as MPICH)
    if (flag) {
      to.attrs()[keyval] = out;
      ++keyvals()[keyval].refs;
    }
  }
  return MPI_SUCCESS;
}

int delete_all(const Holder& h, const char* call) {
  while (!h.attrs().empty()) {
    const int keyval = h.attrs().begin()->first;
    if (int err = delete_one(h, keyval, call)) return err;
  }
  return MPI_SUCCESS;
}

}  // namespace

int copy_attributes(MPI_Comm from, MPI_Comm to) { return copy_all(of_comm(from), of_comm(to)); }
int delete_attributes(MPI_Comm comm, const char* call) { return delete_all(of_comm(comm), call); }
int copy_type_attributes(MPI_Datatype from, MPI_Datatype to) { return copy_all(of_type(from), of_type(to)); }
int delete_type_attributes(MPI_Datatype t, const char* call) { return delete_all(of_type(t), call); }

}  // namespace meshmp::mpi

using namespace meshmp;
using namespace meshmp::mpi;

extern "C" {
int MPI_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
int MPI_DUP_FN(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}
int MPI_NULL_DELETE_FN(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
int MPI_TYPE_DUP_FN(MPI_Datatype, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void*, void*) { return MPI_SUCCESS; }
}

MESHMP_MPI_FN(int, Keyval_create, (MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state)) {
  return keyval_create("MPI_Keyval_create", false, copy_fn, delete_fn, keyval, extra_state);
} MESHMP_MPI_END(Keyval_create)
MESHMP_MPI_FN(int, Comm_create_keyval, (MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn, int* keyval, void* extra_state)) {
  return keyval_create("MPI_Comm_create_keyval", false, copy_fn, delete_fn, keyval, extra_state);
} MESHMP_MPI_END(Comm_create_keyval)
MESHMP_MPI_FN(int, Keyval_free, (int* keyval)) { return keyval_free("MPI_Keyval_free", false, keyval); } MESHMP_MPI_END(Keyval_free)
MESHMP_MPI_FN(int, Comm_free_keyval, (int* keyval)) { return keyval_free("MPI_Comm_free_keyval", false, keyval); } MESHMP_MPI_END(Comm_free_keyval)
MESHMP_MPI_FN(int, Attr_put, (MPI_Comm comm, int keyval, void* attribute_val)) {
  return attr_put("MPI_Attr_put", false, comm, keyval, attribute_val);
} MESHMP_MPI_END(Attr_put)
MESHMP_MPI_FN(int, Comm_set_attr, (MPI_Comm comm, int keyval, void* attribute_val)) {
  return attr_put("MPI_Comm_set_attr", false, comm, keyval, attribute_val);
} MESHMP_MPI_END(Comm_set_attr)
MESHMP_MPI_FN(int, Attr_get, (MPI_Comm comm, int keyval, void* attribute_val, int* flag)) {
  return attr_get("MPI_Attr_get", false, comm, keyval, attribute_val, flag);
} MESHMP_MPI_END(Attr_get)
MESHMP_MPI_FN(int, Comm_get_attr, (MPI_Comm comm, int keyval, void* attribute_val, int* flag)) {
  return attr_get("MPI_Comm_get_attr", false, comm, keyval, attribute_val, flag);
} MESHMP_MPI_END(Comm_get_attr)
MESHMP_MPI_FN(int, Attr_delete, (MPI_Comm comm, int keyval)) { return attr_delete("MPI_Attr_delete", false, comm, keyval); } MESHMP_MPI_END(Attr_delete)
MESHMP_MPI_FN(int, Comm_delete_attr, (MPI_Comm comm, int keyval)) {
  return attr_delete("MPI_Comm_delete_attr", false, comm, keyval);
} MESHMP_MPI_END(Comm_delete_attr)

// MPI-2.2 §6.7.4: the same caching on datatypes, with keys of their own.
MESHMP_MPI_FN(int, Type_create_keyval, (MPI_Type_copy_attr_function* copy_fn, MPI_Type_delete_attr_function* delete_fn, int* keyval, void* extra_state)) {
  return keyval_create("MPI_Type_create_keyval", true, copy_fn, delete_fn, keyval, extra_state);
} MESHMP_MPI_END(Type_create_keyval)
MESHMP_MPI_FN(int, Type_free_keyval, (int* keyval)) { return keyval_free("MPI_Type_free_keyval", true, keyval); } MESHMP_MPI_END(Type_free_keyval)
MESHMP_MPI_FN(int, Type_set_attr, (MPI_Datatype datatype, int keyval, void* attribute_val)) {
  return attr_put("MPI_Type_set_attr", true, datatype, keyval, attribute_val);
} MESHMP_MPI_END(Type_set_attr)
MESHMP_MPI_FN(int, Type_get_attr, (MPI_Datatype datatype, int keyval, void* attribute_val, int* flag)) {
  return attr_get("MPI_Type_get_attr", true, datatype, keyval, attribute_val, flag);
} MESHMP_MPI_END(Type_get_attr)
MESHMP_MPI_FN(int, Type_delete_attr, (MPI_Datatype datatype, int keyval)) {
  return attr_delete("MPI_Type_delete_attr", true, datatype, keyval);
} MESHMP_MPI_END(Type_delete_attr)
