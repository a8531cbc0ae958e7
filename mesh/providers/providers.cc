// The provider table: which transports exist and how each is opened
// (mesh/provider.h). The only place that names a concrete provider.
#include <stdexcept>

#include "mesh/provider.h"
#include "mesh/providers/shm/shm_provider.h"
#include "mesh/providers/tcp/tcp_provider.h"
#include "mesh/random_token.h"

namespace meshmp::mesh {

namespace {

std::unique_ptr<Provider> open_shm(const ProviderSetup& s) {
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
  o.host = s.host;
  o.forced = s.forced;
  return std::make_unique<ShmProvider>(o);
}

}  // namespace

std::vector<std::unique_ptr<Provider>> open_providers(const std::string& which, const ProviderSetup& s) {
  std::vector<std::unique_ptr<Provider>> v;
  if (which == "shm") {
    v.push_back(open_shm(s));
  } else if (which == "tcp") {
    v.push_back(std::make_unique<TcpProvider>(s));
  } else if (which.empty() || which == "auto") {
    // Asked in this order who reaches a peer: shm on this host, tcp beyond.
    v.push_back(open_shm(s));
    v.push_back(std::make_unique<TcpProvider>(s));
  } else {
    throw std::runtime_error("MESHMP_PROVIDER=" + which + ": unknown provider (available: auto, shm, tcp)");
  }
  return v;
}

}  // namespace meshmp::mesh
