// Barriers over flag windows (flag_barrier.h; seed 002 §3-5).
#include "collectives/flag_barrier.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

namespace meshmp::collectives {

using mesh::Error;

namespace {

// Flag lines of a window: the report of a rank above 2^m, doubling round k
// at kRound + k, the release of a rank above 2^m, the flat tree's release,
// and its arrivals (member j of a host at kArrive + j, on the host's first).
constexpr int kPre = 0, kRound = 1, kPost = 33, kRelease = 34, kArrive = 35;

// Group ranks in order, and this rank's place among them (-1: not there).
struct Members {
  std::vector<int> m;
  int me = -1;
};

// One communicator's barrier of one kind: keyed by the collective context,
// its members and the kind; stale once the context pair was released since.
struct State {
  std::uint32_t context = 0, releases = 0;
  std::vector<int> ranks;
  mesh::BarrierChoice how = mesh::BarrierChoice::kRdma;
  Members doubling;  // who takes part in recursive doubling (all; or the hosts' first members)
  Members host;      // kFlat: the members on this host, its first member first
  int window = -1;
  std::uint64_t seq = 0;
};

// An engine's barriers (Engine::collective_state): kept with the engine, so
// that a barrier called from any thread finds the window its peers write
// into (MPI_THREAD_SERIALIZED), and in-process tests' engines, one per
// thread, keep theirs apart.
using States = std::vector<std::unique_ptr<State>>;
States& states_of(mesh::Engine& e) {
  std::shared_ptr<void>& slot = e.collective_state();
  if (!slot) slot = std::make_shared<States>();
  return *static_cast<States*>(slot.get());
}

int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// The group ranks this rank writes to and is written by, in recursive
// doubling over d.
void doubling_partners(const Members& d, std::vector<int>* out) {
  const int n = static_cast<int>(d.m.size()), i = d.me;
  if (i < 0 || n < 2) return;
  const int p = floor_pow2(n);
  if (i >= p) {
    out->push_back(d.m[i - p]);
    return;
  }
  if (i + p < n) out->push_back(d.m[i + p]);
  for (int k = 1; k < p; k <<= 1) out->push_back(d.m[i ^ k]);
}

// This communicator's state for `how`, set up at its first such barrier;
// nullptr with *err set if a partner failed during the set-up.
State* state_for(const Group& g, mesh::BarrierChoice how, Error* err) {
  mesh::Engine& e = *g.engine;
  const std::uint32_t releases = e.context_ids().releases(g.context);
  States& states = states_of(e);
  for (auto it = states.begin(); it != states.end(); ++it) {
    State& s = **it;
    if (s.context == g.context && s.how == how && s.ranks == g.ranks) {
      if (s.releases == releases) return &s;
      e.close_flag_window(s.window);  // the communicator it was made for is gone
      states.erase(it);
      break;
    }
  }
  auto s = std::make_unique<State>();
  s->context = g.context;
  s->releases = releases;
  s->ranks = g.ranks;
  s->how = how;
  // Roles: on kFlat, the members of each host and the hosts' first members.
  for (int r = 0; r < g.size(); ++r) {
    const bool here = e.host_of(g.ranks[r]) == e.host_of(g.ranks[g.me]);
    bool first = true;
    if (how == mesh::BarrierChoice::kFlat)
      for (int q = 0; q < r && first; ++q) first = e.host_of(g.ranks[q]) != e.host_of(g.ranks[r]);
    if (first) {
      if (r == g.me) s->doubling.me = static_cast<int>(s->doubling.m.size());
      s->doubling.m.push_back(r);
    }
    if (how == mesh::BarrierChoice::kFlat && here) {
      if (r == g.me) s->host.me = static_cast<int>(s->host.m.size());
      s->host.m.push_back(r);
    }
  }
  std::vector<int> partners;
  doubling_partners(s->doubling, &partners);
  if (s->host.me == 0) partners.insert(partners.end(), s->host.m.begin() + 1, s->host.m.end());
  else if (s->host.me > 0) partners.push_back(s->host.m[0]);
  // Every window as large as the host's first member's: a write of index
  // i leaves from this rank's line i (Engine::write_flag).
  const int lines = kArrive + static_cast<int>(s->host.m.size());
  s->window = e.open_flag_window(lines);
  if (s->window < 0) throw std::bad_alloc();  // (not even ordinary memory)
  // Each partner learns where to write: one message each way, on the
  // collective context (non-overtaking keeps it behind the collectives before).
  constexpr int kSetupTag = 0;
  std::vector<mesh::Engine::FlagTarget> mine(partners.size()), theirs(partners.size());
  std::vector<mesh::Request*> reqs;
  for (std::size_t k = 0; k < partners.size(); ++k) {
    const int peer = g.ranks[partners[k]];
    mine[k] = e.flag_target(s->window, peer);
    reqs.push_back(e.irecv(&theirs[k], sizeof theirs[k], peer, kSetupTag, g.context));
    reqs.push_back(e.isend(&mine[k], sizeof mine[k], peer, kSetupTag, g.context));
  }
  std::vector<mesh::Status> sts(reqs.size());
  e.waitall(reqs.size(), reqs.data(), sts.data());
  for (std::size_t k = 0; k < partners.size(); ++k) {
    Error st = sts[2 * k].error != Error::kOk ? sts[2 * k].error : sts[2 * k + 1].error;
    if (st == Error::kOk && sts[2 * k].bytes != sizeof theirs[k]) st = Error::kProtocol;  // not a window's target
    if (st != Error::kOk) {
      *err = st;
      e.close_flag_window(s->window);
      return nullptr;
    }
    e.set_flag_target(s->window, g.ranks[partners[k]], theirs[k]);
  }
  states.push_back(std::move(s));
  return states.back().get();
}

class Flags {
 public:
  Flags(const Group& g, State& s) : g_(g), e_(*g.engine), s_(s), seq_(++s.seq) {}
  Error error() const { return err_; }
  void write(int to, int index) {
    if (err_ == Error::kOk) err_ = e_.write_flag(s_.window, g_.ranks[to], index, seq_);
  }
  void wait(int index, int from) {
    if (err_ == Error::kOk) err_ = e_.wait_flag(s_.window, index, seq_, g_.ranks[from]);
  }

 private:
  const Group& g_;
  mesh::Engine& e_;
  State& s_;
  std::uint64_t seq_;
  Error err_ = Error::kOk;
};

// Seed 002 §3, with the floor(log2 N) + 2 fold for N not a power of two.
void recursive_doubling(Flags& f, const Members& d) {
  const int n = static_cast<int>(d.m.size()), i = d.me;
  if (i < 0 || n < 2) return;
  const int p = floor_pow2(n);
  if (i >= p) {
    f.write(d.m[i - p], kPre);
    f.wait(kPost, d.m[i - p]);
    return;
  }
  if (i + p < n) f.wait(kPre, d.m[i + p]);
  for (int k = 0; (1 << k) < p; ++k) {
    const int partner = d.m[i ^ (1 << k)];
    f.write(partner, kRound + k);
    f.wait(kRound + k, partner);
  }
  if (i + p < n) f.write(d.m[i + p], kPost);
}

}  // namespace

Error flag_barrier(const Group& g, mesh::BarrierChoice how) {
  if (g.size() == 1) return Error::kOk;
  if (how != mesh::BarrierChoice::kRdma && how != mesh::BarrierChoice::kFlat)
    throw std::logic_error("flag_barrier: not a flag-window barrier");
  Error err = Error::kOk;
  State* s = state_for(g, how, &err);
  if (!s) return err;
  Flags f(g, *s);
  const Members& h = s->host;
  // The flat tree's arrivals on this host ...
  if (h.me > 0) f.write(h.m[0], kArrive + h.me);
  for (int j = 1; h.me == 0 && j < static_cast<int>(h.m.size()); ++j) f.wait(kArrive + j, h.m[j]);
  // ... recursive doubling among all members or the hosts' first ...
  recursive_doubling(f, s->doubling);
  // ... and the flat tree's release.
  for (int j = 1; h.me == 0 && j < static_cast<int>(h.m.size()); ++j) f.write(h.m[j], kRelease);
  if (h.me > 0) f.wait(kRelease, h.m[0]);
  return f.error();
}

}  // namespace meshmp::collectives
