// MPI-2.2 §9, info objects, and MPI-3.1 §9.1.2's MPI_INFO_ENV: keys and
// values set, replaced, read (whole and truncated), numbered, deleted and
// duplicated, and every error class the chapter names.
#include <mpi.h>

#include <string>

#include "tests/mpi/mpi_main.h"

namespace {

using mpitest::error_class;

std::string get(MPI_Info info, const char* key, int valuelen, int* flag) {
  std::string v(static_cast<std::size_t>(valuelen) + 1, '#');
  EXPECT_EQ(MPI_Info_get(info, key, valuelen, v.data(), flag), MPI_SUCCESS);
  return *flag ? std::string(v.c_str()) : std::string();
}

TEST(Info, SetGetReplaceDeleteAndNumberKeys) {
  MPI_Info info;
  ASSERT_EQ(MPI_Info_create(&info), MPI_SUCCESS);
  int n = -1;
  MPI_Info_get_nkeys(info, &n);
  EXPECT_EQ(n, 0);
  ASSERT_EQ(MPI_Info_set(info, "cb_nodes", "4"), MPI_SUCCESS);
  ASSERT_EQ(MPI_Info_set(info, "file_perm", "0644"), MPI_SUCCESS);
  ASSERT_EQ(MPI_Info_set(info, "cb_nodes", "16"), MPI_SUCCESS);  // replaces, keeps its place
  MPI_Info_get_nkeys(info, &n);
  EXPECT_EQ(n, 2);
  char key[MPI_MAX_INFO_KEY + 1];
  ASSERT_EQ(MPI_Info_get_nthkey(info, 0, key), MPI_SUCCESS);
  EXPECT_STREQ(key, "cb_nodes");
  ASSERT_EQ(MPI_Info_get_nthkey(info, 1, key), MPI_SUCCESS);
  EXPECT_STREQ(key, "file_perm");
  int flag = 0;
  EXPECT_EQ(get(info, "cb_nodes", MPI_MAX_INFO_VAL, &flag), "16");
  EXPECT_TRUE(flag);
  int len = -1;
  ASSERT_EQ(MPI_Info_get_valuelen(info, "file_perm", &len, &flag), MPI_SUCCESS);
  EXPECT_TRUE(flag);
  EXPECT_EQ(len, 4);
  // valuelen shorter than the value: that many characters and a NUL.
  EXPECT_EQ(get(info, "file_perm", 2, &flag), "06");
  get(info, "absent", 10, &flag);
  EXPECT_FALSE(flag);
  ASSERT_EQ(MPI_Info_get_valuelen(info, "absent", &len, &flag), MPI_SUCCESS);
  EXPECT_FALSE(flag);
  ASSERT_EQ(MPI_Info_delete(info, "cb_nodes"), MPI_SUCCESS);
  MPI_Info_get_nkeys(info, &n);
  EXPECT_EQ(n, 1);
  ASSERT_EQ(MPI_Info_get_nthkey(info, 0, key), MPI_SUCCESS);
  EXPECT_STREQ(key, "file_perm");
  ASSERT_EQ(MPI_Info_free(&info), MPI_SUCCESS);
  EXPECT_EQ(info, MPI_INFO_NULL);
}

TEST(Info, DupIsIndependent) {
  MPI_Info a, b;
  MPI_Info_create(&a);
  MPI_Info_set(a, "k", "1");
  ASSERT_EQ(MPI_Info_dup(a, &b), MPI_SUCCESS);
  EXPECT_NE(a, b);
  MPI_Info_set(a, "k", "2");
  MPI_Info_set(b, "only_b", "x");
  int flag = 0, n = 0;
  EXPECT_EQ(get(b, "k", 8, &flag), "1");
  MPI_Info_get_nkeys(a, &n);
  EXPECT_EQ(n, 1);
  MPI_Info_free(&a);
  EXPECT_EQ(get(b, "only_b", 8, &flag), "x") << "freeing the original touched the copy";
  MPI_Info_free(&b);
}

TEST(Info, ErrorsNameTheirClass) {
  mpitest::ErrorsReturn er;
  MPI_Info info;
  MPI_Info_create(&info);
  const std::string long_key(MPI_MAX_INFO_KEY + 1, 'k'), long_value(MPI_MAX_INFO_VAL + 1, 'v');
  const std::string max_key(MPI_MAX_INFO_KEY, 'k'), max_value(MPI_MAX_INFO_VAL, 'v');
  EXPECT_EQ(MPI_Info_set(info, max_key.c_str(), max_value.c_str()), MPI_SUCCESS) << "the longest allowed";
  EXPECT_EQ(error_class(MPI_Info_set(info, long_key.c_str(), "1")), MPI_ERR_INFO_KEY);
  EXPECT_EQ(error_class(MPI_Info_set(info, "", "1")), MPI_ERR_INFO_KEY);
  EXPECT_EQ(error_class(MPI_Info_set(info, "k", long_value.c_str())), MPI_ERR_INFO_VALUE);
  EXPECT_EQ(error_class(MPI_Info_set(info, "k", "")), MPI_ERR_INFO_VALUE);
  EXPECT_EQ(error_class(MPI_Info_delete(info, "never_set")), MPI_ERR_INFO_NOKEY);
  char key[MPI_MAX_INFO_KEY + 1];
  EXPECT_EQ(error_class(MPI_Info_get_nthkey(info, 1, key)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Info_get_nthkey(info, -1, key)), MPI_ERR_ARG);
  char v[4];
  int flag;
  EXPECT_EQ(error_class(MPI_Info_get(info, "k", -1, v, &flag)), MPI_ERR_ARG);
  EXPECT_EQ(error_class(MPI_Info_set(MPI_INFO_NULL, "k", "1")), MPI_ERR_INFO);
  EXPECT_EQ(error_class(MPI_Info_get(12345, "k", 3, v, &flag)), MPI_ERR_INFO);
  MPI_Info freed = info;
  MPI_Info_free(&info);
  EXPECT_EQ(error_class(MPI_Info_get_nkeys(freed, &flag)), MPI_ERR_INFO) << "a freed info is no info";
  const std::string text = mpitest::error_text(MPI_Info_delete(MPI_INFO_NULL, "k"));
  EXPECT_NE(text.find("MPI_Info_delete"), std::string::npos) << text;
  void* mem = nullptr;
  EXPECT_EQ(error_class(MPI_Alloc_mem(64, freed, &mem)), MPI_ERR_INFO);
}

TEST(Info, InfoEnvTellsTheWorldSizeAndCannotChange) {
  mpitest::ErrorsReturn er;
  int flag = 0;
  EXPECT_EQ(get(MPI_INFO_ENV, "maxprocs", 16, &flag), std::to_string(mpitest::size()));
  EXPECT_TRUE(flag);
  EXPECT_EQ(get(MPI_INFO_ENV, "thread_level", 64, &flag), "MPI_THREAD_SINGLE");
  MPI_Info env = MPI_INFO_ENV;
  EXPECT_EQ(error_class(MPI_Info_free(&env)), MPI_ERR_INFO);
  EXPECT_EQ(env, MPI_INFO_ENV);
  EXPECT_EQ(error_class(MPI_Info_set(MPI_INFO_ENV, "k", "1")), MPI_ERR_INFO);
  MPI_Info copy;
  ASSERT_EQ(MPI_Info_dup(MPI_INFO_ENV, &copy), MPI_SUCCESS);
  EXPECT_EQ(MPI_Info_set(copy, "k", "1"), MPI_SUCCESS) << "a copy of MPI_INFO_ENV is the user's";
  MPI_Info_free(&copy);
  // Hints are accepted where an info is taken.
  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "alloc_shared_noncontig", "true");
  void* mem = nullptr;
  ASSERT_EQ(MPI_Alloc_mem(4096, hints, &mem), MPI_SUCCESS);
  MPI_Free_mem(mem);
  MPI_Info_free(&hints);
}

}  // namespace

MPI_TEST_MAIN()
