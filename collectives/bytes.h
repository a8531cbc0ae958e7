// Copies of a collective's buffers, which may be NULL where the count is 0
// (MPI-1.1 §4.2 and QMP allow it: an empty std::vector's data()), while
// memcpy and memmove take no NULL argument even for 0 bytes (C11 §7.24.1).
#pragma once

#include <cstddef>
#include <cstring>

namespace meshmp::collectives {

/// memcpy of n bytes; nothing where n is 0 (either pointer may be NULL then).
inline void copy_bytes(void* to, const void* from, std::size_t n) {
  if (n) std::memcpy(to, from, n);
}
/// memmove of n bytes; nothing where n is 0.
inline void move_bytes(void* to, const void* from, std::size_t n) {
  if (n) std::memmove(to, from, n);
}

}  // namespace meshmp::collectives
