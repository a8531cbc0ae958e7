// meshmp's MPI-1.1 implementation: state shared by the mpi11/*.cc files. Not
// a public header; everything here is behind mpi.h's C interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectives/group.h"
#include "collectives/schedule.h"
#include "mesh/engine.h"
#include "mpi11/mpi.h"

// Defines PMPI_name and makes MPI_name a weak alias of it (MPI-1.1 §8.3).
// The body is a function-try-block that MESHMP_MPI_END(name) closes: no C++
// exception leaves the C interface. An allocation that fails anywhere inside
// returns MPI_ERR_NO_MEM (MPI-2.2 §8.4's class) through the world's error
// handler, naming the call; any other exception, MPI_ERR_INTERN.
#define MESHMP_MPI_FN(ret, name, params)                                                     \
  extern "C" ret MPI_##name params __attribute__((weak, alias("PMPI_" #name))); \
  extern "C" ret PMPI_##name params try
#define MESHMP_MPI_END(name)                                                   \
  catch (const std::exception& e) {                                            \
    return ::meshmp::mpi::failed_call("MPI_" #name, e);                        \
  }
/// A call of a chapter meshmp does not provide, `what` naming the chapter:
/// it fails (refuse_unsupported), whatever its arguments.
#define MESHMP_MPI_REFUSED(name, params, what)                           \
  MESHMP_MPI_FN(int, name, params) {                                     \
    return ::meshmp::mpi::refuse_unsupported("MPI_" #name, what);        \
  }                                                                      \
  MESHMP_MPI_END(name)
/// A call that cannot fail (MPI_Wtime, MPI_Wtick): no try block.
#define MESHMP_MPI_FN_NOTHROW(ret, name, params)                                     \
  extern "C" ret MPI_##name params __attribute__((weak, alias("PMPI_" #name))); \
  extern "C" ret PMPI_##name params

namespace meshmp::mpi {

// ---- errors (errors.cc) -------------------------------------------------------

/// Raises an error of `cls` in `call` on `comm` (MPI_COMM_NULL: the world's
/// handler): remembers "call: message" behind a fresh error code, then runs
/// the handler (MPI_ERRORS_ARE_FATAL prints it and ends the job). Returns the
/// code for the caller to return (MPI-1.1 §7.2).
int raise(MPI_Comm comm, const char* call, int cls, const std::string& message);
/// What MESHMP_MPI_END returns for an exception `e` out of `call`:
/// MPI_ERR_NO_MEM for a failed allocation (std::bad_alloc, std::length_error),
/// MPI_ERR_INTERN otherwise, raised on the world's handler.
int failed_call(const char* call, const std::exception& e);
/// Runs `comm`'s error handler on error code `code` (not MPI_SUCCESS);
/// returns the code.
int run_handler(MPI_Comm comm, int code);
/// Runs `comm`'s error handler on an existing error code; returns the code.
/// MPI_SUCCESS is returned inline (on every blocking receive's path; a call
/// to find that out cost 26 instructions, run_handler's frame).
inline int report(MPI_Comm comm, int code) { return code == MPI_SUCCESS ? code : run_handler(comm, code); }
/// The MPI error class of a core error.
int class_of(mesh::Error e);
/// An error code for a core error on a request, with its message
/// (MPI_SUCCESS for none: inline, it is on every completion's path).
int failed_code(mesh::Error e, const char* call);
inline int code_of(mesh::Error e, const char* call) {
  return e == mesh::Error::kOk ? MPI_SUCCESS : failed_code(e, call);
}
/// Whether `code` is an MPI error code or class: MPI_SUCCESS, a predefined
/// class, one MPI_Add_error_class/_code made, or a class with a remembered
/// message (what MPI_Error_class accepts).
bool is_error_code(int code);
/// A call of a chapter meshmp does not provide (one-sided communication,
/// parallel I/O: docs/mpi.md): MPI_ERR_UNSUPPORTED_OPERATION (MPI-3.1
/// Table 8.2), "call: <what> is not provided by meshmp; see docs/mpi.md",
/// raised on `comm` (MPI_COMM_NULL: the world's handler). Before MPI_Init,
/// check_init's error.
int refuse_unsupported(const char* call, const char* what, MPI_Comm comm = MPI_COMM_NULL);
/// An error code of class `cls` whose string is "call: message", raised on
/// no handler (a request's error, reported when it completes).
int error_code(int cls, const char* call, const std::string& message);

// ---- datatypes (datatype.cc) --------------------------------------------------

/// A contiguous piece of one instance of a type: `len` bytes at `offset`
/// from the buffer address.
struct Run {
  MPI_Aint offset;
  std::size_t len;
};

struct TypeInfo;

/// One block of a derived type's description: `blocklen` instances of
/// `child`, back to back (the child's extent apart), from byte `disp`; the
/// block repeated `reps` times, `rep_stride` bytes apart (a vector's count
/// and stride). A type's memory is that of its constructor's arguments, not
/// of its elements (MPICH's dataloops work the same way).
struct TypeBlock {
  MPI_Aint disp = 0;
  std::size_t blocklen = 0;
  std::size_t reps = 1;
  MPI_Aint rep_stride = 0;
  std::shared_ptr<const TypeInfo> child;
};

/// How a derived datatype was made (MPI-2.2 §4.1.13, what
/// MPI_Type_get_envelope/contents return): the combiner and the
/// constructor's integer, address and datatype arguments in the order of the
/// standard's table. A predefined type's combiner is MPI_COMBINER_NAMED.
struct Envelope {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Datatype> types;  ///< the handles the program passed
  /// What those handles were when passed (the program may free them since).
  std::vector<std::shared_ptr<const TypeInfo>> kept;
};

/// A committed or uncommitted datatype: its description (`blocks`) and, when
/// its type map has at most kMaxFlatRuns contiguous pieces, that map
/// flattened into the runs of one instance (adjacent runs merged), so
/// packing is a list of memcpys; larger maps are walked (for_each_run).
/// `contiguous` types are sent straight from the user's buffer.
struct TypeInfo {
  static constexpr std::size_t kMaxFlatRuns = 4096;
  bool in_use = false;
  bool predefined = false;
  bool committed = false;
  std::string name;
  std::size_t size = 0;          ///< bytes of data in one instance
  MPI_Aint lb = 0, ub = 0;       ///< extent = ub - lb (MPI-1.1 §3.12.3)
  MPI_Aint true_lb = 0, true_ub = 0;  ///< span of the data itself
  bool lb_marker = false, ub_marker = false;  ///< set explicitly by MPI_LB / MPI_UB
  std::size_t align = 1;         ///< largest alignment of a basic type inside
  bool flat = false;             ///< `runs` hold the type map (else walk `blocks`)
  std::vector<Run> runs;         ///< one instance, in type-map order, when flat
  std::vector<TypeBlock> blocks;  ///< a derived type's description
  std::vector<std::size_t> element_sizes;  ///< predefined: its basic elements' sizes, in order
  std::size_t elements = 0;      ///< basic elements in one instance (MPI_Get_elements)
  /// The single basic type every element is (predefined ops apply), else 0.
  MPI_Datatype uniform = MPI_DATATYPE_NULL;
  bool contiguous = false;       ///< one run at offset true_lb, size == extent
  Envelope envelope;             ///< how it was made
  std::map<int, void*> attributes;  ///< keyval -> value (MPI-2.2 §6.7.4)

  MPI_Aint extent() const { return ub - lb; }
};

/// The datatype table: handle -> type; handles below kFirstDerived are the
/// predefined types (some reserved), freed derived handles are reused.
struct Types {
  static constexpr int kFirstDerived = 96;
  std::vector<std::shared_ptr<TypeInfo>> table;
  Types();  // the predefined types (datatype.cc)
  MPI_Datatype add(std::shared_ptr<TypeInfo> t);
};
/// Inline: looked up on every call's path.
inline Types g_types;

/// The type behind a handle, or nullptr.
inline const TypeInfo* type_info(MPI_Datatype t) {
  const auto& tb = g_types.table;
  return t > 0 && static_cast<std::size_t>(t) < tb.size() ? tb[static_cast<std::size_t>(t)].get() : nullptr;
}
/// A reference that keeps a type alive after MPI_Type_free (pending requests).
std::shared_ptr<const TypeInfo> keep_type(MPI_Datatype t);
/// A type built from its blocks (datatype.cc): bounds from the LB/UB markers
/// if any, else from the data, padded to the strictest alignment inside if
/// `pad_to_alignment` (a struct); flattened when small enough.
std::shared_ptr<TypeInfo> build_type(const std::vector<TypeBlock>& blocks, bool pad_to_alignment);
/// `t` with its lower bound at `lb` and upper bound at lb + extent, bytes
/// (MPI-2.2 §4.1.7, MPI_Type_create_resized): the markers it had are erased
/// and these put instead, so a type holding it sees only these.
std::shared_ptr<TypeInfo> resize_type(std::shared_ptr<TypeInfo> t, MPI_Aint lb, MPI_Aint extent);
/// Registers a newly constructed type under a fresh handle in *newtype, with
/// the envelope its constructor was called with (MPI_ERR_ARG if newtype is NULL).
int make_type(const char* call, std::shared_ptr<TypeInfo> t, MPI_Datatype* newtype, Envelope env);
/// A constructor's old type, committed or not; nullptr after raising
/// MPI_ERR_TYPE naming `arg` of `call`.
const TypeInfo* old_type(const char* call, MPI_Datatype t, int* err, const char* arg = "oldtype");
/// check_type's error path: raises MPI_ERR_TYPE naming `arg` of `call`.
int bad_type(MPI_Comm comm, const char* call, MPI_Datatype t, const char* arg);
/// MPI_SUCCESS or the error code of a bad datatype/count argument for `call`.
inline int check_type(MPI_Comm comm, const char* call, MPI_Datatype t, const char* arg = "datatype") {
  const TypeInfo* ti = type_info(t);
  if (ti && ti->committed && t != MPI_LB && t != MPI_UB) [[likely]] return MPI_SUCCESS;
  return bad_type(comm, call, t, arg);
}
/// check_count's error path: raises MPI_ERR_COUNT.
int bad_count(MPI_Comm comm, const char* call, int count, const char* arg);
inline int check_count(MPI_Comm comm, const char* call, int count, const char* arg = "count") {
  if (count >= 0) [[likely]] return MPI_SUCCESS;
  return bad_count(comm, call, count, arg);
}

namespace detail {
template <typename F>
void walk(const TypeInfo& t, MPI_Aint base, F& f) {
  if (t.flat) {
    for (const Run& r : t.runs) f(base + r.offset, r.len);
    return;
  }
  for (const TypeBlock& b : t.blocks) {
    const TypeInfo& c = *b.child;
    const MPI_Aint ext = c.extent();
    // A dense child (one run as long as its extent): a block of them is one
    // run, so a block of 2^31 elements costs one call, not 2^31 (issue 29).
    const bool dense = c.flat && c.runs.size() == 1 && ext > 0 && static_cast<MPI_Aint>(c.size) == ext;
    for (std::size_t r = 0; r < b.reps; ++r) {
      const MPI_Aint at = base + b.disp + static_cast<MPI_Aint>(r) * b.rep_stride;
      if (dense) {
        if (b.blocklen) f(at + c.runs[0].offset, b.blocklen * c.size);
        continue;
      }
      for (std::size_t j = 0; j < b.blocklen; ++j) walk(c, at + static_cast<MPI_Aint>(j) * ext, f);
    }
  }
}
}  // namespace detail

/// Calls f(offset, bytes) for every contiguous piece of the data of `count`
/// instances of t laid out with t's extent from offset 0, in type-map order,
/// adjacent pieces merged. Memory: none beyond the call stack (a type's depth).
template <typename F>
void for_each_run(const TypeInfo& t, std::size_t count, F&& f) {
  MPI_Aint at = 0;
  std::size_t len = 0;
  auto merge = [&](MPI_Aint off, std::size_t n) {
    if (n == 0) return;
    if (len && at + static_cast<MPI_Aint>(len) == off) {
      len += n;
      return;
    }
    if (len) f(at, len);
    at = off;
    len = n;
  };
  for (std::size_t k = 0; k < count; ++k) detail::walk(t, static_cast<MPI_Aint>(k) * t.extent(), merge);
  if (len) f(at, len);
}

/// Packs `count` instances of `t` at `buf` into `out` (count * t.size bytes).
void pack(const TypeInfo& t, const void* buf, std::size_t count, char* out);
/// Unpacks up to `bytes` packed bytes into `count` instances at `buf`.
void unpack(const TypeInfo& t, const char* in, std::size_t bytes, void* buf, std::size_t count);
/// Number of basic elements in the first `bytes` packed bytes of instances of t.
std::size_t elements_in(const TypeInfo& t, std::size_t bytes);
/// The address of the first data byte of a contiguous type's buffer.
inline const char* data_start(const TypeInfo& t, const void* buf) {
  return static_cast<const char*>(buf) + t.true_lb;
}

// ---- communicators (comm.cc) ---------------------------------------------------

enum class Topo { kNone, kCart, kGraph, kDistGraph };

struct CommInfo {
  bool in_use = false;
  bool builtin = false;
  collectives::Group group;        ///< members; group.context carries collective traffic
  std::uint32_t p2p_context = 0;   ///< point-to-point traffic
  bool owns_context = false;       ///< its pair came from the context ids (MPI_Comm_free returns it)
  std::vector<int> rank_of_world;  ///< world rank -> rank here, or -1
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  Topo topo = Topo::kNone;
  std::vector<int> dims, periods;  ///< Cartesian topology (row-major rank order)
  std::vector<int> index, edges;   ///< graph topology, as given to MPI_Graph_create
  /// Distributed graph (MPI-2.2 §7.5.4): this process's in- and out-edges
  /// (ranks here) and their weights (empty when unweighted).
  std::vector<int> sources, destinations, source_weights, dest_weights;
  bool weighted = false;
  /// Intercommunicator (§5.6): the remote group's world ranks. Then `group`
  /// is the local group (its context carries the leaders' set-up traffic),
  /// ranks in point-to-point calls name remote processes, and rank_of_world
  /// indexes the remote group.
  bool inter = false;
  std::vector<int> remote;
  /// Intercommunicator: its local group as an intracommunicator, made at
  /// its first collective (coll_inter.cc) and freed with it.
  MPI_Comm local_comm = MPI_COMM_NULL;
  std::map<int, void*> attributes;  ///< keyval -> value (§5.7)
  std::string name;                 ///< MPI_Comm_set_name
  /// Nonblocking collectives started here: the tag of the next (its members
  /// start them in the same order, so they number them alike).
  std::uint32_t nonblocking_seq = 0;

  int size() const { return group.size(); }
  int rank() const { return group.me; }
  /// The number of processes point-to-point ranks name, and the world rank of one.
  [[gnu::always_inline]] int peer_count() const { return inter ? static_cast<int>(remote.size()) : group.size(); }
  [[gnu::always_inline]] int peer_world(int rank) const { return inter ? remote[rank] : group.ranks[rank]; }
};

/// A process group (§5.3): world ranks in group-rank order.
struct GroupInfo {
  bool in_use = false;
  std::vector<int> ranks;
};

/// An attribute key (MPI_Keyval_create / MPI_Comm_create_keyval).
struct Keyval {
  bool in_use = false;      ///< false once freed by the user (attributes may still refer to it)
  int refs = 0;             ///< attributes set with it, plus one while not freed
  MPI_Copy_function* copy = nullptr;
  MPI_Delete_function* del = nullptr;
  void* extra_state = nullptr;
  /// Keys made from Fortran: the record behind extra_state that the C
  /// trampolines in copy/del read (mpi11/fortran/attr.cc), freed with the key.
  std::shared_ptr<void> binding;
  bool for_types = false;  ///< a datatype key (MPI_Type_create_keyval), else a communicator key
};

/// Communicators by handle (index). Each lives at a fixed address (callers
/// hold pointers across creations), and a lookup is two loads: it is on every
/// call's path, where a std::deque's index arithmetic cost 24 more instructions.
class CommTable {
 public:
  std::size_t size() const { return slots_.size(); }
  CommInfo& operator[](std::size_t h) { return *slots_[h]; }
  void push_back(CommInfo c) { slots_.push_back(std::make_unique<CommInfo>(std::move(c))); }
  void emplace_back() { slots_.push_back(std::make_unique<CommInfo>()); }
  void clear() { slots_.clear(); }

 private:
  std::vector<std::unique_ptr<CommInfo>> slots_;
};

struct State {
  bool initialized = false, finalized = false;
  bool started_by_qmp = false;  ///< QMP_init started MPI; the program has not called MPI_Init
  int thread_level = MPI_THREAD_SINGLE;  ///< as granted by MPI_Init_thread
  mesh::Engine* engine = nullptr;
  CommTable comms;                 ///< handle = index
  std::deque<GroupInfo> groups;    ///< handle = index: 0 null, 1 MPI_GROUP_EMPTY
  std::vector<Keyval> keyvals;     ///< keyval handle = index; 1..4 predefined
};
/// The one MPI state of this process (inline: it is on every call's path).
inline State g_state;
inline State& state() { return g_state; }

/// check_comm's error path: raises MPI_ERR_OTHER (not initialized) or
/// MPI_ERR_COMM and returns nullptr.
CommInfo* bad_comm(MPI_Comm comm, const char* call, int* err);
/// The communicator behind a handle or nullptr (after raising MPI_ERR_COMM).
inline CommInfo* check_comm(MPI_Comm comm, const char* call, int* err) {
  State& s = g_state;
  if (s.initialized && !s.finalized && comm > 0 && static_cast<std::size_t>(comm) < s.comms.size() &&
      s.comms[static_cast<std::size_t>(comm)].in_use) [[likely]]
    return &s.comms[static_cast<std::size_t>(comm)];
  return bad_comm(comm, call, err);
}
/// Where a communicator constructor puts its result, checked right after its
/// communicator argument: NULL raises MPI_ERR_ARG on `comm` naming `name`;
/// otherwise *out becomes MPI_COMM_NULL at once, which is what the call
/// leaves there if any later check or step fails (the standard leaves a
/// failed call's output undefined; a program that tests for MPI_COMM_NULL
/// after an error, as MPICH's test suite does, finds it).
inline int start_new_comm(MPI_Comm comm, const char* call, MPI_Comm* out, const char* name) {
  if (!out) [[unlikely]]
    return raise(comm, call, MPI_ERR_ARG, std::string(name) + " is NULL");
  *out = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
/// Communicator lookup without checks (a handle already validated).
inline CommInfo& comm_ref(MPI_Comm comm) { return state().comms[static_cast<std::size_t>(comm)]; }
/// A new communicator over `members` (world ranks in rank order) of which this
/// process is `me` (-1: not a member, returns MPI_COMM_NULL after taking part
/// in the context agreement over `parent`). *err is MPI_SUCCESS, or the code
/// of the MPI_ERR_OTHER raised on `parent` under `call` when no context pair
/// is free on every member (then MPI_COMM_NULL everywhere).
MPI_Comm make_comm(MPI_Comm parent, std::vector<int> members, int me, const char* call, int* err);
/// The context agreement alone (collective over g; mesh/context_ids.h): a
/// pair free on every member, now taken; ContextIds::kNone if there is none.
std::uint32_t agree_context(const collectives::Group& g);
/// Raises the exhaustion of context ids on `comm` under `call`.
int no_context(MPI_Comm comm, const char* call);
/// Element-wise maximum of n words over every member of g (collective).
void max_allreduce(const collectives::Group& g, std::uint32_t* words, std::size_t n);
/// An intracommunicator with an agreed context pair (no communication),
/// which it owns: MPI_Comm_free returns the pair.
MPI_Comm comm_from(std::vector<int> members, int me, std::uint32_t ctx, MPI_Errhandler errhandler);
/// One of the read-only keys of §7.1.1 (MPI_TAG_UB, MPI_HOST, MPI_IO,
/// MPI_WTIME_IS_GLOBAL), whose attribute value is a pointer to an int.
bool predefined_keyval(int keyval);
/// The largest error code or class in use, MPI_LASTUSEDCODE's value (errors.cc).
int last_used_code();
/// MPI_Comm_dup's part: runs each attribute's copy callback (attr.cc); a
/// failing callback's own code goes through from's error handler and back.
int copy_attributes(MPI_Comm from, MPI_Comm to);
/// MPI_Comm_free's part: runs every delete callback and drops the attributes.
int delete_attributes(MPI_Comm comm, const char* call);
/// The same for datatypes (MPI_Type_dup, MPI_Type_free).
int copy_type_attributes(MPI_Datatype from, MPI_Datatype to);
int delete_type_attributes(MPI_Datatype t, const char* call);
/// MPI_Comm_dup of an intercommunicator (collective over both groups).
MPI_Comm dup_intercomm(MPI_Comm comm, const char* call, int* err);
/// MPI_Comm_idup of an intercommunicator: the duplicate, without its
/// context pair yet, and in *both the group of every member of both sides
/// (the side of the lower world rank first, so the same group on both),
/// over which MPI_Comm_idup agrees on the pair in the background.
MPI_Comm idup_intercomm_shell(MPI_Comm comm, collectives::Group* both);
/// MPI_Comm_split of an intercommunicator (collective over both groups;
/// MPI-2.2 §6.4.2): MPI_COMM_NULL where this process's colour is
/// MPI_UNDEFINED or has no member on either side. MPI_Comm_create of one is
/// the split whose colour says membership and whose key is the group rank.
MPI_Comm split_intercomm(MPI_Comm comm, int color, int key, const char* call, int* err);
/// MPI_IDENT (same ranks, same order), MPI_SIMILAR (same ranks) or
/// MPI_UNEQUAL: MPI_Group_compare's answer, which MPI_Comm_compare refines.
int compare_members(const std::vector<int>& a, const std::vector<int>& b);
/// A new group handle over `ranks` (world ranks); MPI_GROUP_EMPTY if none.
MPI_Group add_group(std::vector<int> ranks);
/// Registers a finished communicator (members indexed) and returns its handle.
MPI_Comm add_comm(CommInfo c);
/// MPI_Init's part: MPI_COMM_WORLD over the launcher's torus, MPI_COMM_SELF.
void make_builtin_comms();
/// MPI_ERR_NOT_INITIALIZED-style check: false after raising if MPI is not running.
bool check_init(const char* call, int* err);
/// MPI_INFO_NULL, MPI_INFO_ENV or a live info object (info.cc).
bool info_valid(MPI_Info info);
/// The error paths of check_rank / check_tag: raise MPI_ERR_RANK / MPI_ERR_TAG.
int bad_rank(MPI_Comm comm, const CommInfo& c, const char* call, int rank, const char* arg);
int bad_tag(MPI_Comm comm, const char* call, int tag);
/// The error code of an MPI_ERR_RANK / MPI_ERR_TAG check, or MPI_SUCCESS.
/// Ranks name peers: members, or on an intercommunicator the remote group's.
inline int check_rank(MPI_Comm comm, const CommInfo& c, const char* call, int rank, const char* arg, bool any_ok) {
  if ((rank >= 0 && rank < c.peer_count()) || rank == MPI_PROC_NULL || (any_ok && rank == MPI_ANY_SOURCE)) [[likely]]
    return MPI_SUCCESS;
  return bad_rank(comm, c, call, rank, arg);
}
inline int check_tag(MPI_Comm comm, const char* call, int tag, bool any_ok) {
  if ((tag >= 0 && tag <= mesh::kTagUb) || (any_ok && tag == MPI_ANY_TAG)) [[likely]] return MPI_SUCCESS;
  return bad_tag(comm, call, tag);
}

/// The empty status of a null or inactive request (MPI-3.1 §3.7.3): source
/// MPI_ANY_SOURCE, tag MPI_ANY_TAG, error MPI_SUCCESS, count 0, not
/// cancelled. A null `st` (MPI_STATUS_IGNORE) is left alone.
void set_empty_status(MPI_Status* st);
/// The status of a receive or probe of MPI_PROC_NULL (MPI-3.1 §3.11):
/// source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0, not cancelled; its
/// error field untouched, as every call returning one status leaves it
/// (§3.2.5: only the calls returning several statuses set it).
void set_proc_null_status(MPI_Status* st);
/// Copies `from` into *to (if not null) but for the error field (§3.2.5).
inline void copy_status(MPI_Status* to, const MPI_Status& from) {
  if (!to) return;
  const int error = to->MPI_ERROR;
  *to = from;
  to->MPI_ERROR = error;
}

// ---- requests (p2p.cc) ---------------------------------------------------------

/// MPI_Finalize's part: completes requests the user freed while active,
/// nonblocking collectives never waited for, and every buffered send.
void finish_requests();
/// A request for nonblocking collective `s` that `call` built on `comm`
/// (not started yet): starts it in comm's nonblocking-collective context
/// under the next tag. Its failure is reported by the wait or test.
/// `outcome`, if given, is an MPI error code a step of `s` may set (it
/// starts as MPI_SUCCESS); the request completes with it.
int start_collective(MPI_Comm comm, const char* call, std::unique_ptr<collectives::Schedule> s, MPI_Request* request,
                     std::shared_ptr<int> outcome = nullptr);
/// Completes every outstanding buffered send (MPI_Buffer_detach, MPI_Finalize).
void drain_buffered();
/// Reserves room for a buffered send of `bytes` packed bytes in the attached
/// buffer; nullptr if it does not fit (MPI_ERR_BUFFER).
char* buffer_reserve(std::size_t bytes);
/// Hands a started core send out of the attached buffer to the buffer's
/// bookkeeping, which frees the space when it completes.
void buffer_track(char* space, mesh::Request* core);

// ---- reductions (op.cc) --------------------------------------------------------

/// The combine for `op` on `count` elements of type `t`, as the collectives
/// take it, or an MPI_ERR_OP/MPI_ERR_TYPE code. For predefined ops the data
/// are packed basic elements of t.uniform; for user ops whole instances of t
/// laid out with t's extent.
struct Reduction {
  collectives::ReduceOp op;
  bool packed = true;  ///< predefined op on packed basic elements
  std::size_t elems_per_instance = 1;
  // Context for the user function.
  MPI_User_function* user = nullptr;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Aint lb = 0;
};
int make_reduction(MPI_Comm comm, const char* call, MPI_Op op, MPI_Datatype type, Reduction* out);

}  // namespace meshmp::mpi
