// Neighbourhood collectives (MPI-3.1 §7.6) on Cartesian and graph
// communicators: every rank exchanges one block with each of its
// neighbours, all receives and sends posted at once on the communicator's
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

struct Neighbours {
  std::vector<int> ranks;  // comm ranks (MPI_PROC_NULL allowed), in §7.6's order
  std::vector<int> send_tags, recv_tags;
};

// One block of the exchange: `count` instances of `type` at `buf`.
struct Block {
  char* buf;
  int count;
  MPI_Datatype type;
};

// Storage kept across calls (MPI_THREAD_FUNNELED: one caller at a time), so
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

int neighbours_of(const char* call, MPI_Comm comm, CommInfo** ci, Neighbours* nb) {
  nb->ranks.clear();
  nb->send_tags.clear();
  nb->recv_tags.clear();
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  *ci = c;
  if (c->topo == Topo::kCart) {
    // MPI_Cart_shift(d, 1) for every d, on the row-major coordinates, with
    // no allocation: the rank at -1 and +1 differs from ours by one stride.
    const int nd = static_cast<int>(c->dims.size());
    int stride = 1;
    for (int d = nd - 1; d >= 0; --d) {
      const int extent = c->dims[d];
      const int x = c->rank() / stride % extent;
      auto at = [&](int by) {
        int y = x + by;
        if (c->periods[d]) y = (y % extent + extent) % extent;
        else if (y < 0 || y >= extent) return MPI_PROC_NULL;  // off an open edge
        return c->rank() + (y - x) * stride;
      };
      nb->ranks.insert(nb->ranks.begin(), {at(-1), at(+1)});
      stride *= extent;
    }
    for (int d = 0; d < nd; ++d) {
      nb->send_tags.insert(nb->send_tags.end(), {2 * d, 2 * d + 1});
      nb->recv_tags.insert(nb->recv_tags.end(), {2 * d + 1, 2 * d});  // lo sent towards its +1
    }
    return MPI_SUCCESS;
  }
  if (c->topo == Topo::kGraph) {
    int n = 0;
    PMPI_Graph_neighbors_count(comm, c->rank(), &n);
    nb->ranks.resize(static_cast<std::size_t>(n));
    PMPI_Graph_neighbors(comm, c->rank(), n, nb->ranks.data());
    nb->send_tags.assign(static_cast<std::size_t>(n), 0);
    nb->recv_tags.assign(static_cast<std::size_t>(n), 0);
    return MPI_SUCCESS;
  }
  return raise(comm, call, MPI_ERR_TOPOLOGY, "comm has no Cartesian or graph topology");
}

int exchange_later(const char* call, MPI_Comm comm, const CommInfo& c, const Neighbours& nb,
                   const std::vector<Block>& sends, const std::vector<Block>& recvs, MPI_Request* request);

// Checks every block's count and type, then exchanges: receives and sends
// posted at once, contiguous blocks straight from and into the user's
// buffers, others packed. With a `request` (the MPI_Ineighbor_... forms),
// the exchange is started behind it instead (exchange_later).
int exchange(const char* call, MPI_Comm comm, CommInfo& c, const Neighbours& nb, const std::vector<Block>& sends,
             const std::vector<Block>& recvs, MPI_Request* request) {
  const std::size_t n = nb.ranks.size();
  for (std::size_t k = 0; k < n; ++k)
    for (const Block* b : {&sends[k], &recvs[k]}) {
      const TypeInfo* t = type_info(b->type);
      if (b->count >= 0 && t && t->committed && b->type != MPI_LB && b->type != MPI_UB) [[likely]]
        continue;
      // Only a bad block pays for naming it.
      const std::string which = std::string(b == &sends[k] ? "send" : "recv") + " block " + std::to_string(k);
      if (int err = check_count(comm, call, b->count, (which + " count").c_str())) return err;
      if (int err = check_type(comm, call, b->type, (which + " type").c_str())) return err;
    }
  if (request) return exchange_later(call, comm, c, nb, sends, recvs, request);
  mesh::Engine& e = *state().engine;
  Scratch& sc = scratch();
  std::vector<std::vector<char>>& packed_in = sc.packed_in;
  std::vector<std::vector<char>>& packed_out = sc.packed_out;
  if (packed_in.size() < n) packed_in.resize(n), packed_out.resize(n);
  for (std::size_t k = 0; k < n; ++k) packed_in[k].clear(), packed_out[k].clear();
  std::vector<mesh::Request*>& reqs = sc.reqs;
  reqs.clear();
  for (std::size_t k = 0; k < n; ++k) {
    if (nb.ranks[k] == MPI_PROC_NULL) continue;
    const TypeInfo& t = *type_info(recvs[k].type);
    const std::size_t bytes = static_cast<std::size_t>(recvs[k].count) * t.size;
    char* into = t.contiguous ? const_cast<char*>(data_start(t, recvs[k].buf)) : (packed_in[k].resize(bytes), packed_in[k].data());
    reqs.push_back(e.irecv(into, bytes, c.peer_world(nb.ranks[k]), nb.recv_tags[k], c.group.context));
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (nb.ranks[k] == MPI_PROC_NULL) continue;
    const TypeInfo& t = *type_info(sends[k].type);
    const std::size_t bytes = static_cast<std::size_t>(sends[k].count) * t.size;
    const char* from = data_start(t, sends[k].buf);
    if (!t.contiguous) {
      packed_out[k].resize(bytes);
      pack(t, sends[k].buf, static_cast<std::size_t>(sends[k].count), packed_out[k].data());
      from = packed_out[k].data();
    }
    reqs.push_back(e.isend(from, bytes, c.peer_world(nb.ranks[k]), nb.send_tags[k], c.group.context));
  }
  std::vector<mesh::Status>& st = sc.statuses;
  st.resize(reqs.size());
  e.waitall(reqs.size(), reqs.data(), st.data());
  mesh::Error failed = mesh::Error::kOk;
  for (const mesh::Status& s : st)
    if (s.error != mesh::Error::kOk && failed == mesh::Error::kOk) failed = s.error;
  for (std::size_t k = 0; k < n; ++k)
    if (!packed_in[k].empty() && nb.ranks[k] != MPI_PROC_NULL)
      unpack(*type_info(recvs[k].type), packed_in[k].data(), packed_in[k].size(), recvs[k].buf,
             static_cast<std::size_t>(recvs[k].count));
  if (failed == mesh::Error::kTruncate)
    return raise(comm, call, MPI_ERR_TRUNCATE, "a neighbour sent more than its receive block takes");
  return failed == mesh::Error::kOk ? MPI_SUCCESS : report(comm, code_of(failed, call));
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
  const std::size_t n = nb.ranks.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return nb.recv_tags[a] < nb.recv_tags[b]; });
  struct Unpack {
    const TypeInfo* t;
    const char* packed;
    std::size_t bytes;
    Block to;
  };
  std::vector<Unpack> unpacks;
  for (std::size_t k : order) {
    if (nb.ranks[k] == MPI_PROC_NULL) continue;
    std::shared_ptr<const TypeInfo> t = keep_type(recvs[k].type);
    const std::size_t bytes = static_cast<std::size_t>(recvs[k].count) * t->size;
    char* into = t->contiguous ? const_cast<char*>(data_start(*t, recvs[k].buf)) : s->scratch(bytes);
    s->recv(c.peer_world(nb.ranks[k]), into, bytes);
    if (!t->contiguous) unpacks.push_back(Unpack{t.get(), into, bytes, recvs[k]});
    s->hold(std::move(t));
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return nb.send_tags[a] < nb.send_tags[b]; });
  for (std::size_t k : order) {
    if (nb.ranks[k] == MPI_PROC_NULL) continue;
    const TypeInfo& t = *type_info(sends[k].type);
    const std::size_t bytes = static_cast<std::size_t>(sends[k].count) * t.size;
    const char* from = data_start(t, sends[k].buf);
    if (!t.contiguous) {
      char* packed = s->scratch(bytes);
      pack(t, sends[k].buf, static_cast<std::size_t>(sends[k].count), packed);
      from = packed;
    }
    s->send(c.peer_world(nb.ranks[k]), from, bytes);
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
  const std::size_t n = nb.ranks.size();
  if (int err = arrays_given(comm, call, n, {sendcounts, sdispls, sendtypes, recvcounts, rdispls, recvtypes})) return err;
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.resize(n);
  r.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    s[k] = {at(sendbuf, sdispls[k]), sendcounts[k], sendtypes[k]};
    r[k] = {at(recvbuf, rdispls[k]), recvcounts[k], recvtypes[k]};
  }
  return exchange(call, comm, *c, nb, s, r, request);
}

int neighbor_alltoallv(const char* call, MPI_Request* request, const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo* c;
  Scratch& sc = scratch();
  Neighbours& nb = sc.nb;
  if (int err = neighbours_of(call, comm, &c, &nb)) return err;
  const std::size_t n = nb.ranks.size();
  if (int err = arrays_given(comm, call, n, {sendcounts, sdispls, recvcounts, rdispls})) return err;
  if (int err = check_type(comm, call, sendtype, "sendtype")) return err;
  if (int err = check_type(comm, call, recvtype, "recvtype")) return err;
  const MPI_Aint se = type_info(sendtype)->extent(), re = type_info(recvtype)->extent();
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.resize(n);
  r.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    s[k] = {at(sendbuf, sdispls[k] * se), sendcounts[k], sendtype};
    r[k] = {at(recvbuf, rdispls[k] * re), recvcounts[k], recvtype};
  }
  return exchange(call, comm, *c, nb, s, r, request);
}

int neighbor_alltoall(const char* call, MPI_Request* request, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo* c;
  Scratch& sc = scratch();
  Neighbours& nb = sc.nb;
  if (int err = neighbours_of(call, comm, &c, &nb)) return err;
  if (int err = check_type(comm, call, sendtype, "sendtype")) return err;
  if (int err = check_type(comm, call, recvtype, "recvtype")) return err;
  const MPI_Aint se = type_info(sendtype)->extent(), re = type_info(recvtype)->extent();
  const std::size_t n = nb.ranks.size();
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.resize(n);
  r.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    s[k] = {at(sendbuf, static_cast<MPI_Aint>(k) * sendcount * se), sendcount, sendtype};
    r[k] = {at(recvbuf, static_cast<MPI_Aint>(k) * recvcount * re), recvcount, recvtype};
  }
  return exchange(call, comm, *c, nb, s, r, request);
}

int neighbor_allgatherv(const char* call, MPI_Request* request, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo* c;
  Scratch& sc = scratch();
  Neighbours& nb = sc.nb;
  if (int err = neighbours_of(call, comm, &c, &nb)) return err;
  const std::size_t n = nb.ranks.size();
  if (int err = arrays_given(comm, call, n, {recvcounts, displs})) return err;
  if (int err = check_type(comm, call, recvtype, "recvtype")) return err;
  const MPI_Aint re = type_info(recvtype)->extent();
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.assign(n, Block{at(sendbuf, 0), sendcount, sendtype});
  r.resize(n);
  for (std::size_t k = 0; k < n; ++k) r[k] = {at(recvbuf, displs[k] * re), recvcounts[k], recvtype};
  return exchange(call, comm, *c, nb, s, r, request);
}

int neighbor_allgather(const char* call, MPI_Request* request, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CommInfo* c;
  Scratch& sc = scratch();
  Neighbours& nb = sc.nb;
  if (int err = neighbours_of(call, comm, &c, &nb)) return err;
  if (int err = check_type(comm, call, recvtype, "recvtype")) return err;
  const MPI_Aint re = type_info(recvtype)->extent();
  const std::size_t n = nb.ranks.size();
  std::vector<Block>& s = sc.sends;
  std::vector<Block>& r = sc.recvs;
  s.assign(n, Block{at(sendbuf, 0), sendcount, sendtype});
  r.resize(n);
  for (std::size_t k = 0; k < n; ++k) r[k] = {at(recvbuf, static_cast<MPI_Aint>(k) * recvcount * re), recvcount, recvtype};
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
