// Attribute caching (MPI-1.1 §5.7) with callbacks counted exactly, under
// the MPI-1 and MPI-2 names, and the predefined attributes of §7.1.1.
#include <cstdint>

#include "tests/mpi/mpi_main.h"

namespace {

struct Counts {
  int copies = 0, deletes = 0;
  std::intptr_t last_deleted = 0;
};

// Copies value + 1 into the new communicator.
int copy_plus_one(MPI_Comm, int, void* extra, void* in, void* out, int* flag) {
  ++static_cast<Counts*>(extra)->copies;
  *static_cast<void**>(out) = reinterpret_cast<void*>(reinterpret_cast<std::intptr_t>(in) + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

int count_delete(MPI_Comm, int, void* value, void* extra) {
  auto* c = static_cast<Counts*>(extra);
  ++c->deletes;
  c->last_deleted = reinterpret_cast<std::intptr_t>(value);
  return MPI_SUCCESS;
}

int refuse_delete(MPI_Comm, int, void*, void*) { return MPI_ERR_OTHER; }
// A callback's own failure code that is no MPI error class.
int refuse_delete_1234(MPI_Comm, int, void*, void*) { return 1234; }

void* as_value(std::intptr_t v) { return reinterpret_cast<void*>(v); }

std::intptr_t get(MPI_Comm c, int key, int* flag) {
  void* v = nullptr;
  MPI_Attr_get(c, key, &v, flag);
  return reinterpret_cast<std::intptr_t>(v);
}

TEST(Attributes, CallbacksRunOnDupPutDeleteAndFree) {
  Counts n;
  int key;
  ASSERT_EQ(MPI_Keyval_create(copy_plus_one, count_delete, &key, &n), MPI_SUCCESS);
  MPI_Comm a;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  ASSERT_EQ(MPI_Attr_put(a, key, as_value(10)), MPI_SUCCESS);
  EXPECT_EQ(n.deletes, 0);
  MPI_Attr_put(a, key, as_value(20));  // replaces: the old value is deleted
  EXPECT_EQ(n.deletes, 1);
  EXPECT_EQ(n.last_deleted, 10);
  int flag;
  EXPECT_EQ(get(a, key, &flag), 20);
  EXPECT_TRUE(flag);
  MPI_Comm b, c;
  MPI_Comm_dup(a, &b);
  EXPECT_EQ(n.copies, 1);
  EXPECT_EQ(get(b, key, &flag), 21);
  MPI_Comm_dup(b, &c);
  EXPECT_EQ(n.copies, 2);
  EXPECT_EQ(get(c, key, &flag), 22);
  MPI_Attr_delete(c, key);
  EXPECT_EQ(n.deletes, 2);
  EXPECT_EQ(n.last_deleted, 22);
  get(c, key, &flag);
  EXPECT_FALSE(flag);
  MPI_Comm_free(&c);  // nothing left to delete
  EXPECT_EQ(n.deletes, 2);
  MPI_Comm_free(&b);
  EXPECT_EQ(n.deletes, 3);
  EXPECT_EQ(n.last_deleted, 21);
  // A freed key stays usable by the attributes still set with it (§5.7.1).
  MPI_Keyval_free(&key);
  EXPECT_EQ(key, MPI_KEYVAL_INVALID);
  MPI_Comm_free(&a);
  EXPECT_EQ(n.deletes, 4);
  EXPECT_EQ(n.last_deleted, 20);
  EXPECT_EQ(n.copies, 2);
}

// A key freed again through copies of its handle while attributes still
// hold it -- here by its own delete callback, as MPICH's
// attr/keyval_double_free -- is still freed once: the attributes keep it, the
// extra frees return MPI_SUCCESS, and once the last attribute is gone the
// handle is no key (MPI_ERR_ARG).
namespace {
int free_own_key(MPI_Comm, int keyval, void*, void*) { return MPI_Keyval_free(&keyval); }
}  // namespace

TEST(Attributes, AKeyFreedAgainWhileAttachedIsFreedOnce) {
  mpitest::ErrorsReturn er;
  int key = MPI_KEYVAL_INVALID;
  ASSERT_EQ(MPI_Keyval_create(MPI_NULL_COPY_FN, free_own_key, &key, nullptr), MPI_SUCCESS);
  const int copy1 = key;
  int copy2 = key, copy3 = key;
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  ASSERT_EQ(MPI_Attr_put(a, key, as_value(1)), MPI_SUCCESS);
  ASSERT_EQ(MPI_Attr_put(b, key, as_value(2)), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_free(&a), MPI_SUCCESS);  // the first free, in the callback
  EXPECT_EQ(MPI_Keyval_free(&key), MPI_SUCCESS);
  EXPECT_EQ(key, MPI_KEYVAL_INVALID);
  EXPECT_EQ(MPI_Comm_free_keyval(&copy2), MPI_SUCCESS);
  int flag = 0;
  void* v = nullptr;
  ASSERT_EQ(MPI_Comm_get_attr(b, copy1, &v, &flag), MPI_SUCCESS) << "b's attribute keeps the key";
  EXPECT_TRUE(flag);
  EXPECT_EQ(v, as_value(2));
  ASSERT_EQ(MPI_Comm_free(&b), MPI_SUCCESS);  // the last attribute: its callback frees once more
  EXPECT_EQ(mpitest::error_class(MPI_Keyval_free(&copy3)), MPI_ERR_ARG) << "the key is gone";
  // A new key may take the number again, and is whole.
  int fresh;
  ASSERT_EQ(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &fresh, nullptr), MPI_SUCCESS);
  EXPECT_EQ(MPI_Attr_put(MPI_COMM_SELF, fresh, as_value(3)), MPI_SUCCESS);
  EXPECT_EQ(MPI_Attr_delete(MPI_COMM_SELF, fresh), MPI_SUCCESS);
  EXPECT_EQ(MPI_Keyval_free(&fresh), MPI_SUCCESS);
}

TEST(Attributes, PredefinedCopyFunctions) {
  int null_key, dup_key;
  MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &null_key, nullptr);
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dup_key, nullptr);
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Attr_put(a, null_key, as_value(5));
  MPI_Comm_set_attr(a, dup_key, as_value(6));
  MPI_Comm_dup(a, &b);
  int flag;
  get(b, null_key, &flag);
  EXPECT_FALSE(flag) << "MPI_NULL_COPY_FN must not copy";
  void* v = nullptr;
  MPI_Comm_get_attr(b, dup_key, &v, &flag);
  EXPECT_TRUE(flag);
  EXPECT_EQ(v, as_value(6));
  MPI_Comm_delete_attr(b, dup_key);
  MPI_Comm_get_attr(b, dup_key, &v, &flag);
  EXPECT_FALSE(flag);
  MPI_Comm_free(&a);
  MPI_Comm_free(&b);
  MPI_Keyval_free(&null_key);
  MPI_Comm_free_keyval(&dup_key);
}

TEST(Attributes, PredefinedOnWorld) {
  int flag;
  int* v = nullptr;
  ASSERT_EQ(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag), MPI_SUCCESS);
  ASSERT_TRUE(flag);
  EXPECT_GE(*v, 32767);  // MPI-1.1 §7.1.1: at least 32767
  MPI_Attr_get(MPI_COMM_WORLD, MPI_HOST, &v, &flag);
  ASSERT_TRUE(flag);
  EXPECT_TRUE(*v == MPI_PROC_NULL || (*v >= 0 && *v < mpitest::size()));
  MPI_Attr_get(MPI_COMM_WORLD, MPI_IO, &v, &flag);
  ASSERT_TRUE(flag);
  EXPECT_TRUE(*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < mpitest::size()));
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
  ASSERT_TRUE(flag);
  EXPECT_TRUE(*v == 0 || *v == 1);
  // MPI-2.2 §10.5.1 / §10.5.3: no process can be spawned, so the universe
  // is the job; one launch is application 0.
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag);
  ASSERT_TRUE(flag);
  EXPECT_EQ(*v, mpitest::size());
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag);
  ASSERT_TRUE(flag);
  EXPECT_EQ(*v, 0);
  MPI_Comm parent = MPI_COMM_WORLD;
  ASSERT_EQ(MPI_Comm_get_parent(&parent), MPI_SUCCESS);
  EXPECT_EQ(parent, MPI_COMM_NULL) << "MPI-2.2 §10.3.2: a process not spawned has no parent";
  // A message with the largest tag goes through.
  int got = 0, ub = 0;
  MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
  ub = *v;
  const int me = mpitest::rank();
  MPI_Sendrecv(&me, 1, MPI_INT, me, ub, &got, 1, MPI_INT, me, ub, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  EXPECT_EQ(got, me);
}

TEST(Attributes, ErrorsAndFailingCallbacks) {
  mpitest::ErrorsReturn errors_return;
  EXPECT_EQ(mpitest::error_class(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, nullptr)), MPI_ERR_ARG);
  EXPECT_EQ(mpitest::error_class(MPI_Attr_put(MPI_COMM_WORLD, 12345, nullptr)), MPI_ERR_ARG);
  int key;
  MPI_Keyval_create(MPI_NULL_COPY_FN, refuse_delete, &key, nullptr);
  MPI_Attr_put(MPI_COMM_WORLD, key, as_value(1));
  EXPECT_NE(MPI_Attr_delete(MPI_COMM_WORLD, key), MPI_SUCCESS) << "a failing delete callback fails the call";
  int flag;
  get(MPI_COMM_WORLD, key, &flag);
  EXPECT_TRUE(flag) << "the attribute stays when its delete callback fails";
}

// A delete callback that fails with a code of its own: MPI_Attr_delete and
// MPI_Comm_free return an MPI error class, MPI_ERR_OTHER (as MPICH does;
// MPI-2.2 §6.7.2 says only that the call fails), not the callback's 1234.
TEST(Attributes, FailingDeleteCallbackGivesErrOther) {
  mpitest::ErrorsReturn errors_return;
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Errhandler_set(dup, MPI_ERRORS_RETURN);
  int key;
  MPI_Keyval_create(MPI_NULL_COPY_FN, refuse_delete_1234, &key, nullptr);
  MPI_Attr_put(dup, key, as_value(1));
  EXPECT_EQ(mpitest::error_class(MPI_Attr_delete(dup, key)), MPI_ERR_OTHER);
  EXPECT_EQ(mpitest::error_class(MPI_Comm_free(&dup)), MPI_ERR_OTHER);
}

// A copy callback that fails makes MPI_Comm_dup fail with the callback's
// own error code (as MPICH does; MPI-2.2 §6.7.2), and no communicator is
// made: newcomm is MPI_COMM_NULL (the standard is silent; MPICH's attrerr
// test expects it, and a program can test for it).
int refuse_copy(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_ERR_INTERN;
}

TEST(Attributes, DupReturnsTheCopyCallbacksErrorCode) {
  mpitest::ErrorsReturn errors_return;
  MPI_Comm base;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Errhandler_set(base, MPI_ERRORS_RETURN);
  int key;
  MPI_Keyval_create(refuse_copy, MPI_NULL_DELETE_FN, &key, nullptr);
  MPI_Attr_put(base, key, as_value(1));
  MPI_Comm dup = MPI_COMM_WORLD;
  EXPECT_EQ(MPI_Comm_dup(base, &dup), MPI_ERR_INTERN);
  EXPECT_EQ(dup, MPI_COMM_NULL) << "a failed dup leaves no communicator";
  MPI_Attr_delete(base, key);
  MPI_Keyval_free(&key);
  MPI_Comm_free(&base);
}

}  // namespace

MPI_TEST_MAIN()
