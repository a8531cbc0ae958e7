// Named POSIX shared-memory segments, as the shm provider and the registry
// use them: created exclusively and 0600, or opened at the size the creator
// gave them -- and only if this user owns them and nobody else may open
// them. Names carry tokens other users cannot guess (random_token.h), so a
// segment can be neither read nor planted by another user (issue 15).
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

}  // namespace meshmp::mesh
