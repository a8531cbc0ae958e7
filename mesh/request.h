// Requests and statuses of the core's point-to-point API, shared by the QMP
// and MPI layers.
#pragma once

#include <cstddef>
#include <cstdint>

namespace meshmp::mesh {

inline constexpr int kAnySource = -1;
inline constexpr int kAnyTag = -1;
/// Largest tag (MPI_TAG_UB); tags are 0..kTagUb, kAnyTag only on receives.
inline constexpr int kTagUb = (1 << 30) - 1;

/// Outcome of a request (ARCHITECTURE.md §7): the upper layers map these to
/// MPI error classes / QMP_status_t.
enum class Error : std::uint8_t {
  kOk = 0,
  kTruncate,   ///< message longer than the receive buffer (MPI_ERR_TRUNCATE)
  kPeerDead,   ///< the peer process exited or was killed, or the link to it broke (tcp: reset, timeout)
  kProtocol,   ///< the peer sent malformed frames; the link was closed
  kUnreachable,  ///< no link reaches the peer. Kept for the error tables above; a mesh fabric's
                 ///< non-neighbours are routed (mesh/engine/routed.cc), so the engine no longer gives it
};
const char* error_name(Error e);

enum class SendMode : std::uint8_t {
  kStandard,     ///< eager below the limit, rendezvous at and above
  kSynchronous,  ///< completes only after the receiver matched it
  kReady,        ///< the receiver has posted; sent like standard
};

struct Status {
  int source = kAnySource;   ///< world rank of the sender
  int tag = kAnyTag;
  std::size_t bytes = 0;     ///< bytes delivered into the buffer
  Error error = Error::kOk;
  bool cancelled = false;
};

struct Request;  // defined in engine.cc; opaque to callers
struct Message;  // a message a matched probe took (Engine::improbe); opaque to callers

}  // namespace meshmp::mesh
