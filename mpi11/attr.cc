// Attribute caching (MPI-1.1 §5.7) under its MPI-1 and MPI-2 names. A key
// carries a copy callback, run for each attribute by MPI_Comm_dup, and a
// delete callback, run by MPI_Attr_delete, by MPI_Attr_put over an existing
// value and by MPI_Comm_free. The predefined keys of §7.1.1 (MPI_TAG_UB,
// MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL) read on every communicator and
// cannot be set or deleted.
#include <string>

#include "mpi11/internal.h"

namespace meshmp::mpi {

bool predefined_keyval(int keyval) {
  return keyval == MPI_TAG_UB || keyval == MPI_HOST || keyval == MPI_IO || keyval == MPI_WTIME_IS_GLOBAL ||
         keyval == MPI_LASTUSEDCODE;
}

namespace {

constexpr int kFirstUserKeyval = 16;  // below: predefined or reserved

std::vector<Keyval>& keyvals() {
  std::vector<Keyval>& k = state().keyvals;
  if (k.size() < kFirstUserKeyval) k.resize(kFirstUserKeyval);
  return k;
}

// A user key that is live (or, with `freed_ok`, freed but still attached).
Keyval* check_keyval(MPI_Comm comm, const char* call, int keyval, bool freed_ok, int* err) {
  auto& k = keyvals();
  if (keyval >= kFirstUserKeyval && static_cast<std::size_t>(keyval) < k.size() &&
      (k[keyval].in_use || (freed_ok && k[keyval].refs > 0)))
    return &k[keyval];
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
int delete_one(MPI_Comm comm, CommInfo& c, int keyval, const char* call) {
  auto it = c.attributes.find(keyval);
  if (it == c.attributes.end()) return MPI_SUCCESS;
  const Keyval k = keyvals()[keyval];
  void* value = it->second;
  if (k.del) {
    const int rc = k.del(comm, keyval, value, k.extra_state);
    if (rc != MPI_SUCCESS) return raise(comm, call, MPI_ERR_OTHER, "the delete callback of keyval " + std::to_string(keyval) + " returned " + std::to_string(rc));
  }
  comm_ref(comm).attributes.erase(keyval);  // the callback may have grown the table
  unref(keyval);
  return MPI_SUCCESS;
}

int keyval_create(const char* call, MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                  void* extra_state) {
  int err;
  if (!check_init(call, &err)) return err;
  if (!keyval) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "keyval is NULL");
  auto& k = keyvals();
  std::size_t i = kFirstUserKeyval;
  while (i < k.size() && (k[i].in_use || k[i].refs > 0)) ++i;
  if (i == k.size()) k.emplace_back();
  k[i] = Keyval{true, 1, copy_fn, delete_fn, extra_state, nullptr};
  *keyval = static_cast<int>(i);
  return MPI_SUCCESS;
}

int keyval_free(const char* call, int* keyval) {
  int err;
  if (!check_init(call, &err)) return err;
  if (!keyval) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "keyval is NULL");
  if (!check_keyval(MPI_COMM_NULL, call, *keyval, false, &err)) return err;
  keyvals()[*keyval].in_use = false;  // attributes still set keep it until deleted (§5.7.1)
  unref(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int attr_put(const char* call, MPI_Comm comm, int keyval, void* value) {
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if (!check_keyval(comm, call, keyval, false, &err)) return err;
  if ((err = delete_one(comm, *c, keyval, call))) return err;
  comm_ref(comm).attributes[keyval] = value;
  ++keyvals()[keyval].refs;
  return MPI_SUCCESS;
}

int attr_get(const char* call, MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if (!attribute_val || !flag) return raise(comm, call, MPI_ERR_ARG, "attribute_val or flag is NULL");
  if (predefined_keyval(keyval)) {
    // The values of §7.1.1, held by MPI_COMM_WORLD (and, as in MPICH,
    // readable on any communicator): a pointer to the int.
    static int tag_ub = mesh::kTagUb, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0, last_used = 0;
    last_used = last_used_code();  // MPI-2.2 §8.5: grows with MPI_Add_error_class/code
    int* v = keyval == MPI_TAG_UB ? &tag_ub : keyval == MPI_HOST ? &host : keyval == MPI_IO ? &io
           : keyval == MPI_LASTUSEDCODE ? &last_used : &wtime_global;
    *static_cast<int**>(attribute_val) = v;
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (!check_keyval(comm, call, keyval, true, &err)) return err;
  auto it = c->attributes.find(keyval);
  *flag = it != c->attributes.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second;
  return MPI_SUCCESS;
}

int attr_delete(const char* call, MPI_Comm comm, int keyval) {
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if (!check_keyval(comm, call, keyval, true, &err)) return err;
  if (!c->attributes.count(keyval))
    return raise(comm, call, MPI_ERR_ARG, "no attribute is set for keyval " + std::to_string(keyval));
  return delete_one(comm, *c, keyval, call);
}

}  // namespace

int copy_attributes(MPI_Comm from, MPI_Comm to) {
  const std::map<int, void*> attrs = comm_ref(from).attributes;  // callbacks may touch the tables
  for (const auto& [keyval, value] : attrs) {
    const Keyval k = keyvals()[keyval];
    if (!k.copy) continue;
    void* out = nullptr;
    int flag = 0;
    const int rc = k.copy(from, keyval, k.extra_state, value, &out, &flag);
    if (rc != MPI_SUCCESS) return report(from, rc);  // the callback's own code (as MPICH)
    if (flag) {
      comm_ref(to).attributes[keyval] = out;
      ++keyvals()[keyval].refs;
    }
  }
  return MPI_SUCCESS;
}

int delete_attributes(MPI_Comm comm, const char* call) {
  while (!comm_ref(comm).attributes.empty()) {
    const int keyval = comm_ref(comm).attributes.begin()->first;
    if (int err = delete_one(comm, comm_ref(comm), keyval, call)) return err;
  }
  return MPI_SUCCESS;
}

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
}

MESHMP_MPI_FN(int, Keyval_create, (MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state)) {
  return keyval_create("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
} MESHMP_MPI_END(Keyval_create)
MESHMP_MPI_FN(int, Comm_create_keyval, (MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn, int* keyval, void* extra_state)) {
  return keyval_create("MPI_Comm_create_keyval", copy_fn, delete_fn, keyval, extra_state);
} MESHMP_MPI_END(Comm_create_keyval)
MESHMP_MPI_FN(int, Keyval_free, (int* keyval)) { return keyval_free("MPI_Keyval_free", keyval); } MESHMP_MPI_END(Keyval_free)
MESHMP_MPI_FN(int, Comm_free_keyval, (int* keyval)) { return keyval_free("MPI_Comm_free_keyval", keyval); } MESHMP_MPI_END(Comm_free_keyval)
MESHMP_MPI_FN(int, Attr_put, (MPI_Comm comm, int keyval, void* attribute_val)) {
  return attr_put("MPI_Attr_put", comm, keyval, attribute_val);
} MESHMP_MPI_END(Attr_put)
MESHMP_MPI_FN(int, Comm_set_attr, (MPI_Comm comm, int keyval, void* attribute_val)) {
  return attr_put("MPI_Comm_set_attr", comm, keyval, attribute_val);
} MESHMP_MPI_END(Comm_set_attr)
MESHMP_MPI_FN(int, Attr_get, (MPI_Comm comm, int keyval, void* attribute_val, int* flag)) {
  return attr_get("MPI_Attr_get", comm, keyval, attribute_val, flag);
} MESHMP_MPI_END(Attr_get)
MESHMP_MPI_FN(int, Comm_get_attr, (MPI_Comm comm, int keyval, void* attribute_val, int* flag)) {
  return attr_get("MPI_Comm_get_attr", comm, keyval, attribute_val, flag);
} MESHMP_MPI_END(Comm_get_attr)
MESHMP_MPI_FN(int, Attr_delete, (MPI_Comm comm, int keyval)) { return attr_delete("MPI_Attr_delete", comm, keyval); } MESHMP_MPI_END(Attr_delete)
MESHMP_MPI_FN(int, Comm_delete_attr, (MPI_Comm comm, int keyval)) {
  return attr_delete("MPI_Comm_delete_attr", comm, keyval);
} MESHMP_MPI_END(Comm_delete_attr)
