// A tcp Link (tcp_provider.h): one authenticated TCP connection to one peer.
//
// Records on the stream, in host byte order (the handshake refuses a peer of
// the other order):
//   FRAME  {u32 kind = 1, u32 payload bytes} + FrameHeader (72 B) + payload
//   WRITE  {u32 kind = 2, u32 0, u64 addr, u64 key, u64 length, u64 write seq} + bytes
//   CLOSE  {u32 kind = 3, u32 0}: the sender rejected our data and closes the link
// A FRAME's payload is at most the slot size; a WRITE's bytes are received
// straight into the registered region (no intermediate copy beyond what an
// earlier recv had already read ahead). A short read waits for more; a bad
// kind or length, a WRITE outside a region announced to this peer, or a
// gap in the write sequence fails the link (the engine checks the frames'
// own sequence numbers): untrusted input never crashes or writes out of
// bounds.
//
// Sends go straight to the socket; what the kernel does not take waits in
// the link's out queue in order -- copied for frames, borrowed for puts,
// whose completion (poll_put) comes when their last byte is handed over.
#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "mesh/link.h"
#include "mesh/providers/tcp/tcp_auth.h"
#include "mesh/providers/tcp/tcp_card.h"

namespace meshmp::mesh {

class TcpProvider;

class TcpLink final : public Link {
 public:
  enum class State : std::uint8_t {
    kAwaiting,    ///< offered: the peer has not dialled yet
    kConnecting,  ///< dialled: the TCP connection is not established
    kChallenge,   ///< waiting for the listener's challenge
    kWelcome,     ///< Hello sent, waiting for the Welcome
    kSuperseded,  ///< on-demand: the peer's own connection wins (its rank is lower); wait for it
    kUp,
    kFailed,
  };

  TcpLink(TcpProvider* p, int peer, int index, std::uint32_t slots, std::size_t payload, std::string where);
  ~TcpLink() override;

  /// The dialling side: connects to `to` (port `port`); the handshake runs
  /// in up(). A dial refused, unreachable or unanswered (no SYN-ACK within
  /// 1 s) is made again every 200 ms until the link's deadline
  /// (MESHMP_CONNECT_TIMEOUT_MS after it was made): a cable or peer that
  /// comes within that time is connected, one that does not fails the link.
  void start_dial(const tcp::Dial& to, int port, bool on_demand);
  /// The listening side: `fd` passed the handshake.
  void adopt(int fd);
  /// epoll's events for this link's socket.
  void on_event(std::uint32_t events);
  /// Fails the link: closes the socket and tells the provider why.
  void fail(bool peer_gone, const std::string& why);
  /// Tells the peer this rank rejected its data (a CLOSE record) and shuts
  /// the connection (Provider::report_closed).
  void close_rejected();
  State state() const { return state_; }
  /// "" unless bytes queued on an up connection (sent or not) have had no
  /// acknowledgement for more than `timeout_ms` (TCP_INFO, SIOCOUTQ): then why.
  std::string unacknowledged(int timeout_ms) const;
  void supersede() { if (state_ != State::kUp) set_state_superseded(); }
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }

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
  struct OutChunk {
    std::vector<char> owned;      // a frame's bytes (copied), or empty
    const char* data = nullptr;   // what is left to send (into `owned` or a put's source)
    std::size_t left = 0;
    bool completes_put = false;   // the last chunk of a put: its completion follows
    bool failed = false;          // a put's bytes that could not be read (sent as zeros)
    std::uint64_t cookie = 0;
  };
  void set_state_superseded();
  void advance_handshake();
  void connect_now();
  /// A dial failed with `err`: again in 200 ms if that is a network's
  /// answer and the deadline allows, else the link fails.
  void redial_or_fail(int err);
  /// Sends `n` bytes now, queueing (copied) what the socket does not take.
  void transmit(const char* p, std::size_t n);
  /// Sends from the out queue; false if the link failed.
  bool flush_out();
  void want_out(bool on);
  /// Reads into the receive buffer; false if nothing came (or it failed).
  bool fill(std::size_t need);
  /// Continues a WRITE straight into the registered region; false if the
  /// socket has no more bytes now.
  bool continue_write();
  bool recv_exact(void* dst, std::size_t n);  // handshake messages

  TcpProvider* p_;
  int peer_, index_;
  std::uint32_t slots_;
  std::size_t payload_;
  std::string where_;  // the peer's address, for messages
  int fd_ = -1;
  State state_ = State::kAwaiting;
  bool on_demand_ = false;
  bool readable_ = false, writable_ = false, out_armed_ = false;
  std::chrono::steady_clock::time_point deadline_{};
  tcp::Dial to_{};                                      // the dialling side: where, and
  int port_ = 0;
  std::chrono::steady_clock::time_point dialled_at_{};  // this attempt's start, or
  std::chrono::steady_clock::time_point redial_at_{};   // (no socket) the next attempt's
  int last_error_ = 0;                                  // the last failed attempt's errno
  tcp::Challenge challenge_{};
  tcp::Hello hello_{};
  char hs_buf_[sizeof(tcp::Hello)];
  std::size_t hs_have_ = 0;

  std::vector<char> out_frame_;  // record header + FrameHeader + payload being built
  std::deque<OutChunk> out_;
  std::deque<PutCompletion> completions_;
  bool failed_put_ = false;  // a chunk of the put being flushed could not be read
  std::uint64_t send_seq_ = 0, write_seq_ = 0;

  std::vector<char> in_;
  std::size_t head_ = 0, tail_ = 0;
  std::size_t held_ = 0;  // bytes of the frame peek() returned, until release()
  std::uint64_t recv_seq_ = 0, recv_write_seq_ = 0;
  char* write_ptr_ = nullptr;  // a WRITE in progress: where its next bytes go
  std::uint64_t write_left_ = 0;
};

}  // namespace meshmp::mesh
