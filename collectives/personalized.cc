#include "collectives/personalized.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#include "collectives/collectives.h"
#include "routing/scatter_schedule.h"

namespace meshmp::collectives {

namespace {

using mesh::Error;
using mesh::Request;
using mesh::Status;
using routing::ScatterSchedule;

// One message of the plan: the blocks that cross between this rank and
// `peer` in `step`, in the order both ends list them.
struct Piece {
  int step = 0;
  int peer = 0;
  std::vector<int> blocks;
};

// This rank's part of a schedule.
struct Plan {
  std::vector<Piece> in, out;  // each ordered by step, then peer
  int nblocks = 0;             // block ids are below this
};

enum class Op { kScatter, kGather, kAlltoall };

// One hop of one block, as group ranks.
struct Move {
  int step, from, to, block;
  bool operator<(const Move& o) const {
    return std::tie(step, from, to, block) < std::tie(o.step, o.from, o.to, o.block);
  }
};

// Only while plans are built (plan_for caches those).
ScatterSchedule schedule(const mesh::Torus& t, ScatterAlgorithm algo, int root) {
  return algo == ScatterAlgorithm::kSdf ? routing::sdf_scatter(t, root) : routing::opt_scatter(t, root);
}

bool all_periodic(const mesh::Torus& t) {
  return std::all_of(t.periodic().begin(), t.periodic().end(), [](bool b) { return b; });
}

// Node u moved by the coordinates of `by` (on a torus every root's schedule
// is root 0's, translated).
int translate(const mesh::Torus& t, int u, const std::vector<int>& by) {
  std::vector<int> c = t.coords(u);
  for (int a = 0; a < t.ndims(); ++a) c[a] = (c[a] + by[a]) % t.dims()[a];
  return t.rank(c);
}

Plan build_plan(const mesh::Torus& t, Op op, ScatterAlgorithm algo, int root, int me) {
  const int p = t.size();
  std::vector<Move> moves;
  auto add = [&](const ScatterSchedule& s, int block_base, auto map) {
    for (const routing::Transfer& x : s.transfers) {
      const int from = map(x.from), to = map(t.neighbour(x.from, x.dir));
      if (from == me || to == me) moves.push_back({x.step, from, to, block_base + map(x.message)});
    }
  };
  auto same = [](int u) { return u; };
  Plan plan;
  if (op == Op::kScatter) {
    plan.nblocks = p;
    add(schedule(t, algo, root), 0, same);
  } else if (op == Op::kGather) {
    plan.nblocks = p;
    add(routing::reverse_schedule(t, schedule(t, algo, root)), 0, same);
  } else {
    plan.nblocks = p * p;  // block origin*p + destination
    const ScatterSchedule from_zero = schedule(t, algo, 0);
    for (int r = 0; r < p; ++r) {
      if (all_periodic(t)) {
        const std::vector<int> by = t.coords(r);
        add(from_zero, r * p, [&](int u) { return translate(t, u, by); });
      } else {
        add(schedule(t, algo, r), r * p, same);
      }
    }
  }
  std::sort(moves.begin(), moves.end());
  for (const Move& m : moves) {
    std::vector<Piece>& list = m.to == me ? plan.in : plan.out;
    const int peer = m.to == me ? m.from : m.to;
    if (list.empty() || list.back().step != m.step || list.back().peer != peer) list.push_back({m.step, peer, {}});
    list.back().blocks.push_back(m.block);
  }
  return plan;
}

const Plan& plan_for(const Group& g, Op op, ScatterAlgorithm algo, int root) {
  // Plans for one torus at a time (a job rarely has two): a lookup by
  // integers, no allocation once a plan exists.
  thread_local mesh::Torus torus;
  thread_local std::map<std::tuple<int, int, int, int>, Plan> plans;
  if (!(torus == *g.torus)) torus = *g.torus, plans.clear();
  const std::tuple<int, int, int, int> key{static_cast<int>(op), static_cast<int>(algo), root, g.me};
  auto it = plans.find(key);
  if (it == plans.end()) it = plans.emplace(key, build_plan(torus, op, algo, root, g.me)).first;
  return it->second;
}

// Where the blocks start and end on this rank, and how long each is.
struct Layout {
  Op op;
  int p, me, root;
  std::size_t block;  // every block's bytes, unless `sizes`
  const char* send;
  char* recv;
  // Scatterv / gatherv: block i is sizes[i] bytes, at displs[i] in the
  // root's buffer (every member knows `sizes`; only the root reads displs).
  const std::size_t* sizes = nullptr;
  const std::size_t* displs = nullptr;

  std::size_t size(int b) const { return sizes ? sizes[b] : block; }
  std::size_t at_root(int b) const { return displs ? displs[b] : b * block; }
  std::size_t largest() const { return sizes ? *std::max_element(sizes, sizes + p) : block; }
  // The block if this rank holds it from the start, else nullptr.
  const char* own(int b) const {
    switch (op) {
      case Op::kScatter: return me == root ? send + at_root(b) : nullptr;
      case Op::kGather: return b == me ? send : nullptr;
      case Op::kAlltoall: return b / p == me ? send + (b % p) * block : nullptr;
    }
    return nullptr;
  }
  // Where the block goes if it ends on this rank, else nullptr.
  char* final(int b) const {
    switch (op) {
      case Op::kScatter: return b == me ? recv : nullptr;
      case Op::kGather: return me == root ? recv + at_root(b) : nullptr;
      case Op::kAlltoall: return b % p == me ? recv + (b / p) * block : nullptr;
    }
    return nullptr;
  }
};

char* scratch(int slot, std::size_t bytes) {
  thread_local std::vector<char> bufs[2];
  if (bufs[slot].size() < bytes + 1) bufs[slot].resize(bytes + 1);
  return bufs[slot].data();
}

// Blocks at least this long cross one at a time, each in its own message:
// packing them costs a copy per hop and makes every hop wait for the whole
// aggregate (bench/personalized, 27 ranks, 64 KiB blocks, OPT: all-to-all
// 53 ms aggregated, 14.7 ms one by one; scatter 1.58 vs 0.84 ms). Small
// blocks gain from aggregation.
constexpr std::size_t kAggregateBelow = 8192;

// The depth tag of the next message to `peer`: one more than the later of
// `newest` (the depth at which its newest block got here) and the previous
// message to that peer (the header's rule), recorded in last_to.
int next_depth(std::vector<std::pair<int, int>>& last_to, int peer, int newest) {
  auto it = std::find_if(last_to.begin(), last_to.end(), [&](const auto& x) { return x.first == peer; });
  if (it == last_to.end()) it = last_to.insert(last_to.end(), {peer, 0});
  it->second = std::max(newest, it->second) + 1;
  return it->second;
}

// A message written into the link at once if it can be, else a send
// request added to `reqs` for the final wait.
void send_or_keep(mesh::Engine& e, const Group& g, std::vector<Request*>& reqs, const char* src, std::size_t bytes,
                  int dst, int tag) {
  if (!e.try_send_now(src, bytes, dst, tag, g.context)) reqs.push_back(e.isend(src, bytes, dst, tag, g.context));
}

Error run(const Group& g, const Plan& plan, const Layout& lay) {
  mesh::Engine& e = *g.engine;
  // Both ends of every message decide alike: every member knows every size.
  const bool split = lay.largest() >= kAggregateBelow;
  // A piece travels as one message (its blocks packed), or as one message
  // per block when split; a single block is never packed.
  auto messages = [&](const Piece& pc) { return split ? pc.blocks.size() : std::size_t{1}; };
  Error err = Error::kOk;
  auto note = [&](const Status& st) {
    if (st.error != Error::kOk && err == Error::kOk) err = st.error;
  };
  // A block that travels alone and ends here is received in place; every
  // other incoming block is staged.
  auto in_place = [&](const Piece& pc, int blk) { return (split || pc.blocks.size() == 1) && lay.final(blk); };
  std::size_t staged = 0, packed = 0;
  for (const Piece& pc : plan.in)
    for (int blk : pc.blocks)
      if (!in_place(pc, blk)) staged += lay.size(blk);
  for (const Piece& pc : plan.out)
    if (!split && pc.blocks.size() > 1)
      for (int blk : pc.blocks) packed += lay.size(blk);
  char* stage = scratch(0, staged);
  char* pack = scratch(1, packed);
  // Per-call state in vectors kept across calls (no allocation once warm).
  thread_local std::vector<int> in_of;        // block -> the piece that brings it, or -1
  thread_local std::vector<const char*> loc;  // block -> where it is once that piece is in
  thread_local std::vector<std::size_t> in_first;  // piece -> its first receive in in_reqs
  thread_local std::vector<Request*> in_reqs, out_reqs;
  thread_local std::vector<int> in_tag;       // piece -> the step it crossed in, once in
  thread_local std::vector<std::pair<int, int>> last_to;  // (peer, step of the last message sent to it)
  thread_local std::vector<Status> sts;
  in_of.assign(plan.nblocks, -1);
  loc.assign(plan.nblocks, nullptr);
  in_first.clear();
  in_reqs.clear();
  in_tag.assign(plan.in.size(), -1);
  last_to.clear();
  out_reqs.clear();
  // Receives first, all of them.
  for (std::size_t i = 0; i < plan.in.size(); ++i) {
    const Piece& pc = plan.in[i];
    in_first.push_back(in_reqs.size());
    const std::size_t n = messages(pc), per = pc.blocks.size() / n;
    for (std::size_t m = 0; m < n; ++m) {
      std::size_t bytes = 0;
      for (std::size_t k = 0; k < per; ++k) bytes += lay.size(pc.blocks[m * per + k]);
      char* buf = in_place(pc, pc.blocks[m * per]) ? lay.final(pc.blocks[m * per]) : nullptr;
      if (!buf) buf = stage, stage += bytes;
      for (std::size_t k = 0, off = 0; k < per; off += lay.size(pc.blocks[m * per + k]), ++k) {
        in_of[pc.blocks[m * per + k]] = static_cast<int>(i);
        loc[pc.blocks[m * per + k]] = buf + off;
      }
      in_reqs.push_back(e.irecv(buf, bytes, g.ranks[pc.peer], mesh::kAnyTag, g.context));
    }
  }
  in_first.push_back(in_reqs.size());
  // A piece is needed: wait for it and put the blocks meant for this rank
  // where they go.
  auto arrive = [&](int i) {
    if (in_tag[i] >= 0) return;
    for (std::size_t r = in_first[i]; r < in_first[i + 1]; ++r) {
      Status st;
      e.wait(in_reqs[r], &st);
      in_reqs[r] = nullptr;
      note(st);
      in_tag[i] = std::max(in_tag[i], st.tag);
    }
    in_tag[i] = std::max(in_tag[i], 0);
    for (int blk : plan.in[i].blocks)
      if (char* to = lay.final(blk); to && to != loc[blk] && lay.size(blk)) std::memcpy(to, loc[blk], lay.size(blk));
  };
  auto where = [&](int blk) { return in_of[blk] >= 0 ? loc[blk] : lay.own(blk); };
  auto send = [&](const char* src, std::size_t bytes, int dst, int tag) {
    send_or_keep(e, g, out_reqs, src, bytes, dst, tag);
  };
  for (const Piece& pc : plan.out) {
    int newest = 0;
    for (int blk : pc.blocks)
      if (in_of[blk] >= 0) {
        arrive(in_of[blk]);
        newest = std::max(newest, in_tag[in_of[blk]]);
      }
    const int tag = next_depth(last_to, pc.peer, newest);
    const int dst = g.ranks[pc.peer];
    if (split || pc.blocks.size() == 1) {
      for (int blk : pc.blocks) send(where(blk), lay.size(blk), dst, tag);
    } else {
      std::size_t bytes = 0;
      for (int blk : pc.blocks)
        if (const std::size_t n = lay.size(blk)) std::memcpy(pack + bytes, where(blk), n), bytes += n;
      send(pack, bytes, dst, tag);
      pack += bytes;
    }
  }
  int depth = 0;
  for (std::size_t i = 0; i < plan.in.size(); ++i) {
    arrive(static_cast<int>(i));
    depth = std::max(depth, in_tag[i]);
  }
  sts.resize(out_reqs.size());
  e.waitall(out_reqs.size(), out_reqs.data(), sts.data());
  for (const Status& st : sts) note(st);
  set_last_critical_path(depth);
  return err;
}

ScatterAlgorithm schedule_of(ScatterAlgorithm algo) {
  return algo == ScatterAlgorithm::kSdf ? ScatterAlgorithm::kSdf : ScatterAlgorithm::kOpt;
}

// Gatherv whose forwarding members learn each block's length from the
// message that brings it, with no counts sent out first. Every piece of the
// plan travels as a header -- its depth tag, then its blocks' lengths
// (8 bytes each) -- followed in the same message by the blocks when they fit
// in kInline bytes, else by one message per block (no packing copy). Both ends
// know each piece's step from the plan, so the header's tag is 2*step and
// the blocks' 2*step+1: every receive names the messages it is for, and a
// piece's header receive is posted in advance, sized for the inline case.
constexpr std::size_t kInline = 4096;
constexpr std::uint64_t kMaxBlock = std::uint64_t{1} << 48;  // a header naming more is malformed

Error run_gatherv_headers(const Group& g, const Plan& plan, const char* own, std::size_t own_bytes, char* recv,
                          const std::size_t* counts, const std::size_t* displs, int root) {
  mesh::Engine& e = *g.engine;
  Error err = Error::kOk;
  auto note = [&](Error x) {
    if (x != Error::kOk && err == Error::kOk) err = x;
  };
  const std::size_t nin = plan.in.size();
  thread_local std::vector<std::vector<char>> head, body;  // per incoming piece; kept across calls
  thread_local std::vector<Request*> head_reqs;
  thread_local std::vector<int> in_of, in_depth;
  thread_local std::vector<const char*> loc;
  thread_local std::vector<std::size_t> len;
  thread_local std::vector<std::pair<int, int>> last_to;
  thread_local std::vector<std::vector<char>> out_msgs;  // header (+ inline blocks) and packed blocks per piece
  thread_local std::vector<Request*> out_reqs;
  thread_local std::vector<Status> sts;
  if (head.size() < nin) head.resize(nin), body.resize(nin);
  in_of.assign(plan.nblocks, -1);
  loc.assign(plan.nblocks, nullptr);
  len.assign(plan.nblocks, 0);
  in_depth.assign(nin, -1);
  head_reqs.assign(nin, nullptr);
  last_to.clear();
  out_reqs.clear();
  loc[g.me] = own;
  len[g.me] = own_bytes;
  for (std::size_t i = 0; i < nin; ++i) {
    const Piece& pc = plan.in[i];
    for (int blk : pc.blocks) in_of[blk] = static_cast<int>(i);
    head[i].resize(8 * (1 + pc.blocks.size()) + kInline);
    head_reqs[i] = e.irecv(head[i].data(), head[i].size(), g.ranks[pc.peer], 2 * pc.step, g.context);
  }
  auto arrive = [&](int i) {
    if (in_depth[i] >= 0) return;
    const Piece& pc = plan.in[i];
    Status st;
    e.wait(head_reqs[i], &st);
    head_reqs[i] = nullptr;
    const std::size_t k = pc.blocks.size(), hb = 8 * (1 + k);
    std::uint64_t depth = 0, total = 0;
    if (st.error == Error::kOk && st.bytes < hb) st.error = Error::kProtocol;  // a header too short to be one
    if (st.error == Error::kOk) {
      std::memcpy(&depth, head[i].data(), 8);
      for (std::size_t b = 0; b < k; ++b) {
        std::uint64_t n;
        std::memcpy(&n, head[i].data() + 8 * (1 + b), 8);
        if (n > kMaxBlock) st.error = Error::kProtocol;  // wire data: no length we would not send
        len[pc.blocks[b]] = st.error == Error::kOk ? n : 0;
        total += len[pc.blocks[b]];
      }
      if (st.error != Error::kOk) total = 0;
    }
    in_depth[i] = static_cast<int>(std::min<std::uint64_t>(depth, 1 << 20));
    note(st.error);
    if (st.error != Error::kOk) return;
    const char* data = head[i].data() + hb;
    if (total > kInline) {  // each block (but an empty one) comes in a message of its own, in order
      body[i].resize(total);
      thread_local std::vector<Request*> parts;
      parts.clear();
      std::size_t off = 0;
      for (int blk : pc.blocks)
        if (len[blk]) {
          parts.push_back(e.irecv(body[i].data() + off, len[blk], g.ranks[pc.peer], 2 * pc.step + 1, g.context));
          off += len[blk];
        }
      for (Request* r : parts) {
        e.wait(r, &st);
        note(st.error);
      }
      data = body[i].data();
    } else if (st.bytes != hb + total) {
      note(Error::kProtocol);
    }
    for (int blk : pc.blocks) loc[blk] = data, data += len[blk];
  };
  auto send = [&](const char* src, std::size_t bytes, int dst, int tag) {
    send_or_keep(e, g, out_reqs, src, bytes, dst, tag);
  };
  if (out_msgs.size() < plan.out.size()) out_msgs.resize(plan.out.size());
  for (std::size_t o = 0; o < plan.out.size(); ++o) {
    const Piece& pc = plan.out[o];
    int newest = 0;
    for (int blk : pc.blocks)
      if (in_of[blk] >= 0) {
        arrive(in_of[blk]);
        newest = std::max(newest, in_depth[in_of[blk]]);
      }
    const int depth = next_depth(last_to, pc.peer, newest);
    std::size_t total = 0;
    for (int blk : pc.blocks) total += len[blk];
    const std::size_t hb = 8 * (1 + pc.blocks.size());
    std::vector<char>& m = out_msgs[o];
    m.resize(hb + (total <= kInline ? total : 0));
    const std::uint64_t d = static_cast<std::uint64_t>(depth);
    std::memcpy(m.data(), &d, 8);
    char* at = m.data() + 8;
    for (int blk : pc.blocks) {
      const std::uint64_t n = len[blk];
      std::memcpy(at, &n, 8);
      at += 8;
    }
    const int dst = g.ranks[pc.peer];
    if (total <= kInline) {
      for (int blk : pc.blocks)
        if (len[blk]) std::memcpy(at, loc[blk], len[blk]), at += len[blk];
      send(m.data(), m.size(), dst, 2 * pc.step);
      continue;
    }
    send(m.data(), m.size(), dst, 2 * pc.step);
    for (int blk : pc.blocks)  // straight from where each block is: no packing copy
      if (len[blk]) send(loc[blk], len[blk], dst, 2 * pc.step + 1);
  }
  int depth = 0;
  for (std::size_t i = 0; i < nin; ++i) {
    arrive(static_cast<int>(i));
    depth = std::max(depth, in_depth[i]);
  }
  if (g.me == root) {
    for (int b = 0; b < g.size(); ++b) {
      if (!loc[b] && len[b]) continue;  // its piece failed
      const std::size_t n = std::min(len[b], counts[b]);
      if (n && recv + displs[b] != loc[b]) std::memmove(recv + displs[b], loc[b], n);
      if (len[b] > counts[b]) note(Error::kTruncate);
    }
  }
  sts.resize(out_reqs.size());
  e.waitall(out_reqs.size(), out_reqs.data(), sts.data());
  for (const Status& st : sts) note(st.error);
  set_last_critical_path(depth);
  return err;
}

}  // namespace

Error torus_scatter(const Group& g, const void* send, void* recv, std::size_t block, int root, ScatterAlgorithm algo) {
  const Layout lay{Op::kScatter, g.size(), g.me, root, block, static_cast<const char*>(send), static_cast<char*>(recv)};
  if (g.me == root && block && recv != lay.send + root * block) std::memmove(recv, lay.send + root * block, block);
  return run(g, plan_for(g, Op::kScatter, schedule_of(algo), root), lay);
}

Error torus_gather(const Group& g, const void* send, void* recv, std::size_t block, int root, ScatterAlgorithm algo) {
  const Layout lay{Op::kGather, g.size(), g.me, root, block, static_cast<const char*>(send), static_cast<char*>(recv)};
  if (g.me == root && block && lay.recv + root * block != send) std::memmove(lay.recv + root * block, send, block);
  return run(g, plan_for(g, Op::kGather, schedule_of(algo), root), lay);
}

namespace {
// Every member's block size, from the root's `counts` (read there only):
// the members forwarding a block must know its length.
const std::size_t* sizes_from_root(const Group& g, const std::size_t* counts, int root, Error* err) {
  thread_local std::vector<std::size_t> sizes;  // kept across calls: no allocation once warm
  sizes.resize(static_cast<std::size_t>(g.size()));
  if (g.me == root) std::copy(counts, counts + g.size(), sizes.begin());
  *err = broadcast(g, sizes.data(), sizes.size() * sizeof(std::size_t), root);
  return sizes.data();
}
}  // namespace

Error torus_scatterv(const Group& g, const void* send, const std::size_t* counts, const std::size_t* displs,
                     void* recv, std::size_t bytes, int root, ScatterAlgorithm algo) {
  Error err;
  const std::size_t* sizes = sizes_from_root(g, counts, root, &err);
  if (err != Error::kOk) return err;
  // A block longer than this member's buffer lands aside; its start is kept.
  const std::size_t mine = sizes[g.me];
  std::vector<char> aside(mine > bytes ? mine : 0);
  char* into = mine > bytes ? aside.data() : static_cast<char*>(recv);
  Layout lay{Op::kScatter, g.size(), g.me, root, 0, static_cast<const char*>(send), into};
  lay.sizes = sizes;
  lay.displs = displs;
  if (g.me == root && mine && into != lay.send + displs[root]) std::memmove(into, lay.send + displs[root], mine);
  err = run(g, plan_for(g, Op::kScatter, schedule_of(algo), root), lay);
  if (mine <= bytes) return err;
  if (bytes) std::memcpy(recv, aside.data(), bytes);
  return err == Error::kOk ? Error::kTruncate : err;
}

Error torus_gatherv_headers(const Group& g, const void* send, std::size_t bytes, void* recv,
                            const std::size_t* counts, const std::size_t* displs, int root, ScatterAlgorithm algo) {
  return run_gatherv_headers(g, plan_for(g, Op::kGather, schedule_of(algo), root), static_cast<const char*>(send),
                             bytes, static_cast<char*>(recv), counts, displs, root);
}

Error torus_gatherv(const Group& g, const void* send, std::size_t bytes, void* recv, const std::size_t* counts,
                    const std::size_t* displs, int root, ScatterAlgorithm algo) {
  Error err;
  const std::size_t* sizes = sizes_from_root(g, counts, root, &err);
  if (err != Error::kOk) return err;
  // The block travels with the length the root expects: a longer send is
  // cut (kTruncate here), a shorter one padded with zeros (both erroneous,
  // MPI-1.1 §4.5: the type signatures must match).
  const std::size_t mine = sizes[g.me];
  std::vector<char> fitted(mine != bytes ? mine : 0);
  const char* from = static_cast<const char*>(send);
  if (mine != bytes) {
    if (const std::size_t n = std::min(mine, bytes)) std::memcpy(fitted.data(), send, n);
    from = fitted.data();
  }
  Layout lay{Op::kGather, g.size(), g.me, root, 0, from, static_cast<char*>(recv)};
  lay.sizes = sizes;
  lay.displs = displs;
  if (g.me == root && mine && lay.recv + displs[root] != from) std::memmove(lay.recv + displs[root], from, mine);
  err = run(g, plan_for(g, Op::kGather, schedule_of(algo), root), lay);
  return err == Error::kOk && bytes > mine ? Error::kTruncate : err;
}

Error torus_alltoall(const Group& g, const void* send, void* recv, std::size_t block, ScatterAlgorithm algo) {
  const Layout lay{Op::kAlltoall, g.size(), g.me, 0, block, static_cast<const char*>(send), static_cast<char*>(recv)};
  if (block) std::memmove(lay.recv + g.me * block, lay.send + g.me * block, block);
  return run(g, plan_for(g, Op::kAlltoall, schedule_of(algo), 0), lay);
}

}  // namespace meshmp::collectives
