// The nearest-neighbour core's protocol engine: the C++ point-to-point API the
// QMP and MPI layers share (ARCHITECTURE.md §3).
//
// Each rank keeps one Link per torus direction (2*D; on an axis of size 2 the
// + and - links reach the same peer) and connects to any other rank on first
// use, queueing sends FIFO until the link is up (seed 004 §3.4). Frames spend
// tokens (CreditLedger, seed 003 §5.1). Messages below the eager limit
// (default 16 KiB) are copied through the receiver's slots; larger ones go by
// rendezvous: RTS -> the receiver matches -> CTS with address and key -> RDMA
// write -> DONE (seed 000 §3.6.2, §3.8-3.9), or DATA frames through the slots
// where the OS refuses the RDMA write. Progress happens inside calls; idle
// waits spin briefly, then sleep on the doorbell.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mesh/context_ids.h"
#include "mesh/defaults.h"
#include "mesh/geometry.h"
#include "mesh/request.h"

namespace meshmp::mesh {

/// Per-link counters, printed at finalize with MESHMP_STATS=1.
struct LinkStats {
  std::uint64_t frames_sent = 0, frames_received = 0;
  std::uint64_t eager_sent = 0, rendezvous_sent = 0;
  std::uint64_t bytes_sent = 0;       ///< payload bytes, eager + RDMA + DATA
  std::uint64_t token_stalls = 0;     ///< frames that waited for a token
  std::uint64_t credit_frames = 0;    ///< explicit CREDIT frames sent
  std::uint64_t rdma_writes = 0, data_frames = 0;
  std::uint64_t ready_writes = 0;     ///< channel sends written on a RECV_READY (no RTS/CTS)
  std::uint64_t registered_writes = 0;  ///< RDMA writes into registered memory (a memcpy, no system call)
  std::uint64_t relayed = 0;          ///< other ranks' frames this rank forwarded on this link (routed.cc)
  std::uint64_t relay_dropped = 0;    ///< ... that came on this link for a rank this one no longer reaches
  std::uint64_t relay_queued_max = 0; ///< most relayed frames waiting at once in this link's send queue
  std::uint64_t held_for_order = 0;   ///< routed frames for this rank that came on this link ahead of
                                      ///< one of their pair's still on an older route (detours.cc)
  std::uint64_t credits_withheld = 0; ///< the peer's messages taken beyond the unexpected limit, their
                                      ///< credits withheld, where ranks relay (take_withholding_credit)
};

/// Which barrier MPI_Barrier and QMP_barrier take (MESHMP_BARRIER;
/// collectives/flag_barrier.h says what each is).
enum class BarrierChoice : std::uint8_t {
  kAuto,      ///< "auto": chosen by the group's shape, as measured (collectives.cc, barrier())
  kRdma,      ///< "rdma": recursive doubling over flag windows among all members (seed 002 §3)
  kFlat,      ///< "flat": the flat tree over flag windows on each host, recursive doubling
              ///< among the hosts' first members where the group spans hosts (seed 002 §4-5)
  kExchange,  ///< "exchange": messages: the dimension-wise exchange on a torus, else dissemination
  kCombine,   ///< "combine": the shared-memory combine (every rank on one host), else the
              ///< hierarchical combine by host
};

/// Tunables, normally read from the environment and config by Engine::init.
struct EngineOptions {
  std::size_t eager_limit = kDefaultEagerLimit;  ///< bytes; messages of this size and above use rendezvous
  std::uint32_t credits = kDefaultCredits;       ///< receive slots per link direction
  bool cma = true;                  ///< RDMA write by process_vm_writev
  /// Polls before sleeping on the doorbell: about 0.5 ms here, longer than a
  /// peer takes to RDMA-write 4 MiB, so a rendezvous receive rarely sleeps.
  /// A sleeper's wake-up costs its writer an IPI (the membarrier in arm())
  /// and itself a halted CPU's wake-up: 2 MiB streams lost 20% at 2000.
  int spin = 20000;
  /// Yield the core between idle polls: on when ranks outnumber this host's
  /// CPUs, so a rank with work gets a core at once (MESHMP_YIELD=0/1 forces).
  bool yield = false;
  /// Bytes of unexpected eager data buffered while this rank waits for
  /// nothing from that sender (no receive for a later message of its, no
  /// reply to an operation under way with it); beyond it the link stalls
  /// (room_for_unexpected in engine/eager.cc) -- where ranks relay, once
  /// the credits of the messages taken beyond it, withheld, leave the
  /// sender only the tokens it keeps for routed frames (mesh/credits.h).
  std::size_t unexpected_limit = std::size_t{256} << 20;
  /// Bytes of registered memory (QMP_MEM_COMMS) a rank's pool may hold.
  std::size_t registered_limit = std::size_t{1} << 30;
  /// The config file, if its fabric is "mesh" (only torus neighbours are
  /// cabled): traffic to any other rank goes through the kernels' routes
  /// (tcp) or is relayed by the forwarding agent (mesh/engine/routed.cc).
  /// Empty: a switched fabric, or no config.
  std::string mesh_fabric_config;
  BarrierChoice barrier = BarrierChoice::kAuto;  ///< MESHMP_BARRIER
};

class Bootstrap;
class Provider;

/// Everything an engine is made of, for Engine::create: who this rank is,
/// the torus, the options, how it finds its peers and which transports it
/// has. Engine::init() fills one in from the launcher's environment.
struct EngineSetup {
  int rank = 0, size = 1;
  int appnum = 0;  ///< application context (Bootstrap::appnum)
  Torus torus;
  EngineOptions options;
  std::unique_ptr<Bootstrap> bootstrap;             ///< needed when size > 1
  std::vector<std::unique_ptr<Provider>> providers;  ///< needed when size > 1; the first that reaches a peer serves it
  EngineSetup();
  ~EngineSetup();
  EngineSetup(EngineSetup&&) noexcept;
  EngineSetup& operator=(EngineSetup&&) noexcept;
};

class Engine {
 public:
  /// Starts the core for this process from the launcher's environment
  /// (MESHMP_RANK, MESHMP_SIZE, ...; a process started without qmprun is a
  /// job of one). Counted: QMP and MPI each init and finalize once, in any
  /// order, over one engine. Throws std::runtime_error with a readable
  /// message if the environment or the config is wrong.
  static Engine& init();
  /// The running engine, or nullptr before init / after the last finalize.
  static Engine* get();
  /// Drops one init; the last completes outstanding link traffic,
  /// synchronises with every rank and releases all resources. Without a
  /// running engine it does nothing. Never throws: returns "" or why the
  /// last synchronisation failed (a rank has gone), also printed on stderr.
  static std::string finalize();
  /// An engine from an explicit setup, not the process's shared one (get()
  /// does not return it): in-process tests of the protocols over providers
  /// of their own (tests/support/loopback_provider.h). Wires up the links
  /// (two bootstrap fences, so every rank of the setup must call it at
  /// once). Throws std::runtime_error as init() does.
  static std::unique_ptr<Engine> create(EngineSetup setup);
  /// Completes outstanding link traffic and passes a bootstrap fence with
  /// every rank: what finalize() does before releasing an engine. Every
  /// rank must call it.
  void shutdown();
  /// Ends the whole job through the launcher with `code`; does not return.
  [[noreturn]] void abort(int code, const std::string& message);

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// The application context this rank was started in, 0 for the first
  /// program of an MPMD launch (Bootstrap::appnum; MPI_APPNUM).
  int appnum() const { return appnum_; }
  const Torus& torus() const { return torus_; }
  const EngineOptions& options() const { return opt_; }
  /// World rank of the neighbour in direction d, or -1 (open edge).
  int neighbour(Direction d) const { return torus_.neighbour(rank_, d); }

  /// Nonblocking send of `len` bytes to world rank `dst` with `tag` (0..kTagUb)
  /// on communicator `context` (at most kMaxWireContext, 65535: a larger one
  /// throws std::invalid_argument here and in every call that makes a
  /// request). The buffer must stay untouched until the request completes.
  /// Never returns nullptr.
  Request* isend(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context,
                 SendMode mode = SendMode::kStandard);
  /// Nonblocking receive of up to `len` bytes from `src` (or kAnySource) with
  /// `tag` (or kAnyTag). A longer message is truncated: status.error = kTruncate.
  Request* irecv(void* buf, std::size_t len, int src, int tag, std::uint32_t context);
  /// A standard-mode eager send written straight into the slot, with no
  /// request at all, if `dst` is another rank whose link is up, idle (no
  /// queued frame it could overtake) and holds a credit, and len < the eager
  /// limit. Returns the message's id (never 0) if it was: the message is then
  /// sent and the buffer free, and cancel_sent(dst, id) can still retract it
  /// while it is unmatched. Returns 0, having done nothing, otherwise (the
  /// caller then uses isend). The common small-message case (seed 000 §3.6,
  /// eager).
  std::uint64_t try_send_now(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context);
  /// Blocking send: wait(isend(...)), or try_send_now() for a standard-mode
  /// send. Fills *st (may be nullptr).
  void send(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context,
            SendMode mode, Status* st);

  /// Persistent requests: created inactive, started any number of times.
  Request* send_init(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context,
                     SendMode mode = SendMode::kStandard);
  Request* recv_init(void* buf, std::size_t len, int src, int tag, std::uint32_t context);
  void start(Request* r);

  /// Channels: persistent requests for a fixed pair with the receiver-ready
  /// protocol (ARCHITECTURE.md §3; seed 003 §5.1 sender-side matching, seed
  /// 000 §3.6.2 -- its deadlock cannot arise on a fixed pair). Every start of
  /// a channel receive of the eager limit or more announces its buffer
  /// (RECV_READY); a channel send at or above the eager limit RDMA-writes as
  /// soon as the announcement for it is there, with no RTS/CTS round trip.
  /// Starts are numbered per (peer, context, tag), and every message carries
  /// its number, so the k-th send meets the k-th receive whatever the sizes;
  /// smaller sends go eager. A large send that finds no announcement also
  /// sends an RTS, which only a receive too small to announce answers (CTS),
  /// so a message longer than its receive is truncated, never stuck. Sources
  /// and destinations are specific ranks; to or from this rank they behave
  /// as send_init/recv_init.
  Request* channel_send_init(const void* buf, std::size_t len, int dst, int tag, std::uint32_t context);
  Request* channel_recv_init(void* buf, std::size_t len, int src, int tag, std::uint32_t context);

  /// True and fills *st (may be nullptr) if `r` completed. A completed
  /// nonpersistent request is freed; a persistent one becomes inactive. An
  /// inactive persistent request tests complete with an empty status.
  bool test(Request* r, Status* st);
  void wait(Request* r, Status* st);
  /// Index of a completed request among reqs (nullptr entries are skipped),
  /// or -1 if all are nullptr/inactive.
  int waitany(std::size_t n, Request* const* reqs, Status* st);
  /// -1 (test form) if none has completed.
  int testany(std::size_t n, Request* const* reqs, Status* st);
  void waitall(std::size_t n, Request* const* reqs, Status* sts);
  /// Progresses (spinning, then sleeping) until found() returns true. The
  /// caller has just looked; found() is asked again only after some request
  /// has completed, so a wait for any of n requests (MPI_Waitany,
  /// MPI_Waitsome) costs O(n) per completion, not per poll.
  void wait_for_completion(const std::function<bool()>& found);
  bool is_complete(const Request* r) const;
  bool is_active(const Request* r) const;

  /// Probe for a matching unexpected message without receiving it.
  bool iprobe(int src, int tag, std::uint32_t context, Status* st);
  void probe(int src, int tag, std::uint32_t context, Status* st);
  /// Matched probe (MPI-3.1 §3.8.2): like iprobe, but the message found is
  /// taken off the unexpected queue, so no receive or other probe can match
  /// it; receive_message() then receives it. *st as iprobe's; nullptr if
  /// no message matches. A sender's cancel of it no longer succeeds.
  Message* improbe(int src, int tag, std::uint32_t context, Status* st);
  /// Blocks until a message matches, then as improbe.
  Message* mprobe(int src, int tag, std::uint32_t context, Status* st);
  /// A receive of message `m` (from improbe/mprobe, each received once)
  /// into `len` bytes at `buf`: complete at once for an eager message,
  /// after its rendezvous for a large one; kTruncate if it is longer.
  Request* receive_message(Message* m, void* buf, std::size_t len);

  /// Cancels a request (MPI-1.1 §3.8: either the cancel succeeds or the
  /// communication does, never both). True if cancelled now (the request
  /// completes with status.cancelled): a receive still waiting for its
  /// message, a send still queued here or to this rank. A standard or
  /// synchronous send that has left -- its RTS, or its eager message, even
  /// one whose request has completed but not yet been waited for -- asks the
  /// receiver to retract it (CANCEL); the receiver's answer (CANCEL_ACK)
  /// completes it cancelled if the message was still unmatched there, and
  /// the match completes it as usual otherwise, so the receiver must be
  /// inside some meshmp call for a wait on it to return (as with MPICH); a
  /// dead receiver fails it with kPeerDead. False otherwise (a send that is
  /// streaming or putting, a ready-mode send, a completed rendezvous): the
  /// request then completes as it would have.
  bool cancel(Request* r);
  /// MPI_Cancel of a message try_send_now() wrote (its `id`, to `dst`, `len`
  /// bytes with `tag`): a send request that asks the receiver to retract it,
  /// as cancel() does. The request completes with status.cancelled if the
  /// message was still unmatched, with status (rank, tag, len) as sent if it
  /// had matched, with kPeerDead if the receiver is gone.
  Request* cancel_sent(int dst, std::uint64_t id, std::size_t len, int tag);
  /// Frees a request; an active one is freed when it completes.
  void free(Request* r);

  /// Registered memory (QMP_MEM_COMMS; seed 000 §3.7): `bytes` aligned to
  /// `alignment` (a power of two), registered once for its lifetime, so every
  /// RDMA write a peer makes into it -- rendezvous, and channel sends of any
  /// size once the receive is announced -- is a memcpy into the peer's
  /// mapping of it (the provider's memory domain, memory_domain.h; shm:
  /// providers/shm/shm_registry.h). nullptr with errno set if it cannot be
  /// created, or with errno = ENOTSUP in a job without one (one rank):
  /// the caller then uses ordinary memory, which works the same, only slower.
  void* allocate_registered(std::size_t bytes, std::size_t alignment);
  /// Frees what allocate_registered returned; false if `p` is not such memory.
  bool free_registered(void* p);

  /// Host-local global combine through shared memory, for collectives over
  /// every rank of a job that shares one host. Each rank contributes `bytes`
  /// (at most smp_max_bytes()) from `mine`; the last rank to arrive calls
  /// `fold(all, result, ctx)` once, with every contribution at `all +
  /// rank*bytes` (world-rank order), and every rank gets that one result's
  /// `bytes` in `result`, so all hold the same bits (in a job of two ranks
  /// both call `fold` on the same bytes: one crossing instead of two). With bytes = 0 it is a
  /// barrier and `fold` may be null. Every rank must call it the same number
  /// of times in the same order. Returns kPeerDead if a rank dies meanwhile,
  /// kProtocol on every rank if shared memory is corrupted, kTruncate on a
  /// rank whose `bytes` is smaller than another rank's (mismatched counts; the
  /// result is then undefined); throws
  /// std::length_error if bytes > smp_max_bytes() and std::logic_error
  /// without smp_available() (the caller's mistakes). Seed 002 §5.2 (flat
  /// tree, one writer per slot; host_combine.h and
  /// providers/shm/shm_provider.h say how the release differs).
  using SmpFold = void (*)(const char* all, void* result, void* ctx);
  /// Whether every rank of the job shares this host and a provider offers
  /// the host-local combine (provider.h).
  bool smp_available() const;
  std::size_t smp_max_bytes() const;
  Error smp_combine(const void* mine, std::size_t bytes, void* result, SmpFold fold, void* ctx);
  /// Host-local broadcast through shared memory, under the same conditions
  /// as smp_combine: the root (is_root) writes its `bytes` of `buf` once,
  /// every other rank copies them into its `buf` (`bytes` there is its
  /// capacity). Every rank learns the root's bytes in *root_bytes; where they
  /// exceed smp_max_broadcast_bytes() only that size went through shared
  /// memory and the caller moves the data another way (so every rank
  /// chooses alike even if the counts differ). The root returns as soon as
  /// its bytes are out, unless the slot they need is still being read by an
  /// earlier broadcast's slowest rank. Every rank must call it the same
  /// number of times in the same order. Returns kTruncate on a rank whose
  /// `bytes` is smaller than the root's (MPI_ERR_TRUNCATE; `buf` then holds
  /// the first `bytes`), the peer's error if a rank fails meanwhile; throws
  /// std::logic_error without smp_available().
  std::size_t smp_max_broadcast_bytes() const;
  /// Host-local staging (same conditions as smp_combine): two buffers of
  /// smp_staging_bytes() per rank, page-aligned, that world rank `rank`
  /// writes and every rank may read; `which` is 0 or 1. The caller orders
  /// writes and reads with smp_combine barriers (bytes = 0). Throws
  /// std::logic_error without smp_available().
  std::size_t smp_staging_bytes() const;
  char* smp_staging(int rank, int which);
  Error smp_broadcast(void* buf, std::size_t bytes, bool is_root, std::size_t* root_bytes);

  /// One-sided flag windows (issue 31; the flags of seed 002 §3's RDMA-write
  /// barrier): `n` 64-bit flags, one per 64-byte cache line, in registered
  /// memory (allocate_registered; ordinary memory where there is none or
  /// its pool is full), all 0 at first, that peers set by an RDMA write of 8 bytes
  /// (Link::put) followed by the provider's doorbell (Link::ring). A window
  /// is opened by one rank alone; its owner sends flag_target(w, peer) to
  /// each peer that will write into it (an ordinary message), and that peer
  /// passes it to set_flag_target() for its own window. Returns the window's
  /// handle (>= 0), or -1 if no memory can be had.
  struct FlagTarget {
    std::uint64_t addr = 0;  ///< the first flag's address in the owner's memory
    std::uint64_t key = 0;   ///< the owner's remote key for it, valid for one peer only
    std::uint64_t n = 0;     ///< flags in the window
  };
  int open_flag_window(int n);
  /// What `peer` needs to write into window `w`: an address and a key that
  /// the owner's memory domain accepts from `peer` until the window closes.
  FlagTarget flag_target(int w, int peer);
  /// Records `peer`'s window (its flag_target for this rank) as where
  /// write_flag(w, peer, ...) writes.
  void set_flag_target(int w, int peer, FlagTarget t);
  /// Sets flag `index` of `peer`'s window to `seq`: one RDMA write of 8 bytes
  /// and a doorbell; returns once the write is issued (a later write of the
  /// same index waits for this one to complete). kPeerDead if the peer or
  /// its link is gone, kProtocol if it refused the write. Throws
  /// std::logic_error for a closed window, a peer without a target or an
  /// index outside the peer's window. The index's line of this rank's
  /// window holds the value while the write is in flight.
  Error write_flag(int w, int peer, int index, std::uint64_t seq);
  /// Waits (spinning, then sleeping as any wait) until this rank's flag
  /// `index` of window `w` is at least `seq` (sequence numbers only grow:
  /// 64 bits never wrap), or until world rank `writer` fails (its error).
  Error wait_flag(int w, int index, std::uint64_t seq, int writer);
  /// State a layer above keeps with this engine (the collectives' flag
  /// windows, per communicator), destroyed with it. One per engine, not per
  /// thread: whichever thread calls (MPI_THREAD_SERIALIZED) finds the same.
  std::shared_ptr<void>& collective_state() { return collective_state_; }
  /// The current value of this rank's flag `index` of window `w`.
  std::uint64_t read_flag(int w, int index) const;
  /// Closes window `w` once its writes have completed; its keys are
  /// forgotten, so peers' later writes into it fail.
  void close_flag_window(int w);

  /// This process's context ids, shared by QMP, MPI and the bridge between
  /// them (context_ids.h; agreed over a group by
  /// collectives::agree_context_pairs).
  ContextIds& context_ids();

  /// Whether world rank `peer` runs on this host (the address vector; this
  /// rank itself does).
  bool same_host(int peer) const;
  /// The host world rank `rank` runs on, named by the lowest rank there
  /// (every rank learns every rank's at start): node-local groups for
  /// hierarchical collectives.
  int host_of(int rank) const;

  /// One round of polling: connections, incoming frames, queued sends, and
  /// the progress hook. Returns true if anything happened. With MESHMP_YIELD
  /// (ranks outnumber cores) every 64th round in a row in which nothing
  /// happened ends with sched_yield(), as in test(), testany() and iprobe():
  /// a program polling in a loop lets the rank it waits for run.
  bool progress();

  /// A layer above's progress (the schedules of nonblocking collectives,
  /// collectives/schedule.h): `hook(ctx)` runs after every round of polling
  /// that a wait, test, probe or progress() makes, never inside itself, and
  /// returns true if it moved something (that counts as a completion for
  /// wait_for_completion). It may start, test and free requests. nullptr
  /// removes it; while none is set the polling pays one branch.
  void set_progress_hook(bool (*hook)(void*), void* ctx);
  /// Progresses (spinning, then sleeping) until done() returns true, asked
  /// after every round of polling.
  void wait_until(const std::function<bool()>& done);

  /// Counters of the link in direction d (2*D of them), or of the first link
  /// to `peer`.
  const LinkStats* direction_stats(Direction d) const;
  const LinkStats* peer_stats(int peer) const;
  /// Bytes from which a message to `peer` goes by rendezvous: the eager
  /// limit (EngineOptions::eager_limit), or more where its provider streams
  /// bytes (tcp, ofi without hardware RDMA: MESHMP_STREAM_EAGER_LIMIT).
  std::size_t eager_limit_to(int peer) const;
  /// Number of links currently open (neighbour + on-demand).
  int open_links() const;

  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

 private:
  Engine();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int rank_ = 0, size_ = 1, appnum_ = 0;
  Torus torus_;
  EngineOptions opt_;
  std::shared_ptr<void> collective_state_;
};

}  // namespace meshmp::mesh
