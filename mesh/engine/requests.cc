// The request pool and the pool of queued frames: requests are named on the
// wire by index and generation, so a stale id never reaches a reused request.
#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

PendingFrame* Engine::Impl::alloc_frame() {
  PendingFrame* f = free_frames;
  if (f) {
    free_frames = f->next;
  } else {
    frame_pool_storage.push_back(std::make_unique<PendingFrame>());
    f = frame_pool_storage.back().get();
  }
  f->h = FrameHeader{};
  f->req = nullptr;
  f->relayed = false;
  f->relay.clear();  // (its capacity stays: a relay's frames need no allocation once warm)
  f->prev = f->next = nullptr;
  return f;
}

void Engine::Impl::release_frame(PendingFrame* f) {
  f->next = free_frames;
  free_frames = f;
}

// The key a CTS or RECV_READY announces for a receive buffer: names the
// registered region holding it (a writer then needs no system call), plus
// a nonce DONE/DATA must echo.
std::uint64_t Engine::Impl::registration_key(Request* r, const char* buf, std::size_t len, int peer) {
  const auto nonce = static_cast<std::uint32_t>(rng());
  MemoryDomain* d = domain_of(peer);
  if (r->reg_domain) r->reg_domain->forget(r->reg_key);  // (a channel receive announces once per start)
  r->reg_domain = d;
  return d ? d->remote_key(buf, len, nonce, peer) : std::uint64_t{nonce} | 1;
}

}  // namespace meshmp::mesh
