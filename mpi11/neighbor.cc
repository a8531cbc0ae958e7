// Neighbourhood collectives (MPI-3.1 §7.6) on Cartesian, graph and
// distributed graph communicators: every rank exchanges one block with each
// of its neighbours (on a distributed graph: receives from its sources,
// sends to its destinations), all receives and sends posted at once on the communicator's
// collective context. On a Cartesian communicator placed on the torus
// (MPI_Cart_create with reorder over the world) the neighbours are torus
// neighbours, so this is the halo exchange of a lattice code, each block on
// the nearest-neighbour link of its direction.
//
// Neighbour order (§7.6): Cartesian, for each dimension d the rank at -1
// then the rank at +1 (MPI_Cart_shift(d, 1)); MPI_PROC_NULL neighbours keep
// their buffer blocks and move nothing. Graph, MPI_Graph_neighbors' order.
// A block sent towards -1 in dimension d carries tag 2d and is the receiver's
// +1 block; so on a periodic dimension of size 1 or 2, where both neighbours
// are one rank, each block still lands in its own place.
#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "collectives/schedule.h"
#include "mpi11/internal.h"

using namespace meshmp;
using namespace meshmp::mpi;

namespace {

// The ranks blocks come from (`in`) and go to (`out`), in §7.6's order;
// one list for Cartesian and graph topologies, a distributed graph's
// sources and destinations for it (MPI_PROC_NULL allowed).
struct Neighbours {
  std::vector<int> in, out;
  std::vector<int> in_tags, out_tags;
};

// One block of the exchange: `count` instances of `type` at `buf`.
struct Block {
  char* buf;
  int count;
  MPI_Datatype type;
};

// Storage kept across calls (MPI_THREAD_SERIALIZED: one caller at a time), so
// an exchange allocates nothing once warm.
struct Scratch {
  Neighbours nb;
  std::vector<Block> sends, recvs;
  std::vector<std::vector<char>> packed_in, packed_out;
  std::vector<mesh::Request*> reqs;
  std::vector<mesh::Status> statuses;
};
Scratch& scratch() {
  static Scratch s;
  return s;
}

// The neighbour of `c` at -1 (`plus` 0) or +1 (`plus` 1) along dimension d
// (MPI_Cart_shift(d, 1) on the row-major coordinates): its rank here, or
// MPI_PROC_NULL off an open edge. `stride`: the product of the extents
// after d; the neighbour differs from this rank by one stride. No
// allocation, no MPI_Cart_shift (which builds vectors).
int cart_neighbour(const CommInfo& c, std::size_t d, int stride, std::size_t plus) {
  const int extent = c.dims[d], x = c.rank() / stride % extent;
  int y = plus ? x + 1 : x - 1;
  if (c.periods[d]) y = y < 0 ? extent - 1 : y == extent ? 0 : y;
  else if (y < 0 || y >= extent) return MPI_PROC_NULL;  // off an open edge
  return c.rank() + (y - x) * stride;
}

int neighbours_of(const char* call, MPI_Comm comm, CommInfo** ci, Neighbours* nb) {
  nb->in.clear();
  nb->out.clear();
  nb->out_tags.clear();
  nb->in_tags.clear();
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  *ci = c;
  if (c->topo == Topo::kCart) {
    const std::size_t nd = c->dims.size();
    nb->out.resize(2 * nd);
    nb->out_tags.resize(2 * nd);
    nb->in_tags.resize(2 * nd);
    int stride = 1;
    for (std::size_t d = nd; d-- > 0; stride *= c->dims[d])
      for (std::size_t k : {2 * d, 2 * d + 1}) {
        nb->out[k] = cart_neighbour(*c, d, stride, k & 1);
        nb->out_tags[k] = static_cast<int>(k);
        nb->in_tags[k] = static_cast<int>(k ^ 1);  // -1's block was sent towards its +1
      }
    nb->in = nb->out;
    return MPI_SUCCESS;
  }
  if (c->topo == Topo::kGraph) {
    int n = 0;
    PMPI_Graph_neighbors_count(comm, c->rank(), &n);
    nb->out.resize(static_cast<std::size_t>(n));
    PMPI_Graph_neighbors(comm, c->rank(), n, nb->out.data());
    nb->in = nb->out;
    nb->out_tags.assign(static_cast<std::size_t>(n), 0);
    nb->in_tags.assign(static_cast<std::size_t>(n), 0);
    return MPI_SUCCESS;
  }
  if (c->topo == Topo::kDistGraph) {  // MPI-2.2 §7.5.4: from the sources, to the destinations
    nb->in = c->sources;
    nb->out = c->destinations;
    nb->in_tags.assign(nb->in.size(), 0);
    nb->out_tags.assign(nb->out.size(), 0);
    return MPI_SUCCESS;
  }
  return raise(comm, call, MPI_ERR_TOPOLOGY, "comm has no Cartesian, graph or distributed graph topology");
}

// Completes an exchange's posted requests: MPI_SUCCESS, or the first
// failure's code (MPI_ERR_TRUNCATE where a neighbour sent more than its
// receive block takes) raised on comm.
int finish_exchange(const char* call, MPI_Comm comm, const std::vector<mesh::Request*>& reqs) {
  std::vector<mesh::Status>& st = scratch().statuses;
  st.resize(reqs.size());
  state().engine->waitall(reqs.size(), reqs.data(), st.data());
  mesh::Error failed = mesh::Error::kOk;
  for (const mesh::Status& s : st)
    if (s.error != mesh::Error::kOk && failed == mesh::Error::kOk) failed = s.error;
  if (failed == mesh::Error::kTruncate)
    return raise(comm, call, MPI_ERR_TRUNCATE, "a neighbour sent more than its receive block takes");
  return failed == mesh::Error::kOk ? MPI_SUCCESS : report(comm, code_of(failed, call));
}

int exchange_later(const char* call, MPI_Comm comm, const CommInfo& c, const Neighbours& nb,
                   const std::vector<Block>& sends, const std::vector<Block>& recvs, MPI_Request* request);

// Checks every block's count and type, then exchanges: receives and sends
// posted at once, contiguous blocks straight from and into the user's
// buffers, others packed. With a `request` (the MPI_Ineighbor_... forms),
// the exchange is started behind it instead (exchange_later).
int exchange(const char* call, MPI_Comm comm, CommInfo& c, const Neighbours& nb, const std::vector<Block>& sends,
             const std::vector<Block>& recvs, MPI_Request* request) {
  const std::size_t n_in = nb.in.size(), n_out = nb.out.size();
  for (const std::vector<Block>* blocks : {&sends, &recvs})
    for (std::size_t k = 0; k < blocks->size(); ++k) {
      const Block& b = (*blocks)[k];
      const TypeInfo* t = type_info(b.type);
      if (b.count >= 0 && t && t->committed && b.type != MPI_LB && b.type != MPI_UB) [[likely]]
        continue;
      // Only a bad block pays for naming it.
      const std::string which = std::string(blocks == &sends ? "send" : "recv") + " block " + std::to_string(k);
      if (int err = check_count(comm, call, b.count, (which + " count").c_str())) return err;
      if (int err = check_type(comm, call, b.type, (which + " type").c_str())) return err;
    }
  if (request) return exchange_later(call, comm, c, nb, sends, recvs, request);
  mesh::Engine& e = *state().engine;
  Scratch& sc = scratch();
  std::vector<std::vector<char>>& packed_in = sc.packed_in;
  std::vector<std::vector<char>>& packed_out = sc.packed_out;
  if (packed_in.size() < n_in) packed_in.resize(n_in);
  if (packed_out.size() < n_out) packed_out.resize(n_out);
  for (std::size_t k = 0; k < n_in; ++k) packed_in[k].clear();
  for (std::size_t k = 0; k < n_out; ++k) packed_out[k].clear();
  std::vector<mesh::Request*>& reqs = sc.reqs;
  reqs.clear();
  for (std::size_t k = 0; k < n_in; ++k) {
    if (nb.in[k] == MPI_PROC_NULL) continue;
    const TypeInfo& t = *type_info(recvs[k].type);
    const std::size_t bytes = static_cast<std::size_t>(recvs[k].count) * t.size;
    char* into = t.contiguous ? const_cast<char*>(data_start(t, recvs[k].buf)) : (packed_in[k].resize(bytes), packed_in[k].data());
    reqs.push_back(e.irecv(into, bytes, c.peer_world(nb.in[k]), nb.in_tags[k], c.group.context));
  }
  for (std::size_t k = 0; k < n_out; ++k) {
    if (nb.out[k] == MPI_PROC_NULL) continue;
    const TypeInfo& t = *type_info(sends[k].type);
    const std::size_t bytes = static_cast<std::size_t>(sends[k].count) * t.size;
    const char* from = data_start(t, sends[k].buf);
    if (!t.contiguous) {
      packed_out[k].resize(bytes);
      pack(t, sends[k].buf, static_cast<std::size_t>(sends[k].count), packed_out[k].data());
      from = packed_out[k].data();
    }
    reqs.push_back(e.isend(from, bytes, c.peer_world(nb.out[k]), nb.out_tags[k], c.group.context));
  }
  const int err = finish_exchange(call, comm, reqs);
  for (std::size_t k = 0; k < n_in; ++k)
    if (!packed_in[k].empty() && nb.in[k] != MPI_PROC_NULL)
      unpack(*type_info(recvs[k].type), packed_in[k].data(), packed_in[k].size(), recvs[k].buf,
             static_cast<std::size_t>(recvs[k].count));
  return err;
}

// The nonblocking exchange (MPI-3.1 §7.7): one round of the same receives
// and sends in a schedule (collectives/schedule.h), non-contiguous blocks
// packed now and unpacked when it completes. A schedule's messages carry
// one tag, and between two ranks they match in posting order: receives
// posted in the order of the tags the blocking form gives them, and sends
// in the order of theirs, pair each block with the one the blocking form's
// tags pair it with (on a periodic dimension of size 1 or 2 too).
int exchange_later(const char* call, MPI_Comm comm, const CommInfo& c, const Neighbours& nb,
                   const std::vector<Block>& sends, const std::vector<Block>& recvs, MPI_Request* request) {
  auto s = std::make_unique<collectives::Schedule>();
  // Indices 0..n-1 in the order of their tags.
  auto by_tag = [](const std::vector<int>& tags) {
    std::vector<std::size_t> order(tags.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return tags[a] < tags[b]; });
    return order;
  };
  struct Unpack {
    const TypeInfo* t;
    const char* packed;
    std::size_t bytes;
    Block to;
  };
  std::vector<Unpack> unpacks;
  for (std::size_t k : by_tag(nb.in_tags)) {
    if (nb.in[k] == MPI_PROC_NULL) continue;
    std::shared_ptr<const TypeInfo> t = keep_type(recvs[k].type);
    const std::size_t bytes = static_cast<std::size_t>(recvs[k].count) * t->size;
    char* into = t->contiguous ? const_cast<char*>(data_start(*t, recvs[k].buf)) : s->scratch(bytes);
    s->recv(c.peer_world(nb.in[k]), into, bytes);
    if (!t->contiguous) unpacks.push_back(Unpack{t.get(), into, bytes, recvs[k]});
    s->hold(std::move(t));
  }
  for (std::size_t k : by_tag(nb.out_tags)) {
    if (nb.out[k] == MPI_PROC_NULL) continue;
    const TypeInfo& t = *type_info(sends[k].type);
    const std::size_t bytes = static_cast<std::size_t>(sends[k].count) * t.size;
    const char* from = data_start(t, sends[k].buf);
    if (!t.contiguous) {
      char* packed = s->scratch(bytes);
      pack(t, sends[k].buf, static_cast<std::size_t>(sends[k].count), packed);
      from = packed;
    }
    s->send(c.peer_world(nb.out[k]), from, bytes);
  }
  if (!unpacks.empty())
    s->then([unpacks] {
      for (const Unpack& u : unpacks) unpack(*u.t, u.packed, u.bytes, u.to.buf, static_cast<std::size_t>(u.to.count));
    });
  return start_collective(comm, call, std::move(s), request);
}

char* at(const void* buf, MPI_Aint bytes) { return static_cast<char*>(const_cast<void*>(buf)) + bytes; }

int arrays_given(MPI_Comm comm, const char* call, std::size_t n, std::initializer_list<const void*> arrays) {
  if (n == 0) return MPI_SUCCESS;
  for (const void* a : arrays)
    if (!a) return raise(comm, call, MPI_ERR_ARG, "a count, displacement or type array is NULL");
  return MPI_SUCCESS;
}

}  // namespace

namespace {

int neighbor_alltoallw(const char* call, MPI_Request* request, const void* sendbuf, const int* sendcounts, const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm) {
  CommInfo* c;
  Scratch& sc = scratch();
  Neighbours& nb = sc.nb;
  if (int err = neighbours_of(call, comm, &c, &nb)) return err;
  const std::size_t n_in = nb.in.size(), n_out = nb.out.size();
  if (int err = arrays_given(comm, call, n_out, {sendcounts, sdispls, sendtypes})) return err;
  if (int err = arrays_given(comm, call, n_in, {recvcounts, rdispls, recvtypes})) return err;
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.resize(n_out);
  r.resize(n_in);
  for (std::size_t k = 0; k < n_out; ++k) s[k] = {at(sendbuf, sdispls[k]), sendcounts[k], sendtypes[k]};
  for (std::size_t k = 0; k < n_in; ++k) r[k] = {at(recvbuf, rdispls[k]), recvcounts[k], recvtypes[k]};
  return exchange(call, comm, *c, nb, s, r, request);
}

int neighbor_alltoallv(const char* call, MPI_Request* request, const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo* c;
  Scratch& sc = scratch();
  Neighbours& nb = sc.nb;
  if (int err = neighbours_of(call, comm, &c, &nb)) return err;
  const std::size_t n_in = nb.in.size(), n_out = nb.out.size();
  if (int err = arrays_given(comm, call, n_out, {sendcounts, sdispls})) return err;
  if (int err = arrays_given(comm, call, n_in, {recvcounts, rdispls})) return err;
  if (int err = check_type(comm, call, sendtype, "sendtype")) return err;
  if (int err = check_type(comm, call, recvtype, "recvtype")) return err;
  const MPI_Aint se = type_info(sendtype)->extent(), re = type_info(recvtype)->extent();
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.resize(n_out);
  r.resize(n_in);
  for (std::size_t k = 0; k < n_out; ++k) s[k] = {at(sendbuf, sdispls[k] * se), sendcounts[k], sendtype};
  for (std::size_t k = 0; k < n_in; ++k) r[k] = {at(recvbuf, rdispls[k] * re), recvcounts[k], recvtype};
  return exchange(call, comm, *c, nb, s, r, request);
}

// Whether cart_exchange takes a call: blocking, on a Cartesian
// communicator, with valid counts and committed contiguous types (anything
// else goes the general way, which also names what is wrong).
bool halo_applies(const CommInfo& c, const MPI_Request* request, int sendcount, MPI_Datatype sendtype, int recvcount,
                  MPI_Datatype recvtype) {
  if (request || c.topo != Topo::kCart || sendcount < 0 || recvcount < 0) return false;
  for (MPI_Datatype t : {sendtype, recvtype}) {
    const TypeInfo* ti = type_info(t);
    if (!ti || !ti->committed || !ti->contiguous || t == MPI_LB || t == MPI_UB) return false;
  }
  return true;
}

// The halo exchange of a lattice code (issue 33's benchmark): a blocking
// MPI_Neighbor_alltoall or _allgather on a Cartesian communicator, both
// types contiguous. Posted straight from the arguments, with neighbours_of's
// neighbours and tags computed on the way: no block or neighbour lists
// (callgrind, 1 KiB faces, 8 ranks on 2x2x2: 10 750 -> 9 300 instructions
// per call; the hand-written MPI_Irecv/Isend/Waitall exchange: 9 830).
// `send_step`: bytes from one send block to the next (0: every neighbour
// gets the same block, the allgather).
int cart_exchange(const char* call, MPI_Comm comm, CommInfo& c, const char* sendbuf, std::size_t send_step,
                  std::size_t send_bytes, char* recvbuf, std::size_t recv_step, std::size_t recv_bytes) {
  mesh::Engine& e = *state().engine;
  std::vector<mesh::Request*>& reqs = scratch().reqs;
  reqs.clear();
  const std::size_t nd = c.dims.size();
  for (int pass = 0; pass < 2; ++pass) {  // receives, then sends
    int stride = 1;
    for (std::size_t d = nd; d-- > 0; stride *= c.dims[d])
      for (std::size_t k : {2 * d, 2 * d + 1}) {
        const int to = cart_neighbour(c, d, stride, k & 1);
        if (to == MPI_PROC_NULL) continue;  // its block untouched
        const int peer = c.peer_world(to);
        if (pass == 0) reqs.push_back(e.irecv(recvbuf + k * recv_step, recv_bytes, peer, static_cast<int>(k ^ 1), c.group.context));
        else reqs.push_back(e.isend(sendbuf + k * send_step, send_bytes, peer, static_cast<int>(k), c.group.context));
      }
  }
  return finish_exchange(call, comm, reqs);
}

int neighbor_alltoall(const char* call, MPI_Request* request, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if (halo_applies(*c, request, sendcount, sendtype, recvcount, recvtype)) {
    const TypeInfo &st = *type_info(sendtype), &rt = *type_info(recvtype);
    return cart_exchange(call, comm, *c, data_start(st, sendbuf), static_cast<std::size_t>(sendcount * st.extent()),
                         static_cast<std::size_t>(sendcount) * st.size, const_cast<char*>(data_start(rt, recvbuf)),
                         static_cast<std::size_t>(recvcount * rt.extent()), static_cast<std::size_t>(recvcount) * rt.size);
  }
  Scratch& sc = scratch();
  Neighbours& nb = sc.nb;
  if (int err = neighbours_of(call, comm, &c, &nb)) return err;
  if (int err = check_type(comm, call, sendtype, "sendtype")) return err;
  if (int err = check_type(comm, call, recvtype, "recvtype")) return err;
  const MPI_Aint se = type_info(sendtype)->extent(), re = type_info(recvtype)->extent();
  const std::size_t n_in = nb.in.size(), n_out = nb.out.size();
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.resize(n_out);
  r.resize(n_in);
  for (std::size_t k = 0; k < n_out; ++k) s[k] = {at(sendbuf, static_cast<MPI_Aint>(k) * sendcount * se), sendcount, sendtype};
  for (std::size_t k = 0; k < n_in; ++k) r[k] = {at(recvbuf, static_cast<MPI_Aint>(k) * recvcount * re), recvcount, recvtype};
  return exchange(call, comm, *c, nb, s, r, request);
}

int neighbor_allgatherv(const char* call, MPI_Request* request, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo* c;
  Scratch& sc = scratch();
  Neighbours& nb = sc.nb;
  if (int err = neighbours_of(call, comm, &c, &nb)) return err;
  const std::size_t n_in = nb.in.size(), n_out = nb.out.size();
  if (int err = arrays_given(comm, call, n_in, {recvcounts, displs})) return err;
  if (int err = check_type(comm, call, recvtype, "recvtype")) return err;
  const MPI_Aint re = type_info(recvtype)->extent();
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.assign(n_out, Block{at(sendbuf, 0), sendcount, sendtype});
  r.resize(n_in);
  for (std::size_t k = 0; k < n_in; ++k) r[k] = {at(recvbuf, displs[k] * re), recvcounts[k], recvtype};
  return exchange(call, comm, *c, nb, s, r, request);
}

int neighbor_allgather(const char* call, MPI_Request* request, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if (halo_applies(*c, request, sendcount, sendtype, recvcount, recvtype)) {
    const TypeInfo &st = *type_info(sendtype), &rt = *type_info(recvtype);
    return cart_exchange(call, comm, *c, data_start(st, sendbuf), 0, static_cast<std::size_t>(sendcount) * st.size,
                         const_cast<char*>(data_start(rt, recvbuf)), static_cast<std::size_t>(recvcount * rt.extent()),
                         static_cast<std::size_t>(recvcount) * rt.size);
  }
  Scratch& sc = scratch();
  Neighbours& nb = sc.nb;
  if (int err = neighbours_of(call, comm, &c, &nb)) return err;
  if (int err = check_type(comm, call, recvtype, "recvtype")) return err;
  const MPI_Aint re = type_info(recvtype)->extent();
  const std::size_t n_in = nb.in.size(), n_out = nb.out.size();
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.assign(n_out, Block{at(sendbuf, 0), sendcount, sendtype});
  r.resize(n_in);
  for (std::size_t k = 0; k < n_in; ++k) r[k] = {at(recvbuf, static_cast<MPI_Aint>(k) * recvcount * re), recvcount, recvtype};
  return exchange(call, comm, *c, nb, s, r, request);
}

}  // namespace

MESHMP_MPI_FN(int, Neighbor_alltoallw, (const void* sendbuf, const int* sendcounts, const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm)) {
  return neighbor_alltoallw("MPI_Neighbor_alltoallw", nullptr, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
} MESHMP_MPI_END(Neighbor_alltoallw)

MESHMP_MPI_FN(int, Neighbor_alltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm)) {
  return neighbor_alltoallv("MPI_Neighbor_alltoallv", nullptr, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
} MESHMP_MPI_END(Neighbor_alltoallv)

MESHMP_MPI_FN(int, Neighbor_alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)) {
  return neighbor_alltoall("MPI_Neighbor_alltoall", nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
} MESHMP_MPI_END(Neighbor_alltoall)

MESHMP_MPI_FN(int, Neighbor_allgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm)) {
  return neighbor_allgatherv("MPI_Neighbor_allgatherv", nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
} MESHMP_MPI_END(Neighbor_allgatherv)

MESHMP_MPI_FN(int, Neighbor_allgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)) {
  return neighbor_allgather("MPI_Neighbor_allgather", nullptr, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
} MESHMP_MPI_END(Neighbor_allgather)

// MPI-3.1 §7.7: the nonblocking forms, the blocking form's arguments and a
// request; progress as for the nonblocking collectives (coll.cc).
namespace {
// A NULL request is MPI_ERR_REQUEST, after the communicator's own check.
int check_request(const char* call, MPI_Comm comm, const MPI_Request* request) {
  int err = MPI_SUCCESS;
  if (!check_comm(comm, call, &err)) return err;
  return request ? MPI_SUCCESS : raise(comm, call, MPI_ERR_REQUEST, "request is NULL");
}
}  // namespace

MESHMP_MPI_FN(int, Ineighbor_alltoallw, (const void* sendbuf, const int* sendcounts, const MPI_Aint* sdispls, const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm, MPI_Request* request)) {
  if (int err = check_request("MPI_Ineighbor_alltoallw", comm, request)) return err;
  return neighbor_alltoallw("MPI_Ineighbor_alltoallw", request, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
} MESHMP_MPI_END(Ineighbor_alltoallw)

MESHMP_MPI_FN(int, Ineighbor_alltoallv, (const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)) {
  if (int err = check_request("MPI_Ineighbor_alltoallv", comm, request)) return err;
  return neighbor_alltoallv("MPI_Ineighbor_alltoallv", request, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
} MESHMP_MPI_END(Ineighbor_alltoallv)

MESHMP_MPI_FN(int, Ineighbor_alltoall, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)) {
  if (int err = check_request("MPI_Ineighbor_alltoall", comm, request)) return err;
  return neighbor_alltoall("MPI_Ineighbor_alltoall", request, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
} MESHMP_MPI_END(Ineighbor_alltoall)

MESHMP_MPI_FN(int, Ineighbor_allgatherv, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)) {
  if (int err = check_request("MPI_Ineighbor_allgatherv", comm, request)) return err;
  return neighbor_allgatherv("MPI_Ineighbor_allgatherv", request, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
} MESHMP_MPI_END(Ineighbor_allgatherv)

MESHMP_MPI_FN(int, Ineighbor_allgather, (const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)) {
  if (int err = check_request("MPI_Ineighbor_allgather", comm, request)) return err;
  return neighbor_allgather("MPI_Ineighbor_allgather", request, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
} MESHMP_MPI_END(Ineighbor_allgather)
