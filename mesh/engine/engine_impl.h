// The protocol engine's state, shared by the files of mesh/engine/ (not a
// public header: the QMP and MPI layers see mesh/engine.h only). Which file
// holds what, and how a message flows through them: mesh/README.md.
//
//   requests.cc      the request pool and the pool of queued frames
//   links.cc         per-link send queue, tokens and credits (seed 003 §5.1), polling a link
//   frame_handlers.cc  the table from frame type to handler
//   eager.cc         eager sends and receives, matching, the unexpected queue (seed 000 §3.6)
//   rendezvous.cc    RTS/CTS, the put (RDMA write), DONE and DATA (seed 000 §3.6.2, §3.8-3.10)
//   channels.cc      receiver-ready channels (ARCHITECTURE.md §3; seed 003 §5.1)
//   self_send.cc     messages to this rank
//   cancel.cc        MPI_Cancel's side of the protocol (MPI-1.1 §3.8)
//   flag_windows.cc  one-sided flag windows: 8-byte puts and waits on them (seed 002 §3)
//   routed.cc        the forwarding agent: routed peers, relaying, end-to-end credits (seed 003 §5.1)
//   detours.cc       routes around dead cables: CABLE_DOWN, RouteTables, a neighbour becoming routed
//   quiesce.cc       finalize where ranks forward: no rank leaves while it may be needed as a relay
//   failure.cc       dead and misbehaving peers (ARCHITECTURE.md §7)
//   progress.cc      one round of progress over every provider and link
//   wire_up.cc       Engine::init/create/finalize, the address vector and the neighbour links
//   ../engine.cc     the public API (mesh/engine.h)
#pragma once

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mesh/bootstrap/bootstrap.h"
#include "mesh/credits.h"
#include "mesh/engine.h"
#include "mesh/small_copy.h"
#include "mesh/link.h"
#include "mesh/matching.h"
#include "mesh/provider.h"
#include "mesh/wire.h"
#include "routing/route_table.h"

namespace meshmp::mesh {

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
  kWaitCancel,  // send: eager and sent, CANCEL sent, waiting for the receiver's CANCEL_ACK
  kDone,
};

// The send id an EAGER frame written with no request carries (write_eager_now):
// this bit, which no request id has, and the rank's count of such messages,
// so that MPI_Cancel can name the message to its receiver (Engine::cancel_sent).
inline constexpr std::uint64_t kSentNowBit = std::uint64_t{1} << 63;

// The cookie of a flag write's put (Engine::write_flag): this bit, which no
// request id has (bit 63 is kSentNowBit; ids have 30 bits of generation),
// the window in bits 32..61 and the flag's index below.
inline constexpr std::uint64_t kFlagPutBit = std::uint64_t{1} << 62;

// A one-sided flag window (Engine::open_flag_window): n flags, one per cache
// line, then n source lines from which this rank's writes of each index go.
struct FlagWindow {
  static constexpr std::size_t kLine = 64;
  int n = 0;
  char* mem = nullptr;       // 2 * n lines
  bool registered = false;   // allocate_registered's (else std::aligned_alloc's, freed here)
  std::vector<std::uint32_t> busy;  // per index: puts from its source line still in flight
  std::map<int, Engine::FlagTarget> targets;  // peer -> its window, for write_flag
  std::vector<std::pair<MemoryDomain*, std::uint64_t>> keys;  // made by flag_target, forgotten at close
  std::uint64_t* flag(int i) const { return reinterpret_cast<std::uint64_t*>(mem + i * kLine); }
  std::uint64_t* source(int i) const { return reinterpret_cast<std::uint64_t*>(mem + (n + i) * kLine); }
  ~FlagWindow() {
    if (!registered) std::free(mem);  // (registered memory goes with its domain)
  }
};

inline void cpu_relax() { __builtin_ia32_pause(); }

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
  MemoryDomain* reg_domain = nullptr;  // recv: whose key it is (forgotten on completion)
  std::uint64_t remote_id = 0; // the other side's request id
  int data_streams = 0;        // send: DATA queue entries still referring to this request
  std::uint64_t remote_key = 0;  // send: the receiver's registration key
  std::uint64_t put_addr = 0;    // send: the receive buffer's address its put goes to
  int stripes_left = 0;          // send: stripes of its put not yet done (1 unless striped)
  bool striped = false;          // send: its put is split over both links to the peer
  std::size_t stripe_len[2] = {0, 0};  // send: bytes of each stripe (stripe i on links[i])
  bool done_seen = false;      // recv: DONE of a streamed message arrived
  bool stripe_failed = false;  // recv: a stripe's DONE said its bytes could not be written
  bool channel = false;        // receiver-ready protocol (Engine::channel_*_init)
  std::uint64_t chan_gen = 0;  // channel: this start's number (send: the announcement it needs)
  struct SendChannel* schan = nullptr;  // channel send: its channel
  struct RecvChannel* rchan = nullptr;  // channel receive: its channel
  bool cancelling = false;     // send: a CANCEL is on its way to the receiver
  Request* free_next = nullptr;
};

// The peer an unfinished request waits on, or -1 (done, inactive, or a
// receive posted for any source): a send's destination; the source of a
// receive that is posted (or, on a channel, announced) for it or whose
// rendezvous it accepted.
inline int peer_waited_on(const Request& r) {
  if (!r.in_use || r.state == State::kDone || r.state == State::kInactive) return -1;
  if (r.is_send) return r.peer;
  if (r.state == State::kRendezvous) return r.status.source;
  if (r.state == State::kPosted || r.state == State::kAnnounced) return r.PostedRecv::key.source;
  return -1;
}

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
  bool relayed = false;    // another rank's frame this rank forwards: its payload is `relay`
  std::vector<char> relay; // (kept across reuse of the frame: no allocation once it has grown)
  PendingFrame* prev = nullptr;
  PendingFrame* next = nullptr;
};

// A routed frame for this rank that its handler could not take yet (the
// unexpected buffer is full): it waits here, not in the link's slot, so that
// the link keeps carrying other ranks' frames (routed.cc).
struct HeldFrame {
  FrameHeader h{};
  std::vector<char> payload;
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
  std::deque<Request*> put_queue;      // puts (a send's stripe on this link) to do, in order:
                                       // queued by a frame handler, or that found no resource
  std::uint32_t puts_in_flight = 0;    // puts that returned kInProgress, not yet completed
  std::uint64_t relay_queued = 0;      // relayed frames in sendq (routed.cc; stats.relay_queued_max)
  std::uint64_t routed_queued = 0;     // frames of other pairs in sendq (routed_frame)
  // Where ranks forward (detours.cc): the last slots() frames written and
  // how many were, so that once its cable dies and the peer says how many
  // it took, the frames lost with it name their pairs. Empty elsewhere.
  struct Written {
    int src = -1, dst = -1;  // src -1: the link's own CREDIT, BYE or CABLE_DOWN
    std::uint8_t type = 0;
    std::uint8_t e2e_credits = 0;
    std::uint16_t context = 0;
    int about = 0;           // NO_ROUTE: the rank it names
  };
  std::vector<Written> written_frames;
  std::uint64_t written = 0;
  bool cut = false;  // its cable is dead (detours.cc): never polled or written again
};

// One entry of the address vector: how this rank reaches a peer.
struct PeerState {
  Provider* provider = nullptr;   // the first provider that reaches it
  bool same_host = false;
  std::vector<LinkState*> links;  // links[0] carries every envelope to this peer
  Error failed = Error::kOk;
  std::string why;                // what fail_peer was told
  std::size_t byes = 0;           // BYE frames from it: finalized once every link brought one
  bool finalized = false;         // gone by finalize (peer_finalized), not by failure
  bool said_finalized = false;    // the launcher said it is in finalize (Bootstrap::take_finalized)
  std::size_t eager_limit = 0;    // messages shorter go eager (EngineOptions, ProviderCaps::eager_limit)
  // A routed peer (the forwarding agent, routed.cc): a rank on a mesh fabric
  // no cable reaches, whose frames go through the neighbour `next_hop`.
  int next_hop = -1;
  int last_hop = -1;               // the neighbour its frames reach this rank from
  bool routed() const { return next_hop >= 0; }
  std::uint32_t e2e_tokens = 0;    // frames to it this rank may still have on their way (end-to-end credits)
  std::uint32_t e2e_owed = 0;      // its frames this rank took, whose credits are not yet returned
  Fifo<PendingFrame> routed_q;     // frames to it waiting for an end-to-end credit, in order
  std::vector<HeldFrame> held;     // its frames that came and wait for room (in order; at most
                                   // kE2eCredits, and rare: a vector, which costs nothing until used)
  // End-to-end order (wire.h, kE2eSeqShift): the sequence number of this
  // rank's next frame to it, the next of its frames to take here, and those
  // that came ahead of that one over a newer route (detours.cc).
  std::uint8_t e2e_seq_out = 0;
  std::uint8_t e2e_seq_in = 0;
  std::vector<HeldFrame> early;
  // A neighbour whose cables died (detours.cc): the links it had, its word
  // of how many frames it took on each (CABLE_DOWN), and -- until that word
  // says none of this rank's frames to it were lost -- nothing more to it.
  std::vector<LinkState*> cut_links;
  std::string cut_why;  // what its link failure said
  std::uint64_t reported[2] = {0, 0};
  bool have_report = false;
  bool verdict_pending = false;
  std::chrono::steady_clock::time_point cut_at{};
};

struct Engine::Impl {
  Engine& e;
  std::unique_ptr<Bootstrap> boot;
  std::vector<std::unique_ptr<Provider>> providers;
  // The providers that serve some peer (set by wire_up from the address
  // vector): only these are polled. One that serves nobody -- tcp in a
  // one-host job -- would cost a system call per round for nothing.
  std::vector<Provider*> in_use;
  Provider* waiter = nullptr;  // the provider idle waits sleep in, where one serves every peer;
  int wait_epoll = -1;         // else an epoll over the wait_fd()s of those in use (setup_idle_wait)
  // Registered memory for the application (QMP_MEM_COMMS, MPI_Alloc_mem):
  // the first provider in use that has it (shm's pool where a peer shares
  // this host, else ofi's registrations), else the first that has it; and
  // its name for MESHMP_STATS.
  MemoryDomain* domain = nullptr;
  const char* domain_name = "";
  HostCombine* host = nullptr;     // set when every rank shares this host and a provider offers it
  std::vector<std::unique_ptr<LinkState>> links;  // all links, polled in turn
  std::size_t next_link = 0;  // where progress() starts its next pass (progress.cc)
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
  std::vector<LinkFailure> link_failures;
  std::map<ChannelKey, SendChannel> send_channels;  // nodes never move: requests point at them
  std::map<ChannelKey, RecvChannel> recv_channels;
  std::uint64_t completions = 0;  // requests completed so far: waits over many rescan only when it moves
  int probing = 0;                // a blocking probe is waiting (it may need buffering beyond the limit)
  const MatchKey* iprobing = nullptr;  // what a nonblocking probe under way looks for (probed)
  bool withholding = false;       // a frame is taken beyond the limit, its credit withheld (eager.cc)
  std::size_t withholding_links = 0;  // links whose ledger withholds credits
  std::uint64_t smp_seq = 0;      // host-local combines done so far
  std::vector<char> smp_all;      // every contribution, on the last to arrive
  std::uint64_t smp_bcast_seq = 0; // host-local broadcasts done so far
  std::uint64_t sent_now = 0;      // messages written with no request (write_eager_now) so far
  ContextIds contexts;
  std::vector<int> host_ids;      // by world rank: the lowest rank on its host (wire_up)
  bool polling = false;           // inside poll_link's frame loop: handlers queue their puts
  // Flag windows by handle; a closed one's entry is null. Last, so they go
  // before the providers whose memory they may hold.
  std::vector<std::unique_ptr<FlagWindow>> flag_windows;

  explicit Impl(Engine& eng) : e(eng), matcher(eng.size_) {}
  ~Impl();

  // ---- requests.cc (the small, hot pieces inline here)
  [[gnu::always_inline]] static void zero_request(Request* r) {
#if defined(__SSE2__)
    static_assert(sizeof(Request) % 16 == 0);
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (_mm_storeu_si128(reinterpret_cast<__m128i*>(r) + I, _mm_setzero_si128()), ...);
    }(std::make_index_sequence<sizeof(Request) / 16>{});
#else
    std::memset(static_cast<void*>(r), 0, sizeof(Request));
#endif
  }
  [[gnu::always_inline]] Request* alloc_request() {
    Request* r = free_requests;
    if (r) {
      free_requests = r->free_next;
      // 30 bits of generation: ids never have bit 63, which marks the
      // ids of messages written with no request (kSentNowBit), nor bit 62,
      // which marks the puts of flag writes (kFlagPutBit).
      std::uint64_t gen = ((r->id >> 32) + 1) & 0x3fffffffu;
      if (gen == 0) gen = 1;  // (no id is 0: CANCEL's "no send", on_cancel)
      std::uint64_t index = r->id & 0xffffffffu;
      // Rebuilt in place: `*r = Request{}` built a temporary and moved it
      // over, member by member (~50 instructions per message more). Zeroed
      // in 16-byte stores, then default-initialized (the compiler keeps only
      // the stores of members that are not zero): `Request{}` zeroed it with
      // `rep stos`, whose start-up costs tens of cycles per message, and
      // default initialization alone took ~30 narrow stores (bench/pingpong,
      // 2-core VM, windows of 16 messages of 16-128 B: 10-40% more MB/s
      // than either).
      r->~Request();
      zero_request(r);
      new (r) Request;
      r->id = index | (gen << 32);
    } else {
      requests.push_back(std::make_unique<Request>());
      r = requests.back().get();
      r->id = (requests.size() - 1) | (std::uint64_t{1} << 32);  // generation 1: no id is 0
    }
    r->in_use = true;
    return r;
  }
  void release_request(Request* r) {
    r->in_use = false;
    r->free_next = free_requests;
    free_requests = r;
  }
  // A completed request's status into *st (if any); a persistent one goes
  // inactive, any other back to the free list (Engine::test, waitall).
  void collect(Request* r, Status* st) {
    if (st) *st = r->status;
    if (r->persistent) r->state = State::kInactive;
    else release_request(r);
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
    if (r->reg_domain) {
      r->reg_domain->forget(r->reg_key);
      r->reg_domain = nullptr;
    }
    r->state = State::kDone;
    ++completions;
    if (r->free_when_done) release_request(r);  // MPI_Request_free on an active request
  }

  void send_cancel(int peer, std::uint64_t send_id);  // a CANCEL of message send_id to peer
  Request* waiting_for_cancel_ack(std::uint64_t id, int peer);
  PendingFrame* alloc_frame();
  void release_frame(PendingFrame* f);
  // The packed remote key a CTS or RECV_READY announces (the memory domain's).
  // Made by the memory domain of `peer`'s provider, which then accepts puts
  // from that peer only (r->reg_domain forgets it when r completes).
  std::uint64_t registration_key(Request* r, const char* buf, std::size_t len, int peer);
  MemoryDomain* domain_of(int peer) const {
    // (a routed peer puts nothing: its rendezvous data streams, routed.cc)
    return peers[peer].provider && !peers[peer].routed() ? peers[peer].provider->memory_domain() : nullptr;
  }

  // ---- links.cc: send queue, tokens, credits, polling
  LinkState* add_link(std::unique_ptr<Link> link);
  // The routing seam (ARCHITECTURE.md §4): the link that carries traffic to
  // `peer` -- for a routed peer its SDF next hop's (routed.cc), else the
  // direct link, a neighbour's or one connected on first use. Never called
  // for a peer no link reaches (peers[p].failed = kUnreachable, wire_up).
  LinkState* route(int peer) {
    PeerState& ps = peers[peer];
    if (ps.next_hop >= 0) [[unlikely]] return peers[ps.next_hop].links[0];
    if (ps.links.empty()) connect_on_demand(peer);
    return ps.links[0];
  }
  void connect_on_demand(int peer);
  FrameHeader make_header(FrameType t, int peer) const {
    FrameHeader h{};
    h.version = kWireVersion;
    h.type = static_cast<std::uint8_t>(t);
    h.src = e.rank_;
    h.dst = peer;
    return h;
  }

  // The DONE after send s's DATA frames: all `granted` bytes came through
  // the slots; the message's length, for the receiver's truncation check.
  FrameHeader streamed_done(const Request* s) const {
    FrameHeader d = make_header(FrameType::kDone, s->peer);
    d.flags = kFlagStreamed;
    d.length = s->granted;
    d.addr = s->len;
    d.send_id = s->id;
    d.recv_id = s->remote_id;
    d.key = s->remote_key;
    return d;
  }

  // Writes one frame into the link's next slot; the caller checked a token.
  //
  // Payload first, then the header: the header's first line holds the
  // slot's publication stamp, which the receiver polls, and end_send
  // writes it again (seq, stamp). Written last, that line crosses to the
  // producer once, not once before and once after the payload copy
  // (streaming 384-768 B: 1.1-1.4x; the poll no longer slowed by a
  // system call per round had made them 0.7-0.85x, issue 32).
  void write_frame(LinkState& ls, const FrameHeader& h, const void* payload, std::size_t n) {
    char* pl = nullptr;
    FrameHeader* slot = ls.link->begin_send(&pl, n);
    if (n) std::memcpy(pl, payload, n);
    std::memcpy(slot, &h, sizeof h);
    end_frame(ls, slot, n);
  }
  // A frame of type t to the link's peer, its header written in place in
  // `slot` (begin_send's, after the payload): zero but for version, type,
  // source and destination, for the caller to fill before end_frame. The
  // frames this rank makes up as it sends (an EAGER sent at once, a
  // CREDIT) are written so: a header built on the stack and copied into
  // the slot is read back with wider loads than the narrow stores that
  // built it, which the core cannot forward from the store buffer -- a
  // stall of ~10 ns each, three per eager send.
  FrameHeader* header_in(FrameHeader* slot, FrameType t, int peer) const {
    *slot = FrameHeader{};
    slot->version = kWireVersion;
    slot->type = static_cast<std::uint8_t>(t);
    slot->src = e.rank_;
    slot->dst = peer;
    return slot;
  }
  // Sends the frame in `slot` with n payload bytes: the credits it returns
  // are the link's unreturned ones.
  void end_frame(LinkState& ls, FrameHeader* slot, std::size_t n) {
    slot->credits = ls.ledger.spend();
    if (max_hops) [[unlikely]] record_written(ls, *slot);
    ls.stats.bytes_sent += slot->type == static_cast<std::uint8_t>(FrameType::kCredit) ? 0 : n;
    ls.link->end_send(n);
    ++ls.stats.frames_sent;
  }

  // Sends a frame now if the link is up, nothing is queued before it and a
  // token is free; otherwise queues it (FIFO keeps MPI order).
  static bool writable_now(const LinkState& ls) { return ls.up && ls.sendq.empty() && ls.ledger.can_send_data(); }
  // The same for a message of this rank's own to the neighbour, which
  // leaves the tokens reserved for routed frames (CreditLedger).
  static bool writable_for_message(const LinkState& ls) {
    return ls.up && ls.sendq.empty() && ls.ledger.can_send_message();
  }
  // Whether h starts a message of this rank's own to the link's peer: a
  // frame the peer may take beyond its unexpected limit with its credit
  // withheld (take_withholding_credit). Not a relayed frame (hops counted),
  // even on its last hop: the peer never leaves those in their slots.
  static bool opens_message(const LinkState& ls, const FrameHeader& h) {
    return h.dst == ls.peer && h.hops == 0 && starts_message(h);
  }
  // An EAGER or RTS: a frame that may become an unexpected message.
  static bool starts_message(const FrameHeader& h) {
    return h.type == static_cast<std::uint8_t>(FrameType::kEager) || h.type == static_cast<std::uint8_t>(FrameType::kRts);
  }
  // Whether a queued frame is another pair's (LinkState::routed_queued):
  // relayed, or this rank's to a routed peer.
  static bool routed_frame(const LinkState& ls, const PendingFrame& f) { return f.relayed || f.h.dst != ls.peer; }
  // (a cut link is never up again: detours.cc sets up = false and poll_link skips it)

  void send_or_queue(LinkState& ls, const FrameHeader& h, Request* req) {
    if (h.dst != ls.peer) [[unlikely]] return send_routed(h, req);
    send_on_link(ls, h, req);
  }
  void send_on_link(LinkState& ls, const FrameHeader& h, Request* req);
  std::uint64_t write_eager_now(int peer, const void* buf, std::size_t len, int tag, std::uint32_t context);
  [[gnu::noinline]] std::uint64_t write_eager_after_poll(LinkState& ls, const void* buf, std::size_t len, int tag,
                                                         std::uint32_t context);
  // The EAGER frame of a send with no request, on a link that can take it.
  [[gnu::always_inline]] std::uint64_t write_eager(LinkState& ls, const void* buf, std::size_t len, int tag,
                                                   std::uint32_t context);
  bool emit(LinkState& ls, const FrameHeader& h, Request* req);
  bool flush(LinkState& ls);
  bool flush_frame(LinkState& ls, PendingFrame* f);
  bool flush_routed(LinkState& ls);
  bool take_withholding_credit(LinkState& ls, const FrameHeader& h, const char* payload);
  bool return_withheld_credits();
  /// One look at link ls: takes what arrived (up to 64 frames), sends what
  /// waits for tokens, returns credits; true if anything happened. A link
  /// with nothing to do costs a test of its flags and one has_frame() (a
  /// ping-pong's wait polls it flat out: every instruction of this round
  /// delays seeing the reply).
  bool poll_link(LinkState& ls) {
    if (peers[ls.peer].failed == Error::kOk && !ls.cut && ls.up && ls.sendq.empty() && ls.put_queue.empty() &&
        !ls.puts_in_flight && !ls.link->has_frame()) [[likely]]
      return send_credit_if_due(ls);
    return take_from_link(ls);
  }
  bool take_from_link(LinkState& ls);
  /// An explicit CREDIT with the link's unreturned credits, if the ledger
  /// wants one and may send it; true if it went. The test is inline: it
  /// runs after every frame a link takes.
  bool send_credit_if_due(LinkState& ls) {
    if (!ls.ledger.wants_explicit_credit() || !ls.ledger.can_send_credit()) [[likely]] return false;
    send_credit(ls);
    return true;
  }
  void send_credit(LinkState& ls);

  // ---- frame_handlers.cc
  // Dispatch through kFrameHandlers; check_header has ruled out any type
  // without a handler.
  bool handle_frame(LinkState& ls, const FrameHeader& h, const char* payload);
  using FrameHandler = bool (Impl::*)(LinkState&, const FrameHeader&, const char*);
  static const FrameHandler kFrameHandlers[];

  // ---- eager.cc: matching, the unexpected queue
  void start_send(Request* r);
  FrameHeader envelope(FrameType t, const Request* r) const;
  /// Starts receive r, whose envelope `key` is {r->context, r->peer,
  /// r->tag}: passed in, not read back, since irecv has just stored those
  /// fields one by one and the compiler read two of them as one 8-byte load
  /// (a load that spans two pending stores cannot be forwarded from them and
  /// waits until they reach the cache; posting receives through the core
  /// API, 2-core VM: 15.1-15.3 -> 14.4-14.6 ns each).
  /// Inline in irecv, where its call and frame were ~15 of the engine's
  /// ~130 instructions per posted receive.
  [[gnu::always_inline]] void start_recv(Request* r, MatchKey key) {
    r->status = Status{};
    // Member by member: a copy of the whole key is an 8-byte load of the
    // two 4-byte stores that built it on the stack, which the core cannot
    // forward (a stall on every receive posted).
    r->PostedRecv::key.context = key.context;
    r->PostedRecv::key.source = key.source;
    r->PostedRecv::key.tag = key.tag;
    if (r->channel) return start_channel_recv(r);
    if (auto* u = static_cast<Unexpected*>(matcher.match_unexpected(key, true))) {
      take_unexpected(r, u);
      return;
    }
    if (key.source >= 0 && key.source != e.rank_ && peers[key.source].failed != Error::kOk) {
      r->status.error = peers[key.source].failed;
      r->status.source = key.source;
      return complete(r);
    }
    r->state = State::kPosted;
    matcher.post(r);
  }
  [[gnu::always_inline]] void deliver_eager(Request* r, int src, int tag, const char* data, std::size_t n) {
    std::size_t take = std::min(n, r->len);
    copy_payload(r->buf, data, take);
    r->status.source = src;
    r->status.tag = tag;
    r->status.bytes = take;
    r->status.error = n > r->len ? Error::kTruncate : Error::kOk;
    complete(r);
  }

  void take_unexpected(Request* r, Unexpected* u);
  void send_sync_ack(int peer, std::uint64_t send_id);
  bool room_for_unexpected(std::size_t payload, int src, bool receive_waiting) const;
  // Whether a nonblocking probe under way matches message h: like a posted
  // receive, it is then taken beyond the unexpected limit (MPI-1.1 §3.8:
  // a busy-waiting MPI_Iprobe eventually sees a message that was sent).
  bool probed(const FrameHeader& h) const {
    return iprobing && Matcher::matches(*iprobing, h.context, h.src, h.tag);
  }
  bool awaits_frame_from(int peer) const;
  // What an unexpected message costs this rank, counted against the limit:
  // its record (with the allocator's share) and the bytes it holds -- so a
  // flood of empty messages or of RTSs is bounded too.
  static constexpr std::size_t cost_of(std::size_t payload) { return sizeof(Unexpected) + 64 + payload; }
  Unexpected* counted(Unexpected* u) {
    unexpected_bytes += cost_of(u->data.size());
    return u;
  }
  // A fresh record for an unexpected message: a spare one if there is one
  // (a halo gather's message often arrives before its receive starts: an
  // allocation for the record and one for its bytes, then two frees, per
  // message). discard() keeps up to kSpareUnexpected records whose bytes
  // fit kSpareUnexpectedBytes, with that capacity: at most 128 KiB held.
  static constexpr std::size_t kSpareUnexpected = 32;
  static constexpr std::size_t kSpareUnexpectedBytes = 4096;
  std::vector<Unexpected*> spare_unexpected;
  Unexpected* new_unexpected();
  void discard(Unexpected* u);
  bool on_eager(LinkState&, const FrameHeader& h, const char* payload);
  bool on_sync_ack(LinkState&, const FrameHeader& h, const char*);
  bool on_credit(LinkState&, const FrameHeader&, const char*);

  // ---- rendezvous.cc
  void accept_rendezvous(Request* r, int src, int tag, std::size_t msg_len, std::uint64_t send_id);
  Request* rendezvous_target(std::uint64_t recv_id, int src);
  void finish_rendezvous_recv(Request* r);
  void write_granted(LinkState& ls, Request* s, std::size_t granted, std::uint64_t addr, std::uint64_t key,
                     std::uint64_t recv_id);
  void finish_put(LinkState& ls, Request* s, PutStatus st);
  void send_done(LinkState& ls, Request* s, std::uint16_t flags, std::size_t length);
  void fail_unwritten(Request* r, int src, std::uint64_t bytes);
  // Stripe i of send s's put on link ls: its bytes, and the put itself.
  int stripe_of(const LinkState& ls, const Request* s) const {
    return s->striped && peers[s->peer].links.size() > 1 && peers[s->peer].links[1] == &ls ? 1 : 0;
  }
  iovec stripe_iov(const Request* s, int i) const {
    return {s->buf + (i ? s->stripe_len[0] : 0), s->stripe_len[i]};
  }
  void start_stripe(LinkState& ls, Request* s);
  // Large puts are striped from here on, where the provider's links to a
  // peer are separate paths (ProviderCaps::stripe).
  static constexpr std::size_t kStripeMin = 64 * 1024;
  bool progress_puts(LinkState& ls);
  bool on_rts(LinkState&, const FrameHeader& h, const char* payload);
  bool on_cts(LinkState& ls, const FrameHeader& h, const char*);
  bool on_done(LinkState&, const FrameHeader& h, const char*);
  bool on_data(LinkState&, const FrameHeader& h, const char* payload);

  // ---- channels.cc
  void start_channel_recv(Request* r);
  bool announces(const Request* r) const;
  void announce(Request* r);
  void take_announcement(int src, const FrameHeader& h);
  bool take_channel_message(int src, const FrameHeader& h, const char* payload);
  bool on_recv_ready(LinkState&, const FrameHeader& h, const char*);
  static void forget(std::vector<Request*>& v, Request* r) { v.erase(std::find(v.begin(), v.end(), r)); }

  // ---- flag_windows.cc
  FlagWindow& window(int w) const;
  // A flag write's put completed (progress_puts): its source line is free again.
  void flag_put_done(LinkState& ls, const PutCompletion& c);

  // ---- self_send.cc, cancel.cc
  void start_self_send(Request* r);
  bool on_cancel(LinkState&, const FrameHeader& h, const char*);
  bool on_cancel_ack(LinkState&, const FrameHeader& h, const char*);

  // ---- routed.cc: the forwarding agent (seed 003 §5.1)
  int max_hops = 0;           // the torus diameter where ranks forward (wire_up), else 0
  std::size_t held_frames = 0;  // routed frames for this rank waiting in some PeerState::held
  bool e2e_flush = false;     // return end-to-end credits at once (finalize)
  bool cutting_routes = false;  // inside fail_routes_through: a failed route is no dead rank
  // End-to-end credits per routed pair: frames a source may have on their
  // way to one destination, so a relay holds at most this many of each
  // pair's frames (seed 003 §5.1's tokens, end to end). Fits e2e_credits.
  static constexpr std::uint32_t kE2eCredits = 32;
  // The context of finalize's neighbour barrier (quiesce_routes): above every
  // communicator's and their nonblocking collectives' (context_ids.h).
  static constexpr std::uint32_t kFinalizeContext = 8192;
  bool setup_routes(const std::vector<int>& neighbours);
  // Links on the longest SDF route: the bound on a routed frame's hops.
  static int torus_diameter(const Torus& t) {
    int d = 0;
    for (int a = 0; a < t.ndims(); ++a) d += t.periodic()[a] ? t.dims()[a] / 2 : t.dims()[a] - 1;
    return d;
  }
  void send_routed(const FrameHeader& h, Request* req);
  bool pump_routed(int peer);
  void start_streaming(Request* s);
  void relay_frame(LinkState& in, const FrameHeader& h, const char* payload);
  bool take_routed(LinkState& ls, const FrameHeader& h, const char* payload);
  bool retry_held();
  void return_e2e_credits(int peer);
  bool return_all_e2e_credits();
  bool routed_quiet() const;
  void quiesce_routes();
  void hear_every_rank();
  void fail_routes_through(int n, Error why);
  void drop_routed_frames(int peer);
  bool on_flag(LinkState&, const FrameHeader& h, const char*);
  bool on_no_route(LinkState&, const FrameHeader& h, const char*);
  void take_in_order(int src, const FrameHeader& h, const char* payload);
  void forward_frame(const FrameHeader& f, const char* payload, std::size_t n, LinkState* in);

  // ---- detours.cc: routes around dead cables
  routing::CableSet dead_cables;
  std::unique_ptr<routing::RouteTables> detours;  // over the live cables, once one is dead
  std::set<std::pair<int, int>> cable_news;       // (reporting end, other end) of each CABLE_DOWN heard
  static constexpr std::chrono::seconds kCableWordTimeout{10};
  bool detour_applies(int peer) const;
  void cable_lost(int peer, const std::string& why);
  bool on_cable_down(LinkState& ls, const FrameHeader& h, const char*);
  void flood(const FrameHeader& news, int except);
  void tell_broken(int to, int about);
  void cable_verdict(int peer);
  void check_cable_words();
  void reroute();
  // Out of line (detours.cc), so that write_frame stays small enough to be
  // inlined where every frame is written: only where ranks relay.
  void record_written(LinkState& ls, const FrameHeader& h);
  // Pairs (source, destination) whose frames this rank relayed, bit
  // src * size + dst (sized by wire_up where ranks relay), so that it can
  // tell each source when a link it relays them on fails (routed.cc).
  std::vector<bool> relayed_pairs;
  void took_routed(int src);
  std::uint8_t e2e_credits_to_give(PeerState& ps) {
    const auto give = static_cast<std::uint8_t>(std::min<std::uint32_t>(ps.e2e_owed, 255));
    ps.e2e_owed -= give;
    return give;
  }
  void say_no_route(int src, int dst);
  bool waiting_behind(int neighbour) const;
  void tell_sources_behind(int n);

  // ---- failure.cc
  void fail_peer(int peer, Error why, const std::string& msg, bool tell_peer = true);
  int fail_requests_of(int peer, Error why, std::uint32_t spare_context = ~std::uint32_t{0});
  bool on_bye(LinkState&, const FrameHeader& h, const char*);
  void say_bye();
  void peer_finalized(int peer);
  /// A host-local collective waits on every rank: the first failed peer's
  /// error into *err, and true, if there is one.
  bool any_peer_failed(Error* err) const {
    for (const PeerState& p : peers)
      if (p.failed != Error::kOk) {
        *err = p.failed;
        return true;
      }
    return false;
  }
  void check_liveness();
  // The launcher's word that ranks entered finalize (Bootstrap::take_finalized).
  [[gnu::cold, gnu::noinline]] void take_launcher_notices();

  // ---- progress.cc (and the idle wait, a template, here)
  bool progress();
  // progress() and then the layer above's hook (Engine::set_progress_hook):
  // what every wait, test and probe polls with.
  bool progress_all() {
    bool any = progress();
    if (hook && !in_hook) [[unlikely]] {
      in_hook = true;
      if (hook(hook_ctx)) any = true, ++completions;
      in_hook = false;
    }
    return any;
  }
  // The round of a call that returns at once (test, probe, Engine::progress).
  // Oversubscribed (MESHMP_YIELD), every 64th round in a row that moved
  // nothing gives the core away, as the idle wait does: a program that
  // polls in a loop -- HPL's panel broadcast polls MPI_Iprobe between
  // updates -- otherwise keeps the rank it waits for, sharing its core, from
  // running. HPCC's HPL, 4 ranks on the 2-core VM: 0.12-3.3 s -> 0.13-0.22 s
  // (Open MPI 0.21-0.25 s). Not every round: a program with work between
  // its polls (HPCC's MPIRandomAccess tests a receive once per update) would
  // give the core away each time -- as Open MPI does, at a tenth of the
  // update rate (0.0013-0.0015 GUP/s against meshmp's 0.011-0.018).
  bool poll_round() {
    const bool any = progress_all();
    if (e.opt_.yield) [[unlikely]] {
      if (any) empty_polls = 0;
      else if (++empty_polls == kEmptyPollsBeforeYield) empty_polls = 0, ::sched_yield();
    }
    return any;
  }
  static constexpr int kEmptyPollsBeforeYield = 64;
  int empty_polls = 0;  ///< poll_round: rounds in a row that moved nothing
  bool (*hook)(void*) = nullptr;
  void* hook_ctx = nullptr;
  bool in_hook = false;
  // A host-local collective waits on a line another rank of this host
  // writes, usually nanoseconds after this one got there: a few polls of it
  // alone, pausing, before block_until's round of progress between polls
  // (which delays seeing the write). True once ready() held. 2-rank
  // QMP_barrier, 2-core VM, pinned, best of 6 interleaved: 0.068 -> 0.055-0.064 us.
  // Oversubscribed (MESHMP_YIELD), one look: the other rank may need this
  // core to get there (8 ranks on 2 cores: 64 pauses doubled a barrier).
  template <typename Ready>
  bool poll_briefly(Ready ready) const {
    if (e.opt_.yield) return ready();
    for (int i = 0; i < kBriefPolls; ++i) {
      if (ready()) return true;
      cpu_relax();
    }
    return false;
  }
  static constexpr int kBriefPolls = 64;
  // Spins briefly, then sleeps on the doorbell, until done() holds.
  template <typename Done>
  void block_until(Done done) {
    int idle = 0;
    while (!done()) {
      if (progress_all()) {
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
      // About to sleep: the end-to-end credits this rank owes go first, so
      // that no routed sender waits on a sleeping rank (routed.cc).
      if (max_hops && return_all_e2e_credits()) continue;
      if (!waiter) {
        if (wait_epoll >= 0) sleep_in_epoll();
        else ::usleep(1000);
        if (!in_use.empty()) check_liveness();
        idle = e.opt_.spin / 2;
        continue;
      }
      std::uint32_t seen = waiter->arm();
      if (progress_all() || done()) {
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


  // Every provider in use armed, one more poll, then one epoll over their
  // wait descriptors (at most 100 ms).
  void sleep_in_epoll();

  // ---- wire_up.cc
  void wire_up();
  void setup_idle_wait();
  std::string provider_summary() const;
  void print_stats();
};

}  // namespace meshmp::mesh
