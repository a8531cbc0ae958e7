// Gauge configurations in the NERSC archive format (../shared/design/
// NERSC_FORMAT.md), the format MILC, Chroma/QDP++ and Grid exchange. Node 0
// reads or writes the file and distributes or collects the sub-lattices with
// QMP point-to-point messages (no shared file system assumed).
//
// CHECKSUM, as computed here: the sum modulo 2^32 of the binary data as
// stored in the file, read as 32-bit words in the file's byte order
// (big-endian for IEEE32BIG/IEEE64BIG) and converted to host order; a 64-bit
// number contributes its two halves. This is MILC's and QDP++'s definition.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "examples/lqcd/gauge.h"

namespace lqcd {

/// A file that cannot be read as the lattice asked for. The message names
/// the file and the header key, or the byte offset, that is wrong.
struct NerscError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct NerscInfo {
  std::uint32_t checksum = 0;
  double plaquette = 0, link_trace = 0;
};

/// Reads `path` into u (every node calls this). Verifies the dimensions
/// against u's lattice, the checksum, and PLAQUETTE / LINK_TRACE against
/// values recomputed from the loaded field. Throws NerscError on every node
/// if anything is wrong; u is then unspecified.
NerscInfo read_nersc(const std::string& path, GaugeField& u);

/// Writes u to `path` as 4D_SU3_GAUGE_3x3 (or 4D_SU3_GAUGE, two rows, when
/// two_rows) in IEEE64BIG. Every node calls this; node 0 writes. Throws
/// NerscError on every node if the file cannot be written.
NerscInfo write_nersc(const std::string& path, GaugeField& u, bool two_rows = false);

}  // namespace lqcd
