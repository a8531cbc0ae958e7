// The ofi provider (issue 28, ARCHITECTURE.md §3): Links over libfabric's
// connected endpoints (FI_EP_MSG) with RDMA writes into registered memory
// -- on InfiniBand and RoCE libfabric's verbs provider, i.e. RC queue
// pairs, the modern form of the VI connections of seed 000 §3.4-3.9 and
// seed 003 §5.1; on these machines and in CI libfabric's tcp provider,
// which offers the same API. One endpoint per torus direction (two on an
// axis of size 2: large puts are striped over both, seed 000 §3.10) and
// endpoints to other ranks on first use (seed 004 §3).
//
// Connections are made through one passive endpoint listening on every
// address and one event queue (fi_listen, fi_connect, FI_CONNREQ,
// fi_accept, FI_CONNECTED, FI_SHUTDOWN); each request carries an
// authenticator under the job's secret (ofi_auth.h), checked before any
// endpoint is made. Addresses are IPv4 (FI_SOCKADDR_IN: IPoIB on
// InfiniBand) and chosen as the tcp provider chooses them (tcp_card.h), so
// on a mesh fabric each neighbour endpoint is bound to its cable's
// interface.
//
// The memory domain registers with fi_mr_reg: the buffers a receive
// announces to a peer (FI_REMOTE_WRITE) through a RegistrationCache per
// peer (seed 000 §3.7), so a key announced to one peer is no key for
// another, and -- where the provider needs it (FI_MR_LOCAL: verbs) -- the
// sources of writes through one more. Memory the application gets from
// allocate() (QMP_MEM_COMMS, MPI_Alloc_mem) is registered for its life.
// Where libfabric's provider pins memory (hardware), registrations no
// transfer holds are not kept: libfabric's own registration cache, which
// watches frees and unmaps (FI_MR_CACHE_MONITOR), keeps them, so a buffer
// freed and reallocated at the same address is never written through a
// stale registration.
//
// The EQ waits on a descriptor (FI_WAIT_FD), each CQ on one too or, over
// libfabric's tcp, on its endpoint's socket (FI_WAIT_POLLFD, OfiLink::open);
// the provider's epoll over them is its wait_fd(), blocked on beside shm and
// tcp. The CQs' descriptors join it only while the rank is armed to sleep.
//
// A peer that dies closes its connections (FI_SHUTDOWN, or a CQ error);
// a cable cut or a host that vanished says nothing. So each link sends a
// heartbeat: an 8-byte RDMA write with FI_DELIVERY_COMPLETE into a word the
// peer registered for it (its key on the peer's card), every timeout_ms / 3
// (MESHMP_TCP_TIMEOUT_MS, default 3 s); one that is not delivered within
// timeout_ms fails the link -- on both ends, as the peer's heartbeats go
// unanswered too. On verbs (any provider that moves data in hardware) the
// peer's adapter acknowledges the write, whether or not the peer's process
// calls into meshmp. libfabric's tcp provider acknowledges it only when the
// peer's process reads its completions: a rank computing for longer than
// the timeout would look dead, so there heartbeats are off unless
// ProviderSetup::ofi_heartbeat (MESHMP_OFI_HEARTBEAT=1) asks for them, and
// only a peer whose connection closes is noticed.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_eq.h>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mesh/provider.h"
#include "mesh/providers/link_book.h"
#include "mesh/providers/ofi/ofi_auth.h"
#include "mesh/providers/tcp/tcp_card.h"
#include "mesh/registration_cache.h"

namespace meshmp::mesh {

class OfiLink;

class OfiProvider final : public Provider, public MemoryDomain {
 public:
  /// Opens libfabric's provider `setup.ofi_provider` ("" = the first that
  /// offers connected endpoints with RDMA writes), its domain and event
  /// queue, and listens on every address. Throws std::runtime_error with
  /// libfabric's words if it cannot.
  explicit OfiProvider(const ProviderSetup& setup);
  ~OfiProvider() override;
  OfiProvider(const OfiProvider&) = delete;
  OfiProvider& operator=(const OfiProvider&) = delete;

  // ---- Provider ----
  const char* name() const override { return "ofi"; }
  /// "ofi over libfabric's <provider> (domain <name>)".
  std::string detail() const override;
  ProviderCaps caps() const override;
  std::unique_ptr<Link> offer_link(int peer, int index) override;
  std::string address_card() const override;
  void attach(const std::vector<std::string>& cards) override;
  std::unique_ptr<Link> join_link(int peer, int index) override;
  void wired() override {}
  /// As the tcp provider: every rank on a switched fabric or this host; on
  /// a mesh fabric the neighbours, and every rank when both have a node
  /// address (kernel routing, issue 19).
  bool reachable(int peer) const override;
  bool same_host(int peer) const override { return cards_.at(peer).card.host == mine_.host; }
  std::unique_ptr<Link> connect(int peer) override;
  void accept(std::vector<std::unique_ptr<Link>>* incoming) override;
  std::string check_peer(int) override { return ""; }
  void report_closed(int peer) override;
  void take_failures(std::vector<LinkFailure>* failures) override;
  std::uint32_t arm() override;
  void sleep(std::uint32_t, int timeout_ms) override;
  void disarm() override;
  int wait_fd() override { return epfd_; }
  /// Clears the kick arm() gave (the CQs' and EQ's descriptors clear as
  /// their events are read).
  void drain_wait_fd() override;
  MemoryDomain* memory_domain() override { return this; }
  HostCombine* host_combine() override { return nullptr; }

  // ---- MemoryDomain ----
  /// (nonce << 32) | the registration's 32-bit key; the key kNoKey where
  /// [buf, buf+len) cannot be registered (the sender then sends frames).
  std::uint64_t remote_key(const void* buf, std::size_t len, std::uint32_t nonce, int peer) override;
  void forget(std::uint64_t rkey) override;
  bool direct(std::uint64_t) const override { return false; }
  void* allocate(std::size_t bytes, std::size_t alignment) override;
  bool release(void* p) override;
  Usage usage() const override { return usage_; }

  // ---- for OfiLink ----
  static constexpr std::uint32_t kNoKey = 0xffffffffu;
  fid_fabric* fabric() const { return fabric_; }
  fid_domain* domain() const { return domain_; }
  const tcp::LinkKey& key() const { return key_; }
  fid_eq* eq() const { return eq_; }
  std::size_t inject_size() const { return inject_; }
  /// The largest piece a put is posted in: 0 (whole) on a hardware fabric.
  /// Over a byte stream (libfabric's tcp) one write of 1 MiB and more moves
  /// at about half the rate of the same bytes in 512 KiB writes queued
  /// back to back (bench/pingpong over libfabric tcp, 2-core VM: 2 MiB
  /// 660 -> 280 us, 4 MiB 1110 -> 555 us; 256 KiB pieces are slower, 1 MiB
  /// ones no faster than whole writes).
  std::size_t write_piece() const { return pins_ ? 0 : kWritePiece; }
  /// libfabric's tcp provider: its progress runs in the caller's thread over
  /// the endpoints' sockets, so a CQ may wait on a list of descriptors
  /// (FI_WAIT_POLLFD) and a rank sleeps on the sockets in it (OfiLink::open,
  /// OfiLink::wait_fds).
  bool socket_wait() const { return socket_wait_; }
  static constexpr std::size_t kWritePiece = std::size_t{512} << 10;
  int rank() const { return s_.rank; }
  int timeout_ms() const { return s_.timeout_ms; }
  /// Where and under which key the heartbeat write to `peer` goes; false if
  /// the peer announced none.
  bool beat_target(int peer, std::uint64_t* addr, std::uint64_t* key) const;
  /// The 8-byte source of heartbeat writes and its descriptor.
  const std::uint64_t* beat_source() const { return &beat_source_; }
  void* beat_desc() const;
  /// A heartbeat write was refused outright (the provider cannot do
  /// FI_DELIVERY_COMPLETE): no more heartbeats, said once.
  void beats_unsupported(const std::string& why);
  /// Whether [p, p+len) is mapped memory (mincore), where the provider
  /// would only find out by failing the connection (tcp: a send from an
  /// unmapped buffer); true where registration checks it (hardware) and
  /// for memory this provider allocated.
  bool readable(const void* p, std::size_t len) const;
  /// Registers [p, p+len) with `access`; nullptr if libfabric refuses.
  /// Throws nothing.
  fid_mr* register_memory(const void* p, std::size_t len, std::uint64_t access, std::string* why);
  /// The source of a write, registered for it (FI_MR_LOCAL); nullptr where
  /// the provider needs none, or it cannot be had (*ok false).
  RegistrationCache::Entry* acquire_local(const void* p, std::size_t len, bool* ok);
  void release_local(RegistrationCache::Entry* e);
  void* desc_of(RegistrationCache::Entry* e) const;
  void link_failed(int peer, bool peer_gone, const std::string& what) { book_.failures.push_back({peer, peer_gone, what}); }
  void link_opened(OfiLink* l);  // its CQ joins the wait set if the rank is armed to sleep
  void link_closing(OfiLink* l);
  void link_gone(OfiLink* l);

 private:
  struct PeerCard {
    ofi::ListenerId listener{};
    std::uint64_t beat_addr = 0, beat_key = 0;  // 0, 0: no heartbeat word
    tcp::TcpCard card;
  };
  /// Heartbeats of every link that is up, at most every 50 ms.
  void heartbeat();
  class Registrar;
  void poll_eq();
  RegistrationCache& peer_cache(int peer);
  void on_connreq(fi_info* info, const void* data, std::size_t len);
  OfiLink* link_of(fid_t fid) const;
  std::unique_ptr<OfiLink> dial(int peer, int index, bool on_demand);
  std::string interface_for(int peer, int index) const;

  ProviderSetup s_;
  tcp::LinkKey key_;
  ofi::ListenerId listener_id_;
  fi_info* info_ = nullptr;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_eq* eq_ = nullptr;
  fid_pep* pep_ = nullptr;
  int epfd_ = -1, eq_fd_ = -1, kick_fd_ = -1;
  // The CQs' descriptors in epfd_: only between arm() and disarm(), so that
  // a spinning rank's arrivals wake no epoll (see arm()).
  std::vector<int> armed_fds_;
  bool armed_ = false;
  void watch(const OfiLink* l);
  std::size_t inject_ = 0;
  bool prov_key_ = false, local_mr_ = false, rma_ = true, pins_ = false, socket_wait_ = false;
  std::size_t payload_ = 0;  // bytes per slot of its links (ProviderCaps::eager_limit)
  // Slots per link direction: the engine's credits, at most kStreamSlots
  // where slots hold a stream eager limit (4 MiB each).
  std::uint32_t slots_ = 0;
  static constexpr std::uint32_t kStreamSlots = 32;
  tcp::TcpCard mine_;
  std::vector<PeerCard> cards_;
  LinkBook<OfiLink> book_;
  std::set<std::string> nonces_seen_;  // requests admitted: a replay is refused
  unsigned rounds_ = 0;
  bool settled_ = false;  // every link up or failed, none awaited: the EQ is read every 64th round
  std::uint64_t beat_word_ = 0;        // what peers' heartbeats write into
  std::uint64_t beat_source_ = 1;      // what this rank's heartbeats write
  fid_mr* beat_mr_ = nullptr;          // beat_word_: FI_REMOTE_WRITE
  fid_mr* beat_src_mr_ = nullptr;      // beat_source_: FI_WRITE
  bool beats_ = true;
  std::chrono::steady_clock::time_point last_beat_check_{};

  std::unique_ptr<Registrar> local_registrar_;
  std::unique_ptr<RegistrationCache> local_cache_;
  std::vector<std::unique_ptr<Registrar>> peer_registrars_;
  std::vector<std::unique_ptr<RegistrationCache>> peer_caches_;
  std::unordered_multimap<std::uint64_t, std::pair<int, RegistrationCache::Entry*>> announced_;
  struct Allocation {
    std::size_t bytes = 0;
    fid_mr* mr = nullptr;
  };
  std::map<std::uintptr_t, Allocation> allocations_;
  /// The allocation holding all of [p, p+len), or nullptr.
  const Allocation* allocation_of(const void* p, std::size_t len) const;
  Usage usage_;
};

}  // namespace meshmp::mesh
