#include "collectives/collectives.h"
#include "collectives/bytes.h"
#include "collectives/flag_barrier.h"
#include "collectives/forwarding.h"
#include "collectives/hierarchy.h"
#include "collectives/personalized.h"
#include "collectives/torus_steps.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

namespace meshmp::collectives {
namespace {

using mesh::Engine;
using mesh::Error;
using mesh::Request;
using mesh::Status;

thread_local int g_last_depth = 0;

// Scratch memory kept across calls: a fresh multi-MiB vector per call costs
// a page fault on every first touch (and the RDMA writes into it as well).
enum Scratch { kPartial, kInPlus, kInMinus, kGathered, kFoldStack, kScratchSlots };
char* scratch(Scratch slot, std::size_t bytes) {
  thread_local std::vector<char> bufs[kScratchSlots];
  if (bufs[slot].size() < bytes + 1) bufs[slot].resize(bytes + 1);
  return bufs[slot].data();
}

// The request and status arrays of the calls in progress, kept across
// calls: a Call with arrays of its own allocated two or three times per
// collective (first request, growth, statuses). A Call takes a pair from
// here and gives it back, emptied, so nested calls each get their own.
struct CallArrays {
  std::vector<Request*> reqs;
  std::vector<Status> statuses;
  std::vector<std::size_t> lengths;  ///< exact lengths: each request's posted bytes (kNotReceive: a send)
};
thread_local std::vector<CallArrays> g_spare_arrays;
CallArrays take_arrays() {
  if (g_spare_arrays.empty()) return {};
  CallArrays a = std::move(g_spare_arrays.back());
  g_spare_arrays.pop_back();
  return a;
}

// One collective call in progress on this rank. Every message carries, as
// its tag, the number of messages in sequence before it on its causal path
// (its depth); a receive raises this rank's depth to the sender's + 1.
class Call {
 public:
  /// start_depth: messages already in sequence before this call on this rank
  /// (a broadcast that continues a reduce).
  explicit Call(const Group& g, int start_depth = 0)
      : g_(g), e_(*g.engine), a_(take_arrays()), depth_(start_depth) {}
  ~Call() {
    g_last_depth = depth_;
    a_.reqs.clear();
    a_.lengths.clear();
    g_spare_arrays.push_back(std::move(a_));
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  Error error() const { return err_; }

  /// From now on every receive must be exactly as long as posted, and
  /// every send forwards what was received (a broadcast: each member's
  /// count is the root's, MPI-1.1 §4.4). A shorter or longer message makes
  /// the call's error kTruncate; the call goes on, so the members it
  /// forwards to are not left waiting, and they are told too: its forwards
  /// are as long as what it received, one byte longer than its count if
  /// the message was cut (forwarding.h). A member whose receive failed
  /// (its upstream died, or the link to it broke) has nothing to forward:
  /// its forwards carry no data and the tag kUpstreamFailed, and the
  /// members they reach end with kPeerDead and forward that on, so every
  /// member below a dead one learns the cause at once, not a length
  /// mismatch.
  void expect_exact_lengths() { exact_ = true; }
  void post_send(int to, const void* buf, std::size_t n) {
    int tag = depth_;
    if (exact_ && upstream_failed_) {
      n = 0;
      tag = kUpstreamFailed;
    } else if (exact_) {
      buf = forwarding_.from(buf, n, &n);
    }
    a_.reqs.push_back(e_.isend(buf, n, g_.ranks[to], tag, g_.context));
    if (exact_) a_.lengths.push_back(kNotReceive);
  }
  void post_recv(int from, void* buf, std::size_t n) {
    a_.reqs.push_back(e_.irecv(buf, n, g_.ranks[from], mesh::kAnyTag, g_.context));
    if (exact_) a_.lengths.push_back(n);
  }
  // A local step: at once (the transfers before it have finished).
  template <typename F>
  void then(F&& f) { f(); }
  // Slot i (0..2) of the scratch kept across calls (torus_steps.h).
  char* scratch(int slot, std::size_t bytes) { return collectives::scratch(static_cast<Scratch>(slot), bytes); }
  // Completes everything posted since the last finish (one step).
  void finish() {
    a_.statuses.resize(a_.reqs.size());
    e_.waitall(a_.reqs.size(), a_.reqs.data(), a_.statuses.data());
    int step_depth = depth_;
    for (std::size_t i = 0; i < a_.statuses.size(); ++i) {
      const Status& st = a_.statuses[i];
      if (st.error != Error::kOk && err_ == Error::kOk) err_ = st.error;
      if (exact_ && a_.lengths[i] != kNotReceive) {
        if (st.error == Error::kOk && st.tag == kUpstreamFailed) {
          if (err_ == Error::kOk || err_ == Error::kTruncate) err_ = Error::kPeerDead;
          upstream_failed_ = true;
          continue;
        }
        if (st.error != Error::kOk && st.error != Error::kTruncate) {
          upstream_failed_ = true;
          continue;
        }
        if (st.bytes != a_.lengths[i] && err_ == Error::kOk) err_ = Error::kTruncate;
        forwarding_.received(st, a_.lengths[i]);
      }
      if (st.tag >= 0 && st.source != g_.ranks[g_.me]) step_depth = std::max(step_depth, st.tag + 1);
    }
    depth_ = step_depth;
    a_.reqs.clear();
    a_.lengths.clear();
  }

 private:
  const Group& g_;
  Engine& e_;
  CallArrays a_;  ///< this call's requests (posted since the last finish) and their statuses
  static constexpr std::size_t kNotReceive = ~std::size_t{0};
  /// The tag of a forward from a member whose own receive failed (depths,
  /// the other tags, stay far below it).
  static constexpr int kUpstreamFailed = mesh::kTagUb;
  int depth_;
  bool exact_ = false;
  bool upstream_failed_ = false;  ///< expect_exact_lengths: this member's receive failed
  Forwarding forwarding_;  ///< expect_exact_lengths: what the sends forward
  Error err_ = Error::kOk;
};

using torus::is_torus;
using torus::line_offset;
using torus::LineOffset;
using torus::step;
using torus::zero_above;

// ---- torus algorithms (seed 003 §5.2) -----------------------------------------

Error torus_broadcast(const Group& g, void* buf, std::size_t bytes, int root, int start_depth) {
  Call call(g, start_depth);
  call.expect_exact_lengths();
  torus::broadcast_steps(call, g, buf, bytes, root);
  return call.error();
}

Error torus_reduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root) {
  Call call(g);
  torus::reduce_steps(call, g, buf, count, op, root);
  return call.error();
}

// Dimension-wise exchange: along each axis every node floods its value both
// ways for floor(dim/2) steps (n-1 on an open axis), then combines the
// line's values in coordinate order, so all nodes get the same bits.
Error torus_exchange_allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
  const mesh::Torus& t = *g.torus;
  const std::size_t bytes = count * op.elem_size;
  Call call(g);
  const std::vector<int> c = t.coords(g.me);
  for (int a = 0; a < t.ndims(); ++a) {
    const int n = t.dims()[a], p = c[a];
    if (n == 1) continue;
    const bool periodic = t.periodic()[a];
    char* vals = scratch(kGathered, static_cast<std::size_t>(n) * bytes);
    auto slot = [&](int coord) { return vals + static_cast<std::size_t>((coord % n + n) % n) * bytes; };
    copy_bytes(slot(p), buf, bytes);
    const int right = t.neighbour(g.me, a, +1), left = t.neighbour(g.me, a, -1);
    const int steps = periodic ? n / 2 : n - 1;
    for (int s = 1; s <= steps; ++s) {
      const bool last_even = periodic && n % 2 == 0 && s == n / 2;  // far node: one side only
      if (right >= 0 && (periodic || p - (s - 1) >= 0)) call.post_send(right, slot(p - (s - 1)), bytes);
      if (left >= 0 && !last_even && (periodic || p + (s - 1) <= n - 1))
        call.post_send(left, slot(p + (s - 1)), bytes);
      if (left >= 0 && (periodic || p - s >= 0)) call.post_recv(left, slot(p - s), bytes);
      if (right >= 0 && !last_even && (periodic || p + s <= n - 1)) call.post_recv(right, slot(p + s), bytes);
      call.finish();
    }
    copy_bytes(buf, slot(0), bytes);
    for (int k = 1; k < n; ++k) op.combine(buf, slot(k), count, op.ctx);
  }
  return call.error();
}

// Ring allreduce: member i owns segment i. Reduce-scatter: in step s every
// member passes its partial of segment (me - s) to the right and folds the
// left neighbour's partial of segment (me - s - 1) into its own; after p-1
// steps member i holds segment (i + 1) mod p complete. All-gather: p-1 more
// steps pass completed segments around. Each segment is combined by one
// fixed chain, so every member ends with the same bits.
Error ring_allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
  const int p = g.size(), me = g.me;
  const int right = (me + 1) % p, left = (me + p - 1) % p;
  char* data = static_cast<char*>(buf);
  // Segment k (taken mod p) is elements [count*k/p, count*(k+1)/p).
  auto norm = [&](int s) { return static_cast<std::size_t>((s % p + p) % p); };
  auto seg_begin = [&](int s) { return count * norm(s) / p; };
  auto seg_count = [&](int s) { return count * (norm(s) + 1) / p - seg_begin(s); };
  auto seg_ptr = [&](int s) { return data + seg_begin(s) * op.elem_size; };
  char* in = scratch(kInPlus, (count / p + 1) * op.elem_size);
  Call call(g);
  for (int s = 0; s < p - 1; ++s) {
    const int out_seg = me - s, in_seg = me - s - 1;
    call.post_recv(left, in, seg_count(in_seg) * op.elem_size);
    call.post_send(right, seg_ptr(out_seg), seg_count(out_seg) * op.elem_size);
    call.finish();
    // The incoming partial covers members further up the chain: combine it
    // first, so the order along the chain is the same for every segment.
    char* mine = seg_ptr(in_seg);
    op.combine(in, mine, seg_count(in_seg), op.ctx);
    copy_bytes(mine, in, seg_count(in_seg) * op.elem_size);
  }
  for (int s = 0; s < p - 1; ++s) {
    const int out_seg = me + 1 - s, in_seg = me - s;
    call.post_recv(left, seg_ptr(in_seg), seg_count(in_seg) * op.elem_size);
    call.post_send(right, seg_ptr(out_seg), seg_count(out_seg) * op.elem_size);
    call.finish();
  }
  return call.error();
}

// ---- generic algorithms ------------------------------------------------------

int rel(const Group& g, int grank, int root) { return (grank - root + g.size()) % g.size(); }
int abs_rank(const Group& g, int relrank, int root) { return (relrank + root) % g.size(); }

Error binomial_broadcast(const Group& g, void* buf, std::size_t bytes, int root, int start_depth) {
  Call call(g, start_depth);
  call.expect_exact_lengths();
  const int p = g.size(), me = rel(g, g.me, root);
  int mask = 1;
  while (mask < p) {
    if (me & mask) {
      call.post_recv(abs_rank(g, me - mask, root), buf, bytes);
      call.finish();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (me + mask < p) call.post_send(abs_rank(g, me + mask, root), buf, bytes);
  call.finish();
  return call.error();
}

Error binomial_reduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root) {
  const std::size_t bytes = count * op.elem_size;
  char* partial = scratch(kPartial, bytes);
  char* in = scratch(kInPlus, bytes);
  copy_bytes(partial, buf, bytes);
  Call call(g);
  const int p = g.size(), me = rel(g, g.me, root);
  for (int mask = 1; mask < p; mask <<= 1) {
    if (me & mask) {
      call.post_send(abs_rank(g, me - mask, root), partial, bytes);
      call.finish();
      break;
    }
    if (me + mask < p) {
      call.post_recv(abs_rank(g, me + mask, root), in, bytes);
      call.finish();
      op.combine(partial, in, count, op.ctx);
    }
  }
  if (g.me == root) copy_bytes(buf, partial, bytes);
  return call.error();
}


// The shared-memory path needs every rank of the job in the group (so all
// ranks run these collectives in one order) on one host, and a small payload.
bool whole_job_on_one_host(const Group& g) {
  const mesh::Engine& e = *g.engine;
  return g.size() == e.size() && e.smp_available();
}
bool smp_applies(const Group& g, std::size_t bytes) {
  return whole_job_on_one_host(g) && bytes <= g.engine->smp_max_bytes();
}

// Folds p contributions of `count` elements, `at(i)` giving member i's,
// into `result` in binomial order: pairs (0,1), (2,3), ... first, then
// pairs of those, and so on -- the order binomial_reduce combines in, and
// recursive doubling's (MPICH's and Open MPI's short allreduce) where p is
// a power of two, so a one-host sum has the bits a sub-communicator's or
// another MPI's has; rounding error grows with log p, not p. A partial is
// always the left operand of the one after it (group-rank order, MPI-1.1
// §4.9.4). `in_copy` (count elements), where not null, takes each
// contribution combined in place first (an op that may write its `in`,
// reading memory other ranks still read).
template <class At>
void binomial_fold(int p, At at, std::size_t count, const ReduceOp& op, char* result, char* in_copy) {
  const std::size_t bytes = count * op.elem_size;
  // Partials not yet combined, each covering 2^level members: slot 0 is
  // `result`, the others scratch; at most bit_width(p) of them.
  char* stack = scratch(kFoldStack, static_cast<std::size_t>(std::bit_width(static_cast<unsigned>(p))) * bytes);
  int level[64];
  int top = 0;
  auto slot = [&](int k) { return k == 0 ? result : stack + static_cast<std::size_t>(k - 1) * bytes; };
  for (int i = 0; i < p; ++i) {
    const char* c = at(i);
    if (top > 0 && level[top - 1] == 0) {  // the right half of a pair: no copy
      if (in_copy) {
        copy_bytes(in_copy, c, bytes);
        c = in_copy;
      }
      op.combine(slot(top - 1), c, count, op.ctx);
      level[top - 1] = 1;
    } else {
      copy_bytes(slot(top), c, bytes);
      level[top++] = 0;
    }
    for (; top >= 2 && level[top - 2] == level[top - 1]; --top) {
      op.combine(slot(top - 2), slot(top - 1), count, op.ctx);
      ++level[top - 2];
    }
  }
  // p not a power of two: the last, smaller partials join right to left
  // (binomial_reduce's rank 4 of 7 takes 5, then 6, then goes to 0).
  for (; top >= 2; --top) op.combine(slot(top - 2), slot(top - 1), count, op.ctx);
}

// Every member's contribution, combined in binomial order by the last to
// arrive, so all members get the same bits.
Error smp_allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
  g_last_depth = 0;
  struct Fold {
    const Group& g;
    const ReduceOp& op;
    std::size_t count;
    static void run(const char* all, void* result, void* ctx) {
      const Fold& f = *static_cast<const Fold*>(ctx);
      const std::size_t bytes = f.count * f.op.elem_size;
      // `all` is the engine's copy of every contribution: combine may write it.
      binomial_fold(
          f.g.size(), [&](int i) { return all + static_cast<std::size_t>(f.g.ranks[i]) * bytes; }, f.count, f.op,
          static_cast<char*>(result), nullptr);
    }
  } fold{g, op, count};
  return g.engine->smp_combine(buf, count * op.elem_size, buf, &Fold::run, &fold);
}

// Long vectors on one host: a reduce-scatter and all-gather through shared
// memory, chunk by chunk (MPICH's and Open MPI's shared-memory designs,
// issue 32). Each rank copies its chunk into its staging buffer; after a
// barrier it folds its 1/p slice straight from every rank's staging buffer
// in binomial order (binomial_fold: bit-identical everywhere, the short
// combine's order, and rank order for a non-commutative op) into its result and back into its
// own staging slice; after a second barrier it copies every other slice
// out. The two staging buffers alternate from chunk to chunk (a
// process-wide count: every rank runs the same sequence), so a rank may
// fill the next chunk while a slower one still reads the last.
Error smp_staged_allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
  static std::uint64_t chunks_done = 0;
  g_last_depth = 0;
  Engine& e = *g.engine;
  const std::size_t es = op.elem_size, p = static_cast<std::size_t>(g.size());
  const std::size_t chunk_elems = e.smp_staging_bytes() / es;
  char* out = static_cast<char*>(buf);
  char* in_copy = op.keeps_in ? nullptr : scratch(kInPlus, (chunk_elems / p + 1) * es);
  int none = 0;
  auto barrier = [&] { return e.smp_combine(&none, 0, &none, nullptr, nullptr); };
  // The first barrier also agrees on the count (least and largest): ranks
  // whose counts differ would chunk differently, so then no rank combines,
  // and one given fewer elements than another gets kTruncate (as the other
  // algorithms do; the result is undefined).
  struct Counts {
    std::uint64_t least, largest;
    static void fold(const char* all, void* result, void* ctx) {
      Counts c{~std::uint64_t{0}, 0};
      for (int r = 0; r < *static_cast<const int*>(ctx); ++r) {
        Counts x;
        std::memcpy(&x, all + static_cast<std::size_t>(r) * sizeof x, sizeof x);
        c.least = std::min(c.least, x.least);
        c.largest = std::max(c.largest, x.largest);
      }
      std::memcpy(result, &c, sizeof c);
    }
  };
  int world = e.size();
  for (std::size_t first = 0; first < count || first == 0; first += chunk_elems) {
    const std::size_t n = std::min(chunk_elems, count - first), per = (n + p - 1) / p;
    // Member j's slice of this chunk: elements [lo, hi).
    auto slice = [&](int j, std::size_t* lo, std::size_t* hi) {
      *lo = std::min(n, per * static_cast<std::size_t>(j));
      *hi = std::min(n, *lo + per);
    };
    const int which = static_cast<int>(chunks_done++ & 1);
    char* mine = e.smp_staging(g.ranks[g.me], which);
    copy_bytes(mine, out + first * es, n * es);
    if (first == 0) {
      Counts c{count, count};
      if (Error err = e.smp_combine(&c, sizeof c, &c, &Counts::fold, &world); err != Error::kOk) return err;
      if (c.least != c.largest) return count < c.largest ? Error::kTruncate : Error::kOk;
      if (count == 0) return Error::kOk;
    } else if (Error err = barrier(); err != Error::kOk) {
      return err;
    }
    std::size_t lo, hi;
    slice(g.me, &lo, &hi);
    if (hi > lo) {
      char* res = out + (first + lo) * es;  // our own input is in `mine` already
      binomial_fold(
          g.size(), [&](int i) { return e.smp_staging(g.ranks[i], which) + lo * es; }, hi - lo, op, res, in_copy);
      copy_bytes(mine + lo * es, res, (hi - lo) * es);
    }
    if (Error err = barrier(); err != Error::kOk) return err;
    for (int j = 0; j < g.size(); ++j) {
      std::size_t jlo, jhi;
      slice(j, &jlo, &jhi);
      if (j != g.me && jhi > jlo)
        copy_bytes(out + (first + jlo) * es, e.smp_staging(g.ranks[j], which) + jlo * es, (jhi - jlo) * es);
    }
  }
  return Error::kOk;
}

// Where the staged combine applies and pays: above smp_max_bytes() (the
// flat combine's slots) on 3 or more ranks; on 2, where the exchange is one
// message each way, from 8 KiB (bench/compare_revisions on the 2-core
// machine, 2 ranks: 2 KiB 1.62x the exchange's time, 8 KiB 0.75x; 8 ranks:
// 2 KiB 0.66x, 128 KiB 0.26x).
constexpr std::size_t kStagedMinBytesOnTwo = 8192;
bool smp_staging_applies(const Group& g, std::size_t count, const ReduceOp& op) {
  const mesh::Engine& e = *g.engine;
  if (g.size() == 2 && count * op.elem_size < kStagedMinBytesOnTwo) return false;
  return whole_job_on_one_host(g) && op.elem_size <= e.smp_staging_bytes() / g.size();
}

void no_combine(void*, const void*, std::size_t, void*) {}

Error first_error(Error a, Error b) { return a != Error::kOk ? a : b; }

Error broadcast_from_depth(const Group& g, void* buf, std::size_t bytes, int root, int start_depth) {
  return is_torus(g) ? torus_broadcast(g, buf, bytes, root, start_depth)
                     : binomial_broadcast(g, buf, bytes, root, start_depth);
}

}  // namespace

int last_critical_path() { return g_last_depth; }
void set_last_critical_path(int depth) { g_last_depth = depth; }

namespace {
// The schedule a personalised collective on g follows (kDirect: none). kAuto
// takes OPT on a torus group of a mesh fabric, where only neighbours are
// cabled (seed 003 §5.2). Where every pair is linked (shm, a switched
// fabric) going straight is faster at every size measured (bench/
// personalized on shm, 1 KiB blocks: scatter on 8 ranks 5.4 us direct vs
// 6.7 us OPT, on 27 ranks 26 vs 70 us; all-to-all 80 vs 119 us and 516 vs
// 1279 us; README, Performance).
ScatterAlgorithm personalized_algorithm(const Group& g, ScatterAlgorithm algo) {
  if (g.size() == 1 || !is_torus(g)) return ScatterAlgorithm::kDirect;
  if (algo != ScatterAlgorithm::kAuto) return algo;
  const bool mesh_fabric = !g.engine->options().mesh_fabric_config.empty();
  return mesh_fabric ? ScatterAlgorithm::kOpt : ScatterAlgorithm::kDirect;
}
}  // namespace

// A broadcast on one host starts in shared memory: the root writes its size
// and, if short, its bytes once, and every rank copies them out (issue 32:
// the axis sweep's chain of eager messages cost 2.4-2.8x Open MPI's time at
// 8 B on 8 ranks). Longer ones then take the sweep; every rank has the
// root's size, so all choose alike even where the counts differ -- and a
// member whose size is not the root's is told so (kTruncate) once its part
// is done.
Error broadcast(const Group& g, void* buf, std::size_t bytes, int root) {
  if (g.size() == 1) return Error::kOk;
  if (whole_job_on_one_host(g)) {
    g_last_depth = 0;
    std::size_t root_bytes = 0;
    Error err = g.engine->smp_broadcast(buf, bytes, g.me == root, &root_bytes);
    if (err == Error::kOk && root_bytes > g.engine->smp_max_broadcast_bytes())
      err = broadcast_from_depth(g, buf, bytes, root, 0);
    return err == Error::kOk && root_bytes != bytes ? Error::kTruncate : err;
  }
  return broadcast_from_depth(g, buf, bytes, root, 0);
}

Error reduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root) {
  if (g.size() == 1) return Error::kOk;
  if (!op.commutative) {
    // Rooted at 0, the binomial tree combines lower ranks on the left.
    if (root == 0) return binomial_reduce(g, buf, count, op, 0);
    const std::size_t bytes = count * op.elem_size;
    std::vector<char> at_zero;
    void* target = buf;
    if (g.me == 0) {
      at_zero.assign(static_cast<char*>(buf), static_cast<char*>(buf) + bytes);
      target = at_zero.data();
    }
    Error e = binomial_reduce(g, target, count, op, 0);
    Call call(g, last_critical_path());
    if (g.me == 0) call.post_send(root, target, bytes);
    if (g.me == root) call.post_recv(0, buf, bytes);
    call.finish();
    return first_error(e, call.error());
  }
  return is_torus(g) ? torus_reduce(g, buf, count, op, root) : binomial_reduce(g, buf, count, op, root);
}

Error allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op, CombineAlgorithm algo) {
  if (g.size() == 1) return Error::kOk;
  const std::size_t bytes = count * op.elem_size;
  if ((algo == CombineAlgorithm::kAuto || algo == CombineAlgorithm::kSharedMemory) && smp_applies(g, bytes))
    return smp_allreduce(g, buf, count, op);
  if ((algo == CombineAlgorithm::kAuto || algo == CombineAlgorithm::kSharedMemory) && smp_staging_applies(g, count, op))
    return smp_staged_allreduce(g, buf, count, op);
  if (algo == CombineAlgorithm::kAuto && op.commutative && hierarchy_applies(g))
    return hierarchical_allreduce(g, buf, count, op);
  if (!op.commutative) algo = CombineAlgorithm::kReduceBroadcast;  // the only rank-ordered one
  // Two members: the exchange is one message each way, reduce + broadcast
  // one after the other, at every size up to the ring's.
  const std::size_t exchange_max = g.size() == 2 ? kRingMinBytes - 1 : kExchangeMaxBytes;
  if (algo == CombineAlgorithm::kAuto || algo == CombineAlgorithm::kSharedMemory)
    algo = bytes <= exchange_max ? CombineAlgorithm::kDimensionExchange
           : bytes < kRingMinBytes   ? CombineAlgorithm::kReduceBroadcast
                                     : CombineAlgorithm::kRing;
  if (algo == CombineAlgorithm::kRing && count >= static_cast<std::size_t>(g.size()))
    return ring_allreduce(g, buf, count, op);
  if (is_torus(g) && algo == CombineAlgorithm::kDimensionExchange)
    return torus_exchange_allreduce(g, buf, count, op);
  // Reduce + broadcast (seed 003 §5.2's global combine): the broadcast's
  // messages continue the reduce's causal depth.
  Error e1 = reduce(g, buf, count, op, 0);
  Error e2 = broadcast_from_depth(g, buf, count * op.elem_size, 0, last_critical_path());
  return first_error(e1, e2);
}

// MESHMP_BARRIER=auto, by measurement (docs/performance.md, "Barriers").
// Every rank of the job on one host: with a core each, recursive doubling
// over flag windows from 4 ranks (16-core machine, best of 3: 8 ranks
// 0.88 us against the combine's 0.92, 16 ranks 1.26 against 1.93), else
// the shared-memory combine, which wakes each rank once (2 ranks on the
// 2-core machine: 0.066 against 0.088 us; 8 to 27 oversubscribed ranks
// there: 6.3-34 us against 14-102). Not on a mesh fabric, where most
// partners are routed and each flag write a relayed frame.
constexpr int kRdmaBarrierMinRanks = 4;
mesh::BarrierChoice auto_barrier(const Group& g) {
  const mesh::EngineOptions& opt = g.engine->options();
  if (smp_applies(g, 0)) {
    const bool rdma = g.size() >= kRdmaBarrierMinRanks && !opt.yield && opt.mesh_fabric_config.empty();
    return rdma ? mesh::BarrierChoice::kRdma : mesh::BarrierChoice::kCombine;
  }
  if (hierarchy_applies(g)) return mesh::BarrierChoice::kCombine;
  return mesh::BarrierChoice::kExchange;
}

Error barrier(const Group& g, CombineAlgorithm algo) {
  if (g.size() == 1) return Error::kOk;
  using mesh::BarrierChoice;
  BarrierChoice how = algo == CombineAlgorithm::kAuto ? g.engine->options().barrier : BarrierChoice::kExchange;
  if (algo == CombineAlgorithm::kSharedMemory) how = BarrierChoice::kCombine;
  if (how == BarrierChoice::kAuto) how = auto_barrier(g);
  if (how == BarrierChoice::kRdma || how == BarrierChoice::kFlat) return flag_barrier(g, how);
  ReduceOp none;
  none.combine = no_combine;
  char dummy = 0;
  if (how == BarrierChoice::kCombine) {
    if (smp_applies(g, 0)) return smp_allreduce(g, &dummy, 0, none);
    if (hierarchy_applies(g)) return hierarchical_allreduce(g, &dummy, 0, none);
  }
  if (is_torus(g)) return torus_exchange_allreduce(g, &dummy, 0, none);
  // Dissemination: round k signals rank + 2^k and waits for rank - 2^k.
  Call call(g);
  char token = 0, sink = 0;
  for (int dist = 1; dist < g.size(); dist <<= 1) {
    call.post_recv((g.me - dist + g.size()) % g.size(), &sink, 0);
    call.post_send((g.me + dist) % g.size(), &token, 0);
    call.finish();
  }
  return call.error();
}

Error alltoall(const Group& g, const void* send, void* recv, std::size_t block, ScatterAlgorithm algo) {
  algo = personalized_algorithm(g, algo);
  if (algo != ScatterAlgorithm::kDirect) return torus_alltoall(g, send, recv, block, algo);
  const char* s = static_cast<const char*>(send);
  char* r = static_cast<char*>(recv);
  move_bytes(r + g.me * block, s + g.me * block, block);
  // Every receive and send posted at once, one wait (as Open MPI's linear
  // all-to-all), in the order of a pairwise exchange (to me+k, from me-k) so
  // no rank is everyone's first. bench/personalized on shm, against a wait
  // per pairwise step: 8 ranks 63 vs 207 us at 8 B, 489 vs 922 us at 64 KiB;
  // 27 ranks 340 vs 3035 us at 8 B, 4.8 vs 12.8 ms at 64 KiB.
  Call call(g);
  for (int k = 1; k < g.size(); ++k) {
    const int to = (g.me + k) % g.size(), from = (g.me - k + g.size()) % g.size();
    call.post_recv(from, r + from * block, block);
    call.post_send(to, s + to * block, block);
  }
  call.finish();
  return call.error();
}

Error gather(const Group& g, const void* send, void* recv, std::size_t block, int root, ScatterAlgorithm algo) {
  algo = personalized_algorithm(g, algo);
  if (algo != ScatterAlgorithm::kDirect) return torus_gather(g, send, recv, block, root, algo);
  Call call(g);
  if (g.me == root) {
    char* r = static_cast<char*>(recv);
    move_bytes(r + root * block, send, block);
    for (int i = 0; i < g.size(); ++i)
      if (i != root) call.post_recv(i, r + i * block, block);
  } else {
    call.post_send(root, send, block);
  }
  call.finish();
  return call.error();
}

Error gatherv(const Group& g, const void* send, std::size_t bytes, void* recv, const std::size_t* counts,
              const std::size_t* displs, int root, ScatterAlgorithm algo) {
  algo = personalized_algorithm(g, algo);
  if (algo != ScatterAlgorithm::kDirect) return torus_gatherv(g, send, bytes, recv, counts, displs, root, algo);
  Call call(g);
  if (g.me == root) {
    char* r = static_cast<char*>(recv);
    if (const std::size_t own = std::min(bytes, counts[root])) move_bytes(r + displs[root], send, own);
    for (int i = 0; i < g.size(); ++i)
      if (i != root) call.post_recv(i, r + displs[i], counts[i]);
  } else {
    call.post_send(root, send, bytes);
  }
  call.finish();
  return call.error();
}

Error scatterv(const Group& g, const void* send, const std::size_t* counts, const std::size_t* displs, void* recv,
               std::size_t bytes, int root, ScatterAlgorithm algo) {
  algo = personalized_algorithm(g, algo);
  if (algo != ScatterAlgorithm::kDirect) return torus_scatterv(g, send, counts, displs, recv, bytes, root, algo);
  Call call(g);
  if (g.me == root) {
    const char* s = static_cast<const char*>(send);
    for (int i = 0; i < g.size(); ++i)
      if (i != root) call.post_send(i, s + displs[i], counts[i]);
    if (const std::size_t own = std::min(bytes, counts[root])) move_bytes(recv, s + displs[root], own);
  } else {
    call.post_recv(root, recv, bytes);
  }
  call.finish();
  return call.error();
}

Error scatter(const Group& g, const void* send, void* recv, std::size_t block, int root, ScatterAlgorithm algo) {
  algo = personalized_algorithm(g, algo);
  if (algo != ScatterAlgorithm::kDirect) return torus_scatter(g, send, recv, block, root, algo);
  Call call(g);
  if (g.me == root) {
    const char* s = static_cast<const char*>(send);
    for (int i = 0; i < g.size(); ++i)
      if (i != root) call.post_send(i, s + i * block, block);
    move_bytes(recv, s + root * block, block);
  } else {
    call.post_recv(root, recv, block);
  }
  call.finish();
  return call.error();
}

Error allgatherv(const Group& g, const void* send, void* recv, const std::size_t* counts, const std::size_t* displs) {
  const int p = g.size(), me = g.me;
  char* r = static_cast<char*>(recv);
  if (send != r + displs[me]) move_bytes(r + displs[me], send, counts[me]);
  const int right = (me + 1) % p, left = (me + p - 1) % p;
  auto blk = [&](int k) { return static_cast<std::size_t>((k % p + p) % p); };
  Call call(g);
  for (int s = 0; s < p - 1; ++s) {
    const std::size_t out = blk(me - s), in = blk(me - s - 1);
    call.post_recv(left, r + displs[in], counts[in]);
    call.post_send(right, r + displs[out], counts[out]);
    call.finish();
  }
  return call.error();
}

Error alltoallv(const Group& g, const void* send, const std::size_t* scounts, const std::size_t* sdispls, void* recv,
                const std::size_t* rcounts, const std::size_t* rdispls) {
  const char* s = static_cast<const char*>(send);
  char* r = static_cast<char*>(recv);
  // Nothing to copy may come with NULL buffers (MPI allows them with zero counts).
  if (const std::size_t own = std::min(scounts[g.me], rcounts[g.me])) move_bytes(r + rdispls[g.me], s + sdispls[g.me], own);
  Call call(g);  // all at once, as alltoall's direct algorithm
  for (int k = 1; k < g.size(); ++k) {
    const int to = (g.me + k) % g.size(), from = (g.me - k + g.size()) % g.size();
    call.post_recv(from, r + rdispls[from], rcounts[from]);
    call.post_send(to, s + sdispls[to], scounts[to]);
  }
  call.finish();
  return call.error();
}

// Recursive doubling (as MPICH's MPIR_Scan): `partial` holds the combination
// of this rank's aligned block of 2^k ranks; an exchange with rank ^ 2^k
// extends it, and a partner below also prefixes `buf`.
namespace {

// Recursive doubling in rank order (correct for non-commutative ops):
// `partial` gathers every rank of the partner block met so far; `buf` takes
// each lower partner's partial as its left operand. Inclusive: buf starts
// as this rank's own contribution; exclusive: buf starts empty and rank 0's
// stays untouched.
Error prefix_combine(const Group& g, void* buf, std::size_t count, const ReduceOp& op, bool exclusive) {
  const std::size_t bytes = count * op.elem_size;
  char* partial = scratch(kPartial, bytes);
  char* in = scratch(kInPlus, bytes);
  char* left = scratch(kInMinus, bytes);
  copy_bytes(partial, buf, bytes);
  bool have = !exclusive;  // buf holds a combination
  Call call(g);
  for (int mask = 1; mask < g.size(); mask <<= 1) {
    const int partner = g.me ^ mask;
    if (partner >= g.size()) continue;
    call.post_recv(partner, in, bytes);
    call.post_send(partner, partial, bytes);
    call.finish();
    if (partner < g.me) {  // in covers lower ranks: it is the left operand
      if (have) {
        copy_bytes(left, in, bytes);
        op.combine(left, buf, count, op.ctx);
        copy_bytes(buf, left, bytes);
      } else {
        copy_bytes(buf, in, bytes);
        have = true;
      }
      op.combine(in, partial, count, op.ctx);
      copy_bytes(partial, in, bytes);
    } else {
      op.combine(partial, in, count, op.ctx);
    }
  }
  return call.error();
}

}  // namespace

Error scan(const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
  return prefix_combine(g, buf, count, op, false);
}

Error exscan(const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
  return prefix_combine(g, buf, count, op, true);
}

}  // namespace meshmp::collectives
