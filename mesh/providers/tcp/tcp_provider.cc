#include "mesh/providers/tcp/tcp_provider.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "mesh/providers/tcp/ip_paths.h"
#include "mesh/providers/tcp/tcp_link.h"

namespace meshmp::mesh {

namespace {

constexpr std::size_t kMaxPending = 64;         // handshakes served at once; a flood drops the oldest
constexpr auto kHandshakeTime = std::chrono::seconds(30);

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error("tcp: " + what + ": " + std::strerror(errno));
}

}  // namespace

struct TcpProvider::Pending {
  int fd = -1;
  tcp::Challenge sent{};
  char buf[sizeof(tcp::Hello)];
  std::size_t have = 0;
  std::chrono::steady_clock::time_point deadline;
  ~Pending() {
    if (fd >= 0) ::close(fd);
  }
};

TcpProvider::TcpProvider(const ProviderSetup& s) : s_(s), key_(tcp::derive_key(s.secret)) {
  epfd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) throw sys_error("epoll_create1");
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw sys_error("socket");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof a;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_fd_, SOMAXCONN) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw sys_error("cannot listen");
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLET;
  ev.data.ptr = &listener_tag_;
  ::epoll_ctl(epfd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  mine_.port = ntohs(a.sin_port);
  mine_.host = s.host;
  mine_.addrs = tcp::local_addresses();
  cards_.resize(static_cast<std::size_t>(s.nranks));
  book_.on_demand.assign(static_cast<std::size_t>(s.nranks), nullptr);
}

TcpProvider::~TcpProvider() {
  pending_.clear();
  book_.accepted.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (epfd_ >= 0) ::close(epfd_);
}

ProviderCaps TcpProvider::caps() const {
  ProviderCaps c;
  c.rdma_write = true;  // WRITE records
  c.stripe = true;      // each link its own connection (cable)
  c.eager_limit = stream_payload();
  c.routed = true;  // node address to node address: the kernels forward it
  return c;
}

// An idle connection is watched by keepalive (a probe a second, failing
// after timeout_ms of silence); one with bytes in flight by check_peer.
void TcpProvider::tune(int fd) const {
  const int one = 1, idle = 1, intvl = 1, cnt = std::max(1, s_.timeout_ms / 1000);
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}

std::string TcpProvider::check_peer(int peer) {
  for (TcpLink* l : book_.live)
    if (l->peer() == peer)
      if (std::string why = l->unacknowledged(s_.timeout_ms); !why.empty()) {
        l->fail(true, why);
        return l->describe() + ": " + why;
      }
  return "";
}

void TcpProvider::attach(const std::vector<std::string>& cards) {
  if (cards.size() != cards_.size())
    throw std::runtime_error("tcp: " + std::to_string(cards.size()) + " address cards for " +
                             std::to_string(cards_.size()) + " ranks");
  for (std::size_t r = 0; r < cards.size(); ++r) cards_[r] = tcp::parse_card(cards[r], static_cast<int>(r));
}

bool TcpProvider::reachable(int peer) const { return tcp::reachable(s_, mine_, cards_.at(peer), peer); }

std::unique_ptr<TcpLink> TcpProvider::dial(int peer, int index, bool on_demand) {
  const tcp::TcpCard& pc = cards_.at(peer);
  const auto d = tcp::dial_for(s_, mine_, pc, peer, index, on_demand);
  if (!d) throw std::runtime_error("tcp: rank " + std::to_string(peer) + " has no address to connect to");
  const tcp::Dial to = *d;
  auto link = std::make_unique<TcpLink>(this, peer, index, s_.slots, stream_payload(),
                                        tcp::ip_string(to.dst) + ":" + std::to_string(pc.port));
  book_.live.push_back(link.get());
  link->start_dial(to, pc.port, on_demand);
  return link;
}

int TcpProvider::open_connection(const tcp::Dial& to, int port, int* err) const {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw sys_error("socket");
  tune(fd);
  if (to.src) {
    const int one = 1;
    ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    sockaddr_in src{};
    src.sin_family = AF_INET;
    src.sin_addr.s_addr = htonl(to.src);
    ::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src);  // a failure leaves the kernel's choice
  }
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(static_cast<std::uint16_t>(port));
  dst.sin_addr.s_addr = htonl(to.dst);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0 && errno != EINPROGRESS) {
    *err = errno;
    ::close(fd);
    return -1;
  }
  return fd;
}

std::unique_ptr<Link> TcpProvider::offer_link(int peer, int index) {
  auto link = std::make_unique<TcpLink>(this, peer, index, s_.slots, stream_payload(), "");
  book_.live.push_back(link.get());
  book_.offered[{peer, index}] = link.get();
  return link;
}

std::unique_ptr<Link> TcpProvider::join_link(int peer, int index) { return dial(peer, index, false); }

std::unique_ptr<Link> TcpProvider::connect(int peer) {
  // The peer may have connected first: then its link is the one.
  if (auto l = book_.take_accepted(peer)) return l;
  auto link = dial(peer, 0, true);
  book_.on_demand[peer] = link.get();
  return link;
}

void TcpProvider::accept(std::vector<std::unique_ptr<Link>>* incoming) {
  // With one or two links a recv() on each is as cheap as an epoll_wait and
  // saves it on every arrival (latency): poll them directly (a send only
  // where output waits), and take epoll's events (new connections,
  // handshakes) every 64th round. With none yet (a rank whose peers over
  // tcp are not neighbours, while it talks to its neighbours over shm) the
  // same 64th round serves the listener, not a system call per round.
  if (book_.live.size() <= 2 && pending_.empty() && (++rounds_ & 63) != 0) {
    for (TcpLink* l : book_.live) l->on_event(EPOLLIN | EPOLLOUT);
  } else {
    collect(0);
  }
  book_.hand_over(incoming);
}

void TcpProvider::link_gone(TcpLink* l) { book_.gone(l); }

void TcpProvider::report_closed(int peer) { book_.report_closed(peer); }

void TcpProvider::take_failures(std::vector<LinkFailure>* failures) { book_.take_failures(failures); }

void TcpProvider::collect(int timeout_ms) {
  epoll_event ev[64];
  const int n = ::epoll_wait(epfd_, ev, 64, timeout_ms);
  for (int i = 0; i < n; ++i) {
    void* p = ev[i].data.ptr;
    if (p == &listener_tag_) accept_connections();
    else if (p != &pending_tag_) static_cast<TcpLink*>(p)->on_event(ev[i].events);
  }
  if (!pending_.empty()) serve_pending();
}

void TcpProvider::accept_connections() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // EAGAIN, or out of descriptors: the rest wait in the backlog
    }
    if (pending_.size() >= kMaxPending) pending_.erase(pending_.begin());
    auto p = std::make_unique<Pending>();
    p->fd = fd;
    p->sent = tcp::make_challenge();
    p->deadline = std::chrono::steady_clock::now() + kHandshakeTime;
    tune(fd);
    if (::send(fd, &p->sent, sizeof p->sent, MSG_DONTWAIT | MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof p->sent))
      continue;  // closed by ~Pending
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
    ev.data.ptr = &pending_tag_;
    ::epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
    pending_.push_back(std::move(p));
  }
}

// Reads the Hellos that came; a connection whose Hello is wrong, or that
// sent nothing for 30 s, is closed before it touches any link.
void TcpProvider::serve_pending() {
  const auto now = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < pending_.size();) {
    Pending& p = *pending_[i];
    bool drop = now > p.deadline;
    while (!drop && p.have < sizeof p.buf) {
      const ssize_t r = ::recv(p.fd, p.buf + p.have, sizeof p.buf - p.have, MSG_DONTWAIT);
      if (r > 0) p.have += static_cast<std::size_t>(r);
      else if (r < 0 && errno == EINTR) continue;
      else {
        drop = !(r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
        break;
      }
    }
    if (!drop && p.have < sizeof p.buf) {
      ++i;
      continue;
    }
    std::unique_ptr<Pending> done = std::move(pending_[i]);
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    if (drop) continue;
    tcp::Hello h;
    std::memcpy(&h, done->buf, sizeof h);
    const int fd = done->fd;
    ::epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
    if (!tcp::check_hello(key_, done->sent, h, s_.rank, s_.nranks).empty()) continue;  // a stranger
    done->fd = -1;
    admit(fd, done->sent, h);
  }
}

void TcpProvider::admit(int fd, const tcp::Challenge& sent, const tcp::Hello& h) {
  const int peer = static_cast<int>(h.from), index = static_cast<int>(h.index);
  TcpLink* target = nullptr;
  std::unique_ptr<TcpLink> made;
  if (h.flags & tcp::kOnDemand) {
    TcpLink* mine = book_.on_demand[peer];
    if (mine && mine->state() == TcpLink::State::kUp) {
      ::close(fd);  // a second connection for a link that is up
      return;
    }
    if (mine && s_.rank < peer) {
      ::close(fd);  // both dialled at once: the lower rank's connection wins, and that is ours
      return;
    }
    if (mine) {
      target = mine;  // ours loses: take the peer's into the same link
    } else {
      made = std::make_unique<TcpLink>(this, peer, 0, s_.slots, stream_payload(), "");
      book_.live.push_back(made.get());
      target = made.get();
      book_.on_demand[peer] = target;
    }
  } else {
    auto it = book_.offered.find({peer, index});
    if (it == book_.offered.end() || it->second->state() != TcpLink::State::kAwaiting) {
      ::close(fd);
      return;
    }
    target = it->second;
    book_.offered.erase(it);
  }
  const tcp::Welcome w = tcp::make_welcome(key_, sent, h);
  if (::send(fd, &w, sizeof w, MSG_DONTWAIT | MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof w)) {
    ::close(fd);
    if (made) return;  // ~TcpLink unregisters it
    target->fail(true, "cannot answer the peer's handshake");
    return;
  }
  target->adopt(fd);
  if (made) book_.accepted.push_back(std::move(made));
}

// ---- memory domain ---------------------------------------------------------

std::uint64_t TcpProvider::remote_key(const void* buf, std::size_t len, std::uint32_t nonce, int peer) {
  std::uint32_t i;
  if (!free_regs_.empty()) {
    i = free_regs_.back();
    free_regs_.pop_back();
  } else {
    i = static_cast<std::uint32_t>(regs_.size());
    regs_.emplace_back();
  }
  regs_[i] = {reinterpret_cast<std::uintptr_t>(buf), len, peer, nonce};
  return (std::uint64_t{nonce} << 32) | (std::uint64_t{i} + 1);
}

void TcpProvider::forget(std::uint64_t rkey) {
  const std::uint64_t i = (rkey & 0xffffffffu) - 1;
  if (i >= regs_.size() || regs_[i].peer < 0 || regs_[i].nonce != rkey >> 32) return;
  regs_[i].peer = -1;
  free_regs_.push_back(static_cast<std::uint32_t>(i));
}

std::string TcpProvider::check_write(int peer, std::uint64_t rkey, std::uint64_t addr, std::uint64_t len) const {
  const std::uint64_t i = (rkey & 0xffffffffu) - 1;
  if (i >= regs_.size() || regs_[i].peer != peer || regs_[i].nonce != rkey >> 32)
    return "WRITE under key " + std::to_string(rkey) + ", which this rank did not announce to rank " +
           std::to_string(peer);
  const Registration& g = regs_[i];
  if (addr < g.base || len > g.len || addr - g.base > g.len - len)
    return "WRITE of " + std::to_string(len) + " bytes at offset " + std::to_string(addr - g.base) +
           " outside the announced " + std::to_string(g.len) + "-byte buffer";
  return "";
}

void* TcpProvider::allocate(std::size_t, std::size_t) {
  errno = ENOSYS;  // caps().registered_memory is false: the engine does not ask
  return nullptr;
}

}  // namespace meshmp::mesh
