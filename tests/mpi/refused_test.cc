// The chapters meshmp does not provide, one-sided communication (MPI-3.1
// chapter 11) and parallel I/O (chapter 13): every call links, and fails
// with MPI_ERR_UNSUPPORTED_OPERATION naming itself and its chapter --
// raised on the communicator's handler by the calls that create a window
// or open a file, on MPI_COMM_WORLD's by the rest -- and leaves MPI usable.
#include <mpi.h>

#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;
using mpitest::error_text;

int handler_calls = 0;
int handler_code = MPI_SUCCESS;
MPI_Comm handler_comm = MPI_COMM_NULL;
void count_calls(MPI_Comm* comm, int* code, ...) {
  ++handler_calls;
  handler_code = *code;
  handler_comm = *comm;
}

using Calls = std::vector<std::pair<std::string, std::function<int()>>>;

// Each of `calls` (under MPI_ERRORS_RETURN on the world) fails as refused,
// "MPI_Name: <chapter> is not provided ...", on the world's handler; MPI
// goes on.
void expect_refused(const Calls& calls, const std::string& chapter) {
  MPI_Errhandler counting;
  ASSERT_EQ(MPI_Comm_create_errhandler(count_calls, &counting), MPI_SUCCESS);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, counting);
  for (const auto& [call, run] : calls) {
    handler_calls = 0;
    const int rc = run();
    EXPECT_EQ(error_class(rc), MPI_ERR_UNSUPPORTED_OPERATION) << call;
    EXPECT_EQ(error_text(rc).rfind(call + ": " + chapter + " is not provided by meshmp", 0), 0u) << error_text(rc);
    EXPECT_EQ(handler_calls, 1) << call;
    EXPECT_EQ(handler_code, rc) << call;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler_free(&counting);
  int sum = 0, one = 1;
  ASSERT_EQ(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(sum, mpitest::size());
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
    EXPECT_EQ(error_text(rc).rfind(name + ": one-sided communication (MPI-3.1 chapter 11) is not provided", 0), 0u)
        << error_text(rc);
  }
  EXPECT_EQ(base, nullptr);
  MPI_Comm_free(&comm);
  MPI_Errhandler_free(&counting);
}

TEST(OneSided, EveryCallOnAWindowFailsOnTheWorldsHandler) {
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
  const Calls calls = {
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
  expect_refused(calls, "one-sided communication (MPI-3.1 chapter 11)");
  EXPECT_EQ(req, MPI_REQUEST_NULL);  // (no request was made)
  MPI_Group_free(&group);
}

TEST(OneSided, NoFortranHandleIsAWindow) {
  EXPECT_EQ(MPI_Win_f2c(0), MPI_WIN_NULL);
  EXPECT_EQ(MPI_Win_f2c(7), MPI_WIN_NULL);
  EXPECT_EQ(MPI_Win_c2f(MPI_WIN_NULL), 0);
}

TEST(FileIo, OpeningAFileFailsOnTheCommunicatorsHandler) {
  MPI_Comm comm;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &comm), MPI_SUCCESS);
  MPI_Errhandler counting;
  ASSERT_EQ(MPI_Comm_create_errhandler(count_calls, &counting), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_set_errhandler(comm, counting), MPI_SUCCESS);
  handler_calls = 0;
  MPI_File fh = 4242;
  const int rc = MPI_File_open(comm, "cfg.lime", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  EXPECT_EQ(error_class(rc), MPI_ERR_UNSUPPORTED_OPERATION);
  EXPECT_EQ(fh, MPI_FILE_NULL);
  EXPECT_EQ(handler_calls, 1);
  EXPECT_EQ(handler_code, rc);
  EXPECT_EQ(handler_comm, comm);
  EXPECT_EQ(error_text(rc).rfind("MPI_File_open: parallel I/O (MPI-3.1 chapter 13) is not provided", 0), 0u)
      << error_text(rc);
  MPI_Comm_free(&comm);
  MPI_Errhandler_free(&counting);
}

TEST(FileIo, EveryOtherCallFailsOnTheWorldsHandler) {
  MPI_File fh = MPI_FILE_NULL;
  std::vector<double> buf(16);
  MPI_Offset off = 0;
  MPI_Status st;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Datatype et = MPI_DATATYPE_NULL, ft = MPI_DATATYPE_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_Aint extent = 0;
  char rep[MPI_MAX_DATAREP_STRING];
  int i = 0;
  double* b = buf.data();
  const Calls calls = {
      {"MPI_File_close", [&] { return MPI_File_close(&fh); }},
      {"MPI_File_delete", [&] { return MPI_File_delete("cfg.lime", MPI_INFO_NULL); }},
      {"MPI_File_set_size", [&] { return MPI_File_set_size(fh, 1024); }},
      {"MPI_File_preallocate", [&] { return MPI_File_preallocate(fh, 1024); }},
      {"MPI_File_get_size", [&] { return MPI_File_get_size(fh, &off); }},
      {"MPI_File_get_group", [&] { return MPI_File_get_group(fh, &group); }},
      {"MPI_File_get_amode", [&] { return MPI_File_get_amode(fh, &i); }},
      {"MPI_File_set_info", [&] { return MPI_File_set_info(fh, MPI_INFO_NULL); }},
      {"MPI_File_get_info", [&] { return MPI_File_get_info(fh, &info); }},
      {"MPI_File_set_view",
       [&] { return MPI_File_set_view(fh, 0, MPI_DOUBLE, MPI_DOUBLE, "native", MPI_INFO_NULL); }},
      {"MPI_File_get_view", [&] { return MPI_File_get_view(fh, &off, &et, &ft, rep); }},
      {"MPI_File_read_at", [&] { return MPI_File_read_at(fh, 0, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_read_at_all", [&] { return MPI_File_read_at_all(fh, 0, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_write_at", [&] { return MPI_File_write_at(fh, 0, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_write_at_all", [&] { return MPI_File_write_at_all(fh, 0, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_iread_at", [&] { return MPI_File_iread_at(fh, 0, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_iread_at_all", [&] { return MPI_File_iread_at_all(fh, 0, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_iwrite_at", [&] { return MPI_File_iwrite_at(fh, 0, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_iwrite_at_all", [&] { return MPI_File_iwrite_at_all(fh, 0, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_read", [&] { return MPI_File_read(fh, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_read_all", [&] { return MPI_File_read_all(fh, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_write", [&] { return MPI_File_write(fh, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_write_all", [&] { return MPI_File_write_all(fh, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_iread", [&] { return MPI_File_iread(fh, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_iread_all", [&] { return MPI_File_iread_all(fh, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_iwrite", [&] { return MPI_File_iwrite(fh, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_iwrite_all", [&] { return MPI_File_iwrite_all(fh, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_seek", [&] { return MPI_File_seek(fh, 0, MPI_SEEK_SET); }},
      {"MPI_File_get_position", [&] { return MPI_File_get_position(fh, &off); }},
      {"MPI_File_get_byte_offset", [&] { return MPI_File_get_byte_offset(fh, 0, &off); }},
      {"MPI_File_read_shared", [&] { return MPI_File_read_shared(fh, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_write_shared", [&] { return MPI_File_write_shared(fh, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_iread_shared", [&] { return MPI_File_iread_shared(fh, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_iwrite_shared", [&] { return MPI_File_iwrite_shared(fh, b, 16, MPI_DOUBLE, &req); }},
      {"MPI_File_read_ordered", [&] { return MPI_File_read_ordered(fh, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_write_ordered", [&] { return MPI_File_write_ordered(fh, b, 16, MPI_DOUBLE, &st); }},
      {"MPI_File_seek_shared", [&] { return MPI_File_seek_shared(fh, 0, MPI_SEEK_END); }},
      {"MPI_File_get_position_shared", [&] { return MPI_File_get_position_shared(fh, &off); }},
      {"MPI_File_read_at_all_begin", [&] { return MPI_File_read_at_all_begin(fh, 0, b, 16, MPI_DOUBLE); }},
      {"MPI_File_read_at_all_end", [&] { return MPI_File_read_at_all_end(fh, b, &st); }},
      {"MPI_File_write_at_all_begin", [&] { return MPI_File_write_at_all_begin(fh, 0, b, 16, MPI_DOUBLE); }},
      {"MPI_File_write_at_all_end", [&] { return MPI_File_write_at_all_end(fh, b, &st); }},
      {"MPI_File_read_all_begin", [&] { return MPI_File_read_all_begin(fh, b, 16, MPI_DOUBLE); }},
      {"MPI_File_read_all_end", [&] { return MPI_File_read_all_end(fh, b, &st); }},
      {"MPI_File_write_all_begin", [&] { return MPI_File_write_all_begin(fh, b, 16, MPI_DOUBLE); }},
      {"MPI_File_write_all_end", [&] { return MPI_File_write_all_end(fh, b, &st); }},
      {"MPI_File_read_ordered_begin", [&] { return MPI_File_read_ordered_begin(fh, b, 16, MPI_DOUBLE); }},
      {"MPI_File_read_ordered_end", [&] { return MPI_File_read_ordered_end(fh, b, &st); }},
      {"MPI_File_write_ordered_begin", [&] { return MPI_File_write_ordered_begin(fh, b, 16, MPI_DOUBLE); }},
      {"MPI_File_write_ordered_end", [&] { return MPI_File_write_ordered_end(fh, b, &st); }},
      {"MPI_File_get_type_extent", [&] { return MPI_File_get_type_extent(fh, MPI_DOUBLE, &extent); }},
      {"MPI_Register_datarep",
       [&] { return MPI_Register_datarep("mine", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, nullptr, nullptr); }},
      {"MPI_File_set_atomicity", [&] { return MPI_File_set_atomicity(fh, 1); }},
      {"MPI_File_get_atomicity", [&] { return MPI_File_get_atomicity(fh, &i); }},
      {"MPI_File_sync", [&] { return MPI_File_sync(fh); }},
      {"MPI_File_create_errhandler", [&] { return MPI_File_create_errhandler(count_calls, &eh); }},
      {"MPI_File_set_errhandler", [&] { return MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN); }},
      {"MPI_File_get_errhandler", [&] { return MPI_File_get_errhandler(MPI_FILE_NULL, &eh); }},
      {"MPI_File_call_errhandler", [&] { return MPI_File_call_errhandler(fh, MPI_ERR_OTHER); }},
  };
  expect_refused(calls, "parallel I/O (MPI-3.1 chapter 13)");
  EXPECT_EQ(req, MPI_REQUEST_NULL);  // (no request was made)
  EXPECT_EQ(off, 0);
}

TEST(FileIo, NoFortranHandleIsAFile) {
  EXPECT_EQ(MPI_File_f2c(0), MPI_FILE_NULL);
  EXPECT_EQ(MPI_File_f2c(3), MPI_FILE_NULL);
  EXPECT_EQ(MPI_File_c2f(MPI_FILE_NULL), 0);
}

}  // namespace

MPI_TEST_MAIN()
