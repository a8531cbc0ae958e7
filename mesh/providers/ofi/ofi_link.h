// An ofi Link (ofi_provider.h): one connected libfabric endpoint
// (FI_EP_MSG) to one peer, with a completion queue of its own.
//
// Frames -- the engine's 72-byte header and its payload -- are sent as
// messages into the peer's pre-posted receive buffers, one per slot: the
// link's tokens are exactly the receives posted at the peer (seed 003
// §5.1's flow control on a real RDMA transport), so a frame never meets an
// endpoint without a buffer. Frames that fit the provider's inject size go
// by fi_inject; larger ones from send buffers registered once. A message
// shorter than a header is the CLOSE notice: the peer rejected our data and
// closed the link (Provider::report_closed).
//
// Link::put is fi_writemsg into the buffer the peer announced in a CTS or
// RECV_READY, under the remote key its memory domain made; its completion
// comes out of the CQ as a PutCompletion. Nothing copies the payload.
#pragma once

#include <poll.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "mesh/link.h"
#include "mesh/providers/ofi/ofi_auth.h"
#include "mesh/registration_cache.h"

namespace meshmp::mesh {

class OfiProvider;

class OfiLink final : public Link {
 public:
  enum class State : std::uint8_t {
    kAwaiting,    ///< offered: the peer has not asked to connect yet
    kConnecting,  ///< fi_connect sent, or fi_accept: waiting for FI_CONNECTED
    kSuperseded,  ///< on demand: the peer's own request wins (its rank is lower); wait for it
    kUp,
    kFailed,
  };

  OfiLink(OfiProvider* p, int peer, int index, std::uint32_t slots, std::size_t payload);
  ~OfiLink() override;

  /// The dialling side: opens an endpoint from `info` (fi_getinfo for the
  /// peer's address) and sends the request. Throws on a libfabric error.
  void dial(fi_info* info, const ofi::ConnReq& req, std::string where);
  /// The listening side: opens an endpoint from the FI_CONNREQ's `info` and
  /// accepts it with `w` (replacing a dial of ours that lost, on demand).
  void accept(fi_info* info, const ofi::Welcome& w, std::string where);
  /// The connection manager's events for this link's endpoint.
  void on_connected(const void* data, std::size_t len);
  void on_shutdown();
  void on_cm_error(const std::string& what, bool refused);
  /// The peer's request won over ours (on demand): wait for it.
  void supersede();
  /// Tells the peer that this rank rejected its data (a CLOSE notice) and
  /// stops using the endpoint.
  void close_rejected();
  void fail(bool peer_gone, const std::string& why);

  State state() const { return state_; }
  fid_ep* endpoint() const { return ep_; }
  fid_cq* cq() const { return cq_; }
  /// The descriptors that signal this link's CQ, as poll(2) entries: the
  /// CQ's own descriptor (FI_WAIT_FD), or over libfabric's tcp
  /// (FI_WAIT_POLLFD, open()) the sockets in the list libfabric gives,
  /// without its signal sockets. Appended to *out; none once the endpoint
  /// is closed.
  void wait_fds(std::vector<pollfd>* out) const;
  /// Reads this link's completions (receives, sends, writes, errors); true
  /// if there were any. Sets *emptied where its last read left the queue empty.
  bool drain(bool* emptied = nullptr);
  /// The heartbeat (ofi_provider.h): sends one every timeout / 3 while
  /// none is outstanding; fails the link if one is not delivered in time.
  void beat(std::chrono::steady_clock::time_point now);

  // ---- Link ----
  int peer() const override { return peer_; }
  int index() const override { return index_; }
  bool up() override;
  std::uint32_t slots() const override { return slots_; }
  std::size_t max_payload() const override { return payload_; }
  FrameHeader* begin_send(char** payload, std::size_t payload_bytes) override;
  void end_send(std::size_t payload_bytes) override;
  bool peek(FrameHeader* h, const char** payload) override;
  void release() override;
  std::uint64_t recv_seq() const override { return recv_seq_; }
  PutStatus put(const iovec* iov, int iovcnt, std::uint64_t remote_addr, std::uint64_t rkey,
                std::uint64_t cookie) override;
  bool poll_put(PutCompletion* c) override;
  std::string describe() const override;

 private:
  /// An operation's context: libfabric's scratch space first (FI_CONTEXT2).
  struct Op {
    fi_context2 fi{};
    enum Kind : std::uint8_t { kRecv, kSend, kWrite, kBeat } kind = kRecv;
    std::uint32_t index = 0;  // kRecv, kSend: the buffer
    std::uint64_t cookie = 0;  // kWrite
    RegistrationCache::Entry* local = nullptr;  // kWrite: the source's registration (FI_MR_LOCAL)
    // A put posted in pieces (OfiProvider::write_piece): the first piece's
    // Op is the put's; every other piece's `head` points to it.
    Op* head = nullptr;
    std::uint32_t parts_left = 0;  // head: pieces not yet completed
    std::uint32_t in_flight = 0;   // head: pieces posted and not yet completed
    const char* src = nullptr;     // head: the source, its bytes, the target, how far posted
    std::size_t len = 0, posted = 0;
    std::uint64_t remote_addr = 0;
    std::uint32_t key = 0;
  };
  void open(fi_info* info);
  void close_endpoint();
  bool post_recv(std::uint32_t slot);
  /// Posts a send, reading completions while the queue is full.
  void post_send(std::uint32_t buf, std::size_t bytes);
  void on_completion(Op* op, std::size_t len);
  Op* take_write_op();
  /// fi_writemsg of [src, src+n) to remote_addr under `key`, completing `op`.
  ssize_t write(const void* src, std::size_t n, void* desc, std::uint64_t remote_addr, std::uint32_t key, Op* op,
                std::uint64_t flags);
  /// Posts the pieces of `head` not yet posted, up to kPiecesInFlight at
  /// a time; false if the link failed. Stops there or at a full queue
  /// (posted < len): poll_put() posts the rest as pieces complete.
  bool post_pieces(Op* head);
  char* recv_buf(std::uint32_t i) { return recv_area_.get() + std::size_t{i} * frame_bytes_; }
  char* send_buf(std::uint32_t i) { return send_area_.get() + std::size_t{i} * frame_bytes_; }

  OfiProvider* p_;
  int peer_, index_;
  std::uint32_t slots_;
  std::size_t payload_, frame_bytes_;
  std::string where_;
  State state_ = State::kAwaiting;
  bool on_demand_ = false, dialled_ = false;
  ofi::ConnReq req_{};  // what this side's dial sent (checks the Welcome)
  std::chrono::steady_clock::time_point deadline_{};

  fid_ep* ep_ = nullptr;
  fid_cq* cq_ = nullptr;
  int cq_fd_ = -1;         // FI_WAIT_FD's descriptor; -1 with FI_WAIT_POLLFD
  bool cq_pollfd_ = false;  // the CQ waits on a list of descriptors (FI_WAIT_POLLFD)
  mutable std::vector<pollfd> pollfds_;  // wait_fds()'s buffer for that list
  std::vector<pollfd> send_wait_;        // begin_send's: what it blocks on while every send buffer is out

  std::unique_ptr<char[]> recv_area_, send_area_;
  fid_mr* recv_mr_ = nullptr;
  fid_mr* send_mr_ = nullptr;
  std::vector<Op> recv_ops_, send_ops_;
  std::deque<std::pair<std::uint32_t, std::size_t>> arrived_;  // (slot, bytes), in order
  std::vector<std::uint32_t> send_free_;
  std::uint32_t cur_send_ = 0;
  bool holding_ = false;
  bool skip_read_ = false;  // peek: the read that brought the frames emptied the queue
  std::uint64_t send_seq_ = 0, recv_seq_ = 0;
  std::vector<std::unique_ptr<Op>> write_ops_;  // every write Op made; free ones in write_free_
  std::vector<Op*> write_free_;
  std::deque<Op*> unposted_;  // puts with pieces still to post, in order
  static constexpr std::uint32_t kPiecesInFlight = 4;  // a put's pieces in the send queue at once (2 MiB)
  std::deque<PutCompletion> completions_;
  Op beat_op_;
  bool beat_out_ = false;  // a heartbeat is not delivered yet
  std::chrono::steady_clock::time_point beat_sent_{};
};

}  // namespace meshmp::mesh
