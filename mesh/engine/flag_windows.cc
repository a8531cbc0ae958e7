// One-sided flag windows (mesh/engine.h, Engine::open_flag_window; issue 31):
// the flags of seed 002 §3's RDMA-write barrier. A write is a Link::put of 8
// bytes into the peer's window under the key it announced, then the
// provider's doorbell (Link::ring); a wait reads its own flag between rounds
// of progress, so it sleeps like any wait and a dead writer ends it.
#include <atomic>
#include <cerrno>
#include <stdexcept>

#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

namespace {

std::uint64_t load(const std::uint64_t* p) {
  return std::atomic_ref<const std::uint64_t>(*p).load(std::memory_order_acquire);
}

void check_index(const FlagWindow& fw, int index, const char* fn) {
  if (index < 0 || index >= fw.n)
    throw std::logic_error(std::string(fn) + ": index " + std::to_string(index) + " of a window of " +
                           std::to_string(fw.n));
}

}  // namespace

FlagWindow& Engine::Impl::window(int w) const {
  if (w < 0 || static_cast<std::size_t>(w) >= flag_windows.size() || !flag_windows[w])
    throw std::logic_error("flag window " + std::to_string(w) + " is not open");
  return *flag_windows[w];
}

int Engine::open_flag_window(int n) {
  if (n <= 0) throw std::logic_error("Engine::open_flag_window: n = " + std::to_string(n) + " flags");
  Impl& im = *impl_;
  const std::size_t bytes = 2 * static_cast<std::size_t>(n) * FlagWindow::kLine;
  auto fw = std::make_unique<FlagWindow>();
  fw->n = n;
  fw->mem = static_cast<char*>(allocate_registered(bytes, FlagWindow::kLine));
  fw->registered = fw->mem != nullptr;
  if (!fw->mem) {
    // No memory domain, or its pool is full: ordinary memory, which puts
    // reach too (shm by process_vm_writev, tcp, ofi through its cache).
    fw->mem = static_cast<char*>(std::aligned_alloc(FlagWindow::kLine, bytes));
    if (!fw->mem) return -1;
  }
  std::memset(fw->mem, 0, bytes);
  fw->busy.assign(n, 0);
  // 30 bits of handle in the put cookie (kFlagPutBit); closed handles are reused.
  std::size_t w = 0;
  while (w < im.flag_windows.size() && im.flag_windows[w]) ++w;
  if (w == im.flag_windows.size()) {
    if (w >= (std::size_t{1} << 30)) return -1;
    im.flag_windows.emplace_back();
  }
  im.flag_windows[w] = std::move(fw);
  return static_cast<int>(w);
}

Engine::FlagTarget Engine::flag_target(int w, int peer) {
  Impl& im = *impl_;
  FlagWindow& fw = im.window(w);
  if (peer < 0 || peer >= size_) throw std::logic_error("Engine::flag_target: no rank " + std::to_string(peer));
  FlagTarget t;
  t.addr = reinterpret_cast<std::uint64_t>(fw.mem);
  t.n = static_cast<std::uint64_t>(fw.n);
  const std::size_t len = static_cast<std::size_t>(fw.n) * FlagWindow::kLine;
  if (peer == rank_) return t;
  MemoryDomain* d = im.domain_of(peer);
  const auto nonce = static_cast<std::uint32_t>(im.rng());
  t.key = d ? d->remote_key(fw.mem, len, nonce, peer) : std::uint64_t{nonce} | 1;
  if (d) fw.keys.emplace_back(d, t.key);
  return t;
}

void Engine::set_flag_target(int w, int peer, FlagTarget t) {
  if (peer < 0 || peer >= size_) throw std::logic_error("Engine::set_flag_target: no rank " + std::to_string(peer));
  impl_->window(w).targets[peer] = t;
}

Error Engine::write_flag(int w, int peer, int index, std::uint64_t seq) {
  Impl& im = *impl_;
  FlagWindow& fw = im.window(w);
  auto it = fw.targets.find(peer);
  if (it == fw.targets.end())
    throw std::logic_error("Engine::write_flag: no target in rank " + std::to_string(peer) + " for window " +
                           std::to_string(w));
  const FlagTarget t = it->second;
  if (index < 0 || static_cast<std::uint64_t>(index) >= t.n || index >= fw.n)
    throw std::logic_error("Engine::write_flag: index " + std::to_string(index) + " of rank " +
                           std::to_string(peer) + "'s window of " + std::to_string(t.n) + " (this one's " +
                           std::to_string(fw.n) + ")");
  const std::uint64_t at = t.addr + static_cast<std::uint64_t>(index) * FlagWindow::kLine;
  if (peer == rank_) {
    std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(at)).store(seq, std::memory_order_release);
    return Error::kOk;
  }
  PeerState& ps = im.peers[peer];
  if (ps.failed != Error::kOk) return ps.failed;
  if (ps.routed()) {
    // No cable to it: a FLAG frame through the forwarding agent (routed.cc).
    FrameHeader h = im.make_header(FrameType::kFlag, peer);
    h.addr = at;
    h.send_id = seq;
    im.send_routed(h, nullptr);
    return ps.failed;
  }
  LinkState* ls = im.route(peer);
  // A source line still read by a put in flight is rewritten only with the
  // value it holds (one release to many peers), else once the put completed.
  std::uint64_t* src = fw.source(index);
  im.block_until([&] { return (ls->up && (fw.busy[index] == 0 || *src == seq)) || ps.failed != Error::kOk; });
  if (ps.failed != Error::kOk) return ps.failed;
  *src = seq;
  const iovec iov{src, sizeof seq};
  const std::uint64_t cookie = kFlagPutBit | (static_cast<std::uint64_t>(w) << 32) | static_cast<std::uint32_t>(index);
  PutStatus st;
  im.block_until([&] {
    st = ls->link->put(&iov, 1, at, t.key, cookie);
    return st != PutStatus::kNoResource || ps.failed != Error::kOk;
  });
  switch (st) {
    case PutStatus::kInProgress:
      ++fw.busy[index];
      ++ls->puts_in_flight;
      [[fallthrough]];
    case PutStatus::kDone:
      ls->link->ring();
      ++ls->stats.rdma_writes;
      return Error::kOk;
    case PutStatus::kNoResource:
      return ps.failed;
    case PutStatus::kPeerGone:
      im.fail_peer(peer, Error::kPeerDead, ls->link->describe() + ": a flag write found the peer gone");
      return Error::kPeerDead;
    default:
      im.fail_peer(peer, Error::kProtocol, ls->link->describe() + ": a flag write failed (" +
                                               put_status_name(st) + ")");
      return Error::kProtocol;
  }
}

void Engine::Impl::flag_put_done(LinkState& ls, const PutCompletion& c) {
  const auto w = static_cast<std::size_t>((c.cookie & ~kFlagPutBit) >> 32);
  const auto index = static_cast<std::size_t>(c.cookie & 0xffffffffu);
  FlagWindow* fw = w < flag_windows.size() ? flag_windows[w].get() : nullptr;
  if (!fw || index >= fw->busy.size() || fw->busy[index] == 0 || ls.puts_in_flight == 0) {
    fail_peer(ls.peer, Error::kProtocol, ls.link->describe() + ": a put completion for no flag write");
    return;
  }
  --fw->busy[index];
  --ls.puts_in_flight;
  if (c.status == PutStatus::kPeerGone)
    fail_peer(ls.peer, Error::kPeerDead, ls.link->describe() + ": a flag write found the peer gone");
  else if (c.status != PutStatus::kDone)
    fail_peer(ls.peer, Error::kProtocol,
              ls.link->describe() + ": a flag write failed (" + put_status_name(c.status) + ")");
}

Error Engine::wait_flag(int w, int index, std::uint64_t seq, int writer) {
  Impl& im = *impl_;
  FlagWindow& fw = im.window(w);
  check_index(fw, index, "Engine::wait_flag");
  const std::uint64_t* f = fw.flag(index);
  if (load(f) >= seq) return Error::kOk;
  const PeerState* ps = writer >= 0 && writer < size_ && writer != rank_ ? &im.peers[writer] : nullptr;
  im.block_until([&] { return load(f) >= seq || (ps && ps->failed != Error::kOk); });
  return load(f) >= seq ? Error::kOk : ps->failed;
}

std::uint64_t Engine::read_flag(int w, int index) const {
  FlagWindow& fw = impl_->window(w);
  check_index(fw, index, "Engine::read_flag");
  return load(fw.flag(index));
}

void Engine::close_flag_window(int w) {
  Impl& im = *impl_;
  FlagWindow& fw = im.window(w);
  // Writes still in flight read their source lines: wait for them. Where a
  // peer has failed, its puts may never complete: the memory is left as it is.
  bool failed = false;
  im.block_until([&] {  // (checks before it first waits)
    for (const auto& [peer, t] : fw.targets) failed |= peer != rank_ && im.peers[peer].failed != Error::kOk;
    return failed || std::all_of(fw.busy.begin(), fw.busy.end(), [](std::uint32_t b) { return b == 0; });
  });
  for (auto& [d, key] : fw.keys) d->forget(key);
  if (failed) {
    fw.registered = true;  // (not freed by ~FlagWindow)
  } else if (fw.registered) {
    free_registered(fw.mem);
  }
  im.flag_windows[w].reset();
}

}  // namespace meshmp::mesh
