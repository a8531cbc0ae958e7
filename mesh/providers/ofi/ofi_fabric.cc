#include "mesh/providers/ofi/ofi_fabric.h"
#include "mesh/providers/ofi/ofi_library.h"

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <cstring>
#include <filesystem>
#include <system_error>

namespace meshmp::mesh::ofi {

std::runtime_error error(const std::string& what, int rc) {
  return std::runtime_error("ofi: " + what + ": " + ofi::lib().strerror(rc < 0 ? -rc : rc));
}

fi_info* make_hints(const std::string& prov) {
  fi_info* h = ofi::lib().dupinfo(nullptr);
  if (!h) throw std::runtime_error("ofi: fi_allocinfo: out of memory");
  h->ep_attr->type = FI_EP_MSG;
  h->caps = FI_MSG | FI_RMA;
  h->mode = FI_CONTEXT | FI_CONTEXT2;  // every operation's context starts with a struct fi_context2
  h->addr_format = FI_SOCKADDR_IN;
  h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  h->domain_attr->threading = FI_THREAD_DOMAIN;
  h->domain_attr->resource_mgmt = FI_RM_ENABLED;
  // Frames in order, and a frame sent after a write (the engine's DONE)
  // arrives after the written bytes: a provider that cannot promise both
  // is not offered.
  h->tx_attr->msg_order = FI_ORDER_SAS | FI_ORDER_SAW;
  h->rx_attr->msg_order = FI_ORDER_SAS | FI_ORDER_SAW;
  if (!prov.empty()) h->fabric_attr->prov_name = ::strdup(prov.c_str());
  return h;
}

bool is_hardware(const std::string& name) {
  for (const char* soft : {"tcp", "sockets", "udp", "shm", "net", "ofi_rxm", "ofi_rxd", "ofi_mrail", "ofi_hook"})
    if (name.rfind(soft, 0) == 0) return false;
  return !name.empty();
}

bool rdma_device_present() {
  // verbs (InfiniBand, RoCE, iWARP) and efa: /sys/class/infiniband/<dev>;
  // cxi (Slingshot): /dev/cxi<n>; psm2/opx (Omni-Path): /dev/hfi1_<n>.
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/sys/class/infiniband", ec)) {
    (void)e;
    return true;
  }
  for (const auto& e : std::filesystem::directory_iterator("/dev", ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("cxi", 0) == 0 || n.rfind("hfi1_", 0) == 0) return true;
  }
  return false;
}

std::string hardware_provider() {
  // fi_getinfo loads and asks every libfabric provider (tens of ms per
  // process): not on a machine without an RDMA device.
  if (!rdma_device_present() || !available()) return "";
  fi_info* hints = make_hints("");
  fi_info* info = nullptr;
  std::string found;
  if (ofi::lib().getinfo(kApiVersion, nullptr, nullptr, 0, hints, &info) == 0)
    for (fi_info* i = info; i && found.empty(); i = i->next)
      if (is_hardware(i->fabric_attr->prov_name)) found = i->fabric_attr->prov_name;
  ofi::lib().freeinfo(info);
  ofi::lib().freeinfo(hints);
  return found;
}

}  // namespace meshmp::mesh::ofi
