// Process groups (MPI-1.1 §5.3) and MPI_Comm_create (§5.4.2). A group is an
// ordered list of world ranks; handles index State::groups (0 is
// MPI_GROUP_NULL, 1 MPI_GROUP_EMPTY) and freed slots are reused.
#include <algorithm>
#include <string>
#include <vector>

#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

// The groups table, with its two predefined entries.
std::deque<GroupInfo>& groups() {
  std::deque<GroupInfo>& g = state().groups;
  if (g.empty()) {
    g.emplace_back();                   // MPI_GROUP_NULL
    g.push_back(GroupInfo{true, {}});  // MPI_GROUP_EMPTY
  }
  return g;
}

const GroupInfo* check_group(MPI_Group h, const char* call, const char* arg, int* err) {
  if (!check_init(call, err)) return nullptr;
  auto& g = groups();
  if (h <= 0 || static_cast<std::size_t>(h) >= g.size() || !g[h].in_use) {
    *err = raise(MPI_COMM_NULL, call, MPI_ERR_GROUP,
                 std::string(arg) + (h == MPI_GROUP_NULL ? " is MPI_GROUP_NULL" : " = " + std::to_string(h) + " is not a group"));
    return nullptr;
  }
  return &g[h];
}

int rank_in(const std::vector<int>& ranks, int world) {
  auto it = std::find(ranks.begin(), ranks.end(), world);
  return it == ranks.end() ? MPI_UNDEFINED : static_cast<int>(it - ranks.begin());
}

// Checks a list of `n` distinct ranks of a group of `size` (§5.3.2 incl/excl).
int check_rank_list(const char* call, int n, const int* ranks, int size) {
  if (n < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "n = " + std::to_string(n) + " is negative");
  if (n > 0 && !ranks) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "ranks is NULL");
  std::vector<bool> seen(static_cast<std::size_t>(size));
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size)
      return raise(MPI_COMM_NULL, call, MPI_ERR_RANK,
                   "ranks[" + std::to_string(i) + "] = " + std::to_string(ranks[i]) + " is not a rank of the group (size " + std::to_string(size) + ")");
    if (seen[ranks[i]])
      return raise(MPI_COMM_NULL, call, MPI_ERR_RANK, "ranks[" + std::to_string(i) + "] = " + std::to_string(ranks[i]) + " appears twice");
    seen[ranks[i]] = true;
  }
  return MPI_SUCCESS;
}

// Expands (first, last, stride) triplets into group ranks (§5.3.2).
int expand_ranges(const char* call, int n, int ranges[][3], int size, std::vector<int>* out) {
  if (n < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "n = " + std::to_string(n) + " is negative");
  if (n > 0 && !ranges) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "ranges is NULL");
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    const std::string which = "ranges[" + std::to_string(i) + "]";
    if (stride == 0) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, which + " has stride 0");
    if (first < 0 || first >= size || last < 0 || last >= size)
      return raise(MPI_COMM_NULL, call, MPI_ERR_RANK, which + " reaches outside the group (size " + std::to_string(size) + ")");
    if ((last - first) / stride < 0)
      return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                   which + " = (" + std::to_string(first) + ", " + std::to_string(last) + ", " + std::to_string(stride) +
                       "): the stride walks away from the last rank");
    for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) out->push_back(r);
  }
  return check_rank_list(call, static_cast<int>(out->size()), out->data(), size);
}

}  // namespace

int compare_members(const std::vector<int>& a, const std::vector<int>& b) {
  if (a == b) return MPI_IDENT;
  std::vector<int> x = a, y = b;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y ? MPI_SIMILAR : MPI_UNEQUAL;
}

MPI_Group add_group(std::vector<int> ranks) {
  auto& g = groups();
  if (ranks.empty()) return MPI_GROUP_EMPTY;
  for (std::size_t i = MPI_GROUP_EMPTY + 1; i < g.size(); ++i)
    if (!g[i].in_use) {
      g[i] = GroupInfo{true, std::move(ranks)};
      return static_cast<MPI_Group>(i);
    }
  g.push_back(GroupInfo{true, std::move(ranks)});
  return static_cast<MPI_Group>(g.size() - 1);
}

}  // namespace meshmp::mpi

using namespace meshmp;
using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Comm_group, (MPI_Comm comm, MPI_Group* group)) {
  int err;
  CommInfo* c = check_comm(comm, "MPI_Comm_group", &err);
  if (!c) return err;
  if (!group) return raise(comm, "MPI_Comm_group", MPI_ERR_ARG, "group is NULL");
  *group = add_group(c->group.ranks);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_group)

MESHMP_MPI_FN(int, Group_size, (MPI_Group group, int* size)) {
  int err;
  const GroupInfo* g = check_group(group, "MPI_Group_size", "group", &err);
  if (!g) return err;
  if (!size) return raise(MPI_COMM_NULL, "MPI_Group_size", MPI_ERR_ARG, "size is NULL");
  *size = static_cast<int>(g->ranks.size());
  return MPI_SUCCESS;
} MESHMP_MPI_END(Group_size)

MESHMP_MPI_FN(int, Group_rank, (MPI_Group group, int* rank)) {
  int err;
  const GroupInfo* g = check_group(group, "MPI_Group_rank", "group", &err);
  if (!g) return err;
  if (!rank) return raise(MPI_COMM_NULL, "MPI_Group_rank", MPI_ERR_ARG, "rank is NULL");
  *rank = rank_in(g->ranks, state().engine->rank());
  return MPI_SUCCESS;
} MESHMP_MPI_END(Group_rank)

MESHMP_MPI_FN(int, Group_translate_ranks, (MPI_Group group1, int n, const int* ranks1, MPI_Group group2, int* ranks2)) {
  const char* call = "MPI_Group_translate_ranks";
  int err;
  const GroupInfo* a = check_group(group1, call, "group1", &err);
  if (!a) return err;
  const GroupInfo* b = check_group(group2, call, "group2", &err);
  if (!b) return err;
  if (n < 0) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "n = " + std::to_string(n) + " is negative");
  if (n > 0 && (!ranks1 || !ranks2)) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "ranks1 or ranks2 is NULL");
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] == MPI_PROC_NULL) {  // MPI-2.2 clarification, harmless for MPI-1 programs
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (ranks1[i] < 0 || ranks1[i] >= static_cast<int>(a->ranks.size()))
      return raise(MPI_COMM_NULL, call, MPI_ERR_RANK, "ranks1[" + std::to_string(i) + "] = " + std::to_string(ranks1[i]) + " is not a rank of group1");
    ranks2[i] = rank_in(b->ranks, a->ranks[ranks1[i]]);
  }
  return MPI_SUCCESS;
} MESHMP_MPI_END(Group_translate_ranks)

MESHMP_MPI_FN(int, Group_compare, (MPI_Group group1, MPI_Group group2, int* result)) {
  const char* call = "MPI_Group_compare";
  int err;
  const GroupInfo* a = check_group(group1, call, "group1", &err);
  if (!a) return err;
  const GroupInfo* b = check_group(group2, call, "group2", &err);
  if (!b) return err;
  if (!result) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "result is NULL");
  *result = compare_members(a->ranks, b->ranks);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Group_compare)

namespace {
// Union, intersection and difference (§5.3.2): the members of group1 that
// `keep` (in group1's order), then for the union group2's others in its order.
int set_op(const char* call, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, bool keep_common,
           bool append_rest) {
  int err;
  const GroupInfo* a = check_group(group1, call, "group1", &err);
  if (!a) return err;
  const GroupInfo* b = check_group(group2, call, "group2", &err);
  if (!b) return err;
  if (!newgroup) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "newgroup is NULL");
  auto in = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  std::vector<int> out;
  for (int r : a->ranks)
    if (append_rest || in(b->ranks, r) == keep_common) out.push_back(r);
  if (append_rest)
    for (int r : b->ranks)
      if (!in(a->ranks, r)) out.push_back(r);
  *newgroup = add_group(std::move(out));
  return MPI_SUCCESS;
}
}  // namespace

MESHMP_MPI_FN(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup)) {
  return set_op("MPI_Group_union", group1, group2, newgroup, true, true);
} MESHMP_MPI_END(Group_union)
MESHMP_MPI_FN(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup)) {
  return set_op("MPI_Group_intersection", group1, group2, newgroup, true, false);
} MESHMP_MPI_END(Group_intersection)
MESHMP_MPI_FN(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group* newgroup)) {
  return set_op("MPI_Group_difference", group1, group2, newgroup, false, false);
} MESHMP_MPI_END(Group_difference)

namespace {
// A group of the listed ranks of `g` (include) or of all others (exclude), in order.
MPI_Group subgroup(const GroupInfo& g, const std::vector<int>& listed, bool include) {
  std::vector<int> out;
  if (include) {
    for (int r : listed) out.push_back(g.ranks[r]);
  } else {
    std::vector<bool> drop(g.ranks.size());
    for (int r : listed) drop[r] = true;
    for (std::size_t i = 0; i < g.ranks.size(); ++i)
      if (!drop[i]) out.push_back(g.ranks[i]);
  }
  return add_group(std::move(out));
}

int incl_excl(const char* call, MPI_Group group, int n, const int* ranks, MPI_Group* newgroup, bool include) {
  int err;
  const GroupInfo* g = check_group(group, call, "group", &err);
  if (!g) return err;
  if (!newgroup) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "newgroup is NULL");
  if ((err = check_rank_list(call, n, ranks, static_cast<int>(g->ranks.size())))) return err;
  *newgroup = subgroup(*g, std::vector<int>(ranks, ranks + n), include);
  return MPI_SUCCESS;
}

int range_incl_excl(const char* call, MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup, bool include) {
  int err;
  const GroupInfo* g = check_group(group, call, "group", &err);
  if (!g) return err;
  if (!newgroup) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "newgroup is NULL");
  std::vector<int> listed;
  if ((err = expand_ranges(call, n, ranges, static_cast<int>(g->ranks.size()), &listed))) return err;
  *newgroup = subgroup(*g, listed, include);
  return MPI_SUCCESS;
}
}  // namespace

MESHMP_MPI_FN(int, Group_incl, (MPI_Group group, int n, const int* ranks, MPI_Group* newgroup)) {
  return incl_excl("MPI_Group_incl", group, n, ranks, newgroup, true);
} MESHMP_MPI_END(Group_incl)
MESHMP_MPI_FN(int, Group_excl, (MPI_Group group, int n, const int* ranks, MPI_Group* newgroup)) {
  return incl_excl("MPI_Group_excl", group, n, ranks, newgroup, false);
} MESHMP_MPI_END(Group_excl)
MESHMP_MPI_FN(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup)) {
  return range_incl_excl("MPI_Group_range_incl", group, n, ranges, newgroup, true);
} MESHMP_MPI_END(Group_range_incl)
MESHMP_MPI_FN(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup)) {
  return range_incl_excl("MPI_Group_range_excl", group, n, ranges, newgroup, false);
} MESHMP_MPI_END(Group_range_excl)

MESHMP_MPI_FN(int, Group_free, (MPI_Group* group)) {
  int err;
  if (!group) return raise(MPI_COMM_NULL, "MPI_Group_free", MPI_ERR_ARG, "group is NULL");
  if (!check_group(*group, "MPI_Group_free", "group", &err)) return err;
  if (*group != MPI_GROUP_EMPTY) groups()[*group] = GroupInfo{};  // the predefined one stays
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Group_free)

namespace {
// The checks MPI_Comm_create and MPI_Comm_create_group share: an
// intracommunicator (unless `inter_ok`: MPI_Comm_create of an
// intercommunicator's local group), a group within its (local) group,
// somewhere to put the result.
int check_subgroup(const char* call, MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm, CommInfo** c,
                   const GroupInfo** g, bool inter_ok) {
  int err;
  if (!(*c = check_comm(comm, call, &err))) return err;
  if ((err = start_new_comm(comm, call, newcomm, "newcomm"))) return err;
  if ((*c)->inter && !inter_ok) return raise(comm, call, MPI_ERR_COMM, "comm is an intercommunicator");
  if (!(*g = check_group(group, call, "group", &err))) return err;
  // rank_of_world indexes an intercommunicator's remote group: its local one is searched.
  const CommInfo& ci = **c;
  auto member = [&](int r) {
    if (ci.inter) return std::find(ci.group.ranks.begin(), ci.group.ranks.end(), r) != ci.group.ranks.end();
    return r >= 0 && r < static_cast<int>(ci.rank_of_world.size()) && ci.rank_of_world[r] >= 0;
  };
  for (int r : (*g)->ranks)
    if (!member(r)) return raise(comm, call, MPI_ERR_GROUP, "group is not a subgroup of comm's (local) group");
  return MPI_SUCCESS;
}
}  // namespace

// §5.4.2: collective over comm; every process passes the same subgroup.
MESHMP_MPI_FN(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm)) {
  const char* call = "MPI_Comm_create";
  CommInfo* c;
  const GroupInfo* g;
  int err;
  if ((err = check_subgroup(call, comm, group, newcomm, &c, &g, true))) return err;
  const int me = rank_in(g->ranks, state().engine->rank());
  if (c->inter) {  // MPI-2.2 §6.4.2: each side passes a subgroup of its own group
    *newcomm = split_intercomm(comm, me >= 0 ? 0 : MPI_UNDEFINED, me, call, &err);
    return err;
  }
  std::vector<int> members = g->ranks;
  *newcomm = make_comm(comm, std::move(members), me, call, &err);
  return err;
} MESHMP_MPI_END(Comm_create)

// MPI-3.1 §6.4.2: collective over the members of `group` only. They agree
// on a context among themselves, over comm's collective context (whose
// other traffic, in comm's collectives, no member is in meanwhile); `tag`
// would tell apart concurrent calls of several threads, which
// MPI_THREAD_SERIALIZED (the most meshmp provides) rules out.
MESHMP_MPI_FN(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm)) {
  const char* call = "MPI_Comm_create_group";
  CommInfo* c;
  const GroupInfo* g;
  if (int err = check_subgroup(call, comm, group, newcomm, &c, &g, false)) return err;
  if (tag < 0) return raise(comm, call, MPI_ERR_TAG, "tag = " + std::to_string(tag) + " is negative");
  const int me = rank_in(g->ranks, state().engine->rank());
  if (me < 0) {  // not a member: nothing to take part in
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  collectives::Group members{state().engine, c->group.context, g->ranks, me, std::nullopt};
  const std::uint32_t ctx = agree_context(members);
  if (ctx == mesh::ContextIds::kNone) return no_context(comm, call);
  *newcomm = comm_from(g->ranks, me, ctx, c->errhandler);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Comm_create_group)
