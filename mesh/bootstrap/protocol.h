// The launcher's address-exchange protocol over a Unix stream socket: each
// rank says HELLO, then any number of FENCEs (an all-gather of one blob per
// rank), says FINALIZING before its last, and may ask the launcher to ABORT
// the job. Frames are
// {u32 type, u32 length, length bytes}. Both ends treat the peer's bytes as
// untrusted: lengths are bounded and checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace meshmp::mesh::bootstrap {

enum class Msg : std::uint32_t {
  kHello = 1,   ///< rank -> launcher: u32 rank, u32 pid, then the job secret
  kFence = 2,   ///< rank -> launcher: this rank's blob
  kFenceResult = 3,  ///< launcher -> rank: for each rank, u32 length + blob
  kAbort = 4,   ///< rank -> launcher: i32 exit code, then a message
  kFinalizing = 5,  ///< rank -> launcher: this rank is in finalize (empty)
  kPeerFinalizing = 6,  ///< launcher -> rank, at any time: u32 rank, which is in finalize
};

inline constexpr std::uint32_t kMaxFrame = 64u << 20;  ///< bytes

/// One frame's bytes.
std::string encode_frame(Msg type, const std::string& body);
/// Takes the first whole frame off the front of `in` (bytes received so
/// far, from a non-blocking socket) into *type and *body: true if there was
/// one. Sets *bad (and takes nothing) if the frame announces more than
/// kMaxFrame bytes.
bool take_frame(std::string& in, Msg* type, std::string* body, bool* bad);
/// Writes one frame; returns false on a write error.
bool send_frame(int fd, Msg type, const std::string& body);
/// Reads one frame; false on EOF, error, or a length above kMaxFrame.
bool recv_frame(int fd, Msg* type, std::string* body);

/// kHello body: u32 rank, u32 pid, then the job secret.
std::string encode_hello(int rank, int pid, const std::string& secret);
/// Decodes a kHello body, which is untrusted: true (and *rank set) only if
/// it is exactly {rank, pid, secret} with this job's `secret`. The rank is
/// not range-checked here.
bool decode_hello(const std::string& body, const std::string& secret, std::uint32_t* rank);
/// kAbort body: i32 exit code, then a message.
std::string encode_abort(int code, const std::string& message);
/// Decodes a kAbort body: false if it is shorter than the exit code.
bool decode_abort(const std::string& body, int* code, std::string* message);

/// kPeerFinalizing body: u32 rank.
std::string encode_rank(int rank);
/// Decodes a kPeerFinalizing body: false unless it is exactly one u32. The
/// rank is not range-checked here.
bool decode_rank(const std::string& body, std::uint32_t* rank);

/// A list of blobs (a kFenceResult body: one per rank; a kFence body: a
/// rank's key, value, key, value, ...) <-> bytes: each blob is u32 length +
/// bytes. decode returns false on malformed input, or (with `expected`) if
/// the count differs.
std::string encode_blobs(const std::vector<std::string>& blobs);
bool decode_blobs(const std::string& body, std::vector<std::string>* blobs);
bool decode_blobs(const std::string& body, std::size_t expected, std::vector<std::string>* blobs);

}  // namespace meshmp::mesh::bootstrap
