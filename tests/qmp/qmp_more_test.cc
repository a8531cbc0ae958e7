// The rest of qmp.h: every QMP_comm_ form on a split communicator with its
// own logical topology, QMP_layout_grid and the subgrid queries, an explicit
// topology map, strided-array memory, QMP_change_address_multiple, handle
// errors, the communicator setters and the output format.
#include <gtest/gtest.h>
#include <qmp.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/memory.h"

namespace {

int nodes() { return QMP_get_number_of_nodes(); }
int me() { return QMP_get_node_number(); }

// Runs f with fd `fd` (1 or 2) captured; returns what was written.
template <typename F>
std::string capture(int fd, F f) {
  std::fflush(nullptr);
  int saved = ::dup(fd), p[2];
  EXPECT_EQ(::pipe(p), 0);
  ::dup2(p[1], fd);
  f();
  std::fflush(nullptr);
  ::dup2(saved, fd);
  ::close(saved);
  ::close(p[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(p[0], buf, sizeof buf)) > 0) out.append(buf, n);
  ::close(p[0]);
  return out;
}

TEST(QmpMore, LayoutGridDeclaresABalancedTopology) {
  const int lattice[4] = {8, 8, 8, 16};
  ASSERT_EQ(QMP_layout_grid(lattice, 4), QMP_SUCCESS);
  ASSERT_EQ(QMP_logical_topology_is_declared(), QMP_TRUE);
  const int* ld = QMP_get_logical_dimensions();
  const int* sub = QMP_get_subgrid_dimensions();
  int prod = 1, sites = 1;
  for (int i = 0; i < 4; ++i) {
    prod *= ld[i];
    EXPECT_EQ(sub[i] * ld[i], lattice[i]) << i;
    sites *= sub[i];
  }
  EXPECT_EQ(prod, nodes());
  EXPECT_EQ(QMP_get_number_of_subgrid_sites(), sites);
  EXPECT_EQ(sites * nodes(), 8 * 8 * 8 * 16);
  // USQCD QMP's layouts of this lattice (from the anchor library): t is
  // split first and keeps being split while it stays longest; on 8 nodes the
  // tie of x, y and z at 8 goes to the last, z.
  const std::vector<int> want = nodes() == 8 ? std::vector<int>{1, 1, 2, 4} : std::vector<int>{1, 1, 1, nodes()};
  EXPECT_EQ(std::vector<int>(ld, ld + 4), want);
  // With the topology now declared, t = 15 cannot be split over its nodes.
  const int odd[4] = {8, 8, 8, 15};
  if (nodes() > 1) {
    EXPECT_EQ(QMP_layout_grid(odd, 4), QMP_INVALID_ARG);
  }
}

// Everything again through the QMP_comm_ forms, on the communicator of the
// even or the odd nodes with an explicit topology map.
TEST(QmpMore, CommFormsOnASplitCommunicator) {
  QMP_comm_t half = nullptr;
  ASSERT_EQ(QMP_comm_split(QMP_comm_get_default(), me() % 2, me(), &half), QMP_SUCCESS);
  const int n = QMP_comm_get_number_of_nodes(half), k = QMP_comm_get_node_number(half);
  EXPECT_EQ(QMP_comm_is_primary_node(half), k == 0 ? QMP_TRUE : QMP_FALSE);
  EXPECT_EQ(QMP_comm_logical_topology_is_declared(half), QMP_FALSE);
  const int dims[2] = {1, n}, map[2] = {1, 0};
  // A map of another length, one that is not a permutation, or none: refused, naming the map.
  auto last_error = [] { return std::string(QMP_get_error_string(nullptr)); };
  EXPECT_EQ(QMP_comm_declare_logical_topology_map(half, dims, 2, map, 1), QMP_INVALID_ARG);
  EXPECT_NE(last_error().find("map has 1 entries but the topology 2 dimensions"), std::string::npos) << last_error();
  const int twice[2] = {1, 1};
  EXPECT_EQ(QMP_comm_declare_logical_topology_map(half, dims, 2, twice, 2), QMP_INVALID_ARG);
  EXPECT_NE(last_error().find("map must be a permutation of 0..1"), std::string::npos) << last_error();
  EXPECT_EQ(QMP_comm_declare_logical_topology_map(half, dims, 2, nullptr, 2), QMP_INVALID_ARG);
  EXPECT_EQ(QMP_comm_logical_topology_is_declared(half), QMP_FALSE);
  ASSERT_EQ(QMP_comm_declare_logical_topology_map(half, dims, 2, map, 2), QMP_SUCCESS);
  EXPECT_EQ(QMP_comm_declare_logical_topology(half, dims, 2), QMP_TOPOLOGY_EXISTS);
  EXPECT_EQ(QMP_comm_logical_topology_is_declared(half), QMP_TRUE);
  EXPECT_EQ(QMP_comm_get_logical_number_of_dimensions(half), 2);
  EXPECT_EQ(QMP_comm_get_logical_dimensions(half)[1], n);
  const int* c = QMP_comm_get_logical_coordinates(half);
  EXPECT_EQ(c[0], 0);
  EXPECT_EQ(c[1], k);
  int* from = QMP_comm_get_logical_coordinates_from(half, n - 1);
  ASSERT_NE(from, nullptr);
  EXPECT_EQ(from[1], n - 1);
  int from2[2];
  QMP_comm_get_logical_coordinates_from2(half, from2, n - 1);
  EXPECT_EQ(from2[1], n - 1);
  EXPECT_EQ(QMP_comm_get_node_number_from(half, from), n - 1);
  std::free(from);

  // A ring along axis 1 of the split communicator.
  int out = me(), in = -1;
  QMP_msgmem_t mo = QMP_declare_msgmem(&out, sizeof out), mi = QMP_declare_msgmem(&in, sizeof in);
  QMP_msghandle_t hs[2] = {QMP_comm_declare_send_relative(half, mo, 1, +1, 0),
                           QMP_comm_declare_receive_relative(half, mi, 1, -1, 0)};
  QMP_msghandle_t ring = QMP_declare_multiple(hs, 2);
  ASSERT_EQ(QMP_start(ring), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait(ring), QMP_SUCCESS);
  const int prev_k = (k + n - 1) % n;
  EXPECT_EQ(in, 2 * prev_k + me() % 2);  // world node of the previous member
  QMP_free_msghandle(ring);
  // send_to / receive_from in the split communicator's numbering.
  QMP_msghandle_t to = QMP_comm_declare_send_to(half, mo, (k + 1) % n, 0);
  QMP_msghandle_t fr = QMP_comm_declare_receive_from(half, mi, prev_k, 0);
  in = -1;
  ASSERT_EQ(QMP_start(fr), QMP_SUCCESS);
  ASSERT_EQ(QMP_start(to), QMP_SUCCESS);
  QMP_msghandle_t two[2] = {to, fr};
  ASSERT_EQ(QMP_wait_all(two, 2), QMP_SUCCESS);
  EXPECT_EQ(in, 2 * prev_k + me() % 2);
  QMP_free_msghandle(to);
  QMP_free_msghandle(fr);
  QMP_free_msgmem(mo);
  QMP_free_msgmem(mi);

  // Collectives in their QMP_comm_ forms.
  ASSERT_EQ(QMP_comm_barrier(half), QMP_SUCCESS);
  int b = k == 0 ? 42 + me() % 2 : 0;
  ASSERT_EQ(QMP_comm_broadcast(half, &b, sizeof b), QMP_SUCCESS);
  EXPECT_EQ(b, 42 + me() % 2);
  int si = 1;
  uint64_t su = 2;
  float sf = 0.5f;
  double sd = 0.25;
  long double sl = 1;
  double se = 1;
  ASSERT_EQ(QMP_comm_sum_int(half, &si), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_sum_uint64_t(half, &su), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_sum_float(half, &sf), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_sum_double(half, &sd), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_sum_long_double(half, &sl), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_sum_double_extended(half, &se), QMP_SUCCESS);
  EXPECT_EQ(si, n);
  EXPECT_EQ(su, 2u * n);
  EXPECT_EQ(sf, 0.5f * n);
  EXPECT_EQ(sd, 0.25 * n);
  EXPECT_EQ(static_cast<double>(sl), n);
  EXPECT_EQ(se, n);
  float fa[2] = {1, 2};
  double da[2] = {3, 4};
  long double la[2] = {5, 6};
  ASSERT_EQ(QMP_comm_sum_float_array(half, fa, 2), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_sum_double_array(half, da, 2), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_sum_long_double_array(half, la, 2), QMP_SUCCESS);
  EXPECT_EQ(fa[1], 2.0f * n);
  EXPECT_EQ(da[1], 4.0 * n);
  EXPECT_EQ(static_cast<double>(la[1]), 6.0 * n);
  float fx = k, fn = k;
  double dx = k, dn = k;
  unsigned long x = 1ul << k;
  ASSERT_EQ(QMP_comm_max_float(half, &fx), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_min_float(half, &fn), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_max_double(half, &dx), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_min_double(half, &dn), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_xor_ulong(half, &x), QMP_SUCCESS);
  EXPECT_EQ(fx, n - 1.0f);
  EXPECT_EQ(fn, 0.0f);
  EXPECT_EQ(dx, n - 1.0);
  EXPECT_EQ(dn, 0.0);
  EXPECT_EQ(x, (1ul << n) - 1);
  int prod = k + 1;
  ASSERT_EQ(QMP_comm_binary_reduction(half, &prod, sizeof prod,
                                      [](void* io, void* in) { *static_cast<int*>(io) *= *static_cast<int*>(in); }),
            QMP_SUCCESS);
  int fact = 1;
  for (int i = 2; i <= n; ++i) fact *= i;
  EXPECT_EQ(prod, fact);
  ASSERT_EQ(QMP_comm_free(half), QMP_SUCCESS);
}

TEST(QmpMore, StridedArrayMemoryAndChangeAddressMultiple) {
  const int next = (me() + 1) % nodes(), prev = (me() + nodes() - 1) % nodes();
  // Two strided pieces: every 3rd int of a[0..29] and every 2nd of b[0..9].
  std::vector<int> a(30), b(10), ra(30, -1), rb(10, -1);
  for (int i = 0; i < 30; ++i) a[i] = me() * 100 + i;
  for (int i = 0; i < 10; ++i) b[i] = me() * 100 + 50 + i;
  void* sbase[2] = {a.data(), b.data()};
  void* rbase[2] = {ra.data(), rb.data()};
  size_t blk[2] = {sizeof(int), sizeof(int)};
  int nblk[2] = {10, 5};
  ptrdiff_t stride[2] = {3 * sizeof(int), 2 * sizeof(int)};
  QMP_msgmem_t sm = QMP_declare_strided_array_msgmem(sbase, blk, nblk, stride, 2);
  QMP_msgmem_t rm = QMP_declare_strided_array_msgmem(rbase, blk, nblk, stride, 2);
  QMP_msghandle_t hs[2] = {QMP_declare_send_to(sm, next, 0), QMP_declare_receive_from(rm, prev, 0)};
  QMP_msghandle_t both = QMP_declare_multiple(hs, 2);
  ASSERT_EQ(QMP_start(both), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait(both), QMP_SUCCESS);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(ra[i], i % 3 == 0 ? prev * 100 + i : -1) << i;
  for (int i = 0; i < 10; ++i) EXPECT_EQ(rb[i], i % 2 == 0 ? prev * 100 + 50 + i : -1) << i;
  for (QMP_clear_to_send_t cts : {QMP_CTS_DISABLED, QMP_CTS_NOT_READY, QMP_CTS_READY})
    EXPECT_EQ(QMP_clear_to_send(both, cts), QMP_SUCCESS);
  EXPECT_EQ(QMP_clear_to_send(both, static_cast<QMP_clear_to_send_t>(7)), QMP_INVALID_ARG);
  void* addrs[2] = {a.data(), ra.data()};
  EXPECT_EQ(QMP_change_address_multiple(both, addrs, 1), QMP_INVALID_ARG);
  QMP_free_msghandle(both);
  QMP_free_msgmem(sm);
  QMP_free_msgmem(rm);

  // Contiguous members move with QMP_change_address_multiple.
  long x = me(), y = -1, x2 = me() + 500, y2 = -1;
  QMP_msgmem_t mx = QMP_declare_msgmem(&x, sizeof x), my = QMP_declare_msgmem(&y, sizeof y);
  QMP_msghandle_t pair[2] = {QMP_declare_send_to(mx, next, 0), QMP_declare_receive_from(my, prev, 0)};
  QMP_msghandle_t moved = QMP_declare_multiple(pair, 2);
  void* to[2] = {&x2, &y2};
  ASSERT_EQ(QMP_change_address_multiple(moved, to, 2), QMP_SUCCESS);
  ASSERT_EQ(QMP_start(moved), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait(moved), QMP_SUCCESS);
  EXPECT_EQ(y2, prev + 500);
  EXPECT_EQ(y, -1);
  QMP_free_msghandle(moved);
  QMP_free_msgmem(mx);
  QMP_free_msgmem(my);
}

// QMP_change_address on a strided array over several bases moves the whole
// pattern: every base keeps its offset from base[0] (as USQCD QMP does).
TEST(QmpMore, ChangeAddressMovesAStridedArrayOverSeveralBases) {
  const int next = (me() + 1) % nodes(), prev = (me() + nodes() - 1) % nodes();
  // Two pieces of one field: every 3rd int of f[0..29] and every 2nd of f[40..49].
  std::vector<int> f(50), g(50), rf(50, -1), rg(50, -1);
  for (int i = 0; i < 50; ++i) {
    f[i] = me() * 1000 + i;
    g[i] = me() * 1000 + 500 + i;
  }
  size_t blk[2] = {sizeof(int), sizeof(int)};
  int nblk[2] = {10, 5};
  ptrdiff_t stride[2] = {3 * sizeof(int), 2 * sizeof(int)};
  void* sbase[2] = {f.data(), f.data() + 40};
  void* rbase[2] = {rf.data(), rf.data() + 40};
  QMP_msgmem_t sm = QMP_declare_strided_array_msgmem(sbase, blk, nblk, stride, 2);
  QMP_msgmem_t rm = QMP_declare_strided_array_msgmem(rbase, blk, nblk, stride, 2);
  QMP_msghandle_t s = QMP_declare_send_to(sm, next, 0), r = QMP_declare_receive_from(rm, prev, 0);
  ASSERT_EQ(QMP_change_address(s, g.data()), QMP_SUCCESS);
  ASSERT_EQ(QMP_change_address(r, rg.data()), QMP_SUCCESS);
  ASSERT_EQ(QMP_start(r), QMP_SUCCESS);
  ASSERT_EQ(QMP_start(s), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait(r), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait(s), QMP_SUCCESS);
  for (int i = 0; i < 50; ++i) {
    const bool sent = (i < 30 && i % 3 == 0) || (i >= 40 && (i - 40) % 2 == 0);
    EXPECT_EQ(rg[i], sent ? prev * 1000 + 500 + i : -1) << i;
    EXPECT_EQ(rf[i], -1) << i;
  }
  QMP_free_msghandle(s);
  QMP_free_msghandle(r);
  QMP_free_msgmem(sm);
  QMP_free_msgmem(rm);
}

// A receive too small for the message fails with QMP_MEMSIZE_ERR, and the
// handle says so.
TEST(QmpMore, HandleErrorsAreReported) {
  if (nodes() < 2) return;
  const int next = (me() + 1) % nodes(), prev = (me() + nodes() - 1) % nodes();
  char big[64] = {}, small[16];
  QMP_msgmem_t bm = QMP_declare_msgmem(big, sizeof big), sm = QMP_declare_msgmem(small, sizeof small);
  QMP_msghandle_t s = QMP_declare_send_to(bm, next, 0), r = QMP_declare_receive_from(sm, prev, 0);
  ASSERT_EQ(QMP_start(r), QMP_SUCCESS);
  ASSERT_EQ(QMP_start(s), QMP_SUCCESS);
  EXPECT_EQ(QMP_wait(s), QMP_SUCCESS);
  EXPECT_EQ(QMP_wait(r), QMP_MEMSIZE_ERR);
  EXPECT_EQ(QMP_get_error_number(r), QMP_MEMSIZE_ERR);
  EXPECT_NE(std::string(QMP_get_error_string(r)).find("more than 16 bytes"), std::string::npos)
      << QMP_get_error_string(r);
  EXPECT_EQ(QMP_get_error_number(s), QMP_SUCCESS);
  QMP_free_msghandle(s);
  QMP_free_msghandle(r);
  QMP_free_msgmem(bm);
  QMP_free_msgmem(sm);
}

// A broadcast whose nodes give different sizes: each node other than node 0
// gets QMP_MEMSIZE_ERR, whether node 0 sent more or less, and the job goes
// on (MPICH's errors/coll/bcastlength, on QMP).
TEST(QmpMore, BroadcastOfDifferentSizesFailsOnTheOtherNodes) {
  if (nodes() < 2) return;
  for (const std::size_t root_bytes : {std::size_t{8}, std::size_t{64}, std::size_t{80000}}) {
    SCOPED_TRACE("node 0 sends " + std::to_string(root_bytes) + " bytes, the others take 32 or 40000");
    const std::size_t mine = me() == 0 ? root_bytes : (root_bytes > 1000 ? 40000 : 32);
    std::vector<char> buf(std::max(root_bytes, mine) + 1, me() == 0 ? 'r' : 'x');
    const QMP_status_t st = QMP_broadcast(buf.data(), mine);
    if (me() == 0) {
      EXPECT_EQ(st, QMP_SUCCESS);
    } else {
      EXPECT_EQ(st, QMP_MEMSIZE_ERR);
      EXPECT_EQ(buf[0], 'r');
      EXPECT_EQ(buf[mine], 'x') << "nothing past this node's size";
    }
  }
  int b = me() == 0 ? 7 : 0;
  ASSERT_EQ(QMP_broadcast(&b, sizeof b), QMP_SUCCESS);
  EXPECT_EQ(b, 7);
}

// Misuse of handles returns a status instead of hanging or double-freeing
// (issue 15, item 5).
TEST(QmpMore, StartedHandlesAreNotFreedAndHandlesJoinOneMultipleOnce) {
  const int next = (me() + 1) % nodes(), prev = (me() + nodes() - 1) % nodes();
  int out = me(), in = -1;
  QMP_msgmem_t om = QMP_declare_msgmem(&out, sizeof out), im = QMP_declare_msgmem(&in, sizeof in);
  QMP_msghandle_t s = QMP_declare_send_to(om, next, 0), r = QMP_declare_receive_from(im, prev, 0);
  // The same handle twice, or a handle of another multiple: refused.
  QMP_msghandle_t twice[2] = {r, r};
  EXPECT_EQ(QMP_declare_multiple(twice, 2), nullptr);
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_INVALID_ARG);
  QMP_msghandle_t one[1] = {r};
  QMP_msghandle_t m = QMP_declare_multiple(one, 1);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(QMP_declare_multiple(one, 1), nullptr) << "r already belongs to m";
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_INVALID_ARG);
  QMP_free_msghandle(r);  // a member: not freed on its own
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_INVALID_OP);
  // A started receive (its message not sent yet): freeing it returns at
  // once, refused, and the handle still works.
  ASSERT_EQ(QMP_start(m), QMP_SUCCESS);
  QMP_free_msghandle(m);
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_INVALID_OP);
  ASSERT_EQ(QMP_start(s), QMP_SUCCESS);
  EXPECT_EQ(QMP_wait(s), QMP_SUCCESS);
  EXPECT_EQ(QMP_wait(m), QMP_SUCCESS);
  EXPECT_EQ(in, prev);
  QMP_free_msghandle(m);
  QMP_free_msghandle(s);
  QMP_free_msgmem(om);
  QMP_free_msgmem(im);
}

// QMP_THREAD_SERIALIZED: QMP calls from any thread, one at a time. Each
// round, nodes of one parity call from a new thread and the others from the
// main one; a ring's handles are started on one thread and waited for on
// the other.
TEST(QmpMore, SerializedCallsFromAnyThread) {
  const int next = (me() + 1) % nodes(), prev = (me() + nodes() - 1) % nodes();
  for (int round = 0; round < 4; ++round) {
    int out = me() * 10 + round, in = -1, sum = -1;
    double value = -1;
    QMP_msgmem_t om = QMP_declare_msgmem(&out, sizeof out), im = QMP_declare_msgmem(&in, sizeof in);
    QMP_msghandle_t s = QMP_declare_send_to(om, next, 0), r = QMP_declare_receive_from(im, prev, 0);
    ASSERT_NE(s, nullptr);
    ASSERT_NE(r, nullptr);
    auto first = [&] {
      EXPECT_EQ(QMP_barrier(), QMP_SUCCESS);
      sum = me() + round;
      EXPECT_EQ(QMP_sum_int(&sum), QMP_SUCCESS);
      value = me() == 0 ? 0.5 + round : -1;
      EXPECT_EQ(QMP_broadcast(&value, sizeof value), QMP_SUCCESS);
      EXPECT_EQ(QMP_start(r), QMP_SUCCESS);
      EXPECT_EQ(QMP_start(s), QMP_SUCCESS);
    };
    auto then = [&] {
      EXPECT_EQ(QMP_wait(s), QMP_SUCCESS);
      EXPECT_EQ(QMP_wait(r), QMP_SUCCESS);
      EXPECT_EQ(QMP_barrier(), QMP_SUCCESS);
    };
    if ((me() + round) % 2) std::thread(first).join();
    else first();
    if ((me() + round) % 2) then();
    else std::thread(then).join();
    EXPECT_EQ(sum, nodes() * (nodes() - 1) / 2 + nodes() * round) << "round " << round;
    EXPECT_EQ(value, 0.5 + round) << "round " << round;
    EXPECT_EQ(in, prev * 10 + round) << "round " << round;
    QMP_free_msghandle(s);
    QMP_free_msghandle(r);
    QMP_free_msgmem(om);
    QMP_free_msgmem(im);
  }
}

// Running out of memory is a status, never an abort (issue 15, item 8): an
// impossible size, and a strided message memory of 2^31 - 1 blocks (32 GiB of
// runs) declared in a child whose address space is capped 256 MiB above what
// it already maps.
TEST(QmpMore, AllocationFailureReturnsNomem) {
  EXPECT_EQ(QMP_allocate_memory(SIZE_MAX - 8), nullptr) << "SIZE_MAX + alignment wraps around";
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_NOMEM_ERR);
  EXPECT_EQ(QMP_allocate_aligned_memory(SIZE_MAX / 2, 64, QMP_MEM_COMMS), nullptr);
  EXPECT_EQ(QMP_get_error_number(nullptr), QMP_NOMEM_ERR);

  if (::meshmp::testing_support::kAddressSanitizer)
    GTEST_SKIP() << "under ASan an address-space cap (RLIMIT_AS) stops the sanitizer's own mmaps, not meshmp's";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) [&]() noexcept {  // an escaping exception aborts the child, not the test
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t cap = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (256u << 20);
    const rlimit lim{cap, cap};
    if (pages == 0 || setrlimit(RLIMIT_AS, &lim) != 0) _exit(3);
    static char base[16];
    QMP_msgmem_t m = QMP_declare_strided_msgmem(base, 1, INT_MAX, 2);
    _exit(m == nullptr && QMP_get_error_number(nullptr) == QMP_NOMEM_ERR ? 0 : 4);
  }();
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: cannot cap the address space; 4: not NULL with QMP_NOMEM_ERR";
}

TEST(QmpMore, CommunicatorSetters) {
  QMP_comm_t job = QMP_comm_get_job(), alloc = QMP_comm_get_allocated(), split = nullptr;
  ASSERT_EQ(QMP_comm_split(job, 0, -me(), &split), QMP_SUCCESS);  // everyone, reversed
  ASSERT_EQ(QMP_comm_set_default(split), QMP_SUCCESS);
  EXPECT_EQ(QMP_comm_get_default(), split);
  EXPECT_EQ(QMP_get_node_number(), nodes() - 1 - QMP_comm_get_node_number(job));
  ASSERT_EQ(QMP_comm_set_job(split), QMP_SUCCESS);
  EXPECT_EQ(QMP_comm_get_job(), split);
  ASSERT_EQ(QMP_comm_set_allocated(split), QMP_SUCCESS);
  EXPECT_EQ(QMP_comm_get_allocated(), split);
  EXPECT_EQ(QMP_comm_set_default(nullptr), QMP_INVALID_ARG);
  ASSERT_EQ(QMP_comm_set_allocated(alloc), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_set_job(job), QMP_SUCCESS);
  ASSERT_EQ(QMP_comm_set_default(job), QMP_SUCCESS);
  EXPECT_EQ(QMP_get_node_number(), QMP_comm_get_node_number(job));
  ASSERT_EQ(QMP_comm_free(split), QMP_SUCCESS);
}

// As USQCD QMP prints (checked against it): on every node, one line per
// call, "QMP m<node>,n<nodes>@<host>: " (" info: ", " error: ") before the
// message and a newline after it, even when the message ends in one. The
// return value counts the message's characters only.
TEST(QmpMore, OutputIsPrefixedOnEveryNodeAndEndsTheLine) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string prefix = "QMP m" + std::to_string(me()) + ",n" + std::to_string(nodes()) + "@" + host;
  int n = 0;
  std::string err = capture(2, [&] { n = QMP_error("bad %d", 7); });
  EXPECT_EQ(err, prefix + " error: bad 7\n");
  EXPECT_EQ(n, 5);
  std::string out = capture(1, [&] { n = QMP_printf("x=%d", 3); });
  EXPECT_EQ(out, prefix + ": x=3\n");
  EXPECT_EQ(n, 3);
  out = capture(1, [&] { n = QMP_printf("nl\n"); });
  EXPECT_EQ(out, prefix + ": nl\n\n");
  EXPECT_EQ(n, 3);
  std::string info = capture(1, [&] { n = QMP_info("i=%s", "4"); });
  EXPECT_EQ(info, prefix + " info: i=4\n");
  std::string f = capture(2, [&] { n = QMP_fprintf(stderr, "to %s", "stderr"); });
  EXPECT_EQ(f, prefix + ": to stderr\n");
  EXPECT_EQ(n, 9);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (QMP_is_initialized() != QMP_FALSE) return 5;
  QMP_thread_level_t provided = QMP_THREAD_SINGLE;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_MULTIPLE, &provided) != QMP_SUCCESS) return 3;
  if (provided != QMP_THREAD_SERIALIZED) return 6;  // MULTIPLE is refused honestly
  int rc = RUN_ALL_TESTS();
  QMP_finalize_msg_passing();
  if (QMP_is_initialized() != QMP_FALSE) return 7;
  return rc;
}
