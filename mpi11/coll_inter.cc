// Collectives on intercommunicators (MPI-2.2 §5.2.2 and each operation's
// "intercommunicator case" in §5.3–§5.10): data moves from one group to the
// other. Rooted operations name the root in the other group; in the root's
// group the root passes MPI_ROOT and the others MPI_PROC_NULL.
//
// Each is built from two things meshmp already has: the collectives of the
// local group (an intracommunicator over it, kept with the
// intercommunicator, run through the PMPI calls of coll.cc), and
// point-to-point messages between the groups on the intercommunicator's
// collective context (whose local traffic comes only from local members, so
// the two never match each other):
// - barrier, bcast, reduce, allreduce, reduce_scatter(_block): a local
//   phase, one message between the two leaders (local rank 0) or between
//   the root and the other group's leader, a local phase;
// - gather(v), scatter(v), allgather(v), alltoall(v,w): every block travels
//   straight from its sender to its receiver, as packed bytes.
// MPI_IN_PLACE is not defined for intercommunicators: MPI_ERR_ARG. Scan and
// Exscan (and their nonblocking forms) are not defined on them: MPI_ERR_COMM
// (coll.cc). The other nonblocking forms (MPI-3.1 §5.12) are the same
// phases as one schedule: barrier, bcast and the direct family here (the
// Exchange's messages as a round), the reductions in coll.cc beside their
// operand handling.
#include "mpi11/coll_inter.h"

#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "collectives/nonblocking.h"
#include "collectives/schedule.h"
#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

constexpr int kInterTag = 1;  // intercomm.cc's leader exchanges use 0

struct Inter {
  const char* name;
  MPI_Comm comm;
  CommInfo* ic = nullptr;
  MPI_Comm local = MPI_COMM_NULL;  // the local group as an intracommunicator
  int err = MPI_SUCCESS;

  Inter(const char* n, MPI_Comm cm, CommInfo* c) : name(n), comm(cm), ic(c) {
    if (ic->local_comm == MPI_COMM_NULL) {
      CommInfo l;
      l.group = ic->group;
      l.p2p_context = ic->group.context;  // no point-to-point traffic of its own
      l.errhandler = MPI_ERRORS_RETURN;   // its errors are raised again on `comm`
      const MPI_Comm h = add_comm(std::move(l));
      comm_ref(cm).local_comm = h;  // (add_comm may move the table)
    }
    ic = &comm_ref(cm);
    local = ic->local_comm;
  }
  int me() const { return ic->rank(); }
  int local_size() const { return ic->size(); }
  int remote_size() const { return static_cast<int>(ic->remote.size()); }
  bool leader() const { return me() == 0; }

  // An error code from a call on the local intracommunicator, raised on the
  // intercommunicator (its text names the inner call and argument).
  int local_result(int code) { return code == MPI_SUCCESS ? code : (err = report(comm, code)); }
  int fail(int cls, const std::string& what) { return err = raise(comm, name, cls, what); }
  // An MPI_I... call needs a request to return (MPI_ERR_REQUEST).
  int request(InterRequest nb) { return nb.nonblocking && !nb.request ? fail(MPI_ERR_REQUEST, "request is NULL") : 0; }
  int finish(mesh::Error e) { return e == mesh::Error::kOk ? MPI_SUCCESS : (err = report(comm, code_of(e, name))); }

  // The root argument: MPI_ROOT, MPI_PROC_NULL (in the root's group) or a
  // rank of the remote group.
  int root(int r) {
    if (r == MPI_ROOT || r == MPI_PROC_NULL || (r >= 0 && r < remote_size())) return MPI_SUCCESS;
    return fail(MPI_ERR_ROOT, "root = " + std::to_string(r) + " is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the "
                              "remote group (size " + std::to_string(remote_size()) + ")");
  }
  int data(const void* buf, int count, MPI_Datatype t, const char* which) {
    const std::string cnt = std::string(which) + "count", typ = std::string(which) + "type";
    if (buf == MPI_IN_PLACE)
      return fail(MPI_ERR_ARG, std::string(which) + "buf is MPI_IN_PLACE, which intercommunicators do not take");
    if ((err = check_count(comm, name, count, cnt.c_str()))) return err;
    if ((err = check_type(comm, name, t, typ.c_str()))) return err;
    const TypeInfo* ti = type_info(t);
    if (!buf && count > 0 && ti->size > 0 && ti->true_lb == 0)
      return fail(MPI_ERR_BUFFER, std::string(which) + "buf is NULL");
    return MPI_SUCCESS;
  }
  int counts(const int* c, int n, const char* what) {
    if (!c) return fail(MPI_ERR_ARG, std::string(what) + " is NULL");
    for (int i = 0; i < n; ++i)
      if (c[i] < 0) return fail(MPI_ERR_COUNT, std::string(what) + "[" + std::to_string(i) + "] is negative");
    return MPI_SUCCESS;
  }
};

// Messages between the groups, posted at once and completed together:
// receives land in the user's buffer (contiguous types) or in a block that
// finish() unpacks. Blocking (`nb` off), finish() waits for them; for an
// MPI_I... call they are one round of a schedule that finish() starts
// behind the request, and everything they read or fill (packed copies,
// staged blocks, datatypes) lives as long as it.
class Exchange {
 public:
  explicit Exchange(const CommInfo& ic, InterRequest nb = {}) : ic_(ic), e_(*state().engine), nb_(nb) {
    if (nb.nonblocking) s_ = std::make_unique<collectives::Schedule>();
  }
  ~Exchange() {
    if (!s_) wait();
  }
  // `count` instances of `type` at buf as contiguous bytes: the user's
  // buffer where the type is contiguous, else packed here.
  const char* bytes_of(MPI_Datatype type, const void* buf, std::size_t count) {
    const TypeInfo& t = *type_info(type);
    if (t.contiguous) return data_start(t, buf);
    char* p = s_ ? s_->scratch(count * t.size) : keep_.emplace_back(count * t.size + 1).data();
    pack(t, buf, count, p);
    return p;
  }
  void send(int remote_rank, const void* buf, std::size_t len) {
    if (s_) return s_->send(ic_.remote[remote_rank], buf, len);
    reqs_.push_back(e_.isend(buf, len, ic_.remote[remote_rank], kInterTag, ic_.group.context, mesh::SendMode::kStandard));
  }
  void recv(int remote_rank, MPI_Datatype type, void* buf, std::size_t count) {
    const TypeInfo* t = type_info(type);
    const std::size_t len = count * t->size;
    const int src = ic_.remote[remote_rank];
    char* at = t->contiguous ? const_cast<char*>(data_start(*t, buf))
               : s_        ? s_->scratch(len)
                           : keep_.emplace_back(len + 1).data();
    if (!t->contiguous) {
      if (s_) {  // (the program may free the datatype once the call returns)
        std::shared_ptr<const TypeInfo> kept = keep_type(type);
        t = kept.get();
        s_->hold(std::move(kept));
      }
      staged_.push_back({t, buf, count, at, nullptr});
    }
    if (s_) return s_->recv(src, at, len);
    reqs_.push_back(e_.irecv(at, len, src, kInterTag, ic_.group.context));
    if (!t->contiguous) staged_.back().req = reqs_.back();
  }
  // Blocking: waits for every message, unpacks what was staged, and
  // returns the call's MPI result. Nonblocking: the unpacking as the
  // schedule's last step, and the schedule started behind the request.
  int finish(Inter& x) {
    if (!s_) return x.finish(wait());
    if (!staged_.empty())
      s_->then([staged = staged_] {
        for (const Staged& b : staged) unpack(*b.t, b.bytes, b.count * b.t->size, b.buf, b.count);
      });
    return start_collective(x.comm, x.name, std::move(s_), nb_.request);
  }
  mesh::Error wait() {
    mesh::Error first = mesh::Error::kOk;
    for (mesh::Request* r : reqs_) {
      mesh::Status st;
      e_.wait(r, &st);
      if (first == mesh::Error::kOk) first = st.error;
      for (Staged& b : staged_)
        if (b.req == r && st.error == mesh::Error::kOk) unpack(*b.t, b.bytes, st.bytes, b.buf, b.count);
    }
    reqs_.clear();
    staged_.clear();
    return first;
  }

 private:
  struct Staged {
    const TypeInfo* t;
    void* buf;
    std::size_t count;
    char* bytes;
    mesh::Request* req;
  };
  const CommInfo& ic_;
  mesh::Engine& e_;
  InterRequest nb_;
  std::unique_ptr<collectives::Schedule> s_;
  std::vector<mesh::Request*> reqs_;
  std::vector<Staged> staged_;
  std::deque<std::vector<char>> keep_;  // packed and staged blocks of a blocking call
};

// A buffer laid out for `count` instances of `t` (reductions need the
// type's own layout, not packed bytes); only a group's leader needs one
// (count 0 elsewhere: the calls it is passed to ignore it there).
struct Typed {
  std::vector<char> mem;
  void* base = nullptr;
  Typed(const TypeInfo& t, std::size_t count) {
    const MPI_Aint span = count ? (t.true_ub - t.true_lb) + static_cast<MPI_Aint>(count - 1) * t.extent() : 0;
    mem.resize(static_cast<std::size_t>(span) + 1);
    base = mem.data() - t.true_lb;
  }
};

}  // namespace

bool is_intercomm(MPI_Comm comm) {
  const auto i = static_cast<std::size_t>(comm);
  return comm != MPI_COMM_NULL && i < state().comms.size() && state().comms[i].in_use && state().comms[i].inter;
}

// Both groups enter before either leaves: each group's barrier, a word
// between the leaders, each group's barrier again.
int inter_barrier(MPI_Comm comm, CommInfo* c) {
  Inter x("MPI_Barrier", comm, c);
  if (x.local_result(PMPI_Barrier(x.local))) return x.err;
  if (x.leader()) {
    char none = 0;
    Exchange ex(*x.ic);
    ex.recv(0, MPI_BYTE, &none, 0);
    ex.send(0, &none, 0);
    if (ex.finish(x)) return x.err;
  }
  return x.local_result(PMPI_Barrier(x.local));
}

int inter_bcast(MPI_Comm comm, CommInfo* c, void* buffer, int count, MPI_Datatype type, int root) {
  Inter x("MPI_Bcast", comm, c);
  if (x.root(root) || root == MPI_PROC_NULL || x.data(buffer, count, type, "")) return x.err;
  const TypeInfo& t = *type_info(type);
  const std::size_t n = static_cast<std::size_t>(count);
  Exchange ex(*x.ic);
  if (root == MPI_ROOT) {  // to the other group's leader
    ex.send(0, ex.bytes_of(type, buffer, n), n * t.size);
    return ex.finish(x);
  }
  if (x.leader()) {
    ex.recv(root, type, buffer, n);
    if (ex.finish(x)) return x.err;
  }
  return x.local_result(PMPI_Bcast(buffer, count, type, 0, x.local));
}

// ---- the nonblocking forms: the phases above as one schedule ----------------------
// Its rounds travel in the intercommunicator's nonblocking context under the
// call's tag, both groups' alike (every member of both makes the same calls):
// the local phases go between members of one group, the message between the
// groups to a rank of the other, so no receive matches the wrong message.

collectives::Group inter_local_group(const CommInfo& ic) {
  collectives::Group g = ic.group;
  g.torus.reset();  // (the schedules' binomial trees and dissemination)
  return g;
}

int inter_ibarrier(MPI_Comm comm, CommInfo* c, MPI_Request* request) {
  if (!request) return raise(comm, "MPI_Ibarrier", MPI_ERR_REQUEST, "request is NULL");
  auto s = std::make_unique<collectives::Schedule>();
  const collectives::Group g = inter_local_group(*c);
  collectives::add_barrier(*s, g);
  if (g.me == 0) {
    s->next();
    s->send(c->remote[0], nullptr, 0);
    s->recv(c->remote[0], nullptr, 0);
  }
  // The second local barrier ends on every member only after its leader
  // entered it (dissemination: each learns of every arrival).
  collectives::add_barrier(*s, g);
  return start_collective(comm, "MPI_Ibarrier", std::move(s), request);
}

int inter_ibcast(MPI_Comm comm, CommInfo* c, void* buffer, int count, MPI_Datatype type, int root,
                 MPI_Request* request) {
  Inter x("MPI_Ibcast", comm, c);
  if (!request) return x.fail(MPI_ERR_REQUEST, "request is NULL");
  if (x.root(root)) return x.err;
  if (root != MPI_PROC_NULL && x.data(buffer, count, type, "")) return x.err;
  const auto n = static_cast<std::size_t>(count);
  if (root == MPI_ROOT) {  // to the other group's leader, as inter_bcast
    Exchange ex(*x.ic, InterRequest{true, request});
    ex.send(0, ex.bytes_of(type, buffer, n), n * type_info(type)->size);
    return ex.finish(x);
  }
  auto s = std::make_unique<collectives::Schedule>();
  if (root != MPI_PROC_NULL) {
    std::shared_ptr<const TypeInfo> kept = keep_type(type);
    const TypeInfo* t = kept.get();
    s->hold(std::move(kept));
    const std::size_t bytes = n * t->size;
    char* dst = t->contiguous ? const_cast<char*>(data_start(*t, buffer)) : s->scratch(bytes);
    const collectives::Group g = inter_local_group(*x.ic);
    if (g.me == 0) {
      s->next();
      s->recv(x.ic->remote[root], dst, bytes);
    }
    collectives::add_broadcast(*s, g, dst, bytes, 0);
    if (!t->contiguous) s->then([t, dst, bytes, buffer, n] { unpack(*t, dst, bytes, buffer, n); });
  }
  return start_collective(comm, "MPI_Ibcast", std::move(s), request);
}

// Each group reduces to its leader; the leader sends the result where the
// other group wants it: to the root (reduce), or to the other leader
// (allreduce, reduce_scatter).
namespace {
int reduce_to_leader(Inter& x, const void* sendbuf, int count, MPI_Datatype type, MPI_Op op, Typed* out) {
  return x.local_result(PMPI_Reduce(sendbuf, x.leader() ? out->base : nullptr, count, type, op, 0, x.local));
}
}  // namespace

int inter_reduce(MPI_Comm comm, CommInfo* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                 MPI_Op op, int root) {
  Inter x("MPI_Reduce", comm, c);
  if (x.root(root) || root == MPI_PROC_NULL) return x.err;
  if (x.data(root == MPI_ROOT ? recvbuf : sendbuf, count, type, root == MPI_ROOT ? "recv" : "send")) return x.err;
  const TypeInfo& t = *type_info(type);
  const std::size_t n = static_cast<std::size_t>(count);
  Exchange ex(*x.ic);
  if (root == MPI_ROOT) {
    ex.recv(0, type, recvbuf, n);
    return ex.finish(x);
  }
  Typed sum(t, x.leader() ? n : 0);
  if (reduce_to_leader(x, sendbuf, count, type, op, &sum)) return x.err;
  if (!x.leader()) return MPI_SUCCESS;
  ex.send(root, ex.bytes_of(type, sum.base, n), n * t.size);
  return ex.finish(x);
}

int inter_allreduce(MPI_Comm comm, CommInfo* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                    MPI_Op op) {
  Inter x("MPI_Allreduce", comm, c);
  if (x.data(sendbuf, count, type, "send") || x.data(recvbuf, count, type, "recv")) return x.err;
  const TypeInfo& t = *type_info(type);
  const std::size_t n = static_cast<std::size_t>(count);
  Typed sum(t, x.leader() ? n : 0);
  if (reduce_to_leader(x, sendbuf, count, type, op, &sum)) return x.err;
  if (x.leader()) {
    Exchange ex(*x.ic);
    ex.recv(0, type, recvbuf, n);
    ex.send(0, ex.bytes_of(type, sum.base, n), n * t.size);
    if (ex.finish(x)) return x.err;
  }
  return x.local_result(PMPI_Bcast(recvbuf, count, type, 0, x.local));
}

// The other group's reduction of `total` elements arrives at this group's
// leader, which scatters recvcounts[i] of them to local rank i.
int inter_reduce_scatter(MPI_Comm comm, CommInfo* c, const void* sendbuf, void* recvbuf, const int* recvcounts,
                         MPI_Datatype type, MPI_Op op, const char* name) {
  Inter x(name, comm, c);
  const int p = x.local_size();
  if (x.counts(recvcounts, p, "recvcounts")) return x.err;
  const int total = std::accumulate(recvcounts, recvcounts + p, 0);
  if (x.data(sendbuf, total, type, "send") || x.data(recvbuf, recvcounts[x.me()], type, "recv")) return x.err;
  const TypeInfo& t = *type_info(type);
  const std::size_t n = static_cast<std::size_t>(total);
  Typed sum(t, x.leader() ? n : 0), theirs(t, x.leader() ? n : 0);
  if (reduce_to_leader(x, sendbuf, total, type, op, &sum)) return x.err;
  if (x.leader()) {
    Exchange ex(*x.ic);
    ex.recv(0, type, theirs.base, n);
    ex.send(0, ex.bytes_of(type, sum.base, n), n * t.size);
    if (ex.finish(x)) return x.err;
  }
  std::vector<int> displs(static_cast<std::size_t>(p));
  for (int i = 1; i < p; ++i) displs[i] = displs[i - 1] + recvcounts[i - 1];
  return x.local_result(PMPI_Scatterv(theirs.base, recvcounts, displs.data(), type, recvbuf, recvcounts[x.me()], type,
                                      0, x.local));
}

// MPI-2.2 §5.10.1: every block recvcount elements, recvcount * (local
// group size) reduced.
int inter_reduce_scatter_block(MPI_Comm comm, CommInfo* c, const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype type, MPI_Op op) {
  const char* name = "MPI_Reduce_scatter_block";
  if (recvcount < 0)
    return raise(comm, name, MPI_ERR_COUNT, "recvcount = " + std::to_string(recvcount) + " is negative");
  const std::vector<int> counts(static_cast<std::size_t>(c->size()), recvcount);
  return inter_reduce_scatter(comm, c, sendbuf, recvbuf, counts.data(), type, op, name);
}

// The root receives block i from remote rank i; the others send theirs.
int inter_gatherv(MPI_Comm comm, CommInfo* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, const char* name,
                  int recvcount, InterRequest nb) {
  Inter x(name, comm, c);
  if (x.request(nb) || x.root(root)) return x.err;
  Exchange ex(*x.ic, nb);
  if (root == MPI_PROC_NULL) return ex.finish(x);
  if (root != MPI_ROOT) {
    if (x.data(sendbuf, sendcount, sendtype, "send")) return x.err;
    const std::size_t n = static_cast<std::size_t>(sendcount);
    ex.send(root, ex.bytes_of(sendtype, sendbuf, n), n * type_info(sendtype)->size);
    return ex.finish(x);
  }
  const int rn = x.remote_size();
  if (recvcounts && x.counts(recvcounts, rn, "recvcounts")) return x.err;
  if (recvcounts && !displs) return x.fail(MPI_ERR_ARG, "displs is NULL");
  if (x.data(recvbuf, recvcounts ? 0 : recvcount, recvtype, "recv")) return x.err;
  const TypeInfo& rt = *type_info(recvtype);
  for (int i = 0; i < rn; ++i) {
    const int cnt = recvcounts ? recvcounts[i] : recvcount;
    const MPI_Aint at = (recvcounts ? displs[i] : static_cast<MPI_Aint>(i) * recvcount) * rt.extent();
    ex.recv(i, recvtype, static_cast<char*>(recvbuf) + at, static_cast<std::size_t>(cnt));
  }
  return ex.finish(x);
}

// The root sends block i to remote rank i; the others receive theirs.
int inter_scatterv(MPI_Comm comm, CommInfo* c, const void* sendbuf, const int* sendcounts, const int* displs,
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                   const char* name, int sendcount, InterRequest nb) {
  Inter x(name, comm, c);
  if (x.request(nb) || x.root(root)) return x.err;
  Exchange ex(*x.ic, nb);
  if (root == MPI_PROC_NULL) return ex.finish(x);
  if (root != MPI_ROOT) {
    if (x.data(recvbuf, recvcount, recvtype, "recv")) return x.err;
    ex.recv(root, recvtype, recvbuf, static_cast<std::size_t>(recvcount));
    return ex.finish(x);
  }
  const int rn = x.remote_size();
  if (sendcounts && x.counts(sendcounts, rn, "sendcounts")) return x.err;
  if (sendcounts && !displs) return x.fail(MPI_ERR_ARG, "displs is NULL");
  if (x.data(sendbuf, sendcounts ? 0 : sendcount, sendtype, "send")) return x.err;
  const TypeInfo& st = *type_info(sendtype);
  for (int i = 0; i < rn; ++i) {
    const int cnt = sendcounts ? sendcounts[i] : sendcount;
    const MPI_Aint at = (sendcounts ? displs[i] : static_cast<MPI_Aint>(i) * sendcount) * st.extent();
    const std::size_t n = static_cast<std::size_t>(cnt);
    ex.send(i, ex.bytes_of(sendtype, static_cast<const char*>(sendbuf) + at, n), n * st.size);
  }
  return ex.finish(x);
}

// Every process sends its own block to every remote process, and receives
// remote rank i's block at its place.
int inter_allgatherv(MPI_Comm comm, CommInfo* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                     void* recvbuf, const int* recvcounts, const int* displs, MPI_Datatype recvtype, const char* name,
                     int recvcount, InterRequest nb) {
  Inter x(name, comm, c);
  if (x.request(nb)) return x.err;
  const int rn = x.remote_size();
  if (x.data(sendbuf, sendcount, sendtype, "send")) return x.err;
  if (recvcounts && x.counts(recvcounts, rn, "recvcounts")) return x.err;
  if (recvcounts && !displs) return x.fail(MPI_ERR_ARG, "displs is NULL");
  if (x.data(recvbuf, recvcounts ? 0 : recvcount, recvtype, "recv")) return x.err;
  const TypeInfo &st = *type_info(sendtype), &rt = *type_info(recvtype);
  Exchange ex(*x.ic, nb);
  const char* mine = ex.bytes_of(sendtype, sendbuf, static_cast<std::size_t>(sendcount));
  for (int i = 0; i < rn; ++i) {
    const int cnt = recvcounts ? recvcounts[i] : recvcount;
    const MPI_Aint at = (recvcounts ? displs[i] : static_cast<MPI_Aint>(i) * recvcount) * rt.extent();
    ex.recv(i, recvtype, static_cast<char*>(recvbuf) + at, static_cast<std::size_t>(cnt));
  }
  for (int i = 0; i < rn; ++i) ex.send(i, mine, sendcount * st.size);
  return ex.finish(x);
}

// Block j of the send buffer goes to remote rank j; remote rank i's block
// for this process lands at block i. One datatype per block (alltoallw,
// displacements in bytes), or one for all (displacements in extents).
int inter_alltoallw(MPI_Comm comm, CommInfo* c, const void* sendbuf, const int* sendcounts, const int* sdispls,
                    const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls,
                    const MPI_Datatype* recvtypes, bool byte_displs, const char* name, InterRequest nb) {
  Inter x(name, comm, c);
  if (x.request(nb)) return x.err;
  const int rn = x.remote_size();
  if (x.counts(sendcounts, rn, "sendcounts") || x.counts(recvcounts, rn, "recvcounts")) return x.err;
  if (!sdispls || !rdispls || !sendtypes || !recvtypes)
    return x.fail(MPI_ERR_ARG, "sdispls, rdispls, sendtypes or recvtypes is NULL");
  for (int i = 0; i < rn; ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    if (x.data(sendbuf, sendcounts[i], sendtypes[i], ("send" + at + " ").c_str()) ||
        x.data(recvbuf, recvcounts[i], recvtypes[i], ("recv" + at + " ").c_str()))
      return x.err;
  }
  Exchange ex(*x.ic, nb);
  for (int i = 0; i < rn; ++i) {
    const TypeInfo& rt = *type_info(recvtypes[i]);
    const MPI_Aint at = byte_displs ? rdispls[i] : rdispls[i] * rt.extent();
    ex.recv(i, recvtypes[i], static_cast<char*>(recvbuf) + at, static_cast<std::size_t>(recvcounts[i]));
  }
  for (int i = 0; i < rn; ++i) {
    const TypeInfo& st = *type_info(sendtypes[i]);
    const MPI_Aint at = byte_displs ? sdispls[i] : sdispls[i] * st.extent();
    const std::size_t n = static_cast<std::size_t>(sendcounts[i]);
    ex.send(i, ex.bytes_of(sendtypes[i], static_cast<const char*>(sendbuf) + at, n), n * st.size);
  }
  return ex.finish(x);
}

int inter_alltoall(MPI_Comm comm, CommInfo* c, const void* sendbuf, const int* sendcounts, const int* sdispls,
                   MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                   MPI_Datatype recvtype, const char* name, InterRequest nb) {
  const std::size_t rn = c->remote.size();
  const std::vector<MPI_Datatype> st(rn, sendtype), rt(rn, recvtype);
  return inter_alltoallw(comm, c, sendbuf, sendcounts, sdispls, st.data(), recvbuf, recvcounts, rdispls, rt.data(),
                         false, name, nb);
}

int inter_alltoall(MPI_Comm comm, CommInfo* c, const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, const char* name, InterRequest nb) {
  const int rn = static_cast<int>(c->remote.size());
  if (sendcount < 0 || recvcount < 0)
    return raise(comm, name, MPI_ERR_COUNT, std::string(sendcount < 0 ? "sendcount" : "recvcount") + " is negative");
  std::vector<int> sc(rn, sendcount), rc(rn, recvcount), sd(rn), rd(rn);
  for (int i = 0; i < rn; ++i) sd[i] = i * sendcount, rd[i] = i * recvcount;
  return inter_alltoall(comm, c, sendbuf, sc.data(), sd.data(), sendtype, recvbuf, rc.data(), rd.data(), recvtype, name,
                        nb);
}

}  // namespace meshmp::mpi
