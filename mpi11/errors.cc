// Error classes, codes, messages and error handlers (MPI-1.1 §7.2-7.4).
//
// A code is class + 64 * k: k > 0 indexes a ring of remembered messages
// ("MPI_Send(dest=9): rank out of range, the communicator has 4 ranks"), so
// MPI_Error_string names the function and the argument, then the class
// (MPI_ERR_...); MPI_Error_class strips k. Predefined handlers are MPI_ERRORS_ARE_FATAL (print, end the job
// through the launcher) and MPI_ERRORS_RETURN; user handlers come from
// MPI_Errhandler_create.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

constexpr int kClassBits = 64;
constexpr int kRingSize = 256;
// MPI_Add_error_class (MPI-2.2 §8.5): classes kFirstUserClass..63. Codes of
// MPI_Add_error_code: class + 64 * k, k from kRingSize + 1 on (above the
// ring of remembered messages).
constexpr int kFirstUserClass = 32;

struct UserErrors {
  std::vector<std::string> classes;  // text of class kFirstUserClass + i ("" until set)
  std::vector<std::string> codes;    // text of code (class + 64 * (kRingSize + 1 + i))
  std::vector<int> code_class;
};
UserErrors& user_errors() {
  static UserErrors u;
  return u;
}
bool user_class(int cls) {
  return cls >= kFirstUserClass && cls < kFirstUserClass + static_cast<int>(user_errors().classes.size());
}
// The index of a user code, or -1.
int user_code(int code) {
  const int k = code / kClassBits - (kRingSize + 1);
  if (code < 0 || k < 0 || k >= static_cast<int>(user_errors().codes.size())) return -1;
  return user_errors().code_class[static_cast<std::size_t>(k)] == code % kClassBits ? k : -1;
}

const char* class_text(int cls) {
  switch (cls) {
    case MPI_SUCCESS: return "no error";
    case MPI_ERR_BUFFER: return "invalid buffer pointer (or the attached buffer is too small)";
    case MPI_ERR_COUNT: return "invalid count argument";
    case MPI_ERR_TYPE: return "invalid datatype argument";
    case MPI_ERR_TAG: return "invalid tag argument";
    case MPI_ERR_COMM: return "invalid communicator";
    case MPI_ERR_RANK: return "invalid rank";
    case MPI_ERR_REQUEST: return "invalid request (handle)";
    case MPI_ERR_ROOT: return "invalid root";
    case MPI_ERR_GROUP: return "invalid group";
    case MPI_ERR_OP: return "invalid operation";
    case MPI_ERR_TOPOLOGY: return "invalid topology";
    case MPI_ERR_DIMS: return "invalid dimension argument";
    case MPI_ERR_ARG: return "invalid argument of some other kind";
    case MPI_ERR_UNKNOWN: return "unknown error";
    case MPI_ERR_TRUNCATE: return "message truncated on receive";
    case MPI_ERR_OTHER: return "known error not in this list";
    case MPI_ERR_INTERN: return "internal MPI (implementation) error";
    case MPI_ERR_IN_STATUS: return "error code is in status";
    case MPI_ERR_PENDING: return "pending request";
    case MPI_ERR_NO_MEM: return "out of memory";
    case MPI_ERR_INFO: return "invalid info object";
    case MPI_ERR_INFO_KEY: return "info key too long or empty";
    case MPI_ERR_INFO_VALUE: return "info value too long or empty";
    case MPI_ERR_INFO_NOKEY: return "no such info key";
    default:
      return user_class(cls) ? user_errors().classes[static_cast<std::size_t>(cls - kFirstUserClass)].c_str() : nullptr;
  }
}

// The class's name, as a code's text ends with it.
const char* class_name(int cls) {
  switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM";
    case MPI_ERR_INFO: return "MPI_ERR_INFO";
    case MPI_ERR_INFO_KEY: return "MPI_ERR_INFO_KEY";
    case MPI_ERR_INFO_VALUE: return "MPI_ERR_INFO_VALUE";
    case MPI_ERR_INFO_NOKEY: return "MPI_ERR_INFO_NOKEY";
    default: return user_class(cls) ? "a class added by MPI_Add_error_class" : "?";
  }
}

struct Handlers {
  std::mutex lock;  // MPI_THREAD_FUNNELED: only the ring needs it, for safety
  std::vector<std::string> ring = std::vector<std::string>(kRingSize);
  int next = 0;
  std::vector<MPI_Handler_function*> user{nullptr, nullptr, nullptr};  // 0..2 predefined
};
Handlers& handlers() {
  static Handlers h;
  return h;
}

int remember(int cls, const std::string& text) {
  Handlers& h = handlers();
  std::lock_guard<std::mutex> g(h.lock);
  const int k = h.next;
  h.next = (h.next + 1) % kRingSize;
  h.ring[k] = text;
  return cls + kClassBits * (k + 1);
}

bool valid_code(int code) {
  if (user_code(code) >= 0) return true;
  return code >= 0 && code < kClassBits * (kRingSize + 1) && class_text(code % kClassBits);
}

bool valid_handler(MPI_Errhandler h) {
  return h > 0 && h < static_cast<int>(handlers().user.size()) && (h <= MPI_ERRORS_RETURN || handlers().user[h]);
}

}  // namespace

bool is_error_code(int code) { return valid_code(code); }

int error_code(int cls, const char* call, const std::string& message) {
  return remember(cls, std::string(call) + ": " + message);
}

int raise(MPI_Comm comm, const char* call, int cls, const std::string& message) {
  return report(comm, remember(cls, std::string(call) + ": " + message));
}

int failed_call(const char* call, const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const std::length_error*>(&e))
    return raise(MPI_COMM_NULL, call, MPI_ERR_NO_MEM, std::string("cannot allocate the memory it needs (") + e.what() + ")");
  return raise(MPI_COMM_NULL, call, MPI_ERR_INTERN, e.what());
}

int run_handler(MPI_Comm comm, int code) {
  State& s = state();
  MPI_Errhandler h = MPI_ERRORS_ARE_FATAL;
  if (comm > 0 && static_cast<std::size_t>(comm) < s.comms.size() && s.comms[comm].in_use)
    h = s.comms[comm].errhandler;
  else if (s.comms.size() > MPI_COMM_WORLD)
    h = s.comms[MPI_COMM_WORLD].errhandler;
  if (h == MPI_ERRORS_RETURN) return code;
  if (h > MPI_ERRORS_RETURN && valid_handler(h)) {
    MPI_Comm c = comm;
    int e = code;
    handlers().user[h](&c, &e);
    return code;
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  PMPI_Error_string(code, text, &len);
  std::fprintf(stderr, "meshmp MPI error: %s\n", text);
  std::fflush(stderr);
  if (s.engine) s.engine->abort(code % kClassBits, text);
  std::_Exit(1);
}

int class_of(mesh::Error e) {
  switch (e) {
    case mesh::Error::kOk: return MPI_SUCCESS;
    case mesh::Error::kTruncate: return MPI_ERR_TRUNCATE;
    case mesh::Error::kPeerDead: return MPI_ERR_OTHER;
    case mesh::Error::kProtocol: return MPI_ERR_INTERN;
    case mesh::Error::kUnreachable: return MPI_ERR_OTHER;
  }
  return MPI_ERR_UNKNOWN;
}

int failed_code(mesh::Error e, const char* call) {
  const char* why = e == mesh::Error::kTruncate   ? "message longer than the receive buffer"
                    : e == mesh::Error::kPeerDead ? "the peer process died or the link to it broke"
                    : e == mesh::Error::kUnreachable ? "no link reaches the peer (a mesh fabric without routing)"
                                                  : "the peer sent malformed data; the link was closed";
  return remember(class_of(e), std::string(call) + ": " + why);
}

}  // namespace meshmp::mpi

using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Error_class, (int errorcode, int* errorclass)) {
  if (!valid_code(errorcode)) return raise(MPI_COMM_NULL, "MPI_Error_class", MPI_ERR_ARG, "errorcode " + std::to_string(errorcode) + " is not an MPI error code");
  if (!errorclass) return raise(MPI_COMM_NULL, "MPI_Error_class", MPI_ERR_ARG, "errorclass is NULL");
  *errorclass = errorcode % kClassBits;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Error_class)

MESHMP_MPI_FN(int, Error_string, (int errorcode, char* string, int* resultlen)) {
  if (!valid_code(errorcode)) return raise(MPI_COMM_NULL, "MPI_Error_string", MPI_ERR_ARG, "errorcode " + std::to_string(errorcode) + " is not an MPI error code");
  if (!string || !resultlen) return raise(MPI_COMM_NULL, "MPI_Error_string", MPI_ERR_ARG, "string or resultlen is NULL");
  // A class alone: its text. A code made by a call: what the call said,
  // then the class's name ("MPI_Send: tag = -1 ... (MPI_ERR_TAG)").
  std::string text = class_text(errorcode % kClassBits);
  if (const int k = user_code(errorcode); k >= 0) {
    text = user_errors().codes[static_cast<std::size_t>(k)];
  } else if (errorcode >= kClassBits) {
    Handlers& h = handlers();
    std::lock_guard<std::mutex> g(h.lock);
    text = h.ring[errorcode / kClassBits - 1] + " (" + class_name(errorcode % kClassBits) + ")";
  }
  const std::size_t n = std::min<std::size_t>(text.size(), MPI_MAX_ERROR_STRING - 1);
  std::memcpy(string, text.data(), n);
  string[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Error_string)

MESHMP_MPI_FN(int, Add_error_class, (int* errorclass)) {
  if (!errorclass) return raise(MPI_COMM_NULL, "MPI_Add_error_class", MPI_ERR_ARG, "errorclass is NULL");
  UserErrors& u = user_errors();
  if (kFirstUserClass + static_cast<int>(u.classes.size()) >= kClassBits)
    return raise(MPI_COMM_NULL, "MPI_Add_error_class", MPI_ERR_OTHER,
                 "no more error classes (" + std::to_string(kClassBits - kFirstUserClass) + " can be added)");
  u.classes.emplace_back();
  *errorclass = kFirstUserClass + static_cast<int>(u.classes.size()) - 1;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Add_error_class)

MESHMP_MPI_FN(int, Add_error_code, (int errorclass, int* errorcode)) {
  if (!errorcode) return raise(MPI_COMM_NULL, "MPI_Add_error_code", MPI_ERR_ARG, "errorcode is NULL");
  if (errorclass <= 0 || errorclass >= kClassBits || !class_text(errorclass))
    return raise(MPI_COMM_NULL, "MPI_Add_error_code", MPI_ERR_ARG,
                 "errorclass = " + std::to_string(errorclass) + " is not an error class");
  UserErrors& u = user_errors();
  const long long code = errorclass + static_cast<long long>(kClassBits) * (kRingSize + 1 + u.codes.size());
  if (code > MPI_ERR_LASTCODE) return raise(MPI_COMM_NULL, "MPI_Add_error_code", MPI_ERR_OTHER, "no more error codes");
  u.codes.emplace_back();
  u.code_class.push_back(errorclass);
  *errorcode = static_cast<int>(code);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Add_error_code)

MESHMP_MPI_FN(int, Add_error_string, (int errorcode, const char* string)) {
  const char* call = "MPI_Add_error_string";
  if (!string) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "string is NULL");
  if (std::strlen(string) >= MPI_MAX_ERROR_STRING)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "string is longer than MPI_MAX_ERROR_STRING - 1 characters");
  UserErrors& u = user_errors();
  if (user_class(errorcode)) u.classes[static_cast<std::size_t>(errorcode - kFirstUserClass)] = string;
  else if (const int k = user_code(errorcode); k >= 0) u.codes[static_cast<std::size_t>(k)] = string;
  else
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                 "errorcode = " + std::to_string(errorcode) +
                     " was not made by MPI_Add_error_class or MPI_Add_error_code (a predefined one keeps its text)");
  return MPI_SUCCESS;
} MESHMP_MPI_END(Add_error_string)

// MPI-2.2 §8.3: the communicator's handler, as if a call on it had failed
// with `errorcode` (MPI_ERRORS_ARE_FATAL ends the job, MPI_ERRORS_RETURN
// does nothing, a user handler is called).
MESHMP_MPI_FN(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode)) {
  int err;
  if (!check_comm(comm, "MPI_Comm_call_errhandler", &err)) return err;
  report(comm, errorcode);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_call_errhandler)

namespace meshmp::mpi {
int last_used_code() {
  const UserErrors& u = user_errors();
  int last = kFirstUserClass + static_cast<int>(u.classes.size()) - 1;
  if (!u.codes.empty())
    last = std::max(last, u.code_class.back() + kClassBits * (kRingSize + static_cast<int>(u.codes.size())));
  // MPI-2.2 §8.5: "always greater than or equal to MPI_ERR_LASTCODE", the
  // bound of every code (class + 64 * k), added ones included.
  return std::max(last, static_cast<int>(MPI_ERR_LASTCODE));
}
}  // namespace meshmp::mpi

namespace {
// MPI-1's Errhandler_set/get/create and MPI-2's Comm_set/get/create_errhandler.
int set_handler(const char* call, MPI_Comm comm, MPI_Errhandler errhandler) {
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if (!valid_handler(errhandler))
    return raise(comm, call, MPI_ERR_ARG, "errhandler " + std::to_string(errhandler) + " is not an error handler");
  c->errhandler = errhandler;
  return MPI_SUCCESS;
}

int get_handler(const char* call, MPI_Comm comm, MPI_Errhandler* errhandler) {
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if (!errhandler) return raise(comm, call, MPI_ERR_ARG, "errhandler is NULL");
  *errhandler = c->errhandler;
  return MPI_SUCCESS;
}

int create_handler(const char* call, MPI_Handler_function* function, MPI_Errhandler* errhandler) {
  if (!function || !errhandler) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "function or errhandler is NULL");
  handlers().user.push_back(function);
  *errhandler = static_cast<int>(handlers().user.size()) - 1;
  return MPI_SUCCESS;
}
}  // namespace

MESHMP_MPI_FN(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler)) {
  return set_handler("MPI_Errhandler_set", comm, errhandler);
} MESHMP_MPI_END(Errhandler_set)
MESHMP_MPI_FN(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler)) {
  return set_handler("MPI_Comm_set_errhandler", comm, errhandler);
} MESHMP_MPI_END(Comm_set_errhandler)
MESHMP_MPI_FN(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler* errhandler)) {
  return get_handler("MPI_Errhandler_get", comm, errhandler);
} MESHMP_MPI_END(Errhandler_get)
MESHMP_MPI_FN(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler* errhandler)) {
  return get_handler("MPI_Comm_get_errhandler", comm, errhandler);
} MESHMP_MPI_END(Comm_get_errhandler)
MESHMP_MPI_FN(int, Errhandler_create, (MPI_Handler_function* function, MPI_Errhandler* errhandler)) {
  return create_handler("MPI_Errhandler_create", function, errhandler);
} MESHMP_MPI_END(Errhandler_create)
MESHMP_MPI_FN(int, Comm_create_errhandler, (MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler)) {
  return create_handler("MPI_Comm_create_errhandler", function, errhandler);
} MESHMP_MPI_END(Comm_create_errhandler)

MESHMP_MPI_FN(int, Errhandler_free, (MPI_Errhandler* errhandler)) {
  if (!errhandler || !valid_handler(*errhandler))
    return raise(MPI_COMM_NULL, "MPI_Errhandler_free", MPI_ERR_ARG, "not an error handler");
  // Predefined handlers stay; a user handler stays valid while a
  // communicator still uses it (MPI-1.1 §7.2), so its slot is not reused.
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Errhandler_free)
