// Error classes, codes, messages and error handlers (MPI-1.1 §7.2-7.4).
//
// A code is class + 128 * k: k > 0 indexes a ring of remembered messages
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

constexpr int kClassBits = 128;
constexpr int kRingSize = 256;
// MPI_Add_error_class (MPI-2.2 §8.5): classes kFirstUserClass..127. Codes of
// MPI_Add_error_code: class + 128 * k, k from kRingSize + 1 on (above the
// ring of remembered messages).
constexpr int kFirstUserClass = 64;

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

// Every predefined class (MPI-3.1 Table 8.2), in order of value: its name,
// as a code's text ends with it, and its text.
struct ClassInfo {
  const char* name;
  const char* text;
};
constexpr ClassInfo kClasses[] = {
    {"MPI_SUCCESS", "no error"},
    {"MPI_ERR_BUFFER", "invalid buffer pointer (or the attached buffer is too small)"},
    {"MPI_ERR_COUNT", "invalid count argument"},
    {"MPI_ERR_TYPE", "invalid datatype argument"},
    {"MPI_ERR_TAG", "invalid tag argument"},
    {"MPI_ERR_COMM", "invalid communicator"},
    {"MPI_ERR_RANK", "invalid rank"},
    {"MPI_ERR_REQUEST", "invalid request (handle)"},
    {"MPI_ERR_ROOT", "invalid root"},
    {"MPI_ERR_GROUP", "invalid group"},
    {"MPI_ERR_OP", "invalid operation"},
    {"MPI_ERR_TOPOLOGY", "invalid topology"},
    {"MPI_ERR_DIMS", "invalid dimension argument"},
    {"MPI_ERR_ARG", "invalid argument of some other kind"},
    {"MPI_ERR_UNKNOWN", "unknown error"},
    {"MPI_ERR_TRUNCATE", "message truncated on receive"},
    {"MPI_ERR_OTHER", "known error not in this list"},
    {"MPI_ERR_INTERN", "internal MPI (implementation) error"},
    {"MPI_ERR_IN_STATUS", "error code is in status"},
    {"MPI_ERR_PENDING", "pending request"},
    {"MPI_ERR_NO_MEM", "out of memory"},
    {"MPI_ERR_INFO", "invalid info object"},
    {"MPI_ERR_INFO_KEY", "info key too long or empty"},
    {"MPI_ERR_INFO_VALUE", "info value too long or empty"},
    {"MPI_ERR_INFO_NOKEY", "no such info key"},
    {"MPI_ERR_ACCESS", "permission denied"},
    {"MPI_ERR_AMODE", "error related to the amode passed to MPI_File_open"},
    {"MPI_ERR_ASSERT", "invalid assert argument"},
    {"MPI_ERR_BAD_FILE", "invalid file name (e.g., path name too long)"},
    {"MPI_ERR_BASE", "invalid base passed to MPI_Free_mem"},
    {"MPI_ERR_CONVERSION", "an error occurred in a user supplied data conversion function"},
    {"MPI_ERR_DISP", "invalid disp argument"},
    {"MPI_ERR_DUP_DATAREP", "a data representation identifier already defined was passed to MPI_Register_datarep"},
    {"MPI_ERR_FILE_EXISTS", "file exists"},
    {"MPI_ERR_FILE_IN_USE", "file operation could not be completed: the file is open in some process"},
    {"MPI_ERR_FILE", "invalid file handle"},
    {"MPI_ERR_IO", "other I/O error"},
    {"MPI_ERR_KEYVAL", "invalid keyval has been passed"},
    {"MPI_ERR_LOCKTYPE", "invalid locktype argument"},
    {"MPI_ERR_NAME", "invalid service name passed to MPI_Lookup_name"},
    {"MPI_ERR_NOT_SAME", "collective argument not identical on all processes, or collective routines called in a different order by different processes"},
    {"MPI_ERR_NO_SPACE", "not enough space"},
    {"MPI_ERR_NO_SUCH_FILE", "file does not exist"},
    {"MPI_ERR_PORT", "invalid port name passed to MPI_Comm_connect"},
    {"MPI_ERR_QUOTA", "quota exceeded"},
    {"MPI_ERR_READ_ONLY", "read-only file or file system"},
    {"MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {"MPI_ERR_RMA_CONFLICT", "conflicting accesses to window"},
    {"MPI_ERR_RMA_RANGE", "target memory is not part of the window"},
    {"MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {"MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    {"MPI_ERR_RMA_FLAVOR", "passed window has the wrong flavor for the called function"},
    {"MPI_ERR_SERVICE", "invalid service name passed to MPI_Unpublish_name"},
    {"MPI_ERR_SIZE", "invalid size argument"},
    {"MPI_ERR_SPAWN", "error in spawning processes"},
    {"MPI_ERR_UNSUPPORTED_DATAREP", "unsupported datarep passed to MPI_File_set_view"},
    {"MPI_ERR_UNSUPPORTED_OPERATION", "unsupported operation"},
    {"MPI_ERR_WIN", "invalid win argument"},
};
constexpr int kPredefinedClasses = sizeof kClasses / sizeof kClasses[0];

// The class's text (MPI_Add_error_string's for a user class), or nullptr
// for no class.
const char* class_text(int cls) {
  if (cls >= 0 && cls < kPredefinedClasses) return kClasses[cls].text;
  return user_class(cls) ? user_errors().classes[static_cast<std::size_t>(cls - kFirstUserClass)].c_str() : nullptr;
}

// The class's name, as a code's text ends with it.
const char* class_name(int cls) {
  if (cls >= 0 && cls < kPredefinedClasses) return kClasses[cls].name;
  return user_class(cls) ? "a class added by MPI_Add_error_class" : "?";
}

struct Handlers {
  std::mutex lock;  // one caller at a time (SERIALIZED): only the ring needs it, for safety
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

int refuse_unsupported(const char* call, const char* what, MPI_Comm comm) {
  int err;
  if (!check_init(call, &err)) return err;
  return raise(comm, call, MPI_ERR_UNSUPPORTED_OPERATION,
               std::string(what) + " is not provided by meshmp; see docs/mpi.md");
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
  std::fflush(nullptr);
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
