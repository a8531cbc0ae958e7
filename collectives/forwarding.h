// How a broadcast tells every member of a length mismatch (MPI-1.1 §4.4:
// each member's count and datatype must match the root's; MPICH's
// errors/coll/bcastlength checks that every non-root is told, as its
// ibcastlength does for MPI_Ibcast).
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

#include "mesh/request.h"

namespace meshmp::collectives {

/// What one member's forwards of a broadcast send. A member forwards what
/// it received -- so a root's shorter message stays shorter all the way
/// down -- or, where the root's was longer and was cut (kTruncate), one
/// byte more than its count, from a copy. Either way the members below it
/// see a length other than their count (if theirs is this member's, as it
/// is unless the counts differ twice), end with kTruncate too, and still
/// get all of the root's bytes their count takes.
struct Forwarding {
  static constexpr std::size_t kOwn = ~std::size_t{0};  ///< nothing received (the root): its own bytes
  std::size_t length = kOwn;                            ///< bytes each forward sends
  std::vector<char> stage;                              ///< the copy one byte longer, made once

  /// Records this member's receive `st` into a buffer of `posted` bytes.
  void received(const mesh::Status& st, std::size_t posted) {
    length = st.error == mesh::Error::kTruncate ? posted + 1 : st.bytes;
  }
  /// Where a forward of the `bytes` at `buf` sends from; *n: how many.
  /// The copy lives as long as this object (forwards in flight read it).
  const void* from(const void* buf, std::size_t bytes, std::size_t* n) {
    if (length == kOwn || length <= bytes) {
      *n = length == kOwn ? bytes : length;
      return buf;
    }
    if (stage.size() != bytes + 1) {
      stage.assign(bytes + 1, 0);
      if (bytes) std::memcpy(stage.data(), buf, bytes);
    }
    *n = bytes + 1;
    return stage.data();
  }
};

}  // namespace meshmp::collectives
