// The QMP 2.5 API through qmp.h alone, on every rank of a job (run on 1, 2,
// 4, 8 ranks and the layouts 8, 4x2, 2x2x2, 2x2x2x1). Reductions are checked
// against serial references computed from every node's inputs.
#include <gtest/gtest.h>
#include <qmp.h>

#include <dirent.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace {

int nodes() { return QMP_get_number_of_nodes(); }

// How many ranks the launcher started, as the launcher itself says it:
// qmprun (MESHMP_SIZE), Slurm (SLURM_NTASKS), Open MPI (OMPI_COMM_WORLD_SIZE).
int launched_ranks() {
  for (const char* v : {"MESHMP_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* n = std::getenv(v)) return std::atoi(n);
  return 1;
}
int me() { return QMP_get_node_number(); }

// A logical topology shaped like the launcher's torus (MESHMP_GEOMETRY), or
// a 1-D ring.
std::vector<int> torus_dims() {
  const char* g = std::getenv("MESHMP_GEOMETRY");
  std::vector<int> dims;
  if (g && *g) {
    for (const char* p = g; *p;) {
      dims.push_back(std::atoi(p));
      while (*p && *p != 'x') ++p;
      if (*p == 'x') ++p;
    }
  } else {
    dims.push_back(nodes());
  }
  return dims;
}

TEST(Qmp, StartedAndDescribesTheJob) {
  EXPECT_EQ(QMP_is_initialized(), QMP_TRUE);
  EXPECT_STREQ(QMP_version_str(), "2.5.4");
  EXPECT_EQ(QMP_version_int(), 2005004);
  EXPECT_EQ(nodes(), launched_ranks());
  EXPECT_GE(me(), 0);
  EXPECT_LT(me(), nodes());
  EXPECT_EQ(QMP_is_primary_node(), me() == 0 ? QMP_TRUE : QMP_FALSE);
  EXPECT_EQ(QMP_get_number_of_jobs(), 1);
  EXPECT_EQ(QMP_get_job_number(), 0);
  EXPECT_EQ(QMP_io_node(me()), me());
  EXPECT_EQ(QMP_master_io_node(), 0);
  EXPECT_EQ(QMP_get_msg_passing_type(), QMP_SWITCH);  // no -qmp-geom
  EXPECT_EQ(QMP_get_allocated_number_of_dimensions(), 0);
  QMP_comm_t def = QMP_comm_get_default();
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(QMP_comm_get_job(), def);
  EXPECT_EQ(QMP_comm_get_allocated(), def);
  EXPECT_EQ(QMP_comm_get_number_of_nodes(def), nodes());
  EXPECT_EQ(QMP_comm_get_node_number(def), me());
}

TEST(Qmp, LogicalTopologyRoundTripsAndCannotBeDeclaredTwice) {
  std::vector<int> dims = torus_dims();
  ASSERT_EQ(QMP_logical_topology_is_declared(), QMP_FALSE);
  EXPECT_EQ(QMP_get_logical_coordinates(), nullptr);  // NONEIGHBOR_INFO, reported
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_NONEIGHBOR_INFO);
  ASSERT_EQ(QMP_declare_logical_topology(dims.data(), static_cast<int>(dims.size())), QMP_SUCCESS);
  EXPECT_EQ(QMP_logical_topology_is_declared(), QMP_TRUE);
  EXPECT_EQ(QMP_declare_logical_topology(dims.data(), static_cast<int>(dims.size())), QMP_TOPOLOGY_EXISTS);
  ASSERT_EQ(QMP_get_logical_number_of_dimensions(), static_cast<int>(dims.size()));
  const int* ld = QMP_get_logical_dimensions();
  for (size_t i = 0; i < dims.size(); ++i) EXPECT_EQ(ld[i], dims[i]);
  // Lexicographic, axis 0 fastest.
  const int* c = QMP_get_logical_coordinates();
  int node = 0;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) node = node * dims[i] + c[i];
  EXPECT_EQ(node, me());
  for (int n = 0; n < nodes(); ++n) {
    int* from = QMP_get_logical_coordinates_from(n);
    ASSERT_NE(from, nullptr);
    std::vector<int> c2(dims.size());
    QMP_get_logical_coordinates_from2(c2.data(), n);
    for (size_t i = 0; i < dims.size(); ++i) EXPECT_EQ(from[i], c2[i]);
    EXPECT_EQ(QMP_get_node_number_from(from), n);
    std::free(from);
  }
  EXPECT_EQ(QMP_get_logical_coordinates_from(nodes()), nullptr);
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_NODE_OUTRANGE);
}

// Faces of n doubles in memory from QMP_allocate_aligned_memory.
struct Face {
  QMP_mem_t* mem;
  double* v;
  Face(int n, int flags)
      : mem(QMP_allocate_aligned_memory(n * sizeof(double), 64, flags)),
        v(static_cast<double*>(QMP_get_memory_pointer(mem))) {}
  ~Face() { QMP_free_memory(mem); }
  double& operator[](int i) { return v[i]; }
};

// Every node sends a distinct message in all 2*D directions at once and
// receives from all 2*D neighbours, through one multiple handle restarted:
// 8 KB faces (eager) and 40 KB faces (written on the receiver's announcement),
// in ordinary (QMP_MEM_FAST) and in registered (QMP_MEM_DEFAULT, which
// includes QMP_MEM_COMMS) memory.
class QmpFaces : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(QmpFaces, RelativeExchangeInEveryDirection) {
  const int nd = QMP_get_logical_number_of_dimensions();
  const auto [n, flags] = GetParam();
  std::vector<std::unique_ptr<Face>> out, in;
  for (int k = 0; k < 2 * nd; ++k) {
    out.push_back(std::make_unique<Face>(n, flags));
    in.push_back(std::make_unique<Face>(n, flags));
    ASSERT_NE(out[k]->v, nullptr);
    ASSERT_NE(in[k]->v, nullptr);
  }
  std::vector<QMP_msgmem_t> mems;
  std::vector<QMP_msghandle_t> hs;
  for (int axis = 0; axis < nd; ++axis)
    for (int dir : {+1, -1}) {
      const int k = 2 * axis + (dir < 0);
      QMP_msgmem_t mo = QMP_declare_msgmem(out[k]->v, n * sizeof(double));
      QMP_msgmem_t mi = QMP_declare_msgmem(in[k]->v, n * sizeof(double));
      mems.push_back(mo);
      mems.push_back(mi);
      hs.push_back(QMP_declare_send_relative(mo, axis, dir, 0));
      hs.push_back(QMP_declare_receive_relative(mi, axis, dir, 0));
      ASSERT_NE(hs[hs.size() - 1], nullptr);
      ASSERT_NE(hs[hs.size() - 2], nullptr);
    }
  QMP_msghandle_t all = QMP_declare_multiple(hs.data(), static_cast<int>(hs.size()));
  ASSERT_NE(all, nullptr);
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 2 * nd; ++k)
      for (int i = 0; i < n; ++i) (*out[k])[i] = me() * 1e6 + k * 1e4 + i + round * 0.5;
    ASSERT_EQ(QMP_start(all), QMP_SUCCESS);
    EXPECT_EQ(QMP_start(all), QMP_INVALID_OP);  // already active
    ASSERT_EQ(QMP_wait(all), QMP_SUCCESS);
    for (int axis = 0; axis < nd; ++axis)
      for (int dir : {+1, -1}) {
        const int k = 2 * axis + (dir < 0);
        // The receive from the +dir neighbour holds what it sent in -dir.
        std::vector<int> c(QMP_get_logical_coordinates(), QMP_get_logical_coordinates() + nd);
        c[axis] += dir;
        const int from = QMP_get_node_number_from(c.data());
        const int sent_k = 2 * axis + (dir > 0);
        for (int i = 0; i < n; ++i)
          ASSERT_EQ((*in[k])[i], from * 1e6 + sent_k * 1e4 + i + round * 0.5) << "axis " << axis << " dir " << dir;
      }
  }
  QMP_free_msghandle(all);
  for (QMP_msgmem_t m : mems) QMP_free_msgmem(m);
}

INSTANTIATE_TEST_SUITE_P(FaceSizes, QmpFaces,
                         ::testing::Combine(::testing::Values(1000, 5000),
                                            ::testing::Values(QMP_MEM_FAST, QMP_MEM_DEFAULT)));

// Strided and indexed memory: a column of a row-major matrix goes to the
// +x neighbour and arrives in an indexed layout.
TEST(Qmp, StridedAndIndexedMemory) {
  const int rows = 64, cols = 9;
  std::vector<int> matrix(rows * cols, -1), got(rows * 2, -1);
  for (int r = 0; r < rows; ++r) matrix[r * cols + 3] = me() * 1000 + r;
  QMP_msgmem_t col = QMP_declare_strided_msgmem(&matrix[3], sizeof(int), rows, cols * sizeof(int));
  // Indexed: every other int of `got`, in blocks of one.
  std::vector<int> blocklen(rows, 1), index(rows);
  for (int r = 0; r < rows; ++r) index[r] = 2 * r;
  QMP_msgmem_t idx = QMP_declare_indexed_msgmem(got.data(), blocklen.data(), index.data(), sizeof(int), rows);
  QMP_msghandle_t s = QMP_declare_send_relative(col, 0, +1, 0);
  QMP_msghandle_t r = QMP_declare_receive_relative(idx, 0, -1, 0);
  ASSERT_EQ(QMP_start(r), QMP_SUCCESS);
  ASSERT_EQ(QMP_start(s), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait(s), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait(r), QMP_SUCCESS);
  std::vector<int> c(QMP_get_logical_coordinates(), QMP_get_logical_coordinates() + QMP_get_logical_number_of_dimensions());
  c[0] -= 1;
  const int from = QMP_get_node_number_from(c.data());
  for (int k = 0; k < rows; ++k) {
    EXPECT_EQ(got[2 * k], from * 1000 + k) << k;
    EXPECT_EQ(got[2 * k + 1], -1) << "indexed receive wrote between blocks";
  }
  QMP_free_msghandle(s);
  QMP_free_msghandle(r);
  QMP_free_msgmem(col);
  QMP_free_msgmem(idx);
}

// Message memory and reductions of no bytes take NULL pointers, as USQCD
// QMP 2.5.1 does (a face or buffer that is empty on this lattice): each
// declaration gives message memory, which moves 0 bytes around a ring, and
// QMP_binary_reduction of 0 bytes succeeds without calling the function.
// Before, each was refused with QMP_INVALID_ARG ("base is NULL").
TEST(Qmp, NoBytesTakeNullPointers) {
  const int next = (me() + 1) % nodes(), prev = (me() + nodes() - 1) % nodes();
  void* bases[2] = {nullptr, nullptr};
  std::size_t blksizes[2] = {8, 0};
  int nblocks[2] = {0, 3};
  std::ptrdiff_t strides[2] = {16, 16};
  QMP_msgmem_t empty[5] = {
      QMP_declare_msgmem(nullptr, 0),
      QMP_declare_strided_msgmem(nullptr, 8, 0, 16),
      QMP_declare_strided_msgmem(nullptr, 0, 4, 16),
      QMP_declare_strided_array_msgmem(bases, blksizes, nblocks, strides, 2),
      QMP_declare_indexed_msgmem(nullptr, nullptr, nullptr, 8, 0),
  };
  for (int k = 0; k < 5; ++k) {
    SCOPED_TRACE("declaration " + std::to_string(k));
    ASSERT_NE(empty[k], nullptr) << QMP_get_error_string(nullptr);
    QMP_msghandle_t r = QMP_declare_receive_from(empty[k], prev, 0), s = QMP_declare_send_to(empty[k], next, 0);
    ASSERT_NE(r, nullptr);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(QMP_start(r), QMP_SUCCESS);
    EXPECT_EQ(QMP_start(s), QMP_SUCCESS);
    EXPECT_EQ(QMP_wait(s), QMP_SUCCESS);
    EXPECT_EQ(QMP_wait(r), QMP_SUCCESS);
    QMP_free_msghandle(s);
    QMP_free_msghandle(r);
    QMP_free_msgmem(empty[k]);
  }
  static bool called;
  called = false;
  EXPECT_EQ(QMP_binary_reduction(nullptr, 0, [](void*, void*) { called = true; }), QMP_SUCCESS)
      << QMP_get_error_string(nullptr);
  EXPECT_FALSE(called);
}

// send_to / receive_from around a ring of node numbers, and change_address.
TEST(Qmp, SendToReceiveFromAndChangeAddress) {
  const int next = (me() + 1) % nodes(), prev = (me() + nodes() - 1) % nodes();
  long a = me(), b = -1, a2 = me() + 100, b2 = -1;
  QMP_msgmem_t ma = QMP_declare_msgmem(&a, sizeof a), mb = QMP_declare_msgmem(&b, sizeof b);
  QMP_msghandle_t s = QMP_declare_send_to(ma, next, 0), r = QMP_declare_receive_from(mb, prev, 0);
  QMP_msghandle_t pair[2] = {r, s};
  QMP_msghandle_t both = QMP_declare_send_recv_pairs(pair, 2);
  ASSERT_EQ(QMP_start(both), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait_all(&both, 1), QMP_SUCCESS);
  EXPECT_EQ(b, prev);
  QMP_msghandle_t s2 = QMP_declare_send_to(ma, next, 0), r2 = QMP_declare_receive_from(mb, prev, 0);
  ASSERT_EQ(QMP_change_address(s2, &a2), QMP_SUCCESS);
  ASSERT_EQ(QMP_change_address(r2, &b2), QMP_SUCCESS);
  ASSERT_EQ(QMP_start(r2), QMP_SUCCESS);
  ASSERT_EQ(QMP_start(s2), QMP_SUCCESS);
  while (!QMP_is_complete(r2)) {}
  ASSERT_EQ(QMP_wait(s2), QMP_SUCCESS);
  EXPECT_EQ(b2, prev + 100);
  EXPECT_EQ(b, prev);  // the old buffer was not touched again
  QMP_free_msghandle(both);
  QMP_free_msghandle(s2);
  QMP_free_msghandle(r2);
  QMP_free_msgmem(ma);
  QMP_free_msgmem(mb);
}

TEST(Qmp, SumsOfEveryTypeMatchClosedForms) {
  const int p = nodes(), k = me();
  int i = k + 1;
  ASSERT_EQ(QMP_sum_int(&i), QMP_SUCCESS);
  EXPECT_EQ(i, p * (p + 1) / 2);
  uint64_t u = (1ull << 40) + k;
  ASSERT_EQ(QMP_sum_uint64_t(&u), QMP_SUCCESS);
  EXPECT_EQ(u, p * (1ull << 40) + static_cast<uint64_t>(p) * (p - 1) / 2);
  float f = 0.5f * k;
  ASSERT_EQ(QMP_sum_float(&f), QMP_SUCCESS);
  EXPECT_FLOAT_EQ(f, 0.25f * p * (p - 1));
  double d = 1.0 / (k + 1);
  double dref = 0;
  for (int r = 0; r < p; ++r) dref += 1.0 / (r + 1);
  ASSERT_EQ(QMP_sum_double(&d), QMP_SUCCESS);
  EXPECT_NEAR(d, dref, 1e-14);
  long double ld = 1.0L / (k + 1);
  ASSERT_EQ(QMP_sum_long_double(&ld), QMP_SUCCESS);
  EXPECT_NEAR(static_cast<double>(ld), dref, 1e-14);
  // 2^54 + (p-1) ones: every partial sum is exact in long double (64-bit
  // mantissa), whatever the order; a double accumulator would drop the ones.
  double de = k == 0 ? std::ldexp(1.0, 54) : 1.0;
  ASSERT_EQ(QMP_sum_double_extended(&de), QMP_SUCCESS);
  EXPECT_EQ(de, static_cast<double>(std::ldexp(1.0L, 54) + (p - 1)));
  std::vector<float> fa(5);
  std::vector<double> da(1000);
  std::vector<long double> la(3);
  for (int j = 0; j < 5; ++j) fa[j] = static_cast<float>(j + k);
  for (int j = 0; j < 1000; ++j) da[j] = j * 0.25 + k;
  for (int j = 0; j < 3; ++j) la[j] = j + k;
  ASSERT_EQ(QMP_sum_float_array(fa.data(), 5), QMP_SUCCESS);
  ASSERT_EQ(QMP_sum_double_array(da.data(), 1000), QMP_SUCCESS);
  ASSERT_EQ(QMP_sum_long_double_array(la.data(), 3), QMP_SUCCESS);
  const double ksum = p * (p - 1) / 2.0;
  for (int j = 0; j < 5; ++j) EXPECT_FLOAT_EQ(fa[j], static_cast<float>(j * p + ksum));
  for (int j = 0; j < 1000; ++j) EXPECT_DOUBLE_EQ(da[j], j * 0.25 * p + ksum);
  for (int j = 0; j < 3; ++j) EXPECT_EQ(static_cast<double>(la[j]), j * p + ksum);
}

// Global sums of no elements, from a NULL pointer (an empty array's): before,
// on 3 or more ranks of one host, every rank but the last to arrive got
// QMP_BAD_MESSAGE. Repeated, so that each rank is the last some time.
TEST(Qmp, GlobalSumsOfNoElementsTakeANullPointer) {
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_EQ(QMP_sum_double_array(nullptr, 0), QMP_SUCCESS);
    EXPECT_EQ(QMP_sum_float_array(nullptr, 0), QMP_SUCCESS);
    EXPECT_EQ(QMP_sum_long_double_array(nullptr, 0), QMP_SUCCESS);
    EXPECT_EQ(QMP_broadcast(nullptr, 0), QMP_SUCCESS);
    if (HasFailure()) return;
  }
}

TEST(Qmp, MaxMinXorBroadcastBarrierAndBinaryReduction) {
  const int p = nodes(), k = me();
  float fx = static_cast<float>(k), fn = static_cast<float>(k);
  double dx = -k * 1.5, dn = -k * 1.5;
  ASSERT_EQ(QMP_max_float(&fx), QMP_SUCCESS);
  ASSERT_EQ(QMP_min_float(&fn), QMP_SUCCESS);
  ASSERT_EQ(QMP_max_double(&dx), QMP_SUCCESS);
  ASSERT_EQ(QMP_min_double(&dn), QMP_SUCCESS);
  EXPECT_EQ(fx, p - 1.0f);
  EXPECT_EQ(fn, 0.0f);
  EXPECT_EQ(dx, 0.0);
  EXPECT_EQ(dn, -(p - 1) * 1.5);
  unsigned long x = 1ul << k, xref = 0;
  for (int r = 0; r < p; ++r) xref ^= 1ul << r;
  ASSERT_EQ(QMP_xor_ulong(&x), QMP_SUCCESS);
  EXPECT_EQ(x, xref);
  char msg[32] = {};
  if (k == 0) std::strcpy(msg, "from node zero");
  ASSERT_EQ(QMP_broadcast(msg, sizeof msg), QMP_SUCCESS);
  EXPECT_STREQ(msg, "from node zero");
  ASSERT_EQ(QMP_barrier(), QMP_SUCCESS);
  // A user reduction over a struct: keep the (value, node) pair with the
  // largest value.
  struct Best { double v; int node; } b{std::fmod(k * 7.3, 5.0), k};
  ASSERT_EQ(QMP_binary_reduction(&b, sizeof b, [](void* io, void* in) {
              Best* a = static_cast<Best*>(io);
              const Best* c = static_cast<const Best*>(in);
              if (c->v > a->v || (c->v == a->v && c->node < a->node)) *a = *c;
            }), QMP_SUCCESS);
  Best ref{-1, -1};
  for (int r = 0; r < p; ++r) {
    double v = std::fmod(r * 7.3, 5.0);
    if (v > ref.v) ref = {v, r};
  }
  EXPECT_EQ(b.node, ref.node);
  EXPECT_EQ(b.v, ref.v);
}

TEST(Qmp, SumsAreBitIdenticalOnEveryNode) {
  std::vector<double> v(64);
  for (int j = 0; j < 64; ++j) v[j] = std::sin(me() * 64.0 + j) * 1e10;
  ASSERT_EQ(QMP_sum_double_array(v.data(), 64), QMP_SUCCESS);
  // Compare everyone's result with node 0's, bit for bit.
  std::vector<double> zero = v;
  ASSERT_EQ(QMP_broadcast(zero.data(), zero.size() * sizeof(double)), QMP_SUCCESS);
  int same = std::memcmp(zero.data(), v.data(), v.size() * sizeof(double)) == 0;
  ASSERT_EQ(QMP_sum_int(&same), QMP_SUCCESS);
  EXPECT_EQ(same, nodes());
}

TEST(Qmp, AlltoallAndCommSplit) {
  QMP_comm_t def = QMP_comm_get_default();
  const int p = nodes();
  std::vector<char> send(p * 4), recv(p * 4, 0);
  for (int j = 0; j < p; ++j)
    for (int b = 0; b < 4; ++b) send[j * 4 + b] = static_cast<char>(me() * 16 + j + b);
  ASSERT_EQ(QMP_comm_alltoall(def, recv.data(), send.data(), 4), QMP_SUCCESS);
  for (int j = 0; j < p; ++j)
    for (int b = 0; b < 4; ++b) EXPECT_EQ(recv[j * 4 + b], static_cast<char>(j * 16 + me() + b));
  // Split into even and odd nodes, keyed in reverse.
  QMP_comm_t half = nullptr;
  ASSERT_EQ(QMP_comm_split(def, me() % 2, -me(), &half), QMP_SUCCESS);
  const int size = (p + 1 - me() % 2) / 2;
  EXPECT_EQ(QMP_comm_get_number_of_nodes(half), size);
  EXPECT_EQ(QMP_comm_get_node_number(half), size - 1 - me() / 2);
  EXPECT_EQ(QMP_comm_get_color(half), me() % 2);
  EXPECT_EQ(QMP_comm_get_key(half), -me());
  EXPECT_EQ(QMP_comm_get_number_of_colors(half), p > 1 ? 2 : 1);
  int one = 1;
  ASSERT_EQ(QMP_comm_sum_int(half, &one), QMP_SUCCESS);
  EXPECT_EQ(one, size);
  ASSERT_EQ(QMP_comm_free(half), QMP_SUCCESS);
  EXPECT_EQ(QMP_comm_free(def), QMP_INVALID_ARG);
}

// The start of this job's segment names: qmprun hands the job id to its
// ranks (MESHMP_JOB); under PMIx the test harness's MESHMP_JOB_PREFIX
// begins it. Empty if neither is set.
std::string job_prefix() {
  if (const char* j = std::getenv("MESHMP_JOB")) return std::string("meshmp-") + j + "-";
  if (const char* p = std::getenv("MESHMP_JOB_PREFIX")) return std::string("meshmp-") + p;
  return "";
}

// This rank's registered-memory arenas: nameless memfds it holds open
// ("/memfd:meshmp-arena" in /proc/self/fd).
int registered_regions() {
  int count = 0;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  while (dirent* e = readdir(d)) {
    char target[256];
    const std::string link = std::string("/proc/self/fd/") + e->d_name;
    const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
    count += n > 0 && std::string(target, static_cast<size_t>(n)).rfind("/memfd:meshmp-arena", 0) == 0;
  }
  closedir(d);
  return count;
}

// Names in /dev/shm of this job's registered memory ("...-m<rank>-<n>").
int named_regions() {
  const std::string prefix = job_prefix();
  const std::string mine = "-m" + std::to_string(me()) + "-";
  int count = 0;
  DIR* d = opendir("/dev/shm");
  if (!d) return -1;
  while (dirent* e = readdir(d))
    count += std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0 && std::strstr(e->d_name, mine.c_str());
  closedir(d);
  return count;
}

TEST(Qmp, MemoryIsAligned) {
  for (int flags : {QMP_MEM_DEFAULT, QMP_MEM_COMMS, QMP_MEM_FAST, QMP_MEM_NONCACHE})
    for (size_t align : {size_t{8}, size_t{64}, size_t{4096}, size_t{65536}}) {
      QMP_mem_t* m = QMP_allocate_aligned_memory(1000, align, flags);
      ASSERT_NE(m, nullptr);
      void* p = QMP_get_memory_pointer(m);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % align, 0u) << align;
      std::memset(p, 1, 1000);
      QMP_free_memory(m);
    }
  // With peers to write into it, communication memory is registered: it
  // comes from a pool of shared regions that are made once and kept, so
  // allocating and freeing over and over makes no new region.
  const char* provider = std::getenv("MESHMP_PROVIDER");
  // (tcp registers no memory; ofi registers with fi_mr_reg, not in /dev/shm.)
  const bool shm = !provider || (std::strcmp(provider, "tcp") != 0 && std::strcmp(provider, "ofi") != 0);
  if (nodes() > 1 && shm && !job_prefix().empty()) {
    QMP_mem_t* first = QMP_allocate_aligned_memory(1 << 20, 64, QMP_MEM_COMMS);
    ASSERT_NE(first, nullptr);
    const int pool = registered_regions();
    EXPECT_GE(pool, 1);
    EXPECT_EQ(named_regions(), 0) << "registered memory has no name in /dev/shm";
    QMP_free_memory(first);
    EXPECT_EQ(registered_regions(), pool) << "a freed buffer's region stays for the next";
    for (int i = 0; i < 1000; ++i) {
      QMP_mem_t* m = QMP_allocate_aligned_memory(1024 * (1 + i % 96), 64, QMP_MEM_COMMS);
      ASSERT_NE(m, nullptr);
      QMP_free_memory(m);
    }
    EXPECT_EQ(registered_regions(), pool);
  }
  QMP_mem_t* d = QMP_allocate_memory(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(QMP_get_memory_pointer(d)) % QMP_ALIGN_DEFAULT, 0u);
  QMP_free_memory(d);
  EXPECT_EQ(QMP_allocate_aligned_memory(10, 3, 0), nullptr);
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_INVALID_ARG);
}

TEST(Qmp, MisuseReturnsTheFittingStatus) {
  int v = 0;
  QMP_msgmem_t m = QMP_declare_msgmem(&v, sizeof v);
  EXPECT_EQ(QMP_declare_send_relative(m, 99, 1, 0), nullptr);
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_INVALID_ARG);
  EXPECT_NE(std::string(QMP_get_error_string(nullptr)).find("QMP_declare_send_relative: axis 99"), std::string::npos);
  EXPECT_EQ(QMP_declare_send_relative(m, 0, 2, 0), nullptr);
  EXPECT_NE(std::string(QMP_get_error_string(nullptr)).find("dir must be +1 or -1"), std::string::npos);
  EXPECT_EQ(QMP_declare_receive_relative(nullptr, 0, 1, 0), nullptr);
  EXPECT_NE(std::string(QMP_get_error_string(nullptr)).find("msgmem is NULL"), std::string::npos);
  EXPECT_EQ(QMP_declare_send_to(m, nodes(), 0), nullptr);
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_NODE_OUTRANGE);
  EXPECT_EQ(QMP_start(nullptr), QMP_INVALID_ARG);
  EXPECT_EQ(QMP_clear_to_send(nullptr, QMP_CTS_READY), QMP_INVALID_ARG);
  EXPECT_EQ(QMP_sum_float_array(nullptr, -1), QMP_INVALID_ARG);
  EXPECT_EQ(QMP_get_hidden_comm(QMP_comm_get_default(), nullptr), QMP_INVALID_ARG);
  QMP_free_msgmem(m);
  for (int code = QMP_SUCCESS; code <= QMP_MAX_STATUS; code = code == 0 ? QMP_ERROR : code + 1)
    EXPECT_NE(std::string(QMP_error_string(static_cast<QMP_status_t>(code))), "") << code;
  EXPECT_EQ(QMP_verbose(3), 0);
  EXPECT_EQ(QMP_verbose(0), 3);
  EXPECT_EQ(QMP_profcontrol(1), 0);
  EXPECT_EQ(QMP_profcontrol(0), 1);
}

TEST(Qmp, TimeAdvancesAndIsCountedWhileProfiling) {
  const double t0 = QMP_time();
  QMP_reset_total_qmp_time();
  for (int i = 0; i < 10; ++i) QMP_barrier();
  EXPECT_GE(QMP_time(), t0);
  EXPECT_EQ(QMP_get_total_qmp_time(), 0.0);  // profiling is off by default: nothing counted
  EXPECT_EQ(QMP_profcontrol(1), 0);
  for (int i = 0; i < 10; ++i) QMP_barrier();
  const double counted = QMP_get_total_qmp_time();
  EXPECT_GT(counted, 0.0);  // the barriers made while profiling
  EXPECT_LE(counted, QMP_time() - t0 + 1e-6);
  EXPECT_EQ(QMP_profcontrol(0), 1);
  for (int i = 0; i < 10; ++i) QMP_barrier();
  EXPECT_EQ(QMP_get_total_qmp_time(), counted);  // off again
  QMP_reset_total_qmp_time();
  EXPECT_EQ(QMP_get_total_qmp_time(), 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 3;
  int rc = RUN_ALL_TESTS();
  QMP_finalize_msg_passing();
  return rc;
}
