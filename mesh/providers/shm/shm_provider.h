// The shm provider: Links between ranks on one host (ARCHITECTURE.md §3),
// behind the Provider seam (mesh/provider.h), with its memory domain (the
// registry's registered memory) and its host-local combine.
// Each link is a shared segment holding two SlotRings (one per direction);
// RDMA write is process_vm_writev into the peer (a single copy). Each rank
// also has a small control block with a futex doorbell, so an idle rank
// sleeps instead of spinning, and a connect-request flag per peer for links
// made on first use (seed 004 §3).
//
// Segment names are "/meshmp-<job>-<token>-..." with the launcher's job id
// (not a secret) and a random token of the rank that creates the segment
// (a link: of its lower rank), which the ranks learn only from each other
// through the launcher's fence, so no other user can predict a name. They
// are created O_EXCL and 0600, opened only after the owner and mode are
// checked (shm_segment.h), and unlinked as soon as both ends have mapped
// them, so /dev/shm holds nothing once a job is connected. The launcher
// removes any "/meshmp-<job>-*" left by a rank that died in between.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mesh/defaults.h"
#include "mesh/provider.h"
#include "mesh/providers/shm/shm_registry.h"

namespace meshmp::mesh {

struct ShmControl;

class ShmProvider final : public Provider, public MemoryDomain, public HostCombine {
 public:
  struct Options {
    std::string job;      ///< job id shared by all ranks (hex; not a secret)
    std::string token;        ///< this rank's random token for control and link names (random_token.h)
    std::string arena_token;  ///< ... and another for its registered-memory arenas if they are named:
                              ///< those names stay listed while the job runs (so they give away nothing of `token`)
    int rank = 0;
    int nranks = 1;
    std::uint32_t slots = kDefaultCredits;        ///< receive slots per link direction
    std::size_t payload = kDefaultEagerLimit;    ///< bytes per slot (>= eager limit)
    bool cma = true;              ///< use process_vm_writev for RDMA write
    std::size_t registered_limit = 0;  ///< bytes of registered memory (the engine's option)
    std::string host;    ///< host_identity() of this rank (mesh/host_identity.h)
    /// Reach every rank on this kernel, also in other network namespaces
    /// (MESHMP_PROVIDER=shm); else only those on this host (auto).
    bool forced = false;
    std::string secret;  ///< the job's secret: every name's token part is keyed by it (shm_names.h)
    bool named_arenas = false;  ///< registered-memory arenas as named segments (ShmRegistry::Sharing::kName)
  };

  explicit ShmProvider(const Options& o);
  ~ShmProvider() override;
  ShmProvider(const ShmProvider&) = delete;
  ShmProvider& operator=(const ShmProvider&) = delete;

  // ---- Provider ----
  const char* name() const override { return "shm"; }
  ProviderCaps caps() const override;
  /// Creates the segment of link #index to `peer` (the lower rank's side).
  /// The link is up once the peer has opened it.
  std::unique_ptr<Link> offer_link(int peer, int index) override { return create_link(peer, index); }
  /// "<pid> <token> <arena token> <host>": what a peer needs to find this
  /// rank's segments (the names carry the tokens), to check it is alive and
  /// to know whether it shares this host.
  std::string address_card() const override;
  /// Checks every card and maps the control block of every rank it reaches.
  /// Throws std::runtime_error naming the rank or the segment.
  void attach(const std::vector<std::string>& cards) override;
  std::unique_ptr<Link> join_link(int peer, int index) override;
  /// Removes this rank's control block name: every rank has attached.
  void wired() override { unlink_own_control(); }
  /// Ranks on this host (auto); with `forced`, every rank on this kernel.
  bool reachable(int peer) const override;
  bool same_host(int peer) const override { return hosts_.at(peer) == o_.host; }
  /// On-demand connection to a non-neighbour: creates link #0 (or opens it if
  /// the peer created it first) and asks the peer to open it.
  std::unique_ptr<Link> connect(int peer) override;
  /// Opens the links of the peers that asked this rank to connect.
  void accept(std::vector<std::unique_ptr<Link>>* incoming) override;
  /// "" while the peer's process exists (kill(pid, 0)).
  std::string check_peer(int peer) override;
  void finalizing() override;
  bool finalized(int peer) const override;
  /// Marks the link closed in the peer's control block -- which needs no
  /// token and no working ring -- and wakes it.
  void report_closed(int peer) override;
  void take_failures(std::vector<LinkFailure>* failures) override;
  /// Doorbell. arm() announces that this rank is about to sleep and returns
  /// the doorbell value to sleep on; the caller re-polls its links, then
  /// sleep()s unless something arrived, then disarm()s. The store-load
  /// ordering this needs on both sides (sender: publish, then read
  /// `sleeping`; sleeper: set `sleeping`, then re-poll) is an asymmetric
  /// fence where the kernel has membarrier(2) GLOBAL_EXPEDITED: the rare
  /// sleeper pays a system call so the sender, on every message, pays only a
  /// compiler barrier. Without it both sides use a full fence.
  std::uint32_t arm() override;
  void sleep(std::uint32_t seen, int timeout_ms) override;
  void disarm() override;
  /// A FIFO "/dev/shm/meshmp-<job>-<arena token>-w<rank>" (0600, made
  /// O_EXCL-like by mkfifo): while this rank sleeps in an epoll beside
  /// other providers, a peer that would ring the futex doorbell also writes
  /// a byte into it. Peers open it on first use, checking owner and type.
  int wait_fd() override;
  void drain_wait_fd() override;
  MemoryDomain* memory_domain() override { return this; }
  HostCombine* host_combine() override { return this; }

  // ---- MemoryDomain: the registry (shm_registry.h) ----
  /// make_registration_key(the registered region holding the buffer, or 0; nonce).
  std::uint64_t remote_key(const void* buf, std::size_t len, std::uint32_t nonce, int peer) override;
  /// A key naming a registered region: the put is a memcpy into a mapping.
  bool direct(std::uint64_t rkey) const override { return registered_region_of(rkey) != 0; }
  void* allocate(std::size_t bytes, std::size_t alignment) override { return registry_.allocate(bytes, alignment); }
  bool release(void* p) override { return registry_.release(p); }
  MemoryDomain::Usage usage() const override;

  // ---- HostCombine ----
  /// Host-local combine (seed 002 §5.2's flat tree: one writer per slot,
  /// each on its own cache lines). arrive() makes `bytes` (<=
  /// kSmpSlotBytes) of this rank's data visible as contribution number `seq`
  /// and returns true if this rank is the last of the job to arrive at
  /// `seq`. That rank reads every contribution with contribution()
  /// (nullptr if rank r's is not there, which the last arrival rules out),
  /// and publish()es the result with the largest contribution's size (or
  /// publish_failure()s: every waiter gets kFailed), waking sleepers; the
  /// others poll result(), which copies the result once it is out and
  /// says kTruncated to a rank that contributed fewer bytes than another (the
  /// ranks' counts differ: MPI_ERR_TRUNCATE). Where §5.2 has
  /// a fixed master poll every flag, the last arrival releases: a waiter
  /// reads one cache line per poll, and with more ranks than cores no release
  /// waits for a master to be scheduled. Two buffers alternate by seq parity,
  /// which is safe because no rank can arrive at seq+2 before every rank has
  /// arrived at seq+1, which each does only after seq was released. A job of
  /// two ranks post()s instead and each folds both contributions: a rank
  /// posts seq+2 only after reading the other's seq+1, which the other posts
  /// only after it has read seq.
  static constexpr std::size_t kSmpSlotBytes = 1024;
  static constexpr std::uint64_t kSmpFailed = ~std::uint64_t{0};  // result `bytes` of a failed combine
  std::size_t max_bytes() const override { return kSmpSlotBytes; }
  bool arrive(std::uint64_t seq, const void* data, std::size_t bytes) override;
  void post(std::uint64_t seq, const void* data, std::size_t bytes) override;
  const char* contribution(int r, std::uint64_t seq, std::size_t* bytes) const override;
  void publish(std::uint64_t seq, const void* result, std::size_t bytes, std::size_t largest) override;
  void publish_failure(std::uint64_t seq) override;
  State result(std::uint64_t seq, void* out, std::size_t bytes) const override;
  /// Host-local broadcast: kBcastSlots slots of kBcastSlotBytes in rank 0's
  /// block, broadcast `seq` in slot seq % kBcastSlots. The root copies its
  /// bytes in (a longer broadcast: only its size) and stores the slot's seq last (its cache lines written once,
  /// every rank reads them), then wakes the sleepers; each reader copies out
  /// and stores seq + 1 as the broadcasts it is done with, in a line of its
  /// own control block that only it writes. The root of seq + kBcastSlots
  /// knows the slot is free once every rank's count has passed seq (it
  /// reads the counts again only when the least it saw last is too small),
  /// and otherwise sleeps as the slot's waiter, woken by the readers. The
  /// root does not wait for its readers, so broadcasts in a row overlap up
  /// to kBcastSlots deep, as eager messages do; no reader waits on a line
  /// another rank writes, but the slot's.
  static constexpr std::size_t kBcastSlotBytes = 8192;
  static constexpr std::uint64_t kBcastSlots = 16;
  std::size_t max_broadcast_bytes() const override { return kBcastSlotBytes; }
  bool broadcast_publish(std::uint64_t seq, const void* data, std::size_t bytes) override;
  State broadcast_result(std::uint64_t seq, void* out, std::size_t bytes, std::size_t* got) override;
  /// Two staging buffers of kStagingBytes per rank, at the end of its control
  /// segment (so no other name in /dev/shm): pages of tmpfs are made when
  /// first written, so a job that never combines long vectors pays nothing.
  static constexpr std::size_t kStagingBytes = 256 * 1024;
  std::size_t staging_bytes() const override { return kStagingBytes; }
  char* staging(int r, int which) override;

  // ---- shm's own ----
  /// This rank's registered memory and its mappings of the peers' (QMP_MEM_COMMS).
  ShmRegistry& registry() { return registry_; }
  /// Wakes `peer` if it sleeps.
  void wake(int peer);
  /// This rank's contribution number `seq` into its own slot (seq parity).
  void write_contribution(std::uint64_t seq, const void* data, std::size_t bytes);
  /// A link to `peer` found data it cannot take (`what` says which link
  /// and what): tells the peer (report_closed) and has the next
  /// take_failures report it here.
  void reject_link(int peer, std::string what);
  int pid_of(int peer) const { return pids_.at(peer); }
  int rank() const { return o_.rank; }
  bool cma_enabled() const { return o_.cma; }

 private:
  // take_failures once a peer reported a link closed, or a link rejected data.
  [[gnu::noinline]] void take_closed(std::vector<LinkFailure>* failures);
  /// Releases combine `seq`'s result slot with `bytes` (kSmpFailed: failed)
  /// and wakes the waiters.
  void release_result(std::uint64_t seq, std::uint64_t bytes);
  /// Creates the segment of link #index to `peer`. If the name exists:
  /// nullptr when `peer_may_have_made_it` (a simultaneous connect), else throws.
  std::unique_ptr<Link> create_link(int peer, int index, bool peer_may_have_made_it = false);
  /// Opens the segment a peer created; nullptr if it is not there or not
  /// initialised yet. Unlinks the name once mapped.
  std::unique_ptr<Link> open_link(int peer, int index);
  void unlink_own_control();
  std::string control_name(int rank) const;
  std::string wake_fifo_name(int rank) const;
  /// Rings `peer`'s doorbell: the futex, and its FIFO if it sleeps in an epoll.
  void ring(int peer);
  std::vector<std::string> hosts_;        ///< every rank's host identity (own only, before attach)
  std::vector<std::string> arena_tokens_;
  int wake_fifo_ = -1;                    ///< own FIFO (read end), once wait_fd() made it
  std::vector<LinkFailure> rejected_;     ///< reject_link's, for the next take_failures
  std::vector<int> peer_fifos_;           ///< peers' FIFOs (write ends), opened on first use
  std::string link_name(int a, int b, int index) const;
  std::vector<std::string> tokens_;  ///< every rank's name token (own only, before attach)

  Options o_;
  ShmControl* own_ = nullptr;
  std::size_t staging_offset_ = 0;  // where the staging buffers start in a control segment
  std::size_t control_bytes_ = 0;
  std::vector<ShmControl*> controls_;
  std::vector<int> pids_;
  std::vector<bool> linked_;  ///< peers with an on-demand link #0 (made or accepted)
  bool own_name_linked_ = false;
  bool asymmetric_fence_ = false;  // this process is registered for membarrier
  std::uint64_t bcast_done_least_ = 0;  // the least bcast_done over the ranks, as last read
  bool broadcast_slot_free(std::uint64_t seq);
  ShmRegistry registry_;
};

}  // namespace meshmp::mesh
