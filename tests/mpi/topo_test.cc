// MPI-1.1 §6, Cartesian topologies: MPI_Dims_create (the standard's own
// examples), creation on periodic and open grids, shifts, rank <-> coordinate
// maps, sub-grids, MPI_Cart_map, and placement: with reorder = 1 a grid that
// matches the torus puts Cartesian neighbours on torus neighbours.
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;
using mpitest::rank;
using mpitest::size;

TEST(Topo, DimsCreateFollowsTheStandardsExamples) {
  int a[2] = {0, 0};
  ASSERT_EQ(MPI_Dims_create(6, 2, a), MPI_SUCCESS);
  EXPECT_EQ(a[0], 3);
  EXPECT_EQ(a[1], 2);
  int b[2] = {0, 0};
  MPI_Dims_create(7, 2, b);
  EXPECT_EQ(b[0], 7);
  EXPECT_EQ(b[1], 1);
  int c[3] = {0, 3, 0};
  MPI_Dims_create(6, 3, c);
  EXPECT_EQ(c[0], 2);
  EXPECT_EQ(c[1], 3);
  EXPECT_EQ(c[2], 1);
  mpitest::ErrorsReturn er;
  int d[3] = {0, 3, 0};
  EXPECT_EQ(error_class(MPI_Dims_create(7, 3, d)), MPI_ERR_DIMS);
  int e[3] = {0, 0, 0};
  MPI_Dims_create(64, 3, e);
  EXPECT_EQ(e[0] * e[1] * e[2], 64);
  EXPECT_EQ(e[0], 4);
  EXPECT_EQ(e[2], 4);
}

// An exhaustive reference for MPI_Dims_create (issue 14, item 7): every way
// to write m as a product of k factors in non-increasing order, and of those
// the most even -- the smallest spread (largest - smallest), then the
// largest smallest factor, then the smallest sum of squares. MPICH 4.0.2
// returns exactly these for every n <= 1024 and ndims <= 4; Open MPI 4.1
// does not (72 in 2-D: 12x6 instead of 9x8).
void each_split(int m, int k, int cap, std::vector<int>& cur, std::vector<std::vector<int>>& out) {
  if (k == 0) {
    if (m == 1) out.push_back(cur);
    return;
  }
  for (int d = 1; d <= std::min(m, cap); ++d)
    if (m % d == 0) {
      cur.push_back(d);
      each_split(m / d, k - 1, d, cur, out);
      cur.pop_back();
    }
}

std::vector<int> most_even(int m, int k) {
  std::vector<std::vector<int>> all;
  std::vector<int> cur;
  each_split(m, k, m, cur, all);
  auto spread = [](const std::vector<int>& v) {
    long long sq = 0;
    for (int x : v) sq += static_cast<long long>(x) * x;
    return std::make_tuple(v.front() - v.back(), -v.back(), sq);
  };
  return *std::min_element(all.begin(), all.end(),
                           [&](const auto& a, const auto& b) { return spread(a) < spread(b); });
}

TEST(Topo, DimsCreateGivesTheMostEvenSplitForEveryNodeCount) {
  if (rank() != 0) return;  // the same local computation on every rank
  int a[2] = {0, 0};
  ASSERT_EQ(MPI_Dims_create(72, 2, a), MPI_SUCCESS);
  EXPECT_EQ(std::vector<int>(a, a + 2), (std::vector<int>{9, 8}));
  int wrong = 0;
  for (int nd = 1; nd <= 4; ++nd)
    for (int n = 1; n <= 1024; ++n) {
      // All free; then every pattern of fixed entries with values 2 and 3.
      for (int pattern = 0; pattern < (nd == 1 ? 1 : 9); ++pattern) {
        std::vector<int> dims(nd, 0);
        int fixed = 1, p = pattern;
        for (int i = 1; i < nd && i < 3; ++i, p /= 3)
          if (p % 3) fixed *= dims[i] = 1 + p % 3;
        if (n % fixed) continue;
        int free_dims = 0;
        for (int x : dims) free_dims += x == 0;
        if (free_dims == 0) continue;
        std::vector<int> got = dims;
        ASSERT_EQ(MPI_Dims_create(n, nd, got.data()), MPI_SUCCESS) << n << " " << nd;
        const std::vector<int> even = most_even(n / fixed, free_dims);
        std::vector<int> want = dims;
        for (int i = 0, k = 0; i < nd; ++i)
          if (want[i] == 0) want[i] = even[k++];
        if (got != want && ++wrong <= 5) {
          ADD_FAILURE() << "MPI_Dims_create(" << n << ", " << nd << ", pattern " << pattern << ")";
        }
      }
    }
  EXPECT_EQ(wrong, 0);
}

// One periodic and one open dimension: shifts wrap on the first and fall off
// the edge (MPI_PROC_NULL) on the second.
TEST(Topo, ShiftsWrapOnPeriodicAndStopOnOpenDimensions) {
  int dims[2] = {0, 0};
  MPI_Dims_create(size(), 2, dims);
  const int periods[2] = {-1, 0};  // any nonzero flag is true; Fortran's .TRUE. comes back
  MPI_Comm cart;
  ASSERT_EQ(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), MPI_SUCCESS);
  int status;
  MPI_Topo_test(cart, &status);
  EXPECT_EQ(status, MPI_CART);
  MPI_Topo_test(MPI_COMM_WORLD, &status);
  EXPECT_EQ(status, MPI_UNDEFINED);
  int nd;
  MPI_Cartdim_get(cart, &nd);
  EXPECT_EQ(nd, 2);
  int gd[2], gp[2], me[2];
  MPI_Cart_get(cart, 2, gd, gp, me);
  EXPECT_EQ(gd[0], dims[0]);
  EXPECT_EQ(gp[0], 1);
  EXPECT_EQ(gp[1], 0);
  const int r = rank(cart);
  EXPECT_EQ(r, me[0] * dims[1] + me[1]);  // row-major (§6.5.4)
  int src, dst;
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  const int up = ((me[0] + 1) % dims[0]) * dims[1] + me[1], down = ((me[0] - 1 + dims[0]) % dims[0]) * dims[1] + me[1];
  EXPECT_EQ(dst, up);
  EXPECT_EQ(src, down);
  MPI_Cart_shift(cart, 1, 1, &src, &dst);
  EXPECT_EQ(dst, me[1] + 1 < dims[1] ? r + 1 : MPI_PROC_NULL);
  EXPECT_EQ(src, me[1] > 0 ? r - 1 : MPI_PROC_NULL);
  // A halo exchange along the open dimension: the ends receive nothing.
  int mine = r, from_left = -7;
  MPI_Sendrecv(&mine, 1, MPI_INT, dst, 0, &from_left, 1, MPI_INT, src, 0, cart, MPI_STATUS_IGNORE);
  EXPECT_EQ(from_left, src == MPI_PROC_NULL ? -7 : src);
  // Shift by 2 on the periodic dimension.
  MPI_Cart_shift(cart, 0, 2, &src, &dst);
  EXPECT_EQ(dst, ((me[0] + 2) % dims[0]) * dims[1] + me[1]);
  MPI_Comm_free(&cart);
}

TEST(Topo, RanksAndCoordinatesAreInverse) {
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(size(), 3, dims);
  const int periods[3] = {1, 1, 0};
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &cart);
  for (int r = 0; r < size(); ++r) {
    int c[3], back;
    ASSERT_EQ(MPI_Cart_coords(cart, r, 3, c), MPI_SUCCESS);
    ASSERT_EQ(MPI_Cart_rank(cart, c, &back), MPI_SUCCESS);
    EXPECT_EQ(back, r);
  }
  // Periodic coordinates are taken modulo the extent; open ones must be in range.
  int c[3] = {-1, dims[1], 0}, wrapped;
  ASSERT_EQ(MPI_Cart_rank(cart, c, &wrapped), MPI_SUCCESS);
  EXPECT_EQ(wrapped, (dims[0] - 1) * dims[1] * dims[2]);
  mpitest::ErrorsReturn er;
  int bad[3] = {0, 0, dims[2]};
  MPI_Errhandler_set(cart, MPI_ERRORS_RETURN);
  EXPECT_EQ(error_class(MPI_Cart_rank(cart, bad, &wrapped)), MPI_ERR_ARG);
  int src, dst;
  EXPECT_EQ(error_class(MPI_Cart_shift(cart, 3, 1, &src, &dst)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst)), MPI_ERR_TOPOLOGY);
  MPI_Comm_free(&cart);
}

TEST(Topo, SubGridsKeepTheRemainingDimensions) {
  int dims[2] = {0, 0};
  MPI_Dims_create(size(), 2, dims);
  const int periods[2] = {0, 1};
  MPI_Comm cart, rows, cols;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  int me[2], gd[2], gp[2];
  MPI_Cart_get(cart, 2, gd, gp, me);
  const int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
  ASSERT_EQ(MPI_Cart_sub(cart, keep_row, &rows), MPI_SUCCESS);
  ASSERT_EQ(MPI_Cart_sub(cart, keep_col, &cols), MPI_SUCCESS);
  EXPECT_EQ(size(rows), dims[1]);
  EXPECT_EQ(rank(rows), me[1]);
  EXPECT_EQ(size(cols), dims[0]);
  EXPECT_EQ(rank(cols), me[0]);
  int nd, d1, p1, c1;
  MPI_Cartdim_get(rows, &nd);
  EXPECT_EQ(nd, 1);
  MPI_Cart_get(rows, 1, &d1, &p1, &c1);
  EXPECT_EQ(p1, 1);
  // A row sum adds the row's cart ranks.
  int r = rank(cart), sum = 0, ref = 0;
  MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, rows);
  for (int j = 0; j < dims[1]; ++j) ref += me[0] * dims[1] + j;
  EXPECT_EQ(sum, ref);
  MPI_Comm_free(&rows);
  MPI_Comm_free(&cols);
  MPI_Comm_free(&cart);
}

TEST(Topo, ASmallerGridLeavesTheRestOut) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int dims[1] = {size() - 1}, periods[1] = {1};
  MPI_Comm cart;
  ASSERT_EQ(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart), MPI_SUCCESS);
  if (rank() == size() - 1) {
    EXPECT_EQ(cart, MPI_COMM_NULL);
  } else {
    EXPECT_EQ(size(cart), size() - 1);
    MPI_Comm_free(&cart);
  }
  int newrank;
  MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank);
  EXPECT_EQ(newrank, rank() == size() - 1 ? MPI_UNDEFINED : rank());
}

// The launcher's torus (qmprun --geometry, seen as MESHMP_GEOMETRY), axis 0
// varying fastest with the world rank.
std::vector<int> torus_dims() {
  const char* g = std::getenv("MESHMP_GEOMETRY");
  std::vector<int> d;
  if (g && *g)
    for (const char* p = g; *p;) {
      d.push_back(std::atoi(p));
      while (*p && *p != 'x') ++p;
      if (*p == 'x') ++p;
    }
  else
    d.push_back(size());
  return d;
}

int torus_hops(const std::vector<int>& dims, int a, int b) {
  int hops = 0;
  for (int n : dims) {
    const int d = std::abs(a % n - b % n);
    hops += std::min(d, n - d);
    a /= n;
    b /= n;
  }
  return hops;
}

TEST(Topo, ReorderPutsCartesianNeighboursOnTorusNeighbours) {
  // The torus's extents listed largest first, as MPI_Dims_create lists them:
  // for a 4x2 torus the grid is 4x2 in row-major order, which the identity
  // placement would lay across the torus's x axis with stride 2.
  std::vector<int> t = torus_dims();
  std::vector<int> dims = t;
  std::sort(dims.rbegin(), dims.rend());
  const std::vector<int> periods(dims.size(), 1);
  MPI_Comm cart;
  ASSERT_EQ(MPI_Cart_create(MPI_COMM_WORLD, static_cast<int>(dims.size()), dims.data(), periods.data(), 1, &cart), MPI_SUCCESS);
  int newrank;
  MPI_Cart_map(MPI_COMM_WORLD, static_cast<int>(dims.size()), dims.data(), periods.data(), &newrank);
  EXPECT_EQ(newrank, rank(cart));
  // World rank of every Cartesian rank.
  std::vector<int> world(size());
  const int me = rank();
  MPI_Allgather(&me, 1, MPI_INT, world.data(), 1, MPI_INT, cart);
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    int src, dst;
    MPI_Cart_shift(cart, d, 1, &src, &dst);
    if (dims[d] == 1) continue;
    EXPECT_EQ(torus_hops(t, me, world[dst]), 1) << "dimension " << d << ": world " << me << " -> " << world[dst];
    EXPECT_EQ(torus_hops(t, me, world[src]), 1) << "dimension " << d;
  }
  // Collectives on the grid agree with the world.
  int x = me + 1, prod_cart = 0, prod_world = 0;
  MPI_Allreduce(&x, &prod_cart, 1, MPI_INT, MPI_SUM, cart);
  MPI_Allreduce(&x, &prod_world, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(prod_cart, prod_world);
  MPI_Comm_free(&cart);
}

// §6.5.3's example shape: a ring in which every node also links to the node
// opposite; the graph comm holds it and answers neighbour queries.
TEST(Topo, GraphCreateGetAndNeighbours) {
  const int p = mpitest::size();
  std::vector<int> index, edges;
  for (int i = 0; i < p; ++i) {
    for (int nb : {(i + 1) % p, (i + p - 1) % p, (i + p / 2) % p}) edges.push_back(nb);
    index.push_back(static_cast<int>(edges.size()));
  }
  MPI_Comm g;
  ASSERT_EQ(MPI_Graph_create(MPI_COMM_WORLD, p, index.data(), edges.data(), 0, &g), MPI_SUCCESS);
  int status;
  MPI_Topo_test(g, &status);
  EXPECT_EQ(status, MPI_GRAPH);
  int nnodes, nedges;
  MPI_Graphdims_get(g, &nnodes, &nedges);
  EXPECT_EQ(nnodes, p);
  EXPECT_EQ(nedges, 3 * p);
  std::vector<int> gi(p), ge(3 * p);
  MPI_Graph_get(g, p, 3 * p, gi.data(), ge.data());
  EXPECT_EQ(gi, index);
  EXPECT_EQ(ge, edges);
  const int me = mpitest::rank(g);
  int count;
  MPI_Graph_neighbors_count(g, me, &count);
  ASSERT_EQ(count, 3);
  int nb[3];
  MPI_Graph_neighbors(g, me, 3, nb);
  EXPECT_EQ(nb[0], (me + 1) % p);
  EXPECT_EQ(nb[1], (me + p - 1) % p);
  EXPECT_EQ(nb[2], (me + p / 2) % p);
  // Send to every neighbour, receive from every node that names me.
  std::vector<MPI_Request> sends(3);
  for (int k = 0; k < 3; ++k) MPI_Isend(&me, 1, MPI_INT, nb[k], 4, g, &sends[k]);
  int in_degree = 0;
  for (int i = 0; i < p; ++i)
    for (int k = index[i] - 3; k < index[i]; ++k) in_degree += edges[k] == me;
  std::vector<int> from;
  for (int k = 0; k < in_degree; ++k) {
    int v;
    MPI_Status st;
    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 4, g, &st);
    EXPECT_EQ(v, st.MPI_SOURCE);
    from.push_back(v);
  }
  MPI_Waitall(3, sends.data(), MPI_STATUSES_IGNORE);
  int newrank;
  MPI_Graph_map(MPI_COMM_WORLD, p, index.data(), edges.data(), &newrank);
  EXPECT_EQ(newrank, mpitest::rank());
  MPI_Comm_free(&g);
}

TEST(Topo, GraphOverFewerNodesLeavesTheRestOut) {
  const int p = mpitest::size();
  const int n = (p + 1) / 2;
  std::vector<int> index(n, 0);  // no edges
  MPI_Comm g;
  ASSERT_EQ(MPI_Graph_create(MPI_COMM_WORLD, n, index.data(), nullptr, 1, &g), MPI_SUCCESS);
  if (mpitest::rank() < n) {
    ASSERT_NE(g, MPI_COMM_NULL);
    EXPECT_EQ(mpitest::size(g), n);
    MPI_Comm_free(&g);
  } else {
    EXPECT_EQ(g, MPI_COMM_NULL);
  }
  mpitest::ErrorsReturn errors_return;
  const int bad_edge = p + 3, one = 1;
  EXPECT_EQ(mpitest::error_class(MPI_Graph_create(MPI_COMM_WORLD, 1, &one, &bad_edge, 0, &g)), MPI_ERR_ARG);
  int count;
  EXPECT_EQ(mpitest::error_class(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &count)), MPI_ERR_TOPOLOGY);
}

}  // namespace

MPI_TEST_MAIN()
