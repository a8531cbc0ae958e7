#include "mesh/bootstrap/pmi2.h"

#include <dlfcn.h>
#include <slurm/pmi2.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace meshmp::mesh {

namespace {

constexpr const char* kHostKey = "node";  // each rank's host name
// Hex characters per piece: PMI2_MAX_VALLEN less the piece count's prefix
// ("N:") and the terminating NUL.
constexpr std::size_t kPiece = (PMI2_MAX_VALLEN - 16) / 2 * 2;

// libpmi2's functions, loaded once (dlopen of libpmi2.so.0).
struct Pmi2 {
  decltype(&PMI2_Init) init = nullptr;
  decltype(&PMI2_Finalize) finalize = nullptr;
  decltype(&PMI2_Abort) abort = nullptr;
  decltype(&PMI2_Job_GetId) job_id = nullptr;
  decltype(&PMI2_KVS_Put) put = nullptr;
  decltype(&PMI2_KVS_Fence) fence = nullptr;
  decltype(&PMI2_KVS_Get) get = nullptr;
};

const Pmi2& pmi2() {
  static const Pmi2 lib = [] {
    Pmi2 l;
    void* h = ::dlopen("libpmi2.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h)
      throw std::runtime_error(std::string("started by a PMI-2 launcher (PMI_FD is set: MPICH's mpiexec, srun "
                                           "--mpi=pmi2), but its client library cannot be loaded (Debian: apt "
                                           "install libpmi2-0): ") +
                               ::dlerror());
    const auto sym = [h](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(h, name));
      if (!fn) throw std::runtime_error(std::string("libpmi2.so.0 has no ") + name);
    };
    sym(l.init, "PMI2_Init");
    sym(l.finalize, "PMI2_Finalize");
    sym(l.abort, "PMI2_Abort");
    sym(l.job_id, "PMI2_Job_GetId");
    sym(l.put, "PMI2_KVS_Put");
    sym(l.fence, "PMI2_KVS_Fence");
    sym(l.get, "PMI2_KVS_Get");
    return l;
  }();
  return lib;
}

void check(const char* call, int rc, const std::string& what = "") {
  if (rc != PMI2_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed" + (what.empty() ? "" : " (" + what + ")") +
                             ": PMI-2 error " + std::to_string(rc));
}

// One key space for the whole job (the rank given to PMI2_KVS_Get is only a
// hint): each rank's keys carry its rank.
std::string piece_key(int rank, const std::string& key, std::size_t i) {
  return "meshmp." + std::to_string(rank) + "." + key + "." + std::to_string(i);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

bool pmi2_environment() { return std::getenv("PMI_FD") && std::getenv("PMI_RANK") && std::getenv("PMI_SIZE"); }

Pmi2Bootstrap::Pmi2Bootstrap() {
  const Pmi2& lib = pmi2();
  int spawned = 0;
  check("PMI2_Init", lib.init(&spawned, &size_, &rank_, &appnum_));
  try {
    if (size_ < 1 || size_ > (1 << 24) || rank_ < 0 || rank_ >= size_)
      throw std::runtime_error("PMI-2: rank " + std::to_string(rank_) + " of a job of " + std::to_string(size_) +
                               " ranks is out of range");
    if (appnum_ < 0 || appnum_ >= size_) appnum_ = 0;
    char id[PMI2_MAX_VALLEN] = {};
    check("PMI2_Job_GetId", lib.job_id(id, sizeof id - 1));
    kvs_ = id;
    // The launcher's key-value space is reached only through the
    // descriptor PMI_FD, which only this job's processes hold.
    char host[256] = {};
    (void)::gethostname(host, sizeof host - 1);
    put(kHostKey, host);
    agree_job_and_secret(*this, &job_, &secret_);  // (its fence carries the host names too)
    if (size_ == 1) fence();
    local_ = 0;
    for (int r = 0; r < size_; ++r) {
      hosts_.push_back(get(r, kHostKey));
      local_ += hosts_.back() == host;
    }
  } catch (...) {
    lib.finalize();
    throw;
  }
}

Pmi2Bootstrap::~Pmi2Bootstrap() { pmi2().finalize(); }

std::string Pmi2Bootstrap::host_of(int rank) const {
  return rank >= 0 && rank < static_cast<int>(hosts_.size()) ? hosts_[rank] : "";
}

void Pmi2Bootstrap::put(const std::string& key, const std::string& value) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * value.size());
  for (unsigned char c : value) hex += digits[c >> 4], hex += digits[c & 15];
  const std::size_t pieces = hex.empty() ? 1 : (hex.size() + kPiece - 1) / kPiece;
  for (std::size_t i = 0; i < pieces; ++i) {
    const std::string k = piece_key(rank_, key, i);
    if (k.size() >= PMI2_MAX_KEYLEN) throw std::invalid_argument("PMI-2 key too long: " + k);
    std::string v = (i == 0 ? std::to_string(pieces) + ":" : "") + hex.substr(i * kPiece, kPiece);
    check("PMI2_KVS_Put", pmi2().put(k.c_str(), v.c_str()), k);
  }
}

// PMI2_KVS_Fence makes this rank's puts visible, but under Hydra it returns
// at once, before the other ranks have come (Slurm's waits for them all);
// Hydra's PMI2_KVS_Get of a key not put yet waits for it. So each fence
// puts its number, and returns once every rank's is there: a barrier under
// both, which the engine needs (a link offered before it is there to join
// after it).
void Pmi2Bootstrap::fence() {
  got_.clear();
  const std::string key = "fence" + std::to_string(++fences_);
  put(key, "");
  check("PMI2_KVS_Fence", pmi2().fence(), "job " + kvs_);
  for (int r = 0; r < size_; ++r) (void)get(r, key);
  got_.clear();
}

const std::string& Pmi2Bootstrap::get(int rank, const std::string& key) const {
  const auto emplaced = got_.try_emplace({rank, key});
  const auto it = emplaced.first;  // (not a structured binding: clang 14 cannot capture one)
  if (!emplaced.second) return it->second;
  const auto fail = [&](const std::string& why) {
    got_.erase(it);
    throw std::runtime_error("bootstrap (PMI-2): rank " + std::to_string(rank) + " published no \"" + key + "\"" +
                             (why.empty() ? "" : ": " + why));
  };
  std::string hex;
  std::size_t pieces = 1;
  for (std::size_t i = 0; i < pieces; ++i) {
    char v[PMI2_MAX_VALLEN + 1] = {};
    int len = 0;
    const std::string k = piece_key(rank, key, i);
    if (pmi2().get(kvs_.c_str(), rank, k.c_str(), v, PMI2_MAX_VALLEN, &len) != PMI2_SUCCESS || len < 0 ||
        len > PMI2_MAX_VALLEN)
      fail(i == 0 ? "" : "its piece " + std::to_string(i) + " is missing");
    std::string s(v, std::strlen(v));
    if (i == 0) {
      const std::size_t colon = s.find(':');
      char* end = nullptr;
      const unsigned long n = colon == std::string::npos ? 0 : std::strtoul(s.c_str(), &end, 10);
      if (n < 1 || n > (1u << 20) || end != s.c_str() + colon) fail("a malformed piece count");
      pieces = n;
      s.erase(0, colon + 1);
    }
    hex += s;
  }
  if (hex.size() % 2) fail("an odd number of hex digits");
  std::string& out = it->second;
  out.resize(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) fail("not hex");
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

void Pmi2Bootstrap::abort(int code, const std::string& message) {
  if (std::getenv("SLURM_STEP_ID")) {
    pmi2().abort(1, (message + " (exit code " + std::to_string(code) + ")").c_str());
    return;
  }
  // Hydra has no PMI-2 abort ("Unrecognized PMI command: abort"): it ends
  // the job when a rank exits with a non-zero status, and reports that
  // status, once the rank's output is forwarded.
  std::fflush(nullptr);
  std::_Exit(code ? code : 1);
}

}  // namespace meshmp::mesh
