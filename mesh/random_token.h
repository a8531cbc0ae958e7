// Unguessable tokens from the kernel's random source (getrandom(2)): the
// per-job secret and the per-rank parts of shared-memory names.
#pragma once

#include <cstddef>
#include <string>

namespace meshmp::mesh {

/// `bytes` random bytes as 2*bytes lower-case hex digits. Throws
/// std::runtime_error if the kernel cannot supply them.
std::string random_hex(std::size_t bytes);

}  // namespace meshmp::mesh
