// MPI-1.1 §7, the environment: initialisation state, version, clock,
// processor name, error classes and strings, error handlers (predefined and
// user), and the predefined attributes; MPI-2.2's added error classes,
// codes and strings.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>
#include <vector>
#include <string>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;

TEST(Env, ReportsItsStateAndVersion) {
  int flag = 0;
  MPI_Initialized(&flag);
  EXPECT_TRUE(flag);
  MPI_Finalized(&flag);
  EXPECT_FALSE(flag);
  int v, sv;
  MPI_Get_version(&v, &sv);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(sv, 1);
  EXPECT_EQ(MPI_Pcontrol(1), MPI_SUCCESS);
}

TEST(Env, WtimeAdvancesAtWtickResolution) {
  const double tick = MPI_Wtick();
  EXPECT_GT(tick, 0.0);
  EXPECT_LE(tick, 1e-3);
  const double t0 = MPI_Wtime();
  usleep(20000);
  const double t1 = MPI_Wtime();
  EXPECT_GE(t1 - t0, 0.019);
}

TEST(Env, ProcessorNameIsTheHostName) {
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = -1;
  ASSERT_EQ(MPI_Get_processor_name(name, &len), MPI_SUCCESS);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(std::string(name, len), std::string(host));
}

// Each class's text (MPI-1.1 §7.3's descriptions), and a code a call made:
// what the call said, then the class by name -- never the text of another
// class (issue 30: every message ended in "(known error not in this list)").
TEST(Env, EveryErrorClassHasItsOwnString) {
  const std::pair<int, const char*> classes[] = {
      {MPI_SUCCESS, "no error"},
      {MPI_ERR_BUFFER, "invalid buffer pointer (or the attached buffer is too small)"},
      {MPI_ERR_COUNT, "invalid count argument"},
      {MPI_ERR_TYPE, "invalid datatype argument"},
      {MPI_ERR_TAG, "invalid tag argument"},
      {MPI_ERR_COMM, "invalid communicator"},
      {MPI_ERR_RANK, "invalid rank"},
      {MPI_ERR_REQUEST, "invalid request (handle)"},
      {MPI_ERR_ROOT, "invalid root"},
      {MPI_ERR_GROUP, "invalid group"},
      {MPI_ERR_OP, "invalid operation"},
      {MPI_ERR_TOPOLOGY, "invalid topology"},
      {MPI_ERR_DIMS, "invalid dimension argument"},
      {MPI_ERR_ARG, "invalid argument of some other kind"},
      {MPI_ERR_UNKNOWN, "unknown error"},
      {MPI_ERR_TRUNCATE, "message truncated on receive"},
      {MPI_ERR_OTHER, "known error not in this list"},
      {MPI_ERR_INTERN, "internal MPI (implementation) error"},
      {MPI_ERR_IN_STATUS, "error code is in status"},
      {MPI_ERR_PENDING, "pending request"},
      {MPI_ERR_NO_MEM, "out of memory"},
      {MPI_ERR_INFO, "invalid info object"},
      {MPI_ERR_INFO_KEY, "info key too long or empty"},
      {MPI_ERR_INFO_VALUE, "info value too long or empty"},
      {MPI_ERR_INFO_NOKEY, "no such info key"},
  };
  for (const auto& [c, want] : classes) {
    EXPECT_EQ(error_class(c), c);
    EXPECT_LE(c, MPI_ERR_LASTCODE);
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    ASSERT_EQ(MPI_Error_string(c, s, &len), MPI_SUCCESS);
    EXPECT_EQ(std::string(s), want) << c;
    EXPECT_EQ(static_cast<int>(std::string(s).size()), len);
  }
  mpitest::ErrorsReturn er;
  int x = 0;
  const int err = MPI_Send(&x, 1, MPI_INT, 0, -1, MPI_COMM_WORLD);
  ASSERT_EQ(error_class(err), MPI_ERR_TAG);
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  ASSERT_EQ(MPI_Error_string(err, s, &len), MPI_SUCCESS);
  const std::string text(s, static_cast<std::size_t>(len));
  EXPECT_EQ(text.rfind("MPI_Send: tag = -1", 0), 0u) << text;
  EXPECT_EQ(text.substr(text.size() - std::strlen(" (MPI_ERR_TAG)")), " (MPI_ERR_TAG)") << text;
}

TEST(Env, ErrorHandlersAreSetPerCommunicator) {
  MPI_Errhandler h;
  MPI_Errhandler_get(MPI_COMM_WORLD, &h);
  EXPECT_EQ(h, MPI_ERRORS_ARE_FATAL);  // the default (§7.2)
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Errhandler_set(dup, MPI_ERRORS_RETURN);
  MPI_Errhandler_get(dup, &h);
  EXPECT_EQ(h, MPI_ERRORS_RETURN);
  MPI_Errhandler_get(MPI_COMM_WORLD, &h);
  EXPECT_EQ(h, MPI_ERRORS_ARE_FATAL);
  int x = 0;
  const int err = MPI_Send(&x, 1, MPI_INT, 0, -1, dup);
  EXPECT_EQ(error_class(err), MPI_ERR_TAG);
  char s[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(err, s, &len);
  EXPECT_NE(std::string(s).find("MPI_Send: tag = -1"), std::string::npos) << s;
  MPI_Comm_free(&dup);
}

int g_calls = 0, g_last_code = 0;
MPI_Comm g_last_comm = MPI_COMM_NULL;
void count_errors(MPI_Comm* comm, int* code, ...) {
  ++g_calls;
  g_last_code = *code;
  g_last_comm = *comm;
}

TEST(Env, UserErrorHandlersGetTheCommunicatorAndTheCode) {
  MPI_Errhandler mine;
  ASSERT_EQ(MPI_Errhandler_create(count_errors, &mine), MPI_SUCCESS);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Errhandler_set(dup, mine);
  int x = 0;
  const int err = MPI_Recv(&x, 1, MPI_INT, mpitest::size(dup) + 1, 0, dup, MPI_STATUS_IGNORE);
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(g_last_code, err);
  EXPECT_EQ(g_last_comm, dup);
  EXPECT_EQ(error_class(err), MPI_ERR_RANK);
  const int err2 = MPI_Bcast(&x, 1, MPI_INT, -3, dup);
  EXPECT_EQ(g_calls, 2);
  EXPECT_EQ(error_class(err2), MPI_ERR_ROOT);
  MPI_Errhandler_free(&mine);
  EXPECT_EQ(mine, MPI_ERRHANDLER_NULL);
  MPI_Comm_free(&dup);
}

// A dozen deliberate errors, each reported to a user handler installed with
// the MPI-2 call, with the code the call returns and its class; the job
// keeps running.
TEST(Env, UserHandlerSeesADozenErrorsAndTheJobContinues) {
  MPI_Errhandler mine;
  ASSERT_EQ(MPI_Comm_create_errhandler(count_errors, &mine), MPI_SUCCESS);
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  ASSERT_EQ(MPI_Comm_set_errhandler(c, mine), MPI_SUCCESS);
  MPI_Errhandler got;
  MPI_Comm_get_errhandler(c, &got);
  EXPECT_EQ(got, mine);
  const int p = mpitest::size(c), me = mpitest::rank(c);
  int x[4] = {0, 0, 0, 0};
  MPI_Datatype uncommitted;
  MPI_Type_contiguous(2, MPI_INT, &uncommitted);
  struct Case {
    const char* what;
    int expected_class;
    int code;
  };
  const int before = g_calls;
  std::vector<Case> cases;
  auto run = [&](const char* what, int cls, int code) { cases.push_back({what, cls, code}); };
  run("bad rank", MPI_ERR_RANK, MPI_Send(x, 1, MPI_INT, p, 0, c));
  run("bad tag", MPI_ERR_TAG, MPI_Send(x, 1, MPI_INT, me, -5, c));
  run("bad count", MPI_ERR_COUNT, MPI_Send(x, -1, MPI_INT, me, 0, c));
  run("bad datatype", MPI_ERR_TYPE, MPI_Send(x, 1, 9999, me, 0, c));
  run("uncommitted datatype", MPI_ERR_TYPE, MPI_Send(x, 1, uncommitted, me, 0, c));
  run("bad root", MPI_ERR_ROOT, MPI_Bcast(x, 1, MPI_INT, p, c));
  run("bad op", MPI_ERR_OP, MPI_Allreduce(x, x + 1, 1, MPI_INT, 9999, c));
  run("NULL buffer", MPI_ERR_BUFFER, MPI_Send(nullptr, 1, MPI_INT, me, 0, c));
  MPI_Comm out;
  run("bad colour", MPI_ERR_ARG, MPI_Comm_split(c, -5, 0, &out));
  const int zero_dim = 0, period = 0;
  run("bad dims", MPI_ERR_DIMS, MPI_Cart_create(c, 1, &zero_dim, &period, 0, &out));
  run("no topology", MPI_ERR_TOPOLOGY, MPI_Cartdim_get(c, x));
  // Truncation: four ints into a buffer of one.
  MPI_Request s;
  MPI_Isend(x, 4, MPI_INT, me, 3, c, &s);
  run("truncation", MPI_ERR_TRUNCATE, MPI_Recv(x, 1, MPI_INT, me, 3, c, MPI_STATUS_IGNORE));
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  ASSERT_EQ(cases.size(), 12u);
  EXPECT_EQ(g_calls - before, 12) << "the handler runs once per error";
  for (const Case& k : cases) {
    EXPECT_NE(k.code, MPI_SUCCESS) << k.what;
    EXPECT_EQ(error_class(k.code), k.expected_class) << k.what;
  }
  EXPECT_EQ(g_last_comm, c);
  // The job still works.
  int sum = 0, one = 1;
  EXPECT_EQ(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
  EXPECT_EQ(sum, p);
  MPI_Type_free(&uncommitted);
  MPI_Errhandler_free(&mine);
  MPI_Comm_free(&c);
}

TEST(Env, TagUbAttributeBoundsTheTags) {
  int* tag_ub = nullptr;
  int flag = 0;
  ASSERT_EQ(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag), MPI_SUCCESS);
  ASSERT_TRUE(flag);
  EXPECT_GE(*tag_ub, 32767);  // the standard's minimum (§7.1.1)
  int* wtime_global;
  MPI_Attr_get(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &wtime_global, &flag);
  EXPECT_TRUE(flag);
  const int me = mpitest::rank();
  int in = -1;
  MPI_Sendrecv(&me, 1, MPI_INT, me, *tag_ub, &in, 1, MPI_INT, me, *tag_ub, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT_EQ(in, me);
  mpitest::ErrorsReturn er;
  EXPECT_EQ(error_class(MPI_Send(&me, 1, MPI_INT, me, *tag_ub + 1, MPI_COMM_WORLD)), MPI_ERR_TAG);
}

// MPI-2.2 §8.5: classes and codes a library adds, their strings, and
// MPI_LASTUSEDCODE; §8.3: MPI_Comm_call_errhandler.
int g_called_with = 0;
void remember_code(MPI_Comm*, int* code, ...) { g_called_with = *code; }

std::string error_text(int code) {
  char s[MPI_MAX_ERROR_STRING];
  int len = -1;
  EXPECT_EQ(MPI_Error_string(code, s, &len), MPI_SUCCESS);
  EXPECT_EQ(len, static_cast<int>(std::strlen(s)));
  return s;
}

// MPI-3.1 Table 8.2's classes beyond MPI-1.1's (meshmp raises none of the
// chapters it does not provide) are classes with their texts.
TEST(Env, EveryPredefinedClassOfMpi31IsAClassWithItsText) {
  const std::pair<int, const char*> classes[] = {
      {MPI_ERR_KEYVAL, "invalid keyval has been passed"},
      {MPI_ERR_UNSUPPORTED_OPERATION, "unsupported operation"},
      {MPI_ERR_WIN, "invalid win argument"},
      {MPI_ERR_ACCESS, "permission denied"},
      {MPI_ERR_RMA_FLAVOR, "passed window has the wrong flavor for the called function"},
      {MPI_ERR_NOT_SAME, "collective argument not identical on all processes, or collective routines called in a "
                         "different order by different processes"}};
  for (const auto& [cls, text] : classes) {
    EXPECT_EQ(error_class(cls), cls);
    EXPECT_EQ(error_text(cls), text);
  }
  // All distinct, one after another from MPI_ERR_INFO_NOKEY on.
  EXPECT_EQ(MPI_ERR_ACCESS, MPI_ERR_INFO_NOKEY + 1);
  EXPECT_EQ(MPI_ERR_WIN, MPI_ERR_ACCESS + 32);
}

TEST(Env, AddedErrorClassesCodesAndStrings) {
  int cls = -1, code = -1;
  ASSERT_EQ(MPI_Add_error_class(&cls), MPI_SUCCESS);
  EXPECT_GT(cls, MPI_ERR_WIN) << "above every predefined class";
  EXPECT_EQ(error_text(cls), "") << "a new class has no text yet";
  ASSERT_EQ(MPI_Add_error_string(cls, "the solver did not converge"), MPI_SUCCESS);
  EXPECT_EQ(error_text(cls), "the solver did not converge");
  ASSERT_EQ(MPI_Add_error_code(cls, &code), MPI_SUCCESS);
  EXPECT_EQ(error_class(code), cls);
  ASSERT_EQ(MPI_Add_error_string(code, "CG: 1000 iterations, residual 1e-3"), MPI_SUCCESS);
  EXPECT_EQ(error_text(code), "CG: 1000 iterations, residual 1e-3");
  int arg_code = -1;  // a code of a predefined class
  ASSERT_EQ(MPI_Add_error_code(MPI_ERR_ARG, &arg_code), MPI_SUCCESS);
  EXPECT_EQ(error_class(arg_code), MPI_ERR_ARG);
  int* last = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
  ASSERT_TRUE(flag);
  EXPECT_GE(*last, std::max(code, arg_code));
  EXPECT_GE(*last, MPI_ERR_LASTCODE) << "MPI-2.2 §8.5: always at least MPI_ERR_LASTCODE";
  // The communicator's handler, called on request.
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Errhandler h;
  MPI_Comm_create_errhandler(remember_code, &h);
  MPI_Comm_set_errhandler(dup, h);
  EXPECT_EQ(MPI_Comm_call_errhandler(dup, code), MPI_SUCCESS);
  EXPECT_EQ(g_called_with, code);
  MPI_Errhandler_set(dup, MPI_ERRORS_RETURN);
  EXPECT_EQ(MPI_Comm_call_errhandler(dup, cls), MPI_SUCCESS);
  MPI_Comm_free(&dup);
  MPI_Errhandler_free(&h);
  // Misuse; then the classes run out (64 can be added), with MPI_ERR_OTHER.
  mpitest::ErrorsReturn er;
  EXPECT_EQ(error_class(MPI_Add_error_string(MPI_ERR_ARG, "mine")), MPI_ERR_ARG) << "a predefined class keeps its text";
  EXPECT_EQ(error_text(MPI_ERR_ARG), "invalid argument of some other kind");
  int none;
  EXPECT_EQ(error_class(MPI_Add_error_code(MPI_SUCCESS, &none)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Add_error_code(127, &none)), MPI_ERR_ARG) << "no such class yet (the last a program may add)";
  int added = 1, rc = MPI_SUCCESS;
  while ((rc = MPI_Add_error_class(&none)) == MPI_SUCCESS) ++added;
  EXPECT_EQ(added, 64);
  EXPECT_EQ(error_class(rc), MPI_ERR_OTHER);
}

}  // namespace

MPI_TEST_MAIN()
