#include "mesh/providers/shm/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace meshmp::mesh {

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
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int e = errno;
      ::close(fd);
      errno = e;
      return nullptr;
    }
    // Someone else's segment, or one others may read or write: not ours,
    // whatever its name says.
    if (st.st_uid != ::geteuid() || (st.st_mode & 077) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      errno = EPERM;
      return nullptr;
    }
    if (st.st_size <= 0) {
      ::close(fd);
      errno = EAGAIN;  // the creator has not sized it yet
      return nullptr;
    }
    bytes = static_cast<std::size_t>(st.st_size);
  }
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int e = errno;
  ::close(fd);
  if (p == MAP_FAILED) {
    errno = e;
    return nullptr;
  }
  *mapped = bytes;
  return p;
}

}  // namespace meshmp::mesh
