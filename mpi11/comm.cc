// Communicators (MPI-1.1 §5.4): MPI_COMM_WORLD, MPI_COMM_SELF, dup, split,
// free, compare. Each communicator has a pair of contexts of its own -- one
// for point-to-point, one for collective traffic -- agreed over the parent
// as a pair free on every member (mesh/context_ids.h, shared with QMP), so
// traffic of different communicators never matches (§5.1); MPI_Comm_free
// gives the pair back.
#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "collectives/collectives.h"
#include "collectives/nonblocking.h"
#include "mpi11/internal.h"

namespace meshmp::mpi {

bool check_init(const char* call, int* err) {
  const State& s = state();
  if (s.initialized && !s.finalized) return true;
  *err = raise(MPI_COMM_NULL, call, MPI_ERR_OTHER, s.finalized ? "called after MPI_Finalize" : "called before MPI_Init");
  return false;
}

CommInfo* bad_comm(MPI_Comm comm, const char* call, int* err) {
  if (!check_init(call, err)) return nullptr;
  State& s = state();
  if (comm <= 0 || static_cast<std::size_t>(comm) >= s.comms.size() || !s.comms[comm].in_use) {
    *err = raise(MPI_COMM_NULL, call, MPI_ERR_COMM,
                 comm == MPI_COMM_NULL ? "comm is MPI_COMM_NULL" : "comm " + std::to_string(comm) + " is not a communicator");
    return nullptr;
  }
  return &s.comms[comm];
}

int bad_rank(MPI_Comm comm, const CommInfo& c, const char* call, int rank, const char* arg) {
  return raise(comm, call, MPI_ERR_RANK,
               std::string(arg) + " = " + std::to_string(rank) + " is out of range: the " + (c.inter ? "remote group" : "communicator") + " has " + std::to_string(c.peer_count()) + " ranks");
}

int bad_tag(MPI_Comm comm, const char* call, int tag) {
  return raise(comm, call, MPI_ERR_TAG,
               "tag = " + std::to_string(tag) + " is outside 0..MPI_TAG_UB (" + std::to_string(mesh::kTagUb) + ")");
}

void set_proc_null_status(MPI_Status* st) {
  if (!st) return;
  st->MPI_SOURCE = MPI_PROC_NULL;
  st->MPI_TAG = MPI_ANY_TAG;
  st->meshmp_cancelled = 0;
  st->meshmp_bytes = 0;
}

void set_empty_status(MPI_Status* st) {
  if (!st) return;
  set_proc_null_status(st);
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_ERROR = MPI_SUCCESS;
}

namespace {

// Marks c in use and indexes its members by world rank.
void index_members(CommInfo& c) {
  c.in_use = true;
  c.rank_of_world.assign(static_cast<std::size_t>(state().engine->size()), -1);
  for (int i = 0; i < c.peer_count(); ++i) c.rank_of_world[c.peer_world(i)] = i;
}

}  // namespace

MPI_Comm add_comm(CommInfo c) {
  State& s = state();
  index_members(c);
  for (std::size_t i = MPI_COMM_SELF + 1; i < s.comms.size(); ++i)
    if (!s.comms[i].in_use) {
      s.comms[i] = std::move(c);
      return static_cast<MPI_Comm>(i);
    }
  s.comms.push_back(std::move(c));
  return static_cast<MPI_Comm>(s.comms.size() - 1);
}

void max_allreduce(const collectives::Group& g, std::uint32_t* words, std::size_t n) {
  collectives::ReduceOp op;
  op.combine = [](void* io, const void* in, std::size_t k, void*) {
    for (std::size_t i = 0; i < k; ++i)
      static_cast<std::uint32_t*>(io)[i] = std::max(static_cast<std::uint32_t*>(io)[i], static_cast<const std::uint32_t*>(in)[i]);
  };
  op.elem_size = sizeof *words;
  collectives::allreduce(g, words, n, op);
}

std::uint32_t agree_context(const collectives::Group& g) {
  std::uint32_t ctx = mesh::ContextIds::kNone;
  collectives::agree_context_pairs(g, &ctx, 1);
  return ctx;
}

int no_context(MPI_Comm comm, const char* call) {
  return raise(comm, call, MPI_ERR_OTHER,
               "no context id is free on every member: " + std::to_string(mesh::ContextIds::kPairs) +
                   " communicators (QMP's and MPI's together) exist on some process; free some (MPI_Comm_free)");
}

MPI_Comm comm_from(std::vector<int> members, int me, std::uint32_t ctx, MPI_Errhandler errhandler) {
  CommInfo c;
  c.group.engine = state().engine;
  c.group.ranks = std::move(members);
  c.group.me = me;
  c.p2p_context = ctx;
  c.group.context = ctx + 1;
  c.owns_context = true;
  c.errhandler = errhandler;
  return add_comm(std::move(c));
}

MPI_Comm make_comm(MPI_Comm parent, std::vector<int> members, int me, const char* call, int* err) {
  *err = MPI_SUCCESS;
  const std::uint32_t ctx = agree_context(comm_ref(parent).group);
  if (ctx == mesh::ContextIds::kNone) {
    *err = no_context(parent, call);
    return MPI_COMM_NULL;
  }
  if (me < 0) {  // every member of the parent took the pair: give it back
    state().engine->context_ids().release(ctx);
    return MPI_COMM_NULL;
  }
  return comm_from(std::move(members), me, ctx, comm_ref(parent).errhandler);
}

// MPI_Init's part: the world (on the launcher's torus) and self.
void make_builtin_comms() {
  State& s = state();
  s.comms.clear();
  s.comms.emplace_back();  // MPI_COMM_NULL
  CommInfo world;
  world.builtin = true;
  world.group.engine = s.engine;
  world.group.me = s.engine->rank();
  world.group.ranks.resize(static_cast<std::size_t>(s.engine->size()));
  std::iota(world.group.ranks.begin(), world.group.ranks.end(), 0);
  world.group.torus = s.engine->torus();
  world.name = "MPI_COMM_WORLD";
  world.p2p_context = mesh::ContextIds::kMpiWorld;
  world.group.context = mesh::ContextIds::kMpiWorld + 1;
  CommInfo self;
  self.builtin = true;
  self.group.engine = s.engine;
  self.group.ranks = {s.engine->rank()};
  self.name = "MPI_COMM_SELF";
  self.p2p_context = mesh::ContextIds::kMpiSelf;
  self.group.context = mesh::ContextIds::kMpiSelf + 1;
  s.comms.emplace_back();
  s.comms.emplace_back();
  for (auto [h, c] : {std::pair{MPI_COMM_WORLD, &world}, std::pair{MPI_COMM_SELF, &self}}) {
    index_members(*c);
    s.comms[h] = std::move(*c);
  }
}

}  // namespace meshmp::mpi

using namespace meshmp;
using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Comm_size, (MPI_Comm comm, int* size)) {
  int err;
  CommInfo* c = check_comm(comm, "MPI_Comm_size", &err);
  if (!c) return err;
  if (!size) return raise(comm, "MPI_Comm_size", MPI_ERR_ARG, "size is NULL");
  *size = c->size();
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_size)

MESHMP_MPI_FN(int, Comm_rank, (MPI_Comm comm, int* rank)) {
  int err;
  CommInfo* c = check_comm(comm, "MPI_Comm_rank", &err);
  if (!c) return err;
  if (!rank) return raise(comm, "MPI_Comm_rank", MPI_ERR_ARG, "rank is NULL");
  *rank = c->rank();
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_rank)

namespace {
// What a duplicate n of comm takes over besides its group: the topology
// and (through the copy callbacks) the attributes. On a callback's error n
// is gone again and the error returned.
int copy_into_duplicate(MPI_Comm comm, MPI_Comm n, const char* call) {
  CommInfo& d = comm_ref(n);
  const CommInfo& o = comm_ref(comm);  // make_comm may have moved the deque's end, not its elements
  d.group.torus = o.group.torus;
  d.topo = o.topo;
  d.dims = o.dims;
  d.periods = o.periods;
  d.index = o.index;
  d.edges = o.edges;
  d.sources = o.sources;
  d.destinations = o.destinations;
  d.source_weights = o.source_weights;
  d.dest_weights = o.dest_weights;
  d.weighted = o.weighted;
  if (int err = copy_attributes(comm, n)) {
    delete_attributes(n, call);
    comm_ref(n) = CommInfo{};
    return err;
  }
  return MPI_SUCCESS;
}
}  // namespace

MESHMP_MPI_FN(int, Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm)) {
  const char* call = "MPI_Comm_dup";
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if ((err = start_new_comm(comm, call, newcomm, "newcomm"))) return err;
  const MPI_Comm n = c->inter ? dup_intercomm(comm, call, &err) : make_comm(comm, c->group.ranks, c->rank(), call, &err);
  if (err) return err;
  if ((err = copy_into_duplicate(comm, n, call))) return err;
  *newcomm = n;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_dup)

namespace {
// MPI_Comm_split and MPI_Comm_split_type.
int split(const char* call, MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if ((err = start_new_comm(comm, call, newcomm, "newcomm"))) return err;
  if (color < 0 && color != MPI_UNDEFINED)
    return raise(comm, call, MPI_ERR_ARG, "color = " + std::to_string(color) + " is negative and not MPI_UNDEFINED");
  if (c->inter) {
    *newcomm = split_intercomm(comm, color, key, call, &err);
    return err;
  }
  // Everyone's (color, key), then the members of my colour ordered by key,
  // ties by old rank (§5.4.2).
  const int p = c->size();
  std::vector<int> mine{color, key}, all(2 * static_cast<std::size_t>(p));
  std::vector<std::size_t> counts(p, 2 * sizeof(int)), displs(p);
  for (int i = 0; i < p; ++i) displs[i] = static_cast<std::size_t>(i) * 2 * sizeof(int);
  mesh::Error e = collectives::allgatherv(c->group, mine.data(), all.data(), counts.data(), displs.data());
  if (e != mesh::Error::kOk) return raise(comm, call, class_of(e), "exchanging colours failed");
  std::vector<int> order;
  if (color != MPI_UNDEFINED)
    for (int i = 0; i < p; ++i)
      if (all[2 * i] == color) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return all[2 * a + 1] < all[2 * b + 1]; });
  std::vector<int> members;
  int me = -1;
  for (int i : order) {
    if (i == c->rank()) me = static_cast<int>(members.size());
    members.push_back(c->group.ranks[i]);
  }
  *newcomm = make_comm(comm, std::move(members), me, call, &err);
  return err;
}
}  // namespace

// MPI-3.1 §6.4.2: a duplicate; the hints are accepted and not read.
MESHMP_MPI_FN(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm)) {
  const char* call = "MPI_Comm_dup_with_info";
  int err;
  if (!check_comm(comm, call, &err)) return err;
  if ((err = start_new_comm(comm, call, newcomm, "newcomm"))) return err;
  if (!info_valid(info)) return raise(comm, call, MPI_ERR_INFO, "info is not an info object");
  return PMPI_Comm_dup(comm, newcomm);
} MESHMP_MPI_END(Comm_dup_with_info)

// MPI-3.1 §6.4.4: meshmp reads no communicator hints, so setting them
// changes nothing, and the hints "actually used" are none: MPI_Comm_get_info
// gives a new info object with no key (the caller frees it).
MESHMP_MPI_FN(int, Comm_set_info, (MPI_Comm comm, MPI_Info info)) {
  const char* call = "MPI_Comm_set_info";
  int err;
  if (!check_comm(comm, call, &err)) return err;
  if (!info_valid(info)) return raise(comm, call, MPI_ERR_INFO, "info is not an info object");
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_set_info)

MESHMP_MPI_FN(int, Comm_get_info, (MPI_Comm comm, MPI_Info* info_used)) {
  const char* call = "MPI_Comm_get_info";
  int err;
  if (!check_comm(comm, call, &err)) return err;
  if (!info_used) return raise(comm, call, MPI_ERR_ARG, "info_used is NULL");
  return PMPI_Info_create(info_used);
} MESHMP_MPI_END(Comm_get_info)

// MPI-3.1 §10.3.2: the intercommunicator to the parent of a spawned
// process. No process of a meshmp job was spawned (MPI_Comm_spawn is not
// provided), so it is MPI_COMM_NULL.
MESHMP_MPI_FN(int, Comm_get_parent, (MPI_Comm* parent)) {
  const char* call = "MPI_Comm_get_parent";
  int err;
  if (!check_init(call, &err)) return err;
  if (!parent) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "parent is NULL");
  *parent = MPI_COMM_NULL;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_get_parent)

// MPI-3.1 §6.4.2: a nonblocking MPI_Comm_dup. The duplicate exists from
// the call on -- its group, topology and attributes (the copy callbacks run
// now, as MPI_Comm_dup runs them), *newcomm set -- but it may carry no
// traffic until the request completes: its context pair is agreed in the
// background, as a nonblocking collective on comm
// (collectives::add_agree_context_pair), so a rank may go on to other
// communication that another member needs before that member's
// MPI_Comm_idup. No pair free on every member: the request completes with
// MPI_ERR_OTHER, and the duplicate must not be used. An intercommunicator's
// pair is agreed the same way over the members of both its groups.
MESHMP_MPI_FN(int, Comm_idup, (MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request)) {
  const char* call = "MPI_Comm_idup";
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if ((err = start_new_comm(comm, call, newcomm, "newcomm"))) return err;
  if (!request) return raise(comm, call, MPI_ERR_ARG, "request is NULL");
  collectives::Group members = c->group;
  MPI_Comm n;
  if (c->inter) {
    n = idup_intercomm_shell(comm, &members);
  } else {
    n = comm_from(c->group.ranks, c->rank(), mesh::ContextIds::kNone, c->errhandler);
    comm_ref(n).group.context = mesh::ContextIds::kNone;
  }
  if ((err = copy_into_duplicate(comm, n, call))) return err;
  auto s = std::make_unique<collectives::Schedule>();
  auto outcome = std::make_shared<int>(MPI_SUCCESS);
  // The salt: this collective's context and tag (start_collective's), the
  // same on every member and different for two outstanding at once.
  const CommInfo& parent = comm_ref(comm);
  const std::uint32_t salt = parent.group.context * 65599u + parent.nonblocking_seq;
  collectives::add_agree_context_pair(*s, members, salt, [n, outcome, call](std::uint32_t ctx) {
    if (ctx == mesh::ContextIds::kNone) {
      *outcome = error_code(MPI_ERR_OTHER, call,
                            "no context id is free on every member: " + std::to_string(mesh::ContextIds::kPairs) +
                                " communicators (QMP's and MPI's together) exist on some process");
      return;
    }
    comm_ref(n).p2p_context = ctx;
    comm_ref(n).group.context = ctx + 1;
  });
  *newcomm = n;
  return start_collective(comm, call, std::move(s), request, std::move(outcome));
} MESHMP_MPI_END(Comm_idup)

MESHMP_MPI_FN(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm)) {
  return split("MPI_Comm_split", comm, color, key, newcomm);
} MESHMP_MPI_END(Comm_split)

// MPI-3.1 §6.4.2: MPI_COMM_TYPE_SHARED groups the ranks of one host (those
// that share memory), ordered by key, then by rank in comm; MPI_UNDEFINED
// gives MPI_COMM_NULL. The info is accepted and not read.
MESHMP_MPI_FN(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm)) {
  const char* call = "MPI_Comm_split_type";
  int err;
  CommInfo* c = check_comm(comm, call, &err);
  if (!c) return err;
  if ((err = start_new_comm(comm, call, newcomm, "newcomm"))) return err;
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
    return raise(comm, call, MPI_ERR_ARG,
                 "split_type = " + std::to_string(split_type) + " is neither MPI_COMM_TYPE_SHARED nor MPI_UNDEFINED");
  if (!info_valid(info)) return raise(comm, call, MPI_ERR_INFO, "info is not an info object");
  const int color = split_type == MPI_UNDEFINED
                        ? MPI_UNDEFINED
                        : state().engine->host_of(c->group.ranks[static_cast<std::size_t>(c->rank())]);
  return split(call, comm, color, key, newcomm);
} MESHMP_MPI_END(Comm_split_type)

MESHMP_MPI_FN(int, Comm_free, (MPI_Comm* comm)) {
  const char* call = "MPI_Comm_free";
  int err;
  if (!comm) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "comm is NULL");
  CommInfo* c = check_comm(*comm, call, &err);
  if (!c) return err;
  if (c->builtin) return raise(*comm, call, MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
  if ((err = delete_attributes(*comm, call))) return err;
  if (c->owns_context) state().engine->context_ids().release(c->p2p_context);
  if (c->local_comm != MPI_COMM_NULL) comm_ref(c->local_comm) = CommInfo{};
  comm_ref(*comm) = CommInfo{};
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_free)

MESHMP_MPI_FN(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int* result)) {
  int err;
  CommInfo* a = check_comm(comm1, "MPI_Comm_compare", &err);
  if (!a) return err;
  CommInfo* b = check_comm(comm2, "MPI_Comm_compare", &err);
  if (!b) return err;
  if (!result) return raise(comm1, "MPI_Comm_compare", MPI_ERR_ARG, "result is NULL");
  // The groups compared (for intercommunicators both, the weaker answer);
  // identical groups of distinct communicators make them congruent.
  const int local = compare_members(a->group.ranks, b->group.ranks);
  const int both = a->inter != b->inter ? MPI_UNEQUAL : std::max(local, compare_members(a->remote, b->remote));
  *result = comm1 == comm2 ? MPI_IDENT : both == MPI_IDENT ? MPI_CONGRUENT : both;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_compare)

MESHMP_MPI_FN(int, Comm_set_name, (MPI_Comm comm, const char* comm_name)) {
  int err;
  CommInfo* c = check_comm(comm, "MPI_Comm_set_name", &err);
  if (!c) return err;
  if (!comm_name) return raise(comm, "MPI_Comm_set_name", MPI_ERR_ARG, "comm_name is NULL");
  c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_set_name)

MESHMP_MPI_FN(int, Comm_get_name, (MPI_Comm comm, char* comm_name, int* resultlen)) {
  int err;
  CommInfo* c = check_comm(comm, "MPI_Comm_get_name", &err);
  if (!c) return err;
  if (!comm_name || !resultlen) return raise(comm, "MPI_Comm_get_name", MPI_ERR_ARG, "comm_name or resultlen is NULL");
  std::memcpy(comm_name, c->name.c_str(), c->name.size() + 1);
  *resultlen = static_cast<int>(c->name.size());
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_get_name)
