// One-sided communication (MPI-3.1 chapter 11) is not provided: every call
// of the chapter links, and fails with MPI_ERR_UNSUPPORTED_OPERATION naming
// itself -- raised on the communicator's handler for the creating calls,
// on MPI_COMM_WORLD's for the rest -- and leaves MPI usable.
#include <mpi.h>

#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;

std::string text_of(int code) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, s, &len);
  return std::string(s, static_cast<std::size_t>(len));
}

int handler_calls = 0;
int handler_code = MPI_SUCCESS;
MPI_Comm handler_comm = MPI_COMM_NULL;
void count_calls(MPI_Comm* comm, int* code, ...) {
  ++handler_calls;
  handler_code = *code;
  handler_comm = *comm;
}

TEST(OneSided, CreatingAWindowFailsOnTheCommunicatorsHandler) {
  MPI_Comm comm;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &comm), MPI_SUCCESS);
  MPI_Errhandler counting;
  ASSERT_EQ(MPI_Comm_create_errhandler(count_calls, &counting), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_set_errhandler(comm, counting), MPI_SUCCESS);
  std::vector<double> mem(64);
  void* base = nullptr;
  const std::vector<std::pair<std::string, std::function<int(MPI_Win*)>>> creators = {
      {"MPI_Win_create",
       [&](MPI_Win* w) { return MPI_Win_create(mem.data(), 512, 8, MPI_INFO_NULL, comm, w); }},
      {"MPI_Win_allocate", [&](MPI_Win* w) { return MPI_Win_allocate(512, 8, MPI_INFO_NULL, comm, &base, w); }},
      {"MPI_Win_allocate_shared",
       [&](MPI_Win* w) { return MPI_Win_allocate_shared(512, 8, MPI_INFO_NULL, comm, &base, w); }},
      {"MPI_Win_create_dynamic", [&](MPI_Win* w) { return MPI_Win_create_dynamic(MPI_INFO_NULL, comm, w); }},
  };
  for (const auto& [name, create] : creators) {
    handler_calls = 0;
    MPI_Win win = 12345;
    const int rc = create(&win);
    EXPECT_EQ(error_class(rc), MPI_ERR_UNSUPPORTED_OPERATION) << name;
    EXPECT_EQ(win, MPI_WIN_NULL) << name;
    EXPECT_EQ(handler_calls, 1) << name;
    EXPECT_EQ(handler_code, rc) << name;
    EXPECT_EQ(handler_comm, comm) << name;
    EXPECT_NE(text_of(rc).find(name + ": one-sided communication"), std::string::npos) << text_of(rc);
  }
  EXPECT_EQ(base, nullptr);
  MPI_Comm_free(&comm);
  MPI_Errhandler_free(&counting);
}

TEST(OneSided, EveryCallOnAWindowFailsOnTheWorldsHandler) {
  mpitest::ErrorsReturn errors_return;
  MPI_Win win = MPI_WIN_NULL;
  MPI_Group group;
  MPI_Comm_group(MPI_COMM_WORLD, &group);
  double x = 1, y = 2, z = 3;
  MPI_Aint size = 0;
  int i = 0, flag = 0;
  void* ptr = nullptr;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  char name[MPI_MAX_OBJECT_NAME];
  const std::vector<std::pair<std::string, std::function<int()>>> calls = {
      {"MPI_Win_shared_query", [&] { return MPI_Win_shared_query(win, 0, &size, &i, &ptr); }},
      {"MPI_Win_attach", [&] { return MPI_Win_attach(win, &x, 8); }},
      {"MPI_Win_detach", [&] { return MPI_Win_detach(win, &x); }},
      {"MPI_Win_free", [&] { return MPI_Win_free(&win); }},
      {"MPI_Win_get_group", [&] { return MPI_Win_get_group(win, &group); }},
      {"MPI_Win_set_info", [&] { return MPI_Win_set_info(win, MPI_INFO_NULL); }},
      {"MPI_Win_get_info", [&] { return MPI_Win_get_info(win, &info); }},
      {"MPI_Put", [&] { return MPI_Put(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win); }},
      {"MPI_Get", [&] { return MPI_Get(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win); }},
      {"MPI_Accumulate", [&] { return MPI_Accumulate(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win); }},
      {"MPI_Get_accumulate",
       [&] { return MPI_Get_accumulate(&x, 1, MPI_DOUBLE, &y, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win); }},
      {"MPI_Fetch_and_op", [&] { return MPI_Fetch_and_op(&x, &y, MPI_DOUBLE, 0, 0, MPI_SUM, win); }},
      {"MPI_Compare_and_swap", [&] { return MPI_Compare_and_swap(&x, &y, &z, MPI_DOUBLE, 0, 0, win); }},
      {"MPI_Rput", [&] { return MPI_Rput(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win, &req); }},
      {"MPI_Rget", [&] { return MPI_Rget(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win, &req); }},
      {"MPI_Raccumulate",
       [&] { return MPI_Raccumulate(&x, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win, &req); }},
      {"MPI_Rget_accumulate",
       [&] {
         return MPI_Rget_accumulate(&x, 1, MPI_DOUBLE, &y, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win, &req);
       }},
      {"MPI_Win_fence", [&] { return MPI_Win_fence(MPI_MODE_NOPRECEDE, win); }},
      {"MPI_Win_start", [&] { return MPI_Win_start(group, 0, win); }},
      {"MPI_Win_complete", [&] { return MPI_Win_complete(win); }},
      {"MPI_Win_post", [&] { return MPI_Win_post(group, MPI_MODE_NOCHECK, win); }},
      {"MPI_Win_wait", [&] { return MPI_Win_wait(win); }},
      {"MPI_Win_test", [&] { return MPI_Win_test(win, &flag); }},
      {"MPI_Win_lock", [&] { return MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win); }},
      {"MPI_Win_lock_all", [&] { return MPI_Win_lock_all(0, win); }},
      {"MPI_Win_unlock", [&] { return MPI_Win_unlock(0, win); }},
      {"MPI_Win_unlock_all", [&] { return MPI_Win_unlock_all(win); }},
      {"MPI_Win_flush", [&] { return MPI_Win_flush(0, win); }},
      {"MPI_Win_flush_all", [&] { return MPI_Win_flush_all(win); }},
      {"MPI_Win_flush_local", [&] { return MPI_Win_flush_local(0, win); }},
      {"MPI_Win_flush_local_all", [&] { return MPI_Win_flush_local_all(win); }},
      {"MPI_Win_sync", [&] { return MPI_Win_sync(win); }},
      {"MPI_Win_create_keyval",
       [&] { return MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &i, nullptr); }},
      {"MPI_Win_free_keyval", [&] { return MPI_Win_free_keyval(&i); }},
      {"MPI_Win_set_attr", [&] { return MPI_Win_set_attr(win, 16, &x); }},
      {"MPI_Win_get_attr", [&] { return MPI_Win_get_attr(win, MPI_WIN_BASE, &ptr, &flag); }},
      {"MPI_Win_delete_attr", [&] { return MPI_Win_delete_attr(win, 16); }},
      {"MPI_Win_set_name", [&] { return MPI_Win_set_name(win, "halo"); }},
      {"MPI_Win_get_name", [&] { return MPI_Win_get_name(win, name, &i); }},
      {"MPI_Win_create_errhandler", [&] { return MPI_Win_create_errhandler(count_calls, &eh); }},
      {"MPI_Win_set_errhandler", [&] { return MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN); }},
      {"MPI_Win_get_errhandler", [&] { return MPI_Win_get_errhandler(win, &eh); }},
      {"MPI_Win_call_errhandler", [&] { return MPI_Win_call_errhandler(win, MPI_ERR_OTHER); }},
  };
  for (const auto& [call, run] : calls) {
    const int rc = run();
    EXPECT_EQ(error_class(rc), MPI_ERR_UNSUPPORTED_OPERATION) << call;
    EXPECT_EQ(text_of(rc).rfind(call + ": one-sided communication", 0), 0u) << text_of(rc);
  }
  EXPECT_EQ(req, MPI_REQUEST_NULL);  // (no request was made)
  MPI_Group_free(&group);
  // MPI goes on.
  int sum = 0, one = 1;
  ASSERT_EQ(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(sum, mpitest::size());
}

TEST(OneSided, NoFortranHandleIsAWindow) {
  EXPECT_EQ(MPI_Win_f2c(0), MPI_WIN_NULL);
  EXPECT_EQ(MPI_Win_f2c(7), MPI_WIN_NULL);
  EXPECT_EQ(MPI_Win_c2f(MPI_WIN_NULL), 0);
}

}  // namespace

MPI_TEST_MAIN()
