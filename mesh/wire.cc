#include "mesh/wire.h"

#include <cstddef>

namespace meshmp::mesh {

const char* frame_type_name(FrameType t) {
  switch (t) {
    case FrameType::kEager: return "EAGER";
    case FrameType::kRts: return "RTS";
    case FrameType::kCts: return "CTS";
    case FrameType::kDone: return "DONE";
    case FrameType::kCredit: return "CREDIT";
    case FrameType::kData: return "DATA";
    case FrameType::kSyncAck: return "SYNC_ACK";
    case FrameType::kRecvReady: return "RECV_READY";
    case FrameType::kCancel: return "CANCEL";
    case FrameType::kCancelAck: return "CANCEL_ACK";
    case FrameType::kBye: return "BYE";
    case FrameType::kFlag: return "FLAG";
    case FrameType::kNoRoute: return "NO_ROUTE";
    case FrameType::kCableDown: return "CABLE_DOWN";
    default: return "?";
  }
}

static_assert(offsetof(FrameHeader, src) == kLinkPartBytes, "the end-to-end part starts after the link part");

WireFault check_link_part(const FrameHeader& h, const LinkView& v) {
  auto fault = [&](WireFault::Kind k, std::uint64_t got, std::uint64_t want = 0) {
    return WireFault{k, h.type, got, want};
  };
  if (h.version != kWireVersion) return fault(WireFault::kVersion, h.version, kWireVersion);
  if (h.type < static_cast<std::uint8_t>(FrameType::kEager) ||
      h.type >= static_cast<std::uint8_t>(FrameType::kEnd))
    return fault(WireFault::kType, h.type);
  if (h.seq != v.expected_seq) return fault(WireFault::kSeq, h.seq, v.expected_seq);
  if (h.credits > v.max_credits) return fault(WireFault::kCredits, h.credits, v.max_credits);
  if (h.flags & ~(kKnownFlags | 0xff00)) return fault(WireFault::kFlags, h.flags);
  return {};
}

WireFault check_end_to_end(const FrameHeader& h, const LinkView& v) {
  // Signed fields travel as their 64-bit two's complement; describe() reads them back.
  auto fault = [&](WireFault::Kind k, std::int64_t got, std::int64_t want = 0) {
    return WireFault{k, h.type, static_cast<std::uint64_t>(got), static_cast<std::uint64_t>(want)};
  };
  const auto type = static_cast<FrameType>(h.type);
  if (v.max_hops == 0) {  // no routing: only the peer's own frames, for this rank
    if (h.hops != 0) return fault(WireFault::kHops, h.hops);
    if (h.src != v.peer_rank) return fault(WireFault::kSource, h.src, v.peer_rank);
    if (h.dst != v.my_rank) return fault(WireFault::kDestination, h.dst, v.my_rank);
    if (h.e2e_credits) return fault(WireFault::kEndToEndCredits, h.e2e_credits);
    if (e2e_seq(h.flags)) return fault(WireFault::kFlags, h.flags);
    if (type == FrameType::kCableDown) return fault(WireFault::kType, h.type);  // (only where ranks forward)
  } else {
    // (A frame may pass through its own source, forwarded, while the news of
    // a dead cable spreads -- a relay that knows sends it back along its
    // detour -- but never come back to it as its destination.)
    if (h.src < 0 || h.src >= v.nranks || (h.src == v.my_rank && (h.dst == v.my_rank || h.hops == 0)) ||
        (h.hops == 0 && h.src != v.peer_rank))
      return fault(WireFault::kSource, h.src, v.peer_rank);
    if (h.dst < 0 || h.dst >= v.nranks ||
        ((type == FrameType::kBye || type == FrameType::kCableDown) && h.dst != v.my_rank))
      return fault(WireFault::kDestination, h.dst, v.my_rank);
    // Links crossed: hops + 1 so far, one more to forward it.
    const int crossed = h.hops + 1 + (h.dst != v.my_rank);
    if (crossed > v.max_hops) return fault(WireFault::kHops, h.hops, v.max_hops);
    if (h.e2e_credits && h.hops == 0 && h.dst == v.my_rank)  // a neighbour's own frame: link credits only
      return fault(WireFault::kEndToEndCredits, h.e2e_credits);
    if (e2e_seq(h.flags) && h.hops == 0 && h.dst == v.my_rank) return fault(WireFault::kFlags, h.flags);
    if (type == FrameType::kCableDown && h.hops != 0) return fault(WireFault::kHops, h.hops);
  }
  if ((type == FrameType::kEager || type == FrameType::kData) && h.length > v.max_payload)
    return WireFault{WireFault::kPayload, h.type, h.length, v.max_payload};
  if ((type == FrameType::kEager || type == FrameType::kRts) && h.tag < 0) return fault(WireFault::kNegativeTag, h.tag);
  if ((type == FrameType::kRts || type == FrameType::kCts || type == FrameType::kDone ||
       type == FrameType::kRecvReady) &&
      h.length > kMaxMessageBytes)
    return WireFault{WireFault::kTooLong, h.type, h.length, kMaxMessageBytes};
  if ((type == FrameType::kCredit || type == FrameType::kCancel || type == FrameType::kSyncAck ||
       type == FrameType::kBye || type == FrameType::kFlag || type == FrameType::kNoRoute ||
       type == FrameType::kCableDown) &&
      h.length != 0)
    return WireFault{WireFault::kUnexpectedPayload, h.type, h.length, 0};
  if (type == FrameType::kCancelAck && h.length > 1) return WireFault{WireFault::kCancelAckLength, h.type, h.length, 1};
  return {};
}

std::string describe(const WireFault& f) {
  const std::string got = std::to_string(f.got), want = std::to_string(f.want);
  const std::string sgot = std::to_string(static_cast<std::int64_t>(f.got));
  const std::string swant = std::to_string(static_cast<std::int64_t>(f.want));
  const std::string type = frame_type_name(static_cast<FrameType>(f.type));
  switch (f.kind) {
    case WireFault::kNone: return {};
    case WireFault::kVersion: return "wire version " + got + ", expected " + want;
    case WireFault::kType: return "bad frame type " + got;
    case WireFault::kSeq: return "seq " + got + ", expected " + want;
    case WireFault::kCredits: return "credits " + got + " > " + want + " slots";
    case WireFault::kFlags: return "unknown flags " + got;
    case WireFault::kHops:
      return f.want ? "a frame of " + got + " hops would cross more links than the torus diameter, " + want
                    : "a forwarded frame (" + got + " hops), but no rank forwards here";
    case WireFault::kSource: return "source rank " + sgot + " on the link to rank " + swant;
    case WireFault::kDestination: return "destination rank " + sgot + ", this is rank " + swant;
    case WireFault::kEndToEndCredits: return "end-to-end credits " + got + " on a neighbour's own frame";
    case WireFault::kPayload: return type + " payload " + got + " > slot size " + want;
    case WireFault::kNegativeTag: return type + " with tag " + sgot + " (tags on the wire are >= 0)";
    case WireFault::kTooLong: return type + " of " + got + " bytes (more than 2^47)";
    case WireFault::kUnexpectedPayload: return type + " with payload " + got;
    case WireFault::kCancelAckLength: return "CANCEL_ACK with length " + got;
  }
  return "unknown wire fault";
}

}  // namespace meshmp::mesh
