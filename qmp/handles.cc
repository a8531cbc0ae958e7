// QMP message handles (QMP_API.md "Message handles"): persistent channels
// over the core's channel requests -- each started receive announces its
// buffer and a large send writes straight into it (the receiver-ready
// protocol, seed 003 §5.1). A relative channel's tag names the
// sender's direction, so on an axis of size 2 -- where +dir and -dir reach the
// same neighbour -- the two channels still match the right receives.
#include <algorithm>
#include <cstring>
#include <span>

#include "qmp/internal.h"

using namespace meshmp;
using namespace meshmp::qmp;

namespace {

constexpr int kRelativeTagBase = 0x100;  // + 2*axis + (dir < 0)
constexpr int kDirectTag = 0x80;         // send_to / receive_from

bool contiguous(QMP_msghandle_t h) { return h->mem->runs.size() <= 1; }

char* run_addr(QMP_msghandle_t h, std::size_t i) { return h->mem->runs[i].first + h->shift; }

// The buffer the core sees: the memory itself, or the packing buffer.
char* wire_buffer(QMP_msghandle_t h) {
  if (contiguous(h)) return h->mem->runs.empty() ? h->mem->base + h->shift : run_addr(h, 0);
  h->stage.resize(h->mem->total);
  return h->stage.data();
}

void pack(QMP_msghandle_t h) {
  char* out = h->stage.data();
  for (std::size_t i = 0; i < h->mem->runs.size(); ++i) {
    std::memcpy(out, run_addr(h, i), h->mem->runs[i].second);
    out += h->mem->runs[i].second;
  }
}

void unpack(QMP_msghandle_t h) {
  const char* in = h->stage.data();
  for (std::size_t i = 0; i < h->mem->runs.size(); ++i) {
    std::memcpy(run_addr(h, i), in, h->mem->runs[i].second);
    in += h->mem->runs[i].second;
  }
}

QMP_msghandle_t make_handle(QMP_comm_t comm, QMP_msgmem_t m, int node, int tag, bool send, const char* call) {
  if (!check_comm(comm, call)) return nullptr;
  if (!m) {
    fail(QMP_INVALID_ARG, call, "msgmem is NULL");
    return nullptr;
  }
  if (node < 0 || node >= comm->group.size()) {
    fail(QMP_NODE_OUTRANGE, call, "node " + std::to_string(node) + " is not in 0.." + std::to_string(comm->group.size() - 1));
    return nullptr;
  }
  auto* h = g_handles.take();
  h->kind = send ? QMP_msghandle_struct::Kind::kSend : QMP_msghandle_struct::Kind::kRecv;
  h->comm = comm;
  h->mem = m;
  h->peer = comm->group.ranks[node];
  h->tag = tag;
  h->context = comm->p2p_context;
  return h;
}

QMP_msghandle_t relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir, bool send, const char* call) {
  if (!check_comm(comm, call)) return nullptr;
  if (!comm->topo) {
    fail(QMP_NONEIGHBOR_INFO, call, "no logical topology is declared");
    return nullptr;
  }
  const Topology& t = *comm->topo;
  if (axis < 0 || axis >= static_cast<int>(t.dims.size())) {
    fail(QMP_INVALID_ARG, call, "axis " + std::to_string(axis) + " is not in 0.." + std::to_string(t.dims.size() - 1));
    return nullptr;
  }
  if (dir != 1 && dir != -1) {
    fail(QMP_INVALID_ARG, call, "dir must be +1 or -1, got " + std::to_string(dir));
    return nullptr;
  }
  const int node = t.neighbours[static_cast<std::size_t>(2 * axis + (dir < 0))];
  // The message travels in the sender's direction: a receive from the +dir
  // neighbour matches that neighbour's send in -dir.
  const int travel = send ? dir : -dir;
  return make_handle(comm, m, node, kRelativeTagBase + 2 * axis + (travel < 0), send, call);
}

void set_error(QMP_msghandle_t h, QMP_status_t code, const std::string& text) {
  h->err = code;
  h->errstr = text;
  if (code != QMP_SUCCESS) fail(code, "QMP_wait", text);
}

// Completes a finished member: unpack and record the outcome.
void finish(QMP_msghandle_t h, const mesh::Status& st) {
  h->active = false;
  if (st.error != mesh::Error::kOk) {
    std::string why = st.error == mesh::Error::kTruncate
                          ? "message of more than " + std::to_string(h->mem->total) + " bytes for this receive"
                          : mesh::error_name(st.error);
    set_error(h, status_of(st.error), "channel with node rank " + std::to_string(h->peer) + ": " + why);
    return;
  }
  if (h->kind == QMP_msghandle_struct::Kind::kRecv && !contiguous(h)) unpack(h);
  h->err = QMP_SUCCESS;
}

// Channel requests of freed handles (State::kept), at most this many: a
// code that declares its halo gather afresh every time (allocate, declare,
// start, wait, free) gets back the requests it had -- the same channel
// (peer, context, tag), buffer and length -- instead of building each
// request and looking its channel up again (issue 32, item 4). A kept
// request is inactive and belongs to no handle, so taking it changes
// nothing QMP can see; the channel's count of starts lives in the channel,
// not in the request.
constexpr std::size_t kKeptRequests = 64;

// A freed handle's request: kept, the oldest freed if there are too many.
void keep_request(mesh::Engine& e, QMP_msghandle_t h) {
  std::vector<KeptRequest>& kept = state().kept;
  if (kept.size() == kKeptRequests) {
    e.free(kept.front().req);
    kept.erase(kept.begin());
  }
  kept.push_back(KeptRequest{h->req, h->kind == QMP_msghandle_struct::Kind::kSend, h->peer, h->tag,
                             h->context, h->req_buf, h->req_len});
}

// A kept request for h's channel and buffer, taken; nullptr if none. The
// latest freed first: a gather's handles come back in the order they went.
mesh::Request* take_kept(QMP_msghandle_t h, char* buf) {
  std::vector<KeptRequest>& kept = state().kept;
  const bool send = h->kind == QMP_msghandle_struct::Kind::kSend;
  for (std::size_t i = kept.size(); i-- > 0;) {
    const KeptRequest& k = kept[i];
    if (k.buf == buf && k.len == h->mem->total && k.peer == h->peer && k.tag == h->tag && k.send == send &&
        k.context == h->context) {
      mesh::Request* r = k.req;
      kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
      return r;
    }
  }
  return nullptr;
}

QMP_status_t start_one(QMP_msghandle_t h) {
  mesh::Engine& e = *state().engine;
  char* buf = wire_buffer(h);
  if (h->req && (h->req_buf != buf || h->req_len != h->mem->total)) {
    e.free(h->req);
    h->req = nullptr;
  }
  if (!h->req && (h->req = take_kept(h, buf))) {
    h->req_buf = buf;
    h->req_len = h->mem->total;
  }
  if (!h->req) {
    // Channels: the receiver-ready protocol (ARCHITECTURE.md §3).
    h->req = h->kind == QMP_msghandle_struct::Kind::kSend
                 ? e.channel_send_init(buf, h->mem->total, h->peer, h->tag, h->context)
                 : e.channel_recv_init(buf, h->mem->total, h->peer, h->tag, h->context);
    h->req_buf = buf;
    h->req_len = h->mem->total;
  }
  if (h->kind == QMP_msghandle_struct::Kind::kSend && !contiguous(h)) pack(h);
  h->active = true;
  h->err = QMP_SUCCESS;
  e.start(h->req);
  return QMP_SUCCESS;
}

// The single handles of h: its members, or h itself (a view; h must outlive it).
std::span<QMP_msghandle_t> leaves(QMP_msghandle_t& h) {
  if (h->kind != QMP_msghandle_struct::Kind::kMultiple) return {&h, 1};
  return h->members;
}

}  // namespace

extern "C" {

QMP_msghandle_t QMP_declare_send_relative(QMP_msgmem_t m, int axis, int dir, int priority) try {
  return QMP_comm_declare_send_relative(state().dflt, m, axis, dir, priority);
} QMP_END_HANDLE(QMP_declare_send_relative)
QMP_msghandle_t QMP_comm_declare_send_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir, int priority) try {
  _QMP_UNUSED_ARGUMENT(priority);
  return relative(comm, m, axis, dir, true, "QMP_declare_send_relative");
} QMP_END_HANDLE(QMP_comm_declare_send_relative)
QMP_msghandle_t QMP_declare_receive_relative(QMP_msgmem_t m, int axis, int dir, int priority) try {
  return QMP_comm_declare_receive_relative(state().dflt, m, axis, dir, priority);
} QMP_END_HANDLE(QMP_declare_receive_relative)
QMP_msghandle_t QMP_comm_declare_receive_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir, int priority) try {
  _QMP_UNUSED_ARGUMENT(priority);
  return relative(comm, m, axis, dir, false, "QMP_declare_receive_relative");
} QMP_END_HANDLE(QMP_comm_declare_receive_relative)
QMP_msghandle_t QMP_declare_send_to(QMP_msgmem_t m, int rem_node_rank, int priority) try {
  return QMP_comm_declare_send_to(state().dflt, m, rem_node_rank, priority);
} QMP_END_HANDLE(QMP_declare_send_to)
QMP_msghandle_t QMP_comm_declare_send_to(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank, int priority) try {
  _QMP_UNUSED_ARGUMENT(priority);
  return make_handle(comm, m, rem_node_rank, kDirectTag, true, "QMP_declare_send_to");
} QMP_END_HANDLE(QMP_comm_declare_send_to)
QMP_msghandle_t QMP_declare_receive_from(QMP_msgmem_t m, int src_node_rank, int priority) try {
  return QMP_comm_declare_receive_from(state().dflt, m, src_node_rank, priority);
} QMP_END_HANDLE(QMP_declare_receive_from)
QMP_msghandle_t QMP_comm_declare_receive_from(QMP_comm_t comm, QMP_msgmem_t m, int src_node_rank, int priority) try {
  _QMP_UNUSED_ARGUMENT(priority);
  return make_handle(comm, m, src_node_rank, kDirectTag, false, "QMP_declare_receive_from");
} QMP_END_HANDLE(QMP_comm_declare_receive_from)

QMP_msghandle_t QMP_declare_multiple(QMP_msghandle_t msgh[], int nhandle) try {
  if (!check_init("QMP_declare_multiple")) return nullptr;
  if (!msgh || nhandle < 1) {
    fail(QMP_INVALID_ARG, "QMP_declare_multiple", "needs at least one handle");
    return nullptr;
  }
  // Check every handle before taking any: none NULL, started, already
  // inside another multiple handle, or given twice. The list is built in
  // the new handle (a spare's storage: no allocation once warm), which goes
  // back to the spares if anything is refused.
  struct Pending {
    QMP_msghandle_t h;
    ~Pending() { g_handles.give(h); }
  } pending{g_handles.take()};
  std::vector<QMP_msghandle_t>& all = pending.h->members;
  all.reserve(static_cast<std::size_t>(nhandle));
  // The message is built only for a refusal: declaring is on the path of
  // codes that declare a gather every time (issue 14).
  auto refuse = [](QMP_status_t code, int i, const char* what) {
    fail(code, "QMP_declare_multiple", "handle " + std::to_string(i) + what);
    return nullptr;
  };
  for (int i = 0; i < nhandle; ++i) {
    if (!msgh[i]) return refuse(QMP_INVALID_ARG, i, " is NULL");
    if (msgh[i]->active) return refuse(QMP_INVALID_OP, i, " is started");
    if (msgh[i]->member) return refuse(QMP_INVALID_ARG, i, " already belongs to a multiple handle");
    for (QMP_msghandle_t leaf : leaves(msgh[i])) {
      if (std::find(all.begin(), all.end(), leaf) != all.end()) return refuse(QMP_INVALID_ARG, i, " is given more than once");
      all.push_back(leaf);
    }
  }
  QMP_msghandle_t h = pending.h;
  pending.h = nullptr;
  h->kind = QMP_msghandle_struct::Kind::kMultiple;
  for (QMP_msghandle_t leaf : h->members) leaf->member = true;
  for (int i = 0; i < nhandle; ++i)
    if (msgh[i]->kind == QMP_msghandle_struct::Kind::kMultiple) {
      msgh[i]->members.clear();  // ownership moves to the new handle
      g_handles.give(msgh[i]);
    }
  return h;
} QMP_END_HANDLE(QMP_declare_multiple)

QMP_msghandle_t QMP_declare_send_recv_pairs(QMP_msghandle_t msgh[], int num) try {
  return QMP_declare_multiple(msgh, num);
} QMP_END_HANDLE(QMP_declare_send_recv_pairs)

QMP_status_t QMP_change_address(QMP_msghandle_t msg, void* addr) try {
  if (!check_init("QMP_change_address")) return state().last_error;
  if (!msg || !addr) return fail(QMP_INVALID_ARG, "QMP_change_address", !msg ? "handle is NULL" : "addr is NULL");
  if (msg->kind == QMP_msghandle_struct::Kind::kMultiple)
    return fail(QMP_INVALID_ARG, "QMP_change_address", "use QMP_change_address_multiple on a multiple handle");
  if (msg->active) return fail(QMP_INVALID_OP, "QMP_change_address", "the handle is active");
  // The whole pattern moves: every run (and, for a strided array, every
  // base) keeps its offset from the first base, as in USQCD QMP.
  msg->shift = static_cast<char*>(addr) - msg->mem->base;
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_change_address)

QMP_status_t QMP_change_address_multiple(QMP_msghandle_t msg, void* addr[], int naddr) try {
  if (!check_init("QMP_change_address_multiple")) return state().last_error;
  if (!msg || !addr || msg->kind != QMP_msghandle_struct::Kind::kMultiple ||
      naddr != static_cast<int>(msg->members.size()))
    return fail(QMP_INVALID_ARG, "QMP_change_address_multiple", "needs a multiple handle and one address per member");
  for (int i = 0; i < naddr; ++i)
    if (QMP_status_t st = QMP_change_address(msg->members[i], addr[i]); st != QMP_SUCCESS) return st;
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_change_address_multiple)

QMP_status_t QMP_clear_to_send(QMP_msghandle_t msg, QMP_clear_to_send_t cts) try {
  if (!check_init("QMP_clear_to_send")) return state().last_error;
  if (!msg) return fail(QMP_INVALID_ARG, "QMP_clear_to_send", "handle is NULL");
  if (cts != QMP_CTS_DISABLED && cts != QMP_CTS_NOT_READY && cts != QMP_CTS_READY)
    return fail(QMP_INVALID_ARG, "QMP_clear_to_send", "cts " + std::to_string(cts) + " is not a QMP_clear_to_send_t");
  // No sender ever writes into a receive buffer before that receive is
  // started: eager data waits in the link's slots and large messages wait
  // for the receiver's CTS. So readiness needs no separate clearance here.
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_clear_to_send)

QMP_status_t QMP_start(QMP_msghandle_t msg) try {
  if (!check_init("QMP_start")) return state().last_error;
  if (!msg) return fail(QMP_INVALID_ARG, "QMP_start", "handle is NULL");
  for (QMP_msghandle_t h : leaves(msg))
    if (h->active) return fail(QMP_INVALID_OP, "QMP_start", "the handle is already started (call QMP_wait first)");
  TimeInQmp timer;
  // Receives before sends, whatever order the handles were combined in: a
  // message then finds its receive started (its buffer announced, or posted
  // for an eager copy straight out of the slot) instead of waiting aside.
  for (QMP_msghandle_t h : leaves(msg))
    if (h->kind == QMP_msghandle_struct::Kind::kRecv) start_one(h);
  for (QMP_msghandle_t h : leaves(msg))
    if (h->kind == QMP_msghandle_struct::Kind::kSend) start_one(h);
  msg->active = true;
  return QMP_SUCCESS;
} QMP_END_STATUS(QMP_start)

QMP_status_t QMP_wait(QMP_msghandle_t msg) try {
  if (!check_init("QMP_wait")) return state().last_error;
  if (!msg) return fail(QMP_INVALID_ARG, "QMP_wait", "handle is NULL");
  TimeInQmp timer;
  mesh::Engine& e = *state().engine;
  QMP_status_t result = QMP_SUCCESS;
  for (QMP_msghandle_t h : leaves(msg)) {
    if (!h->active) continue;
    mesh::Status st;
    e.wait(h->req, &st);
    finish(h, st);
    if (h->err != QMP_SUCCESS && result == QMP_SUCCESS) result = h->err;
  }
  msg->active = false;
  msg->err = result;
  return result;
} QMP_END_STATUS(QMP_wait)

QMP_status_t QMP_wait_all(QMP_msghandle_t msg[], int num) try {
  if (!msg && num > 0) return fail(QMP_INVALID_ARG, "QMP_wait_all", "handles is NULL");
  QMP_status_t result = QMP_SUCCESS;
  for (int i = 0; i < num; ++i) {
    QMP_status_t st = QMP_wait(msg[i]);
    if (st != QMP_SUCCESS && result == QMP_SUCCESS) result = st;
  }
  return result;
} QMP_END_STATUS(QMP_wait_all)

QMP_bool_t QMP_is_complete(QMP_msghandle_t msg) {
  if (!check_init("QMP_is_complete") || !msg) return QMP_FALSE;
  mesh::Engine& e = *state().engine;
  bool all = true;
  for (QMP_msghandle_t h : leaves(msg)) {
    if (!h->active) continue;
    mesh::Status st;
    if (e.test(h->req, &st)) finish(h, st);
    else all = false;
  }
  if (all) msg->active = false;
  return all ? QMP_TRUE : QMP_FALSE;
}

void QMP_free_msghandle(QMP_msghandle_t msg) {
  if (!msg) return;
  // A started handle may be waiting for a message that never comes: refuse
  // (QMP_INVALID_OP, one QMP_error line) instead of waiting for ever; the
  // caller may QMP_wait and free it then. A member is freed with its
  // multiple handle.
  if (msg->active) {
    fail(QMP_INVALID_OP, "QMP_free_msghandle", "the handle is started (call QMP_wait first); it is not freed");
    return;
  }
  if (msg->member) {
    fail(QMP_INVALID_OP, "QMP_free_msghandle", "the handle belongs to a multiple handle; free that one");
    return;
  }
  for (QMP_msghandle_t h : msg->members) h->member = false;
  for (QMP_msghandle_t h : msg->members) QMP_free_msghandle(h);
  if (msg->req && state().engine) keep_request(*state().engine, msg);
  g_handles.give(msg);
}

}  // extern "C"
