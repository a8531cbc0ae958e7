// Agreeing on context ids over a group (mesh/context_ids.h): MPICH's
// context-id mask -- an AND-allreduce of every member's free pairs, then the
// lowest pair free in the result, taken by every member alike; and the same
// as a schedule for MPI_Comm_idup, from the top, with a vote.
#include "collectives/collectives.h"
#include "collectives/nonblocking.h"

#include <algorithm>
#include <memory>

namespace meshmp::collectives {

namespace {

ReduceOp bitwise_and() {
  ReduceOp band;
  band.elem_size = sizeof(std::uint32_t);
  band.keeps_in = true;
  band.combine = [](void* io, const void* in, std::size_t n, void*) {
    for (std::size_t i = 0; i < n; ++i)
      static_cast<std::uint32_t*>(io)[i] &= static_cast<const std::uint32_t*>(in)[i];
  };
  return band;
}

// Every member's vote: the lowest and the highest over the group.
struct Vote {
  std::uint32_t lo, hi;
};

ReduceOp low_and_high() {
  ReduceOp op;
  op.elem_size = sizeof(Vote);
  op.keeps_in = true;
  op.combine = [](void* io, const void* in, std::size_t n, void*) {
    for (std::size_t i = 0; i < n; ++i) {
      Vote& a = static_cast<Vote*>(io)[i];
      const Vote& b = static_cast<const Vote*>(in)[i];
      a.lo = std::min(a.lo, b.lo);
      a.hi = std::max(a.hi, b.hi);
    }
  };
  return op;
}

}  // namespace

mesh::Error free_context_mask(const Group& g, mesh::ContextIds::Mask* agreed) {
  *agreed = g.engine->context_ids().free_mask();
  return allreduce(g, agreed->data(), agreed->size(), bitwise_and());
}

mesh::Error agree_context_pairs(const Group& g, std::uint32_t* ctx, int n) {
  mesh::ContextIds::Mask agreed;
  const mesh::Error err = free_context_mask(g, &agreed);
  for (int i = 0; i < n; ++i)
    ctx[i] = err == mesh::Error::kOk ? g.engine->context_ids().take_lowest_agreed(agreed) : mesh::ContextIds::kNone;
  return err;
}

// One attempt: the AND of every member's free pairs as they are now; each
// member takes the highest pair of it still free here, from the attempt's
// bucket first (ContextIds::take_highest: two agreements outstanding at
// once -- whose steps may run in one order on one member and in the other
// on another -- then want different pairs), and votes for it; the low and
// high of the votes decide -- all alike: that pair; any member with none:
// none; else every member gives back what it took and tries again with
// fresh masks and the next bucket (what the clash took is then out of
// every mask, and two agreements that clashed meet again only by chance).
void add_agree_context_pair(Schedule& s, const Group& g, std::uint32_t salt,
                            std::function<void(std::uint32_t ctx)> done) {
  struct Attempt {
    mesh::ContextIds::Mask mask{};
    Vote vote{};
    std::uint32_t mine = mesh::ContextIds::kNone;
    std::uint32_t bucket = 0;
    std::function<void(std::uint32_t)> done;
    std::function<void()> again;
  };
  Attempt* a = s.hold(Attempt{});
  a->done = std::move(done);
  a->bucket = salt * 2654435761u >> 26;  // 0..63, spread (Knuth's multiplicative hash)
  a->again = [&s, g, a] {
    s.next();
    s.then([g, a] { a->mask = g.engine->context_ids().free_mask(); });
    s.next();
    add_allreduce(s, g, a->mask.data(), a->mask.size(), bitwise_and());
    s.then([g, a] {
      mesh::ContextIds::Mask m = a->mask;
      a->mine = g.engine->context_ids().take_highest(m, a->bucket);
      a->vote = {a->mine, a->mine};
    });
    s.next();
    add_allreduce(s, g, &a->vote, 1, low_and_high());
    s.then([g, a] {
      const bool none = a->vote.hi == mesh::ContextIds::kNone;
      if (a->vote.lo == a->vote.hi && !none) return a->done(a->mine);
      if (a->mine != mesh::ContextIds::kNone) g.engine->context_ids().release(a->mine);
      if (none) return a->done(mesh::ContextIds::kNone);
      a->bucket = (a->bucket + 37) % 64;  // every member alike
      a->again();
    });
  };
  a->again();
}

}  // namespace meshmp::collectives
