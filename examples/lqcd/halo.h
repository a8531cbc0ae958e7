// Halo exchange of a field stored on the extended sub-lattice (layout.h)
// through QMP channels: per axis, the face x_mu = l_mu - 1 goes to the +mu
// neighbour's halo x_mu = -1, and x_mu = 0 to the -mu neighbour's x_mu = l_mu
// (seed 003 §5.1: nearest-neighbour sends on the torus links). The send and
// receive handles (QMP_declare_send_relative / QMP_declare_receive_relative
// into QMP_MEM_COMMS buffers) are declared once and restarted every exchange.
// An axis with one node wraps by a local copy.
#pragma once

#include <qmp.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "examples/lqcd/layout.h"

namespace lqcd {

class Halo {
 public:
  enum class Shape {
    kFaces,    ///< nearest neighbours only; all axes at once (a Dirac operator's hops)
    kCorners,  ///< also diagonal neighbours: axis after axis, each carrying the halo of the
               ///< axes before it (staples reach x + mu - nu)
  };

  /// Throws std::runtime_error if QMP cannot declare the buffers or handles.
  Halo(const Layout& layout, std::size_t site_bytes, Shape shape);  // keeps a reference to layout
  Halo(const Layout&&, std::size_t, Shape) = delete;                 // a temporary layout would dangle
  ~Halo();
  Halo(const Halo&) = delete;
  Halo& operator=(const Halo&) = delete;

  /// kFaces: packs every face and starts the sends and receives; the caller
  /// then works on the interior and calls finish(), which waits and fills the
  /// halo. `field` points at ext_volume sites of site_bytes each.
  void start(char* field);
  void finish(char* field);
  /// Whole exchange (kCorners: axis by axis; kFaces: start + finish).
  void exchange(char* field);

  /// Seconds spent in QMP_wait so far (time the computation waited for data).
  double wait_seconds() const { return wait_seconds_; }

 private:
  struct Axis {
    bool remote = false;
    std::vector<std::int64_t> send_up, recv_up, send_down, recv_down;  // extended indices
    QMP_mem_t* mem[4] = {};            // send up, send down, recv up (from -), recv down (from +)
    QMP_msgmem_t msgmem[4] = {};
    QMP_msghandle_t handles = nullptr; // the four, as one multiple handle (kCorners)
    QMP_msghandle_t parts[4] = {};
  };
  /// Fills the send buffers of `axis`, or (one node on it) the halo itself.
  void pack(int axis, char* field);
  void unpack(int axis, char* field);
  void wait(QMP_msghandle_t h);

  const Layout& layout_;
  std::size_t site_bytes_;
  Shape shape_;
  Axis axes_[4];
  QMP_msghandle_t all_ = nullptr;  // every remote axis at once (kFaces)
  double wait_seconds_ = 0;
};

}  // namespace lqcd
