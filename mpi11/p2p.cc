// Point-to-point communication (MPI-1.1 §3): the four send modes, blocking,
// nonblocking and persistent, receives, the wait/test family, probe, cancel;
// and the requests the wait/test family completes besides: nonblocking
// collectives' (coll.cc) and generalized requests (MPI-2.2 §12.2).
//
// Every operation maps onto one core request (mesh/engine.h) in the
// communicator's point-to-point context, so the core's matching gives the
// non-overtaking rule of §3.5 and its synchronous mode completes an
// MPI_Ssend only after the receive matched. A contiguous datatype is sent
// from and received into the user's memory directly; a non-contiguous one is
// packed once into the request's staging buffer (and unpacked once on
// completion). Buffered sends copy into the attached buffer (bsend.cc).
#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "collectives/schedule.h"
#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

using mesh::SendMode;

// A generalized request (MPI_Grequest_start): the program's callbacks, and
// whether MPI_Grequest_complete and MPI_Request_free were called on it.
struct Generalized {
  MPI_Grequest_query_function* query;
  MPI_Grequest_free_function* free;
  MPI_Grequest_cancel_function* cancel;
  void* extra_state;
  bool complete = false;
  bool freed = false;  ///< by MPI_Request_free before it was complete: free_fn runs at completion
};

struct Req {
  bool in_use = false;
  bool is_send = false;
  bool persistent = false;
  bool active = false;    ///< started (persistent) and not yet completed by a wait/test
  bool done = false;      ///< completed without a core request: status in `st`
  bool buffered = false;
  /// keep, stage, sched or outcome was set: release() must look at them
  /// (a plain contiguous send or receive never has any).
  bool extras = false;
  std::uint64_t sent_id = 0;  ///< a send written at once (done, no core request): its message id, for MPI_Cancel
  mesh::Message* message = nullptr;  ///< MPI_Imrecv/MPI_Mrecv: the matched message start() receives
  mesh::Request* core = nullptr;
  /// A nonblocking collective's schedule (coll.cc): the request completes
  /// when it has finished; no core request then.
  std::unique_ptr<collectives::Schedule> sched;
  const char* call = nullptr;  ///< the MPI_I... that started `sched`, for its error message
  std::shared_ptr<int> outcome;  ///< an error code a step of `sched` set (start_collective)
  MPI_Comm comm = MPI_COMM_NULL;
  void* buf = nullptr;
  std::size_t count = 0;
  int peer = MPI_PROC_NULL, tag = 0;
  SendMode mode = SendMode::kStandard;
  const TypeInfo* type = nullptr;
  bool contiguous = true;  ///< of `type`, which only non-contiguous and persistent requests keep alive
  std::shared_ptr<const TypeInfo> keep;  ///< holds `type` past MPI_Type_free when it is used later
  std::vector<char> stage;  ///< packed data of a non-contiguous type
  MPI_Status st{};
  MPI_Request next_free = MPI_REQUEST_NULL;  ///< released: the next released entry (Requests::free_head)
  /// A generalized request's callbacks; no core request then. (Last: the
  /// fields every request uses keep their cache lines.)
  std::unique_ptr<Generalized> greq;
};

struct Requests {
  // Handle h is *table[h - 1]: entries stay where they are as the table
  // grows (references held across a call stay valid), and a lookup is two
  // loads (a std::deque's index arithmetic cost ~10 instructions, several
  // times per message).
  std::vector<std::unique_ptr<Req>> table;
  /// Released entries, newest first, chained through Req::next_free (a
  /// std::vector's push_back, not inlined into MPI_Waitall, cost ~24
  /// instructions per request).
  MPI_Request free_head = MPI_REQUEST_NULL;
  std::vector<MPI_Request> orphans;  // freed by the user while active

  [[gnu::always_inline]] MPI_Request alloc() {
    if (free_head != MPI_REQUEST_NULL) {
      const MPI_Request h = free_head;
      free_head = at(h).next_free;
      return h;
    }
    table.push_back(std::make_unique<Req>());
    return static_cast<MPI_Request>(table.size());
  }
  Req& at(MPI_Request h) { return *table[static_cast<std::size_t>(h) - 1]; }
  bool valid(MPI_Request h) const {
    return h > 0 && static_cast<std::size_t>(h) <= table.size() && table[static_cast<std::size_t>(h) - 1]->in_use;
  }
  [[gnu::always_inline]] void release(MPI_Request h) { release(h, at(h)); }
  /// The same for r = at(h), already looked up.
  [[gnu::always_inline]] void release(MPI_Request h, Req& r) {
    r.in_use = false;
    r.type = nullptr;
    r.core = nullptr;
    if (r.extras) [[unlikely]] {
      r.extras = false;
      r.keep.reset();
      r.stage.clear();  // its capacity (up to 1 MiB) stays for the next non-contiguous request
      if (r.stage.capacity() > (std::size_t{1} << 20)) r.stage.shrink_to_fit();
      r.sched.reset();
      r.outcome.reset();
      r.greq.reset();
    }
    r.next_free = free_head;
    free_head = h;
  }
};

Requests g_requests;
inline Requests& requests() { return g_requests; }

mesh::Engine& engine() { return *state().engine; }

std::vector<char>& blocking_stage() {
  static std::vector<char> v;
  return v;
}

// ---- argument checks -------------------------------------------------------------

struct Args {
  CommInfo* c = nullptr;
  const TypeInfo* t = nullptr;
  std::size_t bytes = 0;
};

[[gnu::cold, gnu::noinline]] int null_buffer(MPI_Comm comm, const char* call, int count) {
  return raise(comm, call, MPI_ERR_BUFFER, "buf is NULL but count = " + std::to_string(count));
}

// (Inlined, as start and make_request are, into each MPI_ call: with their
// flags constant there, a 2-rank MPI_Irecv of 8 bytes spent ~130 of its
// ~540 instructions entering and leaving these functions.)
[[gnu::always_inline]] inline int check_args(const char* call, const void* buf, int count, MPI_Datatype type, int peer,
                                             int tag, MPI_Comm comm, bool recv, Args* a) {
  int err;
  if (!(a->c = check_comm(comm, call, &err))) return err;
  if ((err = check_count(comm, call, count))) return err;
  // check_type's test on the type it looks up once (twice: ~10 instructions per call more)
  a->t = type_info(type);
  if (!a->t || !a->t->committed || type == MPI_LB || type == MPI_UB) [[unlikely]]
    return bad_type(comm, call, type, "datatype");
  if ((err = check_tag(comm, call, tag, recv))) return err;
  if ((err = check_rank(comm, *a->c, call, peer, recv ? "source" : "dest", recv))) return err;
  a->bytes = static_cast<std::size_t>(count) * a->t->size;
  if (!buf && count > 0 && a->t->size > 0 && a->t->true_lb == 0) [[unlikely]] return null_buffer(comm, call, count);
  return MPI_SUCCESS;
}

[[gnu::always_inline]] inline int world_of(const CommInfo& c, int rank) { return rank == MPI_ANY_SOURCE ? mesh::kAnySource : c.peer_world(rank); }

// ---- statuses --------------------------------------------------------------------

// Source, tag, count and cancellation from the core's status; the error
// field is left alone (MPI-3.1 §3.2.5).
void fill_status(MPI_Status* st, const CommInfo& c, const mesh::Status& cs) {
  if (!st) return;
  st->MPI_SOURCE = cs.source >= 0 && static_cast<std::size_t>(cs.source) < c.rank_of_world.size()
                       ? c.rank_of_world[cs.source] : MPI_ANY_SOURCE;
  st->MPI_TAG = cs.tag;
  st->meshmp_cancelled = cs.cancelled;
  st->meshmp_bytes = static_cast<long long>(cs.bytes);
}

// ---- starting --------------------------------------------------------------------

// A new request's description (make_request, checked_request): what a
// start, a completion, MPI_Cancel and the status queries read back.
[[gnu::always_inline]] inline void describe(Req& r, bool is_send, bool persistent, bool buffered, SendMode mode,
                                            MPI_Comm comm, const void* buf, int count, int peer, int tag,
                                            const TypeInfo* t) {
  r.in_use = true;
  r.active = r.done = false;
  r.is_send = is_send;
  r.persistent = persistent;
  r.buffered = buffered;
  r.contiguous = t->contiguous;
  r.core = nullptr;
  r.message = nullptr;
  r.sent_id = 0;
  r.mode = mode;
  r.comm = comm;
  r.buf = const_cast<void*>(buf);
  r.count = static_cast<std::size_t>(count);
  r.peer = peer;
  r.tag = tag;
  r.type = t;
}

// Starts the core part of nonpersistent send or receive r (not buffered,
// not a matched message) of `bytes` at `data` with peer and tag as the
// request has them: a standard send written into the slot at once is
// complete with no core request to wait on.
[[gnu::always_inline]] inline void start_core(Req& r, const CommInfo& c, bool is_send, SendMode mode, char* data,
                                              std::size_t bytes, int peer, int tag) {
  if (!is_send) {
    r.core = engine().irecv(data, bytes, world_of(c, peer), tag, c.p2p_context);
    return;
  }
  const int dst = c.peer_world(peer);
  if (mode == SendMode::kStandard && (r.sent_id = engine().try_send_now(data, bytes, dst, tag, c.p2p_context))) {
    mesh::Status sent;
    sent.source = engine().rank();
    sent.tag = tag;
    sent.bytes = bytes;
    fill_status(&r.st, c, sent);
    r.st.MPI_ERROR = MPI_SUCCESS;
    r.done = true;
    return;
  }
  r.core = engine().isend(data, bytes, dst, tag, c.p2p_context, mode);
}

// Starts a send or receive request (fresh or persistent); never fails after
// the argument checks, except a buffered send that does not fit.
[[gnu::always_inline]] inline int start(MPI_Request h, const char* call) {
  Req& r = requests().at(h);
  r.active = true;
  r.done = false;
  r.sent_id = 0;
  if (r.peer == MPI_PROC_NULL) {
    r.done = true;
    set_proc_null_status(&r.st);
    r.st.MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
  }
  const CommInfo& c = comm_ref(r.comm);
  const TypeInfo& t = *r.type;
  const std::size_t bytes = r.count * t.size;
  if (r.is_send && r.buffered) {
    char* space = buffer_reserve(bytes);
    if (!space) {
      r.active = false;
      return raise(r.comm, call, MPI_ERR_BUFFER,
                   "the attached buffer has no room for " + std::to_string(bytes) + " bytes (+ MPI_BSEND_OVERHEAD)");
    }
    pack(t, r.buf, r.count, space);
    buffer_track(space, engine().isend(space, bytes, c.peer_world(r.peer), r.tag, c.p2p_context));
    r.done = true;  // the user's buffer is free: the send now belongs to the attached buffer
    set_empty_status(&r.st);
    return MPI_SUCCESS;
  }
  if (r.persistent) {
    if (r.is_send && !t.contiguous) pack(t, r.buf, r.count, r.stage.data());
    engine().start(r.core);
    return MPI_SUCCESS;
  }
  char* data = t.contiguous ? const_cast<char*>(data_start(t, r.buf)) : r.stage.data();
  if (r.is_send && !t.contiguous) pack(t, r.buf, r.count, data);
  if (r.message) {
    r.core = engine().receive_message(r.message, data, bytes);
    r.message = nullptr;
  } else {
    start_core(r, c, r.is_send, r.mode, data, bytes, r.peer, r.tag);
  }
  return MPI_SUCCESS;
}

// A request, its arguments checked one by one (an error names the bad one);
// `message` (a receive, MPI_Imrecv): the matched message it receives, peer
// and tag then only describing it. make_request's path for all but the
// plain requests.
[[gnu::noinline]] int checked_request(const char* call, bool is_send, bool persistent, bool buffered, SendMode mode,
                                      const void* buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                                      MPI_Request* request, mesh::Message* message) {
  Args a;
  if (int err = check_args(call, buf, count, type, peer, tag, comm, !is_send, &a)) return err;
  if (!request) return raise(comm, call, MPI_ERR_REQUEST, "request is NULL");
  Requests& rs = requests();
  const MPI_Request h = rs.alloc();
  Req& r = rs.at(h);  // a released or new entry: stage empty, keep null
  describe(r, is_send, persistent, buffered, mode, comm, buf, count, peer, tag, a.t);
  if (persistent || !r.contiguous) {
    r.extras = true;
    r.keep = keep_type(type);
  }
  if (!a.t->contiguous && !buffered) {
    r.extras = true;
    r.stage.resize(a.bytes);
  }
  r.message = message;
  if (persistent && peer != MPI_PROC_NULL && !buffered) {
    const CommInfo& c = *a.c;
    char* data = a.t->contiguous ? const_cast<char*>(data_start(*a.t, buf)) : r.stage.data();
    r.core = is_send ? engine().send_init(data, a.bytes, c.peer_world(peer), tag, c.p2p_context, mode)
                     : engine().recv_init(data, a.bytes, world_of(c, peer), tag, c.p2p_context);
  }
  *request = h;
  if (persistent) return MPI_SUCCESS;
  if (int err = start(h, call)) {
    rs.release(h);
    *request = MPI_REQUEST_NULL;
    return err;
  }
  return MPI_SUCCESS;
}

// The plain request -- MPI_Isend, MPI_Irecv and their kin of a contiguous
// committed type to or from a rank of the communicator, every argument
// valid -- is recognized by one test of them all and started from the
// arguments at hand; anything else (an error among them, MPI_PROC_NULL, a
// non-contiguous type, a persistent or buffered request) goes through
// checked_request, which tells what is wrong. (Through the checks that
// raise errors, with their error paths inline, an 8-byte MPI_Irecv spent
// ~200 instructions in the MPI layer, now ~140; the engine's part ~130.)
struct PlainArgs {
  const CommInfo* c;
  const TypeInfo* t;
};
[[gnu::always_inline]] inline PlainArgs plain_args(const void* buf, int count, MPI_Datatype type, int peer, int tag,
                                                   MPI_Comm comm, bool recv) {
  State& s = g_state;
  if (!s.initialized || s.finalized || comm <= 0 || static_cast<std::size_t>(comm) >= s.comms.size()) return {};
  const CommInfo& c = s.comms[static_cast<std::size_t>(comm)];
  const TypeInfo* t = type_info(type);
  if (!c.in_use || !t || !t->committed || !t->contiguous || type == MPI_LB || type == MPI_UB || count < 0) return {};
  if ((tag < 0 || tag > mesh::kTagUb) && !(recv && tag == MPI_ANY_TAG)) return {};
  if ((peer < 0 || peer >= c.peer_count()) && !(recv && peer == MPI_ANY_SOURCE)) return {};
  if (!buf && count > 0 && t->size > 0 && t->true_lb == 0) return {};
  return {&c, t};
}

[[gnu::always_inline]] inline int make_request(const char* call, bool is_send, bool persistent, bool buffered,
                                               SendMode mode, const void* buf, int count, MPI_Datatype type, int peer,
                                               int tag, MPI_Comm comm, MPI_Request* request,
                                               mesh::Message* message = nullptr) {
  const PlainArgs a = persistent || buffered || message
                          ? PlainArgs{}
                          : request ? plain_args(buf, count, type, peer, tag, comm, !is_send) : PlainArgs{};
  if (!a.c) [[unlikely]]
    return checked_request(call, is_send, persistent, buffered, mode, buf, count, type, peer, tag, comm, request,
                           message);
  const CommInfo& c = *a.c;
  const std::size_t bytes = static_cast<std::size_t>(count) * a.t->size;
  Requests& rs = requests();
  const MPI_Request h = rs.alloc();
  Req& r = rs.at(h);  // a released or new entry: stage empty, keep null
  describe(r, is_send, false, false, mode, comm, buf, count, peer, tag, a.t);
  r.active = true;
  *request = h;
  start_core(r, c, is_send, mode, const_cast<char*>(data_start(*a.t, buf)), bytes, peer, tag);
  return MPI_SUCCESS;
}

// ---- completing ------------------------------------------------------------------

// A non-contiguous receive arrived in the staging buffer: into the user's layout.
void unpack_received(const Req& r, const mesh::Status& cs) {
  if (!r.is_send && !r.contiguous && !cs.cancelled) unpack(*r.type, r.stage.data(), cs.bytes, r.buf, r.count);
}

// Concludes live request *h (r: its entry) whose core part completed with
// *cs (nullptr: it had none, its status is r.st): unpacks a non-contiguous receive, fills
// *st, frees a nonpersistent request (nulling *h) or deactivates a
// persistent one. Returns the request's error code.
[[gnu::always_inline]] inline int conclude(MPI_Request* h, Req& r, const mesh::Status* cs, MPI_Status* st,
                                           const char* call) {
  int code = MPI_SUCCESS;
  if (r.done || !cs) {
    copy_status(st, r.st);
    code = r.st.MPI_ERROR;
  } else {
    code = code_of(cs->error, call);
    unpack_received(r, *cs);
    fill_status(st, comm_ref(r.comm), *cs);
  }
  r.active = false;
  r.done = false;
  if (!r.persistent) {
    requests().release(*h, r);
    *h = MPI_REQUEST_NULL;
  }
  return code;
}

// A nonblocking collective's request whose schedule has finished: done,
// with an empty status carrying the schedule's error (MPI-3.1 §5.12).
bool schedule_done(Req& r) {
  if (!r.sched->finished()) return false;
  set_empty_status(&r.st);
  r.st.MPI_ERROR = code_of(r.sched->error(), r.call);
  if (r.st.MPI_ERROR == MPI_SUCCESS && r.outcome) r.st.MPI_ERROR = *r.outcome;
  r.done = true;
  return true;
}

// A callback's return value as the error code of the call that ran it
// (MPI-2.2 §12.2): MPI_SUCCESS and MPI's codes as they are, anything else
// MPI_ERR_OTHER naming the callback.
int callback_code(int rc, const char* call, const char* callback) {
  if (rc == MPI_SUCCESS || is_error_code(rc)) return rc;
  return error_code(MPI_ERR_OTHER, call,
                    std::string("the generalized request's ") + callback + " returned " + std::to_string(rc) +
                        ", which is no MPI error code");
}

// A generalized request's status (an empty one that query_fn fills) into
// *st; query_fn's error code.
int query_generalized(const Generalized& g, MPI_Status* st, const char* call) {
  set_empty_status(st);
  return callback_code(g.query(g.extra_state, st), call, "query_fn");
}

// Runs the free_fn of a generalized request whose handle goes now; its code.
int free_generalized(const Generalized& g, const char* call) {
  return callback_code(g.free(g.extra_state), call, "free_fn");
}

// Generalized request r, complete, is done: query_fn fills its status, then
// free_fn runs (MPI-2.2 §12.2); the status's error is free_fn's code, or
// else query_fn's, and conclude() frees the request.
void generalized_done(Req& r, const char* call) {
  const int queried = query_generalized(*r.greq, &r.st, call);
  const int freed = free_generalized(*r.greq, call);
  r.st.MPI_ERROR = freed != MPI_SUCCESS ? freed : queried;
  r.done = true;
}

// Whether live request r, neither done nor with a core request -- a
// nonblocking collective's or a generalized request -- is done now, after
// waiting for it if `block` (or one round of progress if not).
bool other_done(Req& r, bool block, const char* call) {
  if (r.sched) {
    if (block) engine().wait_until([&] { return r.sched->finished(); });
    else engine().progress();
    return schedule_done(r);
  }
  Generalized& g = *r.greq;
  // Only the program completes it: with one thread in MPI at a time (at
  // most MPI_THREAD_SERIALIZED), a wait for one it has not completed (say,
  // from a user reduction run meanwhile) waits for ever, as MPI-2.2 §12.2
  // has it.
  if (block) engine().wait_until([&] { return g.complete; });
  else engine().progress();
  if (!g.complete) return false;
  generalized_done(r, call);
  return true;
}

inline bool is_live(MPI_Request h) { return h != MPI_REQUEST_NULL && requests().valid(h) && requests().at(h).active; }

// Completes live request *h, blocking if `block`; false if not complete.
bool complete(MPI_Request* h, MPI_Status* st, bool block, const char* call, int* code) {
  Req& r = requests().at(*h);
  if (!r.done && !r.core && !other_done(r, block, call)) [[unlikely]]
    return false;
  if (r.done) {
    *code = conclude(h, r, nullptr, st, call);
    return true;
  }
  mesh::Status cs;
  if (block) engine().wait(r.core, &cs);
  else if (!engine().test(r.core, &cs)) return false;
  *code = conclude(h, r, &cs, st, call);
  return true;
}

int check_request_array(const char* call, int count, const MPI_Request* reqs) {
  if (count < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_COUNT, "count = " + std::to_string(count) + " is negative");
  if (count > 0 && !reqs) return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "array_of_requests is NULL");
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL && !requests().valid(reqs[i]))
      return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "array_of_requests[" + std::to_string(i) + "] is not a request");
  return MPI_SUCCESS;
}

// Requests freed by MPI_Request_free while active finish in the background
// (§3.7.3); their space goes when they complete.
void reap_orphans(bool block) {
  auto& o = requests().orphans;
  for (std::size_t i = 0; i < o.size();) {
    Req& r = requests().at(o[i]);
    mesh::Status cs;
    const bool finished = block ? (engine().wait(r.core, &cs), true) : engine().test(r.core, &cs);
    if (!finished) {
      ++i;
      continue;
    }
    unpack_received(r, cs);
    if (r.persistent) engine().free(r.core);
    requests().release(o[i]);
    o[i] = o.back();
    o.pop_back();
  }
}

// A new live request on comm with no core part, for a nonblocking
// collective's schedule or a generalized request's callbacks to be set.
MPI_Request start_other(MPI_Comm comm) {
  Requests& rs = requests();
  const MPI_Request h = rs.alloc();
  Req& r = rs.at(h);
  r.in_use = r.active = true;
  r.done = r.persistent = r.is_send = r.buffered = false;
  r.core = nullptr;
  r.message = nullptr;
  r.sent_id = 0;
  r.comm = comm;
  r.peer = MPI_PROC_NULL;
  r.extras = true;
  return h;
}

}  // namespace

int start_collective(MPI_Comm comm, const char* call, std::unique_ptr<collectives::Schedule> s, MPI_Request* request,
                     std::shared_ptr<int> outcome) {
  CommInfo& c = comm_ref(comm);
  s->start(engine(), c.group.context + mesh::ContextIds::kNonblockingOffset,
           static_cast<int>(c.nonblocking_seq++ & static_cast<std::uint32_t>(mesh::kTagUb)));
  const MPI_Request h = start_other(comm);
  Req& r = requests().at(h);
  r.sched = std::move(s);
  r.call = call;
  r.outcome = std::move(outcome);
  *request = h;
  return MPI_SUCCESS;
}

void finish_requests() {
  // Nonblocking collectives the program never completed: every member
  // started them, so every member finishes them here (the engine goes next).
  for (auto& e : requests().table)
    if (Req& r = *e; r.in_use && r.sched) engine().wait_until([&] { return r.sched->finished(); });
  reap_orphans(true);
  drain_buffered();
}

}  // namespace meshmp::mpi

using namespace meshmp;
using namespace meshmp::mpi;
using mesh::SendMode;

// ---- blocking sends and receives --------------------------------------------------

namespace {

// The checks that name what is wrong, then the send. Arguments that
// plain_args passes skip them (an 8-byte MPI_Send spent 136 instructions
// in the MPI layer, 103 now, every one on a ping-pong's path; MPI_Recv 126
// -> 107).
[[gnu::noinline]] int checked_send(const char* call, SendMode mode, const void* buf, int count, MPI_Datatype type,
                                   int dest, int tag, MPI_Comm comm) {
  Args a;
  if (int err = check_args(call, buf, count, type, dest, tag, comm, false, &a)) return err;
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  const char* data = data_start(*a.t, buf);
  if (!a.t->contiguous) {
    std::vector<char>& s = blocking_stage();
    s.resize(a.bytes);
    pack(*a.t, buf, static_cast<std::size_t>(count), s.data());
    data = s.data();
  }
  mesh::Status cs;
  engine().send(data, a.bytes, a.c->peer_world(dest), tag, a.c->p2p_context, mode, &cs);
  return cs.error == mesh::Error::kOk ? MPI_SUCCESS : report(comm, code_of(cs.error, call));
}

[[gnu::always_inline]] inline int blocking_send(const char* call, SendMode mode, const void* buf, int count,
                                                MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  const PlainArgs a = plain_args(buf, count, type, dest, tag, comm, false);
  if (!a.c) [[unlikely]]
    return checked_send(call, mode, buf, count, type, dest, tag, comm);
  mesh::Status cs;
  engine().send(data_start(*a.t, buf), static_cast<std::size_t>(count) * a.t->size, a.c->peer_world(dest), tag,
                a.c->p2p_context, mode, &cs);
  return cs.error == mesh::Error::kOk ? MPI_SUCCESS : report(comm, code_of(cs.error, call));
}

}  // namespace

MESHMP_MPI_FN(int, Send, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)) {
  return blocking_send("MPI_Send", SendMode::kStandard, buf, count, datatype, dest, tag, comm);
} MESHMP_MPI_END(Send)

MESHMP_MPI_FN(int, Ssend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)) {
  return blocking_send("MPI_Ssend", SendMode::kSynchronous, buf, count, datatype, dest, tag, comm);
} MESHMP_MPI_END(Ssend)

MESHMP_MPI_FN(int, Rsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)) {
  return blocking_send("MPI_Rsend", SendMode::kReady, buf, count, datatype, dest, tag, comm);
} MESHMP_MPI_END(Rsend)

MESHMP_MPI_FN(int, Bsend, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)) {
  MPI_Request r;
  if (int err = make_request("MPI_Bsend", true, false, true, SendMode::kStandard, buf, count, datatype, dest, tag, comm, &r))
    return err;
  return PMPI_Request_free(&r);
} MESHMP_MPI_END(Bsend)

namespace {
// MPI_Recv's checks that name what is wrong, then the receive.
[[gnu::noinline]] int checked_recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                   MPI_Status* status) {
  const char* call = "MPI_Recv";
  Args a;
  if (int err = check_args(call, buf, count, datatype, source, tag, comm, true, &a)) return err;
  if (source == MPI_PROC_NULL) {
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  char* data = const_cast<char*>(data_start(*a.t, buf));
  if (!a.t->contiguous) {
    blocking_stage().resize(a.bytes);
    data = blocking_stage().data();
  }
  mesh::Engine& e = engine();
  mesh::Status cs;
  e.wait(e.irecv(data, a.bytes, world_of(*a.c, source), tag, a.c->p2p_context), &cs);
  if (!a.t->contiguous) unpack(*a.t, data, cs.bytes, buf, static_cast<std::size_t>(count));
  const int code = code_of(cs.error, call);
  fill_status(status, *a.c, cs);
  return report(comm, code);
}
}  // namespace

MESHMP_MPI_FN(int, Recv, (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status)) {
  const PlainArgs a = plain_args(buf, count, datatype, source, tag, comm, true);
  if (!a.c) [[unlikely]]
    return checked_recv(buf, count, datatype, source, tag, comm, status);
  mesh::Engine& e = engine();
  mesh::Status cs;
  e.wait(e.irecv(const_cast<char*>(data_start(*a.t, buf)), static_cast<std::size_t>(count) * a.t->size,
                 world_of(*a.c, source), tag, a.c->p2p_context),
         &cs);
  const int code = code_of(cs.error, "MPI_Recv");
  fill_status(status, *a.c, cs);
  return report(comm, code);
} MESHMP_MPI_END(Recv)

// ---- nonblocking and persistent ----------------------------------------------------

#define MESHMP_SEND_FORM(Name, persistent, buffered, mode)                                                        \
  MESHMP_MPI_FN(int, Name, (const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, \
                            MPI_Request* request)) {                                                              \
    return make_request("MPI_" #Name, true, persistent, buffered, mode, buf, count, datatype, dest, tag, comm,   \
                        request);                                                                                 \
  } MESHMP_MPI_END(Name)
MESHMP_SEND_FORM(Isend, false, false, SendMode::kStandard)
MESHMP_SEND_FORM(Ibsend, false, true, SendMode::kStandard)
MESHMP_SEND_FORM(Issend, false, false, SendMode::kSynchronous)
MESHMP_SEND_FORM(Irsend, false, false, SendMode::kReady)
MESHMP_SEND_FORM(Send_init, true, false, SendMode::kStandard)
MESHMP_SEND_FORM(Bsend_init, true, true, SendMode::kStandard)
MESHMP_SEND_FORM(Ssend_init, true, false, SendMode::kSynchronous)
MESHMP_SEND_FORM(Rsend_init, true, false, SendMode::kReady)
#undef MESHMP_SEND_FORM

MESHMP_MPI_FN(int, Irecv, (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request)) {
  return make_request("MPI_Irecv", false, false, false, SendMode::kStandard, buf, count, datatype, source, tag, comm, request);
} MESHMP_MPI_END(Irecv)

MESHMP_MPI_FN(int, Recv_init, (void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request)) {
  return make_request("MPI_Recv_init", false, true, false, SendMode::kStandard, buf, count, datatype, source, tag, comm, request);
} MESHMP_MPI_END(Recv_init)

namespace {
int start_persistent(MPI_Request* request, const char* call) {
  if (!request || !requests().valid(*request))
    return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "request is not a request");
  Req& r = requests().at(*request);
  if (!r.persistent) return raise(r.comm, call, MPI_ERR_REQUEST, "request is not persistent");
  if (r.active) return raise(r.comm, call, MPI_ERR_REQUEST, "request is already active");
  return start(*request, call);
}
}  // namespace

MESHMP_MPI_FN(int, Start, (MPI_Request* request)) { return start_persistent(request, "MPI_Start"); } MESHMP_MPI_END(Start)

MESHMP_MPI_FN(int, Startall, (int count, MPI_Request* array_of_requests)) {
  if (int err = check_request_array("MPI_Startall", count, array_of_requests)) return err;
  for (int i = 0; i < count; ++i)
    if (int err = start_persistent(&array_of_requests[i], "MPI_Startall")) return err;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Startall)

MESHMP_MPI_FN(int, Request_free, (MPI_Request* request)) {
  if (!request || !requests().valid(*request))
    return raise(MPI_COMM_NULL, "MPI_Request_free", MPI_ERR_REQUEST, "request is not a request");
  Req& r = requests().at(*request);
  if (r.sched && r.active)
    return raise(r.comm, "MPI_Request_free", MPI_ERR_REQUEST,
                 "request is an active nonblocking collective, which cannot be freed (MPI-3.1 §5.12)");
  if (r.greq) {  // free_fn runs now, or at MPI_Grequest_complete if that comes later (MPI-2.2 §12.2)
    const MPI_Request h = *request;
    *request = MPI_REQUEST_NULL;
    if (!r.greq->complete) {
      r.greq->freed = true;
      return MPI_SUCCESS;
    }
    const int code = free_generalized(*r.greq, "MPI_Request_free");
    requests().release(h);
    return report(MPI_COMM_NULL, code);
  }
  if (r.active && !r.done && r.core) {
    // Completes on its own (§3.7.3); a persistent core request is turned
    // into a one-shot one by waiting for it later.
    requests().orphans.push_back(*request);
  } else {
    if (r.core) engine().free(r.core);
    requests().release(*request);
  }
  *request = MPI_REQUEST_NULL;
  reap_orphans(false);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Request_free)

// ---- wait and test -------------------------------------------------------------

namespace {

int wait_one(MPI_Request* request, MPI_Status* status, const char* call) {
  if (!request) return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "request is NULL");
  if (!is_live(*request)) {
    if (*request != MPI_REQUEST_NULL && !requests().valid(*request))
      return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "request is not a request");
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  const MPI_Comm comm = requests().at(*request).comm;
  int code;
  complete(request, status, true, call, &code);
  return report(comm, code);
}

// Per-request statuses of a multiple completion: MPI_ERR_IN_STATUS (raised on
// the first failed request's communicator) if any request failed (§3.7.5).
int in_status(const char* call, MPI_Comm comm, int failed) {
  if (!failed) return MPI_SUCCESS;
  return raise(comm, call, MPI_ERR_IN_STATUS, std::to_string(failed) + " request(s) failed; their statuses hold the errors");
}

// A pass over a long request array polls the links every kPassPoll + 1
// entries: tokens keep flowing back to senders meanwhile, so a flood into
// thousands of receives is not held to one window of credits per pass.
constexpr int kPassPoll = 255;

// Whether live request h has completed (nothing is progressed). A
// generalized request has once MPI_Grequest_complete was called; its
// callbacks run when a wait or test completes it.
bool has_completed(MPI_Request h) {
  Req& r = requests().at(h);
  return r.done || (r.core ? engine().is_complete(r.core) : r.sched ? schedule_done(r) : r.greq->complete);
}

// The index of a completed live request of the array, looking from `from`
// on (wrapping), or -1. Loops of MPI_Waitany over one array start where the
// last one was found, so requests completing in order are found at once.
int find_completed(int count, const MPI_Request* reqs, int from) {
  for (int k = 0; k < count; ++k) {
    const int i = from + k < count ? from + k : from + k - count;
    if (is_live(reqs[i]) && has_completed(reqs[i])) return i;
  }
  return -1;
}

struct AnyHint {
  const MPI_Request* array = nullptr;
  int next = 0;
};
AnyHint& any_hint() {
  static AnyHint h;
  return h;
}
int hint_for(const MPI_Request* reqs, int count) {
  const AnyHint& h = any_hint();
  return h.array == reqs && h.next < count ? h.next : 0;
}
void remember_found(const MPI_Request* reqs, int count, int i) { any_hint() = AnyHint{reqs, i + 1 < count ? i + 1 : 0}; }

// Completes, without progressing or blocking, every live request of the
// array that has completed, checking every handle on the way
// (MPI_ERR_REQUEST); indices and statuses packed as MPI_Testsome returns
// them. *live: whether the array had any live request.
int complete_some(const char* call, int count, MPI_Request* reqs, int* outcount, int* indices, MPI_Status* sts,
                  bool* live) {
  int n = 0, failed = 0;
  MPI_Comm failed_comm = MPI_COMM_NULL;
  *live = false;
  for (int i = 0; i < count; ++i) {
    if ((i & kPassPoll) == kPassPoll) engine().progress();
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    if (!requests().valid(reqs[i]))
      return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "array_of_requests[" + std::to_string(i) + "] is not a request");
    if (!requests().at(reqs[i]).active) continue;
    *live = true;
    if (!has_completed(reqs[i])) continue;
    const MPI_Comm c = requests().at(reqs[i]).comm;
    MPI_Status tmp{};
    int code;
    complete(&reqs[i], &tmp, false, call, &code);
    if (code) ++failed, failed_comm = c;
    tmp.MPI_ERROR = code;
    if (sts) sts[n] = tmp;
    indices[n++] = i;
  }
  *outcount = n;
  return in_status(call, failed_comm, failed);
}

// One pass over a request array for MPI_Waitany/Testany/Waitsome/Testsome:
// checks every handle (MPI_ERR_REQUEST), and sets *live to whether any
// request is live and *found to a completed one (looking from `from` on, or
// -1). A completed request exactly at `from` -- the next after the last one
// found, as when requests complete in order -- is taken without the pass.
int scan(const char* call, int count, const MPI_Request* reqs, int from, bool* live, int* found) {
  *live = false;
  *found = -1;
  if (count < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_COUNT, "count = " + std::to_string(count) + " is negative");
  if (count > 0 && !reqs) return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "array_of_requests is NULL");
  if (count > 0 && is_live(reqs[from]) && has_completed(reqs[from])) {
    *live = true;
    *found = from;
    return MPI_SUCCESS;
  }
  for (int k = 0; k < count; ++k) {
    if ((k & kPassPoll) == kPassPoll) engine().progress();
    const int i = from + k < count ? from + k : from + k - count;
    const MPI_Request h = reqs[i];
    if (h == MPI_REQUEST_NULL) continue;
    if (!requests().valid(h))
      return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "array_of_requests[" + std::to_string(i) + "] is not a request");
    if (!requests().at(h).active) continue;
    *live = true;
    if (*found < 0 && has_completed(h)) *found = i;
  }
  return MPI_SUCCESS;
}

// MPI_Waitany/Testany/Waitsome/Testsome: finds a completed live request of
// the array -- after one round of progress, and blocking for one if `block`
// -- into *found (-1: none). *live: whether the array has any live request.
// While waiting the array is scanned again only after some request has
// completed: a loop over n requests costs O(n) per completion, not per poll.
int any_completed(const char* call, int count, const MPI_Request* reqs, bool block, bool* live, int* found) {
  const int from = hint_for(reqs, count);
  if (int err = scan(call, count, reqs, from, live, found)) return err;
  if (*live && *found < 0) {
    engine().progress();
    *found = find_completed(count, reqs, from);
    if (*found < 0 && block)
      engine().wait_for_completion([&] { return (*found = find_completed(count, reqs, from)) >= 0; });
  }
  if (*found >= 0) remember_found(reqs, count, *found);
  return MPI_SUCCESS;
}

// MPI_Waitany/Testany of an array of one live request: MPI_Wait/Test's
// path, the index 0 once it completes (and *flag, for MPI_Testany). A loop
// polling one receive with MPI_Testany (HPCC's MPIRandomAccess, once per
// update) spent more on the array's passes -- its request looked at three
// times -- than on the progress they wait for.
int only_request(MPI_Request* reqs, MPI_Status* status, bool block, const char* call, int* index, int* flag) {
  const MPI_Comm comm = requests().at(*reqs).comm;
  int code = MPI_SUCCESS;
  const bool done = complete(reqs, status, block, call, &code);
  if (done) *index = 0;
  if (flag) *flag = done;
  return report(comm, code);
}

}  // namespace

MESHMP_MPI_FN(int, Wait, (MPI_Request* request, MPI_Status* status)) { return wait_one(request, status, "MPI_Wait"); } MESHMP_MPI_END(Wait)

MESHMP_MPI_FN(int, Test, (MPI_Request* request, int* flag, MPI_Status* status)) {
  if (!request || !flag) return raise(MPI_COMM_NULL, "MPI_Test", MPI_ERR_ARG, "request or flag is NULL");
  if (!is_live(*request)) {
    if (*request != MPI_REQUEST_NULL && !requests().valid(*request))
      return raise(MPI_COMM_NULL, "MPI_Test", MPI_ERR_REQUEST, "request is not a request");
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  const MPI_Comm comm = requests().at(*request).comm;
  int code = MPI_SUCCESS;
  *flag = complete(request, status, false, "MPI_Test", &code);
  return report(comm, code);
} MESHMP_MPI_END(Test)

MESHMP_MPI_FN(int, Waitany, (int count, MPI_Request* array_of_requests, int* index, MPI_Status* status)) {
  const char* call = "MPI_Waitany";
  if (!index) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "index is NULL");
  *index = MPI_UNDEFINED;
  if (count == 1 && array_of_requests && is_live(array_of_requests[0]))
    return only_request(array_of_requests, status, true, call, index, nullptr);
  bool live;
  int i;
  if (int err = any_completed(call, count, array_of_requests, true, &live, &i)) return err;
  if (!live) {
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  const MPI_Comm comm = requests().at(array_of_requests[i]).comm;
  int code;
  complete(&array_of_requests[i], status, false, call, &code);
  *index = i;
  return report(comm, code);
} MESHMP_MPI_END(Waitany)

MESHMP_MPI_FN(int, Testany, (int count, MPI_Request* array_of_requests, int* index, int* flag, MPI_Status* status)) {
  const char* call = "MPI_Testany";
  if (!index || !flag) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "index or flag is NULL");
  *index = MPI_UNDEFINED;
  if (count == 1 && array_of_requests && is_live(array_of_requests[0]))
    return only_request(array_of_requests, status, false, call, index, flag);
  bool live;
  int i;
  if (int err = any_completed(call, count, array_of_requests, false, &live, &i)) return err;
  if (!live) {  // no live request: flag true, index undefined (§3.7.5)
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  *flag = i >= 0;
  if (i < 0) return MPI_SUCCESS;
  const MPI_Comm comm = requests().at(array_of_requests[i]).comm;
  int code;
  complete(&array_of_requests[i], status, false, call, &code);
  *index = i;
  return report(comm, code);
} MESHMP_MPI_END(Testany)

namespace {
// MPI_Waitall and MPI_Testall's completion: every live request of the
// array completes (blocking), its status into array_of_statuses[i]; null and
// inactive ones get an empty status. Two passes over the array: the first
// checks every handle (MPI_ERR_REQUEST, before anything is waited for) and
// gathers the core requests still in flight, the engine waits for them all,
// and the second concludes each. (Three passes and a separate check before:
// ~100 instructions per request of an 8-byte MPI_Waitall, half of them
// looking handles up again.)
int wait_all(const char* call, int count, MPI_Request* array_of_requests, MPI_Status* array_of_statuses) {
  if (count < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_COUNT, "count = " + std::to_string(count) + " is negative");
  if (count > 0 && !array_of_requests) return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "array_of_requests is NULL");
  // Reused: no allocation per call. A generalized request's callbacks run
  // in the middle of a call and may call MPI_Waitall themselves: that inner
  // call takes vectors of its own.
  struct Scratch {
    std::vector<mesh::Request*> cores;
    std::vector<mesh::Status> cs;
    bool busy = false;
  };
  static Scratch reused;
  std::unique_ptr<Scratch> own;
  Scratch& w = reused.busy ? *(own = std::make_unique<Scratch>()) : reused;
  if (w.cores.size() < static_cast<std::size_t>(count)) {
    w.cores.resize(static_cast<std::size_t>(count));
    w.cs.resize(static_cast<std::size_t>(count));
  }
  struct Busy {
    Scratch& w;
    ~Busy() { w.busy = false; }
  } busy{w};
  w.busy = true;
  std::vector<mesh::Request*>& cores = w.cores;
  std::vector<mesh::Status>& cs = w.cs;
  Requests& rs = requests();
  bool others = false;  // nonblocking collectives or generalized requests
  for (int i = 0; i < count; ++i) {
    const MPI_Request h = array_of_requests[i];
    cores[i] = nullptr;
    if (h == MPI_REQUEST_NULL) continue;
    if (!rs.valid(h)) [[unlikely]]
      return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "array_of_requests[" + std::to_string(i) + "] is not a request");
    const Req& r = rs.at(h);
    if (!r.active || r.done) continue;
    cores[i] = r.core;  // nullptr for a nonblocking collective or a generalized request
    others |= r.core == nullptr;
  }
  engine().waitall(static_cast<std::size_t>(count), cores.data(), cs.data());
  for (int i = 0; others && i < count; ++i)  // (nonblocking collectives moved meanwhile too)
    if (is_live(array_of_requests[i])) {
      Req& r = requests().at(array_of_requests[i]);
      if (!r.done && !r.core) other_done(r, true, call);
    }
  int failed = 0;
  MPI_Comm failed_comm = MPI_COMM_NULL;
  for (int i = 0; i < count; ++i) {
    MPI_Status* st = array_of_statuses ? &array_of_statuses[i] : nullptr;
    const MPI_Request h = array_of_requests[i];
    Req* r = h == MPI_REQUEST_NULL ? nullptr : &rs.at(h);
    if (!r || !r->active) {
      set_empty_status(st);
      continue;
    }
    const MPI_Comm c = r->comm;
    const int code = conclude(&array_of_requests[i], *r, cores[i] ? &cs[i] : nullptr, st, call);
    if (st) st->MPI_ERROR = code;
    if (code) [[unlikely]] ++failed, failed_comm = c;
  }
  return in_status(call, failed_comm, failed);
}

}  // namespace

MESHMP_MPI_FN(int, Waitall, (int count, MPI_Request* array_of_requests, MPI_Status* array_of_statuses)) {
  return wait_all("MPI_Waitall", count, array_of_requests, array_of_statuses);
} MESHMP_MPI_END(Waitall)

MESHMP_MPI_FN(int, Testall, (int count, MPI_Request* array_of_requests, int* flag, MPI_Status* array_of_statuses)) {
  const char* call = "MPI_Testall";
  if (int err = check_request_array(call, count, array_of_requests)) return err;
  if (!flag) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "flag is NULL");
  mesh::Engine& e = engine();
  e.progress();
  for (int i = 0; i < count; ++i) {
    if (!is_live(array_of_requests[i])) continue;
    if (!has_completed(array_of_requests[i])) {
      *flag = 0;  // none is completed unless all are (§3.7.5)
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  return wait_all(call, count, array_of_requests, array_of_statuses);
} MESHMP_MPI_END(Testall)

namespace {
// MPI_Waitsome/Testsome: every live request of the array that has
// completed after one round of progress -- one pass over the array -- or,
// if none has and `block`, after waiting for one.
int some(const char* call, int incount, MPI_Request* reqs, int* outcount, int* indices, MPI_Status* sts, bool block) {
  if (incount < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_COUNT, "incount = " + std::to_string(incount) + " is negative");
  if (incount > 0 && !reqs) return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "array_of_requests is NULL");
  if (!outcount || (incount > 0 && !indices))
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "outcount or array_of_indices is NULL");
  engine().progress();
  bool live;
  int err = complete_some(call, incount, reqs, outcount, indices, sts, &live);
  if (err || !live) {
    if (!err) *outcount = MPI_UNDEFINED;
    return err;
  }
  if (*outcount > 0 || !block) return MPI_SUCCESS;
  const int from = hint_for(reqs, incount);
  engine().wait_for_completion([&] { return find_completed(incount, reqs, from) >= 0; });
  return complete_some(call, incount, reqs, outcount, indices, sts, &live);
}
}  // namespace

MESHMP_MPI_FN(int, Waitsome, (int incount, MPI_Request* array_of_requests, int* outcount, int* array_of_indices, MPI_Status* array_of_statuses)) {
  return some("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices, array_of_statuses, true);
} MESHMP_MPI_END(Waitsome)

MESHMP_MPI_FN(int, Testsome, (int incount, MPI_Request* array_of_requests, int* outcount, int* array_of_indices, MPI_Status* array_of_statuses)) {
  return some("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices, array_of_statuses, false);
} MESHMP_MPI_END(Testsome)

// ---- probe, cancel, status queries --------------------------------------------------

namespace {
// The arguments every probe checks: comm, a receive's tag and source.
CommInfo* probe_args(const char* call, int source, int tag, MPI_Comm comm, int* err) {
  CommInfo* c = check_comm(comm, call, err);
  if (!c) return nullptr;
  if ((*err = check_tag(comm, call, tag, true)) || (*err = check_rank(comm, *c, call, source, "source", true)))
    return nullptr;
  return c;
}
}  // namespace

MESHMP_MPI_FN(int, Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status)) {
  const char* call = "MPI_Iprobe";
  int err;
  CommInfo* c = probe_args(call, source, tag, comm, &err);
  if (!c) return err;
  if (!flag) return raise(comm, call, MPI_ERR_ARG, "flag is NULL");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  mesh::Status cs;
  *flag = engine().iprobe(world_of(*c, source), tag, c->p2p_context, &cs);
  if (*flag) fill_status(status, *c, cs);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Iprobe)

MESHMP_MPI_FN(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status)) {
  const char* call = "MPI_Probe";
  int err;
  CommInfo* c = probe_args(call, source, tag, comm, &err);
  if (!c) return err;
  if (source == MPI_PROC_NULL) {
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  mesh::Status cs;
  engine().probe(world_of(*c, source), tag, c->p2p_context, &cs);
  fill_status(status, *c, cs);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Probe)

MESHMP_MPI_FN(int, Cancel, (MPI_Request* request)) {
  if (!request || !requests().valid(*request))
    return raise(MPI_COMM_NULL, "MPI_Cancel", MPI_ERR_REQUEST, "request is not a request");
  Req& r = requests().at(*request);
  if (!r.active) return raise(r.comm, "MPI_Cancel", MPI_ERR_REQUEST, "request is not active");
  if (r.sched)
    return raise(r.comm, "MPI_Cancel", MPI_ERR_REQUEST,
                 "request is a nonblocking collective, which cannot be cancelled (MPI-3.1 §5.12)");
  if (r.greq) {
    const Generalized& g = *r.greq;
    return report(MPI_COMM_NULL, callback_code(g.cancel(g.extra_state, g.complete), "MPI_Cancel", "cancel_fn"));
  }
  // A send that has left is retracted at its receiver if still unmatched
  // (Engine::cancel); a receive that matched, a buffered send (the attached
  // buffer holds it) or a send to MPI_PROC_NULL completes as usual, and the
  // wait then reports it not cancelled (§3.8).
  if (!r.done && r.core) {
    engine().cancel(r.core);
  } else if (r.done && r.sent_id) {  // written at once, with no core request
    // Its byte count from the status it completed with: the datatype may be freed by now.
    r.core = engine().cancel_sent(comm_ref(r.comm).peer_world(r.peer), r.sent_id,
                                  static_cast<std::size_t>(r.st.meshmp_bytes), r.tag);
    r.done = false;
    r.sent_id = 0;
  }
  return MPI_SUCCESS;
} MESHMP_MPI_END(Cancel)

// MPI-2.2 §3.7.3: whether the request has completed, and its status, but
// the request stays as it is -- a later wait or test completes (and frees)
// it. A completed core request's status moves into the request (`done`).
MESHMP_MPI_FN(int, Request_get_status, (MPI_Request request, int* flag, MPI_Status* status)) {
  const char* call = "MPI_Request_get_status";
  if (!flag) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "flag is NULL");
  if (!is_live(request)) {
    if (request != MPI_REQUEST_NULL && !requests().valid(request))
      return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "request is not a request");
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  engine().progress();
  if (!has_completed(request)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  Req& r = requests().at(request);
  if (r.greq && !r.done) {  // query_fn each time; the request stays, and its free_fn for later (MPI-2.2 §12.2)
    MPI_Status scratch{};  // its error field is read back below
    MPI_Status* st = status ? status : &scratch;
    const int error = st->MPI_ERROR;
    const int code = query_generalized(*r.greq, st, call);
    st->MPI_ERROR = error;
    *flag = 1;
    return report(MPI_COMM_NULL, code);
  }
  if (!r.done) {
    mesh::Status cs;
    engine().test(r.core, &cs);
    unpack_received(r, cs);
    fill_status(&r.st, comm_ref(r.comm), cs);
    r.st.MPI_ERROR = code_of(cs.error, call);
    if (!r.persistent) r.core = nullptr;
    r.done = true;
  }
  *flag = 1;
  copy_status(status, r.st);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Request_get_status)

// ---- generalized requests (MPI-2.2 §12.2) -----------------------------------------

MESHMP_MPI_FN(int, Grequest_start, (MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn, MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request)) {
  const char* call = "MPI_Grequest_start";
  int err;
  if (!check_init(call, &err)) return err;
  if (!query_fn || !free_fn || !cancel_fn)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                 std::string(!query_fn ? "query_fn" : !free_fn ? "free_fn" : "cancel_fn") + " is NULL");
  if (!request) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "request is NULL");
  const MPI_Request h = start_other(MPI_COMM_NULL);  // its errors go to MPI_COMM_WORLD's handler
  Req& r = requests().at(h);
  r.greq = std::make_unique<Generalized>(Generalized{query_fn, free_fn, cancel_fn, extra_state});
  *request = h;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Grequest_start)

MESHMP_MPI_FN(int, Grequest_complete, (MPI_Request request)) {
  const char* call = "MPI_Grequest_complete";
  if (!requests().valid(request) || !requests().at(request).greq)
    return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "request is not a generalized request");
  Generalized& g = *requests().at(request).greq;
  if (g.complete) return raise(MPI_COMM_NULL, call, MPI_ERR_REQUEST, "request was completed before");
  g.complete = true;
  if (!g.freed) return MPI_SUCCESS;
  const int code = free_generalized(g, call);  // MPI_Request_free came first: the request goes now
  requests().release(request);
  return report(MPI_COMM_NULL, code);
} MESHMP_MPI_END(Grequest_complete)

MESHMP_MPI_FN(int, Test_cancelled, (const MPI_Status* status, int* flag)) {
  if (!status || !flag) return raise(MPI_COMM_NULL, "MPI_Test_cancelled", MPI_ERR_ARG, "status or flag is NULL");
  *flag = status->meshmp_cancelled;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Test_cancelled)

// ---- matched probe (MPI-3.1 §3.8.2) ----------------------------------------------------

namespace {

// A message a matched probe took: the core's handle and its communicator.
struct Matched {
  mesh::Message* core = nullptr;
  MPI_Comm comm = MPI_COMM_NULL;
};
struct Messages {
  std::vector<Matched> table;  // handle h is table[h - 1]; core == nullptr: free
  std::vector<MPI_Message> free;
  MPI_Message add(mesh::Message* m, MPI_Comm comm) {
    MPI_Message h;
    if (!free.empty()) {
      h = free.back();
      free.pop_back();
    } else {
      table.emplace_back();
      h = static_cast<MPI_Message>(table.size());
    }
    table[static_cast<std::size_t>(h) - 1] = Matched{m, comm};
    return h;
  }
  Matched* at(MPI_Message h) {
    if (h <= 0 || static_cast<std::size_t>(h) > table.size() || !table[static_cast<std::size_t>(h) - 1].core)
      return nullptr;
    return &table[static_cast<std::size_t>(h) - 1];
  }
  void release(MPI_Message h) {
    table[static_cast<std::size_t>(h) - 1] = Matched{};
    free.push_back(h);
  }
};
Messages& messages() {
  static Messages m;
  return m;
}

// MPI_Mprobe and MPI_Improbe (`block`); *flag as Iprobe's.
int matched_probe(const char* call, bool block, int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                  MPI_Status* status) {
  int err;
  CommInfo* c = probe_args(call, source, tag, comm, &err);
  if (!c) return err;
  if (!message) return raise(comm, call, MPI_ERR_ARG, "message is NULL");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    *message = MPI_MESSAGE_NO_PROC;
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  mesh::Status cs;
  mesh::Message* m = block ? engine().mprobe(world_of(*c, source), tag, c->p2p_context, &cs)
                           : engine().improbe(world_of(*c, source), tag, c->p2p_context, &cs);
  *flag = m != nullptr;
  if (!m) return MPI_SUCCESS;
  *message = messages().add(m, comm);
  fill_status(status, *c, cs);
  return MPI_SUCCESS;
}

// MPI_Imrecv's request for *message (taken: *message becomes MPI_MESSAGE_NULL).
int message_request(const char* call, void* buf, int count, MPI_Datatype type, MPI_Message* message,
                    MPI_Request* request) {
  if (!message) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "message is NULL");
  if (*message == MPI_MESSAGE_NO_PROC) {
    *message = MPI_MESSAGE_NULL;
    return make_request(call, false, false, false, SendMode::kStandard, buf, count, type, MPI_PROC_NULL, MPI_ANY_TAG,
                        MPI_COMM_SELF, request);
  }
  Matched* m = messages().at(*message);
  if (!m) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "message = " + std::to_string(*message) + " is not a matched message");
  // A bad argument leaves the message the caller's, to receive again.
  if (int err = make_request(call, false, false, false, SendMode::kStandard, buf, count, type, MPI_ANY_SOURCE,
                             MPI_ANY_TAG, m->comm, request, m->core))
    return err;
  messages().release(*message);
  *message = MPI_MESSAGE_NULL;
  return MPI_SUCCESS;
}

}  // namespace

MESHMP_MPI_FN(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status)) {
  int flag;
  return matched_probe("MPI_Mprobe", true, source, tag, comm, &flag, message, status);
} MESHMP_MPI_END(Mprobe)

MESHMP_MPI_FN(int, Improbe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status)) {
  if (!flag) return raise(comm, "MPI_Improbe", MPI_ERR_ARG, "flag is NULL");
  return matched_probe("MPI_Improbe", false, source, tag, comm, flag, message, status);
} MESHMP_MPI_END(Improbe)

MESHMP_MPI_FN(int, Imrecv, (void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request)) {
  return message_request("MPI_Imrecv", buf, count, datatype, message, request);
} MESHMP_MPI_END(Imrecv)

MESHMP_MPI_FN(int, Mrecv, (void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status)) {
  MPI_Request r;
  if (int err = message_request("MPI_Mrecv", buf, count, datatype, message, &r)) return err;
  const MPI_Comm comm = requests().at(r).comm;
  int code;
  complete(&r, status, true, "MPI_Mrecv", &code);
  return report(comm, code);
} MESHMP_MPI_END(Mrecv)

// ---- combined send-receive ---------------------------------------------------------

namespace {

// Both halves posted before either is waited for, so two ranks exchanging
// with each other cannot deadlock (§3.10).
int send_and_receive(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Status* status) {
  MPI_Request r[2];
  if (int err = make_request(call, false, false, false, SendMode::kStandard, recvbuf, recvcount, recvtype, source,
                             recvtag, comm, &r[0]))
    return err;
  if (int err = make_request(call, true, false, false, SendMode::kStandard, sendbuf, sendcount, sendtype, dest,
                             sendtag, comm, &r[1])) {
    int ignored;
    if (mesh::Request* core = requests().at(r[0]).core) engine().cancel(core);
    complete(&r[0], nullptr, true, call, &ignored);
    return err;
  }
  int recv_code, send_code;
  complete(&r[1], nullptr, true, call, &send_code);
  complete(&r[0], status, true, call, &recv_code);
  return report(comm, recv_code ? recv_code : send_code);
}

}  // namespace

MESHMP_MPI_FN(int, Sendrecv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status)) {
  return send_and_receive("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                          source, recvtag, comm, status);
} MESHMP_MPI_END(Sendrecv)

MESHMP_MPI_FN(int, Sendrecv_replace, (void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status* status)) {
  const char* call = "MPI_Sendrecv_replace";
  Args a;
  if (int err = check_args(call, buf, count, datatype, dest, sendtag, comm, false, &a)) return err;
  std::vector<char> copy(a.bytes);
  pack(*a.t, buf, static_cast<std::size_t>(count), copy.data());
  return send_and_receive(call, copy.data(), static_cast<int>(a.bytes), MPI_BYTE, dest, sendtag, buf, count, datatype,
                          source, recvtag, comm, status);
} MESHMP_MPI_END(Sendrecv_replace)
