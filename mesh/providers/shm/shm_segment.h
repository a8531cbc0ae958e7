// Shared-memory segments, as the shm provider and the registry use them.
// Named POSIX segments: created exclusively and 0600, or opened at the size
// the creator gave them -- and only if this user owns them and nobody else
// may open them. Names carry tokens other users cannot guess (random_token.h),
// so a segment can be neither read nor planted by another user (issue 15).
// Unnamed segments (memfd): nothing in /dev/shm at all, so a rank killed by
// SIGKILL under any launcher leaves nothing behind (issue 29); a peer of the
// same user opens the owner's descriptor as /proc/<pid>/fd/<fd>.
#pragma once

#include <cstddef>
#include <string>

namespace meshmp::mesh {

inline std::size_t round_page(std::size_t n) { return (n + 4095) & ~std::size_t{4095}; }

/// Maps the segment `name`; creates it (exclusively, 0600, `bytes` long, its
/// pages reserved: ENOSPC if /dev/shm is full; EEXIST if the name is taken)
/// when `create`, else maps it whole. An existing segment is mapped only if
/// this effective user owns it and its mode grants nothing to group or
/// others (fstat before mmap): EPERM otherwise. Sets *mapped to the bytes
/// mapped. Returns nullptr with errno set on failure (EAGAIN: the creator
/// has not sized it yet).
void* map_segment(const std::string& name, std::size_t bytes, bool create, std::size_t* mapped);

/// Creates a segment with no name (memfd_create), `bytes` long with its
/// pages reserved (ENOSPC if the memory is not there), and maps it. Its
/// descriptor stays open in *fd: it is how peers reach the segment, and the
/// memory goes when the owner closes it and every mapping is gone. Returns
/// nullptr with errno set on failure.
void* create_unnamed_segment(std::size_t bytes, int* fd, std::size_t* mapped);

/// Maps, whole, the segment that process `pid` holds open as descriptor
/// `fd` (create_unnamed_segment there), by opening /proc/<pid>/fd/<fd>:
/// Linux allows it for a process of this user that this one may inspect
/// (ptrace read access; Yama's attach restrictions do not apply). Returns
/// nullptr with errno: ENOENT if the process or the descriptor is not there,
/// EPERM if it may not be opened or is not a shared-memory file of this user,
/// EAGAIN if it is empty.
void* map_process_segment(int pid, int fd, std::size_t* mapped);

}  // namespace meshmp::mesh
