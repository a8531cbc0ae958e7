// Random communicator lives, every member list and every message checked
// (MPI-1.1 §5.3-5.4 and §5.6.2 MPI_Intercomm_create/merge, §6.5.1
// MPI_Cart_create; MPI-3.1 §6.4.2 MPI_Comm_idup, MPI_Comm_create_group).
// Each step draws a parent among the live communicators (MPI_COMM_WORLD and
// up to 15 made by earlier steps, from each other) and one of: a split by
// colours and keys (some MPI_UNDEFINED), a dup, an idup completed after
// traffic on the parent, a dup with info, a create from a permuted subgroup,
// a create_group by the subgroup's members only, an intercommunicator between
// two parts of the parent merged low part first or last, a Cartesian
// communicator that may reorder -- or the free of a random communicator. So
// context ids are taken and given back in every order, by communicators
// nested in freed ones.
//
// Every rank draws the same plan from a fixed seed and knows each new
// communicator's members in rank order (a reordering Cartesian one: their
// set). On each it checks size, rank, the group against the world's ranks,
// MPI_Comm_compare with the parent, an allreduce of the members' world ranks
// and a ring whose receives take any source and any tag while a message
// with the same tag waits on the parent from the same sender: the ring must
// get its own message, the parent's receive the other.
//
// BUILD runs it at 3, 5 and 8 ranks, at 4 over tcp and at 8 over the relays
// of the 2x2x2 mesh fabric (shm, ofi).
#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"
#include "tests/support/draw.h"

namespace {

using meshmp::testing_support::Draw;
using mpitest::rank;

constexpr int kMaxComms = 16;
constexpr int kMaxParent = 64;  // draws per step do not depend on the parent's size

struct Entry {
  MPI_Comm comm = MPI_COMM_NULL;  ///< MPI_COMM_NULL where this rank is not a member
  std::vector<int> members;       ///< world ranks in rank order (this rank's communicator)
  bool ordered = true;            ///< false: `members` is the set, the order the library's
};

enum Kind { kSplit, kDup, kIdup, kDupWithInfo, kCreate, kCreateGroup, kMerge, kCart, kFree, kKinds };
const char* const kNames[] = {"split", "dup", "idup", "dup_with_info", "create", "create_group", "merge", "cart", "free"};

int index_of(const std::vector<int>& v, int x) {
  const auto it = std::find(v.begin(), v.end(), x);
  return it == v.end() ? -1 : static_cast<int>(it - v.begin());
}

// The world ranks of `c`'s members in rank order.
std::vector<int> world_ranks(MPI_Comm c) {
  MPI_Group g;
  MPI_Comm_group(c, &g);
  std::vector<int> out = mpitest::world_ranks(g);
  MPI_Group_free(&g);
  return out;
}

// Checks a new communicator against its model and its parent; for a set
// (`e.ordered` false) learns the library's order once the set is right.
void check(Entry& e, const Entry& parent, bool congruent_to_parent, int step) {
  const int me = rank();
  int n, r;
  MPI_Comm_size(e.comm, &n);
  MPI_Comm_rank(e.comm, &r);
  std::vector<int> got = world_ranks(e.comm);
  if (e.ordered) {
    ASSERT_EQ(got, e.members);
  } else {
    std::vector<int> a = got, b = e.members;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    ASSERT_EQ(a, b);
    e.members = got;
  }
  ASSERT_EQ(n, static_cast<int>(e.members.size()));
  ASSERT_EQ(r, index_of(e.members, me));

  int cmp;
  MPI_Comm_compare(parent.comm, e.comm, &cmp);
  std::vector<int> a = parent.members, b = e.members;
  const bool same_order = a == b;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  const int expected = congruent_to_parent || same_order ? MPI_CONGRUENT : a == b ? MPI_SIMILAR : MPI_UNEQUAL;
  EXPECT_EQ(cmp, expected);

  long mine = me + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, e.comm);
  EXPECT_EQ(sum, std::accumulate(e.members.begin(), e.members.end(), 0L) + n);

  // A message waits on the parent from the ring's left neighbour, with the
  // ring's tag, while the ring's receive takes any source and any tag.
  const int right = e.members[static_cast<std::size_t>((r + 1) % n)];
  const int left = e.members[static_cast<std::size_t>((r + n - 1) % n)];
  const int tag = step % 32767;
  int on_parent = -(me + 1), waiting = 0;
  MPI_Request parent_send;
  MPI_Isend(&on_parent, 1, MPI_INT, index_of(parent.members, right), tag, parent.comm, &parent_send);
  int ring = me, ring_got = -1;
  MPI_Status st;
  MPI_Sendrecv(&ring, 1, MPI_INT, (r + 1) % n, tag, &ring_got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, e.comm,
               &st);
  EXPECT_EQ(ring_got, left) << "the ring's receive took another communicator's message";
  EXPECT_EQ(st.MPI_SOURCE, (r + n - 1) % n);
  EXPECT_EQ(st.MPI_TAG, tag);
  MPI_Recv(&waiting, 1, MPI_INT, MPI_ANY_SOURCE, tag, parent.comm, &st);
  EXPECT_EQ(waiting, -(left + 1));
  EXPECT_EQ(st.MPI_SOURCE, index_of(parent.members, left));
  MPI_Wait(&parent_send, MPI_STATUS_IGNORE);
}

void run_steps(std::uint64_t seed, int steps) {
  const int me = rank();
  Draw draw{seed * 0x9e3779b97f4a7c15u + 1};
  std::vector<Entry> pool(1);
  pool[0].comm = MPI_COMM_WORLD;
  pool[0].members.resize(static_cast<std::size_t>(mpitest::size()));
  std::iota(pool[0].members.begin(), pool[0].members.end(), 0);

  for (int step = 0; step < steps; ++step) {
    Kind kind = static_cast<Kind>(draw.below(kKinds));
    if (static_cast<int>(pool.size()) == kMaxComms) kind = kFree;
    const int pi = draw.below(static_cast<int>(pool.size()));
    int colour[kMaxParent], key[kMaxParent], order[kMaxParent];
    bool in_subgroup[kMaxParent];
    for (int i = 0; i < kMaxParent; ++i) {
      colour[i] = draw.below(6) == 0 ? MPI_UNDEFINED : draw.below(3);
      key[i] = draw.below(4);
      order[i] = i;
      in_subgroup[i] = draw.below(3) != 0;
    }
    for (int i = kMaxParent - 1; i > 0; --i) std::swap(order[i], order[draw.below(i + 1)]);
    const int cut = draw.below(1000), high = draw.below(2), ndims = 1 + draw.below(3);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", step " + std::to_string(step) + ", " + kNames[kind] +
                 " of communicator " + std::to_string(pi));

    if (kind == kFree) {
      if (pi == 0) continue;
      if (pool[static_cast<std::size_t>(pi)].comm != MPI_COMM_NULL) {
        ASSERT_EQ(MPI_Comm_free(&pool[static_cast<std::size_t>(pi)].comm), MPI_SUCCESS);
      }
      pool.erase(pool.begin() + pi);
      continue;
    }
    const Entry parent = pool[static_cast<std::size_t>(pi)];
    const int p = static_cast<int>(parent.members.size());
    const int pr = index_of(parent.members, me);
    Entry e;
    bool congruent = false;
    // The model: this rank's new communicator's members (empty: none).
    switch (kind) {
      case kSplit:
        if (pr >= 0 && colour[pr] != MPI_UNDEFINED) {
          std::vector<int> ranks;
          for (int i = 0; i < p; ++i)
            if (colour[i] == colour[pr]) ranks.push_back(i);
          std::stable_sort(ranks.begin(), ranks.end(), [&](int x, int y) { return key[x] < key[y]; });
          for (int i : ranks) e.members.push_back(parent.members[static_cast<std::size_t>(i)]);
        }
        break;
      case kDup: case kIdup: case kDupWithInfo:
        if (pr >= 0) e.members = parent.members;
        congruent = true;
        break;
      case kCreate: case kCreateGroup:
        if (pr >= 0) {
          std::vector<int> sub;
          for (int i = 0; i < kMaxParent; ++i)
            if (order[i] < p && in_subgroup[order[i]]) sub.push_back(order[i]);
          if (std::find(sub.begin(), sub.end(), pr) != sub.end())
            for (int i : sub) e.members.push_back(parent.members[static_cast<std::size_t>(i)]);
        }
        break;
      case kMerge:
        if (pr >= 0 && p >= 2) {
          const int split = 1 + cut % (p - 1);
          // high: the second part (ranks split..p-1) goes last; else first.
          std::vector<int> first(parent.members.begin(), parent.members.begin() + split),
              second(parent.members.begin() + split, parent.members.end());
          if (!high) std::swap(first, second);
          e.members = first;
          e.members.insert(e.members.end(), second.begin(), second.end());
        }
        break;
      case kCart:
        if (pr >= 0) {
          e.members = parent.members;
          e.ordered = false;
        }
        break;
      default: break;
    }
    if (pr < 0) {  // not in the parent: nothing to call, nothing made
      pool.push_back(e);
      continue;
    }
    MPI_Comm made = MPI_COMM_NULL;
    switch (kind) {
      case kSplit:
        ASSERT_EQ(MPI_Comm_split(parent.comm, colour[pr], key[pr], &made), MPI_SUCCESS);
        break;
      case kDup:
        ASSERT_EQ(MPI_Comm_dup(parent.comm, &made), MPI_SUCCESS);
        break;
      case kIdup: {
        MPI_Request q;
        ASSERT_EQ(MPI_Comm_idup(parent.comm, &made, &q), MPI_SUCCESS);
        long x = me, y = 0;  // traffic on the parent before the idup completes
        MPI_Allreduce(&x, &y, 1, MPI_LONG, MPI_MAX, parent.comm);
        EXPECT_EQ(y, *std::max_element(parent.members.begin(), parent.members.end()));
        ASSERT_EQ(MPI_Wait(&q, MPI_STATUS_IGNORE), MPI_SUCCESS);
        break;
      }
      case kDupWithInfo: {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpi_assert_no_any_tag", "false");
        ASSERT_EQ(MPI_Comm_dup_with_info(parent.comm, info, &made), MPI_SUCCESS);
        MPI_Info_free(&info);
        break;
      }
      case kCreate: case kCreateGroup: {
        MPI_Group g, sub;
        MPI_Comm_group(parent.comm, &g);
        std::vector<int> ranks;
        for (int i = 0; i < kMaxParent; ++i)
          if (order[i] < p && in_subgroup[order[i]]) ranks.push_back(order[i]);
        MPI_Group_incl(g, static_cast<int>(ranks.size()), ranks.data(), &sub);
        if (kind == kCreate) {
          ASSERT_EQ(MPI_Comm_create(parent.comm, sub, &made), MPI_SUCCESS);
        } else if (!e.members.empty()) {
          ASSERT_EQ(MPI_Comm_create_group(parent.comm, sub, step, &made), MPI_SUCCESS);
        }
        MPI_Group_free(&sub);
        MPI_Group_free(&g);
        break;
      }
      case kMerge:
        if (p >= 2) {
          const int split = 1 + cut % (p - 1), part = pr >= split;
          MPI_Comm local, inter;
          MPI_Comm_split(parent.comm, part, pr, &local);
          ASSERT_EQ(MPI_Intercomm_create(local, 0, parent.comm, part ? 0 : split, step % 32767, &inter),
                    MPI_SUCCESS);
          int remote;
          MPI_Comm_remote_size(inter, &remote);
          EXPECT_EQ(remote, part ? split : p - split);
          ASSERT_EQ(MPI_Intercomm_merge(inter, part ? high : !high, &made), MPI_SUCCESS);
          MPI_Comm_free(&inter);
          MPI_Comm_free(&local);
        }
        break;
      case kCart: {
        int dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
        MPI_Dims_create(p, ndims, dims);
        ASSERT_EQ(MPI_Cart_create(parent.comm, ndims, dims, periods, 1, &made), MPI_SUCCESS);
        int r, coords[3], back = -1;
        MPI_Comm_rank(made, &r);
        MPI_Cart_coords(made, r, ndims, coords);
        MPI_Cart_rank(made, coords, &back);
        EXPECT_EQ(back, r);
        break;
      }
      default: break;
    }
    ASSERT_EQ(made == MPI_COMM_NULL, e.members.empty());
    e.comm = made;
    if (made != MPI_COMM_NULL) check(e, parent, congruent, step);
    if (::testing::Test::HasFatalFailure()) return;
    pool.push_back(e);
  }
  for (std::size_t i = 1; i < pool.size(); ++i)
    if (pool[i].comm != MPI_COMM_NULL) MPI_Comm_free(&pool[i].comm);
}

TEST(CommStress, RandomCommunicatorsHaveTheirMembersAndTheirOwnTraffic) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
    run_steps(seed, 400);
    if (HasFatalFailure()) return;
  }
}

}  // namespace

MPI_TEST_MAIN()
