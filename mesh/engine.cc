#include "mesh/engine.h"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <tuple>
#include <stdexcept>

#include "mesh/bootstrap.h"
#include "mesh/config.h"
#include "mesh/credits.h"
#include "mesh/launch_env.h"
#include "mesh/link.h"
#include "mesh/matching.h"
#include "mesh/provider.h"
#include "mesh/wire.h"

namespace meshmp::mesh {

const char* error_name(Error e) {
  switch (e) {
    case Error::kOk: return "success";
    case Error::kTruncate: return "message truncated";
    case Error::kPeerDead: return "peer process died";
    case Error::kProtocol: return "malformed data from peer";
  }
  return "?";
}

namespace {

enum class State : std::uint8_t {
  kInactive,    // persistent, not started / completed and tested
  kQueued,      // send: waiting in a link's send queue (tokens or connection)
  kWaitCts,     // send: RTS sent, waiting for the receiver's CTS
  kStreaming,   // send: DATA frames going out through the slots
  kWaitAck,     // send: synchronous eager, waiting for SYNC_ACK
  kPosted,      // recv: in the matcher's posted queues
  kRendezvous,  // recv: CTS sent, waiting for DONE or DATA
  kWaitReady,   // send (channel): waiting for the receiver's RECV_READY (or, for a small receive, CTS)
  kAnnounced,   // recv (channel): started, waiting for its message (RECV_READY sent if large)
  kPutting,     // send: its put (RDMA write) is in flight or waits for a resource
  kDone,
};

long env_long(const char* name, long dflt, long lo, long hi) {
  const char* s = std::getenv(name);
  if (!s || !*s) return dflt;
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (*end || v < lo || v > hi)
    throw std::runtime_error(std::string(name) + "=" + s + ": expected an integer in " +
                             std::to_string(lo) + ".." + std::to_string(hi));
  return v;
}

inline void cpu_relax() { __builtin_ia32_pause(); }

}  // namespace

struct Request : PostedRecv {
  bool is_send = false;
  bool persistent = false;
  bool free_when_done = false;
  bool in_use = false;
  State state = State::kInactive;
  SendMode mode = SendMode::kStandard;
  std::uint32_t context = 0;
  int peer = 0;  // dst for sends; src (or kAnySource) for receives
  int tag = 0;
  char* buf = nullptr;
  std::size_t len = 0;
  Status status;
  std::uint64_t id = 0;  // index | generation << 32; names the request on the wire
  // Rendezvous state.
  std::size_t granted = 0;     // bytes the receiver accepted
  std::size_t offset = 0;      // send: DATA bytes queued so far; recv: DATA bytes arrived
  std::size_t msg_len = 0;     // recv: the sender's message length
  std::uint64_t reg_key = 0;   // recv: registration key announced in the CTS
  std::uint64_t remote_id = 0; // the other side's request id
  int data_streams = 0;        // send: DATA queue entries still referring to this request
  std::uint64_t remote_key = 0;  // send: the receiver's registration key
  std::uint64_t put_addr = 0;    // send: where a put that found no resource goes, when retried
  bool done_seen = false;      // recv: DONE of a streamed message arrived
  bool channel = false;        // receiver-ready protocol (Engine::channel_*_init)
  std::uint64_t chan_gen = 0;  // channel: this start's number (send: the announcement it needs)
  struct SendChannel* schan = nullptr;  // channel send: its channel
  struct RecvChannel* rchan = nullptr;  // channel receive: its channel
  bool cancelling = false;     // send: a CANCEL is on its way to the receiver
  std::vector<char> copy;      // send completed locally on cancel: the data, owned here
  Request* free_next = nullptr;
};

// Receiver-ready channels, keyed by (peer, context, tag).
struct ChannelKey {
  int peer;
  std::uint32_t context;
  int tag;
  bool operator<(const ChannelKey& o) const {
    return std::tie(peer, context, tag) < std::tie(o.peer, o.context, o.tag);
  }
};

struct Announcement {
  std::uint64_t gen, addr, key, recv_id, capacity;
};

// A sender's view of one channel: sends started so far, announcements not
// yet used (in order), and the sends waiting for theirs (in order: several
// handles may share a channel, e.g. QMP_declare_send_to to one node twice).
struct SendChannel {
  std::uint64_t next_gen = 0;
  std::deque<Announcement> ready;
  std::vector<Request*> waiting;
};

struct Unexpected;

// A receiver's view of one channel: receives started so far, those started
// and not yet matched (any order: a large message may finish after a later
// small one), and eager messages and RTSs that came before their receive
// started. A channel's k-th send meets its k-th receive whatever the sizes,
// so channel traffic bypasses the matcher.
struct RecvChannel {
  std::uint64_t next_gen = 0;
  std::vector<Request*> started;
  std::vector<Unexpected*> early;
};

// A frame waiting for a token or for the connection.
struct PendingFrame {
  FrameHeader h{};
  Request* req = nullptr;  // EAGER payload / DATA source
  PendingFrame* prev = nullptr;
  PendingFrame* next = nullptr;
};

struct Unexpected : UnexpectedMsg {
  bool rendezvous = false;
  bool sync = false;
  std::size_t length = 0;
  std::uint64_t send_id = 0;
  std::uint64_t chan_gen = 0;    // an early channel message: its number
  Request* self_send = nullptr;  // a send to this rank, still pending
  std::vector<char> data;
};

struct LinkState {
  std::unique_ptr<Link> link;
  int peer = -1;                 // link->peer() and link->max_payload(), fixed for the
  std::size_t max_payload = 0;   // link's life: kept here off the per-frame path
  CreditLedger ledger{1};
  Fifo<PendingFrame> sendq;
  LinkStats stats;
  bool up = false;
  std::uint64_t credited_through = 0;  // frames below this seq had their credits applied
  std::deque<Request*> put_retry;      // puts that found no resource, in order
  std::uint32_t puts_in_flight = 0;    // puts that returned kInProgress, not yet completed
};

// One entry of the address vector: how this rank reaches a peer.
struct PeerState {
  Provider* provider = nullptr;   // the first provider that reaches it
  bool same_host = false;
  std::vector<LinkState*> links;  // links[0] carries every envelope to this peer
  Error failed = Error::kOk;
};

struct Engine::Impl {
  Engine& e;
  std::unique_ptr<Bootstrap> boot;
  bool unrouted_noted = false;  // the mesh-fabric notice of primary_link() was given
  std::vector<std::unique_ptr<Provider>> providers;
  Provider* waiter = nullptr;      // the provider idle waits sleep in (the only one, today)
  MemoryDomain* domain = nullptr;  // registered memory and remote keys
  HostCombine* host = nullptr;     // set when every rank shares this host and a provider offers it
  std::vector<std::unique_ptr<LinkState>> links;  // all links, polled in turn
  std::vector<PeerState> peers;
  std::vector<LinkState*> by_direction;
  Matcher matcher;
  std::vector<std::unique_ptr<Request>> requests;
  Request* free_requests = nullptr;
  std::vector<std::unique_ptr<PendingFrame>> frame_pool_storage;
  PendingFrame* free_frames = nullptr;
  std::size_t unexpected_bytes = 0;
  std::mt19937_64 rng{std::random_device{}()};
  std::chrono::steady_clock::time_point last_liveness = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<Link>> incoming;
  std::vector<int> closed_links;
  std::map<ChannelKey, SendChannel> send_channels;  // nodes never move: requests point at them
  std::map<ChannelKey, RecvChannel> recv_channels;
  std::uint64_t completions = 0;  // requests completed so far: waits over many rescan only when it moves
  int probing = 0;                // a blocking probe is waiting (it may need buffering beyond the limit)
  std::uint64_t smp_seq = 0;      // host-local combines done so far
  std::vector<char> smp_all;      // every contribution, on the last to arrive

  explicit Impl(Engine& eng) : e(eng), matcher(eng.size_) {}

  // ---- requests ---------------------------------------------------------
  Request* alloc_request() {
    Request* r = free_requests;
    if (r) {
      free_requests = r->free_next;
      std::uint64_t gen = (r->id >> 32) + 1;
      std::uint64_t index = r->id & 0xffffffffu;
      *r = Request{};
      r->id = index | (gen << 32);
    } else {
      requests.push_back(std::make_unique<Request>());
      r = requests.back().get();
      r->id = requests.size() - 1;
    }
    r->in_use = true;
    return r;
  }
  void release_request(Request* r) {
    r->in_use = false;
    r->free_next = free_requests;
    free_requests = r;
  }
  // A request named on the wire: only live ones in the expected state count.
  Request* lookup(std::uint64_t id, bool is_send, State want, int peer) {
    std::uint64_t index = id & 0xffffffffu;
    if (index >= requests.size()) return nullptr;
    Request* r = requests[index].get();
    if (!r->in_use || r->id != id || r->is_send != is_send || r->state != want) return nullptr;
    if (is_send ? r->peer != peer : r->status.source != peer) return nullptr;
    return r;
  }
  void complete(Request* r) {
    r->state = State::kDone;
    ++completions;
    if (r->free_when_done) release_request(r);  // MPI_Request_free on an active request
  }

  // Cancelling a standard send whose RTS has left (MPI-1.1 §3.8): the RTS
  // cannot be retracted without the receiver, but a wait on a cancelled
  // request must return whatever other ranks do. So the send completes now,
  // not cancelled: its data is copied, and a request owned by the engine
  // takes over its wire identity (the id the RTS carried) and finishes the
  // rendezvous from the copy if the receive is ever posted.
  void complete_from_copy(Request* r) {
    Request* w = alloc_request();
    std::swap(requests[r->id & 0xffffffffu], requests[w->id & 0xffffffffu]);
    std::swap(r->id, w->id);
    w->is_send = true;
    w->state = r->state;
    w->mode = r->mode;
    w->context = r->context;
    w->peer = r->peer;
    w->tag = r->tag;
    w->copy.assign(r->buf, r->buf + r->len);
    w->buf = w->copy.data();
    w->len = r->len;
    w->status = r->status;
    w->free_when_done = true;
    complete(r);
  }

  PendingFrame* alloc_frame() {
    PendingFrame* f = free_frames;
    if (f) {
      free_frames = f->next;
    } else {
      frame_pool_storage.push_back(std::make_unique<PendingFrame>());
      f = frame_pool_storage.back().get();
    }
    *f = PendingFrame{};
    return f;
  }
  void release_frame(PendingFrame* f) {
    f->next = free_frames;
    free_frames = f;
  }

  // The key a CTS or RECV_READY announces for a receive buffer: names the
  // registered region holding it (a writer then needs no system call), plus
  // a nonce DONE/DATA must echo.
  std::uint64_t registration_key(const char* buf, std::size_t len) {
    const auto nonce = static_cast<std::uint32_t>(rng());
    return domain ? domain->remote_key(buf, len, nonce) : std::uint64_t{nonce} | 1;
  }

  // ---- links --------------------------------------------------------------
  LinkState* add_link(std::unique_ptr<Link> link) {
    auto ls = std::make_unique<LinkState>();
    ls->ledger = CreditLedger(link->slots());
    ls->peer = link->peer();
    ls->max_payload = link->max_payload();
    ls->link = std::move(link);
    LinkState* p = ls.get();
    peers[p->peer].links.push_back(p);
    links.push_back(std::move(ls));
    return p;
  }
  LinkState* primary_link(int peer) {
    PeerState& ps = peers[peer];
    if (ps.links.empty()) {  // on first use (seed 004 §3): never a torus neighbour, whose links exist
      if (!e.opt_.mesh_fabric_config.empty() && !unrouted_noted) {
        unrouted_noted = true;
        std::fprintf(stderr,
                     "meshmp: rank %d: %s has fabric = \"mesh\", but rank %d is not a torus neighbour: its traffic "
                     "(and any other rank's that is not a neighbour) takes a direct %s link instead "
                     "of being routed through neighbours, which meshmp does not do yet\n",
                     e.rank_, e.opt_.mesh_fabric_config.c_str(), peer, ps.provider->name());
      }
      add_link(ps.provider->connect(peer));
    }
    return ps.links[0];
  }

  FrameHeader make_header(FrameType t, int peer) const {
    FrameHeader h{};
    h.version = kWireVersion;
    h.type = static_cast<std::uint8_t>(t);
    h.src = e.rank_;
    h.dst = peer;
    return h;
  }

  // Writes one frame into the link's next slot; the caller checked a token.
  void write_frame(LinkState& ls, FrameHeader h, const void* payload, std::size_t n) {
    char* pl = nullptr;
    FrameHeader* slot = ls.link->begin_send(&pl);
    h.credits = ls.ledger.spend();
    std::memcpy(slot, &h, sizeof h);
    if (n) std::memcpy(pl, payload, n);
    ls.link->end_send();
    ++ls.stats.frames_sent;
    ls.stats.bytes_sent += h.type == static_cast<std::uint8_t>(FrameType::kCredit) ? 0 : n;
  }

  // Sends a frame now if the link is up, nothing is queued before it and a
  // token is free; otherwise queues it (FIFO keeps MPI order).
  static bool writable_now(const LinkState& ls) { return ls.up && ls.sendq.empty() && ls.ledger.can_send_data(); }

  void send_or_queue(LinkState& ls, const FrameHeader& h, Request* req) {
    if (writable_now(ls)) {
      if (emit(ls, h, req)) return;
    }
    if (ls.up) ++ls.stats.token_stalls;
    PendingFrame* f = alloc_frame();
    f->h = h;
    f->req = req;
    ls.sendq.push_back(f);
  }

  // A standard eager frame written now, from `buf`, if the link is up, idle
  // and holds a credit; false (nothing written) otherwise.
  bool write_eager_now(int peer, const void* buf, std::size_t len, int tag, std::uint32_t context) {
    LinkState& ls = *primary_link(peer);
    if (!writable_now(ls) || len > ls.max_payload) return false;
    FrameHeader h = make_header(FrameType::kEager, peer);
    h.context = context;
    h.tag = tag;
    h.length = len;
    write_frame(ls, h, buf, len);
    ++ls.stats.eager_sent;
    return true;
  }

  // Puts one queued/ready frame on the wire. Returns true if the frame is
  // finished (a DATA stream may need more frames).
  bool emit(LinkState& ls, const FrameHeader& h, Request* req) {
    const auto type = static_cast<FrameType>(h.type);
    if (type == FrameType::kEager) {
      write_frame(ls, h, req->buf, req->len);
      ++ls.stats.eager_sent;
      if (h.flags & kFlagSync) req->state = State::kWaitAck;
      else complete(req);
      return true;
    }
    if (type == FrameType::kRts && req) {  // (a channel's RTS has none: it is a request to announce)
      write_frame(ls, h, nullptr, 0);
      ++ls.stats.rendezvous_sent;
      req->state = State::kWaitCts;
      return true;
    }
    if (type == FrameType::kData) {
      if (req->offset < req->granted) {
        FrameHeader d = h;
        std::size_t n = std::min(req->granted - req->offset, ls.max_payload);
        d.addr = req->offset;
        d.length = n;
        write_frame(ls, d, req->buf + req->offset, n);
        ++ls.stats.data_frames;
        req->offset += n;
        if (req->offset < req->granted) return false;
      }
      // This stream is finished; when every stream is, DONE tells the
      // receiver how much came (DATA may arrive after it on another link).
      if (--req->data_streams == 0) {
        FrameHeader d = make_header(FrameType::kDone, req->peer);
        d.flags = kFlagStreamed;
        d.length = req->granted;
        d.addr = req->len;
        d.send_id = req->id;
        d.recv_id = req->remote_id;
        d.key = req->remote_key;
        send_or_queue(*primary_link(req->peer), d, nullptr);
        complete(req);
      }
      return true;
    }
    write_frame(ls, h, nullptr, 0);  // CTS, DONE, SYNC_ACK
    return true;
  }

  bool flush(LinkState& ls) {
    bool any = false;
    while (!ls.sendq.empty() && ls.ledger.can_send_data()) {
      PendingFrame* f = ls.sendq.front();
      if (!emit(ls, f->h, f->req)) {
        any = true;
        continue;
      }
      ls.sendq.erase(f);
      release_frame(f);
      any = true;
    }
    return any;
  }

  // ---- failure --------------------------------------------------------------
  // Closes everything with `peer`: its queued frames go, its requests fail
  // with `why`. A protocol error this rank found (it rejected the peer's
  // data) is also told to the peer, whose calls then fail too instead of
  // waiting for frames that will not come (`tell_peer`).
  void fail_peer(int peer, Error why, const std::string& msg, bool tell_peer = true) {
    if (peers[peer].failed != Error::kOk) return;
    peers[peer].failed = why;
    std::fprintf(stderr, "meshmp: rank %d: rank %d: %s (%s); its requests fail\n", e.rank_, peer,
                 msg.c_str(), error_name(why));
    if (why == Error::kProtocol && tell_peer) peers[peer].provider->report_closed(peer);
    for (LinkState* ls : peers[peer].links) {
      while (PendingFrame* f = ls->sendq.pop_front()) release_frame(f);
      ls->put_retry.clear();
    }
    for (auto& up : requests) {
      Request* r = up.get();
      if (!r->in_use || r->state == State::kDone || r->state == State::kInactive) continue;
      bool involved = r->is_send ? r->peer == peer
                                 : (r->state == State::kRendezvous && r->status.source == peer) ||
                                       ((r->state == State::kPosted || r->state == State::kAnnounced) &&
                                        r->PostedRecv::key.source == peer);
      if (!involved) continue;
      if (r->state == State::kPosted) matcher.unpost(r);
      if (r->state == State::kAnnounced) forget(r->rchan->started, r);
      if (r->state == State::kWaitReady) forget(r->schan->waiting, r);
      r->status.error = why;
      r->status.source = peer;
      complete(r);
    }
  }

  // Every 100 ms while blocked: is every rank of the job still alive? (Also
  // those without a link yet: a receive may be waiting for one of them.)
  void check_liveness() {
    auto now = std::chrono::steady_clock::now();
    if (now - last_liveness < std::chrono::milliseconds(100)) return;
    last_liveness = now;
    for (int p = 0; p < e.size_; ++p) {
      if (p == e.rank_ || peers[p].failed != Error::kOk) continue;
      const std::string gone = peers[p].provider->check_peer(p);
      if (!gone.empty()) fail_peer(p, Error::kPeerDead, gone);
    }
  }

  // ---- receiving ----------------------------------------------------------
  void deliver_eager(Request* r, int src, int tag, const char* data, std::size_t n) {
    std::size_t take = std::min(n, r->len);
    if (take) std::memcpy(r->buf, data, take);
    r->status.source = src;
    r->status.tag = tag;
    r->status.bytes = take;
    r->status.error = n > r->len ? Error::kTruncate : Error::kOk;
    complete(r);
  }

  void send_sync_ack(int peer, std::uint64_t send_id) {
    FrameHeader h = make_header(FrameType::kSyncAck, peer);
    h.send_id = send_id;
    send_or_queue(*primary_link(peer), h, nullptr);
  }

  // A matched RTS: announce the buffer (CTS) so the sender can write it.
  void accept_rendezvous(Request* r, int src, int tag, std::size_t msg_len, std::uint64_t send_id) {
    r->status.source = src;
    r->status.tag = tag;
    r->msg_len = msg_len;
    r->granted = std::min(msg_len, r->len);
    r->offset = 0;
    r->remote_id = send_id;
    r->reg_key = registration_key(r->buf, r->granted);
    r->state = State::kRendezvous;
    FrameHeader h = make_header(FrameType::kCts, src);
    h.context = r->context;
    h.tag = tag;
    h.length = r->granted;
    h.send_id = send_id;
    h.recv_id = r->id;
    h.addr = reinterpret_cast<std::uint64_t>(r->buf);
    h.key = r->reg_key;
    send_or_queue(*primary_link(src), h, nullptr);
  }

  static void forget(std::vector<Request*>& v, Request* r) { v.erase(std::find(v.begin(), v.end(), r)); }

  // The receive a DONE or DATA is for: one that sent a CTS, or an announced
  // channel receive (which is then matched: no eager send will come for it).
  Request* rendezvous_target(std::uint64_t recv_id, int src) {
    if (Request* r = lookup(recv_id, false, State::kRendezvous, src)) return r;
    Request* r = lookup(recv_id, false, State::kAnnounced, src);
    if (r) {
      forget(r->rchan->started, r);
      r->state = State::kRendezvous;
      r->msg_len = r->granted;
    }
    return r;
  }

  void finish_rendezvous_recv(Request* r) {
    r->status.bytes = r->granted;
    r->status.error = r->msg_len > r->len ? Error::kTruncate : Error::kOk;
    complete(r);
  }

  // Writes `granted` bytes of send `s` into the receive buffer at `addr`
  // (announced in a CTS or a RECV_READY), then DONE; or, where the OS refuses
  // single-copy writes, pipelines DATA frames through the slots of every link
  // to the peer (channel bonding, seed 000 §3.10).
  void write_granted(LinkState& ls, Request* s, std::size_t granted, std::uint64_t addr, std::uint64_t key,
                     std::uint64_t recv_id) {
    s->granted = granted;
    s->remote_id = recv_id;
    s->remote_key = key;
    if (granted == 0) return finish_put(ls, s, PutStatus::kDone);
    const iovec iov{s->buf, granted};
    const PutStatus st = ls.link->put(&iov, 1, addr, key, s->id);
    if (st == PutStatus::kInProgress) {
      s->state = State::kPutting;
      ++ls.puts_in_flight;
    } else if (st == PutStatus::kNoResource) {
      s->state = State::kPutting;
      s->put_addr = addr;
      ls.put_retry.push_back(s);
    } else {
      finish_put(ls, s, st);
    }
  }

  // The end of send s's put (write_granted): DONE goes only now, after the
  // bytes are there and the source buffer is released; or, where the link
  // cannot put, DATA frames through the slots of every link to the peer.
  void finish_put(LinkState& ls, Request* s, PutStatus st) {
    const int peer = s->peer;
    const std::size_t granted = s->granted;
    if (st == PutStatus::kDone) {
      if (granted) {
        ++ls.stats.rdma_writes;
        if (domain && domain->direct(s->remote_key)) ++ls.stats.registered_writes;
      }
      ls.stats.bytes_sent += granted;
      FrameHeader d = make_header(FrameType::kDone, peer);
      d.length = granted;
      d.addr = s->len;  // the whole message, so the receiver can report truncation
      d.send_id = s->id;
      d.recv_id = s->remote_id;
      d.key = s->remote_key;
      send_or_queue(ls, d, nullptr);
      complete(s);
    } else if (st == PutStatus::kUnsupported) {
      s->state = State::kStreaming;
      s->offset = 0;
      FrameHeader d = make_header(FrameType::kData, peer);
      d.send_id = s->id;
      d.recv_id = s->remote_id;
      d.key = s->remote_key;
      s->data_streams = static_cast<int>(peers[peer].links.size());
      for (LinkState* l : peers[peer].links) send_or_queue(*l, d, s);
    } else if (st == PutStatus::kPeerGone) {
      fail_peer(peer, Error::kPeerDead, "process is gone");
    } else if (st == PutStatus::kBadLocal) {
      // This message's bytes could not be moved (a bad buffer address, ours
      // or the receive's): it fails on both sides, the link stays.
      std::fprintf(stderr, "meshmp: rank %d: a %zu-byte message to rank %d could not be written (bad buffer address); "
                   "it fails on both ends\n", e.rank_, s->len, peer);
      FrameHeader d = make_header(FrameType::kDone, peer);
      d.flags = kFlagFailed;
      d.addr = s->len;
      d.send_id = s->id;
      d.recv_id = s->remote_id;
      d.key = s->remote_key;
      send_or_queue(ls, d, nullptr);
      s->status.error = Error::kProtocol;
      complete(s);
    } else {
      fail_peer(peer, Error::kProtocol, ls.link->describe() + ": the peer's buffer announcement is bad (" +
                                            put_status_name(st) + ")");
    }
  }

  // Puts that completed later (kInProgress) and puts that found no resource
  // (kNoResource, retried in order).
  bool progress_puts(LinkState& ls) {
    bool any = false;
    PutCompletion c;
    while (ls.link->poll_put(&c)) {
      any = true;
      Request* s = lookup(c.cookie, true, State::kPutting, ls.peer);
      if (!s || ls.puts_in_flight == 0) {
        fail_peer(ls.peer, Error::kProtocol, ls.link->describe() + ": a put completion for no send");
        return true;
      }
      --ls.puts_in_flight;
      finish_put(ls, s, c.status);
    }
    while (!ls.put_retry.empty()) {
      Request* s = ls.put_retry.front();
      const iovec iov{s->buf, s->granted};
      const PutStatus st = ls.link->put(&iov, 1, s->put_addr, s->remote_key, s->id);
      if (st == PutStatus::kNoResource) break;
      ls.put_retry.pop_front();
      any = true;
      if (st == PutStatus::kInProgress) ++ls.puts_in_flight;
      else finish_put(ls, s, st);
    }
    return any;
  }

  // A RECV_READY: the send waiting for it writes now; an announcement for a
  // send that already went eager is dropped; a later one is kept.
  void take_announcement(int src, const FrameHeader& h) {
    SendChannel& ch = send_channels[ChannelKey{src, h.context, h.tag}];
    const Announcement a{h.send_id, h.addr, h.key, h.recv_id, h.length};
    auto it = std::find_if(ch.waiting.begin(), ch.waiting.end(), [&](Request* s) { return s->chan_gen == a.gen; });
    if (it != ch.waiting.end()) {
      Request* s = *it;
      ch.waiting.erase(it);
      ++primary_link(src)->stats.ready_writes;
      write_granted(*primary_link(src), s, std::min<std::size_t>(s->len, a.capacity), a.addr, a.key, a.recv_id);
    } else if (a.gen >= ch.next_gen) {
      ch.ready.push_back(a);
    }
  }

  // Whether an unexpected eager message of n bytes may be buffered. Up to
  // the limit, always; beyond it, the link stalls (no credits go back, the
  // sender waits) -- unless a receive is waiting that could match a later
  // message on that link: then what stands before it is buffered anyway, so
  // a posted receive always meets its message (MPI-1.1 §3.7.4, progress)
  // and memory beyond the limit grows only as far as a receive needs.
  bool room_for_unexpected(std::size_t payload, bool receive_waiting) const {
    return unexpected_bytes + cost_of(payload) <= e.opt_.unexpected_limit || receive_waiting || probing > 0;
  }

  // What an unexpected message costs this rank, counted against the limit:
  // its record (with the allocator's share) and the bytes it holds -- so a
  // flood of empty messages or of RTSs is bounded too.
  static constexpr std::size_t cost_of(std::size_t payload) { return sizeof(Unexpected) + 64 + payload; }
  Unexpected* counted(Unexpected* u) {
    unexpected_bytes += cost_of(u->data.size());
    return u;
  }
  void discard(Unexpected* u) {
    unexpected_bytes -= cost_of(u->data.size());
    delete u;
  }

  // An EAGER or RTS frame from a channel send: for the receive started with
  // its number, or kept until that receive starts. An EAGER message is
  // delivered. An RTS (a large send found no announcement when it started)
  // is answered with a CTS by a receive below the eager limit, which
  // announces nothing; a larger receive has announced, or will, and the
  // sender writes on that. False if it cannot be kept now (unexpected
  // buffer full).
  bool take_channel_message(int src, const FrameHeader& h, const char* payload) {
    const bool rts = static_cast<FrameType>(h.type) == FrameType::kRts;
    RecvChannel& ch = recv_channels[ChannelKey{src, h.context, h.tag}];
    auto it = std::find_if(ch.started.begin(), ch.started.end(), [&](Request* r) { return r->chan_gen == h.addr; });
    if (it != ch.started.end()) {
      Request* r = *it;
      if (rts && announces(r)) return true;
      ch.started.erase(it);
      if (rts) accept_rendezvous(r, src, h.tag, h.length, h.send_id);
      else deliver_eager(r, src, h.tag, payload, h.length);
      return true;
    }
    if (h.addr < ch.next_gen) {
      // Its receive was started and matched: an RTS then came behind the
      // write its announcement brought (DATA frames may take the other link
      // of a size-2 axis); a second EAGER is malformed.
      if (!rts) fail_peer(src, Error::kProtocol, "a second message for channel number " + std::to_string(h.addr));
      return true;
    }
    if (!room_for_unexpected(rts ? 0 : h.length, !ch.started.empty())) return false;
    auto* u = new Unexpected;
    u->source = src;
    u->tag = h.tag;
    u->length = h.length;
    u->chan_gen = h.addr;
    u->rendezvous = rts;
    u->send_id = h.send_id;
    if (!rts) u->data.assign(payload, payload + h.length);
    ch.early.push_back(counted(u));
    return true;
  }

  // Returns false if the frame cannot be taken now (unexpected buffer full).
  bool handle_frame(LinkState& ls, const FrameHeader& h, const char* payload) {
    const int src = h.src;
    switch (static_cast<FrameType>(h.type)) {
      case FrameType::kEager: {
        if (h.flags & kFlagChannel) return take_channel_message(src, h, payload);
        if (Request* r = static_cast<Request*>(matcher.match_arrival(h.context, src, h.tag))) {
          deliver_eager(r, src, h.tag, payload, h.length);
          if (h.flags & kFlagSync) send_sync_ack(src, h.send_id);
          return true;
        }
        if (!room_for_unexpected(h.length, matcher.waiting_for(src))) return false;
        auto* u = new Unexpected;
        u->context = h.context;
        u->source = src;
        u->tag = h.tag;
        u->length = h.length;
        u->sync = h.flags & kFlagSync;
        u->send_id = h.send_id;
        u->data.assign(payload, payload + h.length);
        matcher.add_unexpected(counted(u));
        return true;
      }
      case FrameType::kRts: {
        if (h.flags & kFlagChannel) return take_channel_message(src, h, payload);
        if (Request* r = static_cast<Request*>(matcher.match_arrival(h.context, src, h.tag))) {
          accept_rendezvous(r, src, h.tag, h.length, h.send_id);
          return true;
        }
        if (!room_for_unexpected(0, matcher.waiting_for(src))) return false;
        auto* u = new Unexpected;
        u->context = h.context;
        u->source = src;
        u->tag = h.tag;
        u->length = h.length;
        u->rendezvous = true;
        u->send_id = h.send_id;
        matcher.add_unexpected(counted(u));
        return true;
      }
      case FrameType::kCts: {
        Request* s = lookup(h.send_id, true, State::kWaitCts, src);
        if (!s && (s = lookup(h.send_id, true, State::kWaitReady, src))) forget(s->schan->waiting, s);
        if (!s || h.length > s->len) {
          fail_peer(src, Error::kProtocol, "CTS for an unknown send or with too many bytes");
          return true;
        }
        write_granted(ls, s, h.length, h.addr, h.key, h.recv_id);
        return true;
      }
      case FrameType::kRecvReady: {
        take_announcement(src, h);
        return true;
      }
      case FrameType::kDone: {
        Request* r = rendezvous_target(h.recv_id, src);
        if (!r || h.key != r->reg_key || h.length > r->granted || h.addr < h.length) {
          fail_peer(src, Error::kProtocol, "DONE for an unknown receive or a wrong key/length");
          return true;
        }
        if (h.flags & kFlagFailed) {  // the sender could not write it: this receive fails
          std::fprintf(stderr, "meshmp: rank %d: rank %d could not write its %llu-byte message into our receive\n",
                       e.rank_, src, static_cast<unsigned long long>(h.addr));
          r->status.bytes = 0;
          r->status.error = Error::kProtocol;
          complete(r);
          return true;
        }
        r->granted = h.length;
        r->msg_len = h.addr;
        if (!(h.flags & kFlagStreamed) || r->offset >= r->granted) finish_rendezvous_recv(r);
        else r->done_seen = true;  // the last DATA frames are still on their way
        return true;
      }
      case FrameType::kData: {
        Request* r = rendezvous_target(h.recv_id, src);
        if (!r || h.key != r->reg_key || h.addr > r->granted || h.length > r->granted - h.addr) {
          fail_peer(src, Error::kProtocol, "DATA outside the announced receive buffer");
          return true;
        }
        std::memcpy(r->buf + h.addr, payload, h.length);
        r->offset += h.length;
        if (r->done_seen && r->offset >= r->granted) finish_rendezvous_recv(r);
        return true;
      }
      case FrameType::kCancel: {
        // Retract the message if it has not matched (it then never will).
        auto* u = static_cast<Unexpected*>(matcher.take_unexpected_if(src, [&](UnexpectedMsg* m) {
          auto* x = static_cast<Unexpected*>(m);
          return x->send_id == h.send_id && (x->rendezvous || x->sync);
        }));
        FrameHeader a = make_header(FrameType::kCancelAck, src);
        a.send_id = h.send_id;
        a.length = u != nullptr;
        if (u) discard(u);
        send_or_queue(*primary_link(src), a, nullptr);
        return true;
      }
      case FrameType::kCancelAck: {
        // Not retracted: the receive matched, and the send completes as usual.
        if (h.length == 0) return true;
        Request* s = lookup(h.send_id, true, State::kWaitAck, src);
        if (!s) s = lookup(h.send_id, true, State::kWaitCts, src);
        if (s) {
          s->status.cancelled = true;
          s->status.bytes = 0;
          complete(s);
        }
        return true;
      }
      case FrameType::kSyncAck: {
        Request* s = lookup(h.send_id, true, State::kWaitAck, src);
        if (!s) {
          fail_peer(src, Error::kProtocol, "SYNC_ACK for an unknown send");
          return true;
        }
        complete(s);
        return true;
      }
      case FrameType::kCredit:
      default:
        return true;  // the credits were taken before dispatch
    }
  }

  bool poll_link(LinkState& ls) {
    const int peer = ls.peer;
    if (peers[peer].failed != Error::kOk) return false;
    bool any = false;
    if (!ls.up) {
      if (!ls.link->up()) return false;
      ls.up = true;
      any = true;
    }
    FrameHeader h;
    const char* payload = nullptr;
    for (int budget = 0; budget < 64 && ls.link->peek(&h, &payload); ++budget) {
      LinkView view{e.rank_, peer, ls.link->recv_seq(), ls.max_payload, ls.ledger.slots()};
      std::string bad = validate_header(h, view);
      // A frame left waiting (unexpected buffer full) is peeked again later:
      // apply its credits only once.
      if (bad.empty() && h.seq >= ls.credited_through) {
        if (!ls.ledger.receive_credits(h.credits)) bad = "returned more credits than it holds";
        ls.credited_through = h.seq + 1;
      }
      if (!bad.empty()) {
        fail_peer(peer, Error::kProtocol, ls.link->describe() + ": rejected frame: " + bad);
        return true;
      }
      if (!handle_frame(ls, h, payload)) break;  // stays in its slot until there is room
      ++ls.stats.frames_received;
      ls.link->release();
      ls.ledger.slot_freed();
      any = true;
      if (peers[peer].failed != Error::kOk) return true;
    }
    if (!ls.put_retry.empty() || ls.puts_in_flight) any |= progress_puts(ls);
    if (peers[peer].failed != Error::kOk) return true;
    any |= flush(ls);
    if (ls.ledger.wants_explicit_credit() && ls.ledger.can_send_credit()) {
      write_frame(ls, make_header(FrameType::kCredit, peer), nullptr, 0);
      ++ls.stats.credit_frames;
      any = true;
    }
    return any;
  }

  bool progress() {
    bool any = false;
    if (providers.empty()) return false;
    for (auto& pv : providers) {
      closed_links.clear();
      pv->take_closed(&closed_links);
      for (int p : closed_links)
        fail_peer(p, Error::kProtocol, "closed the link: it rejected data this rank sent", false);
      incoming.clear();
      pv->accept(&incoming);
      for (auto& l : incoming) {
        add_link(std::move(l));
        any = true;
      }
    }
    // By index: answering a frame may connect to a new peer and append to
    // `links` (the LinkStates themselves never move).
    for (std::size_t i = 0; i < links.size(); ++i) any |= poll_link(*links[i]);
    return any;
  }

  // Spins briefly, then sleeps on the doorbell, until done() holds.
  template <typename Done>
  void block_until(Done done) {
    int idle = 0;
    while (!done()) {
      if (progress()) {
        idle = 0;
        continue;
      }
      if (done()) return;
      if (++idle < e.opt_.spin) {
        if (e.opt_.yield) {
          // Oversubscribed: the message we wait for needs another rank to
          // run, so give it this core now.
          ::sched_yield();
        } else if (idle > 256) {
          // Poll flat out at first (a reply is often a few hundred ns away);
          // pause later so a sibling hyperthread gets the core.
          cpu_relax();
        }
        continue;
      }
      if (!waiter) {
        ::usleep(1000);
        if (!providers.empty()) check_liveness();
        continue;
      }
      std::uint32_t seen = waiter->arm();
      if (progress() || done()) {
        waiter->disarm();
        idle = 0;
        continue;
      }
      waiter->sleep(seen, 100);
      waiter->disarm();
      check_liveness();
      idle = e.opt_.spin / 2;  // after a wake, poll a little before sleeping again
    }
  }

  // ---- starting requests -----------------------------------------------------
  void start_send(Request* r) {
    r->status = Status{};
    r->status.source = e.rank_;
    r->status.tag = r->tag;
    r->status.bytes = r->len;
    if (r->peer == e.rank_) return start_self_send(r);
    if (peers[r->peer].failed != Error::kOk) {
      r->status.error = peers[r->peer].failed;
      return complete(r);
    }
    LinkState& ls = *primary_link(r->peer);
    r->state = State::kQueued;
    const bool eager = r->len < e.opt_.eager_limit && r->len <= ls.max_payload;
    if (r->channel) {
      SendChannel& ch = *r->schan;
      r->chan_gen = ch.next_gen++;
      // Announcements for earlier sends (those went eager) are spent.
      while (!ch.ready.empty() && ch.ready.front().gen < r->chan_gen) ch.ready.pop_front();
      const bool announced = !ch.ready.empty() && ch.ready.front().gen == r->chan_gen;
      // Below the eager limit a copy through the slots beats a system call,
      // but a write into registered memory is one memcpy: take it.
      if (announced && (!eager || (domain && domain->direct(ch.ready.front().key)))) {
        const Announcement a = ch.ready.front();
        ch.ready.pop_front();
        ++ls.stats.ready_writes;
        write_granted(ls, r, std::min<std::size_t>(r->len, a.capacity), a.addr, a.key, a.recv_id);
        return;
      }
      if (announced) ch.ready.pop_front();  // this send goes eager: its announcement is spent
      if (!eager) {
        // Wait for the announcement; and send an RTS with the channel
        // number, which only a receive too small to announce answers (CTS).
        r->state = State::kWaitReady;
        ch.waiting.push_back(r);
        send_or_queue(ls, envelope(FrameType::kRts, r), nullptr);
        return;
      }
    }
    send_or_queue(ls, envelope(eager ? FrameType::kEager : FrameType::kRts, r), r);
  }

  // The EAGER or RTS frame of send r: its envelope; a channel send's carries
  // its number (kFlagChannel), a synchronous eager one asks for SYNC_ACK.
  FrameHeader envelope(FrameType t, const Request* r) const {
    FrameHeader h = make_header(t, r->peer);
    h.flags = r->channel ? kFlagChannel : t == FrameType::kEager && r->mode == SendMode::kSynchronous ? kFlagSync : 0;
    h.context = r->context;
    h.tag = r->tag;
    h.length = r->len;
    h.send_id = r->id;
    h.addr = r->chan_gen;
    return h;
  }

  // A send to this rank: delivered now if a receive waits; otherwise an
  // eager-size standard send is copied, anything else waits for its receive.
  void start_self_send(Request* r) {
    if (Request* rr = static_cast<Request*>(matcher.match_arrival(r->context, e.rank_, r->tag))) {
      deliver_eager(rr, e.rank_, r->tag, r->buf, r->len);
      return complete(r);
    }
    auto* u = new Unexpected;
    u->context = r->context;
    u->source = e.rank_;
    u->tag = r->tag;
    u->length = r->len;
    if (r->mode == SendMode::kStandard && r->len < e.opt_.eager_limit) {
      u->data.assign(r->buf, r->buf + r->len);
      complete(r);
    } else {
      u->self_send = r;
      r->state = State::kWaitAck;
    }
    counted(u);
    matcher.add_unexpected(u);
  }

  void start_recv(Request* r) {
    r->status = Status{};
    r->PostedRecv::key = MatchKey{r->context, r->peer, r->tag};
    if (r->channel) return start_channel_recv(r);
    if (auto* u = static_cast<Unexpected*>(matcher.match_unexpected(r->PostedRecv::key, true))) {
      take_unexpected(r, u);
      return;
    }
    if (r->peer >= 0 && r->peer != e.rank_ && peers[r->peer].failed != Error::kOk) {
      r->status.error = peers[r->peer].failed;
      r->status.source = r->peer;
      return complete(r);
    }
    r->state = State::kPosted;
    matcher.post(r);
  }

  // Every start of a channel receive has a number, so the k-th send meets
  // the k-th receive: its eager message or RTS may already be here.
  // Otherwise the receive waits for either; one of the eager limit or more
  // announces its buffer (receiver-ready), so a send that starts after the
  // announcement arrives writes at once. A smaller one announces nothing:
  // its message comes eager, and announcing would only add a frame.
  void start_channel_recv(Request* r) {
    RecvChannel& ch = *r->rchan;
    r->chan_gen = ch.next_gen++;
    auto it = std::find_if(ch.early.begin(), ch.early.end(), [&](Unexpected* u) { return u->chan_gen == r->chan_gen; });
    if (it != ch.early.end()) {
      Unexpected* u = *it;
      ch.early.erase(it);
      const bool taken = !u->rendezvous || !announces(r);  // else: announce below, the sender writes on that
      if (u->rendezvous && taken) {
        accept_rendezvous(r, u->source, u->tag, u->length, u->send_id);
      } else if (!u->rendezvous) {
        deliver_eager(r, u->source, u->tag, u->data.data(), u->length);
      }
      discard(u);
      if (taken) return;
    }
    if (peers[r->peer].failed != Error::kOk) {
      r->status.error = peers[r->peer].failed;
      r->status.source = r->peer;
      return complete(r);
    }
    ch.started.push_back(r);
    r->state = State::kAnnounced;
    r->status.source = r->peer;
    r->granted = r->len;
    r->offset = 0;
    r->done_seen = false;
    if (announces(r)) announce(r);
  }

  // Whether a started channel receive announces its buffer: from the eager
  // limit on (smaller messages come eager; an announcement would only add a
  // frame).
  bool announces(const Request* r) const { return r->len >= e.opt_.eager_limit; }

  // Receiver-ready: tell the sender where this receive's buffer is.
  void announce(Request* r) {
    r->reg_key = registration_key(r->buf, r->len);
    FrameHeader h = make_header(FrameType::kRecvReady, r->peer);
    h.context = r->context;
    h.tag = r->tag;
    h.length = r->len;
    h.addr = reinterpret_cast<std::uint64_t>(r->buf);
    h.key = r->reg_key;
    h.recv_id = r->id;
    h.send_id = r->chan_gen;
    send_or_queue(*primary_link(r->peer), h, nullptr);
  }

  void take_unexpected(Request* r, Unexpected* u) {
    if (u->self_send) {
      Request* s = u->self_send;
      deliver_eager(r, u->source, u->tag, s->buf, s->len);
      complete(s);
    } else if (u->rendezvous) {
      accept_rendezvous(r, u->source, u->tag, u->length, u->send_id);
    } else {
      deliver_eager(r, u->source, u->tag, u->data.data(), u->length);
      if (u->sync) send_sync_ack(u->source, u->send_id);
    }
    discard(u);
  }

  // ---- wire-up ----------------------------------------------------------------
  // The address vector (each peer's provider and locality), then one link
  // per torus direction; on an axis of size 2 the two directions reach the
  // same peer over links #0 and #1. The lower rank of a pair offers the
  // link, the higher joins it once the address cards are exchanged.
  void wire_up() {
    for (auto& pv : providers) {
      if (!domain && pv->caps().registered_memory) domain = pv->memory_domain();
      if (!waiter) waiter = pv.get();
    }
    if (providers.size() > 1) waiter = nullptr;  // no common sleep yet: short naps
    const Torus& t = e.torus_;
    struct Want { int dir, peer, index; };
    std::vector<Want> wants;
    for (int d = 0; d < 2 * t.ndims(); ++d) {
      Direction dir = Direction::from_index(d);
      int p = t.neighbour(e.rank_, dir);
      if (p < 0 || p == e.rank_) continue;
      wants.push_back({d, p, (t.dims()[dir.axis] == 2 && dir.sign < 0) ? 1 : 0});
    }
    std::vector<std::pair<Want, std::unique_ptr<Link>>> made;
    // Every rank's address cards, through the bootstrap (which only ranks
    // holding the job's secret can reach).
    for (auto& pv : providers) boot->put(pv->name(), pv->address_card());
    for (int p = 0; p < e.size_; ++p) {
      if (p == e.rank_) continue;
      for (auto& pv : providers)
        if (pv->reachable(p)) {
          peers[p].provider = pv.get();
          peers[p].same_host = pv->same_host(p);
          break;
        }
      if (!peers[p].provider) throw std::runtime_error("no provider reaches rank " + std::to_string(p));
    }
    for (const Want& w : wants)
      if (e.rank_ < w.peer) made.emplace_back(w, peers[w.peer].provider->offer_link(w.peer, w.index));
    boot->fence();
    for (auto& pv : providers) {
      std::vector<std::string> cards;
      for (int r = 0; r < e.size_; ++r) cards.push_back(boot->get(r, pv->name()));
      pv->attach(cards);
    }
    for (const Want& w : wants)
      if (e.rank_ > w.peer) made.emplace_back(w, peers[w.peer].provider->join_link(w.peer, w.index));
    // Links #0 first, so peers[p].links[0] is the envelope link.
    std::stable_sort(made.begin(), made.end(), [](auto& a, auto& b) { return a.first.index < b.first.index; });
    for (auto& [w, l] : made) by_direction[w.dir] = add_link(std::move(l));
    boot->fence();
    for (auto& pv : providers) pv->wired();
    // The host-local combine serves collectives over the whole job, so only
    // where every rank shares this host.
    bool one_host = true;
    for (int p = 0; p < e.size_; ++p) one_host &= p == e.rank_ || peers[p].same_host;
    if (one_host)
      for (int p = 0; p < e.size_ && !host; ++p)
        if (p != e.rank_ && peers[p].provider->caps().host_combine) host = peers[p].provider->host_combine();
  }

  void print_stats() {
    if (domain) {
      const MemoryDomain::Usage u = domain->usage();
      std::fprintf(stderr,
                   "meshmp stats: rank %d registered memory: %zu bytes in use, high-water %zu, pool %zu bytes in "
                   "%zu segments (limit %zu)\n",
                   e.rank_, u.in_use, u.high_water, u.backing_bytes, u.pieces, e.opt_.registered_limit);
    }
    for (auto& ls : links) {
      const LinkStats& s = ls->stats;
      std::fprintf(stderr,
                   "meshmp stats: rank %d %s: frames sent %llu received %llu, eager %llu, "
                   "rendezvous %llu, bytes %llu, token stalls %llu, credit frames %llu, "
                   "rdma writes %llu (%llu on RECV_READY, %llu into registered memory), data frames %llu\n",
                   e.rank_, ls->link->describe().c_str(), (unsigned long long)s.frames_sent,
                   (unsigned long long)s.frames_received, (unsigned long long)s.eager_sent,
                   (unsigned long long)s.rendezvous_sent, (unsigned long long)s.bytes_sent,
                   (unsigned long long)s.token_stalls, (unsigned long long)s.credit_frames,
                   (unsigned long long)s.rdma_writes, (unsigned long long)s.ready_writes,
                   (unsigned long long)s.registered_writes,
                   (unsigned long long)s.data_frames);
    }
  }
};

// ---------------------------------------------------------------------------

namespace {
Engine* g_engine = nullptr;
int g_engine_users = 0;  // inits not yet finalized (QMP and MPI share the engine)
}

EngineSetup::EngineSetup() = default;
EngineSetup::~EngineSetup() = default;
EngineSetup::EngineSetup(EngineSetup&&) noexcept = default;
EngineSetup& EngineSetup::operator=(EngineSetup&&) noexcept = default;

Engine::Engine() = default;
Engine::~Engine() = default;

Engine* Engine::get() { return g_engine; }

Engine& Engine::init() {
  if (g_engine) {
    ++g_engine_users;
    return *g_engine;
  }
  std::unique_ptr<Engine> eng(new Engine());
  Engine& e = *eng;  // holds the parsed settings until create() makes the engine
  e.rank_ = static_cast<int>(env_long(env::kRank, 0, 0, 1 << 24));
  e.size_ = static_cast<int>(env_long(env::kSize, 1, 1, 1 << 24));
  if (e.rank_ >= e.size_)
    throw std::runtime_error(std::string(env::kRank) + " must be below " + env::kSize);

  // Geometry: the launcher's --geometry, else the config's torus, else a
  // balanced 3-D factorisation (ARCHITECTURE.md §2).
  std::vector<int> dims;
  std::vector<bool> periodic;
  const char* cfg_path = std::getenv(env::kConfig);
  if (cfg_path && *cfg_path) {
    MeshConfig cfg = load_config(cfg_path);
    dims = cfg.torus.dims();
    periodic = cfg.torus.periodic();
    e.opt_.eager_limit = cfg.eager_limit;
    e.opt_.credits = static_cast<std::uint32_t>(cfg.credits);
    if (cfg.fabric == Fabric::kMesh) e.opt_.mesh_fabric_config = cfg_path;
  }
  if (const char* g = std::getenv(env::kGeometry); g && *g) {
    dims = parse_dims(g);
    if (periodic.size() != dims.size()) periodic.clear();
  }
  if (dims.empty()) dims = balanced_dims(e.size_, 3);
  e.torus_ = Torus(dims, periodic);
  if (e.torus_.size() != e.size_)
    throw std::runtime_error("geometry " + e.torus_.to_string() + " has " + std::to_string(e.torus_.size()) +
                             " nodes but the job has " + std::to_string(e.size_) + " ranks");

  e.opt_.eager_limit = static_cast<std::size_t>(env_long(env::kEagerLimit, static_cast<long>(e.opt_.eager_limit), 64, 1 << 20));
  e.opt_.credits = static_cast<std::uint32_t>(env_long(env::kCredits, e.opt_.credits, 4, 1024));
  e.opt_.cma = env_long(env::kShmCma, 1, 0, 1) != 0;
  e.opt_.spin = static_cast<int>(env_long(env::kSpin, e.opt_.spin, 0, 1 << 30));
  // All ranks share this host (shm): more ranks than CPUs means oversubscribed.
  e.opt_.yield = env_long(env::kYield, e.size_ > static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)), 0, 1) != 0;
  e.opt_.unexpected_limit = static_cast<std::size_t>(env_long(env::kUnexpectedLimit, static_cast<long>(e.opt_.unexpected_limit), 0, 1L << 40));
  e.opt_.registered_limit = static_cast<std::size_t>(env_long(env::kRegisteredLimit, static_cast<long>(e.opt_.registered_limit), 0, 1L << 40));

  EngineSetup setup;
  setup.rank = e.rank_;
  setup.size = e.size_;
  setup.torus = e.torus_;
  setup.options = e.opt_;
  if (e.size_ > 1) {
    const char* job = std::getenv(env::kJob);
    if (!job) throw std::runtime_error(std::string(env::kSize) + " > 1 but no launcher: start the job with qmprun");
    if (!*job || std::strspn(job, "0123456789abcdefghijklmnopqrstuvwxyz") != std::strlen(job) || std::strlen(job) > 64)
      throw std::runtime_error(std::string(env::kJob) + "=" + job + ": expected up to 64 lower-case letters and digits");
    setup.bootstrap = connect_bootstrap(e.rank_, e.size_);
    ProviderSetup ps;
    ps.job = job;
    ps.rank = e.rank_;
    ps.nranks = e.size_;
    ps.slots = e.opt_.credits;
    ps.payload = e.opt_.eager_limit;
    ps.cma = e.opt_.cma;
    ps.registered_limit = e.opt_.registered_limit;
    const char* which = std::getenv(env::kProvider);
    setup.providers = open_providers(which ? which : "", ps);
  }
  eng = create(std::move(setup));
  g_engine = eng.release();
  g_engine_users = 1;
  return *g_engine;
}

std::unique_ptr<Engine> Engine::create(EngineSetup setup) {
  std::unique_ptr<Engine> eng(new Engine());
  Engine& e = *eng;
  e.rank_ = setup.rank;
  e.size_ = setup.size;
  e.torus_ = setup.torus;
  e.opt_ = setup.options;
  if (e.torus_.size() != e.size_)
    throw std::runtime_error("geometry " + e.torus_.to_string() + " has " + std::to_string(e.torus_.size()) +
                             " nodes but the job has " + std::to_string(e.size_) + " ranks");
  e.impl_ = std::make_unique<Impl>(e);
  Impl& im = *e.impl_;
  im.peers.resize(e.size_);
  im.by_direction.assign(2 * e.torus_.ndims(), nullptr);
  if (e.size_ > 1) {
    if (!setup.bootstrap || setup.providers.empty())
      throw std::runtime_error("Engine::create: a job of " + std::to_string(e.size_) +
                               " ranks needs a bootstrap and a provider");
    im.boot = std::move(setup.bootstrap);
    im.providers = std::move(setup.providers);
    im.wire_up();
  }
  return eng;
}

void Engine::shutdown() {
  Impl& im = *impl_;
  // Drain queued frames (DONE, SYNC_ACK, credits) before leaving.
  im.block_until([&] {
    for (auto& ls : im.links)
      if ((!ls->sendq.empty() || !ls->put_retry.empty() || ls->puts_in_flight) &&
          im.peers[ls->peer].failed == Error::kOk)
        return false;
    return true;
  });
  if (im.boot) im.boot->fence();
}

void Engine::finalize() {
  Engine* e = g_engine;
  if (!e || --g_engine_users > 0) return;
  e->shutdown();
  Impl& im = *e->impl_;
  const char* stats = std::getenv(env::kStats);
  if (stats && std::strcmp(stats, "1") == 0) im.print_stats();
  g_engine = nullptr;
  delete e;
}

void Engine::abort(int code, const std::string& message) {
  std::fprintf(stderr, "meshmp: rank %d aborts the job (code %d): %s\n", rank_, code, message.c_str());
  std::fflush(stderr);
  if (impl_->boot) {
    impl_->boot->abort(code, message);
    // The launcher ends the whole job (this rank included) on receipt; exiting
    // first would race it and lose the message. Bounded: exit after 2 s.
    ::sleep(2);
  }
  std::_Exit(code ? code : 1);
}

Request* Engine::send_init(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context,
                           SendMode mode) {
  Request* r = impl_->alloc_request();
  r->is_send = true;
  r->persistent = true;
  r->buf = static_cast<char*>(const_cast<void*>(buf));
  r->len = len;
  r->peer = dst;
  r->tag = tag;
  r->context = context;
  r->mode = mode;
  return r;
}

Request* Engine::recv_init(void* buf, std::size_t len, int src, int tag, std::uint32_t context) {
  Request* r = impl_->alloc_request();
  r->is_send = false;
  r->persistent = true;
  r->buf = static_cast<char*>(buf);
  r->len = len;
  r->peer = src;
  r->tag = tag;
  r->context = context;
  return r;
}

Request* Engine::channel_send_init(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context) {
  Request* r = send_init(buf, len, dst, tag, context);
  r->channel = dst != rank_;
  if (r->channel) r->schan = &impl_->send_channels[ChannelKey{dst, context, tag}];
  return r;
}

Request* Engine::channel_recv_init(void* buf, std::size_t len, int src, int tag, std::uint32_t context) {
  Request* r = recv_init(buf, len, src, tag, context);
  r->channel = src >= 0 && src != rank_;
  if (r->channel) r->rchan = &impl_->recv_channels[ChannelKey{src, context, tag}];
  return r;
}

void Engine::start(Request* r) {
  if (r->is_send) impl_->start_send(r);
  else impl_->start_recv(r);
}

Request* Engine::isend(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context, SendMode mode) {
  Request* r = send_init(buf, len, dst, tag, context, mode);
  r->persistent = false;
  start(r);
  return r;
}

bool Engine::try_send_now(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context) {
  return dst != rank_ && len < opt_.eager_limit && impl_->peers[dst].failed == Error::kOk &&
         impl_->write_eager_now(dst, buf, len, tag, context);
}

void Engine::send(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context, SendMode mode,
                  Status* st) {
  if (mode == SendMode::kStandard && try_send_now(buf, len, dst, tag, context)) {
    if (st) {
      *st = Status{};
      st->source = rank_;
      st->tag = tag;
      st->bytes = len;
    }
    return;
  }
  wait(isend(buf, len, dst, tag, context, mode), st);
}

Request* Engine::irecv(void* buf, std::size_t len, int src, int tag, std::uint32_t context) {
  Request* r = recv_init(buf, len, src, tag, context);
  r->persistent = false;
  start(r);
  return r;
}

bool Engine::is_complete(const Request* r) const { return r->state == State::kDone; }
bool Engine::is_active(const Request* r) const {
  return r->state != State::kDone && r->state != State::kInactive;
}

bool Engine::test(Request* r, Status* st) {
  if (r->state == State::kInactive) {
    if (st) *st = Status{};
    return true;
  }
  if (r->state != State::kDone) impl_->progress();
  if (r->state != State::kDone) return false;
  if (st) *st = r->status;
  if (r->persistent) r->state = State::kInactive;
  else impl_->release_request(r);
  return true;
}

void Engine::wait(Request* r, Status* st) {
  impl_->block_until([&] { return r->state == State::kDone || r->state == State::kInactive; });
  test(r, st);
}

namespace {
int first_done(std::size_t n, Request* const* reqs) {
  for (std::size_t i = 0; i < n; ++i)
    if (reqs[i] && reqs[i]->state == State::kDone) return static_cast<int>(i);
  return -1;
}
}  // namespace

int Engine::testany(std::size_t n, Request* const* reqs, Status* st) {
  impl_->progress();
  const int i = first_done(n, reqs);
  if (i >= 0) test(reqs[i], st);
  return i;
}

int Engine::waitany(std::size_t n, Request* const* reqs, Status* st) {
  bool any_active = false;
  for (std::size_t i = 0; i < n; ++i) any_active |= reqs[i] && reqs[i]->state != State::kInactive;
  if (!any_active) return -1;
  int i = first_done(n, reqs);
  if (i < 0) wait_for_completion([&] { return (i = first_done(n, reqs)) >= 0; });
  test(reqs[i], st);
  return i;
}

void Engine::wait_for_completion(const std::function<bool()>& found) {
  std::uint64_t scanned = impl_->completions;
  impl_->block_until([&] {
    if (impl_->completions == scanned) return false;
    scanned = impl_->completions;
    return found();
  });
}

void Engine::waitall(std::size_t n, Request* const* reqs, Status* sts) {
  // Requests finished so far stay finished: each is looked at until it is.
  std::size_t first = 0;
  impl_->block_until([&] {
    while (first < n && (!reqs[first] || reqs[first]->state == State::kDone || reqs[first]->state == State::kInactive))
      ++first;
    return first == n;
  });
  for (std::size_t i = 0; i < n; ++i)
    if (reqs[i]) test(reqs[i], sts ? &sts[i] : nullptr);
}

bool Engine::iprobe(int src, int tag, std::uint32_t context, Status* st) {
  impl_->progress();
  auto* u = static_cast<Unexpected*>(impl_->matcher.match_unexpected(MatchKey{context, src, tag}, false));
  if (!u) return false;
  if (st) {
    *st = Status{};
    st->source = u->source;
    st->tag = u->tag;
    st->bytes = u->length;
  }
  return true;
}

void Engine::probe(int src, int tag, std::uint32_t context, Status* st) {
  ++impl_->probing;
  impl_->block_until([&] {
    return impl_->matcher.match_unexpected(MatchKey{context, src, tag}, false) != nullptr;
  });
  --impl_->probing;
  iprobe(src, tag, context, st);
}

bool Engine::cancel(Request* r) {
  Impl& im = *impl_;
  if (!r->is_send) {
    if (r->state != State::kPosted || !im.matcher.unpost(r)) return false;
  } else if (r->peer == rank_) {
    // A send to this rank waiting for its receive: take it back.
    UnexpectedMsg* u = r->state != State::kWaitAck ? nullptr : im.matcher.take_unexpected_if(rank_, [&](UnexpectedMsg* m) {
      return static_cast<Unexpected*>(m)->self_send == r;
    });
    if (!u) return false;
    im.discard(static_cast<Unexpected*>(u));
  } else if (r->state == State::kQueued) {
    // Still in the send queue: it never left.
    LinkState* ls = im.peers[r->peer].links.empty() ? nullptr : im.peers[r->peer].links[0];
    PendingFrame* f = ls ? ls->sendq.front() : nullptr;
    while (f && f->req != r) f = f->next;
    if (!f) return false;
    ls->sendq.erase(f);
    im.release_frame(f);
  } else if (r->mode == SendMode::kSynchronous && (r->state == State::kWaitAck || r->state == State::kWaitCts)) {
    // It left: ask the receiver to retract it. The answer (CANCEL_ACK)
    // completes it cancelled, or the match completes it as usual.
    if (!r->cancelling) {
      r->cancelling = true;
      FrameHeader h = im.make_header(FrameType::kCancel, r->peer);
      h.send_id = r->id;
      im.send_or_queue(*im.primary_link(r->peer), h, nullptr);
    }
    return false;
  } else {
    if (r->state == State::kWaitCts) im.complete_from_copy(r);
    return false;  // anything else completes by itself (its data is moving)
  }
  r->status.cancelled = true;
  r->status.bytes = 0;
  im.complete(r);
  return true;
}

void Engine::free(Request* r) {
  if (r->state == State::kDone || r->state == State::kInactive) impl_->release_request(r);
  else r->free_when_done = true;
}

bool Engine::progress() { return impl_->progress(); }

void* Engine::allocate_registered(std::size_t bytes, std::size_t alignment) {
  if (!impl_->domain) {
    errno = ENOTSUP;
    return nullptr;
  }
  return impl_->domain->allocate(bytes, alignment);
}

bool Engine::free_registered(void* p) { return impl_->domain && impl_->domain->release(p); }

bool Engine::smp_available() const { return impl_->host != nullptr; }
std::size_t Engine::smp_max_bytes() const { return impl_->host ? impl_->host->max_bytes() : 0; }

bool Engine::same_host(int peer) const { return peer == rank_ || impl_->peers.at(peer).same_host; }

Error Engine::smp_combine(const void* mine, std::size_t bytes, void* result, SmpFold fold, void* ctx) {
  if (bytes > smp_max_bytes())
    throw std::length_error("Engine::smp_combine: bytes = " + std::to_string(bytes) + " > smp_max_bytes()");
  Impl& im = *impl_;
  if (size_ == 1) {  // one rank: its contribution is everything
    if (bytes) fold(static_cast<const char*>(mine), result, ctx);
    return Error::kOk;
  }
  const std::uint64_t seq = im.smp_seq++;
  HostCombine& hc = *im.host;
  if (hc.arrive(seq, mine, bytes)) {
    // Contributions of other sizes (the ranks' counts differ) are folded as
    // if they had ours; a rank given less than the largest is told kTruncate.
    std::size_t largest = bytes;
    if (bytes) im.smp_all.resize(static_cast<std::size_t>(size_) * bytes);
    for (int r = 0; r < size_; ++r) {
      std::size_t theirs = 0;
      const char* c = hc.contribution(r, seq, &theirs);
      if (!c) {  // counted but not there: corrupted; fail every rank, not hang them
        hc.publish(seq, nullptr, 0, 0);
        return Error::kProtocol;
      }
      largest = std::max(largest, theirs);
      if (bytes) std::memcpy(im.smp_all.data() + static_cast<std::size_t>(r) * bytes, c, bytes);
    }
    if (bytes) fold(im.smp_all.data(), result, ctx);
    hc.publish(seq, result, bytes, largest);
    return largest > bytes ? Error::kTruncate : Error::kOk;
  }
  Error err = Error::kOk;
  im.block_until([&] {
    const HostCombine::State state = hc.result(seq, result, bytes);
    if (state != HostCombine::State::kPending) {
      if (state == HostCombine::State::kFailed) err = Error::kProtocol;
      if (state == HostCombine::State::kTruncated) err = Error::kTruncate;
      return true;
    }
    for (const PeerState& p : im.peers)
      if (p.failed != Error::kOk) {
        err = p.failed;
        return true;
      }
    return false;
  });
  return err;
}

const LinkStats* Engine::direction_stats(Direction d) const {
  if (d.index() >= static_cast<int>(impl_->by_direction.size())) return nullptr;
  LinkState* ls = impl_->by_direction[d.index()];
  return ls ? &ls->stats : nullptr;
}

const LinkStats* Engine::peer_stats(int peer) const {
  const PeerState& ps = impl_->peers.at(peer);
  return ps.links.empty() ? nullptr : &ps.links[0]->stats;
}

int Engine::open_links() const { return static_cast<int>(impl_->links.size()); }

}  // namespace meshmp::mesh
