// The Link: one reliable, ordered, bidirectional connection to one peer -- the
// VI connection of seed 003 §5.1 / seed 000 §3.4 (ARCHITECTURE.md §3). A
// provider (mesh/provider.h: shm, tcp, ofi) implements it. The
// protocol engine above owns tokens, matching and rendezvous; a Link only
// moves frames and performs RDMA writes ("puts"), like a UCT endpoint.
#pragma once

#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "mesh/wire.h"

namespace meshmp::mesh {

/// Outcome of Link::put, and of a put that completes later.
enum class PutStatus : std::uint8_t {
  kDone,         ///< the bytes are in the peer's buffer; the source may be reused
  kInProgress,   ///< accepted: a PutCompletion with the same cookie follows (poll_put)
  kNoResource,   ///< nothing was done; try again later (a full queue, no descriptor)
  kUnsupported,  ///< this link cannot put (e.g. the OS refuses it): send the bytes in frames
  kBadRemote,    ///< the remote address/key is not one the peer registered (the peer's fault)
  kBadLocal,     ///< the bytes could not be moved (a bad address on either side): this
                 ///< transfer fails, the link stays
  kPeerGone,     ///< the peer no longer exists
};
const char* put_status_name(PutStatus s);

/// A put that returned kInProgress, finished: `status` is never kInProgress
/// or kNoResource.
struct PutCompletion {
  std::uint64_t cookie = 0;
  PutStatus status = PutStatus::kDone;
};

class Link {
 public:
  virtual ~Link() = default;

  /// World rank at the other end.
  virtual int peer() const = 0;
  /// Which link to this peer: 0, or 1 for the second direction on an axis of
  /// size 2 (ARCHITECTURE.md §3).
  virtual int index() const = 0;
  /// Whether the connection is established; polls a pending connection. Sends
  /// issued before then wait in the engine's FIFO (seed 004 §3.4).
  virtual bool up() = 0;
  /// Receive slots per direction (the token count) and bytes per slot.
  virtual std::uint32_t slots() const = 0;
  virtual std::size_t max_payload() const = 0;

  /// Send side. The caller holds a token. begin_send() returns the header to
  /// fill and sets *payload to room for the `payload_bytes` (at most
  /// max_payload()) the frame will carry -- where a provider puts the frame
  /// may depend on its size (shm: a small one in a cell); end_send()
  /// stamps the sequence number, publishes the frame with the first
  /// `payload_bytes` of its payload (what a stream provider transmits) and
  /// wakes the peer.
  virtual FrameHeader* begin_send(char** payload, std::size_t payload_bytes) = 0;
  virtual void end_send(std::size_t payload_bytes) = 0;

  /// Receive side. If a frame is waiting, copies its header into *h (the
  /// shared copy may change under us; only the private copy is trusted),
  /// points *payload at its payload and returns true. The frame stays until
  /// release().
  virtual bool peek(FrameHeader* h, const char** payload) = 0;
  /// Whether peek() would find a frame, without copying its header: the
  /// engine's idle poll asks this of every link on every round.
  virtual bool has_frame() {
    FrameHeader h;
    const char* payload;
    return peek(&h, &payload);
  }
  virtual void release() = 0;
  /// Sequence number the next received frame must carry.
  virtual std::uint64_t recv_seq() const = 0;

  /// RDMA write (seed 000 §3.6.2, §3.9) of the `iovcnt` local pieces `iov`,
  /// back to back, to `remote_addr` in the peer: a buffer the peer announced
  /// in a CTS or RECV_READY with the packed remote key `rkey` (made by its
  /// MemoryDomain; opaque here). Returns kDone when the bytes are there, or
  /// kInProgress, after which one PutCompletion carrying `cookie` comes out
  /// of poll_put(); the source must stay untouched until then. Any other
  /// status means nothing is in flight.
  virtual PutStatus put(const iovec* iov, int iovcnt, std::uint64_t remote_addr, std::uint64_t rkey,
                        std::uint64_t cookie) = 0;
  /// The doorbell after a put that no frame follows (a flag write,
  /// Engine::write_flag): wakes the peer if it sleeps. Where a put reaches
  /// the peer's memory through the peer's own progress (tcp's WRITE record,
  /// libfabric's tcp), its arrival wakes the peer and this does nothing.
  virtual void ring() {}
  /// A completion of an earlier kInProgress put, if one is ready.
  virtual bool poll_put(PutCompletion* c) = 0;

  /// Short description for messages and statistics ("shm 0<->3 #1").
  virtual std::string describe() const = 0;
};

}  // namespace meshmp::mesh
