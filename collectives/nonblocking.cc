#include "collectives/nonblocking.h"
#include "collectives/bytes.h"

#include "collectives/torus_steps.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

namespace meshmp::collectives {
namespace {

// The torus steps (torus_steps.h) appended to a schedule: a step's
// transfers make one round, finish() ends it.
struct ScheduleCall {
  Schedule& s;
  const Group& g;
  Forwarding* fwd = nullptr;  ///< a broadcast's: receives exact, sends forwards (Schedule::recv_exact)
  void post_send(int to, const void* buf, std::size_t n) {
    if (fwd)
      s.forward(g.ranks[to], buf, n, fwd);
    else
      s.send(g.ranks[to], buf, n);
  }
  void post_recv(int from, void* buf, std::size_t n) {
    if (fwd)
      s.recv_exact(g.ranks[from], buf, n, fwd);
    else
      s.recv(g.ranks[from], buf, n);
  }
  void finish() { s.next(); }
  template <typename F>
  void then(F&& f) { s.then(std::forward<F>(f)); }
  char* scratch(int, std::size_t bytes) { return s.scratch(bytes); }
};

// A local copy as a step (the member's own block); nothing when in place.
void copy_step(Schedule& s, void* to, const void* from, std::size_t bytes) {
  if (!bytes || to == from) return;
  s.then([to, from, bytes] { move_bytes(to, from, bytes); });
}

}  // namespace

void add_barrier(Schedule& s, const Group& g) {
  const int p = g.size(), me = g.me;
  for (int k = 1; k < p; k <<= 1) {
    s.next();
    s.send(g.ranks[(me + k) % p], nullptr, 0);
    s.recv(g.ranks[(me - k + p) % p], nullptr, 0);
  }
}

void add_broadcast(Schedule& s, const Group& g, void* buf, std::size_t bytes, int root) {
  Forwarding* fwd = s.hold(Forwarding{});  // what this member received, and so forwards
  if (torus::is_torus(g)) {  // the blocking broadcast's axis sweep (seed 003 §5.2)
    ScheduleCall call{s, g, fwd};
    s.next();
    torus::broadcast_steps(call, g, buf, bytes, root);
    return;
  }
  const int p = g.size();
  const int rel = (g.me - root + p) % p;
  auto world = [&](int r) { return g.ranks[(r + root) % p]; };
  int mask = 1;
  for (; mask < p; mask <<= 1)
    if (rel & mask) {  // the parent: rel with its lowest set bit cleared
      s.next();
      s.recv_exact(world(rel - mask), buf, bytes, fwd);
      break;
    }
  s.next();
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < p) s.forward(world(rel + mask), buf, bytes, fwd);
}

void add_reduce(Schedule& s, const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root) {
  if (op.commutative && torus::is_torus(g)) {  // the blocking reduce's reverse sweep
    ScheduleCall call{s, g};
    s.next();
    torus::reduce_steps(call, g, buf, count, op, root);
    return;
  }
  const int p = g.size();
  // Rank order for a non-commutative op: the tree is rooted at rank 0, where
  // each subtree covers consecutive ranks, and the result goes on to root.
  const int top = op.commutative ? root : 0;
  const int rel = (g.me - top + p) % p;
  auto world = [&](int r) { return g.ranks[(r + top) % p]; };
  const std::size_t bytes = count * op.elem_size;
  // Children rel+1, rel+2, rel+4, ... below rel's lowest set bit, all
  // received in one round, combined in that (rank) order.
  std::vector<char*> parts;
  s.next();
  int mask = 1;
  for (; mask < p && !(rel & mask); mask <<= 1)
    if (rel + mask < p) {
      char* part = s.scratch(bytes);
      s.recv(world(rel + mask), part, bytes);
      parts.push_back(part);
    }
  if (!parts.empty())
    s.then([buf, count, op, parts] {
      for (char* part : parts) op.combine(buf, part, count, op.ctx);  // buf (lower ranks) op part
    });
  s.next();
  if (rel != 0) s.send(world(rel - (rel & -rel)), buf, bytes);
  if (top != root) {
    s.next();
    if (g.me == top) s.send(g.ranks[root], buf, bytes);
    if (g.me == root) s.recv(g.ranks[top], buf, bytes);
  }
}

void add_allreduce(Schedule& s, const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
  add_reduce(s, g, buf, count, op, 0);
  add_broadcast(s, g, buf, count * op.elem_size, 0);
}

void add_gatherv(Schedule& s, const Group& g, const void* send, std::size_t bytes, void* recv,
                 const std::size_t* counts, const std::size_t* displs, int root) {
  s.next();
  if (g.me != root) {
    s.send(g.ranks[root], send, bytes);
    return;
  }
  char* to = static_cast<char*>(recv);
  for (int i = 0; i < g.size(); ++i)
    if (i != root) s.recv(g.ranks[i], to + displs[i], counts[i]);
  copy_step(s, to + displs[root], send, std::min(bytes, counts[root]));
}

void add_gather(Schedule& s, const Group& g, const void* send, void* recv, std::size_t block, int root) {
  const std::vector<std::size_t> counts(g.size(), block);
  std::vector<std::size_t> displs(g.size());
  for (int i = 0; i < g.size(); ++i) displs[i] = i * block;
  add_gatherv(s, g, send, block, recv, counts.data(), displs.data(), root);
}

void add_scatterv(Schedule& s, const Group& g, const void* send, const std::size_t* counts,
                  const std::size_t* displs, void* recv, std::size_t bytes, int root) {
  s.next();
  if (g.me != root) {
    s.recv(g.ranks[root], recv, bytes);
    return;
  }
  const char* from = static_cast<const char*>(send);
  for (int i = 0; i < g.size(); ++i)
    if (i != root) s.send(g.ranks[i], from + displs[i], counts[i]);
  copy_step(s, recv, from + displs[root], std::min(bytes, counts[root]));
}

void add_scatter(Schedule& s, const Group& g, const void* send, void* recv, std::size_t block, int root) {
  const std::vector<std::size_t> counts(g.size(), block);
  std::vector<std::size_t> displs(g.size());
  for (int i = 0; i < g.size(); ++i) displs[i] = i * block;
  add_scatterv(s, g, send, counts.data(), displs.data(), recv, block, root);
}

void add_allgatherv(Schedule& s, const Group& g, const void* send, void* recv, const std::size_t* counts,
                    const std::size_t* displs) {
  s.next();
  char* to = static_cast<char*>(recv);
  for (int i = 0; i < g.size(); ++i) {
    if (i == g.me) continue;
    s.send(g.ranks[i], send, counts[g.me]);
    s.recv(g.ranks[i], to + displs[i], counts[i]);
  }
  copy_step(s, to + displs[g.me], send, counts[g.me]);
}

void add_alltoallv(Schedule& s, const Group& g, const void* send, const std::size_t* scounts,
                   const std::size_t* sdispls, void* recv, const std::size_t* rcounts, const std::size_t* rdispls) {
  s.next();
  const char* from = static_cast<const char*>(send);
  char* to = static_cast<char*>(recv);
  for (int i = 0; i < g.size(); ++i) {
    if (i == g.me) continue;
    s.send(g.ranks[i], from + sdispls[i], scounts[i]);
    s.recv(g.ranks[i], to + rdispls[i], rcounts[i]);
  }
  copy_step(s, to + rdispls[g.me], from + sdispls[g.me], std::min(scounts[g.me], rcounts[g.me]));
}

void add_alltoall(Schedule& s, const Group& g, const void* send, void* recv, std::size_t block) {
  const std::vector<std::size_t> counts(g.size(), block);
  std::vector<std::size_t> displs(g.size());
  for (int i = 0; i < g.size(); ++i) displs[i] = i * block;
  add_alltoallv(s, g, send, counts.data(), displs.data(), recv, counts.data(), displs.data());
}

void add_scan(Schedule& s, const Group& g, void* buf, std::size_t count, const ReduceOp& op, bool exclusive) {
  const int me = g.me, p = g.size();
  const std::size_t bytes = count * op.elem_size;
  // Member i receives the combination of 0..i-1 from i-1 and passes that
  // combined with its own operand on to i+1.
  char* out = static_cast<char*>(buf);  // what goes on to me+1
  if (me > 0) {
    char* prefix = s.scratch(bytes);
    s.next();
    s.recv(g.ranks[me - 1], prefix, bytes);
    if (exclusive) {
      char* mine = s.scratch(bytes);
      s.then([buf, prefix, mine, bytes, count, op] {
        copy_bytes(mine, buf, bytes);
        copy_bytes(buf, prefix, bytes);            // my result: ranks 0..me-1
        op.combine(prefix, mine, count, op.ctx);    // passed on: 0..me-1 (op) mine
      });
      out = prefix;
    } else {
      s.then([buf, prefix, bytes, count, op] {
        op.combine(prefix, buf, count, op.ctx);  // 0..me-1 (op) mine
        copy_bytes(buf, prefix, bytes);
      });
    }
  }  // member 0 passes its operand on; under `exclusive` its buf stays as it is
  if (me + 1 < p) {
    s.next();
    s.send(g.ranks[me + 1], out, bytes);
  }
}

}  // namespace meshmp::collectives
