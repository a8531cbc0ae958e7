// What the ofi provider asks libfabric for (issue 28): connected endpoints
// (FI_EP_MSG: on InfiniBand/RoCE libfabric's verbs provider, an RC queue
// pair -- the VI connection of seed 003 §5.1 / seed 000 §3.4) with sends,
// receives and RDMA writes (FI_MSG | FI_RMA), and how its errors read.
#pragma once

#include <rdma/fabric.h>

#include <stdexcept>
#include <string>

namespace meshmp::mesh::ofi {

inline constexpr unsigned kApiVersion = FI_VERSION(1, 17);

/// "<what>: <fi_strerror(-rc)>" as the message of a std::runtime_error.
std::runtime_error error(const std::string& what, int rc);

/// Hints for a connected endpoint with FI_MSG | FI_RMA that keeps sends in
/// order and behind earlier writes (FI_ORDER_SAS | FI_ORDER_SAW), which the
/// libfabric provider `prov` ("" = any) offers; the registration modes
/// meshmp handles (local registration, virtual addresses, provider keys).
/// The caller frees it (lib().freeinfo).
fi_info* make_hints(const std::string& prov);

/// Whether libfabric's provider `name` moves data in hardware (verbs,
/// psm2, opx, cxi, efa, ...) rather than over sockets or memory (tcp,
/// sockets, udp, shm and the utility layers).
bool is_hardware(const std::string& name);

/// Whether this machine has an RDMA adapter libfabric could drive (an
/// entry in /sys/class/infiniband, a /dev/cxi* or /dev/hfi1_* device).
bool rdma_device_present();

/// The first hardware provider fi_getinfo offers connected endpoints with
/// RDMA writes from, or "" if there is none (--provider auto's choice
/// between ofi and meshmp's own tcp between hosts). Asks libfabric only
/// where rdma_device_present().
std::string hardware_provider();

}  // namespace meshmp::mesh::ofi
