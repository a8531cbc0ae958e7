// Messages from this rank to itself: no link, matched like any other.
#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

// A send to this rank: delivered now if a receive waits; otherwise an
// eager-size standard send is copied, anything else waits for its receive.
void Engine::Impl::start_self_send(Request* r) {
  if (Request* rr = static_cast<Request*>(matcher.match_arrival(r->context, e.rank_, r->tag))) {
    deliver_eager(rr, e.rank_, r->tag, r->buf, r->len);
    return complete(r);
  }
  Unexpected* u = new_unexpected();
  u->context = r->context;
  u->source = e.rank_;
  u->tag = r->tag;
  u->length = r->len;
  u->send_id = r->id;  // for Engine::cancel
  if (r->mode == SendMode::kStandard && r->len < e.opt_.eager_limit) {
    u->data.assign(r->buf, r->buf + r->len);
    complete(r);
  } else {
    u->self_send = r;
    r->state = State::kWaitAck;
  }
  counted(u);
  matcher.add_unexpected(u);
}

}  // namespace meshmp::mesh
