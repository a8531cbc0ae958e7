// The defaults of the tunables that a config file, the engine's options and
// every provider's setup share, named once here (README "Configuration",
// docs/limits.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace meshmp::mesh {

/// Eager/rendezvous threshold in bytes: messages below it travel in a link's
/// slots, from it by RDMA write or a rendezvous (seed 003 §5.1: "<16K bytes").
inline constexpr std::size_t kDefaultEagerLimit = 16384;

/// Receive slots (tokens) per link direction, each of the eager limit. 64,
/// the message-rate benchmark's whole window of 64 sends: with 32 a sender
/// ran out of tokens halfway while the receiver posted its receives, 24.9-
/// 25.7 M messages/s against 28.2-30.9 with 64 (2 ranks, 2-core machine,
/// Open MPI 23.4-24.4; docs/performance.md). The cost: about 1 MiB of shm
/// ring per link direction, and as many posted receive buffers on an ofi
/// link (at most 32 where its slots hold 4 MiB, ofi_provider.h).
inline constexpr std::uint32_t kDefaultCredits = 64;

}  // namespace meshmp::mesh
