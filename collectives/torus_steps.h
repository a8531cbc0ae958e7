// The torus broadcast and reduce of seed 003 §5.2 (axis sweeps) as steps
// over any "call": the blocking collectives run them on a Call that waits at
// each step (collectives.cc), the nonblocking ones append them to a schedule
// (nonblocking.cc, ScheduleCall) -- one description of each algorithm.
//
// A call C offers: post_send(group rank, buf, bytes), post_recv(group rank,
// buf, bytes), finish() (ends the step: what follows waits for it),
// then(f) (a local step after the transfers so far), and scratch(slot,
// bytes) (memory that lives as long as the collective; slots 0..2).
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "collectives/bytes.h"
#include "collectives/group.h"

namespace meshmp::collectives::torus {

/// Whether g's members sit on its torus (so the torus algorithms apply).
inline bool is_torus(const Group& g) { return g.torus && g.torus->size() == g.size(); }

// Position along one axis relative to a root, and the extent of the line on
// each side of the root (seed 003 §5.2: about dim/2 steps per axis).
struct LineOffset {
  int off;       // signed distance from the root along the axis
  int max_plus;  // farthest positive offset on this line
  int min_minus; // farthest negative offset (<= 0)
};

inline LineOffset line_offset(const mesh::Torus& t, int axis, int c, int r) {
  const int n = t.dims()[axis];
  if (t.periodic()[axis]) {
    int d = ((c - r) % n + n) % n;
    if (d > n / 2) d -= n;  // an even line's far node is reached from the + side
    return {d, n / 2, -((n - 1) / 2)};
  }
  return {c - r, n - 1 - r, -r};
}

inline bool zero_above(const std::vector<int>& c, const std::vector<int>& r, const mesh::Torus& t, int axis) {
  for (int b = axis + 1; b < t.ndims(); ++b)
    if (line_offset(t, b, c[b], r[b]).off != 0) return false;
  return true;
}

// Group rank of the node one step along `axis` in direction `sign` from `me`.
inline int step(const mesh::Torus& t, int me, int axis, int sign) { return t.neighbour(me, axis, sign); }

/// Axis sweep from `root`: along axis 0 the root's line, then every line of
/// axis 1 from its node on that line, and so on; `bytes` at buf.
template <typename C>
void broadcast_steps(C& call, const Group& g, void* buf, std::size_t bytes, int root) {
  const mesh::Torus& t = *g.torus;
  const std::vector<int> c = t.coords(g.me), r = t.coords(root);
  for (int a = 0; a < t.ndims(); ++a) {
    if (!zero_above(c, r, t, a)) continue;  // reached in a later phase
    const LineOffset lo = line_offset(t, a, c[a], r[a]);
    if (lo.off > 0) {
      call.post_recv(step(t, g.me, a, -1), buf, bytes);
      call.finish();
    } else if (lo.off < 0) {
      call.post_recv(step(t, g.me, a, +1), buf, bytes);
      call.finish();
    }
    // Forward away from the root along this axis.
    if (lo.off >= 0 && lo.off < lo.max_plus) call.post_send(step(t, g.me, a, +1), buf, bytes);
    if (lo.off <= 0 && lo.off > lo.min_minus) call.post_send(step(t, g.me, a, -1), buf, bytes);
    call.finish();
  }
}

/// Reverse sweep: axis D-1 first, each line folding toward offset 0; the
/// partial from the + side is combined before the one from the - side, so
/// the result has the same bits whatever order messages arrive in. `count`
/// elements at buf (read at the start); the result lands in root's buf.
template <typename C>
void reduce_steps(C& call, const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root) {
  const mesh::Torus& t = *g.torus;
  const std::size_t bytes = count * op.elem_size;
  const std::vector<int> c = t.coords(g.me), r = t.coords(root);
  char* partial = call.scratch(0, bytes);
  char* in_plus = call.scratch(1, bytes);
  char* in_minus = call.scratch(2, bytes);
  call.then([=] { copy_bytes(partial, buf, bytes); });
  for (int a = t.ndims() - 1; a >= 0; --a) {
    if (!zero_above(c, r, t, a)) continue;  // this node's partial already left
    const LineOffset lo = line_offset(t, a, c[a], r[a]);
    const bool from_plus = lo.off >= 0 && lo.off < lo.max_plus;
    const bool from_minus = lo.off <= 0 && lo.off > lo.min_minus;
    if (from_plus) call.post_recv(step(t, g.me, a, +1), in_plus, bytes);
    if (from_minus) call.post_recv(step(t, g.me, a, -1), in_minus, bytes);
    call.finish();
    call.then([=] {
      if (from_plus) op.combine(partial, in_plus, count, op.ctx);
      if (from_minus) op.combine(partial, in_minus, count, op.ctx);
    });
    if (lo.off != 0) {
      call.post_send(step(t, g.me, a, lo.off > 0 ? -1 : +1), partial, bytes);
      call.finish();
      break;  // handed on; nothing more for this node
    }
  }
  if (g.me == root) call.then([=] { copy_bytes(buf, partial, bytes); });
}

}  // namespace meshmp::collectives::torus
