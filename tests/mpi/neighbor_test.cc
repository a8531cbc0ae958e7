// MPI-3.1 §7.6, neighbourhood collectives, on periodic and open Cartesian
// grids and on a graph, each block checked against the neighbours
// MPI_Cart_shift / MPI_Graph_neighbors name: which rank's data lands in
// which block, also where both neighbours of a dimension are one rank (a
// periodic extent of 1 or 2), and that MPI_PROC_NULL blocks are untouched.
// Distributed graphs (MPI-2.2 §7.5.4): both constructors, the queries, and
// the collectives receiving from the sources and sending to the
// destinations. Every case runs twice: with the blocking forms, and with the nonblocking
// ones of §7.7 (started, then completed by MPI_Wait).
#include <mpi.h>

#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;
using mpitest::rank;
using mpitest::size;

constexpr int kUntouched = -12345;

class Neighbor : public ::testing::TestWithParam<bool> {};

// Starts a nonblocking form and waits for it; the start's error if it fails.
template <typename Start>
int started_and_waited(Start start) {
  MPI_Request r = MPI_REQUEST_NULL;
  if (int err = start(&r)) return err;
  return MPI_Wait(&r, MPI_STATUS_IGNORE);
}
// MPI_Neighbor_<name>(args), or MPI_Ineighbor_<name>(args, &r) + MPI_Wait.
#define NEIGHBOR(name, ...)                                                                       \
  (GetParam() ? started_and_waited([&](MPI_Request* r) { return MPI_Ineighbor_##name(__VA_ARGS__, r); }) \
              : MPI_Neighbor_##name(__VA_ARGS__))

// A grid of all ranks in `ndims` dimensions, periodic or open.
MPI_Comm grid(int ndims, bool periodic) {
  std::vector<int> dims(static_cast<std::size_t>(ndims), 0), periods(static_cast<std::size_t>(ndims), periodic);
  MPI_Dims_create(size(), ndims, dims.data());
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, ndims, dims.data(), periods.data(), 0, &cart);
  return cart;
}

// §7.6's order: per dimension the -1 then the +1 neighbour.
std::vector<int> cart_neighbours(MPI_Comm cart) {
  int nd = 0;
  MPI_Cartdim_get(cart, &nd);
  std::vector<int> nb;
  for (int d = 0; d < nd; ++d) {
    int lo, hi;
    MPI_Cart_shift(cart, d, 1, &lo, &hi);
    nb.push_back(lo);
    nb.push_back(hi);
  }
  return nb;
}

// The value rank r sends as its block k (2 ints: r, k).
int value(int r, int k, int i) { return i == 0 ? r : 1000 + k; }

// Runs check(cart, my rank there, its neighbours) on grids of all ranks in
// 1, 2 and 3 dimensions, periodic and open.
template <typename Check>
void on_every_grid(Check check) {
  for (int ndims : {1, 2, 3})
    for (bool periodic : {true, false}) {
      SCOPED_TRACE(std::to_string(ndims) + " dims, " + (periodic ? "periodic" : "open"));
      MPI_Comm cart = grid(ndims, periodic);
      check(cart, rank(cart), cart_neighbours(cart));
      MPI_Comm_free(&cart);
    }
}

TEST_P(Neighbor, AlltoallOnCartesianGridsPutsEachBlockInItsPlace) {
  on_every_grid([&](MPI_Comm cart, int me, const std::vector<int>& nb) {
    const int n = static_cast<int>(nb.size());
    std::vector<int> out(2 * static_cast<std::size_t>(n)), in(out.size(), kUntouched);
    for (int k = 0; k < n; ++k) out[2 * k] = value(me, k, 0), out[2 * k + 1] = value(me, k, 1);
    ASSERT_EQ(NEIGHBOR(alltoall, out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, cart), MPI_SUCCESS);
    for (int k = 0; k < n; ++k) {
      if (nb[k] == MPI_PROC_NULL) {
        EXPECT_EQ(in[2 * k], kUntouched) << "block " << k << " of an open edge was written";
        continue;
      }
      // My -1 neighbour (k even) sent me its +1 block (k + 1), my +1
      // neighbour its -1 block (k - 1).
      const int their_k = k % 2 == 0 ? k + 1 : k - 1;
      EXPECT_EQ(in[2 * k], nb[k]) << "block " << k;
      EXPECT_EQ(in[2 * k + 1], value(nb[k], their_k, 1)) << "block " << k;
    }
  });
}

// Counts of 0 with NULL buffers: every form succeeds and touches nothing
// (MPI-1.1 §4.2; a face that is empty on this lattice).
TEST_P(Neighbor, ZeroCountsWithNullBuffers) {
  on_every_grid([&](MPI_Comm cart, int, const std::vector<int>& nb) {
    const std::vector<int> zeros(nb.size(), 0);
    const std::vector<MPI_Aint> byte_zeros(nb.size(), 0);
    const std::vector<MPI_Datatype> types(nb.size(), MPI_INT);
    const int* z = zeros.data();
    EXPECT_EQ(NEIGHBOR(alltoall, nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, cart), MPI_SUCCESS);
    EXPECT_EQ(NEIGHBOR(allgather, nullptr, 0, MPI_INT, nullptr, 0, MPI_INT, cart), MPI_SUCCESS);
    EXPECT_EQ(NEIGHBOR(alltoallv, nullptr, z, z, MPI_INT, nullptr, z, z, MPI_INT, cart), MPI_SUCCESS);
    EXPECT_EQ(NEIGHBOR(allgatherv, nullptr, 0, MPI_INT, nullptr, z, z, MPI_INT, cart), MPI_SUCCESS);
    EXPECT_EQ(NEIGHBOR(alltoallw, nullptr, z, byte_zeros.data(), types.data(), nullptr, z, byte_zeros.data(),
                       types.data(), cart),
              MPI_SUCCESS);
  });
}

TEST_P(Neighbor, AllgatherAndTheVectorForms) {
  MPI_Comm cart = grid(2, true);
  const int me = rank(cart);
  const std::vector<int> nb = cart_neighbours(cart);
  const int n = static_cast<int>(nb.size());
  std::vector<int> in(static_cast<std::size_t>(n), kUntouched);
  ASSERT_EQ(NEIGHBOR(allgather, &me, 1, MPI_INT, in.data(), 1, MPI_INT, cart), MPI_SUCCESS);
  for (int k = 0; k < n; ++k) EXPECT_EQ(in[k], nb[k]) << k;
  // Allgatherv: block k at displacement 3k, one int each.
  std::vector<int> counts(n, 1), displs(n), wide(3 * static_cast<std::size_t>(n), kUntouched);
  for (int k = 0; k < n; ++k) displs[k] = 3 * k;
  ASSERT_EQ(NEIGHBOR(allgatherv, &me, 1, MPI_INT, wide.data(), counts.data(), displs.data(), MPI_INT, cart),
            MPI_SUCCESS);
  for (int k = 0; k < n; ++k) {
    EXPECT_EQ(wide[3 * k], nb[k]);
    EXPECT_EQ(wide[3 * k + 1], kUntouched);
  }
  // Alltoallv: k + 1 ints to neighbour k. The neighbour it comes from sent
  // me its opposite block, of their_k + 1 ints.
  std::vector<int> scounts(n), sdispls(n), rcounts(n), rdispls(n);
  int stotal = 0, rtotal = 0;
  for (int k = 0; k < n; ++k) {
    const int their_k = k % 2 == 0 ? k + 1 : k - 1;
    scounts[k] = k + 1, sdispls[k] = stotal, stotal += k + 1;
    rcounts[k] = their_k + 1, rdispls[k] = rtotal, rtotal += their_k + 1;
  }
  std::vector<int> sv(static_cast<std::size_t>(stotal)), rv(static_cast<std::size_t>(rtotal), kUntouched);
  for (int k = 0; k < n; ++k)
    for (int i = 0; i <= k; ++i) sv[sdispls[k] + i] = me * 100 + 10 * k + i;
  ASSERT_EQ(NEIGHBOR(alltoallv, sv.data(), scounts.data(), sdispls.data(), MPI_INT, rv.data(), rcounts.data(),
                                   rdispls.data(), MPI_INT, cart),
            MPI_SUCCESS);
  for (int k = 0; k < n; ++k) {
    const int their_k = k % 2 == 0 ? k + 1 : k - 1;
    for (int i = 0; i <= their_k; ++i) EXPECT_EQ(rv[rdispls[k] + i], nb[k] * 100 + 10 * their_k + i) << k << "," << i;
  }
  MPI_Comm_free(&cart);
}

// Allgather on open grids too (MPI_PROC_NULL blocks untouched), and an
// alltoall whose types are not contiguous (3 ints strided by 2 out, 3
// contiguous ints in), which blocking calls take another way than
// contiguous ones.
TEST_P(Neighbor, AllgatherOnOpenGridsAndAStridedAlltoall) {
  on_every_grid([&](MPI_Comm cart, int me, const std::vector<int>& nb) {
    const int n = static_cast<int>(nb.size());
    std::vector<int> in(static_cast<std::size_t>(n), kUntouched);
    ASSERT_EQ(NEIGHBOR(allgather, &me, 1, MPI_INT, in.data(), 1, MPI_INT, cart), MPI_SUCCESS);
    for (int k = 0; k < n; ++k) EXPECT_EQ(in[k], nb[k] == MPI_PROC_NULL ? kUntouched : nb[k]) << "block " << k;

    MPI_Datatype strided;
    MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(strided, &lb, &extent);
    const int stride_ints = static_cast<int>(extent / sizeof(int));  // 5: block k starts at 5k
    std::vector<int> out(static_cast<std::size_t>(stride_ints * n), -1), got(3 * static_cast<std::size_t>(n), kUntouched);
    for (int k = 0; k < n; ++k)
      for (int i = 0; i < 3; ++i) out[stride_ints * k + 2 * i] = me * 100 + 10 * k + i;
    ASSERT_EQ(NEIGHBOR(alltoall, out.data(), 1, strided, got.data(), 3, MPI_INT, cart), MPI_SUCCESS);
    for (int k = 0; k < n; ++k) {
      const int their_k = k % 2 == 0 ? k + 1 : k - 1;
      for (int i = 0; i < 3; ++i)
        EXPECT_EQ(got[3 * k + i], nb[k] == MPI_PROC_NULL ? kUntouched : nb[k] * 100 + 10 * their_k + i)
            << "block " << k << ", int " << i;
    }
    MPI_Type_free(&strided);
  });
}

TEST_P(Neighbor, AlltoallwWithADerivedTypePerBlock) {
  MPI_Comm cart = grid(1, true);
  const int me = rank(cart);
  const std::vector<int> nb = cart_neighbours(cart);  // -1, +1
  // To -1: 3 doubles strided by 2 (a vector type); to +1: 2 contiguous ints.
  MPI_Datatype strided;
  MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  double d[6] = {me + 0.5, -1, me + 1.5, -1, me + 2.5, -1};
  int ints[2] = {me, me * 7};
  double got_d[3] = {0, 0, 0};
  int got_i[2] = {kUntouched, kUntouched};
  char* base = reinterpret_cast<char*>(d);
  const int scounts[2] = {1, 2}, rcounts[2] = {2, 3};
  const MPI_Aint sdispls[2] = {0, reinterpret_cast<char*>(ints) - base};
  const MPI_Aint rdispls[2] = {reinterpret_cast<char*>(got_i) - base, reinterpret_cast<char*>(got_d) - base};
  const MPI_Datatype stypes[2] = {strided, MPI_INT}, rtypes[2] = {MPI_INT, MPI_DOUBLE};
  // Block 0 (from -1) is the -1 neighbour's +1 block: 2 ints; block 1 (from
  // +1) its -1 block: 3 doubles.
  ASSERT_EQ(NEIGHBOR(alltoallw, base, scounts, sdispls, stypes, base, rcounts, rdispls, rtypes, cart), MPI_SUCCESS);
  EXPECT_EQ(got_i[0], nb[0]);
  EXPECT_EQ(got_i[1], nb[0] * 7);
  EXPECT_EQ(got_d[0], nb[1] + 0.5);
  EXPECT_EQ(got_d[2], nb[1] + 2.5);
  MPI_Type_free(&strided);
  MPI_Comm_free(&cart);
}

TEST_P(Neighbor, GraphNeighboursInTheirListedOrder) {
  // A ring in which each rank lists its successor, then its predecessor.
  const int p = size();
  std::vector<int> index(p), edges;
  for (int r = 0; r < p; ++r) {
    edges.push_back((r + 1) % p);
    edges.push_back((r + p - 1) % p);
    index[r] = static_cast<int>(edges.size());
  }
  MPI_Comm g;
  ASSERT_EQ(MPI_Graph_create(MPI_COMM_WORLD, p, index.data(), edges.data(), 0, &g), MPI_SUCCESS);
  const int me = rank(g);
  int in[2] = {kUntouched, kUntouched};
  ASSERT_EQ(NEIGHBOR(allgather, &me, 1, MPI_INT, in, 1, MPI_INT, g), MPI_SUCCESS);
  EXPECT_EQ(in[0], (me + 1) % p);
  EXPECT_EQ(in[1], (me + p - 1) % p);
  MPI_Comm_free(&g);
}

TEST_P(Neighbor, ACommunicatorWithoutTopologyIsRefused) {
  mpitest::ErrorsReturn er;
  int x = 0, y = 0;
  EXPECT_EQ(error_class(NEIGHBOR(allgather, &x, 1, MPI_INT, &y, 1, MPI_INT, MPI_COMM_WORLD)), MPI_ERR_TOPOLOGY);
  MPI_Comm cart = grid(1, true);
  EXPECT_EQ(error_class(NEIGHBOR(alltoall, &x, 1, MPI_DATATYPE_NULL, &y, 1, MPI_INT, cart)), MPI_ERR_TYPE);
  MPI_Comm_free(&cart);
}

// A directed graph: each rank hears from me-1 and me-2 and talks to me+1
// and me+2 (mod p), weighted by the distance.
MPI_Comm forward_graph() {
  const int me = rank(), p = size();
  const int sources[] = {(me - 1 + 2 * p) % p, (me - 2 + 2 * p) % p}, sw[] = {1, 2};
  const int dests[] = {(me + 1) % p, (me + 2) % p}, dw[] = {1, 2};
  MPI_Comm g = MPI_COMM_NULL;
  EXPECT_EQ(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, sw, 2, dests, dw, MPI_INFO_NULL, 0, &g),
            MPI_SUCCESS);
  return g;
}

TEST_P(Neighbor, DistributedGraphReceivesFromSourcesAndSendsToDestinations) {
  MPI_Comm g = forward_graph();
  const int me = rank(g), p = size(g);
  int status = -1;
  MPI_Topo_test(g, &status);
  EXPECT_EQ(status, MPI_DIST_GRAPH);
  int in[2] = {kUntouched, kUntouched};
  ASSERT_EQ(NEIGHBOR(allgather, &me, 1, MPI_INT, in, 1, MPI_INT, g), MPI_SUCCESS);
  EXPECT_EQ(in[0], (me - 1 + 2 * p) % p);
  EXPECT_EQ(in[1], (me - 2 + 2 * p) % p);
  // Block k to destination k; a source s sent me its block 0 if I am s+1,
  // its block 1 if I am s+2.
  const int out[2] = {me * 100, me * 100 + 1};
  ASSERT_EQ(NEIGHBOR(alltoall, out, 1, MPI_INT, in, 1, MPI_INT, g), MPI_SUCCESS);
  EXPECT_EQ(in[0], ((me - 1 + 2 * p) % p) * 100);
  EXPECT_EQ(in[1], ((me - 2 + 2 * p) % p) * 100 + 1);
  // One block out, two in, of different lengths: v forms.
  const int counts[2] = {1, 2}, displs[2] = {0, 1};
  int wide[3] = {kUntouched, kUntouched, kUntouched};
  ASSERT_EQ(NEIGHBOR(allgatherv, &me, 1, MPI_INT, wide, counts + 0, displs, MPI_INT, g), MPI_SUCCESS);
  EXPECT_EQ(wide[0], (me - 1 + 2 * p) % p);
  MPI_Comm_free(&g);
}

TEST_P(Neighbor, DistributedGraphQueriesAndTheGeneralConstructor) {
  if (GetParam()) GTEST_SKIP() << "no collective to run nonblocking";
  MPI_Comm g = forward_graph();
  const int me = rank(), p = size();
  int indeg = -1, outdeg = -1, weighted = -1;
  ASSERT_EQ(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted), MPI_SUCCESS);
  EXPECT_EQ(indeg, 2);
  EXPECT_EQ(outdeg, 2);
  EXPECT_EQ(weighted, 1);
  int src[2], sw[2], dst[2], dw[2];
  ASSERT_EQ(MPI_Dist_graph_neighbors(g, 2, src, sw, 2, dst, dw), MPI_SUCCESS);
  EXPECT_EQ(src[1], (me - 2 + 2 * p) % p);
  EXPECT_EQ(sw[1], 2);
  EXPECT_EQ(dst[0], (me + 1) % p);
  EXPECT_EQ(dw[0], 1);
  // A duplicate keeps the topology.
  MPI_Comm d;
  MPI_Comm_dup(g, &d);
  ASSERT_EQ(MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted), MPI_SUCCESS);
  EXPECT_EQ(indeg + outdeg, 4);
  MPI_Comm_free(&d);
  MPI_Comm_free(&g);
  // Rank 0 names every edge of the ring i -> i+1, weight i; the others none.
  std::vector<int> sources, degrees, dests, weights;
  if (me == 0)
    for (int i = 0; i < p; ++i) sources.push_back(i), degrees.push_back(1), dests.push_back((i + 1) % p), weights.push_back(i);
  ASSERT_EQ(MPI_Dist_graph_create(MPI_COMM_WORLD, static_cast<int>(sources.size()), sources.data(), degrees.data(),
                                  dests.data(), weights.data(), MPI_INFO_NULL, 1, &g),
            MPI_SUCCESS);
  ASSERT_EQ(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted), MPI_SUCCESS);
  EXPECT_EQ(indeg, 1);
  EXPECT_EQ(outdeg, 1);
  ASSERT_EQ(MPI_Dist_graph_neighbors(g, 1, src, sw, 1, dst, dw), MPI_SUCCESS);
  EXPECT_EQ(src[0], (me - 1 + p) % p);
  EXPECT_EQ(sw[0], (me - 1 + p) % p);
  EXPECT_EQ(dst[0], (me + 1) % p);
  EXPECT_EQ(dw[0], me);
  MPI_Comm_free(&g);
  // Unweighted; a rank that is not a member is refused.
  const int ring[] = {(me + 1) % p};
  ASSERT_EQ(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, ring, MPI_UNWEIGHTED, 1, ring, MPI_UNWEIGHTED,
                                           MPI_INFO_NULL, 0, &g),
            MPI_SUCCESS);
  ASSERT_EQ(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted), MPI_SUCCESS);
  EXPECT_EQ(weighted, 0);
  MPI_Comm_free(&g);
  mpitest::ErrorsReturn er;
  const int bad[] = {p};
  EXPECT_EQ(error_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, bad, MPI_UNWEIGHTED, 0, nullptr,
                                                       MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g)),
            MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &indeg, &outdeg, &weighted)), MPI_ERR_TOPOLOGY);
}

TEST_P(Neighbor, TwoExchangesOutstandingAtOnce) {
  if (!GetParam()) GTEST_SKIP() << "the nonblocking forms only";
  MPI_Comm cart = grid(1, true);
  const std::vector<int> nb = cart_neighbours(cart);
  const int me = rank(cart);
  int a_out[2] = {me, me + 100}, b_out[2] = {-me, -me - 100};
  int a_in[2] = {kUntouched, kUntouched}, b_in[2] = {kUntouched, kUntouched};
  MPI_Request r[2];
  ASSERT_EQ(MPI_Ineighbor_alltoall(a_out, 1, MPI_INT, a_in, 1, MPI_INT, cart, &r[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Ineighbor_alltoall(b_out, 1, MPI_INT, b_in, 1, MPI_INT, cart, &r[1]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  // From -1 its +1 block; from +1 its -1 block.
  EXPECT_EQ(a_in[0], nb[0] + 100);
  EXPECT_EQ(a_in[1], nb[1]);
  EXPECT_EQ(b_in[0], -nb[0] - 100);
  EXPECT_EQ(b_in[1], -nb[1]);
  MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
  EXPECT_EQ(error_class(MPI_Ineighbor_alltoall(a_out, 1, MPI_INT, a_in, 1, MPI_INT, cart, nullptr)), MPI_ERR_REQUEST);
  MPI_Comm_free(&cart);
}

INSTANTIATE_TEST_SUITE_P(BlockingAndNot, Neighbor, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "nonblocking" : "blocking"; });

}  // namespace

MPI_TEST_MAIN()
