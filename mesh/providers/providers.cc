// The provider table: which transports exist and how each is opened
// (mesh/provider.h). The only place that names a concrete provider.
#include <stdexcept>

#include "mesh/provider.h"
#include "mesh/providers/ofi/ofi_fabric.h"
#include "mesh/providers/ofi/ofi_provider.h"
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
  o.secret = s.secret;
  o.rank = s.rank;
  o.nranks = s.nranks;
  o.slots = s.slots;
  o.payload = s.payload;
  o.cma = s.cma;
  o.registered_limit = s.registered_limit;
  o.host = s.host;
  o.forced = s.forced;
  o.named_arenas = s.shm_arena_names;
  return std::make_unique<ShmProvider>(o);
}

}  // namespace

std::vector<std::unique_ptr<Provider>> open_providers(const std::string& which, const ProviderSetup& s) {
  std::vector<std::unique_ptr<Provider>> v;
  if (which == "shm") {
    v.push_back(open_shm(s));
  } else if (which == "tcp") {
    v.push_back(std::make_unique<TcpProvider>(s));
  } else if (which == "ofi") {
    v.push_back(std::make_unique<OfiProvider>(s));
  } else if (which.empty() || which == "auto") {
    // Asked in this order who reaches a peer: shm on this host; beyond it
    // ofi over the libfabric provider MESHMP_OFI_PROVIDER names, or over a
    // hardware fabric libfabric finds, else tcp.
    v.push_back(open_shm(s));
    const bool fabric = !s.ofi_provider.empty() || !ofi::hardware_provider().empty();
    if (!fabric) {
      v.push_back(std::make_unique<TcpProvider>(s));
    } else {
      // Every rank must choose alike (their address cards are exchanged by
      // provider name), so a fabric that cannot open stops the start, saying
      // how to run over TCP instead.
      try {
        v.push_back(std::make_unique<OfiProvider>(s));
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string(e.what()) +
                                 " (an RDMA fabric was found or MESHMP_OFI_PROVIDER is set; "
                                 "MESHMP_PROVIDER=tcp runs over TCP between hosts instead)");
      }
    }
  } else {
    throw std::runtime_error("MESHMP_PROVIDER=" + which + ": unknown provider (available: auto, shm, tcp, ofi)");
  }
  return v;
}

}  // namespace meshmp::mesh
