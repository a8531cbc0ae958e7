// The fourteen collective operations (MPI-1.1 §4) over collectives/: on a
// communicator congruent to the torus (MPI_COMM_WORLD, its duplicates, and
// Cartesian communicators) the torus algorithms (axis-sweep broadcast and
// reduce, the global combine; seed 003 §5.2), otherwise binomial trees,
// rings and pairwise exchanges. Data of contiguous datatypes moves straight
// from and into the user's buffers; other datatypes are packed once.
// Non-commutative reductions combine in rank order (§4.9.4).
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "collectives/collectives.h"
#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

using collectives::Group;

// Scratch kept across calls (a fresh vector per call costs page faults).
enum Buf { kSend, kRecv, kWork, kBufs };
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
  // MPI-1.1 defines collectives on intracommunicators only (§4.2).
  Call(const char* n, MPI_Comm cm) : name(n), comm(cm) {
    c = check_comm(cm, n, &err);
    if (c && c->inter) {
      err = raise(cm, n, MPI_ERR_COMM, "comm is an intercommunicator");
      c = nullptr;
    }
  }
  bool ok() const { return c != nullptr; }
  int root(int r) {
    if (r < 0 || r >= c->size())
      return err = raise(comm, name, MPI_ERR_ROOT, "root = " + std::to_string(r) + " is not a rank of the communicator (size " + std::to_string(c->size()) + ")");
    return MPI_SUCCESS;
  }
  int data(const void* buf, int count, MPI_Datatype t, const char* which) {
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
                   "another rank sent more than this rank's count and datatype take (the ranks' arguments must "
                   "match, MPI-1.1 §4.1)");
    return report(comm, code_of(e, name));
  }
};

// The bytes of `count` instances of a datatype, contiguous in memory: the
// user's own buffer where possible, else packed into scratch `b`.
const char* packed_in(const TypeInfo& t, const void* buf, std::size_t count, Buf b) {
  if (t.contiguous) return data_start(t, buf);
  char* s = scratch(b, count * t.size);
  pack(t, buf, count, s);
  return s;
}

// Where received bytes go: the user's buffer, or scratch to unpack from.
char* packed_out(const TypeInfo& t, void* buf, std::size_t count, Buf b) {
  return t.contiguous ? const_cast<char*>(data_start(t, buf)) : scratch(b, count * t.size);
}

// Byte counts/displacements of v-collective blocks. A contiguous type's
// blocks sit in the user's buffer at displs[i] * extent; otherwise they are
// packed one after another in scratch.
struct Blocks {
  std::vector<std::size_t> counts, displs;
  std::size_t total = 0;
};
Blocks blocks(const TypeInfo& t, int p, const int* counts, const int* displs) {
  Blocks b;
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
// Unpacks each block i of `packed` to buf + displs[i] * extent.
void unpack_blocks(const TypeInfo& t, const char* packed, const Blocks& b, const int* counts, const int* displs,
                   void* buf, int p) {
  for (int i = 0; i < p; ++i)
    unpack(t, packed + b.displs[i], b.counts[i], static_cast<char*>(buf) + displs[i] * t.extent(),
           static_cast<std::size_t>(counts[i]));
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

int reduction_args(Call& k, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   bool recv_needed, Reduction* red) {
  if (!k.ok()) return k.err;
  if (k.data(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type, "send")) return k.err;
  if (recv_needed && !recvbuf && count > 0 && type_info(type)->true_lb == 0 && type_info(type)->size > 0)
    return k.err = raise(k.comm, k.name, MPI_ERR_BUFFER, "recvbuf is NULL");
  return k.err = make_reduction(k.comm, k.name, op, type, red);
}

}  // namespace
}  // namespace meshmp::mpi

using namespace meshmp;
using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Barrier, (MPI_Comm comm)) {
  Call k("MPI_Barrier", comm);
  if (!k.ok()) return k.err;
  return k.finish(collectives::barrier(k.c->group));
} MESHMP_MPI_END(Barrier)

MESHMP_MPI_FN(int, Bcast, (void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)) {
  Call k("MPI_Bcast", comm);
  if (!k.ok() || k.root(root) || k.data(buffer, count, datatype, "")) return k.err;
  const TypeInfo& t = *type_info(datatype);
  const std::size_t n = static_cast<std::size_t>(count);
  const bool me_root = k.c->rank() == root;
  char* data = me_root ? const_cast<char*>(packed_in(t, buffer, n, kSend)) : packed_out(t, buffer, n, kRecv);
  const mesh::Error e = collectives::broadcast(k.c->group, data, n * t.size, root);
  if (!me_root && !t.contiguous) unpack(t, data, n * t.size, buffer, n);
  return k.finish(e);
} MESHMP_MPI_END(Bcast)

MESHMP_MPI_FN(int, Gather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)) {
  Call k("MPI_Gather", comm);
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  if (me_root && sendbuf == MPI_IN_PLACE && type_info(recvtype)) {  // the root's block is in place already
    sendbuf = static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(root) * recvcount * type_info(recvtype)->extent();
    sendcount = recvcount;
    sendtype = recvtype;
  }
  if (k.data(sendbuf, sendcount, sendtype, "send")) return k.err;
  if (me_root && k.data(recvbuf, recvcount, recvtype, "recv")) return k.err;
  const TypeInfo& st = *type_info(sendtype);
  const char* send = packed_in(st, sendbuf, static_cast<std::size_t>(sendcount), kSend);
  if (!me_root) return k.finish(collectives::gather(k.c->group, send, nullptr, sendcount * st.size, root));
  const TypeInfo& rt = *type_info(recvtype);
  const int p = k.c->size();
  const std::size_t block = static_cast<std::size_t>(recvcount) * rt.size;
  if (sendcount * st.size != block)
    return raise(comm, k.name, MPI_ERR_TRUNCATE, "the root's send and receive signatures differ in size");
  char* recv = packed_out(rt, recvbuf, static_cast<std::size_t>(recvcount) * p, kRecv);
  const mesh::Error e = collectives::gather(k.c->group, send, recv, block, root);
  if (!rt.contiguous) unpack(rt, recv, block * p, recvbuf, static_cast<std::size_t>(recvcount) * p);
  return k.finish(e);
} MESHMP_MPI_END(Gather)

MESHMP_MPI_FN(int, Gatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm)) {
  Call k("MPI_Gatherv", comm);
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  if (me_root && sendbuf == MPI_IN_PLACE && type_info(recvtype) && recvcounts && displs) {
    sendbuf = static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(displs[root]) * type_info(recvtype)->extent();
    sendcount = recvcounts[root];
    sendtype = recvtype;
  }
  if (k.data(sendbuf, sendcount, sendtype, "send")) return k.err;
  const TypeInfo& st = *type_info(sendtype);
  const char* send = packed_in(st, sendbuf, static_cast<std::size_t>(sendcount), kSend);
  const std::size_t bytes = static_cast<std::size_t>(sendcount) * st.size;
  if (!me_root) return k.finish(collectives::gatherv(k.c->group, send, bytes, nullptr, nullptr, nullptr, root));
  if (k.data(recvbuf, 0, recvtype, "recv") || k.counts(recvcounts, "recvcounts")) return k.err;
  if (!displs) return raise(comm, k.name, MPI_ERR_ARG, "displs is NULL");
  const TypeInfo& rt = *type_info(recvtype);
  const int p = k.c->size();
  Blocks b = blocks(rt, p, recvcounts, displs);
  char* base = block_base(rt, recvbuf, scratch(kRecv, b.total));
  const mesh::Error e = collectives::gatherv(k.c->group, send, bytes, base, b.counts.data(), b.displs.data(), root);
  if (!rt.contiguous) unpack_blocks(rt, base, b, recvcounts, displs, recvbuf, p);
  return k.finish(e);
} MESHMP_MPI_END(Gatherv)

MESHMP_MPI_FN(int, Scatter, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)) {
  Call k("MPI_Scatter", comm);
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  const bool in_place = me_root && recvbuf == MPI_IN_PLACE;  // the root keeps its block where it is
  if (in_place) recvcount = 0, recvtype = MPI_BYTE;
  if (k.data(recvbuf, recvcount, recvtype, "recv")) return k.err;
  if (me_root && k.data(sendbuf, sendcount, sendtype, "send")) return k.err;
  const TypeInfo& rt = *type_info(recvtype);
  const std::size_t rn = static_cast<std::size_t>(recvcount);
  char* recv = in_place ? scratch(kRecv, static_cast<std::size_t>(sendcount) * type_info(sendtype)->size)
                        : packed_out(rt, recvbuf, rn, kRecv);
  const char* send = nullptr;
  std::size_t block = rn * rt.size;
  if (me_root) {
    const TypeInfo& st = *type_info(sendtype);
    block = static_cast<std::size_t>(sendcount) * st.size;
    send = packed_in(st, sendbuf, static_cast<std::size_t>(sendcount) * k.c->size(), kSend);
  }
  const mesh::Error e = collectives::scatter(k.c->group, send, recv, block, root);
  if (!rt.contiguous && !in_place) unpack(rt, recv, rn * rt.size, recvbuf, rn);
  return k.finish(e);
} MESHMP_MPI_END(Scatter)

MESHMP_MPI_FN(int, Scatterv, (const void* sendbuf, const int* sendcounts, const int* displs, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)) {
  Call k("MPI_Scatterv", comm);
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  const bool in_place = me_root && recvbuf == MPI_IN_PLACE;  // the root keeps its block where it is
  if (in_place) recvcount = 0, recvtype = MPI_BYTE;
  if (k.data(recvbuf, recvcount, recvtype, "recv")) return k.err;
  const TypeInfo& rt = *type_info(recvtype);
  std::size_t rn = static_cast<std::size_t>(recvcount);
  char* recv = packed_out(rt, recvbuf, rn, kRecv);
  Blocks b;
  char* base = nullptr;
  if (me_root) {
    if (k.data(sendbuf, 0, sendtype, "send") || k.counts(sendcounts, "sendcounts")) return k.err;
    if (!displs) return raise(comm, k.name, MPI_ERR_ARG, "displs is NULL");
    const TypeInfo& st = *type_info(sendtype);
    b = blocks(st, k.c->size(), sendcounts, displs);
    base = block_base(st, const_cast<void*>(sendbuf), scratch(kSend, b.total));
    if (!st.contiguous) pack_blocks(st, sendbuf, b, sendcounts, displs, base, k.c->size());
    if (in_place) rn = b.counts[root], recv = scratch(kRecv, rn);
  }
  const mesh::Error e = collectives::scatterv(k.c->group, base, b.counts.data(), b.displs.data(), recv, rn * rt.size, root);
  if (!rt.contiguous && !in_place) unpack(rt, recv, rn * rt.size, recvbuf, rn);
  return k.finish(e);
} MESHMP_MPI_END(Scatterv)

namespace {
int allgatherv(const char* name, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  Call k(name, comm);
  if (!k.ok() || k.data(recvbuf, 0, recvtype, "recv") || k.counts(recvcounts, "recvcounts")) return k.err;
  if (!displs) return raise(comm, k.name, MPI_ERR_ARG, "displs is NULL");
  if (sendbuf == MPI_IN_PLACE) {  // my block is in recvbuf already
    sendbuf = static_cast<char*>(recvbuf) + static_cast<MPI_Aint>(displs[k.c->rank()]) * type_info(recvtype)->extent();
    sendcount = recvcounts[k.c->rank()];
    sendtype = recvtype;
  }
  if (k.data(sendbuf, sendcount, sendtype, "send")) return k.err;
  const TypeInfo& st = *type_info(sendtype);
  const TypeInfo& rt = *type_info(recvtype);
  const int p = k.c->size(), me = k.c->rank();
  if (static_cast<std::size_t>(sendcount) * st.size != static_cast<std::size_t>(recvcounts[me]) * rt.size)
    return raise(comm, k.name, MPI_ERR_TRUNCATE, "sendcount * size(sendtype) differs from recvcounts[rank] * size(recvtype)");
  const char* send = packed_in(st, sendbuf, static_cast<std::size_t>(sendcount), kSend);
  Blocks b = blocks(rt, p, recvcounts, displs);
  char* base = block_base(rt, recvbuf, scratch(kRecv, b.total));
  const mesh::Error e = collectives::allgatherv(k.c->group, send, base, b.counts.data(), b.displs.data());
  if (!rt.contiguous) unpack_blocks(rt, base, b, recvcounts, displs, recvbuf, p);
  return k.finish(e);
}

}  // namespace

MESHMP_MPI_FN(int, Allgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm)) {
  return allgatherv("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
} MESHMP_MPI_END(Allgatherv)

MESHMP_MPI_FN(int, Allgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)) {
  int err;
  const CommInfo* c = check_comm(comm, "MPI_Allgather", &err);
  if (!c) return err;
  const int p = c->size();
  std::vector<int> counts(p, recvcount), displs(p);
  for (int i = 0; i < p; ++i) displs[i] = i * recvcount;
  return allgatherv("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, comm);
} MESHMP_MPI_END(Allgather)

namespace {
int alltoallv(const char* name, const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
              void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  Call k(name, comm);
  std::vector<char> sent_copy;
  if (k.ok() && sendbuf == MPI_IN_PLACE && type_info(recvtype) && recvcounts && rdispls) {
    // MPI-2.2: the data to send are in recvbuf, laid out as received.
    const TypeInfo& rt = *type_info(recvtype);
    MPI_Aint lo = 0, hi = 0;
    for (int i = 0; i < k.c->size(); ++i)
      if (recvcounts[i] > 0) {
        lo = std::min<MPI_Aint>(lo, rdispls[i] * rt.extent() + rt.lb);
        hi = std::max<MPI_Aint>(hi, (rdispls[i] + recvcounts[i]) * rt.extent() + rt.lb);
      }
    sent_copy.assign(static_cast<char*>(recvbuf) + lo, static_cast<char*>(recvbuf) + hi);
    sendbuf = sent_copy.data() - lo;
    sendcounts = recvcounts;
    sdispls = rdispls;
    sendtype = recvtype;
  }
  if (!k.ok() || k.data(sendbuf, 0, sendtype, "send") || k.data(recvbuf, 0, recvtype, "recv") ||
      k.counts(sendcounts, "sendcounts") || k.counts(recvcounts, "recvcounts"))
    return k.err;
  if (!sdispls || !rdispls) return raise(comm, k.name, MPI_ERR_ARG, "sdispls or rdispls is NULL");
  const TypeInfo& st = *type_info(sendtype);
  const TypeInfo& rt = *type_info(recvtype);
  const int p = k.c->size();
  Blocks sb = blocks(st, p, sendcounts, sdispls), rb = blocks(rt, p, recvcounts, rdispls);
  char* sbase = block_base(st, const_cast<void*>(sendbuf), scratch(kSend, sb.total));
  if (!st.contiguous) pack_blocks(st, sendbuf, sb, sendcounts, sdispls, sbase, p);
  char* rbase = block_base(rt, recvbuf, scratch(kRecv, rb.total));
  const mesh::Error e = collectives::alltoallv(k.c->group, sbase, sb.counts.data(), sb.displs.data(), rbase,
                                               rb.counts.data(), rb.displs.data());
  if (!rt.contiguous) unpack_blocks(rt, rbase, rb, recvcounts, rdispls, recvbuf, p);
  return k.finish(e);
}

}  // namespace

MESHMP_MPI_FN(int, Alltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm)) {
  return alltoallv("MPI_Alltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
} MESHMP_MPI_END(Alltoallv)

MESHMP_MPI_FN(int, Alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)) {
  int err;
  const CommInfo* c = check_comm(comm, "MPI_Alltoall", &err);
  if (!c) return err;
  const int p = c->size();
  if (sendbuf != MPI_IN_PLACE && sendcount >= 0 && recvcount >= 0 && type_info(sendtype) && type_info(recvtype) &&
      static_cast<std::size_t>(sendcount) * type_info(sendtype)->size ==
          static_cast<std::size_t>(recvcount) * type_info(recvtype)->size) {
    // Equal blocks: collectives::alltoall (on a torus of a mesh fabric, p
    // scatters at once on the OPT schedule, seed 003 §5.2).
    Call k("MPI_Alltoall", comm);
    if (!k.ok() || k.data(sendbuf, sendcount, sendtype, "send") || k.data(recvbuf, recvcount, recvtype, "recv"))
      return k.err;
    const TypeInfo& st = *type_info(sendtype);
    const TypeInfo& rt = *type_info(recvtype);
    const std::size_t rn = static_cast<std::size_t>(recvcount) * p;
    const char* send = packed_in(st, sendbuf, static_cast<std::size_t>(sendcount) * p, kSend);
    char* recv = packed_out(rt, recvbuf, rn, kRecv);
    const mesh::Error e = collectives::alltoall(k.c->group, send, recv, static_cast<std::size_t>(recvcount) * rt.size);
    if (!rt.contiguous) unpack(rt, recv, rn * rt.size, recvbuf, rn);
    return k.finish(e);
  }
  std::vector<int> scounts(p, sendcount), sdispls(p), rcounts(p, recvcount), rdispls(p);
  for (int i = 0; i < p; ++i) sdispls[i] = i * sendcount, rdispls[i] = i * recvcount;
  return alltoallv("MPI_Alltoall", sendbuf, scounts.data(), sdispls.data(), sendtype, recvbuf, rcounts.data(),
                   rdispls.data(), recvtype, comm);
} MESHMP_MPI_END(Alltoall)

MESHMP_MPI_FN(int, Reduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)) {
  Call k("MPI_Reduce", comm);
  Reduction red;
  if (!k.ok() || k.root(root)) return k.err;
  const bool me_root = k.c->rank() == root;
  if (reduction_args(k, sendbuf, recvbuf, count, datatype, op, me_root, &red)) return k.err;
  const Operand o{type_info(datatype), &red};
  const std::size_t n = static_cast<std::size_t>(count);
  char* w = scratch(kWork, n * o.unit());
  o.load(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, n, w);
  const mesh::Error e = collectives::reduce(k.c->group, w, o.elems(n), red.op, root);
  if (me_root) o.store(w, n, recvbuf);
  return k.finish(e);
} MESHMP_MPI_END(Reduce)

MESHMP_MPI_FN(int, Allreduce, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  Call k("MPI_Allreduce", comm);
  Reduction red;
  if (reduction_args(k, sendbuf, recvbuf, count, datatype, op, true, &red)) return k.err;
  const TypeInfo& t = *type_info(datatype);
  const Operand o{&t, &red};
  const std::size_t n = static_cast<std::size_t>(count);
  if (red.packed && t.contiguous) {  // the common case: combine in the user's receive buffer
    char* r = const_cast<char*>(data_start(t, recvbuf));
    if (sendbuf != MPI_IN_PLACE) std::memmove(r, data_start(t, sendbuf), n * t.size);
    return k.finish(collectives::allreduce(k.c->group, r, o.elems(n), red.op));
  }
  char* w = scratch(kWork, n * o.unit());
  o.load(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, n, w);
  const mesh::Error e = collectives::allreduce(k.c->group, w, o.elems(n), red.op);
  o.store(w, n, recvbuf);
  return k.finish(e);
} MESHMP_MPI_END(Allreduce)

namespace {
// MPI_Reduce_scatter and MPI_Reduce_scatter_block (`k` made by the caller).
int reduce_scatter(Call& k, const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype,
                   MPI_Op op) {
  if (!k.ok() || k.counts(recvcounts, "recvcounts")) return k.err;
  const int p = k.c->size(), me = k.c->rank();
  const int total = std::accumulate(recvcounts, recvcounts + p, 0);
  Reduction red;
  if (reduction_args(k, sendbuf, recvbuf, total, datatype, op, recvcounts[me] > 0, &red)) return k.err;
  const Operand o{type_info(datatype), &red};
  // Reduce the whole vector to rank 0, then scatter block i to rank i (§4.10).
  char* w = scratch(kWork, static_cast<std::size_t>(total) * o.unit());
  o.load(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, static_cast<std::size_t>(total), w);
  mesh::Error e = collectives::reduce(k.c->group, w, o.elems(static_cast<std::size_t>(total)), red.op, 0);
  std::vector<std::size_t> counts(p), displs(p);
  std::size_t at = 0;
  for (int i = 0; i < p; ++i) {
    counts[i] = static_cast<std::size_t>(recvcounts[i]) * o.unit();
    displs[i] = at;
    at += counts[i];
  }
  char* mine = scratch(kRecv, counts[me]);
  const mesh::Error e2 = collectives::scatterv(k.c->group, w, counts.data(), displs.data(), mine, counts[me], 0);
  o.store(mine, static_cast<std::size_t>(recvcounts[me]), recvbuf);
  return k.finish(e != mesh::Error::kOk ? e : e2);
}
}  // namespace

MESHMP_MPI_FN(int, Reduce_scatter, (const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  Call k("MPI_Reduce_scatter", comm);
  return reduce_scatter(k, sendbuf, recvbuf, recvcounts, datatype, op);
} MESHMP_MPI_END(Reduce_scatter)

// MPI-2.2 §5.10.1: every block recvcount elements.
MESHMP_MPI_FN(int, Reduce_scatter_block, (const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  Call k("MPI_Reduce_scatter_block", comm);
  if (!k.ok()) return k.err;
  if (recvcount < 0)
    return raise(comm, k.name, MPI_ERR_COUNT, "recvcount = " + std::to_string(recvcount) + " is negative");
  const std::vector<int> counts(static_cast<std::size_t>(k.c->size()), recvcount);
  return reduce_scatter(k, sendbuf, recvbuf, counts.data(), datatype, op);
} MESHMP_MPI_END(Reduce_scatter_block)

MESHMP_MPI_FN(int, Scan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  Call k("MPI_Scan", comm);
  Reduction red;
  if (reduction_args(k, sendbuf, recvbuf, count, datatype, op, true, &red)) return k.err;
  const Operand o{type_info(datatype), &red};
  const std::size_t n = static_cast<std::size_t>(count);
  char* w = scratch(kWork, n * o.unit());
  o.load(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, n, w);
  const mesh::Error e = collectives::scan(k.c->group, w, o.elems(n), red.op);
  o.store(w, n, recvbuf);
  return k.finish(e);
} MESHMP_MPI_END(Scan)

// MPI-2.2 §5.11.2: rank i > 0 gets the combination of ranks 0..i-1; rank
// 0's recvbuf is left unchanged (the standard leaves it undefined).
MESHMP_MPI_FN(int, Exscan, (const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)) {
  Call k("MPI_Exscan", comm);
  Reduction red;
  if (reduction_args(k, sendbuf, recvbuf, count, datatype, op, k.ok() && k.c->rank() > 0, &red)) return k.err;
  const Operand o{type_info(datatype), &red};
  const std::size_t n = static_cast<std::size_t>(count);
  char* w = scratch(kWork, n * o.unit());
  o.load(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, n, w);
  const mesh::Error e = collectives::exscan(k.c->group, w, o.elems(n), red.op);
  if (k.c->rank() > 0) o.store(w, n, recvbuf);
  return k.finish(e);
} MESHMP_MPI_END(Exscan)

// MPI-2.2 §5.8: a datatype per block, displacements in bytes. Each block is
// packed by its own type, the packed blocks move as MPI_Alltoallv's do, and
// each arriving block is unpacked by its receive type. MPI_IN_PLACE: the
// data to send are in recvbuf, laid out by the receive arguments.
MESHMP_MPI_FN(int, Alltoallw, (const void* sendbuf, const int* sendcounts, const int* sdispls, const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm)) {
  Call k("MPI_Alltoallw", comm);
  if (!k.ok()) return k.err;
  if (sendbuf == MPI_IN_PLACE) sendcounts = recvcounts, sdispls = rdispls, sendtypes = recvtypes;
  if (k.counts(sendcounts, "sendcounts") || k.counts(recvcounts, "recvcounts")) return k.err;
  if (!sdispls || !rdispls || !sendtypes || !recvtypes)
    return raise(comm, k.name, MPI_ERR_ARG, "sdispls, rdispls, sendtypes or recvtypes is NULL");
  const int p = k.c->size();
  const void* from = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  std::vector<std::size_t> sc(p), sd(p), rc(p), rd(p);
  std::size_t stotal = 0, rtotal = 0;
  for (int i = 0; i < p; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    if (k.data(from, sendcounts[i], sendtypes[i], ("send" + at + " ").c_str()) ||
        k.data(recvbuf, recvcounts[i], recvtypes[i], ("recv" + at + " ").c_str()))
      return k.err;
    sc[i] = static_cast<std::size_t>(sendcounts[i]) * type_info(sendtypes[i])->size;
    rc[i] = static_cast<std::size_t>(recvcounts[i]) * type_info(recvtypes[i])->size;
    sd[i] = stotal, rd[i] = rtotal;
    stotal += sc[i], rtotal += rc[i];
  }
  char* sbase = scratch(kSend, stotal);
  char* rbase = scratch(kRecv, rtotal);
  for (int i = 0; i < p; ++i)
    if (sc[i]) pack(*type_info(sendtypes[i]), static_cast<const char*>(from) + sdispls[i], sendcounts[i], sbase + sd[i]);
  const mesh::Error e = collectives::alltoallv(k.c->group, sbase, sc.data(), sd.data(), rbase, rc.data(), rd.data());
  for (int i = 0; i < p; ++i)
    if (rc[i]) unpack(*type_info(recvtypes[i]), rbase + rd[i], rc[i], static_cast<char*>(recvbuf) + rdispls[i], recvcounts[i]);
  return k.finish(e);
} MESHMP_MPI_END(Alltoallw)

// MPI-2.2 §5.9.7: inoutbuf = inbuf (op) inoutbuf, locally.
MESHMP_MPI_FN(int, Reduce_local, (const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op)) {
  const char* call = "MPI_Reduce_local";
  int err;
  if (!check_init(call, &err)) return err;
  if ((err = check_count(MPI_COMM_NULL, call, count)) || (err = check_type(MPI_COMM_NULL, call, datatype))) return err;
  if (count > 0 && (!inbuf || !inoutbuf)) return raise(MPI_COMM_NULL, call, MPI_ERR_BUFFER, "inbuf or inoutbuf is NULL");
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
