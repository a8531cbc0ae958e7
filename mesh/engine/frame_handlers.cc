// The table from frame type (wire.h) to the engine's handler for it. A new
// frame type is a new handler in its protocol's file and one line here;
// check_header refuses a type outside the table before dispatch.
#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

// The frame-type table: the handler of each type the wire defines (wire.h),
// indexed by type. check_header refuses any type outside it.
const Engine::Impl::FrameHandler Engine::Impl::kFrameHandlers[] = {
    nullptr,                          // 0: no such type
    &Engine::Impl::on_eager,          // kEager
    &Engine::Impl::on_rts,            // kRts
    &Engine::Impl::on_cts,            // kCts
    &Engine::Impl::on_done,           // kDone
    &Engine::Impl::on_credit,         // kCredit
    &Engine::Impl::on_data,           // kData
    &Engine::Impl::on_sync_ack,       // kSyncAck
    &Engine::Impl::on_recv_ready,     // kRecvReady
    &Engine::Impl::on_cancel,         // kCancel
    &Engine::Impl::on_cancel_ack,     // kCancelAck
    &Engine::Impl::on_bye,            // kBye
    &Engine::Impl::on_flag,           // kFlag
    &Engine::Impl::on_no_route,       // kNoRoute
    &Engine::Impl::on_cable_down,     // kCableDown
};

bool Engine::Impl::handle_frame(LinkState& ls, const FrameHeader& h, const char* payload) {
  static_assert(std::size(kFrameHandlers) == static_cast<std::size_t>(FrameType::kEnd),
                "every frame type has a handler");
  return (this->*kFrameHandlers[h.type])(ls, h, payload);
}

}  // namespace meshmp::mesh
