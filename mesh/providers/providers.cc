// The provider table: which transports exist and how each is opened
// (mesh/provider.h). The only place that names a concrete provider.
#include <stdexcept>

#include "mesh/provider.h"
#include "mesh/providers/shm/shm_provider.h"
#include "mesh/random_token.h"

namespace meshmp::mesh {

std::vector<std::unique_ptr<Provider>> open_providers(const std::string& which, const ProviderSetup& s) {
  if (!which.empty() && which != "shm")
    throw std::runtime_error("MESHMP_PROVIDER=" + which + ": unknown provider (available: shm)");
  ShmProvider::Options o;
  o.job = s.job;
  o.token = random_hex(16);
  o.arena_token = random_hex(16);
  o.rank = s.rank;
  o.nranks = s.nranks;
  o.slots = s.slots;
  o.payload = s.payload;
  o.cma = s.cma;
  o.registered_limit = s.registered_limit;
  std::vector<std::unique_ptr<Provider>> v;
  v.push_back(std::make_unique<ShmProvider>(o));
  return v;
}

}  // namespace meshmp::mesh
