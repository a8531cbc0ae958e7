// MPI_Cancel of a send that has left (MPI-1.1 §3.8): the receiver retracts
// the message if it is still unmatched (CANCEL / CANCEL_ACK), eager or
// rendezvous, so either the cancel succeeds or the message is delivered --
// exactly once, never both.
#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

void Engine::Impl::send_cancel(int peer, std::uint64_t send_id) {
  FrameHeader h = make_header(FrameType::kCancel, peer);
  h.send_id = send_id;
  send_or_queue(*route(peer), h, nullptr);
}

// The send that waits for the CANCEL_ACK of message `id` to `peer`: its own
// request, or for a message written with no request (kSentNowBit) the one
// Engine::cancel_sent made, which names the message in remote_id. A scan,
// but only once per such cancel.
Request* Engine::Impl::waiting_for_cancel_ack(std::uint64_t id, int peer) {
  if (!(id & kSentNowBit)) return lookup(id, true, State::kWaitCancel, peer);
  for (auto& up : requests) {
    Request* r = up.get();
    if (r->in_use && r->is_send && r->state == State::kWaitCancel && r->peer == peer && r->remote_id == id) return r;
  }
  return nullptr;
}

bool Engine::Impl::on_cancel(LinkState&, const FrameHeader& h, const char*) {
  const int src = h.src;
  // Retract the message if it has not matched (it then never will). The
  // message came before its CANCEL: both travel on route(src), in order.
  auto* u = h.send_id == 0 ? nullptr
                           : static_cast<Unexpected*>(matcher.take_unexpected_if(src, [&](UnexpectedMsg* m) {
                               return static_cast<Unexpected*>(m)->send_id == h.send_id;
                             }));
  FrameHeader a = make_header(FrameType::kCancelAck, src);
  a.send_id = h.send_id;
  a.length = u != nullptr;
  if (u) discard(u);
  send_or_queue(*route(src), a, nullptr);
  return true;
}

bool Engine::Impl::on_cancel_ack(LinkState&, const FrameHeader& h, const char*) {
  // An eager send that had completed waits for this answer either way.
  if (Request* s = waiting_for_cancel_ack(h.send_id, h.src)) {
    if (h.length) {
      s->status.cancelled = true;
      s->status.bytes = 0;
    }
    complete(s);
    return true;
  }
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
