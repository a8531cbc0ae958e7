// The fixed wire header every frame on a Link starts with (ARCHITECTURE.md §3).
// Every field is untrusted input: check_header() checks it before use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace meshmp::mesh {

/// 2: the header split into a per-link and an end-to-end part, with a hop count.
/// 3: routed frames (the forwarding agent): end-to-end credits, FLAG frames.
/// 4: detours around dead cables: CABLE_DOWN, a routed frame's end-to-end
///    sequence number in the high byte of `flags`.
inline constexpr std::uint8_t kWireVersion = 4;

/// Frame types. Eager/RTS/CTS/DONE follow MP_Lite's OP_SEND, OP_RDMAW_RTS,
/// OP_RDMAW_CTS, OP_RDMAW_DONE (seed 000 §3.4); CREDIT returns tokens
/// explicitly (seed 003 §5.1); DATA carries a rendezvous payload through the
/// slots when RDMA write is refused; SYNC_ACK completes a synchronous send;
/// RECV_READY announces a channel receive's buffer (receiver-ready protocol);
/// CANCEL/CANCEL_ACK retract a synchronous send that has left (MPI-1.1 §3.8).
enum class FrameType : std::uint8_t {
  kEager = 1,
  kRts = 2,
  kCts = 3,
  kDone = 4,
  kCredit = 5,
  kData = 6,
  kSyncAck = 7,
  kRecvReady = 8,  ///< a started channel receive announces its buffer (ARCHITECTURE.md §3)
  kCancel = 9,     ///< the sender cancels a message that has left (send_id): retract it if unmatched
  kCancelAck = 10, ///< the answer: length 1 if it was retracted, 0 if it had matched
  kBye = 11,       ///< the sender finalizes: sent last on each of its links to the receiver
  kFlag = 12,      ///< a flag write to a routed peer (Engine::write_flag): the flag's address `addr`, value `send_id`
  kNoRoute = 13,   ///< from a relay to a source: rank `addr` can no longer be reached through it
  kCableDown = 14, ///< link-level, flooded: the cable(s) between ranks `addr` and `key` are dead (detours.cc)
  kEnd  // one past the last valid type
};

const char* frame_type_name(FrameType t);

/// Header flags.
inline constexpr std::uint16_t kFlagSync = 1;  ///< synchronous send: receiver acks the match
inline constexpr std::uint16_t kFlagStreamed = 2;  ///< DONE after DATA frames: the data came through the slots
/// EAGER from a channel send: `addr` is the send's number on its channel, and
/// the receiver hands it to the receive started with that number.
inline constexpr std::uint16_t kFlagChannel = 4;
/// DONE of a transfer that failed (its bytes could not be moved, e.g. a bad
/// buffer address): the receive fails; the link stays up.
inline constexpr std::uint16_t kFlagFailed = 8;
/// DONE of one stripe of a put striped over several links to the peer
/// (seed 000 §3.10): `length` is that stripe's bytes, sent on the link that
/// carried them (so it arrives after them); the receive completes when the
/// stripes' DONEs add up to the bytes granted.
inline constexpr std::uint16_t kFlagStripe = 16;
/// The flags a frame may carry (low byte).
inline constexpr std::uint16_t kKnownFlags = kFlagSync | kFlagStreamed | kFlagChannel | kFlagFailed | kFlagStripe;
/// A routed frame that takes an end-to-end credit carries its pair's
/// sequence number (mod 256) in the high byte of `flags`: routes change
/// under frames in flight when a cable dies, and the destination puts a
/// pair's frames back in order by it (routed.cc). 0 on every other frame.
inline constexpr int kE2eSeqShift = 8;
inline std::uint8_t e2e_seq(std::uint16_t flags) { return static_cast<std::uint8_t>(flags >> kE2eSeqShift); }

/// The largest message a frame may announce (RTS, CTS, DONE lengths): 2^47
/// bytes, the user address space of x86-64. Beyond it, the frame is malformed.
inline constexpr std::uint64_t kMaxMessageBytes = std::uint64_t{1} << 47;

/// 72 bytes, naturally aligned, host byte order (shm is one host; the tcp
/// provider will fix an order). Two parts: the first kLinkPartBytes belong to
/// the link the frame is on (framing, its sequence number, the credits
/// returned on it) and are rewritten by every hop; the rest is end-to-end --
/// set by the source rank, carried unchanged to the destination -- so that
/// a frame can be forwarded by SDF routing (ARCHITECTURE.md §4) without
/// touching it. check_link_part and check_end_to_end check each.
struct FrameHeader {
  // ---- per-link part ----
  std::uint8_t version;
  std::uint8_t type;       ///< FrameType
  std::uint16_t flags;
  std::uint32_t credits;   ///< tokens returned to the receiver of this frame (piggybacked)
  std::uint64_t seq;       ///< per-link, per-direction frame sequence number
  // ---- end-to-end part ----
  std::int32_t src;        ///< world rank of the source
  std::int32_t dst;        ///< world rank of the destination
  std::int32_t tag;
  std::uint16_t context;   ///< communicator context id (mesh/context_ids.h: below 4096)
  std::uint8_t hops;       ///< links crossed before the last one (0: sent by the link's peer itself)
  std::uint8_t e2e_credits;  ///< routed frames: end-to-end credits returned to `dst` (the forwarding
                             ///< agent, mesh/engine/routed.cc); 0 between neighbours
  std::uint64_t length;    ///< EAGER/DATA: payload bytes in this frame; RTS: message bytes;
                           ///< CTS: bytes granted; DONE: bytes written
  std::uint64_t send_id;   ///< sender's request id (RTS/CTS/DONE/DATA/SYNC_ACK)
  std::uint64_t recv_id;   ///< receiver's request id (CTS/DONE/DATA)
  std::uint64_t addr;      ///< CTS, RECV_READY: receive buffer address; DATA: byte offset in
                           ///< the message; EAGER with kFlagChannel: the send's channel number
  std::uint64_t key;       ///< CTS/DONE/DATA: registration key of the receive buffer
};
static_assert(sizeof(FrameHeader) == 72);
/// Payload bytes that follow a header: `length` for EAGER and DATA, none
/// for the other types (an RTS's `length` is its message's).
inline std::size_t payload_bytes(const FrameHeader& h) {
  const auto t = static_cast<FrameType>(h.type);
  return t == FrameType::kEager || t == FrameType::kData ? h.length : 0;
}
/// Context ids the header can carry: below 2^16.
inline constexpr std::uint32_t kMaxWireContext = 0xffff;
inline constexpr std::size_t kLinkPartBytes = 16;  ///< offsetof(FrameHeader, src)

/// What the receiving side of a link knows, against which a header is checked.
struct LinkView {
  int my_rank;
  int peer_rank;
  std::uint64_t expected_seq;
  std::size_t max_payload;  ///< payload bytes a slot holds
  std::uint32_t max_credits;
  /// Where ranks forward (the forwarding agent): the job's ranks and the
  /// links a routed frame may cross, the torus diameter. 0: no routing --
  /// every frame comes from the link's peer and is for this rank.
  int nranks = 0;
  int max_hops = 0;
};

/// The first bad field of a header, found without building any text (the
/// check runs on every frame): which check failed, the frame's type, and
/// the value received against the one allowed. describe() words it.
struct WireFault {
  enum Kind : std::uint8_t {
    kNone, kVersion, kType, kSeq, kCredits, kFlags,          // the link part
    kHops, kSource, kDestination, kEndToEndCredits, kPayload,       // the end-to-end part
    kNegativeTag, kTooLong, kUnexpectedPayload, kCancelAckLength,
  };
  Kind kind = kNone;
  std::uint8_t type = 0;  ///< the frame's FrameType
  std::uint64_t got = 0, want = 0;
  explicit operator bool() const { return kind != kNone; }
};

/// The per-link part: version, a type the engine handles, the sequence
/// number this link expects, credits within its slots, known flags.
WireFault check_link_part(const FrameHeader& h, const LinkView& v);
/// The end-to-end part. Without routing (v.max_hops == 0): addressed to this
/// rank from the link's peer, hops 0, no end-to-end credits. With it: source
/// and destination are ranks of the job, not this one as a source; a frame
/// with hops 0 comes from the link's peer; one this rank forwards can still
/// cross a link within the diameter (hops + 2 <= max_hops), one for this rank
/// has crossed at most the diameter; BYE is for the link's peer only.
/// Always: tag in range, lengths that fit the type.
WireFault check_end_to_end(const FrameHeader& h, const LinkView& v);
/// The frame most links carry most: the peer's own EAGER for this rank,
/// in sequence, with no end-to-end fields. Accepted in a handful of
/// compares, inline (both checks out of line cost ~85 instructions per
/// frame); it accepts nothing check_link_part and check_end_to_end would
/// refuse, with or without routing (the frame-header fuzzer asserts it).
inline bool plain_eager(const FrameHeader& h, const LinkView& v) {
  return h.version == kWireVersion && h.type == static_cast<std::uint8_t>(FrameType::kEager) &&
         h.seq == v.expected_seq && h.credits <= v.max_credits && (h.flags & ~kKnownFlags) == 0 && h.hops == 0 &&
         h.src == v.peer_rank && h.dst == v.my_rank && h.e2e_credits == 0 && h.length <= v.max_payload &&
         h.tag >= 0 &&
         (v.max_hops == 0 ||  // where ranks forward: two ranks of the job, one link crossed
          (v.max_hops >= 1 && h.src != h.dst && h.src >= 0 && h.src < v.nranks && h.dst >= 0 && h.dst < v.nranks));
}
/// Both parts, the link part first: no fault if `h` is acceptable here.
inline WireFault check_header(const FrameHeader& h, const LinkView& v) {
  if (plain_eager(h, v)) [[likely]] return {};
  const WireFault f = check_link_part(h, v);
  return f ? f : check_end_to_end(h, v);
}
/// "" for no fault, else the first bad field in words ("bad frame type 9",
/// "seq 5, expected 4", "EAGER payload 16385 > slot size 16384", ...).
std::string describe(const WireFault& f);

}  // namespace meshmp::mesh
