#include "mesh/bootstrap/pmix.h"

#include <pmix.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace meshmp::mesh {

namespace {

[[noreturn]] void fail(const char* call, pmix_status_t rc, const std::string& what = "") {
  std::string why = PMIx_Error_string(rc);
  if (rc == PMIX_ERR_PARTIAL_SUCCESS || rc == PMIX_ERR_PROC_ABORTED || rc == PMIX_ERR_LOST_CONNECTION)
    why += ": a rank of the job has gone (exited or killed) before reaching it";
  else if (rc == PMIX_ERR_TIMEOUT)
    why += ": not every rank reached it within the resource manager's timeout";
  else if (rc == PMIX_ERR_UNREACH)
    why += ": the PMIx server cannot be reached";
  throw std::runtime_error(std::string(call) + " failed" + (what.empty() ? "" : " (" + what + ")") + ": " + why);
}

// A job-level value of the namespace as an unsigned number.
unsigned long job_number(const pmix_proc_t& wild, const char* key) {
  pmix_value_t* v = nullptr;
  const pmix_status_t rc = PMIx_Get(&wild, key, nullptr, 0, &v);
  if (rc != PMIX_SUCCESS) fail("PMIx_Get", rc, key);
  unsigned long n = 0;
  bool ok = true;
  switch (v->type) {
    case PMIX_UINT32: n = v->data.uint32; break;
    case PMIX_UINT16: n = v->data.uint16; break;
    case PMIX_UINT64: n = v->data.uint64; break;
    default: ok = false;
  }
  PMIX_VALUE_RELEASE(v);
  if (!ok) throw std::runtime_error(std::string("PMIx_Get(") + key + "): not an unsigned number");
  return n;
}

// This rank's PMIX_APPNUM, below `size`; 0 where the server has none.
int app_number(const pmix_proc_t& me, int size) {
  pmix_value_t* v = nullptr;
  if (PMIx_Get(&me, PMIX_APPNUM, nullptr, 0, &v) != PMIX_SUCCESS || !v) return 0;
  long n = v->type == PMIX_UINT32 ? static_cast<long>(v->data.uint32) : v->type == PMIX_UINT16 ? v->data.uint16 : 0;
  PMIX_VALUE_RELEASE(v);
  if (n < 0 || n >= size) throw std::runtime_error("PMIx: PMIX_APPNUM " + std::to_string(n) + " is out of range");
  return static_cast<int>(n);
}

}  // namespace

bool pmix_environment() {
  if (!std::getenv("PMIX_NAMESPACE") || !std::getenv("PMIX_RANK")) return false;
  for (const char* uri : {"PMIX_SERVER_URI4", "PMIX_SERVER_URI41", "PMIX_SERVER_URI3", "PMIX_SERVER_URI2",
                          "PMIX_SERVER_URI21"})
    if (std::getenv(uri)) return true;
  return false;
}

PmixBootstrap::PmixBootstrap() {
  pmix_proc_t me;
  if (const pmix_status_t rc = PMIx_Init(&me, nullptr, 0); rc != PMIX_SUCCESS) {
    const char* ns = std::getenv("PMIX_NAMESPACE");
    fail("PMIx_Init", rc, std::string("PMIX_NAMESPACE=") + (ns ? ns : ""));
  }
  nspace_ = me.nspace;
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
  try {
    const unsigned long size = job_number(wild, PMIX_JOB_SIZE);
    if (size < 1 || size > (1u << 24) || me.rank >= size)
      throw std::runtime_error("PMIx: rank " + std::to_string(me.rank) + " of a job of " + std::to_string(size) +
                               " ranks (namespace " + nspace_ + ") is out of range");
    size_ = static_cast<int>(size);
    rank_ = static_cast<int>(me.rank);
    local_ = static_cast<int>(job_number(wild, PMIX_LOCAL_SIZE));
    appnum_ = app_number(me, size_);
    agree_job_and_secret(*this, &job_, &secret_);
  } catch (...) {
    PMIx_Finalize(nullptr, 0);
    throw;
  }
}

PmixBootstrap::~PmixBootstrap() { PMIx_Finalize(nullptr, 0); }

std::string PmixBootstrap::host_of(int rank) const {
  pmix_proc_t p;
  PMIX_LOAD_PROCID(&p, nspace_.c_str(), static_cast<pmix_rank_t>(rank));
  pmix_value_t* v = nullptr;
  if (PMIx_Get(&p, PMIX_HOSTNAME, nullptr, 0, &v) != PMIX_SUCCESS) return "";
  std::string host = v->type == PMIX_STRING && v->data.string ? v->data.string : "";
  PMIX_VALUE_RELEASE(v);
  return host;
}

void PmixBootstrap::put(const std::string& key, const std::string& value) {
  const std::string k = "meshmp." + key;
  if (k.size() > PMIX_MAX_KEYLEN) throw std::invalid_argument("PMIx key too long: " + k);
  pmix_value_t v;
  PMIX_VALUE_CONSTRUCT(&v);
  v.type = PMIX_BYTE_OBJECT;
  v.data.bo.bytes = const_cast<char*>(value.data());  // PMIx_Put copies
  v.data.bo.size = value.size();
  if (const pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k.c_str(), &v); rc != PMIX_SUCCESS) fail("PMIx_Put", rc, k);
}

void PmixBootstrap::fence() {
  if (const pmix_status_t rc = PMIx_Commit(); rc != PMIX_SUCCESS) fail("PMIx_Commit", rc);
  pmix_proc_t wild;
  PMIX_LOAD_PROCID(&wild, nspace_.c_str(), PMIX_RANK_WILDCARD);
  pmix_info_t info;
  bool collect = true;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  const pmix_status_t rc = PMIx_Fence(&wild, 1, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) fail("PMIx_Fence", rc, "namespace " + nspace_);
  got_.clear();
}

const std::string& PmixBootstrap::get(int rank, const std::string& key) const {
  auto [it, fresh] = got_.try_emplace({rank, key});
  if (!fresh) return it->second;
  pmix_proc_t p;
  PMIX_LOAD_PROCID(&p, nspace_.c_str(), static_cast<pmix_rank_t>(rank));
  pmix_info_t info;
  bool optional = true;
  PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
  pmix_value_t* v = nullptr;
  const std::string k = "meshmp." + key;
  const pmix_status_t rc = PMIx_Get(&p, k.c_str(), &info, 1, &v);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS || v->type != PMIX_BYTE_OBJECT) {
    if (v) PMIX_VALUE_RELEASE(v);
    got_.erase(it);
    throw std::runtime_error("bootstrap (PMIx): rank " + std::to_string(rank) + " published no \"" + key + "\"" +
                             (rc != PMIX_SUCCESS ? std::string(": ") + PMIx_Error_string(rc) : ""));
  }
  it->second.assign(v->data.bo.bytes, v->data.bo.size);
  PMIX_VALUE_RELEASE(v);
  return it->second;
}

void PmixBootstrap::abort(int code, const std::string& message) {
  PMIx_Abort(code, message.c_str(), nullptr, 0);
}

}  // namespace meshmp::mesh
