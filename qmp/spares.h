// Spare QMP objects for reuse (issue 32, item 4). A lattice code declares
// its halo gather afresh every time -- QMP_allocate_memory, one message
// memory and one handle per face, a multiple handle, and all of it freed
// after the wait -- and each of those small structures (and the vectors
// inside) was a malloc and a free: a fifth of a 1 KiB gather's instructions.
// Freed objects wait here, their vectors' storage kept, for the next
// declaration; at most kMax of each kind (bounded memory).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace meshmp::qmp {

/// Freed objects of type T. T::recycle() must return an object to the state
/// a new T has, except that the storage its containers hold may stay.
template <typename T>
class Spares {
 public:
  static constexpr std::size_t kMax = 256;

  /// A fresh-state object: a spare if there is one, else a new one
  /// (std::bad_alloc if memory is exhausted).
  T* take() {
    if (spare_.empty()) return new T;
    T* t = spare_.back().release();
    spare_.pop_back();
    return t;
  }
  /// Takes t back (nullptr: nothing); deleted if kMax are already waiting.
  void give(T* t) noexcept {
    if (!t) return;
    t->recycle();
    if (spare_.capacity() < kMax) {
      try {
        spare_.reserve(kMax);
      } catch (...) {
        delete t;
        return;
      }
    }
    if (spare_.size() < kMax) spare_.emplace_back(t);  // no allocation: reserved
    else delete t;
  }

 private:
  std::vector<std::unique_ptr<T>> spare_;
};

}  // namespace meshmp::qmp
