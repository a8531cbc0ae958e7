// The collective operations (MPI-1.1 §4, MPI-2.2 §5) over collectives/: on a
// communicator congruent to the torus (MPI_COMM_WORLD, its duplicates, and
// Cartesian communicators) the torus algorithms (axis-sweep broadcast and
// reduce, the global combine; seed 003 §5.2), otherwise binomial trees,
// rings and pairwise exchanges. Data of contiguous datatypes moves straight
// from and into the user's buffers; other datatypes are packed once.
// Non-commutative reductions combine in rank order (§4.9.4).
//
// Each collective is written once, over a runner: Now runs it at once (the
// blocking call), Later appends it to a schedule (collectives/nonblocking.h)
// that runs behind a request -- the MPI_I... forms of MPI-3.1 §5.12, with
// the same arguments, checks and data handling.
#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "collectives/collectives.h"
#include "collectives/nonblocking.h"
#include "mpi11/coll_inter.h"
#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

using collectives::Group;

// Scratch kept across calls (a fresh vector per call costs page faults).
enum Buf { kSend, kRecv, kWork, kCopy, kBufs };
char* scratch(Buf b, std::size_t bytes) {
  static std::vector<char> bufs[kBufs];
  if (bufs[b].size() < bytes + 1) bufs[b].resize(bytes + 1);
  return bufs[b].data();
}

struct Call {
  const char* name;
  MPI_Comm comm;
  CommInfo* c = nullptr;
  int err = MPI_SUCCESS;
  // Collectives on intercommunicators (MPI-2.2 §5.2.2) go to
  // coll_inter.cc before a Call is made; what reaches here on one is not
  // defined there (Scan, Exscan, and their nonblocking forms); the
  // nonblocking forms of the others are taken where a Call says inter_ok.
  // `inter_ok`: an intercommunicator is taken (the nonblocking reductions
  // on one, below).
  Call(const char* n, MPI_Comm cm, bool inter_ok = false) : name(n), comm(cm) {
    c = check_comm(cm, n, &err);
    if (c && c->inter && !inter_ok) {
      err = raise(cm, n, MPI_ERR_COMM, "comm is an intercommunicator (this operation is not provided on one)");
      c = nullptr;
    }
  }
  bool ok() const { return c != nullptr; }
  int root(int r) {
    if (r >= 0 && r < c->size()) [[likely]] return MPI_SUCCESS;
    return bad_root(r);
  }
  // The argument names ("sendcount", "recvtype") are built only for an error:
  // on every call they cost more than a short broadcast's own work.
  static bool data_ok(const void* buf, int count, MPI_Datatype t) {
    const TypeInfo* ti = type_info(t);
    return count >= 0 && ti && ti->committed && t != MPI_LB && t != MPI_UB &&
           (buf || count == 0 || ti->size == 0 || ti->true_lb != 0);
  }
  int data(const void* buf, int count, MPI_Datatype t, const char* which) {
    if (data_ok(buf, count, t)) [[likely]] return MPI_SUCCESS;
    return bad_data(buf, count, t, which);
  }
  /// The same for block i of a per-rank argument ("send[3] count").
  int data_at(const void* buf, int count, MPI_Datatype t, const char* which, int i) {
    if (data_ok(buf, count, t)) [[likely]] return MPI_SUCCESS;
    return bad_data(buf, count, t, (std::string(which) + "[" + std::to_string(i) + "] ").c_str());
  }
  // MPI-1.1 §2.2: an OUT argument may not be aliased with another. One
  // buffer passed as both sendbuf and recvbuf (with data to move) is a
  // program that meant MPI_IN_PLACE: MPI_ERR_BUFFER (as MPICH), not a
  // result computed over its own output. `recv_bytes`: the span of the
  // receive buffer from recvbuf (0: nothing is received here, or nothing
  // sent -- one pointer for two empty or disjoint uses, as PT-Scotch passes
  // to MPI_Alltoallv, is no aliasing; 1: only the same pointer counts); a
  // send buffer that starts inside it is aliased too
  // (MPI_Allgather(&buf[rank], ..., buf, ...)), on every rank alike.
  // `first_byte`: where, from recvbuf, the received bytes begin (a
  // displacement: PT-Scotch's are its graphs' base value, 100000 in one of
  // its tests, with send data below them).
  int aliased(const void* sendbuf, const void* recvbuf, std::size_t recv_bytes, MPI_Aint first_byte = 0) {
    const auto s = reinterpret_cast<std::uintptr_t>(sendbuf);
    const auto r = reinterpret_cast<std::uintptr_t>(recvbuf) + static_cast<std::uintptr_t>(first_byte);
    if (recv_bytes == 0 || sendbuf == MPI_IN_PLACE || !sendbuf || !recvbuf || s < r || s - r >= recv_bytes) [[likely]]
      return MPI_SUCCESS;
    return bad_alias();
  }
  [[gnu::cold, gnu::noinline]] int bad_alias() {
    return err = raise(comm, name, MPI_ERR_BUFFER,
                       "sendbuf lies in recvbuf: aliased arguments are erroneous (MPI-1.1 §2.2); "
                       "pass MPI_IN_PLACE as sendbuf");
  }
  [[gnu::cold, gnu::noinline]] int bad_root(int r) {
    return err = raise(comm, name, MPI_ERR_ROOT, "root = " + std::to_string(r) + " is not a rank of the communicator (size " + std::to_string(c->size()) + ")");
  }
  [[gnu::cold, gnu::noinline]] int bad_data(const void* buf, int count, MPI_Datatype t, const char* which) {
    const std::string cnt = std::string(which) + "count", typ = std::string(which) + "type";
    if ((err = check_count(comm, name, count, cnt.c_str()))) return err;
    if ((err = check_type(comm, name, t, typ.c_str()))) return err;
    const TypeInfo* ti = type_info(t);
    if (!buf && count > 0 && ti->size > 0 && ti->true_lb == 0)
      return err = raise(comm, name, MPI_ERR_BUFFER, std::string(which) + "buf is NULL");
    return MPI_SUCCESS;
  }
  int counts(const int* counts, const char* what) {
    if (!counts) return err = raise(comm, name, MPI_ERR_ARG, std::string(what) + " is NULL");
    for (int i = 0; i < c->size(); ++i)
      if (counts[i] < 0)
        return err = raise(comm, name, MPI_ERR_COUNT, std::string(what) + "[" + std::to_string(i) + "] is negative");
    return MPI_SUCCESS;
  }
  int finish(mesh::Error e) {
    if (e == mesh::Error::kOk) return MPI_SUCCESS;
    if (e == mesh::Error::kTruncate)  // in a collective: the members' arguments differ
      return raise(comm, name, MPI_ERR_TRUNCATE,
                   "another rank sent more than this rank's count and datatype take, or a broadcast's root "
                   "another length (the ranks' arguments must match, MPI-1.1 §4.1)");
    return report(comm, code_of(e, name));
  }
};


// ---- runners ---------------------------------------------------------------------

using collectives::ReduceOp;

// The blocking call: every collective at once, every step at once.
struct Now {
  mesh::Error e = mesh::Error::kOk;
  char* scratch(Buf b, std::size_t bytes) { return mpi::scratch(b, bytes); }
  const TypeInfo* type(MPI_Datatype t) { return type_info(t); }
  const Reduction* hold(const Reduction* r) { return r; }
  template <typename F>
  void then(F&& f) { f(); }
  void did(mesh::Error x) {
    if (e == mesh::Error::kOk) e = x;
  }
  void barrier(const Group& g) { did(collectives::barrier(g)); }
  void broadcast(const Group& g, void* buf, std::size_t bytes, int root) {
    did(collectives::broadcast(g, buf, bytes, root));
  }
  void reduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root) {
    did(collectives::reduce(g, buf, count, op, root));
  }
  void allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
    did(collectives::allreduce(g, buf, count, op));
  }
  void gather(const Group& g, const void* send, void* recv, std::size_t block, int root) {
    did(collectives::gather(g, send, recv, block, root));
  }
  void gatherv(const Group& g, const void* send, std::size_t bytes, void* recv, const std::size_t* counts,
               const std::size_t* displs, int root) {
    did(collectives::gatherv(g, send, bytes, recv, counts, displs, root));
  }
  void scatter(const Group& g, const void* send, void* recv, std::size_t block, int root) {
    did(collectives::scatter(g, send, recv, block, root));
  }
  void scatterv(const Group& g, const void* send, const std::size_t* counts, const std::size_t* displs, void* recv,
                std::size_t bytes, int root) {
    did(collectives::scatterv(g, send, counts, displs, recv, bytes, root));
  }
  void allgatherv(const Group& g, const void* send, void* recv, const std::size_t* counts, const std::size_t* displs) {
    did(collectives::allgatherv(g, send, recv, counts, displs));
  }
  void alltoall(const Group& g, const void* send, void* recv, std::size_t block) {
    did(collectives::alltoall(g, send, recv, block));
  }
  void alltoallv(const Group& g, const void* send, const std::size_t* sc, const std::size_t* sd, void* recv,
                 const std::size_t* rc, const std::size_t* rd) {
    did(collectives::alltoallv(g, send, sc, sd, recv, rc, rd));
  }
  void scan(const Group& g, void* buf, std::size_t count, const ReduceOp& op, bool exclusive) {
    did(exclusive ? collectives::exscan(g, buf, count, op) : collectives::scan(g, buf, count, op));
  }
  int finish(Call& k) { return k.finish(e); }
};

// The MPI_I... call: every collective appended to a schedule, the steps
// after it; finish() starts it behind *request. Scratch memory, datatypes
// and reductions live as long as the schedule (the program may free its
// datatype or op once the call returns).
struct Later {
  MPI_Request* request;
  std::unique_ptr<collectives::Schedule> s = std::make_unique<collectives::Schedule>();
  // A NULL request fails the call before anything else (MPI_ERR_REQUEST).
  Later(Call& k, MPI_Request* r) : request(r) {
    if (k.ok() && !r) {
      k.err = raise(k.comm, k.name, MPI_ERR_REQUEST, "request is NULL");
      k.c = nullptr;
    }
  }
  char* scratch(Buf, std::size_t bytes) { return s->scratch(bytes); }
  const TypeInfo* type(MPI_Datatype t) {
    std::shared_ptr<const TypeInfo> kept = keep_type(t);
    const TypeInfo* p = kept.get();
    s->hold(std::move(kept));
    return p;
  }
  const Reduction* hold(const Reduction* r) {
    Reduction* h = s->hold(*r);
    if (h->op.ctx == r) h->op.ctx = h;  // a user op's combine reads its Reduction
    return h;
  }
  template <typename F>
  void then(F&& f) { s->then(std::forward<F>(f)); }
  void barrier(const Group& g) { collectives::add_barrier(*s, g); }
  void broadcast(const Group& g, void* buf, std::size_t bytes, int root) {
    collectives::add_broadcast(*s, g, buf, bytes, root);
  }
  void reduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op, int root) {
    collectives::add_reduce(*s, g, buf, count, op, root);
  }
  void allreduce(const Group& g, void* buf, std::size_t count, const ReduceOp& op) {
    collectives::add_allreduce(*s, g, buf, count, op);
  }
  void gather(const Group& g, const void* send, void* recv, std::size_t block, int root) {
    collectives::add_gather(*s, g, send, recv, block, root);
  }
  void gatherv(const Group& g, const void* send, std::size_t bytes, void* recv, const std::size_t* counts,
               const std::size_t* displs, int root) {
    collectives::add_gatherv(*s, g, send, bytes, recv, counts, displs, root);
  }
  void scatter(const Group& g, const void* send, void* recv, std::size_t block, int root) {
    collectives::add_scatter(*s, g, send, recv, block, root);
  }
  void scatterv(const Group& g, const void* send, const std::size_t* counts, const std::size_t* displs, void* recv,
                std::size_t bytes, int root) {
    collectives::add_scatterv(*s, g, send, counts, displs, recv, bytes, root);
  }
  void allgatherv(const Group& g, const void* send, void* recv, const std::size_t* counts, const std::size_t* displs) {
    collectives::add_allgatherv(*s, g, send, recv, counts, displs);
  }
  void alltoall(const Group& g, const void* send, void* recv, std::size_t block) {
    collectives::add_alltoall(*s, g, send, recv, block);
  }
  void alltoallv(const Group& g, const void* send, const std::size_t* sc, const std::size_t* sd, void* recv,
                 const std::size_t* rc, const std::size_t* rd) {
    collectives::add_alltoallv(*s, g, send, sc, sd, recv, rc, rd);
  }
  void scan(const Group& g, void* buf, std::size_t count, const ReduceOp& op, bool exclusive) {
    collectives::add_scan(*s, g, buf, count, op, exclusive);
  }
  int finish(Call& k) { return start_collective(k.comm, k.name, std::move(s), request); }
};

// ---- data in and out ---------------------------------------------------------------

// The bytes of `count` instances of a datatype, contiguous in memory: the
// user's own buffer where possible, else packed into scratch `b`.
template <typename Run>
const char* packed_in(Run& run, const TypeInfo& t, const void* buf, std::size_t count, Buf b) {
  if (t.contiguous) return data_start(t, buf);
  char* s = run.scratch(b, count * t.size);
  pack(t, buf, count, s);
  return s;
}

// Where received bytes go: the user's buffer, or scratch to unpack from.
template <typename Run>
char* packed_out(Run& run, const TypeInfo& t, void* buf, std::size_t count, Buf b) {
  return t.contiguous ? const_cast<char*>(data_start(t, buf)) : run.scratch(b, count * t.size);
}

// Byte counts/displacements of v-collective blocks. A contiguous type's
// blocks sit in the user's buffer at displs[i] * extent; otherwise they are
// packed one after another in scratch.
// The bytes `n` instances of t span from the buffer (0 where the extent is
// not positive: no overlap is looked for then).
std::size_t span_bytes(MPI_Aint n, const TypeInfo& t) {
  const MPI_Aint b = n * t.extent();
  return b > 0 ? static_cast<std::size_t>(b) : 0;
}

struct Blocks {
  std::vector<std::size_t> counts, displs;
  std::size_t total = 0;
};
Blocks blocks(const TypeInfo& t, int p, const int* counts, const int* displs) {
  Blocks b;
  b.counts.reserve(static_cast<std::size_t>(p));
  b.displs.reserve(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) {
    b.counts.push_back(static_cast<std::size_t>(counts[i]) * t.size);
    b.displs.push_back(t.contiguous ? static_cast<std::size_t>(displs[i] * t.extent()) : b.total);
    b.total += b.counts.back();
  }
  if (t.contiguous && p) {  // bytes spanned in the user's buffer
    b.total = 0;
    for (int i = 0; i < p; ++i) b.total = std::max(b.total, b.displs[i] + b.counts[i]);
  }
  return b;
}
// MPI_Allgather's blocks in a contiguous type: p blocks of `count`
// elements, block i at i * count elements; no count and displacement
// arrays built for them.
Blocks even_blocks(const TypeInfo& t, int p, int count) {
  Blocks b;
  const std::size_t bytes = static_cast<std::size_t>(count) * t.size;
  const std::size_t stride = static_cast<std::size_t>(count * t.extent());
  b.counts.assign(static_cast<std::size_t>(p), bytes);
  b.displs.resize(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) b.displs[static_cast<std::size_t>(i)] = static_cast<std::size_t>(i) * stride;
  b.total = p ? b.displs.back() + bytes : 0;
  return b;
}
// A step that unpacks each block i of `packed` (laid out as `b`) to
// buf + displs[i] * extent; it keeps copies of what it reads.
template <typename Run>
void unpack_blocks_after(Run& run, const TypeInfo* t, const char* packed, const Blocks& b, const int* counts,
                         const int* displs, void* buf, int p) {
  run.then([t, packed, bc = b.counts, bd = b.displs, cs = std::vector<int>(counts, counts + p),
            ds = std::vector<int>(displs, displs + p), buf, p] {
    for (int i = 0; i < p; ++i)
      unpack(*t, packed + bd[i], bc[i], static_cast<char*>(buf) + ds[i] * t->extent(), static_cast<std::size_t>(cs[i]));
  });
}
void pack_blocks(const TypeInfo& t, const void* buf, const Blocks& b, const int* counts, const int* displs,
                 char* packed, int p) {
  for (int i = 0; i < p; ++i)
    pack(t, static_cast<const char*>(buf) + displs[i] * t.extent(), static_cast<std::size_t>(counts[i]),
         packed + b.displs[i]);
}
// Contiguous block displacements in the user's buffer start at its first
// data byte.
char* block_base(const TypeInfo& t, void* buf, char* scratch_buf) {
  return t.contiguous ? static_cast<char*>(buf) + t.true_lb : scratch_buf;
}

// ---- reductions: operands in the layout the combine expects ----------------------

// Copies instances into the extent layout a user function expects (only the
// data bytes; the gaps are left as they are).
void to_layout(const TypeInfo& t, const void* buf, std::size_t count, char* w) {
  const char* src = static_cast<const char*>(buf);
  for_each_run(t, count, [&](MPI_Aint at, std::size_t len) { std::memcpy(w + at - t.lb, src + at, len); });
}
void from_layout(const TypeInfo& t, const char* w, std::size_t count, void* buf) {
  char* dst = static_cast<char*>(buf);
  for_each_run(t, count, [&](MPI_Aint at, std::size_t len) { std::memcpy(dst + at, w + at - t.lb, len); });
}

struct Operand {
  const TypeInfo* t;
  const Reduction* red;
  std::size_t unit() const { return red->packed ? t->size : red->op.elem_size; }
  std::size_t elems(std::size_t count) const { return red->packed ? count * red->elems_per_instance : count; }
  void load(const void* buf, std::size_t count, char* w) const {
    if (red->packed) pack(*t, buf, count, w);
    else to_layout(*t, buf, count, w);
  }
  void store(const char* w, std::size_t count, void* buf) const {
    if (red->packed) unpack(*t, w, count * t->size, buf, count);
    else from_layout(*t, w, count, buf);
  }
};

// The checks of a reduction's arguments, and its operand as the runner
// keeps it (*red: the caller's, which the blocking runner uses as it is).
template <typename Run>
int reduction_args(Run& run, Call& k, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   bool recv_needed, Reduction* red, Operand* o) {
  if (!k.ok()) return k.err;
  if (k.data(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type, "send")) return k.err;
  if (recv_needed && !recvbuf && count > 0 && type_info(type)->true_lb == 0 && type_info(type)->size > 0)
    return k.err = raise(k.comm, k.name, MPI_ERR_BUFFER, "recvbuf is NULL");
  if ((k.err = make_reduction(k.comm, k.name, op, type, red))) return k.err;
  *o = Operand{run.type(type), run.hold(red)};
  return MPI_SUCCESS;
}

// A reduction's operands loaded into scratch (MPI_IN_PLACE: from recvbuf).
template <typename Run>
char* load_operands(Run& run, const Operand& o, const void* sendbuf, void* recvbuf, std::size_t n) {
  char* w = run.scratch(kWork, n * o.unit());
  o.load(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, n, w);
  return w;
}

// ---- the collectives, once for both runners ---------------------------------------

template <typename Run>
int barrier(Run& run, Call& k) {
  if (!k.ok()) return k.err;
  run.barrier(k.c->group);
  return run.finish(k);
}

template <typename Run>
int bcast(Run& run, Call& k, void* buffer, int count, MPI_Datatype datatype, int root) {
  if (!k.ok() || k.root(root) || k.data(buffer, count, datatype, "")) return k.err;
  const TypeInfo* t = run.type(datatype);
  const std::size_t n = static_cast<std::size_t>(count);
  const bool me_root = k.c->rank() == root;
  char* data = me_root ? const_cast<char*>(packed_in(run, *t, buffer, n, kSend)) : packed_out(run, *t, buffer, n, kRecv);
  run.broadcast(k.c->group, data, n * t->size, root);
  if (!me_root && !t->contiguous) run.then([t, data, n, buffer] { unpack(*t, data, n * t->size, buffer, n); });
  return run.finish(k);
}

template <typename Run>
int gather(Run& run, Call& k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root) {
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  if (me_root && k.aliased(sendbuf, recvbuf, sendcount > 0 && recvcount > 0)) return k.err;
  if (me_root && sendbuf == MPI_IN_PLACE && type_info(recvtype)) {  // the root's block is in place already
    sendbuf = static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(root) * recvcount * type_info(recvtype)->extent();
    sendcount = recvcount;
    sendtype = recvtype;
  }
  if (k.data(sendbuf, sendcount, sendtype, "send")) return k.err;
  if (me_root && k.data(recvbuf, recvcount, recvtype, "recv")) return k.err;
  const TypeInfo& st = *type_info(sendtype);
  const char* send = packed_in(run, st, sendbuf, static_cast<std::size_t>(sendcount), kSend);
  if (!me_root) {
    run.gather(k.c->group, send, nullptr, sendcount * st.size, root);
    return run.finish(k);
  }
  const TypeInfo* rt = run.type(recvtype);
  const int p = k.c->size();
  const std::size_t block = static_cast<std::size_t>(recvcount) * rt->size;
  if (sendcount * st.size != block)
    return raise(k.comm, k.name, MPI_ERR_TRUNCATE, "the root's send and receive signatures differ in size");
  const std::size_t rn = static_cast<std::size_t>(recvcount) * p;
  char* recv = packed_out(run, *rt, recvbuf, rn, kRecv);
  run.gather(k.c->group, send, recv, block, root);
  if (!rt->contiguous) run.then([rt, recv, block, p, recvbuf, rn] { unpack(*rt, recv, block * p, recvbuf, rn); });
  return run.finish(k);
}

template <typename Run>
int gatherv(Run& run, Call& k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root) {
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  if (me_root && k.aliased(sendbuf, recvbuf, sendcount > 0)) return k.err;
  if (me_root && sendbuf == MPI_IN_PLACE && type_info(recvtype) && recvcounts && displs) {
    sendbuf = static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(displs[root]) * type_info(recvtype)->extent();
    sendcount = recvcounts[root];
    sendtype = recvtype;
  }
  if (k.data(sendbuf, sendcount, sendtype, "send")) return k.err;
  const TypeInfo& st = *type_info(sendtype);
  const char* send = packed_in(run, st, sendbuf, static_cast<std::size_t>(sendcount), kSend);
  const std::size_t bytes = static_cast<std::size_t>(sendcount) * st.size;
  if (!me_root) {
    run.gatherv(k.c->group, send, bytes, nullptr, nullptr, nullptr, root);
    return run.finish(k);
  }
  if (k.data(recvbuf, 0, recvtype, "recv") || k.counts(recvcounts, "recvcounts")) return k.err;
  if (!displs) return raise(k.comm, k.name, MPI_ERR_ARG, "displs is NULL");
  const TypeInfo* rt = run.type(recvtype);
  const int p = k.c->size();
  Blocks b = blocks(*rt, p, recvcounts, displs);
  char* base = block_base(*rt, recvbuf, run.scratch(kRecv, b.total));
  run.gatherv(k.c->group, send, bytes, base, b.counts.data(), b.displs.data(), root);
  if (!rt->contiguous) unpack_blocks_after(run, rt, base, b, recvcounts, displs, recvbuf, p);
  return run.finish(k);
}

template <typename Run>
int scatter(Run& run, Call& k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            int recvcount, MPI_Datatype recvtype, int root) {
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  if (me_root && k.aliased(sendbuf, recvbuf, sendcount > 0 && recvcount > 0)) return k.err;
  const bool in_place = me_root && recvbuf == MPI_IN_PLACE;  // the root keeps its block where it is
  if (in_place) recvcount = 0, recvtype = MPI_BYTE;
  if (k.data(recvbuf, recvcount, recvtype, "recv")) return k.err;
  if (me_root && k.data(sendbuf, sendcount, sendtype, "send")) return k.err;
  const TypeInfo* rt = run.type(recvtype);
  const std::size_t rn = static_cast<std::size_t>(recvcount);
  char* recv = in_place ? run.scratch(kRecv, static_cast<std::size_t>(sendcount) * type_info(sendtype)->size)
                        : packed_out(run, *rt, recvbuf, rn, kRecv);
  const char* send = nullptr;
  std::size_t block = rn * rt->size;
  if (me_root) {
    const TypeInfo& st = *type_info(sendtype);
    block = static_cast<std::size_t>(sendcount) * st.size;
    send = packed_in(run, st, sendbuf, static_cast<std::size_t>(sendcount) * k.c->size(), kSend);
  }
  run.scatter(k.c->group, send, recv, block, root);
  if (!rt->contiguous && !in_place) run.then([rt, recv, rn, recvbuf] { unpack(*rt, recv, rn * rt->size, recvbuf, rn); });
  return run.finish(k);
}

template <typename Run>
int scatterv(Run& run, Call& k, const void* sendbuf, const int* sendcounts, const int* displs, MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  if (me_root && k.aliased(sendbuf, recvbuf, recvcount > 0)) return k.err;
  const bool in_place = me_root && recvbuf == MPI_IN_PLACE;  // the root keeps its block where it is
  if (in_place) recvcount = 0, recvtype = MPI_BYTE;
  if (k.data(recvbuf, recvcount, recvtype, "recv")) return k.err;
  const TypeInfo* rt = run.type(recvtype);
  std::size_t rn = static_cast<std::size_t>(recvcount);
  char* recv = packed_out(run, *rt, recvbuf, rn, kRecv);
  Blocks b;
  char* base = nullptr;
  if (me_root) {
    if (k.data(sendbuf, 0, sendtype, "send") || k.counts(sendcounts, "sendcounts")) return k.err;
    if (!displs) return raise(k.comm, k.name, MPI_ERR_ARG, "displs is NULL");
    const TypeInfo& st = *type_info(sendtype);
    b = blocks(st, k.c->size(), sendcounts, displs);
    base = block_base(st, const_cast<void*>(sendbuf), run.scratch(kSend, b.total));
    if (!st.contiguous) pack_blocks(st, sendbuf, b, sendcounts, displs, base, k.c->size());
    if (in_place) rn = b.counts[root], recv = run.scratch(kRecv, rn);
  }
  run.scatterv(k.c->group, base, b.counts.data(), b.displs.data(), recv, rn * rt->size, root);
  if (!rt->contiguous && !in_place) run.then([rt, recv, rn, recvbuf] { unpack(*rt, recv, rn * rt->size, recvbuf, rn); });
  return run.finish(k);
}

// The two allgathers' common part: recvcounts/displs may be null for a
// contiguous recvtype (MPI_Allgather's even blocks, each of `my_count`).
template <typename Run>
int allgather_blocks(Run& run, Call& k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int* recvcounts, const int* displs, MPI_Datatype recvtype, int my_count) {
  if (k.data(sendbuf, sendcount, sendtype, "send")) return k.err;
  const TypeInfo& st = *type_info(sendtype);
  const TypeInfo* rt = run.type(recvtype);
  const int p = k.c->size();
  if (static_cast<std::size_t>(sendcount) * st.size != static_cast<std::size_t>(my_count) * rt->size)
    return raise(k.comm, k.name, MPI_ERR_TRUNCATE,
                 "sendcount * size(sendtype) differs from recvcounts[rank] * size(recvtype)");
  const char* send = packed_in(run, st, sendbuf, static_cast<std::size_t>(sendcount), kSend);
  Blocks b = recvcounts ? blocks(*rt, p, recvcounts, displs) : even_blocks(*rt, p, my_count);
  char* base = block_base(*rt, recvbuf, run.scratch(kRecv, b.total));
  run.allgatherv(k.c->group, send, base, b.counts.data(), b.displs.data());
  if (!rt->contiguous) unpack_blocks_after(run, rt, base, b, recvcounts, displs, recvbuf, p);
  return run.finish(k);
}

template <typename Run>
int allgatherv(Run& run, Call& k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int* recvcounts, const int* displs, MPI_Datatype recvtype) {
  if (!k.ok() || k.data(recvbuf, 0, recvtype, "recv") || k.counts(recvcounts, "recvcounts")) return k.err;
  if (!displs) return raise(k.comm, k.name, MPI_ERR_ARG, "displs is NULL");
  // The blocks received span [begin, end) recvtype extents from recvbuf.
  MPI_Aint begin = std::numeric_limits<MPI_Aint>::max(), end = 0;
  for (int i = 0; i < k.c->size(); ++i)
    if (recvcounts[i] > 0) {
      begin = std::min<MPI_Aint>(begin, displs[i]);
      end = std::max<MPI_Aint>(end, static_cast<MPI_Aint>(displs[i]) + recvcounts[i]);
    }
  if (sendcount > 0 && end > begin) {
    const TypeInfo& rt = *type_info(recvtype);
    if (k.aliased(sendbuf, recvbuf, span_bytes(end - begin, rt), begin * rt.extent())) return k.err;
  }
  if (sendbuf == MPI_IN_PLACE) {  // my block is in recvbuf already
    sendbuf = static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(displs[k.c->rank()]) * type_info(recvtype)->extent();
    sendcount = recvcounts[k.c->rank()];
    sendtype = recvtype;
  }
  return allgather_blocks(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          recvcounts[k.c->rank()]);
}

template <typename Run>
int allgather(Run& run, Call& k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype) {
  // recvcount checked here, so that an error names it (not allgatherv's recvcounts[0]).
  if (!k.ok() || k.data(recvbuf, recvcount, recvtype, "recv")) return k.err;
  const TypeInfo& rt = *type_info(recvtype);
  if (k.aliased(sendbuf, recvbuf, sendcount > 0 ? span_bytes(static_cast<MPI_Aint>(k.c->size()) * recvcount, rt) : 0))
    return k.err;
  if (rt.contiguous && sendbuf != MPI_IN_PLACE)
    return allgather_blocks(run, k, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvtype, recvcount);
  // In place (my block is in recvbuf) or a non-contiguous recvtype: as the
  // MPI_Allgatherv it is.
  const int p = k.c->size();
  std::vector<int> counts(p, recvcount), displs(p);
  for (int i = 0; i < p; ++i) displs[i] = i * recvcount;
  return allgatherv(run, k, sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype);
}

template <typename Run>
int alltoallv(Run& run, Call& k, const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
              void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype) {
  if (k.ok() && sendbuf == MPI_IN_PLACE && type_info(recvtype) && recvcounts && rdispls) {
    // MPI-2.2: the data to send are in recvbuf, laid out as received.
    const TypeInfo& rt = *type_info(recvtype);
    MPI_Aint lo = 0, hi = 0;
    for (int i = 0; i < k.c->size(); ++i)
      if (recvcounts[i] > 0) {
        lo = std::min<MPI_Aint>(lo, rdispls[i] * rt.extent() + rt.lb);
        hi = std::max<MPI_Aint>(hi, (rdispls[i] + recvcounts[i]) * rt.extent() + rt.lb);
      }
    char* copy = run.scratch(kCopy, static_cast<std::size_t>(hi - lo));
    if (hi > lo) std::memcpy(copy, static_cast<char*>(recvbuf) + lo, static_cast<std::size_t>(hi - lo));
    sendbuf = copy - lo;
    sendcounts = recvcounts;
    sdispls = rdispls;
    sendtype = recvtype;
  }
  if (!k.ok() || k.data(sendbuf, 0, sendtype, "send") || k.data(recvbuf, 0, recvtype, "recv") ||
      k.counts(sendcounts, "sendcounts") || k.counts(recvcounts, "recvcounts"))
    return k.err;
  if (!sdispls || !rdispls) return raise(k.comm, k.name, MPI_ERR_ARG, "sdispls or rdispls is NULL");
  const TypeInfo& st = *type_info(sendtype);
  const TypeInfo* rt = run.type(recvtype);
  const int p = k.c->size();
  Blocks sb = blocks(st, p, sendcounts, sdispls), rb = blocks(*rt, p, recvcounts, rdispls);
  // In place, sendbuf is a copy by now. A Blocks' total is a span: data
  // moves where a count is not 0.
  auto moves = [](const Blocks& b) { return std::ranges::any_of(b.counts, [](std::size_t c) { return c > 0; }); };
  if (k.aliased(sendbuf, recvbuf, moves(sb) && moves(rb))) return k.err;
  char* sbase = block_base(st, const_cast<void*>(sendbuf), run.scratch(kSend, sb.total));
  if (!st.contiguous) pack_blocks(st, sendbuf, sb, sendcounts, sdispls, sbase, p);
  char* rbase = block_base(*rt, recvbuf, run.scratch(kRecv, rb.total));
  run.alltoallv(k.c->group, sbase, sb.counts.data(), sb.displs.data(), rbase, rb.counts.data(), rb.displs.data());
  if (!rt->contiguous) unpack_blocks_after(run, rt, rbase, rb, recvcounts, rdispls, recvbuf, p);
  return run.finish(k);
}

template <typename Run>
int alltoall(Run& run, Call& k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype) {
  if (!k.ok() || k.aliased(sendbuf, recvbuf, sendcount > 0 && recvcount > 0)) return k.err;
  const int p = k.c->size();
  if (sendbuf != MPI_IN_PLACE && sendcount >= 0 && recvcount >= 0 && type_info(sendtype) && type_info(recvtype) &&
      static_cast<std::size_t>(sendcount) * type_info(sendtype)->size ==
          static_cast<std::size_t>(recvcount) * type_info(recvtype)->size) {
    // Equal blocks: collectives::alltoall (on a torus of a mesh fabric, p
    // scatters at once on the OPT schedule, seed 003 §5.2).
    if (k.data(sendbuf, sendcount, sendtype, "send") || k.data(recvbuf, recvcount, recvtype, "recv")) return k.err;
    const TypeInfo& st = *type_info(sendtype);
    const TypeInfo* rt = run.type(recvtype);
    const std::size_t rn = static_cast<std::size_t>(recvcount) * p;
    const char* send = packed_in(run, st, sendbuf, static_cast<std::size_t>(sendcount) * p, kSend);
    char* recv = packed_out(run, *rt, recvbuf, rn, kRecv);
    run.alltoall(k.c->group, send, recv, static_cast<std::size_t>(recvcount) * rt->size);
    if (!rt->contiguous) run.then([rt, recv, rn, recvbuf] { unpack(*rt, recv, rn * rt->size, recvbuf, rn); });
    return run.finish(k);
  }
  std::vector<int> scounts(p, sendcount), sdispls(p), rcounts(p, recvcount), rdispls(p);
  for (int i = 0; i < p; ++i) sdispls[i] = i * sendcount, rdispls[i] = i * recvcount;
  return alltoallv(run, k, sendbuf, scounts.data(), sdispls.data(), sendtype, recvbuf, rcounts.data(), rdispls.data(),
                   recvtype);
}

template <typename Run>
int reduce(Run& run, Call& k, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root) {
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  if (me_root && k.aliased(sendbuf, recvbuf, count > 0)) return k.err;
  Reduction red;
  Operand o;
  if (reduction_args(run, k, sendbuf, recvbuf, count, datatype, op, me_root, &red, &o)) return k.err;
  const std::size_t n = static_cast<std::size_t>(count);
  char* w = load_operands(run, o, sendbuf, recvbuf, n);
  run.reduce(k.c->group, w, o.elems(n), o.red->op, root);
  if (me_root) run.then([o, w, n, recvbuf] { o.store(w, n, recvbuf); });
  return run.finish(k);
}

template <typename Run>
int allreduce(Run& run, Call& k, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  Reduction red;
  Operand o;
  if (k.ok() && k.aliased(sendbuf, recvbuf, count > 0)) return k.err;
  if (reduction_args(run, k, sendbuf, recvbuf, count, datatype, op, true, &red, &o)) return k.err;
  const TypeInfo& t = *o.t;
  const std::size_t n = static_cast<std::size_t>(count);
  if (o.red->packed && t.contiguous) {  // the common case: combine in the user's receive buffer
    char* r = const_cast<char*>(data_start(t, recvbuf));
    if (sendbuf != MPI_IN_PLACE && n) std::memmove(r, data_start(t, sendbuf), n * t.size);
    run.allreduce(k.c->group, r, o.elems(n), o.red->op);
    return run.finish(k);
  }
  char* w = load_operands(run, o, sendbuf, recvbuf, n);
  run.allreduce(k.c->group, w, o.elems(n), o.red->op);
  run.then([o, w, n, recvbuf] { o.store(w, n, recvbuf); });
  return run.finish(k);
}

// MPI_IN_PLACE is not defined on intercommunicators: MPI_ERR_ARG.
int in_place_on_inter(Call& k, const void* sendbuf, const void* recvbuf) {
  if (sendbuf != MPI_IN_PLACE && recvbuf != MPI_IN_PLACE) return MPI_SUCCESS;
  return k.err = raise(k.comm, k.name, MPI_ERR_ARG, "MPI_IN_PLACE, which intercommunicators do not take");
}

// MPI_Ireduce and MPI_Iallreduce on an intercommunicator (MPI-3.1 §5.12 of
// MPI-2.2 §5.9.1/§5.9.6's intercommunicator case): each group reduces its
// operands to its leader (local rank 0), which sends the result to the
// root (reduce) or swaps it with the other leader, who broadcasts it in its
// group (allreduce) -- coll_inter.cc's phases, as one schedule in the
// nonblocking context, whose local and inter-group messages cannot match
// each other's receives. `root` as MPI_Reduce's there: MPI_ROOT, MPI_PROC_NULL
// or a rank of the remote group; -1 for allreduce.
int inter_reduction(Later& run, Call& k, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, bool all) {
  if (!k.ok()) return k.err;
  const int remote = static_cast<int>(k.c->remote.size());
  if (!all && root != MPI_ROOT && root != MPI_PROC_NULL && (root < 0 || root >= remote))
    return k.err = raise(k.comm, k.name, MPI_ERR_ROOT, "root = " + std::to_string(root) + " is neither MPI_ROOT, "
                         "MPI_PROC_NULL nor a rank of the remote group (size " + std::to_string(remote) + ")");
  if (in_place_on_inter(k, sendbuf, recvbuf)) return k.err;
  if (!all && root == MPI_PROC_NULL) return run.finish(k);
  const bool receives = all || root == MPI_ROOT, sends = all || root != MPI_ROOT;
  Reduction red;
  Operand o;
  if (reduction_args(run, k, sends ? sendbuf : recvbuf, recvbuf, count, datatype, op, receives, &red, &o))
    return k.err;
  const std::size_t n = static_cast<std::size_t>(count), bytes = n * o.unit();
  const Group g = inter_local_group(*k.c);
  const bool leader = g.me == 0;
  char* w = nullptr;
  if (sends) {
    w = load_operands(run, o, sendbuf, recvbuf, n);
    run.reduce(g, w, o.elems(n), o.red->op, 0);
  }
  char* r = receives ? run.scratch(kRecv, bytes) : nullptr;
  run.s->next();
  if (all && leader) {
    run.s->send(k.c->remote[0], w, bytes);
    run.s->recv(k.c->remote[0], r, bytes);
  } else if (!all && root == MPI_ROOT) {
    run.s->recv(k.c->remote[0], r, bytes);
  } else if (!all && leader) {
    run.s->send(k.c->remote[root], w, bytes);
  }
  if (all) run.broadcast(g, r, bytes, 0);
  if (receives) run.then([o, r, n, recvbuf] { o.store(r, n, recvbuf); });
  return run.finish(k);
}

// MPI_Ireduce_scatter(_block) on an intercommunicator: each group reduces
// the whole vector to its leader, the leaders swap the results, and each
// scatters the other group's over its group, recvcounts[i] to rank i.
int inter_reduce_scatter(Later& run, Call& k, const void* sendbuf, void* recvbuf, const int* recvcounts,
                         MPI_Datatype datatype, MPI_Op op) {
  if (!k.ok() || k.counts(recvcounts, "recvcounts")) return k.err;
  if (in_place_on_inter(k, sendbuf, recvbuf)) return k.err;
  const int p = k.c->size(), me = k.c->rank();
  const int total = std::accumulate(recvcounts, recvcounts + p, 0);
  if (k.aliased(sendbuf, recvbuf, total > 0)) return k.err;
  Reduction red;
  Operand o;
  if (reduction_args(run, k, sendbuf, recvbuf, total, datatype, op, recvcounts[me] > 0, &red, &o)) return k.err;
  const std::size_t n = static_cast<std::size_t>(total), unit = o.unit();
  const Group g = inter_local_group(*k.c);
  char* w = load_operands(run, o, sendbuf, recvbuf, n);
  run.reduce(g, w, o.elems(n), o.red->op, 0);
  char* theirs = run.scratch(kRecv, n * unit);
  run.s->next();
  if (me == 0) {
    run.s->send(k.c->remote[0], w, n * unit);
    run.s->recv(k.c->remote[0], theirs, n * unit);
  }
  std::vector<std::size_t> counts(static_cast<std::size_t>(p)), displs(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) {
    counts[i] = static_cast<std::size_t>(recvcounts[i]) * unit;
    displs[i] = i ? displs[i - 1] + counts[i - 1] : 0;
  }
  const std::size_t mine_n = static_cast<std::size_t>(recvcounts[me]);
  char* mine = run.scratch(kCopy, counts[me]);
  run.scatterv(g, theirs, counts.data(), displs.data(), mine, counts[me], 0);
  run.then([o, mine, mine_n, recvbuf] { o.store(mine, mine_n, recvbuf); });
  return run.finish(k);
}

// MPI_Reduce_scatter and MPI_Reduce_scatter_block: the whole vector reduced
// to rank 0, then block i scattered to rank i (§4.10).
template <typename Run>
int reduce_scatter(Run& run, Call& k, const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype,
                   MPI_Op op) {
  if constexpr (std::is_same_v<Run, Later>)
    if (k.ok() && k.c->inter) return inter_reduce_scatter(run, k, sendbuf, recvbuf, recvcounts, datatype, op);
  if (!k.ok() || k.counts(recvcounts, "recvcounts")) return k.err;
  const int p = k.c->size(), me = k.c->rank();
  const int total = std::accumulate(recvcounts, recvcounts + p, 0);
  if (k.aliased(sendbuf, recvbuf, total > 0)) return k.err;
  Reduction red;
  Operand o;
  if (reduction_args(run, k, sendbuf, recvbuf, total, datatype, op, recvcounts[me] > 0, &red, &o)) return k.err;
  char* w = load_operands(run, o, sendbuf, recvbuf, static_cast<std::size_t>(total));
  run.reduce(k.c->group, w, o.elems(static_cast<std::size_t>(total)), o.red->op, 0);
  std::vector<std::size_t> counts(p), displs(p);
  std::size_t at = 0;
  for (int i = 0; i < p; ++i) {
    counts[i] = static_cast<std::size_t>(recvcounts[i]) * o.unit();
    displs[i] = at;
    at += counts[i];
  }
  char* mine = run.scratch(kRecv, counts[me]);
  run.scatterv(k.c->group, w, counts.data(), displs.data(), mine, counts[me], 0);
  const std::size_t n = static_cast<std::size_t>(recvcounts[me]);
  run.then([o, mine, n, recvbuf] { o.store(mine, n, recvbuf); });
  return run.finish(k);
}

template <typename Run>
int reduce_scatter_block(Run& run, Call& k, const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                         MPI_Op op) {
  if (!k.ok()) return k.err;
  if (recvcount < 0)
    return raise(k.comm, k.name, MPI_ERR_COUNT, "recvcount = " + std::to_string(recvcount) + " is negative");
  const std::vector<int> counts(static_cast<std::size_t>(k.c->size()), recvcount);
  return reduce_scatter(run, k, sendbuf, recvbuf, counts.data(), datatype, op);
}

// MPI_Scan, and MPI_Exscan (MPI-2.2 §5.11.2): rank i > 0 gets the
// combination of ranks 0..i-1; rank 0's recvbuf is left unchanged (the
// standard leaves it undefined).
template <typename Run>
int scan(Run& run, Call& k, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
         bool exclusive) {
  Reduction red;
  Operand o;
  const bool recv_needed = !exclusive || (k.ok() && k.c->rank() > 0);
  if (k.ok() && k.aliased(sendbuf, recvbuf, count > 0)) return k.err;
  if (reduction_args(run, k, sendbuf, recvbuf, count, datatype, op, recv_needed, &red, &o)) return k.err;
  const std::size_t n = static_cast<std::size_t>(count);
  char* w = load_operands(run, o, sendbuf, recvbuf, n);
  run.scan(k.c->group, w, o.elems(n), o.red->op, exclusive);
  if (!exclusive || k.c->rank() > 0) run.then([o, w, n, recvbuf] { o.store(w, n, recvbuf); });
  return run.finish(k);
}

// MPI-2.2 §5.8: a datatype per block, displacements in bytes. Each block is
// packed by its own type, the packed blocks move as MPI_Alltoallv's do, and
// each arriving block is unpacked by its receive type. MPI_IN_PLACE: the
// data to send are in recvbuf, laid out by the receive arguments.
template <typename Run>
int alltoallw(Run& run, Call& k, const void* sendbuf, const int* sendcounts, const int* sdispls,
              const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls,
              const MPI_Datatype* recvtypes) {
  if (!k.ok()) return k.err;
  if (sendbuf == MPI_IN_PLACE) sendcounts = recvcounts, sdispls = rdispls, sendtypes = recvtypes;
  if (k.counts(sendcounts, "sendcounts") || k.counts(recvcounts, "recvcounts")) return k.err;
  if (!sdispls || !rdispls || !sendtypes || !recvtypes)
    return raise(k.comm, k.name, MPI_ERR_ARG, "sdispls, rdispls, sendtypes or recvtypes is NULL");
  const int p = k.c->size();
  const void* from = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  std::vector<std::size_t> sc(p), sd(p), rc(p), rd(p);
  std::size_t stotal = 0, rtotal = 0;
  for (int i = 0; i < p; ++i) {
    if (k.data_at(from, sendcounts[i], sendtypes[i], "send", i) ||
        k.data_at(recvbuf, recvcounts[i], recvtypes[i], "recv", i))
      return k.err;
    sc[i] = static_cast<std::size_t>(sendcounts[i]) * type_info(sendtypes[i])->size;
    rc[i] = static_cast<std::size_t>(recvcounts[i]) * type_info(recvtypes[i])->size;
    sd[i] = stotal, rd[i] = rtotal;
    stotal += sc[i], rtotal += rc[i];
  }
  if (k.aliased(sendbuf, recvbuf, stotal > 0 && rtotal > 0)) return k.err;
  char* sbase = run.scratch(kSend, stotal);
  char* rbase = run.scratch(kRecv, rtotal);
  for (int i = 0; i < p; ++i)
    if (sc[i]) pack(*type_info(sendtypes[i]), static_cast<const char*>(from) + sdispls[i], sendcounts[i], sbase + sd[i]);
  run.alltoallv(k.c->group, sbase, sc.data(), sd.data(), rbase, rc.data(), rd.data());
  std::vector<const TypeInfo*> rts(p);
  for (int i = 0; i < p; ++i) rts[i] = rc[i] ? run.type(recvtypes[i]) : nullptr;
  run.then([rts, rbase, rc, rd, cs = std::vector<int>(recvcounts, recvcounts + p),
            ds = std::vector<int>(rdispls, rdispls + p), recvbuf, p] {
    for (int i = 0; i < p; ++i)
      if (rc[i]) unpack(*rts[i], rbase + rd[i], rc[i], static_cast<char*>(recvbuf) + ds[i], cs[i]);
  });
  return run.finish(k);
}

}  // namespace
}  // namespace meshmp::mpi

using namespace meshmp;
using namespace meshmp::mpi;

namespace {
// The communicator if it is an intercommunicator (its collectives are
// coll_inter.cc's); *err set if comm is not a communicator at all.
inline CommInfo* inter_comm(MPI_Comm comm, const char* call, int* err) {
  CommInfo* c = check_comm(comm, call, err);
  return c && c->inter ? c : nullptr;
}
}  // namespace

// ---- the blocking calls -------------------------------------------------------------

MESHMP_MPI_FN(int, Barrier, (MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Barrier", &ierr)) return inter_barrier(comm, ic);
  if (ierr) return ierr;
  Call k("MPI_Barrier", comm);
  Now run;
  return barrier(run, k);
} MESHMP_MPI_END(Barrier)

MESHMP_MPI_FN(int, Bcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Bcast", &ierr)) return inter_bcast(comm, ic, buffer, count, datatype, root);
  if (ierr) return ierr;
  Call k("MPI_Bcast", comm);
  Now run;
  return bcast(run, k, buffer, count, datatype, root);
} MESHMP_MPI_END(Bcast)

MESHMP_MPI_FN(int, Gather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Gather", &ierr)) return inter_gatherv(comm, ic, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvtype, root, "MPI_Gather", recvcount);
  if (ierr) return ierr;
  Call k("MPI_Gather", comm);
  Now run;
  return gather(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
} MESHMP_MPI_END(Gather)

MESHMP_MPI_FN(int, Gatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Gatherv", &ierr)) return inter_gatherv(comm, ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, "MPI_Gatherv");
  if (ierr) return ierr;
  Call k("MPI_Gatherv", comm);
  Now run;
  return gatherv(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
} MESHMP_MPI_END(Gatherv)

MESHMP_MPI_FN(int, Scatter, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Scatter", &ierr)) return inter_scatterv(comm, ic, sendbuf, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Scatter", sendcount);
  if (ierr) return ierr;
  Call k("MPI_Scatter", comm);
  Now run;
  return scatter(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
} MESHMP_MPI_END(Scatter)

MESHMP_MPI_FN(int, Scatterv, (const void* sendbuf, const int* sendcounts, const int* displs, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Scatterv", &ierr)) return inter_scatterv(comm, ic, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Scatterv");
  if (ierr) return ierr;
  Call k("MPI_Scatterv", comm);
  Now run;
  return scatterv(run, k, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
} MESHMP_MPI_END(Scatterv)

MESHMP_MPI_FN(int, Allgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Allgatherv", &ierr)) return inter_allgatherv(comm, ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, "MPI_Allgatherv");
  if (ierr) return ierr;
  Call k("MPI_Allgatherv", comm);
  Now run;
  return allgatherv(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
} MESHMP_MPI_END(Allgatherv)

MESHMP_MPI_FN(int, Allgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Allgather", &ierr)) return inter_allgatherv(comm, ic, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvtype, "MPI_Allgather", recvcount);
  if (ierr) return ierr;
  Call k("MPI_Allgather", comm);
  Now run;
  return allgather(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
} MESHMP_MPI_END(Allgather)

MESHMP_MPI_FN(int, Alltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Alltoallv", &ierr)) return inter_alltoall(comm, ic, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, "MPI_Alltoallv");
  if (ierr) return ierr;
  Call k("MPI_Alltoallv", comm);
  Now run;
  return alltoallv(run, k, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
} MESHMP_MPI_END(Alltoallv)

MESHMP_MPI_FN(int, Alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Alltoall", &ierr)) return inter_alltoall(comm, ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
  if (ierr) return ierr;
  Call k("MPI_Alltoall", comm);
  Now run;
  return alltoall(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
} MESHMP_MPI_END(Alltoall)

MESHMP_MPI_FN(int, Reduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Reduce", &ierr)) return inter_reduce(comm, ic, sendbuf, recvbuf, count, datatype, op, root);
  if (ierr) return ierr;
  Call k("MPI_Reduce", comm);
  Now run;
  return reduce(run, k, sendbuf, recvbuf, count, datatype, op, root);
} MESHMP_MPI_END(Reduce)

MESHMP_MPI_FN(int, Allreduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Allreduce", &ierr)) return inter_allreduce(comm, ic, sendbuf, recvbuf, count, datatype, op);
  if (ierr) return ierr;
  Call k("MPI_Allreduce", comm);
  Now run;
  return allreduce(run, k, sendbuf, recvbuf, count, datatype, op);
} MESHMP_MPI_END(Allreduce)

MESHMP_MPI_FN(int, Reduce_scatter, (const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Reduce_scatter", &ierr)) return inter_reduce_scatter(comm, ic, sendbuf, recvbuf, recvcounts, datatype, op, "MPI_Reduce_scatter");
  if (ierr) return ierr;
  Call k("MPI_Reduce_scatter", comm);
  Now run;
  return reduce_scatter(run, k, sendbuf, recvbuf, recvcounts, datatype, op);
} MESHMP_MPI_END(Reduce_scatter)

// MPI-2.2 §5.10.1: every block recvcount elements.
MESHMP_MPI_FN(int, Reduce_scatter_block, (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Reduce_scatter_block", &ierr)) return inter_reduce_scatter_block(comm, ic, sendbuf, recvbuf, recvcount, datatype, op);
  if (ierr) return ierr;
  Call k("MPI_Reduce_scatter_block", comm);
  Now run;
  return reduce_scatter_block(run, k, sendbuf, recvbuf, recvcount, datatype, op);
} MESHMP_MPI_END(Reduce_scatter_block)

MESHMP_MPI_FN(int, Scan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  Call k("MPI_Scan", comm);
  Now run;
  return scan(run, k, sendbuf, recvbuf, count, datatype, op, false);
} MESHMP_MPI_END(Scan)

MESHMP_MPI_FN(int, Exscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  Call k("MPI_Exscan", comm);
  Now run;
  return scan(run, k, sendbuf, recvbuf, count, datatype, op, true);
} MESHMP_MPI_END(Exscan)

MESHMP_MPI_FN(int, Alltoallw, (const void* sendbuf, const int* sendcounts, const int* sdispls, const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Alltoallw", &ierr)) return inter_alltoallw(comm, ic, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, true, "MPI_Alltoallw");
  if (ierr) return ierr;
  Call k("MPI_Alltoallw", comm);
  Now run;
  return alltoallw(run, k, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
} MESHMP_MPI_END(Alltoallw)

// ---- the nonblocking calls (MPI-3.1 §5.12) ---------------------------------------------
// The same arguments and checks as the blocking call, and a request that
// completes when the operation has; progress happens in any wait, test or
// probe of the process. Freeing or cancelling the request while active is
// MPI_ERR_REQUEST (§5.12).

MESHMP_MPI_FN(int, Ibarrier, (MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Ibarrier", &ierr)) return inter_ibarrier(comm, ic, request);
  if (ierr) return ierr;
  Call k("MPI_Ibarrier", comm);
  Later run(k, request);
  return barrier(run, k);
} MESHMP_MPI_END(Ibarrier)

MESHMP_MPI_FN(int, Ibcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Ibcast", &ierr))
    return inter_ibcast(comm, ic, buffer, count, datatype, root, request);
  if (ierr) return ierr;
  Call k("MPI_Ibcast", comm);
  Later run(k, request);
  return bcast(run, k, buffer, count, datatype, root);
} MESHMP_MPI_END(Ibcast)

MESHMP_MPI_FN(int, Igather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Igather", &ierr)) {
    const InterRequest nb{true, request};
    return inter_gatherv(comm, ic, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvtype, root, "MPI_Igather", recvcount, nb);
  }
  if (ierr) return ierr;
  Call k("MPI_Igather", comm);
  Later run(k, request);
  return gather(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
} MESHMP_MPI_END(Igather)

MESHMP_MPI_FN(int, Igatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Igatherv", &ierr)) {
    const InterRequest nb{true, request};
    return inter_gatherv(comm, ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, "MPI_Igatherv", 0, nb);
  }
  if (ierr) return ierr;
  Call k("MPI_Igatherv", comm);
  Later run(k, request);
  return gatherv(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
} MESHMP_MPI_END(Igatherv)

MESHMP_MPI_FN(int, Iscatter, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Iscatter", &ierr)) {
    const InterRequest nb{true, request};
    return inter_scatterv(comm, ic, sendbuf, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Iscatter", sendcount, nb);
  }
  if (ierr) return ierr;
  Call k("MPI_Iscatter", comm);
  Later run(k, request);
  return scatter(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
} MESHMP_MPI_END(Iscatter)

MESHMP_MPI_FN(int, Iscatterv, (const void* sendbuf, const int* sendcounts, const int* displs, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Iscatterv", &ierr)) {
    const InterRequest nb{true, request};
    return inter_scatterv(comm, ic, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, "MPI_Iscatterv", 0, nb);
  }
  if (ierr) return ierr;
  Call k("MPI_Iscatterv", comm);
  Later run(k, request);
  return scatterv(run, k, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
} MESHMP_MPI_END(Iscatterv)

MESHMP_MPI_FN(int, Iallgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Iallgatherv", &ierr)) {
    const InterRequest nb{true, request};
    return inter_allgatherv(comm, ic, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, "MPI_Iallgatherv", 0, nb);
  }
  if (ierr) return ierr;
  Call k("MPI_Iallgatherv", comm);
  Later run(k, request);
  return allgatherv(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
} MESHMP_MPI_END(Iallgatherv)

MESHMP_MPI_FN(int, Iallgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Iallgather", &ierr)) {
    const InterRequest nb{true, request};
    return inter_allgatherv(comm, ic, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvtype, "MPI_Iallgather", recvcount, nb);
  }
  if (ierr) return ierr;
  Call k("MPI_Iallgather", comm);
  Later run(k, request);
  return allgather(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
} MESHMP_MPI_END(Iallgather)

MESHMP_MPI_FN(int, Ialltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Ialltoallv", &ierr)) {
    const InterRequest nb{true, request};
    return inter_alltoall(comm, ic, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, "MPI_Ialltoallv", nb);
  }
  if (ierr) return ierr;
  Call k("MPI_Ialltoallv", comm);
  Later run(k, request);
  return alltoallv(run, k, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype);
} MESHMP_MPI_END(Ialltoallv)

MESHMP_MPI_FN(int, Ialltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Ialltoall", &ierr)) {
    const InterRequest nb{true, request};
    return inter_alltoall(comm, ic, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Ialltoall", nb);
  }
  if (ierr) return ierr;
  Call k("MPI_Ialltoall", comm);
  Later run(k, request);
  return alltoall(run, k, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
} MESHMP_MPI_END(Ialltoall)

MESHMP_MPI_FN(int, Ialltoallw, (const void* sendbuf, const int* sendcounts, const int* sdispls, const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm, MPI_Request* request)) {
  int ierr = MPI_SUCCESS;
  if (CommInfo* ic = inter_comm(comm, "MPI_Ialltoallw", &ierr)) {
    const InterRequest nb{true, request};
    return inter_alltoallw(comm, ic, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, true, "MPI_Ialltoallw", nb);
  }
  if (ierr) return ierr;
  Call k("MPI_Ialltoallw", comm);
  Later run(k, request);
  return alltoallw(run, k, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes);
} MESHMP_MPI_END(Ialltoallw)

MESHMP_MPI_FN(int, Ireduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request* request)) {
  Call k("MPI_Ireduce", comm, true);
  Later run(k, request);
  if (k.ok() && k.c->inter) return inter_reduction(run, k, sendbuf, recvbuf, count, datatype, op, root, false);
  return reduce(run, k, sendbuf, recvbuf, count, datatype, op, root);
} MESHMP_MPI_END(Ireduce)

MESHMP_MPI_FN(int, Iallreduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request)) {
  Call k("MPI_Iallreduce", comm, true);
  Later run(k, request);
  if (k.ok() && k.c->inter) return inter_reduction(run, k, sendbuf, recvbuf, count, datatype, op, -1, true);
  return allreduce(run, k, sendbuf, recvbuf, count, datatype, op);
} MESHMP_MPI_END(Iallreduce)

MESHMP_MPI_FN(int, Ireduce_scatter, (const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request)) {
  Call k("MPI_Ireduce_scatter", comm, true);
  Later run(k, request);
  return reduce_scatter(run, k, sendbuf, recvbuf, recvcounts, datatype, op);
} MESHMP_MPI_END(Ireduce_scatter)

MESHMP_MPI_FN(int, Ireduce_scatter_block, (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request)) {
  Call k("MPI_Ireduce_scatter_block", comm, true);
  Later run(k, request);
  return reduce_scatter_block(run, k, sendbuf, recvbuf, recvcount, datatype, op);
} MESHMP_MPI_END(Ireduce_scatter_block)

MESHMP_MPI_FN(int, Iscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request)) {
  Call k("MPI_Iscan", comm);
  Later run(k, request);
  return scan(run, k, sendbuf, recvbuf, count, datatype, op, false);
} MESHMP_MPI_END(Iscan)

MESHMP_MPI_FN(int, Iexscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request)) {
  Call k("MPI_Iexscan", comm);
  Later run(k, request);
  return scan(run, k, sendbuf, recvbuf, count, datatype, op, true);
} MESHMP_MPI_END(Iexscan)

// MPI-2.2 §5.9.7: inoutbuf = inbuf (op) inoutbuf, locally.
MESHMP_MPI_FN(int, Reduce_local, (const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)) {
  const char* call = "MPI_Reduce_local";
  int err;
  if (!check_init(call, &err)) return err;
  if ((err = check_count(MPI_COMM_NULL, call, count)) || (err = check_type(MPI_COMM_NULL, call, datatype))) return err;
  if (count > 0 && (!inbuf || !inoutbuf)) return raise(MPI_COMM_NULL, call, MPI_ERR_BUFFER, "inbuf or inoutbuf is NULL");
  // MPI-2.2 §5.9.7 takes no MPI_IN_PLACE here, and inoutbuf is an OUT
  // argument that may not alias inbuf (§2.3).
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return raise(MPI_COMM_NULL, call, MPI_ERR_BUFFER, "MPI_IN_PLACE is not an operand of MPI_Reduce_local");
  if (count > 0 && inbuf == inoutbuf)
    return raise(MPI_COMM_NULL, call, MPI_ERR_BUFFER, "inbuf and inoutbuf are the same buffer (aliased, §2.3)");
  Reduction red;
  if ((err = make_reduction(MPI_COMM_NULL, call, op, datatype, &red))) return err;
  const Operand o{type_info(datatype), &red};
  const std::size_t n = static_cast<std::size_t>(count);
  char* left = scratch(kSend, n * o.unit());
  char* right = scratch(kWork, n * o.unit());
  o.load(inbuf, n, left);
  o.load(inoutbuf, n, right);
  red.op.combine(left, right, o.elems(n), red.op.ctx);  // left = inbuf (op) inoutbuf
  o.store(left, n, inoutbuf);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Reduce_local)
