// libFuzzer target: the frame-header check every Link runs on untrusted wire
// data before the engine uses a field (mesh/wire.h, ARCHITECTURE.md §3).
//
// Input: a LinkView (i32 my_rank, i32 peer_rank, u64 expected_seq,
// u32 max_payload, u32 max_credits; 24 bytes) followed by a 72-byte
// FrameHeader, and optionally the view's routing (i32 nranks, i32 max_hops:
// 8 bytes more; without them, no routing). Whatever check_header() accepts must satisfy every
// property the engine relies on afterwards; a header it accepts that breaks
// one is a crash.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mesh/wire.h"

namespace {

using meshmp::mesh::FrameHeader;
using meshmp::mesh::FrameType;
using meshmp::mesh::LinkView;

struct RawView {
  std::int32_t my_rank, peer_rank;
  std::uint64_t expected_seq;
  std::uint32_t max_payload, max_credits;
};
static_assert(sizeof(RawView) == 24);

[[noreturn]] void broken(const char* property) {
  std::fprintf(stderr, "check_header accepted a header that breaks: %s\n", property);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < sizeof(RawView) + sizeof(FrameHeader)) return 0;
  RawView raw;
  FrameHeader h;
  std::memcpy(&raw, data, sizeof raw);
  std::memcpy(&h, data + sizeof raw, sizeof h);
  LinkView v{raw.my_rank, raw.peer_rank, raw.expected_seq, raw.max_payload, raw.max_credits};
  if (size >= sizeof(RawView) + sizeof(FrameHeader) + 8) {
    std::memcpy(&v.nranks, data + sizeof raw + sizeof h, 4);
    std::memcpy(&v.max_hops, data + sizeof raw + sizeof h + 4, 4);
  }

  const meshmp::mesh::WireFault fault = meshmp::mesh::check_header(h, v);
  // The inline fast path for plain EAGER frames accepts nothing the two
  // full checks refuse.
  if (meshmp::mesh::plain_eager(h, v) &&
      (meshmp::mesh::check_link_part(h, v) || meshmp::mesh::check_end_to_end(h, v)))
    broken("plain_eager accepts only what check_link_part and check_end_to_end accept");
  if (fault) {  // rejected: fine, if it says why
    if (meshmp::mesh::describe(fault).empty()) broken("a rejected header has a description");
    return 0;
  }

  using meshmp::mesh::frame_type_name;
  const auto type = static_cast<FrameType>(h.type);
  if (h.version != meshmp::mesh::kWireVersion) broken("wire version");
  if (std::strcmp(frame_type_name(type), "?") == 0) broken("frame type is a known one");
  if (h.seq != v.expected_seq) broken("sequence number");
  const int seq_byte = h.flags >> meshmp::mesh::kE2eSeqShift;
  if (v.max_hops == 0) {
    if (h.src != v.peer_rank || h.dst != v.my_rank) broken("source and destination ranks");
    if (h.hops != 0) broken("no forwarded frame");
    if (h.e2e_credits) broken("no end-to-end credits");
    if (seq_byte) broken("no end-to-end sequence number");
    if (type == FrameType::kCableDown) broken("no CABLE_DOWN where ranks do not forward");
  } else {
    if (h.src < 0 || h.src >= v.nranks) broken("source is a rank of the job");
    // (This rank's own frame may pass through it, forwarded on a detour
    // around a dead cable, but never comes back to it as its destination.)
    if (h.src == v.my_rank && (h.hops == 0 || h.dst == v.my_rank)) broken("this rank's own frame only passes through");
    if (h.dst < 0 || h.dst >= v.nranks) broken("destination is a rank of the job");
    if (h.hops == 0 && h.src != v.peer_rank) broken("a frame not forwarded comes from the link's peer");
    if (h.hops + 1 + (h.dst != v.my_rank) > v.max_hops) broken("links crossed within the diameter");
    if (type == FrameType::kBye && h.dst != v.my_rank) broken("BYE is not forwarded");
    if (h.e2e_credits && h.hops == 0 && h.dst == v.my_rank) broken("a neighbour's own frame has no end-to-end credits");
    if (seq_byte && h.hops == 0 && h.dst == v.my_rank) broken("a neighbour's own frame has no end-to-end sequence number");
    if (type == FrameType::kCableDown && (h.hops != 0 || h.dst != v.my_rank)) broken("CABLE_DOWN is the link's own");
  }
  if (h.flags & 0xff & ~meshmp::mesh::kKnownFlags) broken("known flags");
  if (h.credits > v.max_credits) broken("credits <= slots");
  if ((type == FrameType::kEager || type == FrameType::kData) && h.length > v.max_payload)
    broken("EAGER/DATA payload fits a slot");
  if ((type == FrameType::kEager || type == FrameType::kRts) && h.tag < 0) broken("tag >= 0");
  if (h.length > meshmp::mesh::kMaxMessageBytes && type != FrameType::kEager && type != FrameType::kData)
    broken("message length <= 2^47");
  if ((type == FrameType::kCredit || type == FrameType::kCancel || type == FrameType::kSyncAck ||
       type == FrameType::kBye || type == FrameType::kFlag || type == FrameType::kNoRoute ||
       type == FrameType::kCableDown) &&
      h.length != 0)
    broken("CREDIT/CANCEL/SYNC_ACK/BYE/FLAG/NO_ROUTE/CABLE_DOWN carry no length");
  if (type == FrameType::kCancelAck && h.length > 1) broken("CANCEL_ACK length is 0 or 1");
  return 0;
}
