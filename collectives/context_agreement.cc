// Agreeing on context ids over a group (mesh/context_ids.h): MPICH's
// context-id mask -- an AND-allreduce of every member's free pairs, then the
// lowest pair free in the result, taken by every member alike.
#include "collectives/collectives.h"

namespace meshmp::collectives {

mesh::Error free_context_mask(const Group& g, mesh::ContextIds::Mask* agreed) {
  *agreed = g.engine->context_ids().free_mask();
  ReduceOp band;
  band.elem_size = sizeof(std::uint32_t);
  band.combine = [](void* io, const void* in, std::size_t n, void*) {
    for (std::size_t i = 0; i < n; ++i)
      static_cast<std::uint32_t*>(io)[i] &= static_cast<const std::uint32_t*>(in)[i];
  };
  return allreduce(g, agreed->data(), agreed->size(), band);
}

mesh::Error agree_context_pairs(const Group& g, std::uint32_t* ctx, int n) {
  mesh::ContextIds::Mask agreed;
  const mesh::Error err = free_context_mask(g, &agreed);
  for (int i = 0; i < n; ++i)
    ctx[i] = err == mesh::Error::kOk ? g.engine->context_ids().take(agreed) : mesh::ContextIds::kNone;
  return err;
}

}  // namespace meshmp::collectives
