#include "mesh/providers/tcp/tcp_link.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/tcp.h>  // struct tcp_info with tcpi_snd_wnd (glibc's has not)
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mesh/providers/tcp/tcp_card.h"
#include "mesh/providers/tcp/tcp_provider.h"

namespace meshmp::mesh {

namespace {

constexpr std::uint32_t kFrameRecord = 1;
constexpr std::uint32_t kWriteRecord = 2;
constexpr std::uint32_t kCloseRecord = 3;
constexpr std::size_t kRecordHead = 8;                       // kind, payload bytes
constexpr std::size_t kFrameHead = kRecordHead + sizeof(FrameHeader);  // 80
constexpr std::size_t kWriteHead = kRecordHead + 32;         // + addr, key, length, write seq
constexpr int kMaxIov = 64;

struct WriteHead {
  std::uint32_t kind, zero;
  std::uint64_t addr, key, length, seq;
};
static_assert(sizeof(WriteHead) == kWriteHead);

bool would_block(int e) { return e == EAGAIN || e == EWOULDBLOCK; }

}  // namespace

TcpLink::TcpLink(TcpProvider* p, int peer, int index, std::uint32_t slots, std::size_t payload, std::string where)
    : p_(p), peer_(peer), index_(index), slots_(slots), payload_(payload), where_(std::move(where)) {
  out_frame_.resize(kFrameHead + payload);
  // Room for two whole frames and a good read-ahead, so a recv takes many
  // small frames at once and a frame is never split by the buffer's end.
  in_.resize(2 * (kFrameHead + payload) + 65536);
  deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(p_->connect_timeout_ms());
}

TcpLink::~TcpLink() {
  if (fd_ >= 0) {
    ::epoll_ctl(p_->epoll_fd(), EPOLL_CTL_DEL, fd_, nullptr);
    ::close(fd_);
  }
  p_->link_gone(this);
}

std::string TcpLink::describe() const {
  const int me = p_->rank();
  return "tcp " + std::to_string(me) + "<->" + std::to_string(peer_) + " #" + std::to_string(index_) +
         (where_.empty() ? "" : " (" + where_ + ")");
}

void TcpLink::fail(bool peer_gone, const std::string& why) {
  if (state_ == State::kFailed) return;
  state_ = State::kFailed;
  if (fd_ >= 0) {
    ::epoll_ctl(p_->epoll_fd(), EPOLL_CTL_DEL, fd_, nullptr);
    ::close(fd_);
    fd_ = -1;
  }
  out_.clear();
  p_->link_failed(peer_, peer_gone, describe() + ": " + why);
}

std::string TcpLink::unacknowledged(int timeout_ms) const {
  if (state_ != State::kUp || fd_ < 0) return "";
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd_, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return "";
  if (info.tcpi_last_ack_recv < static_cast<std::uint32_t>(timeout_ms)) return "";
  // The peer's last word was a zero window: it is alive and not reading (it
  // computes). Its kernel answers the window probes, but they back off
  // (0.2, 0.4 ... s), so only unanswered probes say it is gone.
  const bool window_known = len >= offsetof(tcp_info, tcpi_snd_wnd) + sizeof info.tcpi_snd_wnd;
  if (window_known && info.tcpi_snd_wnd == 0) {
    if (info.tcpi_probes < 3) return "";
  } else {
    // Bytes waiting in the kernel (sent and unacknowledged, or not sent: no
    // route to a cut cable) and no ACK for timeout_ms.
    int queued = 0;
    if (::ioctl(fd_, SIOCOUTQ, &queued) != 0) queued = 0;
    if (info.tcpi_unacked == 0 && queued <= 0) return "";
  }
  return "no acknowledgement of data sent for " + std::to_string(info.tcpi_last_ack_recv) +
         " ms (MESHMP_TCP_TIMEOUT_MS " + std::to_string(timeout_ms) + "): Connection timed out";
}

void TcpLink::close_rejected() {
  if (fd_ < 0) return;
  if (state_ == State::kUp && out_.empty()) {
    const std::uint32_t rec[2] = {kCloseRecord, 0};
    (void)!::send(fd_, rec, sizeof rec, MSG_DONTWAIT | MSG_NOSIGNAL);
  }
  ::shutdown(fd_, SHUT_RDWR);
}

void TcpLink::set_state_superseded() {
  if (fd_ >= 0) {
    ::epoll_ctl(p_->epoll_fd(), EPOLL_CTL_DEL, fd_, nullptr);
    ::close(fd_);
    fd_ = -1;
  }
  state_ = State::kSuperseded;
  deadline_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(p_->connect_timeout_ms());
}

void TcpLink::start_dial(const tcp::Dial& to, int port, bool on_demand) {
  to_ = to;
  port_ = port;
  on_demand_ = on_demand;
  state_ = State::kConnecting;
  connect_now();
}

void TcpLink::connect_now() {
  int err = 0;
  const int fd = p_->open_connection(to_, port_, &err);
  dialled_at_ = std::chrono::steady_clock::now();
  if (fd < 0) return redial_or_fail(err);
  fd_ = fd;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
  ev.data.ptr = this;
  ::epoll_ctl(p_->epoll_fd(), EPOLL_CTL_ADD, fd_, &ev);
  readable_ = writable_ = true;  // look once: the connection may be up already
}

void TcpLink::redial_or_fail(int err) {
  const bool network = err == ECONNREFUSED || err == ENETUNREACH || err == EHOSTUNREACH || err == ETIMEDOUT ||
                       err == ENETDOWN || err == EHOSTDOWN || err == ECONNRESET || err == EADDRNOTAVAIL;
  const auto now = std::chrono::steady_clock::now(), again = now + std::chrono::milliseconds(200);
  if (fd_ >= 0) {
    ::epoll_ctl(p_->epoll_fd(), EPOLL_CTL_DEL, fd_, nullptr);
    ::close(fd_);
    fd_ = -1;
  }
  last_error_ = err;
  if (network && again < deadline_) {
    redial_at_ = again;
    return;
  }
  fail(true, network ? "cannot connect within " + std::to_string(p_->connect_timeout_ms()) +
                           " ms (MESHMP_CONNECT_TIMEOUT_MS): " + std::strerror(err)
                     : std::string("cannot connect: ") + std::strerror(err));
}

void TcpLink::adopt(int fd) {
  if (fd_ >= 0) {  // our own dial lost to the peer's (on demand)
    ::epoll_ctl(p_->epoll_fd(), EPOLL_CTL_DEL, fd_, nullptr);
    ::close(fd_);
  }
  fd_ = fd;
  state_ = State::kUp;
  sockaddr_in from{};
  socklen_t len = sizeof from;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&from), &len) == 0)  // for messages: where the peer is
    where_ = "from " + tcp::ip_string(ntohl(from.sin_addr.s_addr));
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
  ev.data.ptr = this;
  ::epoll_ctl(p_->epoll_fd(), EPOLL_CTL_ADD, fd_, &ev);
  out_armed_ = false;
  readable_ = true;
}

void TcpLink::on_event(std::uint32_t events) {
  if (events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) readable_ = true;
  if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR)) writable_ = true;
}

bool TcpLink::recv_exact(void* dst, std::size_t n) {
  while (hs_have_ < n) {
    const ssize_t r = ::recv(fd_, hs_buf_ + hs_have_, n - hs_have_, MSG_DONTWAIT);
    if (r > 0) {
      hs_have_ += static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && would_block(errno)) {
      readable_ = false;
      return false;
    }
    if (r < 0 && errno == EINTR) continue;
    if (on_demand_ && peer_ < p_->rank()) {
      set_state_superseded();  // the lower rank dialled us at the same time and closed ours
      return false;
    }
    fail(true, r == 0 ? "the peer closed the connection during the handshake"
                      : std::string("handshake: ") + std::strerror(errno));
    return false;
  }
  std::memcpy(dst, hs_buf_, n);
  hs_have_ = 0;
  return true;
}

void TcpLink::advance_handshake() {
  if (state_ == State::kConnecting) {
    const auto now = std::chrono::steady_clock::now();
    if (fd_ < 0) {  // the last attempt failed: the next one when it is due
      if (now >= redial_at_) connect_now();
      return;
    }
    // SO_ERROR is 0 while a connect is still in progress: only the peer's
    // address says the connection is made (a writable event is not proof --
    // events are also made up for small link counts, tcp_provider.cc).
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      if (on_demand_ && peer_ < p_->rank() && err == ECONNRESET) return set_state_superseded();
      return redial_or_fail(err);
    }
    sockaddr_in to{};
    socklen_t to_len = sizeof to;
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&to), &to_len) != 0) {
      // No SYN-ACK for 1 s (a cable down, a full backlog): dial again rather
      // than wait for the kernel's SYN backoff (1, 3, 7, 15 ... s).
      if (now - dialled_at_ > std::chrono::seconds(1)) redial_or_fail(ETIMEDOUT);
      return;
    }
    state_ = State::kChallenge;
  }
  if (state_ == State::kChallenge) {
    if (!readable_ || !recv_exact(&challenge_, sizeof challenge_)) return;
    if (std::string why = tcp::check_challenge(challenge_); !why.empty()) return fail(false, why);
    hello_ = tcp::make_hello(p_->key(), challenge_, p_->rank(), peer_, index_, on_demand_ ? tcp::kOnDemand : 0);
    if (::send(fd_, &hello_, sizeof hello_, MSG_DONTWAIT | MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof hello_))
      return fail(true, std::string("handshake: cannot send: ") + std::strerror(errno));
    state_ = State::kWelcome;
  }
  if (state_ == State::kWelcome) {
    tcp::Welcome w;
    if (!readable_ || !recv_exact(&w, sizeof w)) return;
    if (!tcp::check_welcome(p_->key(), challenge_, hello_, w))
      return fail(false, "the listener does not hold this job's secret (wrong Welcome)");
    state_ = State::kUp;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
    ev.data.ptr = this;
    ::epoll_ctl(p_->epoll_fd(), EPOLL_CTL_MOD, fd_, &ev);
    out_armed_ = false;
  }
}

bool TcpLink::up() {
  if (state_ == State::kUp) return true;
  if (state_ == State::kConnecting || state_ == State::kChallenge || state_ == State::kWelcome) advance_handshake();
  if (state_ != State::kUp && state_ != State::kFailed && std::chrono::steady_clock::now() > deadline_) {
    const std::string within = std::to_string(p_->connect_timeout_ms()) + " ms (MESHMP_CONNECT_TIMEOUT_MS)";
    fail(true, state_ == State::kAwaiting ? "the peer did not connect within " + within
               : last_error_           ? "no connection within " + within + ", the last try: " + std::strerror(last_error_)
                                       : "no connection within " + within);
  }
  return state_ == State::kUp;
}

// ---- sending ---------------------------------------------------------------

void TcpLink::want_out(bool on) {
  if (on == out_armed_ || fd_ < 0) return;
  out_armed_ = on;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET | (on ? EPOLLOUT : 0u);
  ev.data.ptr = this;
  ::epoll_ctl(p_->epoll_fd(), EPOLL_CTL_MOD, fd_, &ev);
}

FrameHeader* TcpLink::begin_send(char** payload, std::size_t) {
  *payload = out_frame_.data() + kFrameHead;
  return reinterpret_cast<FrameHeader*>(out_frame_.data() + kRecordHead);
}

void TcpLink::end_send(std::size_t payload_bytes) {
  const std::uint32_t head[2] = {kFrameRecord, static_cast<std::uint32_t>(payload_bytes)};
  std::memcpy(out_frame_.data(), head, sizeof head);
  const std::uint64_t seq = send_seq_++;
  std::memcpy(out_frame_.data() + kRecordHead + offsetof(FrameHeader, seq), &seq, sizeof seq);
  transmit(out_frame_.data(), kFrameHead + payload_bytes);
}

void TcpLink::transmit(const char* p, std::size_t n) {
  if (state_ != State::kUp) return;
  std::size_t sent = 0;
  if (out_.empty()) {
    for (;;) {
      const ssize_t r = ::send(fd_, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (r >= 0) {
        sent = static_cast<std::size_t>(r);
        break;
      }
      if (errno == EINTR) continue;
      if (would_block(errno)) break;
      return fail(true, std::string("send: ") + std::strerror(errno));
    }
    if (sent == n) return;
  }
  OutChunk c;
  c.owned.assign(p + sent, p + n);
  c.data = c.owned.data();
  c.left = c.owned.size();
  out_.push_back(std::move(c));
  want_out(true);
}

bool TcpLink::flush_out() {
  while (!out_.empty()) {
    OutChunk& c = out_.front();
    const ssize_t r = ::send(fd_, c.data, c.left, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == EFAULT && c.owned.empty()) {
        // A put's source went bad after its record began: the promised
        // bytes go as zeros (the stream stays framed) and the put fails.
        c.owned.assign(c.left, 0);
        c.data = c.owned.data();
        c.failed = true;
        continue;
      }
      if (would_block(errno)) {
        writable_ = false;
        return true;
      }
      fail(true, std::string("send: ") + std::strerror(errno));
      return false;
    }
    c.data += r;
    c.left -= static_cast<std::size_t>(r);
    if (c.left) continue;
    if (c.failed) failed_put_ = true;
    if (c.completes_put) {
      completions_.push_back({c.cookie, failed_put_ ? PutStatus::kBadLocal : PutStatus::kDone});
      failed_put_ = false;
    }
    out_.pop_front();
  }
  want_out(false);
  return true;
}

PutStatus TcpLink::put(const iovec* iov, int iovcnt, std::uint64_t remote_addr, std::uint64_t rkey,
                       std::uint64_t cookie) {
  if (state_ == State::kFailed) return PutStatus::kPeerGone;
  if (state_ != State::kUp || iovcnt < 0 || iovcnt >= kMaxIov) return PutStatus::kUnsupported;
  std::uint64_t total = 0;
  for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
  WriteHead w{kWriteRecord, 0, remote_addr, rkey, total, write_seq_++};
  iovec v[kMaxIov];
  v[0] = {&w, sizeof w};
  for (int i = 0; i < iovcnt; ++i) v[i + 1] = iov[i];
  std::size_t sent = 0;
  if (out_.empty()) {
    msghdr m{};
    m.msg_iov = v;
    m.msg_iovlen = static_cast<std::size_t>(iovcnt + 1);
    for (;;) {
      const ssize_t r = ::sendmsg(fd_, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (r >= 0) {
        sent = static_cast<std::size_t>(r);
        break;
      }
      if (errno == EINTR) continue;
      if (would_block(errno)) break;
      if (errno == EFAULT) {  // a bad source address, before a byte left: this put fails, the link stays
        --write_seq_;
        return PutStatus::kBadLocal;
      }
      fail(true, std::string("send: ") + std::strerror(errno));
      return PutStatus::kPeerGone;
    }
    if (sent == sizeof w + total) return PutStatus::kDone;
  }
  // Queue the rest: the record head copied, the source borrowed until the
  // completion (the engine keeps it untouched until then).
  for (int i = 0; i <= iovcnt; ++i) {
    if (sent >= v[i].iov_len) {
      sent -= v[i].iov_len;
      continue;
    }
    OutChunk c;
    const char* base = static_cast<const char*>(v[i].iov_base) + sent;
    c.left = v[i].iov_len - sent;
    sent = 0;
    if (i == 0) {
      c.owned.assign(base, base + c.left);
      c.data = c.owned.data();
    } else {
      c.data = base;
    }
    out_.push_back(std::move(c));
  }
  if (out_.empty() || out_.back().completes_put) {  // nothing of this put left (an empty iov)
    OutChunk c;
    out_.push_back(std::move(c));
  }
  out_.back().completes_put = true;
  out_.back().cookie = cookie;
  want_out(true);
  return PutStatus::kInProgress;
}

bool TcpLink::poll_put(PutCompletion* c) {
  if (!out_.empty() && writable_) flush_out();
  if (completions_.empty()) return false;
  *c = completions_.front();
  completions_.pop_front();
  return true;
}

// ---- receiving ---------------------------------------------------------------

bool TcpLink::fill(std::size_t need) {
  if (!readable_) return false;
  if (in_.size() - head_ < need) {  // move the partial record to the front
    std::memmove(in_.data(), in_.data() + head_, tail_ - head_);
    tail_ -= head_;
    head_ = 0;
  }
  for (;;) {
    const std::size_t room = in_.size() - tail_;
    const ssize_t r = ::recv(fd_, in_.data() + tail_, room, MSG_DONTWAIT);
    if (r > 0) {
      tail_ += static_cast<std::size_t>(r);
      // Less than the room: the socket is drained, and the next arrival
      // raises a new edge (EPOLLET) or is found by the next round's poll,
      // so no recv() now that could only say EAGAIN -- it cost one system
      // call per message (~0.4 µs of a 3.4 µs 8-byte half round trip).
      if (static_cast<std::size_t>(r) < room) readable_ = false;
      return true;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && would_block(errno)) {
      readable_ = false;
      return false;
    }
    fail(true, r == 0 ? "the peer closed the connection" : std::string("recv: ") + std::strerror(errno));
    return false;
  }
}

bool TcpLink::continue_write() {
  while (write_left_) {
    if (!readable_) return false;
    const ssize_t r = ::recv(fd_, write_ptr_, write_left_, MSG_DONTWAIT);
    if (r > 0) {
      write_ptr_ += r;
      write_left_ -= static_cast<std::uint64_t>(r);
      if (write_left_) {  // a short read: drained, as in fill()
        readable_ = false;
        return false;
      }
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && would_block(errno)) {
      readable_ = false;
      return false;
    }
    fail(true, r == 0 ? "the peer closed the connection in the middle of a WRITE"
                      : std::string("recv: ") + std::strerror(errno));
    return false;
  }
  return true;
}

bool TcpLink::peek(FrameHeader* h, const char** payload) {
  if (state_ != State::kUp) return false;
  if (!out_.empty() && writable_ && !flush_out()) return false;
  if (held_) {  // not released: the same frame again
    std::memcpy(h, in_.data() + head_ + kRecordHead, sizeof *h);
    *payload = in_.data() + head_ + kFrameHead;
    return true;
  }
  for (;;) {
    if (write_left_ && !continue_write()) return false;
    const std::size_t avail = tail_ - head_;
    std::size_t need = kRecordHead;
    if (avail >= kRecordHead) {
      std::uint32_t head[2];
      std::memcpy(head, in_.data() + head_, sizeof head);
      if (head[0] == kFrameRecord) {
        if (head[1] > payload_) {
          fail(false, "a frame of " + std::to_string(head[1]) + " payload bytes, more than a slot's " +
                          std::to_string(payload_));
          return false;
        }
        need = kFrameHead + head[1];
        if (avail >= need) {
          std::memcpy(h, in_.data() + head_ + kRecordHead, sizeof *h);
          *payload = in_.data() + head_ + kFrameHead;
          held_ = need;
          return true;
        }
      } else if (head[0] == kWriteRecord) {
        need = kWriteHead;
        if (avail >= need) {
          WriteHead w;
          std::memcpy(&w, in_.data() + head_, sizeof w);
          std::string bad = w.zero ? "a WRITE with a nonzero reserved field"
                                   : p_->check_write(peer_, w.key, w.addr, w.length);
          if (bad.empty() && w.seq != recv_write_seq_)
            bad = "WRITE number " + std::to_string(w.seq) + ", expected " + std::to_string(recv_write_seq_);
          if (!bad.empty()) {
            fail(false, "rejected: " + bad);
            return false;
          }
          ++recv_write_seq_;
          head_ += kWriteHead;
          // What the last recv read ahead is copied; the rest comes straight in.
          const std::uint64_t ahead = std::min<std::uint64_t>(w.length, tail_ - head_);
          std::memcpy(reinterpret_cast<char*>(w.addr), in_.data() + head_, ahead);
          head_ += ahead;
          write_ptr_ = reinterpret_cast<char*>(w.addr) + ahead;
          write_left_ = w.length - ahead;
          if (head_ == tail_) head_ = tail_ = 0;
          continue;
        }
      } else if (head[0] == kCloseRecord) {
        fail(false, "the peer closed the link: it rejected data this rank sent");
        return false;
      } else {
        fail(false, "unknown record kind " + std::to_string(head[0]));
        return false;
      }
    }
    if (!fill(need)) return false;
  }
}

void TcpLink::release() {
  head_ += held_;
  held_ = 0;
  ++recv_seq_;
  if (head_ == tail_) head_ = tail_ = 0;
}

}  // namespace meshmp::mesh
