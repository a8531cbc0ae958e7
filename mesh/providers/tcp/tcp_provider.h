// The tcp provider (issue 17, ARCHITECTURE.md §3's tcp row): Links between
// hosts over TCP, one connection per link -- per torus direction, so on an
// axis of size 2 the + and - links are two connections (two cables on a
// mesh, seed 003 §3) and large puts are striped over both (seed 000 §3.10).
//
// A link's byte stream carries records (tcp_link.h): FRAMEs (the engine's
// 72-byte header and its payload, read into a receive buffer the link owns;
// the engine's tokens bound how many are in flight exactly as on shm) and
// WRITEs -- the RDMA write of this provider: key, address, length and the
// bytes, which the receiver recv()s straight into the registered region
// after checking that the key is one it announced to that peer and that the
// bytes fall inside it. The memory domain here is that table of announced
// receive buffers.
//
// Every connection is authenticated (tcp_auth.h) before it can touch any
// state; a listener serves handshakes without blocking, drops a stranger at
// the first bad byte and a silent one after 30 s. TCP_NODELAY; keepalive and
// TCP_USER_TIMEOUT fail the links of a peer or cable that vanished within
// ProviderSetup::timeout_ms. Idle waiting is an epoll over the listener and
// every socket (edge-triggered: an arrival is a doorbell), which is also
// the descriptor a job with shm beside tcp blocks on (wait_fd()).
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mesh/provider.h"
#include "mesh/providers/link_book.h"
#include "mesh/providers/tcp/tcp_auth.h"
#include "mesh/providers/tcp/tcp_card.h"

namespace meshmp::mesh {

class TcpLink;

class TcpProvider final : public Provider, public MemoryDomain {
 public:
  /// Listens on every address (an ephemeral port). Throws
  /// std::runtime_error if the job has no secret or no socket can be made.
  explicit TcpProvider(const ProviderSetup& setup);
  ~TcpProvider() override;
  TcpProvider(const TcpProvider&) = delete;
  TcpProvider& operator=(const TcpProvider&) = delete;

  // ---- Provider ----
  const char* name() const override { return "tcp"; }
  ProviderCaps caps() const override;
  /// Waits for the neighbour to connect (the higher rank of a pair dials).
  std::unique_ptr<Link> offer_link(int peer, int index) override;
  std::string address_card() const override { return encode_card(mine_); }
  void attach(const std::vector<std::string>& cards) override;
  /// Dials the lower rank's link #index over the cable of its direction.
  std::unique_ptr<Link> join_link(int peer, int index) override;
  void wired() override {}
  /// tcp::reachable() (ip_paths.h).
  bool reachable(int peer) const override;
  bool same_host(int peer) const override { return cards_.at(peer).host == mine_.host; }
  std::unique_ptr<Link> connect(int peer) override;
  void accept(std::vector<std::unique_ptr<Link>>* incoming) override;
  /// tcp sees no process: a dead peer shows as a failed link (take_failures).
  /// A link to `peer` whose sent bytes have had no acknowledgement for
  /// timeout_ms (a cut cable, a dead host): TCP_INFO, asked every 100 ms
  /// while the engine waits. Not TCP_USER_TIMEOUT, which Linux also applies
  /// to a zero window: a live peer that computes instead of reading would
  /// lose its link (issue 29).
  std::string check_peer(int peer) override;
  /// Shuts down every connection to `peer`: it reads end-of-stream.
  void report_closed(int peer) override;
  void take_failures(std::vector<LinkFailure>* failures) override;
  std::uint32_t arm() override { return 0; }
  void sleep(std::uint32_t, int timeout_ms) override { collect(timeout_ms); }
  void disarm() override {}
  int wait_fd() override { return epfd_; }
  void drain_wait_fd() override { collect(0); }
  MemoryDomain* memory_domain() override { return this; }
  HostCombine* host_combine() override { return nullptr; }

  // ---- MemoryDomain: the receive buffers announced to peers ----
  /// Records [buf, buf+len) as writable by `peer`; the key is the record's
  /// index + 1 with `nonce` in the upper half.
  std::uint64_t remote_key(const void* buf, std::size_t len, std::uint32_t nonce, int peer) override;
  void forget(std::uint64_t rkey) override;
  bool direct(std::uint64_t) const override { return false; }
  void* allocate(std::size_t, std::size_t) override;
  bool release(void*) override { return false; }
  Usage usage() const override { return {}; }

  // ---- for TcpLink ----
  /// "" if a WRITE of `len` bytes at `addr` from `peer` under `rkey` falls
  /// inside a buffer announced to that peer; else what is wrong.
  std::string check_write(int peer, std::uint64_t rkey, std::uint64_t addr, std::uint64_t len) const;
  void link_failed(int peer, bool peer_gone, const std::string& what) { book_.failures.push_back({peer, peer_gone, what}); }
  void link_gone(TcpLink* l);
  int epoll_fd() const { return epfd_; }
  int rank() const { return s_.rank; }
  const tcp::LinkKey& key() const { return key_; }
  int timeout_ms() const { return s_.timeout_ms; }
  int connect_timeout_ms() const { return s_.connect_timeout_ms; }
  /// A tuned non-blocking socket connecting from to.src (if set) to
  /// to.dst:port; -1 with *err set if connect() failed at once.
  int open_connection(const tcp::Dial& to, int port, int* err) const;
  /// Applies TCP_NODELAY, keepalive and TCP_USER_TIMEOUT to a link's socket.
  void tune(int fd) const;

 private:
  /// Bytes per slot of its links (ProviderCaps::eager_limit): a byte stream.
  std::size_t stream_payload() const { return std::max(s_.payload, s_.stream_payload); }
  struct Pending;  // an accepted connection whose Hello has not come yet
  /// Takes epoll's events (waiting up to `timeout_ms`), accepts
  /// connections and serves pending handshakes.
  void collect(int timeout_ms);
  void accept_connections();
  void serve_pending();
  /// A verified Hello on `fd`: hands the connection to its link, or closes it.
  void admit(int fd, const tcp::Challenge& sent, const tcp::Hello& h);
  std::unique_ptr<TcpLink> dial(int peer, int index, bool on_demand);

  ProviderSetup s_;
  tcp::LinkKey key_;
  int listen_fd_ = -1;
  int epfd_ = -1;
  tcp::TcpCard mine_;
  std::vector<tcp::TcpCard> cards_;
  LinkBook<TcpLink> book_;
  std::vector<std::unique_ptr<Pending>> pending_;
  char listener_tag_ = 0, pending_tag_ = 0;  // epoll data of the listener and of pending handshakes
  unsigned rounds_ = 0;                       // accept() calls: progress rounds

  struct Registration {
    std::uintptr_t base = 0;
    std::size_t len = 0;
    int peer = -1;
    std::uint32_t nonce = 0;
  };
  std::vector<Registration> regs_;
  std::vector<std::uint32_t> free_regs_;
};

}  // namespace meshmp::mesh
