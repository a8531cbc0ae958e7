// QMP's command-line options, one scenario per run (chosen with
// --gtest_filter in tests/qmp/BUILD): -qmp-geom (and native), -qmp-alloc-map,
// -qmp-logic-map, -qmp-job; the options leave argv; calls before
// QMP_init_msg_passing return QMP_NOT_INITED.
#include <gtest/gtest.h>
#include <qmp.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<std::string> g_argv_after;
QMP_status_t g_before_status = QMP_SUCCESS;
QMP_comm_t g_before_comm = reinterpret_cast<QMP_comm_t>(1);
QMP_status_t g_before_sum = QMP_SUCCESS;

std::vector<int> vec(const int* p, int n) { return p ? std::vector<int>(p, p + n) : std::vector<int>(); }

TEST(Options, RemovedFromArgvAndNothingWorksBeforeInit) {
  for (const std::string& a : g_argv_after) EXPECT_EQ(a.rfind("-qmp-", 0), std::string::npos) << a;
  EXPECT_EQ(g_before_status, QMP_NOT_INITED);
  EXPECT_EQ(g_before_comm, nullptr);
  EXPECT_EQ(g_before_sum, QMP_NOT_INITED);
}

// -qmp-geom 2 2 2 -qmp-alloc-map 2 1 0: a mesh whose axis 2 varies fastest.
TEST(Options, GeomWithAllocMap) {
  EXPECT_EQ(QMP_get_msg_passing_type(), QMP_MESH);
  ASSERT_EQ(QMP_get_allocated_number_of_dimensions(), 3);
  EXPECT_EQ(vec(QMP_get_allocated_dimensions(), 3), (std::vector<int>{2, 2, 2}));
  const int r = QMP_get_node_number();
  EXPECT_EQ(vec(QMP_get_allocated_coordinates(), 3), (std::vector<int>{(r / 4) % 2, (r / 2) % 2, r % 2}));
}

// -qmp-geom native under qmprun --geometry 4x2: the launcher's torus.
TEST(Options, GeomNative) {
  EXPECT_EQ(QMP_get_msg_passing_type(), QMP_MESH);
  ASSERT_EQ(QMP_get_allocated_number_of_dimensions(), 2);
  EXPECT_EQ(vec(QMP_get_allocated_dimensions(), 2), (std::vector<int>{4, 2}));
  const int r = QMP_get_node_number();
  EXPECT_EQ(vec(QMP_get_allocated_coordinates(), 2), (std::vector<int>{r % 4, r / 4}));
}

// -qmp-geom 2 2 2 -qmp-job 2 1 1: two jobs of 1x2x2, split along axis 0.
TEST(Options, JobsOnAGrid) {
  EXPECT_EQ(QMP_get_number_of_jobs(), 2);
  const int world = QMP_comm_get_node_number(QMP_comm_get_allocated());
  EXPECT_EQ(QMP_get_job_number(), world % 2);
  EXPECT_EQ(QMP_get_number_of_nodes(), 4);
  EXPECT_EQ(QMP_get_node_number(), world / 2);  // job-local: x is split off
  ASSERT_EQ(QMP_get_number_of_job_geometry_dimensions(), 3);
  EXPECT_EQ(vec(QMP_get_job_geometry(), 3), (std::vector<int>{1, 2, 2}));
  EXPECT_NE(QMP_comm_get_job(), QMP_comm_get_allocated());
  // Collectives stay inside the job.
  int v = world;
  ASSERT_EQ(QMP_sum_int(&v), QMP_SUCCESS);
  EXPECT_EQ(v, world % 2 == 0 ? 0 + 2 + 4 + 6 : 1 + 3 + 5 + 7);
  int all = 1;
  ASSERT_EQ(QMP_comm_sum_int(QMP_comm_get_allocated(), &all), QMP_SUCCESS);
  EXPECT_EQ(all, 8);
  // QMP_layout_grid keeps the job's grid, as USQCD QMP does (4x2x4x8 on
  // this job: 4 1 2 8 per node with USQCD QMP over Open MPI).
  const int lattice[4] = {4, 2, 4, 8};
  ASSERT_EQ(QMP_layout_grid(lattice, 4), QMP_SUCCESS);
  EXPECT_EQ(vec(QMP_get_subgrid_dimensions(), 4), (std::vector<int>{4, 1, 2, 8}));
}

// -qmp-job 4 without a grid: four jobs of consecutive nodes.
TEST(Options, JobsByCount) {
  EXPECT_EQ(QMP_get_number_of_jobs(), 4);
  const int world = QMP_comm_get_node_number(QMP_comm_get_allocated());
  EXPECT_EQ(QMP_get_job_number(), world / 2);
  EXPECT_EQ(QMP_get_number_of_nodes(), 2);
  EXPECT_EQ(QMP_get_node_number(), world % 2);
  ASSERT_EQ(QMP_get_number_of_job_geometry_dimensions(), 1);
  EXPECT_EQ(QMP_get_job_geometry()[0], 2);
  // A relative exchange inside the job stays inside it.
  const int dims[1] = {2};
  ASSERT_EQ(QMP_declare_logical_topology(dims, 1), QMP_SUCCESS);
  int out = world, in = -1;
  QMP_msgmem_t mo = QMP_declare_msgmem(&out, sizeof out), mi = QMP_declare_msgmem(&in, sizeof in);
  QMP_msghandle_t hs[2] = {QMP_declare_send_relative(mo, 0, 1, 0), QMP_declare_receive_relative(mi, 0, -1, 0)};
  QMP_msghandle_t m = QMP_declare_multiple(hs, 2);
  ASSERT_EQ(QMP_start(m), QMP_SUCCESS);
  ASSERT_EQ(QMP_wait(m), QMP_SUCCESS);
  EXPECT_EQ(in, world ^ 1);
  QMP_free_msghandle(m);
  QMP_free_msgmem(mo);
  QMP_free_msgmem(mi);
}

// -qmp-logic-map 1 0: the declared topology numbers nodes with axis 1 fastest;
// a topology of three dimensions is refused.
TEST(Options, LogicMap) {
  // A declaration of another number of dimensions cannot take the map.
  const int dims3[3] = {2, 2, 2};
  EXPECT_EQ(QMP_declare_logical_topology(dims3, 3), QMP_INVALID_ARG);
  EXPECT_NE(std::string(QMP_get_error_string(nullptr)).find("-qmp-logic-map has 2 entries but the topology 3"),
            std::string::npos)
      << QMP_get_error_string(nullptr);
  EXPECT_EQ(QMP_logical_topology_is_declared(), QMP_FALSE);
  const int lattice[3] = {4, 4, 4};
  EXPECT_EQ(QMP_layout_grid(lattice, 3), QMP_INVALID_ARG);
  const int dims[2] = {4, 2};
  ASSERT_EQ(QMP_declare_logical_topology(dims, 2), QMP_SUCCESS);
  const int r = QMP_get_node_number();
  EXPECT_EQ(vec(QMP_get_logical_coordinates(), 2), (std::vector<int>{r / 2, r % 2}));
  const int c[2] = {3, 1};
  EXPECT_EQ(QMP_get_node_number_from(c), 3 * 2 + 1);
  // Collectives on the mapped topology still sum correctly.
  int v = r;
  ASSERT_EQ(QMP_sum_int(&v), QMP_SUCCESS);
  EXPECT_EQ(v, 28);
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  g_before_status = QMP_declare_logical_topology(nullptr, 0);
  g_before_comm = QMP_comm_get_default();
  int x = 0;
  g_before_sum = QMP_sum_int(&x);
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 3;
  for (int i = 0; i < argc; ++i) g_argv_after.push_back(argv[i]);
  if (argv[argc] != nullptr) return 4;
  int rc = RUN_ALL_TESTS();
  QMP_finalize_msg_passing();
  return rc;
}
