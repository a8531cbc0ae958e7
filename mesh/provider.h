// The provider seam (ARCHITECTURE.md §3): what a transport implements so the
// protocol engine can use it without knowing it -- the split of UCX's UCT
// transports from UCP's protocols, and of MPICH CH4's netmods and shm module
// from its generic device: shm (mesh/providers/shm/), tcp, and ofi
// (libfabric: verbs on InfiniBand/RoCE). A provider makes Links (link.h), may offer a memory domain
// (memory_domain.h) and a host-local combine (host_combine.h), and tells the
// engine who it can reach and whether they share this host: the engine's
// per-peer table (the address vector) is built from those answers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mesh/defaults.h"
#include "mesh/geometry.h"
#include "mesh/host_combine.h"
#include "mesh/link.h"
#include "mesh/memory_domain.h"

namespace meshmp::mesh {

/// What a provider's links can do.
struct ProviderCaps {
  bool rdma_write = false;         ///< Link::put may return something other than kUnsupported
  bool rdma_read = false;          ///< (no provider yet)
  bool registered_memory = false;  ///< memory_domain() allocates registered memory
  bool host_combine = false;       ///< host_combine() is offered
  /// The links to one peer are independent paths (two cables on an axis of
  /// size 2): the engine stripes large puts over them (channel bonding,
  /// seed 000 §3.10). Not shm's: both of its links share one memory bus.
  bool stripe = false;
  /// Messages shorter than this go eager to a peer this provider reaches
  /// (its links' max_payload()); 0: the engine's eager limit. Over a byte
  /// stream (tcp, libfabric's tcp) a rendezvous costs a round trip more than
  /// the copy it saves, up to ProviderSetup::stream_payload.
  std::size_t eager_limit = 0;
  /// A link to a rank that is not a torus neighbour is carried by the
  /// network's own routing (IP forwarding along the SDF routes meshrouted
  /// keeps on a mesh fabric), not by a direct path the cables lack.
  bool routed = false;
};

/// A link that failed under the provider (Provider::take_failures).
struct LinkFailure {
  int peer = -1;
  /// true: the peer or the path to it is gone (EOF, reset, timeout);
  /// false: it sent data this rank rejected, or rejected ours.
  bool peer_gone = false;
  std::string what;  ///< names the link and the peer ("tcp 0<->3 #0 (198.18.0.1): connection reset")
};

class Provider {
 public:
  virtual ~Provider() = default;

  /// Short name: the bootstrap key of its address card, and MESHMP_PROVIDER's value.
  virtual const char* name() const = 0;
  /// What it runs over, for MESHMP_DEBUG and MESHMP_STATS ("ofi over
  /// libfabric's verbs, domain mlx5_0"); its name where nothing more is to say.
  virtual std::string detail() const { return name(); }
  virtual ProviderCaps caps() const = 0;

  // ---- wire-up, in Engine::init, in this order ----------------------------
  /// Link #index (link.h) to torus neighbour `peer`, offered by the lower
  /// rank of the pair before the address cards are exchanged; it comes up
  /// once the peer has joined it. Throws std::runtime_error with a reason.
  virtual std::unique_ptr<Link> offer_link(int peer, int index) = 0;
  /// This rank's address card, exchanged through the Bootstrap under name().
  virtual std::string address_card() const = 0;
  /// Every rank's card, by world rank, after the fence that exchanged them.
  /// Throws std::runtime_error naming the rank whose card is malformed.
  virtual void attach(const std::vector<std::string>& cards) = 0;
  /// The link the lower rank `peer` offered. Throws if it is not there.
  virtual std::unique_ptr<Link> join_link(int peer, int index) = 0;
  /// After the fence that follows attach() on every rank (every rank has
  /// mapped what this rank's card names), before the links are joined and
  /// the last fence of the start.
  virtual void wired() = 0;

  // ---- the address vector --------------------------------------------------
  /// Whether this provider can connect to `peer` at all.
  virtual bool reachable(int peer) const = 0;
  /// Whether `peer` runs on this host (locality, for hierarchical collectives).
  virtual bool same_host(int peer) const = 0;

  // ---- links made on first use (seed 004 §3) -------------------------------
  /// Link #0 to `peer`, which need not be a neighbour; it may come up later.
  virtual std::unique_ptr<Link> connect(int peer) = 0;
  /// Appends the links peers opened to this rank since the last call
  /// (polled during progress).
  virtual void accept(std::vector<std::unique_ptr<Link>>* incoming) = 0;

  // ---- failure ---------------------------------------------------------------
  /// "" while `peer` lives; else what became of it ("process 4711 has exited").
  virtual std::string check_peer(int peer) = 0;
  /// Finalize: this rank has sent its last frame to every peer it has no
  /// link to (where ranks relay, it may still pass on other ranks' frames
  /// and answer its neighbours). A provider that can show it to peers
  /// without a link (shm: a flag in the control block) does.
  virtual void finalizing() {}
  /// Whether `peer` has shown that it finalized (see finalizing()).
  virtual bool finalized(int peer) const { (void)peer; return false; }
  /// Tells `peer`, out of band (it needs no token and no working link), that
  /// this rank rejected its data and closed the link, and wakes it.
  virtual void report_closed(int peer) = 0;
  /// Appends the links that failed since the last call: peers that closed
  /// their link to this rank (report_closed), and -- where the provider
  /// sees it (tcp) -- connections that broke or carried malformed data.
  virtual void take_failures(std::vector<LinkFailure>* failures) = 0;

  // ---- idle waiting ------------------------------------------------------------
  /// arm() announces that this rank is about to sleep and returns a value to
  /// sleep on; the caller polls once more, then sleep()s (at most
  /// `timeout_ms`) unless something arrived, then disarm()s. A peer's frame
  /// or connection request ends the sleep.
  virtual std::uint32_t arm() = 0;
  virtual void sleep(std::uint32_t seen, int timeout_ms) = 0;
  virtual void disarm() = 0;
  /// For a job that uses several providers, which must block in one place:
  /// switches this provider's wake-ups to a descriptor that becomes readable
  /// when sleep() would return (the caller epolls it with the others'
  /// between arm() and disarm(), and drains it with drain_wait_fd()), and
  /// returns it; -1 if the provider cannot.
  virtual int wait_fd() = 0;
  virtual void drain_wait_fd() = 0;

  // ---- offloads ------------------------------------------------------------------
  /// The provider's memory domain, or nullptr.
  virtual MemoryDomain* memory_domain() = 0;
  /// The host-local combine over every rank of the job, or nullptr.
  virtual HostCombine* host_combine() = 0;
};

/// What every provider is built from (Engine::init fills it in).
struct ProviderSetup {
  std::string job;            ///< the launcher's job id (not a secret)
  int rank = 0, nranks = 1;
  std::uint32_t slots = kDefaultCredits;  ///< receive slots per link direction (EngineOptions::credits)
  std::size_t payload = kDefaultEagerLimit;  ///< bytes per slot (EngineOptions::eager_limit)
  /// Bytes per slot of links over a byte stream (meshmp's tcp, ofi without
  /// hardware RDMA) where more than `payload`: messages below it go eager
  /// there (MESHMP_STREAM_EAGER_LIMIT).
  std::size_t stream_payload = 0;
  bool cma = true;            ///< shm: RDMA write by process_vm_writev
  bool shm_arena_names = false;  ///< shm: registered memory in named segments (MESHMP_SHM_ARENA_NAMES)
  std::size_t registered_limit = 0;  ///< bytes of registered memory
  std::string secret;         ///< the job's secret (Bootstrap::secret): tcp authenticates with it
  std::string host;           ///< this rank's host_identity()
  bool forced = false;        ///< MESHMP_PROVIDER named one provider: it must reach every rank
  Torus torus;                ///< the job's torus (which link runs in which direction)
  bool mesh_fabric = false;   ///< only neighbours are cabled (config fabric = "mesh")
  /// The interface carrying each direction (Direction::index()), "" where
  /// the config names none: tcp connects a neighbour link over its cable.
  std::vector<std::string> interfaces;
  int timeout_ms = 3000;      ///< tcp: a silent peer or cable fails its links after this long
  /// tcp: a link not up this long after it was made fails; a dial that
  /// fails (refused, unreachable, lost) is tried again until then.
  int connect_timeout_ms = 30000;
  /// ofi: the libfabric provider to use (MESHMP_OFI_PROVIDER, as FI_PROVIDER
  /// names them: "verbs", "tcp" ...); "" takes the first hardware one, else
  /// the first libfabric lists.
  std::string ofi_provider;
  /// ofi: heartbeats on every link (MESHMP_OFI_HEARTBEAT): -1 where the
  /// fabric answers them in hardware, 0 never, 1 always.
  int ofi_heartbeat = -1;
};

/// The providers MESHMP_PROVIDER names: "shm", "tcp", "ofi" (libfabric,
/// issue 28), or "auto"/empty (shm between ranks on one host and network
/// namespace; between the others ofi where MESHMP_OFI_PROVIDER names a
/// libfabric provider or libfabric offers a hardware one -- verbs on
/// InfiniBand/RoCE -- else tcp; seed 001 §2-3), in the
/// order the engine asks them who reaches a peer. Throws
/// std::runtime_error naming an unknown one, or saying why ofi cannot open.
std::vector<std::unique_ptr<Provider>> open_providers(const std::string& which, const ProviderSetup& setup);

}  // namespace meshmp::mesh
