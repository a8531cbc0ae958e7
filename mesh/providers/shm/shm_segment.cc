#include "mesh/providers/shm/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace meshmp::mesh {

namespace {

// Closes `fd` keeping errno, and fails.
void* close_failing(int fd) {
  const int e = errno;
  ::close(fd);
  errno = e;
  return nullptr;
}

// Maps what `fd` refers to, `bytes` long, and closes `fd`.
void* map_and_close(int fd, std::size_t bytes, std::size_t* mapped) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return close_failing(fd);
  ::close(fd);
  *mapped = bytes;
  return p;
}

// The size of a segment a peer made, if it is this user's regular file
// that nobody else may open (`private_mode`; a memfd is 0777 but has no
// name) on a shared-memory file system (sealing is known only there);
// 0 with errno set otherwise.
std::size_t peer_segment_size(int fd, bool private_mode) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return 0;
  // Someone else's segment, or one others may read or write: not ours,
  // whatever its name says.
  if (st.st_uid != ::geteuid() || !S_ISREG(st.st_mode) || (private_mode && (st.st_mode & 077) != 0) ||
      (!private_mode && ::fcntl(fd, F_GET_SEALS) < 0)) {
    errno = EPERM;
    return 0;
  }
  if (st.st_size <= 0) {
    errno = EAGAIN;  // the creator has not sized it yet
    return 0;
  }
  return static_cast<std::size_t>(st.st_size);
}

}  // namespace

void* map_segment(const std::string& name, std::size_t bytes, bool create, std::size_t* mapped) {
  int fd = ::shm_open(name.c_str(), O_RDWR | (create ? O_CREAT | O_EXCL : 0) | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  if (create) {
    // Reserve the pages now: a tmpfs that runs out later would deliver
    // SIGBUS on first touch instead of an error here.
    if (int e = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes)); e != 0) {
      ::close(fd);
      ::shm_unlink(name.c_str());
      errno = e;
      return nullptr;
    }
  } else {
    bytes = peer_segment_size(fd, true);
    if (bytes == 0) return close_failing(fd);
  }
  return map_and_close(fd, bytes, mapped);
}

void* create_unnamed_segment(std::size_t bytes, int* fd, std::size_t* mapped) {
  const int f = ::memfd_create("meshmp-arena", MFD_CLOEXEC);
  if (f < 0) return nullptr;
  if (int e = ::posix_fallocate(f, 0, static_cast<off_t>(bytes)); e != 0) {
    ::close(f);
    errno = e;
    return nullptr;
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
  if (p == MAP_FAILED) return close_failing(f);
  *fd = f;
  *mapped = bytes;
  return p;
}

void* map_process_segment(int pid, int fd, std::size_t* mapped) {
  if (pid <= 0 || fd < 0) {
    errno = ENOENT;
    return nullptr;
  }
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  const int f = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (f < 0) {
    if (errno == EACCES) errno = EPERM;
    return nullptr;
  }
  const std::size_t bytes = peer_segment_size(f, false);
  if (bytes == 0) return close_failing(f);
  return map_and_close(f, bytes, mapped);
}

}  // namespace meshmp::mesh
