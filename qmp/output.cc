// QMP errors, output, time and version (QMP_API.md "Errors, output, time,
// version").
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "qmp/internal.h"

namespace meshmp::qmp {


namespace {

// "QMP m<node>,n<nodes>@<host>" as the reference prints it.
std::string prefix() {
  State& s = state();
  int node = 0, nodes = 1;
  if (s.initialized && s.dflt) {
    node = s.dflt->group.me;
    nodes = s.dflt->group.size();
  }
  if (s.host.empty()) {
    char h[256] = "localhost";
    ::gethostname(h, sizeof h - 1);
    s.host = h;
  }
  return "QMP m" + std::to_string(node) + ",n" + std::to_string(nodes) + "@" + s.host;
}

// One line as USQCD QMP prints it, on every node: "<prefix>: message\n"
// (" info: ", " error: "), the newline added even after one the message
// has. Written with one fwrite, so lines of different ranks do not mix.
// Returns the message's length, as USQCD's vfprintf of the message does.
int vprint(FILE* out, const char* kind, const char* format, va_list ap) {
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, format, ap);
  if (n < 0) {
    va_end(again);
    return n;
  }
  std::string line = prefix() + (kind ? std::string(" ") + kind + ": " : std::string(": "));
  const std::size_t head = line.size();
  line.resize(head + static_cast<std::size_t>(n) + 1);
  std::vsnprintf(line.data() + head, static_cast<std::size_t>(n) + 1, format, again);
  va_end(again);
  line.back() = '\n';
  std::fwrite(line.data(), 1, line.size(), out);
  std::fflush(out);
  return n;
}

}  // namespace

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

QMP_status_t fail(QMP_status_t code, const char* call, const std::string& message) {
  State& s = state();
  s.last_error = code;
  s.last_error_string = std::string(call) + ": " + message;
  QMP_error("%s", s.last_error_string.c_str());
  return code;
}

QMP_status_t failed_call(const char* call) noexcept {
  QMP_status_t code = QMP_ERROR;
  const char* what = "unknown exception";
  try {
    throw;
  } catch (const std::bad_alloc& e) {
    code = QMP_NOMEM_ERR;
    what = e.what();
  } catch (const std::length_error& e) {
    code = QMP_NOMEM_ERR;
    what = e.what();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  try {
    return fail(code, call, code == QMP_NOMEM_ERR ? std::string("cannot allocate the memory it needs (") + what + ")"
                                                  : std::string("internal error: ") + what);
  } catch (...) {  // no memory even for the message: keep the status
    state().last_error = code;
    return code;
  }
}

bool not_initialized(const char* call) {
  fail(QMP_NOT_INITED, call, "called before QMP_init_msg_passing (or after QMP_finalize_msg_passing)");
  return false;
}

QMP_comm_t bad_comm(QMP_comm_t comm, const char* call) {
  if (!check_init(call)) return nullptr;
  if (!comm) {
    fail(QMP_INVALID_ARG, call, "comm is NULL");
    return nullptr;
  }
  return comm;
}

QMP_status_t status_of(mesh::Error e) {
  switch (e) {
    case mesh::Error::kOk: return QMP_SUCCESS;
    case mesh::Error::kTruncate: return QMP_MEMSIZE_ERR;
    case mesh::Error::kPeerDead: return QMP_ERROR;
    case mesh::Error::kProtocol: return QMP_BAD_MESSAGE;
    case mesh::Error::kUnreachable: return QMP_ERROR;
  }
  return QMP_ERROR;
}


}  // namespace meshmp::qmp

using namespace meshmp::qmp;

extern "C" {

const char* QMP_error_string(QMP_status_t code) {
  switch (code) {
    case QMP_SUCCESS: return "QMP: success";
    case QMP_ERROR: return "QMP: general error";
    case QMP_NOT_INITED: return "QMP: message passing is not initialised";
    case QMP_RTENV_ERR: return "QMP: the run-time environment could not be set up";
    case QMP_CPUINFO_ERR: return "QMP: CPU information is not available";
    case QMP_NODEINFO_ERR: return "QMP: node information is not available";
    case QMP_NOMEM_ERR: return "QMP: out of memory";
    case QMP_MEMSIZE_ERR: return "QMP: message size does not fit the memory";
    case QMP_HOSTNAME_ERR: return "QMP: host name is not available";
    case QMP_INITSVC_ERR: return "QMP: a service could not be initialised";
    case QMP_TOPOLOGY_EXISTS: return "QMP: a logical topology is already declared";
    case QMP_CH_TIMEOUT: return "QMP: channel timed out";
    case QMP_NOTSUPPORTED: return "QMP: operation not supported";
    case QMP_SVC_BUSY: return "QMP: service busy";
    case QMP_BAD_MESSAGE: return "QMP: malformed message";
    case QMP_INVALID_ARG: return "QMP: invalid argument";
    case QMP_INVALID_TOPOLOGY: return "QMP: invalid topology";
    case QMP_NONEIGHBOR_INFO: return "QMP: no neighbour information (no logical topology declared)";
    case QMP_MEMSIZE_TOOBIG: return "QMP: memory size too big";
    case QMP_BAD_MEMORY: return "QMP: bad memory";
    case QMP_NO_PORTS: return "QMP: no ports available";
    case QMP_NODE_OUTRANGE: return "QMP: node number out of range";
    case QMP_CHDEF_ERR: return "QMP: channel definition error";
    case QMP_MEMUSED_ERR: return "QMP: memory is in use";
    case QMP_INVALID_OP: return "QMP: invalid operation (for example starting an active handle)";
    case QMP_TIMEOUT: return "QMP: timeout";
    case QMP_MAX_STATUS: break;
  }
  return "QMP: unknown status code";
}

QMP_status_t QMP_get_error_number(QMP_msghandle_t mh) try { return mh ? mh->err : state().last_error; } QMP_END_STATUS(QMP_get_error_number)

const char* QMP_get_error_string(QMP_msghandle_t mh) {
  if (mh) return mh->errstr.empty() ? QMP_error_string(mh->err) : mh->errstr.c_str();
  State& s = state();
  return s.last_error_string.empty() ? QMP_error_string(s.last_error) : s.last_error_string.c_str();
}

int QMP_verbose(int level) {
  int old = state().verbose;
  state().verbose = level;
  return old;
}

int QMP_profcontrol(int level) {
  int old = state().prof;
  state().prof = level;
  return old;
}

int QMP_printf(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  int n = vprint(stdout, nullptr, format, ap);
  va_end(ap);
  return n;
}

int QMP_fprintf(FILE* stream, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  int n = vprint(stream ? stream : stderr, nullptr, format, ap);
  va_end(ap);
  return n;
}

int QMP_info(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  int n = vprint(stdout, "info", format, ap);
  va_end(ap);
  return n;
}

int QMP_error(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  int n = vprint(stderr, "error", format, ap);
  va_end(ap);
  return n;
}

double QMP_time(void) {
  timeval tv;
  ::gettimeofday(&tv, nullptr);
  return tv.tv_sec + tv.tv_usec * 1e-6;
}

void QMP_reset_total_qmp_time(void) { state().total_time = 0; }
double QMP_get_total_qmp_time(void) { return state().total_time; }

const char* QMP_version_str(void) { return QMP_VERSION_STR; }
int QMP_version_int(void) { return QMP_VERSION_INT; }

}  // extern "C"
