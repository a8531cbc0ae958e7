// Info objects (MPI-2.2 §9; MPI_INFO_ENV from MPI-3.1 §9.1.2): ordered
// (key, value) string pairs. Keys are 1..MPI_MAX_INFO_KEY characters, values
// 1..MPI_MAX_INFO_VAL; a key set again replaces its value in place, so
// MPI_Info_get_nthkey numbers keys in the order they were first set. meshmp
// acts on no key (MPI_Alloc_mem, MPI_Comm_dup_with_info ... accept any info);
// the objects exist so that programs which pass hints run unchanged.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "mpi11/internal.h"

using namespace meshmp;
using namespace meshmp::mpi;

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

struct Infos {
  std::deque<Pairs> table = std::deque<Pairs>(1);  // handle h is table[h - 1]; MPI_INFO_ENV is handle 1
  std::vector<bool> in_use{true};
  std::vector<MPI_Info> free;
};
Infos& infos() {
  static Infos i;
  return i;
}

// MPI_INFO_ENV (MPI-3.1 §9.1.2): how the program was started, as far as
// meshmp knows it -- "maxprocs" (the world's size once MPI is initialized),
// "thread_level", "host" and "wdir".
void fill_env(Pairs& p) {
  p.clear();
  const State& s = state();
  if (s.initialized && !s.finalized && s.engine) p.emplace_back("maxprocs", std::to_string(s.engine->size()));
  const char* levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
  int provided = MPI_THREAD_SINGLE;
  if (s.initialized && !s.finalized) PMPI_Query_thread(&provided);
  p.emplace_back("thread_level", levels[std::clamp(provided, 0, 3)]);
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) p.emplace_back("host", host);
  char wd[4096];
  if (::getcwd(wd, sizeof wd)) p.emplace_back("wdir", wd);
}

bool valid(MPI_Info h) {
  Infos& in = infos();
  return h > 0 && static_cast<std::size_t>(h) <= in.table.size() && in.in_use[static_cast<std::size_t>(h) - 1];
}

// The pairs of `info`, or nullptr with *err raised as MPI_ERR_INFO
// (MPI_INFO_ENV is refreshed first; with `writable` it is refused).
Pairs* lookup(const char* call, MPI_Info info, int* err, bool writable = false) {
  Infos& in = infos();
  if (!valid(info)) {
    *err = raise(MPI_COMM_NULL, call, MPI_ERR_INFO,
                 "info = " + std::to_string(info) + " is not an info object" +
                     (info == MPI_INFO_NULL ? " (it is MPI_INFO_NULL)" : ""));
    return nullptr;
  }
  if (info == MPI_INFO_ENV) {
    if (writable) {
      *err = raise(MPI_COMM_NULL, call, MPI_ERR_INFO, "MPI_INFO_ENV is predefined: it cannot be changed or freed");
      return nullptr;
    }
    fill_env(in.table[0]);
  }
  return &in.table[static_cast<std::size_t>(info) - 1];
}

int check_key(const char* call, const char* key) {
  if (!key) return raise(MPI_COMM_NULL, call, MPI_ERR_INFO_KEY, "key is NULL");
  const std::size_t n = strnlen(key, MPI_MAX_INFO_KEY + 1);
  if (n == 0) return raise(MPI_COMM_NULL, call, MPI_ERR_INFO_KEY, "key is empty");
  if (n > MPI_MAX_INFO_KEY)
    return raise(MPI_COMM_NULL, call, MPI_ERR_INFO_KEY,
                 "key is longer than MPI_MAX_INFO_KEY (" + std::to_string(MPI_MAX_INFO_KEY) + ") characters");
  return MPI_SUCCESS;
}

Pairs::iterator find(Pairs& p, const char* key) {
  return std::find_if(p.begin(), p.end(), [&](const auto& kv) { return kv.first == key; });
}

// A new info object holding `pairs`.
MPI_Info make(Pairs pairs) {
  Infos& in = infos();
  MPI_Info h;
  if (!in.free.empty()) {
    h = in.free.back();
    in.free.pop_back();
  } else {
    in.table.emplace_back();
    in.in_use.push_back(false);
    h = static_cast<MPI_Info>(in.table.size());
  }
  in.table[static_cast<std::size_t>(h) - 1] = std::move(pairs);
  in.in_use[static_cast<std::size_t>(h) - 1] = true;
  return h;
}

// Copies `s` into `out` (room for len characters and a NUL): MPI-2.2 §9's
// rule for MPI_Info_get and MPI_Info_get_nthkey, truncating.
void copy_out(const std::string& s, char* out, std::size_t len) {
  const std::size_t n = std::min(s.size(), len);
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
}

}  // namespace

namespace meshmp::mpi {
bool info_valid(MPI_Info info) { return info == MPI_INFO_NULL || info == MPI_INFO_ENV || valid(info); }
}  // namespace meshmp::mpi

MESHMP_MPI_FN(int, Info_create, (MPI_Info* info)) {
  if (!info) return raise(MPI_COMM_NULL, "MPI_Info_create", MPI_ERR_ARG, "info is NULL");
  *info = make({});
  return MPI_SUCCESS;
} MESHMP_MPI_END(Info_create)

MESHMP_MPI_FN(int, Info_set, (MPI_Info info, const char* key, const char* value)) {
  const char* call = "MPI_Info_set";
  int err;
  Pairs* p = lookup(call, info, &err, true);
  if (!p) return err;
  if ((err = check_key(call, key))) return err;
  if (!value) return raise(MPI_COMM_NULL, call, MPI_ERR_INFO_VALUE, "value is NULL");
  const std::size_t n = strnlen(value, MPI_MAX_INFO_VAL + 1);
  if (n == 0) return raise(MPI_COMM_NULL, call, MPI_ERR_INFO_VALUE, "value is empty");
  if (n > MPI_MAX_INFO_VAL)
    return raise(MPI_COMM_NULL, call, MPI_ERR_INFO_VALUE,
                 "value is longer than MPI_MAX_INFO_VAL (" + std::to_string(MPI_MAX_INFO_VAL) + ") characters");
  auto it = find(*p, key);
  if (it != p->end()) it->second = value;
  else p->emplace_back(key, value);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Info_set)

MESHMP_MPI_FN(int, Info_delete, (MPI_Info info, const char* key)) {
  const char* call = "MPI_Info_delete";
  int err;
  Pairs* p = lookup(call, info, &err, true);
  if (!p) return err;
  if ((err = check_key(call, key))) return err;
  auto it = find(*p, key);
  if (it == p->end()) return raise(MPI_COMM_NULL, call, MPI_ERR_INFO_NOKEY, std::string("no key \"") + key + "\"");
  p->erase(it);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Info_delete)

MESHMP_MPI_FN(int, Info_get, (MPI_Info info, const char* key, int valuelen, char* value, int* flag)) {
  const char* call = "MPI_Info_get";
  int err;
  Pairs* p = lookup(call, info, &err);
  if (!p) return err;
  if ((err = check_key(call, key))) return err;
  if (valuelen < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "valuelen = " + std::to_string(valuelen) + " is negative");
  if (!flag || !value) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "value or flag is NULL");
  auto it = find(*p, key);
  *flag = it != p->end();
  if (*flag) copy_out(it->second, value, static_cast<std::size_t>(valuelen));
  return MPI_SUCCESS;
} MESHMP_MPI_END(Info_get)

MESHMP_MPI_FN(int, Info_get_valuelen, (MPI_Info info, const char* key, int* valuelen, int* flag)) {
  const char* call = "MPI_Info_get_valuelen";
  int err;
  Pairs* p = lookup(call, info, &err);
  if (!p) return err;
  if ((err = check_key(call, key))) return err;
  if (!flag || !valuelen) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "valuelen or flag is NULL");
  auto it = find(*p, key);
  *flag = it != p->end();
  if (*flag) *valuelen = static_cast<int>(it->second.size());
  return MPI_SUCCESS;
} MESHMP_MPI_END(Info_get_valuelen)

MESHMP_MPI_FN(int, Info_get_nkeys, (MPI_Info info, int* nkeys)) {
  int err;
  Pairs* p = lookup("MPI_Info_get_nkeys", info, &err);
  if (!p) return err;
  if (!nkeys) return raise(MPI_COMM_NULL, "MPI_Info_get_nkeys", MPI_ERR_ARG, "nkeys is NULL");
  *nkeys = static_cast<int>(p->size());
  return MPI_SUCCESS;
} MESHMP_MPI_END(Info_get_nkeys)

MESHMP_MPI_FN(int, Info_get_nthkey, (MPI_Info info, int n, char* key)) {
  const char* call = "MPI_Info_get_nthkey";
  int err;
  Pairs* p = lookup(call, info, &err);
  if (!p) return err;
  if (n < 0 || static_cast<std::size_t>(n) >= p->size())
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                 "n = " + std::to_string(n) + " is not below the number of keys, " + std::to_string(p->size()));
  if (!key) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "key is NULL");
  copy_out((*p)[static_cast<std::size_t>(n)].first, key, MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Info_get_nthkey)

MESHMP_MPI_FN(int, Info_dup, (MPI_Info info, MPI_Info* newinfo)) {
  int err;
  Pairs* p = lookup("MPI_Info_dup", info, &err);
  if (!p) return err;
  if (!newinfo) return raise(MPI_COMM_NULL, "MPI_Info_dup", MPI_ERR_ARG, "newinfo is NULL");
  *newinfo = make(*p);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Info_dup)

MESHMP_MPI_FN(int, Info_free, (MPI_Info* info)) {
  if (!info) return raise(MPI_COMM_NULL, "MPI_Info_free", MPI_ERR_ARG, "info is NULL");
  int err;
  if (!lookup("MPI_Info_free", *info, &err, true)) return err;
  Infos& in = infos();
  const std::size_t i = static_cast<std::size_t>(*info) - 1;
  in.table[i].clear();
  in.in_use[i] = false;
  in.free.push_back(*info);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Info_free)
