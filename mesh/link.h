// The Link: one reliable, ordered, bidirectional connection to one peer -- the
// VI connection of seed 003 §5.1 / seed 000 §3.4 (ARCHITECTURE.md §3). A
// provider (shm now; tcp and verbs later) implements it. The protocol engine
// above owns tokens, matching and rendezvous; a Link only moves frames and
// performs RDMA writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "mesh/wire.h"

namespace meshmp::mesh {

class Link {
 public:
  virtual ~Link() = default;

  /// World rank at the other end.
  virtual int peer() const = 0;
  /// Whether the connection is established; polls a pending connection. Sends
  /// issued before then wait in the engine's FIFO (seed 004 §3.4).
  virtual bool up() = 0;
  /// Receive slots per direction (the token count) and bytes per slot.
  virtual std::uint32_t slots() const = 0;
  virtual std::size_t max_payload() const = 0;

  /// Send side. The caller holds a token. begin_send() returns the header to
  /// fill and sets *payload to max_payload() bytes after it; end_send()
  /// stamps the sequence number, publishes the frame and wakes the peer.
  virtual FrameHeader* begin_send(char** payload) = 0;
  virtual void end_send() = 0;

  /// Receive side. If a frame is waiting, copies its header into *h (the
  /// shared copy may change under us; only the private copy is trusted),
  /// points *payload at its payload and returns true. The frame stays until
  /// release().
  virtual bool peek(FrameHeader* h, const char** payload) = 0;
  virtual void release() = 0;
  /// Sequence number the next received frame must carry.
  virtual std::uint64_t recv_seq() const = 0;

  /// RDMA write of `len` bytes to `remote_addr` in the peer (a buffer the peer
  /// announced in a CTS or RECV_READY with registration key `key`, see
  /// shm_registry.h). Returns 0, or an errno value; EPERM / ENOSYS mean the OS
  /// refuses and the caller falls back to DATA frames; EFAULT means the
  /// address/key pair is not one the peer registered (the peer's fault);
  /// EIO means the bytes could not be moved (a bad address on either side:
  /// the transfer fails, the link stays); ESRCH means the peer is gone.
  virtual int rdma_write(std::uint64_t remote_addr, std::uint64_t key, const void* src, std::size_t len) = 0;

  /// Short description for messages and statistics ("shm 0<->3 #1").
  virtual std::string describe() const = 0;
};

}  // namespace meshmp::mesh
