// Finalize where ranks forward (Engine::shutdown, before the BYEs): no rank
// may leave while another's frames may still need it as a relay.
#include "mesh/engine/engine_impl.h"

namespace meshmp::mesh {

//  1. Every frame this rank sent to a routed peer is taken there (all
//     end-to-end credits back), and it owes none: credits go back at once
//     from now on, and what comes goes to the unexpected queue whatever its
//     limit (nothing here will receive it; a held frame would keep its
//     source waiting).
//  2. It says it is finalizing, to the providers (shm's flag) and the
//     launcher (qmprun tells every rank): a rank blocked in a receive from
//     it then fails that receive (check_liveness) -- nothing more will come.
//  3. Every rank's word that it finished step 1 floods the torus hop by hop
//     over the live neighbour links, never relayed (hear_every_rank): past
//     it no routed frame is on its way anywhere, and only neighbour frames
//     -- the BYEs -- follow.
void Engine::Impl::quiesce_routes() {
  e2e_flush = true;
  ++probing;
  block_until([&] {
    return_all_e2e_credits();
    for (auto& ls : links)
      if (!ls->sendq.empty() && peers[ls->peer].failed == Error::kOk) return false;
    return routed_quiet();
  });
  for (Provider* pv : in_use) pv->finalizing();
  if (boot) boot->finalizing();  // (the launcher tells the ranks on other hosts: qmprun)
  hear_every_rank();
  --probing;
}

// Finalize's barrier where ranks forward. Each rank passes each rank's word
// (a 0-byte message whose tag names the rank it is from, its own first) on
// once, to every live neighbour -- one reached by a link of its own, not
// around a dead cable (detours.cc) -- and leaves once it has every word and
// every live neighbour has passed it every word. So nothing more comes to a
// rank that leaves, and what it passed on, its neighbours take before they
// leave: no message needs a relay that has gone, also where a neighbour is
// reached only around a dead cable (an exchange along the axes would route
// that pair's messages through ranks that may have left). Ranks that failed
// have no word to wait for; one that went by finalize sent its word first,
// and it is waited for. N words to and from each neighbour, every one taken.
void Engine::Impl::hear_every_rank() {
  const Torus& t = e.torus_;
  const int n = e.size_;
  std::vector<int> nbrs;
  for (int d = 0; d < 2 * t.ndims(); ++d) {
    const int q = t.neighbour(e.rank_, Direction::from_index(d));
    if (q >= 0 && q != e.rank_ && std::find(nbrs.begin(), nbrs.end(), q) == nbrs.end()) nbrs.push_back(q);
  }
  auto live = [&](int q) { return !peers[q].links.empty() && peers[q].failed == Error::kOk; };
  auto has_word = [&](int o) { return peers[o].failed == Error::kOk || peers[o].finalized; };
  std::vector<char> heard(static_cast<std::size_t>(n), 0);
  std::vector<std::vector<char>> got(nbrs.size(), std::vector<char>(static_cast<std::size_t>(n), 0));
  std::vector<Request*> posted(nbrs.size(), nullptr), sent;
  std::vector<char> drained(nbrs.size(), 0);  // a neighbour gone, whose last words were read
  auto pass_on = [&](int origin) {
    heard[static_cast<std::size_t>(origin)] = 1;
    for (int q : nbrs)
      if (live(q)) sent.push_back(e.isend(nullptr, 0, q, origin, kFinalizeContext));
  };
  auto owes = [&](std::size_t i) {  // live neighbour i has a word still to pass to this rank
    if (!live(nbrs[i])) return false;
    for (int o = 0; o < n; ++o)
      if (!got[i][static_cast<std::size_t>(o)] && has_word(o)) return true;
    return false;
  };
  auto take = [&](std::size_t i, Request* r) {  // a word neighbour i passed on, if it is one
    const int origin = r->status.tag;
    const bool ok = r->status.error == Error::kOk && origin >= 0 && origin < n;
    collect(r, nullptr);
    if (!ok) return false;
    got[i][static_cast<std::size_t>(origin)] = 1;
    if (!heard[static_cast<std::size_t>(origin)]) pass_on(origin);
    return true;
  };
  pass_on(e.rank_);
  block_until([&] {
    bool done = true;
    for (std::size_t i = 0; i < nbrs.size(); ++i) {
      Request*& r = posted[i];
      if (r && r->state == State::kDone) {
        take(i, r);
        r = nullptr;
      }
      if (!r && owes(i)) {
        r = e.irecv(nullptr, 0, nbrs[i], kAnyTag, kFinalizeContext);
      } else if (!r && !live(nbrs[i]) && !drained[i]) {
        // Gone (its BYE came after its last word) or cut off: the words it
        // passed before that and that came while no receive was posted
        // wait unread -- take them, so this rank passes them on too. No
        // more come after that.
        drained[i] = 1;
        for (;;) {
          Request* w = e.irecv(nullptr, 0, nbrs[i], kAnyTag, kFinalizeContext);
          if (w->state != State::kDone) {
            e.cancel(w);
            e.wait(w, nullptr);
            break;
          }
          if (!take(i, w)) break;  // (a failed peer's receive ends at once, with an error)
        }
      }
      done &= !owes(i);
    }
    for (int o = 0; o < n && done; ++o) done = heard[static_cast<std::size_t>(o)] || !has_word(o);
    return done;
  });
  for (Request* r : posted)
    if (r) {  // (a neighbour that failed or went around a dead cable meanwhile)
      e.cancel(r);
      e.wait(r, nullptr);
    }
  e.waitall(sent.size(), sent.data(), nullptr);
}

}  // namespace meshmp::mesh
