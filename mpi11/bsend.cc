// The attached buffer of buffered-mode sends (MPI-1.1 §3.6.1). A buffered
// send packs its data into the buffer and starts a standard send from there;
// the space (data + MPI_BSEND_OVERHEAD bytes) is reclaimed when that send
// completes. A send that does not fit fails with MPI_ERR_BUFFER.
#include <algorithm>
#include <string>
#include <vector>

#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

struct Segment {
  char* begin;
  std::size_t bytes;         // including the overhead
  mesh::Request* core;       // the send out of it
};

struct Attached {
  char* base = nullptr;
  std::size_t size = 0;
  std::vector<Segment> used;  // by address
};

Attached& attached() {
  static Attached a;
  return a;
}

// Drops the segments whose sends have completed.
void reap(bool block) {
  mesh::Engine* e = state().engine;
  auto& used = attached().used;
  used.erase(std::remove_if(used.begin(), used.end(),
                            [&](Segment& s) {
                              if (!s.core) return false;  // reserved, send not started yet
                              if (block) {
                                e->wait(s.core, nullptr);
                                return true;
                              }
                              return e->test(s.core, nullptr);
                            }),
             used.end());
}

}  // namespace

char* buffer_reserve(std::size_t bytes) {
  Attached& a = attached();
  if (!a.base) return nullptr;
  reap(false);
  // Exactly what §3.6.1 tells the user to provide per message: the packed
  // data plus MPI_BSEND_OVERHEAD (the bookkeeping lives outside the buffer;
  // the data is copied byte-wise, so segments need no alignment).
  const std::size_t need = bytes + MPI_BSEND_OVERHEAD;
  // First fit among the gaps between segments (kept in address order).
  char* at = a.base;
  std::size_t i = 0;
  for (; i <= a.used.size(); ++i) {
    char* end = i < a.used.size() ? a.used[i].begin : a.base + a.size;
    if (static_cast<std::size_t>(end - at) >= need) break;
    if (i < a.used.size()) at = a.used[i].begin + a.used[i].bytes;
  }
  if (i > a.used.size()) return nullptr;
  a.used.insert(a.used.begin() + static_cast<std::ptrdiff_t>(i), Segment{at, need, nullptr});
  return at;
}

void buffer_track(char* space, mesh::Request* core) {
  for (Segment& s : attached().used)
    if (s.begin == space) s.core = core;
}

void drain_buffered() { reap(true); }

}  // namespace meshmp::mpi

using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Buffer_attach, (void* buffer, int size)) {
  Attached& a = attached();
  if (size < 0) return raise(MPI_COMM_NULL, "MPI_Buffer_attach", MPI_ERR_ARG, "size = " + std::to_string(size) + " is negative");
  if (!buffer && size > 0) return raise(MPI_COMM_NULL, "MPI_Buffer_attach", MPI_ERR_BUFFER, "buffer is NULL");
  if (a.base) return raise(MPI_COMM_NULL, "MPI_Buffer_attach", MPI_ERR_BUFFER, "a buffer is already attached; detach it first");
  a.base = static_cast<char*>(buffer);
  a.size = static_cast<std::size_t>(size);
  if (!a.base) a.base = reinterpret_cast<char*>(&a);  // a zero-size buffer is still "attached"
  return MPI_SUCCESS;
} MESHMP_MPI_END(Buffer_attach)

// Blocks until every message in the buffer has been sent (§3.6.1); the
// argument is really a void**, as in the standard's C binding.
MESHMP_MPI_FN(int, Buffer_detach, (void* buffer_addr, int* size)) {
  if (!buffer_addr || !size) return raise(MPI_COMM_NULL, "MPI_Buffer_detach", MPI_ERR_ARG, "buffer_addr or size is NULL");
  Attached& a = attached();
  if (!a.base) {
    *static_cast<void**>(buffer_addr) = nullptr;
    *size = 0;
    return MPI_SUCCESS;
  }
  drain_buffered();
  *static_cast<void**>(buffer_addr) = a.base == reinterpret_cast<char*>(&a) ? nullptr : a.base;
  *size = static_cast<int>(a.size);
  a = Attached{};
  return MPI_SUCCESS;
} MESHMP_MPI_END(Buffer_detach)
