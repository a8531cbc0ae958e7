// The shm provider: Links between ranks on one host (ARCHITECTURE.md §3).
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

#include "mesh/link.h"
#include "mesh/shm_registry.h"

namespace meshmp::mesh {

struct ShmControl;

class ShmProvider {
 public:
  struct Options {
    std::string job;      ///< job id shared by all ranks (hex; not a secret)
    std::string token;        ///< this rank's random token for control and link names (random_token.h)
    std::string arena_token;  ///< ... and another for its registered-memory arenas, whose names stay
                              ///< listed while the job runs (so they give away nothing of `token`)
    int rank = 0;
    int nranks = 1;
    std::uint32_t slots = 32;     ///< receive slots per link direction
    std::size_t payload = 16384;  ///< bytes per slot (>= eager limit)
    bool cma = true;              ///< use process_vm_writev for RDMA write
    std::size_t registered_limit = 0;  ///< bytes of registered memory (the engine's option)
  };

  explicit ShmProvider(const Options& o);
  ~ShmProvider();
  ShmProvider(const ShmProvider&) = delete;
  ShmProvider& operator=(const ShmProvider&) = delete;

  /// After every rank has created its control block (a launcher fence that
  /// carried every rank's pid and name tokens): maps all of them. Throws
  /// std::runtime_error naming the segment.
  void attach_controls(const std::vector<int>& pids, const std::vector<std::string>& tokens,
                       const std::vector<std::string>& arena_tokens);
  /// After every rank has attached (a second fence): removes this rank's
  /// control block name.
  void unlink_own_control();

  /// Creates the segment of link #index to `peer` (the creator side). The
  /// link is up once the peer has opened it. If the name exists: nullptr
  /// when `peer_may_have_made_it` (a simultaneous connect), else throws.
  std::unique_ptr<Link> create_link(int peer, int index, bool peer_may_have_made_it = false);
  /// Opens the segment a peer created; nullptr if it is not there or not
  /// initialised yet. Unlinks the name once mapped.
  std::unique_ptr<Link> open_link(int peer, int index);
  /// On-demand connection to a non-neighbour: creates link #0 (or opens it if
  /// the peer created it first) and asks the peer to open it.
  std::unique_ptr<Link> connect(int peer);
  /// Appends the peers that asked this rank to connect since the last call.
  void take_connect_requests(std::vector<int>* peers);

  /// Tells `peer` that this rank has closed the link to it (it sent data
  /// this rank rejected), with a reason code > 0, through the peer's control
  /// block -- which needs no token and no working ring -- and wakes it.
  void close_link(int peer, std::uint8_t reason);
  /// Appends (peer, reason) for the peers that closed their link to this
  /// rank since the last call.
  void take_closed_links(std::vector<std::pair<int, std::uint8_t>>* closed);

  /// Doorbell. arm() announces that this rank is about to sleep and returns
  /// the doorbell value to sleep on; the caller re-polls its links, then
  /// sleep()s unless something arrived, then disarm()s. The store-load
  /// ordering this needs on both sides (sender: publish, then read
  /// `sleeping`; sleeper: set `sleeping`, then re-poll) is an asymmetric
  /// fence where the kernel has membarrier(2) GLOBAL_EXPEDITED: the rare
  /// sleeper pays a system call so the sender, on every message, pays only a
  /// compiler barrier. Without it both sides use a full fence.
  std::uint32_t arm();
  void sleep(std::uint32_t seen, int timeout_ms);
  void disarm();
  /// Wakes `peer` if it sleeps.
  void wake(int peer);

  /// Host-local combine (seed 002 §5.2's flat tree: one writer per slot,
  /// each on its own cache lines). smp_arrive() makes `bytes` (<=
  /// kSmpSlotBytes) of this rank's data visible as contribution number `seq`
  /// and returns true if this rank is the last of the job to arrive at
  /// `seq`. That rank reads every contribution with smp_contribution()
  /// (nullptr if rank r's is not there, which the last arrival rules out),
  /// and smp_release()s the result (nullptr: it could not, and every waiter
  /// gets kFailed) with the largest contribution's size, waking sleepers; the
  /// others poll smp_released(), which copies the result once it is out and
  /// says kTruncated to a rank that contributed fewer bytes than another (the
  /// ranks' counts differ: MPI_ERR_TRUNCATE). Where §5.2 has
  /// a fixed master poll every flag, the last arrival releases: a waiter
  /// reads one cache line per poll, and with more ranks than cores no release
  /// waits for a master to be scheduled. Two buffers alternate by seq parity,
  /// which is safe because no rank can arrive at seq+2 before every rank has
  /// arrived at seq+1, which each does only after seq was released.
  static constexpr std::size_t kSmpSlotBytes = 1024;
  static constexpr std::uint64_t kSmpFailed = ~std::uint64_t{0};  // result `bytes` of a failed combine
  enum class SmpState { kPending, kReleased, kTruncated, kFailed };
  bool smp_arrive(std::uint64_t seq, const void* data, std::size_t bytes);
  /// Rank r's contribution (kSmpSlotBytes readable) and, in *bytes, its size
  /// as r gave it (at most kSmpSlotBytes).
  const char* smp_contribution(int r, std::uint64_t seq, std::size_t* bytes) const;
  void smp_release(std::uint64_t seq, const void* result, std::size_t bytes, std::size_t largest);
  SmpState smp_released(std::uint64_t seq, void* out, std::size_t bytes) const;

  /// This rank's registered memory and its mappings of the peers' (QMP_MEM_COMMS).
  ShmRegistry& registry() { return registry_; }

  int pid_of(int peer) const { return pids_.at(peer); }
  int rank() const { return o_.rank; }
  bool cma_enabled() const { return o_.cma; }

 private:
  std::string control_name(int rank) const;
  std::string link_name(int a, int b, int index) const;
  std::vector<std::string> tokens_;  ///< every rank's name token (own only, before attach)

  Options o_;
  ShmControl* own_ = nullptr;
  std::size_t control_bytes_ = 0;
  std::vector<ShmControl*> controls_;
  std::vector<int> pids_;
  bool own_name_linked_ = false;
  bool asymmetric_fence_ = false;  // this process is registered for membarrier
  ShmRegistry registry_;
};

}  // namespace meshmp::mesh
