// libfabric, loaded when the ofi provider is first opened (dlopen of
// libfabric.so.1, Debian's libfabric1), not linked: linking it makes every
// meshmp program load libfabric and the libraries of all its providers at
// start, and one of them (PSM's) calibrates a timer for 0.2 s there. Only
// five of the functions used are symbols; the rest are libfabric's inline
// calls through the objects these return.
#pragma once

#include <rdma/fabric.h>

#include <cstdint>

namespace meshmp::mesh::ofi {

struct Library {
  int (*getinfo)(std::uint32_t version, const char* node, const char* service, std::uint64_t flags,
                 const fi_info* hints, fi_info** info);
  void (*freeinfo)(fi_info* info);
  fi_info* (*dupinfo)(const fi_info* info);  ///< dupinfo(nullptr) = fi_allocinfo()
  int (*fabric)(fi_fabric_attr* attr, fid_fabric** fabric, void* context);
  const char* (*strerror)(int errnum);
};

/// The loaded library, its functions at the symbol versions this build's
/// headers name (FABRIC_1.3, FABRIC_1.1). Throws std::runtime_error saying
/// what to install if it cannot be loaded.
const Library& lib();

/// Whether lib() would succeed.
bool available();

}  // namespace meshmp::mesh::ofi
