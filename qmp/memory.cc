// QMP memory and message memory (QMP_API.md "Memory"). Message memory is
// kept as (address, bytes) runs in message order; a handle over several runs
// packs and unpacks them itself, so users never pack by hand.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "qmp/internal.h"

using namespace meshmp::qmp;

namespace {

/// Owned until returned to the caller (release()), so a failed allocation
/// while adding runs frees it.
std::unique_ptr<QMP_msgmem_struct> new_msgmem(char* base) {
  std::unique_ptr<QMP_msgmem_struct> m(g_msgmems.take());
  m->base = base;
  return m;
}

void add_run(const std::unique_ptr<QMP_msgmem_struct>& m, char* p, std::size_t n) {
  if (n == 0) return;
  // Adjacent runs merge, so a strided layout with stride == blksize is contiguous.
  if (!m->runs.empty() && m->runs.back().first + m->runs.back().second == p) m->runs.back().second += n;
  else m->runs.emplace_back(p, n);
  m->total += n;
}

}  // namespace

namespace meshmp::qmp {

// An eighth of the registered pool, at most 16 MiB: a 4-d halo of 16^4
// sites per rank, 16 faces of ~400 KiB, fits; the rest of the pool stays
// for other sizes (and the kept buffers go back when it runs out).
void keep_buffers_within(std::size_t registered_limit) {
  g_kept_buffers.set_budget(std::min<std::size_t>(registered_limit / 8, std::size_t{16} << 20));
}

// At finalize: memory freed after it (the engine may live on, under MPI)
// goes straight back to the pool.
void release_kept_buffers() {
  meshmp::mesh::Engine* engine = meshmp::mesh::Engine::get();
  g_kept_buffers.release_all([&](void* p) {
    if (engine) engine->free_registered(p);
  });
  g_kept_buffers.set_budget(0);
}

}  // namespace meshmp::qmp

extern "C" {

QMP_mem_t* QMP_allocate_memory(size_t nbytes) try {
  return QMP_allocate_aligned_memory(nbytes, QMP_ALIGN_DEFAULT, QMP_MEM_DEFAULT);
} QMP_END_HANDLE(QMP_allocate_memory)

QMP_mem_t* QMP_allocate_aligned_memory(size_t nbytes, size_t alignment, int flags) try {
  if (alignment == QMP_ALIGN_ANY) alignment = alignof(std::max_align_t);
  if (alignment & (alignment - 1)) {
    fail(QMP_INVALID_ARG, "QMP_allocate_aligned_memory", "alignment " + std::to_string(alignment) + " is not a power of two");
    return nullptr;
  }
  if (flags & ~(QMP_MEM_NONCACHE | QMP_MEM_COMMS | QMP_MEM_FAST)) {
    fail(QMP_INVALID_ARG, "QMP_allocate_aligned_memory", "unknown flags " + std::to_string(flags));
    return nullptr;
  }
  if (nbytes > SIZE_MAX - alignment) {
    fail(QMP_NOMEM_ERR, "QMP_allocate_aligned_memory", "cannot allocate " + std::to_string(nbytes) + " bytes");
    return nullptr;
  }
  auto* mem = g_mems.take();
  mem->bytes = nbytes;
  mem->alignment = alignment;
  // Communication buffers are registered once (seed 000 §3.7), so a peer's
  // RDMA write into them is a memcpy; a job of one has no peer to write.
  meshmp::mesh::Engine* engine = meshmp::mesh::Engine::get();
  if ((flags & QMP_MEM_COMMS) && engine && engine->size() > 1) {
    mem->aligned = g_kept_buffers.take_or_allocate(
        nbytes, alignment, [&](std::size_t n, std::size_t a) { return engine->allocate_registered(n, a); },
        [&](void* p) { engine->free_registered(p); });
    mem->registered = mem->aligned != nullptr;
    if (!mem->registered && state().verbose > 0)
      std::fprintf(stderr, "QMP_allocate_aligned_memory: %zu bytes not registered (%s); using ordinary memory\n",
                   nbytes, std::strerror(errno));
  }
  if (!mem->registered) {
    // Over-allocate and round up: works for any power-of-two alignment.
    mem->raw = std::malloc(nbytes + alignment);
    if (!mem->raw) {
      g_mems.give(mem);
      fail(QMP_NOMEM_ERR, "QMP_allocate_aligned_memory", "cannot allocate " + std::to_string(nbytes) + " bytes");
      return nullptr;
    }
    const auto addr = reinterpret_cast<std::uintptr_t>(mem->raw);
    mem->aligned = reinterpret_cast<void*>((addr + alignment - 1) & ~(alignment - 1));
  }
  return mem;
} QMP_END_HANDLE(QMP_allocate_aligned_memory)

void* QMP_get_memory_pointer(QMP_mem_t* mem) { return mem ? mem->aligned : nullptr; }

void QMP_free_memory(QMP_mem_t* mem) {
  if (!mem) return;
  // Registered memory still allocated at finalize stays mapped until exit.
  if (mem->registered) {
    if (meshmp::mesh::Engine* engine = meshmp::mesh::Engine::get();
        engine && !g_kept_buffers.keep(mem->aligned, mem->bytes, mem->alignment))
      engine->free_registered(mem->aligned);
  }
  std::free(mem->raw);
  g_mems.give(mem);
}

QMP_msgmem_t QMP_declare_msgmem(const void* mem, size_t nbytes) try {
  if (!mem && nbytes) {
    fail(QMP_INVALID_ARG, "QMP_declare_msgmem", "mem is NULL");
    return nullptr;
  }
  auto m = new_msgmem(static_cast<char*>(const_cast<void*>(mem)));
  add_run(m, m->base, nbytes);
  return m.release();
} QMP_END_HANDLE(QMP_declare_msgmem)

QMP_msgmem_t QMP_declare_strided_msgmem(void* base, size_t blksize, int nblocks, ptrdiff_t stride) try {
  if (nblocks < 0 || (!base && nblocks && blksize)) {
    fail(QMP_INVALID_ARG, "QMP_declare_strided_msgmem", nblocks < 0 ? "nblocks < 0" : "base is NULL");
    return nullptr;
  }
  auto m = new_msgmem(static_cast<char*>(base));
  // (Blocks of no bytes add nothing: base may be NULL then.)
  for (int i = 0; blksize && i < nblocks; ++i) add_run(m, m->base + i * stride, blksize);
  return m.release();
} QMP_END_HANDLE(QMP_declare_strided_msgmem)

QMP_msgmem_t QMP_declare_strided_array_msgmem(void* base[], size_t blksize[], int nblocks[], ptrdiff_t stride[],
                                              int num) try {
  if (!base || !blksize || !nblocks || !stride || num < 1) {
    fail(QMP_INVALID_ARG, "QMP_declare_strided_array_msgmem", "NULL array or num < 1");
    return nullptr;
  }
  auto m = new_msgmem(static_cast<char*>(base[0]));
  for (int k = 0; k < num; ++k) {
    if (nblocks[k] < 0 || (!base[k] && nblocks[k] && blksize[k])) {
      fail(QMP_INVALID_ARG, "QMP_declare_strided_array_msgmem", "base[" + std::to_string(k) + "] is NULL or nblocks < 0");
      return nullptr;
    }
    for (int i = 0; blksize[k] && i < nblocks[k]; ++i)
      add_run(m, static_cast<char*>(base[k]) + i * stride[k], blksize[k]);
  }
  return m.release();
} QMP_END_HANDLE(QMP_declare_strided_array_msgmem)

QMP_msgmem_t QMP_declare_indexed_msgmem(void* base, int blocklen[], int index[], int elemsize, int count) try {
  if (elemsize < 1 || count < 0 || (count && (!base || !blocklen || !index))) {
    fail(QMP_INVALID_ARG, "QMP_declare_indexed_msgmem", "NULL base/blocklen/index, elemsize < 1 or count < 0");
    return nullptr;
  }
  auto m = new_msgmem(static_cast<char*>(base));
  for (int i = 0; i < count; ++i)
    add_run(m, m->base + static_cast<std::ptrdiff_t>(index[i]) * elemsize,
            static_cast<std::size_t>(blocklen[i]) * elemsize);
  return m.release();
} QMP_END_HANDLE(QMP_declare_indexed_msgmem)

void QMP_free_msgmem(QMP_msgmem_t m) { g_msgmems.give(m); }

}  // extern "C"
