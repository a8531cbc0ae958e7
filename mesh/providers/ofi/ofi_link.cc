#include "mesh/providers/ofi/ofi_link.h"

#include <poll.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "mesh/providers/ofi/ofi_fabric.h"
#include "mesh/providers/ofi/ofi_library.h"
#include "mesh/providers/ofi/ofi_provider.h"

namespace meshmp::mesh {

namespace {

constexpr std::size_t kHeader = sizeof(FrameHeader);
constexpr char kCloseNotice = 0;  // a 1-byte message: shorter than any frame
constexpr auto kConnectTime = std::chrono::seconds(30);

}  // namespace

OfiLink::OfiLink(OfiProvider* p, int peer, int index, std::uint32_t slots, std::size_t payload)
    : p_(p), peer_(peer), index_(index), slots_(slots), payload_(payload),
      frame_bytes_((kHeader + payload + 63) / 64 * 64), deadline_(std::chrono::steady_clock::now() + kConnectTime) {
  const std::uint32_t sends = 2 * slots;
  recv_area_.reset(new char[frame_bytes_ * slots]);
  send_area_.reset(new char[frame_bytes_ * sends]);
  std::string why;
  recv_mr_ = p_->register_memory(recv_area_.get(), frame_bytes_ * slots, FI_RECV, &why);
  if (!recv_mr_) throw std::runtime_error("ofi: cannot register the receive slots of a link to rank " +
                                          std::to_string(peer) + ": " + why);
  send_mr_ = p_->register_memory(send_area_.get(), frame_bytes_ * sends, FI_SEND, &why);
  if (!send_mr_) throw std::runtime_error("ofi: cannot register the send buffers of a link to rank " +
                                          std::to_string(peer) + ": " + why);
  recv_ops_.resize(slots);
  send_ops_.resize(sends);
  for (std::uint32_t i = 0; i < slots; ++i) recv_ops_[i].kind = Op::kRecv, recv_ops_[i].index = i;
  for (std::uint32_t i = 0; i < sends; ++i) send_ops_[i].kind = Op::kSend, send_ops_[i].index = i;
  for (std::uint32_t i = sends; i-- > 0;) send_free_.push_back(i);
  beat_op_.kind = Op::kBeat;
}

OfiLink::~OfiLink() {
  p_->link_gone(this);
  close_endpoint();
  for (auto& op : write_ops_)
    if (op->local) p_->release_local(op->local);
  if (recv_mr_) fi_close(&recv_mr_->fid);
  if (send_mr_) fi_close(&send_mr_->fid);
}

void OfiLink::open(fi_info* info) {
  // Over libfabric's tcp the CQ waits on a list of descriptors
  // (FI_WAIT_POLLFD), elsewhere on one descriptor (FI_WAIT_FD). On tcp the
  // one descriptor is an epoll of libfabric's own that holds the
  // endpoint's socket: its progress then polls through epoll_wait, and
  // every segment reaching a socket registered in an epoll runs the epoll's
  // callback in the sender's softirq. With the list its progress polls as
  // fi_pingpong's does (poll(2)), and the socket joins an epoll (the
  // provider's) only while the rank is armed to sleep. 8-byte ping-pong on
  // the 2-core VM, pinned, six interleaved runs: 4.97-5.20 µs with
  // FI_WAIT_FD, 4.31-4.63 with FI_WAIT_POLLFD, fi_pingpong 4.14-4.37.
  fi_cq_attr ca{};
  ca.size = 4 * slots_ + 64;
  ca.format = FI_CQ_FORMAT_MSG;
  ca.wait_obj = p_->socket_wait() ? FI_WAIT_POLLFD : FI_WAIT_FD;
  cq_pollfd_ = ca.wait_obj == FI_WAIT_POLLFD;
  if (int rc = fi_endpoint(p_->domain(), info, &ep_, this)) throw ofi::error("fi_endpoint", rc);
  if (int rc = fi_cq_open(p_->domain(), &ca, &cq_, nullptr)) throw ofi::error("fi_cq_open", rc);
  if (int rc = fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV)) throw ofi::error("fi_ep_bind (CQ)", rc);
  if (int rc = fi_ep_bind(ep_, &p_->eq()->fid, 0)) throw ofi::error("fi_ep_bind (EQ)", rc);
  if (int rc = fi_enable(ep_)) throw ofi::error("fi_enable", rc);
  if (!cq_pollfd_)
    if (int rc = fi_control(&cq_->fid, FI_GETWAIT, &cq_fd_)) throw ofi::error("fi_control(FI_GETWAIT) on a CQ", rc);
  p_->link_opened(this);
  for (std::uint32_t i = 0; i < slots_; ++i)
    if (!post_recv(i)) throw std::runtime_error("ofi: cannot post the receive slots of " + describe());
}

void OfiLink::close_endpoint() {
  if (ep_ || cq_) p_->link_closing(this);
  if (ep_) fi_close(&ep_->fid);
  if (cq_) fi_close(&cq_->fid);
  ep_ = nullptr;
  cq_ = nullptr;
  cq_fd_ = -1;
  arrived_.clear();
  unposted_.clear();
  holding_ = false;
  beat_out_ = false;
  send_free_.clear();
  for (std::uint32_t i = static_cast<std::uint32_t>(send_ops_.size()); i-- > 0;) send_free_.push_back(i);
}

void OfiLink::dial(fi_info* info, const ofi::ConnReq& req, std::string where) {
  where_ = std::move(where);
  on_demand_ = (req.flags & ofi::kOnDemand) != 0;
  dialled_ = true;
  req_ = req;
  state_ = State::kConnecting;
  deadline_ = std::chrono::steady_clock::now() + kConnectTime;
  open(info);
  if (int rc = fi_connect(ep_, info->dest_addr, &req_, sizeof req_)) throw ofi::error("fi_connect", rc);
}

void OfiLink::accept(fi_info* info, const ofi::Welcome& w, std::string where) {
  close_endpoint();  // on demand, our own dial lost to the peer's
  where_ = std::move(where);
  dialled_ = false;
  state_ = State::kConnecting;
  deadline_ = std::chrono::steady_clock::now() + kConnectTime;
  open(info);
  if (int rc = fi_accept(ep_, &w, sizeof w)) throw ofi::error("fi_accept", rc);
}

void OfiLink::on_connected(const void* data, std::size_t len) {
  if (state_ != State::kConnecting) return;
  if (dialled_ && !ofi::check_welcome(p_->key(), req_, data, len))
    return fail(false, "the listener does not hold this job's secret (wrong Welcome)");
  state_ = State::kUp;
}

void OfiLink::on_shutdown() {
  if (state_ == State::kFailed) return;
  fail(true, state_ == State::kUp ? "the peer shut the connection down (FI_SHUTDOWN)"
                                  : "the connection was shut down before it came up");
}

void OfiLink::on_cm_error(const std::string& what, bool refused) {
  // Both ranks dialled on first use: the higher one's request is refused
  // (the lower rank's wins); it waits for the lower rank's to arrive.
  if (refused && on_demand_ && dialled_ && p_->rank() > peer_ && state_ == State::kConnecting) return supersede();
  fail(true, what);
}

void OfiLink::supersede() {
  if (state_ == State::kUp || state_ == State::kFailed) return;
  close_endpoint();
  state_ = State::kSuperseded;
  deadline_ = std::chrono::steady_clock::now() + kConnectTime;
}

void OfiLink::close_rejected() {
  if (state_ == State::kUp && ep_) {
    const char notice = kCloseNotice;
    if (fi_inject(ep_, &notice, 1, 0) != 0) fi_shutdown(ep_, 0);
  }
  state_ = State::kFailed;  // the engine knows: no failure to report
}

void OfiLink::fail(bool peer_gone, const std::string& why) {
  if (state_ == State::kFailed) return;
  state_ = State::kFailed;
  completions_.clear();
  p_->link_failed(peer_, peer_gone, describe() + ": " + why);
}

bool OfiLink::up() {
  if (state_ == State::kUp) return true;
  if (state_ != State::kFailed && std::chrono::steady_clock::now() > deadline_)
    fail(true, state_ == State::kAwaiting ? "the peer did not connect within 30 s" : "no connection after 30 s");
  return false;
}

bool OfiLink::post_recv(std::uint32_t slot) {
  for (;;) {
    const ssize_t rc = fi_recv(ep_, recv_buf(slot), frame_bytes_, fi_mr_desc(recv_mr_), 0, &recv_ops_[slot].fi);
    if (rc == 0) return true;
    if (rc != -FI_EAGAIN) {
      fail(true, std::string("fi_recv: ") + ofi::lib().strerror(static_cast<int>(-rc)));
      return false;
    }
    if (!drain() && state_ == State::kFailed) return false;
  }
}

void OfiLink::on_completion(Op* op, std::size_t len) {
  switch (op->kind) {
    case Op::kRecv:
      arrived_.emplace_back(op->index, len);
      break;
    case Op::kSend:
      send_free_.push_back(op->index);
      break;
    case Op::kBeat:
      beat_out_ = false;
      break;
    case Op::kWrite: {
      Op* h = op->head ? op->head : op;
      if (op != h) write_free_.push_back(op);
      --h->in_flight;
      if (--h->parts_left == 0) {  // (pieces not yet posted count too)
        if (h->local) p_->release_local(h->local);
        h->local = nullptr;
        completions_.push_back({h->cookie, PutStatus::kDone});
        write_free_.push_back(h);
      }
      break;
    }
  }
}

bool OfiLink::drain(bool* emptied) {
  if (!cq_) return false;
  bool any = false;
  fi_cq_msg_entry ev[16];
  for (;;) {
    const ssize_t n = fi_cq_read(cq_, ev, 16);
    if (n > 0) {
      any = true;
      for (ssize_t i = 0; i < n; ++i) on_completion(static_cast<Op*>(ev[i].op_context), ev[i].len);
      if (n < 16) {
        if (emptied) *emptied = true;
        return any;
      }
      continue;
    }
    if (n == -FI_EAGAIN) {
      if (emptied) *emptied = true;
      return any;
    }
    if (n == -FI_EAVAIL) {
      fi_cq_err_entry err{};
      if (fi_cq_readerr(cq_, &err, 0) <= 0) return any;
      if (err.err == FI_ECANCELED) continue;  // flushed by a close
      char text[256];
      const char* said = fi_cq_strerror(cq_, err.prov_errno, err.err_data, text, sizeof text);
      fail(true, std::string("completion error: ") + ofi::lib().strerror(err.err) + " (" + (said ? said : "") + ")");
      return true;
    }
    fail(true, std::string("fi_cq_read: ") + ofi::lib().strerror(static_cast<int>(-n)));
    return true;
  }
}

void OfiLink::wait_fds(std::vector<pollfd>* out) const {
  if (!cq_) return;
  if (!cq_pollfd_) {
    if (cq_fd_ >= 0) out->push_back({cq_fd_, POLLIN, 0});
    return;
  }
  // fi_control says how many descriptors there are when the array is too
  // small (-FI_ETOOSMALL). Of the list only the sockets that carry the
  // fabric's bytes are kept: the rest are libfabric's signal sockets
  // (AF_UNIX), written only inside this thread's own calls into libfabric
  // (progress is manual, socket_wait()) and not all of them reset by
  // fi_trywait (a byte that says the list changed stays): in an epoll
  // they would keep an idle rank awake.
  for (int tries = 0; tries < 4; ++tries) {
    fi_wait_pollfd w{};
    w.nfds = pollfds_.size();
    w.fd = pollfds_.data();
    const int rc = fi_control(&cq_->fid, FI_GETWAIT, &w);
    if (rc == -FI_ETOOSMALL) {
      pollfds_.resize(w.nfds + 4);
      continue;
    }
    if (rc != 0) return;
    for (std::size_t i = 0; i < w.nfds; ++i) {
      int domain = 0;
      socklen_t len = sizeof domain;
      if (::getsockopt(pollfds_[i].fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX) continue;
      out->push_back(pollfds_[i]);
    }
    return;
  }
}

void OfiLink::beat(std::chrono::steady_clock::time_point now) {
  if (state_ != State::kUp || !ep_) return;
  const auto timeout = std::chrono::milliseconds(p_->timeout_ms());
  if (beat_out_) {
    drain();
    if (beat_out_ && now - beat_sent_ > timeout)
      fail(true, "no answer from the peer for " + std::to_string(p_->timeout_ms()) +
                     " ms (heartbeat not delivered): the peer or the path to it is gone");
    return;
  }
  if (now - beat_sent_ < timeout / 3) return;
  std::uint64_t addr, key;
  if (!p_->beat_target(peer_, &addr, &key)) return;
  const ssize_t rc = write(p_->beat_source(), sizeof(std::uint64_t), p_->beat_desc(), addr, key, &beat_op_,
                           FI_COMPLETION | FI_DELIVERY_COMPLETE);
  if (rc == 0) {
    beat_out_ = true;
    beat_sent_ = now;
  } else if (rc != -FI_EAGAIN) {
    p_->beats_unsupported(std::string("fi_writemsg with FI_DELIVERY_COMPLETE: ") +
                          ofi::lib().strerror(static_cast<int>(-rc)));
  }
}

FrameHeader* OfiLink::begin_send(char** payload, std::size_t) {
  while (send_free_.empty() && state_ == State::kUp && ep_) {
    // Every send buffer is in flight: their completions need no peer's
    // help, only the provider's progress. Read them; block briefly on the
    // CQ's descriptor between reads.
    if (drain()) continue;
    fid* f = &cq_->fid;
    if (fi_trywait(p_->fabric(), &f, 1) == FI_SUCCESS) {
      send_wait_.clear();
      wait_fds(&send_wait_);
      ::poll(send_wait_.data(), send_wait_.size(), 1);
    }
  }
  cur_send_ = send_free_.empty() ? 0 : send_free_.back();
  *payload = send_buf(cur_send_) + kHeader;
  return reinterpret_cast<FrameHeader*>(send_buf(cur_send_));
}

void OfiLink::end_send(std::size_t payload_bytes) {
  char* buf = send_buf(cur_send_);
  const std::uint64_t seq = send_seq_++;
  std::memcpy(buf + offsetof(FrameHeader, seq), &seq, sizeof seq);
  if (state_ != State::kUp || send_free_.empty()) return;
  const std::size_t bytes = kHeader + payload_bytes;
  for (;;) {
    ssize_t rc;
    if (bytes <= p_->inject_size()) {
      rc = fi_inject(ep_, buf, bytes, 0);
    } else {
      rc = fi_send(ep_, buf, bytes, fi_mr_desc(send_mr_), 0, &send_ops_[cur_send_].fi);
      if (rc == 0) send_free_.pop_back();
    }
    if (rc == 0) return;
    if (rc != -FI_EAGAIN) return fail(true, std::string("fi_send: ") + ofi::lib().strerror(static_cast<int>(-rc)));
    drain();
    if (state_ != State::kUp) return;
  }
}

bool OfiLink::peek(FrameHeader* h, const char** payload) {
  if (state_ != State::kUp) return false;
  if (arrived_.empty()) {
    // The engine peeks again after the last frame it took. If the read that
    // brought those frames left the queue empty, another read now would cost
    // the provider's progress (a system call on libfabric's tcp) between the
    // frame and the application's answer: the next round reads instead.
    if (skip_read_) {
      skip_read_ = false;
      return false;
    }
    if (!drain(&skip_read_)) return false;
  }
  if (arrived_.empty() || state_ != State::kUp) return false;
  const auto [slot, len] = arrived_.front();
  if (len < kHeader) {
    fail(false, "the peer rejected our data and closed the link");
    return false;
  }
  std::memcpy(h, recv_buf(slot), sizeof *h);
  *payload = recv_buf(slot) + kHeader;
  holding_ = true;
  return true;
}

void OfiLink::release() {
  if (!holding_) return;
  holding_ = false;
  const std::uint32_t slot = arrived_.front().first;
  arrived_.pop_front();
  ++recv_seq_;
  post_recv(slot);
}

PutStatus OfiLink::put(const iovec* iov, int iovcnt, std::uint64_t remote_addr, std::uint64_t rkey,
                       std::uint64_t cookie) {
  if (state_ != State::kUp) return PutStatus::kPeerGone;
  const std::uint32_t key = static_cast<std::uint32_t>(rkey);
  if (key == OfiProvider::kNoKey || !p_->caps().rdma_write || iovcnt != 1) return PutStatus::kUnsupported;
  if (iov[0].iov_len == 0) return PutStatus::kDone;
  if (!p_->readable(iov[0].iov_base, iov[0].iov_len)) return PutStatus::kBadLocal;
  bool ok = true;
  RegistrationCache::Entry* local = p_->acquire_local(iov[0].iov_base, iov[0].iov_len, &ok);
  if (!ok) return PutStatus::kBadLocal;
  const std::size_t len = iov[0].iov_len, piece = p_->write_piece() ? p_->write_piece() : len;
  Op* head = take_write_op();
  head->cookie = cookie;
  head->local = local;
  head->src = static_cast<const char*>(iov[0].iov_base);
  head->len = len;
  head->posted = 0;
  head->remote_addr = remote_addr;
  head->key = key;
  head->parts_left = static_cast<std::uint32_t>((len + piece - 1) / piece);
  head->in_flight = 0;
  const bool up = post_pieces(head);
  if (head->posted == 0) {  // nothing went: a full queue (the engine tries again later) or a failed link
    if (local) p_->release_local(local);
    head->local = nullptr;
    write_free_.push_back(head);
    if (!up) return PutStatus::kPeerGone;
    drain();
    return PutStatus::kNoResource;
  }
  if (!up) return PutStatus::kPeerGone;  // (the posted pieces' registration goes with the link)
  if (head->posted < len) unposted_.push_back(head);
  return PutStatus::kInProgress;
}

ssize_t OfiLink::write(const void* src, std::size_t n, void* desc, std::uint64_t remote_addr, std::uint32_t key,
                       Op* op, std::uint64_t flags) {
  iovec iov{const_cast<void*>(src), n};
  fi_rma_iov rma{remote_addr, n, key};
  fi_msg_rma msg{};
  msg.msg_iov = &iov;
  msg.desc = &desc;
  msg.iov_count = 1;
  msg.rma_iov = &rma;
  msg.rma_iov_count = 1;
  msg.context = &op->fi;
  return fi_writemsg(ep_, &msg, flags);
}

OfiLink::Op* OfiLink::take_write_op() {
  if (write_free_.empty()) {
    write_ops_.push_back(std::make_unique<Op>());
    write_ops_.back()->kind = Op::kWrite;
    return write_ops_.back().get();
  }
  Op* op = write_free_.back();
  write_free_.pop_back();
  return op;
}

bool OfiLink::post_pieces(Op* head) {
  const std::size_t piece = p_->write_piece() ? p_->write_piece() : head->len;
  void* desc = p_->desc_of(head->local);
  while (head->posted < head->len && head->in_flight < kPiecesInFlight) {
    Op* op = head->posted == 0 ? head : take_write_op();
    op->head = op == head ? nullptr : head;
    const std::size_t n = std::min(piece, head->len - head->posted);
    const ssize_t rc =
        write(head->src + head->posted, n, desc, head->remote_addr + head->posted, head->key, op, FI_COMPLETION);
    if (rc == 0) {
      head->posted += n;
      ++head->in_flight;
      continue;
    }
    if (op != head) write_free_.push_back(op);
    if (rc == -FI_EAGAIN) return true;
    fail(true, std::string("fi_writemsg: ") + ofi::lib().strerror(static_cast<int>(-rc)));
    return false;
  }
  return true;
}

bool OfiLink::poll_put(PutCompletion* c) {
  while (!unposted_.empty() && state_ == State::kUp) {
    Op* head = unposted_.front();
    if (!post_pieces(head)) return false;
    if (head->posted < head->len) break;
    unposted_.pop_front();
  }
  if (completions_.empty() && state_ == State::kUp) drain();
  if (completions_.empty()) return false;
  *c = completions_.front();
  completions_.pop_front();
  return true;
}

std::string OfiLink::describe() const {
  return std::string("ofi ") + std::to_string(p_->rank()) + "<->" + std::to_string(peer_) + " #" +
         std::to_string(index_) + (where_.empty() ? "" : " (" + where_ + ")");
}

}  // namespace meshmp::mesh
