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
    default: return "?";
  }
}

static_assert(offsetof(FrameHeader, src) == kLinkPartBytes, "the end-to-end part starts after the link part");

std::string validate_header(const FrameHeader& h, const LinkView& v) {
  std::string why = validate_link_part(h, v);
  return why.empty() ? validate_end_to_end(h, v) : why;
}

std::string validate_link_part(const FrameHeader& h, const LinkView& v) {
  auto s = [](auto x) { return std::to_string(x); };
  if (h.version != kWireVersion) return "wire version " + s(h.version) + ", expected " + s(kWireVersion);
  if (h.type < static_cast<std::uint8_t>(FrameType::kEager) ||
      h.type >= static_cast<std::uint8_t>(FrameType::kEnd))
    return "bad frame type " + s(h.type);
  if (h.seq != v.expected_seq) return "seq " + s(h.seq) + ", expected " + s(v.expected_seq);
  if (h.credits > v.max_credits) return "credits " + s(h.credits) + " > " + s(v.max_credits) + " slots";
  if (h.flags & ~(kFlagSync | kFlagStreamed | kFlagChannel | kFlagFailed | kFlagStripe)) return "unknown flags " + s(h.flags);
  return {};
}

std::string validate_end_to_end(const FrameHeader& h, const LinkView& v) {
  auto s = [](auto x) { return std::to_string(x); };
  if (h.hops != 0) return "a forwarded frame (" + s(h.hops) + " hops), but no rank forwards yet";
  if (h.src != v.peer_rank) return "source rank " + s(h.src) + " on the link to rank " + s(v.peer_rank);
  if (h.dst != v.my_rank) return "destination rank " + s(h.dst) + ", this is rank " + s(v.my_rank);
  if (h.reserved) return "reserved header byte " + s(h.reserved) + " is not 0";
  const auto type = static_cast<FrameType>(h.type);
  if ((type == FrameType::kEager || type == FrameType::kData) && h.length > v.max_payload)
    return std::string(frame_type_name(type)) + " payload " + s(h.length) + " > slot size " + s(v.max_payload);
  if ((type == FrameType::kEager || type == FrameType::kRts) && h.tag < 0)
    return std::string(frame_type_name(type)) + " with tag " + s(h.tag) + " (tags on the wire are >= 0)";
  if ((type == FrameType::kRts || type == FrameType::kCts || type == FrameType::kDone ||
       type == FrameType::kRecvReady) &&
      h.length > kMaxMessageBytes)
    return std::string(frame_type_name(type)) + " of " + s(h.length) + " bytes (more than 2^47)";
  if ((type == FrameType::kCredit || type == FrameType::kCancel || type == FrameType::kSyncAck) && h.length != 0)
    return std::string(frame_type_name(type)) + " with payload " + s(h.length);
  if (type == FrameType::kCancelAck && h.length > 1) return "CANCEL_ACK with length " + s(h.length);
  return {};
}

}  // namespace meshmp::mesh
