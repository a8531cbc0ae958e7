// Which host a rank runs on, as the providers decide locality (issue 17,
// ARCHITECTURE.md §6): two ranks share a host when they share the kernel
// (its boot id) *and* the network namespace -- on the namespace testbed
// (tools/qmp-mesh) each namespace is a host of its own, as a node of a real
// mesh is.
#pragma once

#include <string>

namespace meshmp::mesh {

/// "<boot id>/<network namespace inode>". Throws std::runtime_error if
/// /proc does not say (no /proc mounted).
std::string host_identity();

/// The kernel part of a host_identity() (ranks that could share memory).
std::string kernel_of(const std::string& host_identity);

/// Host names as a config, a resource manager or a user write them: equal,
/// or equal up to the first dot where one of them is a short name ("n01"
/// and "n01.cluster").
bool same_host_name(const std::string& a, const std::string& b);

}  // namespace meshmp::mesh
