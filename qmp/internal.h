// meshmp's QMP implementation: state shared by the qmp/*.cc files. Not a
// public header; everything here is behind qmp.h's C interface.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collectives/group.h"
#include "mesh/engine.h"
#include "qmp/kept_buffers.h"
#include "qmp/qmp.h"
#include "qmp/spares.h"

namespace meshmp::qmp {

/// A declared logical topology: dims, the order in which axes vary with node
/// number (map[0] fastest), and this node's coordinates.
struct Topology {
  std::vector<int> dims;
  std::vector<int> map;
  std::vector<int> coords;
  /// This node's neighbours, node numbers: [2 * axis] in +1, [2 * axis + 1]
  /// in -1 (a relative handle's peer, found without a division).
  std::vector<int> neighbours;

  std::vector<int> coords_of(int node) const;
  int node_of(const std::vector<int>& coords) const;  // coordinates taken modulo dims
  /// node_of(coords with coords[axis] + step), without a copy.
  int neighbour(const std::vector<int>& coords, int axis, int step) const;
  /// The same grid as a Torus whose lexicographic order is node order (its
  /// axis k is logical axis map[k]), for the torus collectives.
  mesh::Torus rank_order_torus() const;
};

}  // namespace meshmp::qmp

struct QMP_comm_struct {
  meshmp::collectives::Group group;  ///< members; group.context carries collective traffic
  std::uint32_t p2p_context = 0;     ///< channels (message handles)
  std::uint32_t hidden_context = 0;  ///< the context pair of its MPI twin (QMP_get_hidden_comm)
  bool builtin = false;              ///< the allocated or job communicator: not freed by users
  int ncolors = 1, color = 0, key = 0;
  std::optional<meshmp::qmp::Topology> topo;
  std::vector<int> subgrid;          ///< QMP_layout_grid's per-node lattice extent
  int subgrid_sites = 0;
  int hidden_comm = 0;               ///< the matching MPI_Comm (QMP_get_hidden_comm), made on first use
  ~QMP_comm_struct();                ///< frees hidden_comm
};

struct QMP_mem_struct {
  void* raw = nullptr;      ///< what malloc returned (nullptr for registered memory)
  void* aligned = nullptr;  ///< what the user gets
  bool registered = false;  ///< QMP_MEM_COMMS memory from Engine::allocate_registered
  std::size_t bytes = 0, alignment = 0;  ///< as asked for (registered memory: to be kept, qmp/kept_buffers.h)
  void recycle() { *this = QMP_mem_struct{}; }  ///< for qmp/spares.h
};

struct QMP_msgmem_struct {
  char* base = nullptr;  ///< the address QMP_change_address moves (base[0] of a strided array)
  std::vector<std::pair<char*, std::size_t>> runs;  ///< (address, bytes), in message order
  std::size_t total = 0;
  /// A new object's state, the runs' storage kept (qmp/spares.h).
  void recycle() {
    auto keep = std::move(runs);
    *this = QMP_msgmem_struct{};
    runs = std::move(keep);
    runs.clear();
  }
};

struct QMP_msghandle_struct {
  enum class Kind { kSend, kRecv, kMultiple } kind = Kind::kSend;
  QMP_comm_t comm = nullptr;
  QMP_msgmem_t mem = nullptr;
  std::ptrdiff_t shift = 0;  ///< QMP_change_address: offset from mem's own addresses
  int peer = -1;             ///< world rank
  int tag = 0;
  std::uint32_t context = 0;  ///< comm's p2p_context (the communicator may be freed first)
  meshmp::mesh::Request* req = nullptr;  ///< persistent request, made on first start
  char* req_buf = nullptr;               ///< the buffer req was made for
  std::size_t req_len = 0;               ///< ... and its length in bytes
  std::vector<char> stage;               ///< packing buffer for non-contiguous memory
  std::vector<QMP_msghandle_t> members;  ///< kMultiple: owned
  bool member = false;                   ///< owned by a multiple handle
  bool active = false;
  QMP_status_t err = QMP_SUCCESS;
  std::string errstr;
  /// A new handle's state, the storage of stage and members kept unless
  /// the packing buffer is large (qmp/spares.h). Field by field: building a
  /// fresh handle and moving it over cost as much as the malloc it saves; a
  /// field added above must be reset here too (the static_assert below
  /// counts the bytes, on LP64).
  void recycle() {
    kind = Kind::kSend;
    comm = nullptr;
    mem = nullptr;
    shift = 0;
    peer = -1;
    tag = 0;
    context = 0;
    req = nullptr;
    req_buf = nullptr;
    req_len = 0;
    stage.clear();
    if (stage.capacity() > (std::size_t{1} << 20)) stage.shrink_to_fit();
    members.clear();
    member = active = false;
    err = QMP_SUCCESS;
    errstr.clear();
  }
};
static_assert(sizeof(QMP_msghandle_struct) == 4 + 4 + 8 + 8 + 8 + 4 + 4 + 4 + 4 + 8 + 8 + 8 + 24 + 24 + 1 + 1 + 2 + 4 + 32,
              "QMP_msghandle_struct changed: reset the new field in recycle()");

namespace meshmp::qmp {

/// A freed handle's channel request, kept for the next handle declared on
/// the same channel and buffer (qmp/handles.cc).
struct KeptRequest {
  mesh::Request* req;
  bool send;
  int peer, tag;
  std::uint32_t context;
  char* buf;
  std::size_t len;
};

struct State {
  bool initialized = false;
  mesh::Engine* engine = nullptr;
  QMP_comm_t allocated = nullptr, job = nullptr, dflt = nullptr;
  QMP_ictype_t ictype = QMP_SWITCH;
  std::vector<int> alloc_dims, alloc_coords;   ///< machine grid (-qmp-geom); empty on a switch
  std::vector<int> logic_map;                   ///< -qmp-logic-map
  int njobs = 1, job_number = 0;
  std::vector<int> job_geometry;
  bool job_grid = false;                        ///< jobs cut from -qmp-geom by a divisor per axis
  int verbose = 0, prof = 0;
  QMP_status_t last_error = QMP_SUCCESS;
  std::string last_error_string;
  double total_time = 0;
  std::string host;
  std::vector<KeptRequest> kept;  ///< oldest first; the engine frees them at finalize
};

/// The one QMP state of this process (inline: it is on every call's path).
inline State g_state;
inline State& state() { return g_state; }

/// Freed handles, message memories and memory descriptors for reuse.
inline Spares<QMP_msghandle_struct> g_handles;
inline Spares<QMP_msgmem_struct> g_msgmems;
inline Spares<QMP_mem_struct> g_mems;
/// Freed registered buffers, for the next allocation of their size; its
/// budget is set at init, and it is emptied at finalize (qmp/memory.cc).
inline KeptBuffers g_kept_buffers;
/// What QMP_init_msg_passing and QMP_finalize_msg_passing do with it.
void keep_buffers_within(std::size_t registered_limit);
void release_kept_buffers();

/// Reports a misuse: one QMP_error line "CALL: message", remembered as the
/// last global error. Returns `code`.
QMP_status_t fail(QMP_status_t code, const char* call, const std::string& message);
/// What an entry point returns when an exception escapes its body (the
/// QMP_END_* macros): QMP_NOMEM_ERR for a failed allocation (std::bad_alloc,
/// std::length_error), QMP_ERROR for anything else, reported through fail()
/// naming `call`. Never throws: no C++ exception leaves qmp.h's C interface.
QMP_status_t failed_call(const char* call) noexcept;
/// Closes an entry point's function-try-block: QMP_status_t functions return
/// failed_call()'s status, handle-returning ones nullptr (the status is then
/// QMP_get_error_number(NULL)).
#define QMP_END_STATUS(name) \
  catch (...) { return ::meshmp::qmp::failed_call(#name); }
#define QMP_END_HANDLE(name)                  \
  catch (...) {                               \
    ::meshmp::qmp::failed_call(#name);        \
    return nullptr;                           \
  }
/// check_init's error path: QMP_NOT_INITED with its message; false.
bool not_initialized(const char* call);
/// QMP_NOT_INITED with its message if QMP is not running.
inline bool check_init(const char* call) { return g_state.initialized || not_initialized(call); }
/// check_comm's error path (QMP not running, or comm NULL): nullptr after fail().
QMP_comm_t bad_comm(QMP_comm_t comm, const char* call);
/// A usable communicator or nullptr (after fail()).
inline QMP_comm_t check_comm(QMP_comm_t comm, const char* call) {
  return g_state.initialized && comm ? comm : bad_comm(comm, call);
}

/// Translates a core error into a QMP status.
QMP_status_t status_of(mesh::Error e);

/// A new communicator from `members` (world ranks, in rank order) of which
/// this node is `me`, with fresh contexts agreed over `parent` (collective
/// over it); nullptr on every member if no context pair is left.
QMP_comm_t make_comm(QMP_comm_t parent, std::vector<int> members, int me);
/// What a QMP call says when make_comm() returned nullptr: no context pair
/// is left (mesh/context_ids.h).
std::string no_context_message();

/// Wall-clock seconds (steady clock): QMP_time, and the profile below.
double now();

/// Seconds spent in QMP calls are accumulated while one of these lives,
/// when profiling is on (QMP_profcontrol(level > 0)); otherwise it costs a
/// load and a branch -- two clock reads per call were a third of a 2-rank
/// 8-byte QMP_broadcast.
class TimeInQmp {
 public:
  TimeInQmp() : t0_(state().prof > 0 ? now() : -1.0) {}
  ~TimeInQmp() {
    if (t0_ >= 0) [[unlikely]] state().total_time += now() - t0_;
  }

 private:
  double t0_;
};

}  // namespace meshmp::qmp
