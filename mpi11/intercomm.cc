// Intercommunicators (MPI-1.1 §5.6): a local and a disjoint remote group;
// MPI-2.2 §6.4.2's split and create of them.
// Point-to-point ranks name the remote group (p2p.cc goes through
// CommInfo::peer_world). Creation, duplication and merging agree on a
// context pair across both groups: a max-allreduce in each local group, an
// exchange between the two leaders, a broadcast back (§5.6.2's protocol;
// creation uses the user's tag on peer_comm, later exchanges the
// intercommunicator's own collective context, which no user message uses).
#include <algorithm>
#include <string>
#include <vector>

#include "collectives/collectives.h"
#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

constexpr int kLeaderTag = 0;

// Leaders swap words over the intercommunicator's collective context, `n`
// from this group and `n_theirs` from the other; then every member of each
// group has the other group's words.
mesh::Error swap_with_remote(const CommInfo& ic, const std::uint32_t* mine, std::size_t n, std::uint32_t* theirs,
                             std::size_t n_theirs) {
  mesh::Engine& e = *state().engine;
  const std::size_t bytes = n_theirs * sizeof(std::uint32_t);
  if (ic.rank() == 0) {
    mesh::Request* r = e.irecv(theirs, bytes, ic.remote[0], kLeaderTag, ic.group.context);
    mesh::Status ss, rs;
    e.send(mine, n * sizeof(std::uint32_t), ic.remote[0], kLeaderTag, ic.group.context, mesh::SendMode::kStandard,
           &ss);
    e.wait(r, &rs);
    if (ss.error != mesh::Error::kOk) return ss.error;
    if (rs.error != mesh::Error::kOk) return rs.error;
  }
  return collectives::broadcast(ic.group, theirs, bytes, 0);
}

constexpr std::size_t kMaskWords = std::tuple_size<mesh::ContextIds::Mask>::value;

// A context pair free in both groups of `ic` (collective over both), now
// taken: each group ANDs its members' free pairs, the leaders swap the
// results (with one more word each, `word` -> *remote_word), and both
// groups take the lowest pair of the two ANDed. ContextIds::kNone if none.
std::uint32_t agree_across(const CommInfo& ic, std::uint32_t word, std::uint32_t* remote_word, mesh::Error* err) {
  mesh::ContextIds::Mask agreed;
  std::uint32_t mine[kMaskWords + 1], theirs[kMaskWords + 1] = {};
  *err = collectives::free_context_mask(ic.group, &agreed);
  std::copy(agreed.begin(), agreed.end(), mine);
  mine[kMaskWords] = word;
  if (*err == mesh::Error::kOk) *err = swap_with_remote(ic, mine, kMaskWords + 1, theirs, kMaskWords + 1);
  if (remote_word) *remote_word = theirs[kMaskWords];
  if (*err != mesh::Error::kOk) return mesh::ContextIds::kNone;
  for (std::size_t i = 0; i < kMaskWords; ++i) agreed[i] &= theirs[i];
  return state().engine->context_ids().take_lowest_agreed(agreed);
}

CommInfo* check_inter(MPI_Comm comm, const char* call, int* err) {
  CommInfo* c = check_comm(comm, call, err);
  if (c && !c->inter) {
    *err = raise(comm, call, MPI_ERR_COMM, "comm is not an intercommunicator");
    return nullptr;
  }
  return c;
}

MPI_Comm add_intercomm(const collectives::Group& local, std::vector<int> remote, std::uint32_t ctx,
                       MPI_Errhandler errhandler) {
  CommInfo c;
  c.group.engine = state().engine;
  c.group.ranks = local.ranks;
  c.group.me = local.me;
  c.inter = true;
  c.remote = std::move(remote);
  c.p2p_context = ctx;
  c.group.context = ctx + 1;
  c.owns_context = true;
  c.errhandler = errhandler;
  return add_comm(std::move(c));
}

}  // namespace

MPI_Comm dup_intercomm(MPI_Comm comm, const char* call, int* err) {
  const CommInfo& ic = comm_ref(comm);
  mesh::Error e;
  const std::uint32_t ctx = agree_across(ic, 0, nullptr, &e);
  *err = e != mesh::Error::kOk ? raise(comm, call, class_of(e), "agreeing on a context with the remote group failed")
         : ctx == mesh::ContextIds::kNone ? no_context(comm, call)
                                          : MPI_SUCCESS;
  if (*err) return MPI_COMM_NULL;
  const CommInfo& o = comm_ref(comm);
  return add_intercomm(o.group, o.remote, ctx, o.errhandler);
}

MPI_Comm idup_intercomm_shell(MPI_Comm comm, collectives::Group* both) {
  const CommInfo& ic = comm_ref(comm);
  const bool local_first = ic.group.ranks[0] < ic.remote[0];
  const std::vector<int>& first = local_first ? ic.group.ranks : ic.remote;
  const std::vector<int>& second = local_first ? ic.remote : ic.group.ranks;
  both->engine = state().engine;
  both->context = ic.group.context;
  both->ranks = first;
  both->ranks.insert(both->ranks.end(), second.begin(), second.end());
  both->me = ic.group.me + (local_first ? 0 : static_cast<int>(ic.remote.size()));
  both->torus.reset();
  const MPI_Comm n = add_intercomm(ic.group, ic.remote, mesh::ContextIds::kNone, ic.errhandler);
  comm_ref(n).group.context = mesh::ContextIds::kNone;
  return n;
}

// MPI-2.2 §6.4.2: each group splits by colour; a new intercommunicator joins
// the local and the remote members of one colour, each side ordered by key
// (ties by old rank). Every member's (colour, key) is gathered in its group
// and the leaders swap the two tables; one context pair agreed across both
// groups serves every colour (their members are disjoint, as MPICH's split
// does), and a process left without a communicator gives it back.
MPI_Comm split_intercomm(MPI_Comm comm, int color, int key, const char* call, int* err) {
  const CommInfo& ic = comm_ref(comm);
  const int n_local = ic.size(), n_remote = static_cast<int>(ic.remote.size());
  std::vector<std::uint32_t> local(2 * static_cast<std::size_t>(n_local)), remote(2 * static_cast<std::size_t>(n_remote));
  const std::uint32_t mine[2] = {static_cast<std::uint32_t>(color), static_cast<std::uint32_t>(key)};
  std::vector<std::size_t> counts(n_local, sizeof mine), displs(n_local);
  for (int i = 0; i < n_local; ++i) displs[i] = i * sizeof mine;
  mesh::Error e = collectives::allgatherv(ic.group, mine, local.data(), counts.data(), displs.data());
  if (e == mesh::Error::kOk) e = swap_with_remote(ic, local.data(), local.size(), remote.data(), remote.size());
  std::uint32_t ctx = mesh::ContextIds::kNone;
  if (e == mesh::Error::kOk) ctx = agree_across(comm_ref(comm), 0, nullptr, &e);
  *err = e != mesh::Error::kOk ? raise(comm, call, class_of(e), "exchanging colours with the remote group failed")
         : ctx == mesh::ContextIds::kNone ? no_context(comm, call)
                                          : MPI_SUCCESS;
  if (*err) return MPI_COMM_NULL;
  // The members of my colour on one side, ordered by key then rank.
  auto of_color = [&](const std::vector<std::uint32_t>& table, const std::vector<int>& world) {
    std::vector<int> idx;
    for (int i = 0; i < static_cast<int>(world.size()); ++i)
      if (static_cast<int>(table[2 * i]) == color) idx.push_back(i);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
      return static_cast<int>(table[2 * a + 1]) < static_cast<int>(table[2 * b + 1]);
    });
    return idx;
  };
  const CommInfo& o = comm_ref(comm);
  std::vector<int> mine_idx, theirs_idx;
  if (color != MPI_UNDEFINED) mine_idx = of_color(local, o.group.ranks), theirs_idx = of_color(remote, o.remote);
  if (mine_idx.empty() || theirs_idx.empty()) {
    state().engine->context_ids().release(ctx);
    return MPI_COMM_NULL;
  }
  collectives::Group g{state().engine, 0, {}, 0, std::nullopt};
  for (int i : mine_idx) {
    if (i == o.rank()) g.me = static_cast<int>(g.ranks.size());
    g.ranks.push_back(o.group.ranks[i]);
  }
  std::vector<int> remote_ranks;
  for (int j : theirs_idx) remote_ranks.push_back(o.remote[j]);
  return add_intercomm(g, std::move(remote_ranks), ctx, o.errhandler);
}

}  // namespace meshmp::mpi

using namespace meshmp;
using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Comm_test_inter, (MPI_Comm comm, int* flag)) {
  int err;
  const CommInfo* c = check_comm(comm, "MPI_Comm_test_inter", &err);
  if (!c) return err;
  if (!flag) return raise(comm, "MPI_Comm_test_inter", MPI_ERR_ARG, "flag is NULL");
  *flag = c->inter;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_test_inter)

MESHMP_MPI_FN(int, Comm_remote_size, (MPI_Comm comm, int* size)) {
  int err;
  const CommInfo* c = check_inter(comm, "MPI_Comm_remote_size", &err);
  if (!c) return err;
  if (!size) return raise(comm, "MPI_Comm_remote_size", MPI_ERR_ARG, "size is NULL");
  *size = static_cast<int>(c->remote.size());
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_remote_size)

MESHMP_MPI_FN(int, Comm_remote_group, (MPI_Comm comm, MPI_Group* group)) {
  int err;
  const CommInfo* c = check_inter(comm, "MPI_Comm_remote_group", &err);
  if (!c) return err;
  if (!group) return raise(comm, "MPI_Comm_remote_group", MPI_ERR_ARG, "group is NULL");
  *group = add_group(c->remote);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_remote_group)

// §5.6.2: collective over local_comm; the two leaders also talk over
// peer_comm with `tag`.
MESHMP_MPI_FN(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm* newintercomm)) {
  const char* call = "MPI_Intercomm_create";
  int err;
  CommInfo* lc = check_comm(local_comm, call, &err);
  if (!lc) return err;
  if ((err = start_new_comm(local_comm, call, newintercomm, "newintercomm"))) return err;
  if (lc->inter) return raise(local_comm, call, MPI_ERR_COMM, "local_comm is an intercommunicator");
  if (local_leader < 0 || local_leader >= lc->size())
    return raise(local_comm, call, MPI_ERR_RANK, "local_leader = " + std::to_string(local_leader) + " is not a rank of local_comm");
  const collectives::Group local = lc->group;
  const MPI_Errhandler eh = lc->errhandler;
  mesh::ContextIds::Mask agreed;
  if (mesh::Error e = collectives::free_context_mask(local, &agreed); e != mesh::Error::kOk)
    return raise(local_comm, call, class_of(e), "agreeing on a context failed");
  // The leaders swap (free context pairs, size) and then their groups' world ranks.
  std::vector<std::uint32_t> info(kMaskWords + 1);
  std::vector<int> remote;
  if (local.me == local_leader) {
    CommInfo* pc = check_comm(peer_comm, call, &err);
    if (!pc) return err;
    if ((err = check_rank(peer_comm, *pc, call, remote_leader, "remote_leader", false))) return err;
    if ((err = check_tag(peer_comm, call, tag, false))) return err;
    std::vector<std::uint32_t> mine(agreed.begin(), agreed.end());
    mine.push_back(static_cast<std::uint32_t>(local.size()));
    if ((err = PMPI_Sendrecv(mine.data(), static_cast<int>(mine.size()), MPI_UNSIGNED, remote_leader, tag, info.data(),
                             static_cast<int>(info.size()), MPI_UNSIGNED, remote_leader, tag, peer_comm,
                             MPI_STATUS_IGNORE)))
      return err;
    remote.resize(info[kMaskWords]);
    if ((err = PMPI_Sendrecv(local.ranks.data(), local.size(), MPI_INT, remote_leader, tag, remote.data(),
                             static_cast<int>(remote.size()), MPI_INT, remote_leader, tag, peer_comm,
                             MPI_STATUS_IGNORE)))
      return err;
  }
  mesh::Error e = collectives::broadcast(local, info.data(), info.size() * sizeof(std::uint32_t), local_leader);
  remote.resize(info[kMaskWords]);
  if (e == mesh::Error::kOk)
    e = collectives::broadcast(local, remote.data(), remote.size() * sizeof(int), local_leader);
  if (e != mesh::Error::kOk) return raise(local_comm, call, class_of(e), "distributing the remote group failed");
  for (int r : remote)
    if (std::find(local.ranks.begin(), local.ranks.end(), r) != local.ranks.end())
      return raise(local_comm, call, MPI_ERR_COMM, "the local and remote groups overlap");
  for (std::size_t i = 0; i < kMaskWords; ++i) agreed[i] &= info[i];
  const std::uint32_t ctx = state().engine->context_ids().take_lowest_agreed(agreed);
  if (ctx == mesh::ContextIds::kNone) return no_context(local_comm, call);
  *newintercomm = add_intercomm(local, std::move(remote), ctx, eh);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Intercomm_create)

// §5.6.2: the group that passes high = false comes first; if both pass the
// same, the group whose leader has the lower world rank.
MESHMP_MPI_FN(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm)) {
  const char* call = "MPI_Intercomm_merge";
  int err;
  CommInfo* ic = check_inter(intercomm, call, &err);
  if (!ic) return err;
  if ((err = start_new_comm(intercomm, call, newintracomm, "newintracomm"))) return err;
  // §5.6.2: one `high` per group. Each group finds out whether its members
  // agree and tells the other, so that every process of both fails alike.
  std::uint32_t seen[2] = {high ? 1u : 0u, high ? 0u : 1u};
  max_allreduce(ic->group, seen, 2);
  const bool disagree = seen[0] && seen[1];
  std::uint32_t remote = 0;
  mesh::Error e;
  const std::uint32_t ctx = agree_across(*ic, (high ? 1u : 0u) | (disagree ? 2u : 0u), &remote, &e);
  if (e != mesh::Error::kOk) return raise(intercomm, call, class_of(e), "agreeing with the remote group failed");
  if (ctx == mesh::ContextIds::kNone) return no_context(intercomm, call);
  if (disagree || (remote & 2u)) {
    state().engine->context_ids().release(ctx);
    return raise(intercomm, call, MPI_ERR_ARG,
                 std::string(disagree ? "this" : "the remote") + " group's processes passed different values of high");
  }
  const std::uint32_t remote_high = remote & 1u;
  const CommInfo& c = comm_ref(intercomm);
  const bool mine_first = (high != 0) != (remote_high != 0) ? !high : c.group.ranks[0] < c.remote[0];
  std::vector<int> members = mine_first ? c.group.ranks : c.remote;
  const std::vector<int>& second = mine_first ? c.remote : c.group.ranks;
  members.insert(members.end(), second.begin(), second.end());
  const int me = mine_first ? c.rank() : static_cast<int>(c.remote.size()) + c.rank();
  *newintracomm = comm_from(std::move(members), me, ctx, c.errhandler);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Intercomm_merge)
