// Shared-memory segments (issue 15): created O_EXCL and 0600; an existing
// one is mapped only if this user owns it and nobody else may open it, so a
// name planted by another user -- or one left open to others -- is refused
// (EPERM) instead of carrying a job's messages.
#include "mesh/providers/shm/shm_segment.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <string>

#include "mesh/random_token.h"

namespace meshmp::mesh {
namespace {

std::string unique_name() { return "/meshmp-segtest" + random_hex(8); }

struct Unlink {
  std::string name;
  ~Unlink() { ::shm_unlink(name.c_str()); }
};

TEST(ShmSegment, CreatedPrivateAndOnlyOnce) {
  Unlink u{unique_name()};
  std::size_t mapped = 0;
  void* p = map_segment(u.name, 4096, true, &mapped);
  ASSERT_NE(p, nullptr);
  struct stat st {};
  ASSERT_EQ(::stat(("/dev/shm" + u.name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  ::munmap(p, mapped);
  EXPECT_EQ(map_segment(u.name, 4096, true, &mapped), nullptr);
  EXPECT_EQ(errno, EEXIST);
  p = map_segment(u.name, 0, false, &mapped);
  ASSERT_NE(p, nullptr) << "our own 0600 segment opens";
  EXPECT_EQ(mapped, 4096u);
  ::munmap(p, mapped);
}

// A segment others may read or write is not ours to use, whoever made it.
TEST(ShmSegment, OneOpenToOthersIsRefused) {
  for (mode_t mode : {0666, 0640, 0604, 0660}) {
    Unlink u{unique_name()};
    const int fd = ::shm_open(u.name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, 4096), 0);
    ASSERT_EQ(::fchmod(fd, mode), 0);
    ::close(fd);
    std::size_t mapped = 0;
    EXPECT_EQ(map_segment(u.name, 0, false, &mapped), nullptr) << std::oct << mode;
    EXPECT_EQ(errno, EPERM) << std::oct << mode;
  }
}

// A segment another user owns -- planted under a name a job would use -- is
// refused even with mode 0600 (needs root to make one).
TEST(ShmSegment, AnotherUsersSegmentIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "making a segment owned by another user needs root";
  Unlink u{unique_name()};
  const int fd = ::shm_open(u.name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 4096), 0);
  ASSERT_EQ(::fchown(fd, 65534, 65534), 0);  // nobody
  ::close(fd);
  std::size_t mapped = 0;
  EXPECT_EQ(map_segment(u.name, 0, false, &mapped), nullptr);
  EXPECT_EQ(errno, EPERM);
}

TEST(RandomToken, HexOfTheRequestedLengthAndNeverTheSame) {
  const std::string a = random_hex(16), b = random_hex(16);
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace meshmp::mesh
