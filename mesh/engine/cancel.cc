// MPI_Cancel of a send that has left (MPI-1.1 §3.8): the receiver retracts
// it if unmatched (CANCEL / CANCEL_ACK); a standard send completes from a copy.
#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

bool Engine::Impl::on_cancel(LinkState&, const FrameHeader& h, const char*) {
  const int src = h.src;
  // Retract the message if it has not matched (it then never will).
  auto* u = static_cast<Unexpected*>(matcher.take_unexpected_if(src, [&](UnexpectedMsg* m) {
    auto* x = static_cast<Unexpected*>(m);
    return x->send_id == h.send_id && (x->rendezvous || x->sync);
  }));
  FrameHeader a = make_header(FrameType::kCancelAck, src);
  a.send_id = h.send_id;
  a.length = u != nullptr;
  if (u) discard(u);
  send_or_queue(*route(src), a, nullptr);
  return true;
}

bool Engine::Impl::on_cancel_ack(LinkState&, const FrameHeader& h, const char*) {
  // Not retracted: the receive matched, and the send completes as usual.
  if (h.length == 0) return true;
  Request* s = lookup(h.send_id, true, State::kWaitAck, h.src);
  if (!s) s = lookup(h.send_id, true, State::kWaitCts, h.src);
  if (s) {
    s->status.cancelled = true;
    s->status.bytes = 0;
    complete(s);
  }
  return true;
}

}  // namespace meshmp::mesh
