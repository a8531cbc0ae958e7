/*
 * qmp.h -- meshmp's QMP 2.5 interface (drop-in for USQCD QMP 2.5.4, as used by
 * QDP++/Chroma, MILC's com_qmp.c and QUDA). Names, values and signatures follow
 * ../shared/design/QMP_API.md; behaviour where the reference aborts on misuse
 * is documented per function: meshmp returns a QMP_status_t and reports the
 * problem through QMP_error instead.
 *
 * Node numbers are ranks in the communicator the call acts on ("the" default
 * communicator for the forms without QMP_comm_); sizes are in bytes unless a
 * parameter says elements.
 *
 * Statuses, for every call that returns a QMP_status_t: QMP_SUCCESS;
 * QMP_NOT_INITED before QMP_init_msg_passing or after
 * QMP_finalize_msg_passing; QMP_INVALID_ARG for a NULL communicator, handle
 * or buffer, or an argument out of range (the message names it, through
 * QMP_get_error_string(NULL)); and for a call that communicates: QMP_ERROR
 * when a peer died, finalized or its link failed (within
 * MESHMP_TCP_TIMEOUT_MS across hosts), QMP_MEMSIZE_ERR when a message is
 * longer than the memory that receives it (the nodes' sizes differ),
 * QMP_BAD_MESSAGE when a peer sent malformed data. A QMP_comm_X call is X
 * on the given communicator. Section names refer to the QMP 2.5
 * specification (USQCD, "QMP: the message passing API for lattice QCD").
 */
#ifndef MESHMP_QMP_H
#define MESHMP_QMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QMP_VERSION_STR "2.5.4"
#define QMP_VERSION_INT 2005004

#define _QMP_UNUSED_ARGUMENT(x) ((void)(x))

typedef int QMP_bool_t;
#define QMP_TRUE 1
#define QMP_FALSE 0

typedef enum QMP_status {
  QMP_SUCCESS = 0,
  QMP_ERROR = 0x1001,
  QMP_NOT_INITED,
  QMP_RTENV_ERR,
  QMP_CPUINFO_ERR,
  QMP_NODEINFO_ERR,
  QMP_NOMEM_ERR,
  QMP_MEMSIZE_ERR,
  QMP_HOSTNAME_ERR,
  QMP_INITSVC_ERR,
  QMP_TOPOLOGY_EXISTS,
  QMP_CH_TIMEOUT,
  QMP_NOTSUPPORTED,
  QMP_SVC_BUSY,
  QMP_BAD_MESSAGE,
  QMP_INVALID_ARG,
  QMP_INVALID_TOPOLOGY,
  QMP_NONEIGHBOR_INFO,
  QMP_MEMSIZE_TOOBIG,
  QMP_BAD_MEMORY,
  QMP_NO_PORTS,
  QMP_NODE_OUTRANGE,
  QMP_CHDEF_ERR,
  QMP_MEMUSED_ERR,
  QMP_INVALID_OP,
  QMP_TIMEOUT,
  QMP_MAX_STATUS
} QMP_status_t;

typedef enum QMP_ictype {
  QMP_SWITCH = 0,
  QMP_GRID = 1,
  QMP_MESH = 1,
  QMP_FATTREE = 2
} QMP_ictype_t;

typedef enum QMP_thread_level {
  QMP_THREAD_SINGLE,
  QMP_THREAD_FUNNELED,
  QMP_THREAD_SERIALIZED,
  QMP_THREAD_MULTIPLE
} QMP_thread_level_t;

typedef enum QMP_clear_to_send {
  QMP_CTS_DISABLED = -1,
  QMP_CTS_NOT_READY = 0,
  QMP_CTS_READY = 1
} QMP_clear_to_send_t;

#define QMP_ALIGN_ANY 0
#define QMP_ALIGN_DEFAULT 64
#define QMP_MEM_NONCACHE 0x01
#define QMP_MEM_COMMS 0x02
#define QMP_MEM_FAST 0x04
#define QMP_MEM_DEFAULT (QMP_MEM_COMMS | QMP_MEM_FAST)

typedef struct QMP_mem_struct QMP_mem_t;
typedef struct QMP_msgmem_struct* QMP_msgmem_t;
typedef struct QMP_msghandle_struct* QMP_msghandle_t;
typedef struct QMP_comm_struct* QMP_comm_t;

/** User reduction for QMP_binary_reduction: inout = inout (op) in, over the
 *  whole buffer. Must be associative and commutative. */
typedef void (*QMP_binary_func)(void* inout, void* in);

/* ---- start and stop ------------------------------------------------------ */

/** Starts message passing: the core (mesh/) from qmprun's environment, the
 *  machine geometry from -qmp-geom (or the launcher's torus with
 *  `-qmp-geom native`), the job split from -qmp-job. Removes the -qmp-*
 *  options from argv (which stays NULL-terminated). *provided is at most
 *  QMP_THREAD_SERIALIZED: any thread may call, one at a time. Returns QMP_INVALID_ARG for a malformed option,
 *  QMP_RTENV_ERR if the runtime cannot start. */
QMP_status_t QMP_init_msg_passing(int* argc, char*** argv, QMP_thread_level_t required,
                                  QMP_thread_level_t* provided);
/** QMP_TRUE between QMP_init_msg_passing and QMP_finalize_msg_passing (QMP 2.5: Initialization). */
QMP_bool_t QMP_is_initialized(void);
/** Ends message passing on this node: frees the allocated and job
 *  communicators, finishes meshmp's MPI if QMP started it, delivers this
 *  node's last messages and tells its peers it has finished (a receive from
 *  it then fails instead of waiting). Every node must call it (a node that
 *  exits without it ends the job under qmprun). Later calls return
 *  QMP_NOT_INITED. */
void QMP_finalize_msg_passing(void);
/** Ends the whole job (every rank) with error_code. Does not return. */
void QMP_abort(int error_code);
/** QMP_abort after printing message on stderr. */
void QMP_abort_string(int error_code, char* message);

/* ---- communicators ------------------------------------------------------- */

/** The communicator of every node the job was allocated (QMP 2.5:
 *  Communicators); never NULL after QMP_init_msg_passing. */
QMP_comm_t QMP_comm_get_allocated(void);
/** Replaces the allocated communicator; QMP_INVALID_ARG for NULL. */
QMP_status_t QMP_comm_set_allocated(QMP_comm_t comm);
/** The communicator of this node's job (-qmp-job splits the allocation into
 *  jobs); the allocated one when there is one job. */
QMP_comm_t QMP_comm_get_job(void);
/** Replaces the job communicator; QMP_INVALID_ARG for NULL. */
QMP_status_t QMP_comm_set_job(QMP_comm_t comm);
/** The communicator the calls without QMP_comm_ act on: the job's at start. */
QMP_comm_t QMP_comm_get_default(void);
/** Makes comm the default communicator; QMP_INVALID_ARG for NULL. */
QMP_status_t QMP_comm_set_default(QMP_comm_t comm);
/** Collective over comm: nodes with equal color form a new communicator,
 *  ranked by (key, rank in comm). */
QMP_status_t QMP_comm_split(QMP_comm_t comm, int color, int key, QMP_comm_t* newcomm);
/** Frees a communicator made by QMP_comm_split (collective over it).
 *  QMP_INVALID_ARG for the allocated and job communicators. */
QMP_status_t QMP_comm_free(QMP_comm_t comm);
/** Number of distinct colors in the split that made comm (1 otherwise). */
int QMP_comm_get_number_of_colors(QMP_comm_t comm);
/** The color and key this node gave when comm was split (0 otherwise). */
int QMP_comm_get_color(QMP_comm_t comm);
/** The key this node gave when comm was split (0 otherwise). */
int QMP_comm_get_key(QMP_comm_t comm);
/** The matching communicator of meshmp's MPI: *hidden receives a pointer
 *  to an MPI_Comm over the same nodes in the same order, whose traffic is
 *  separate from QMP's. QMP_INVALID_ARG if hidden is NULL; QMP_ERROR after
 *  MPI_Finalize. */
QMP_status_t QMP_get_hidden_comm(QMP_comm_t comm, void** hidden);
/** USQCD QMP's MPI-backend name for QMP_get_hidden_comm (same result and
 *  errors): *mpicomm receives a pointer to the matching MPI_Comm. */
QMP_status_t QMP_get_mpi_comm(QMP_comm_t comm, void** mpicomm);

/* ---- machine and job ----------------------------------------------------- */

/** QMP_MESH when a machine geometry is known (-qmp-geom, or `native`: the
 *  launcher's torus), else QMP_SWITCH (QMP 2.5: Machine information). */
QMP_ictype_t QMP_get_msg_passing_type(void);
/** Nodes in the default communicator. */
int QMP_get_number_of_nodes(void);
int QMP_comm_get_number_of_nodes(QMP_comm_t comm);
/** This node's rank in the default communicator, 0..nodes-1. */
int QMP_get_node_number(void);
int QMP_comm_get_node_number(QMP_comm_t comm);
/** Jobs the allocation is split into by -qmp-job (1 without it). */
int QMP_get_number_of_jobs(void);
/** This node's job, 0..jobs-1. */
int QMP_get_job_number(void);
/** Dimensions of the job geometry (-qmp-geom cut by -qmp-job), and its
 *  extents (an array owned by QMP, valid until finalize; NULL without one). */
int QMP_get_number_of_job_geometry_dimensions(void);
const int* QMP_get_job_geometry(void);
/** QMP_TRUE on node 0 of the default communicator (of comm). */
QMP_bool_t QMP_is_primary_node(void);
QMP_bool_t QMP_comm_is_primary_node(QMP_comm_t comm);
/** The machine geometry (-qmp-geom; `native`: the launcher's torus): its
 *  number of dimensions, its extents and this node's coordinates in it
 *  (arrays owned by QMP, valid until finalize; 0 dimensions when no
 *  geometry was given). */
int QMP_get_allocated_number_of_dimensions(void);
const int* QMP_get_allocated_dimensions(void);
const int* QMP_get_allocated_coordinates(void);
/** The node that does I/O for `node` (itself), and the master I/O node (0). */
int QMP_io_node(int node);
int QMP_master_io_node(void);

/* ---- logical topology ---------------------------------------------------- */

/** Declares a periodic logical grid over the communicator's nodes (product
 *  of dims = node count), ranks lexicographic with axis 0 fastest. A second
 *  declaration returns QMP_TOPOLOGY_EXISTS; a bad size QMP_INVALID_ARG. */
QMP_status_t QMP_declare_logical_topology(const int dims[], int ndim);
QMP_status_t QMP_comm_declare_logical_topology(QMP_comm_t comm, const int dims[], int ndim);
/** The same with axis map[0] fastest, then map[1], ... (map a permutation of
 *  0..ndim-1, mapdim = ndim). */
QMP_status_t QMP_declare_logical_topology_map(const int dims[], int ndim, const int map[], int mapdim);
QMP_status_t QMP_comm_declare_logical_topology_map(QMP_comm_t comm, const int dims[], int ndim,
                                                   const int map[], int mapdim);
/** Whether a logical topology is declared on the default communicator (on comm). */
QMP_bool_t QMP_logical_topology_is_declared(void);
QMP_bool_t QMP_comm_logical_topology_is_declared(QMP_comm_t comm);
/** The declared logical topology: its number of dimensions, extents and this
 *  node's coordinates (arrays owned by QMP; 0 / NULL before a declaration). */
int QMP_get_logical_number_of_dimensions(void);
int QMP_comm_get_logical_number_of_dimensions(QMP_comm_t comm);
const int* QMP_get_logical_dimensions(void);
const int* QMP_comm_get_logical_dimensions(QMP_comm_t comm);
const int* QMP_get_logical_coordinates(void);
const int* QMP_comm_get_logical_coordinates(QMP_comm_t comm);
/** Coordinates of `node`, in a malloc'ed array the caller frees (NULL before
 *  a topology is declared or for a node out of range). */
int* QMP_get_logical_coordinates_from(int node);
int* QMP_comm_get_logical_coordinates_from(QMP_comm_t comm, int node);
/** The same into coords[0..ndim) supplied by the caller; left alone without a
 *  topology, or for a node out of range (QMP_NODE_OUTRANGE is recorded). */
void QMP_get_logical_coordinates_from2(int coords[], int node);
void QMP_comm_get_logical_coordinates_from2(QMP_comm_t comm, int coords[], int node);
/** Node at logical coordinates (taken modulo the dims), -1 without topology. */
int QMP_get_node_number_from(const int coordinates[]);
int QMP_comm_get_node_number_from(QMP_comm_t comm, const int coordinates[]);
/** Spreads a lattice of extents dimensions[0..ndims) over the nodes and
 *  declares the logical topology, with USQCD QMP's rule so the same lattice
 *  on the same node count gets the same layout: a topology already declared
 *  is kept; a job cut from -qmp-geom by -qmp-job divisors keeps the job's
 *  grid; otherwise the largest prime factor of the nodes left divides the
 *  largest sub-lattice extent it divides (on a tie: an axis divided before,
 *  else the last). QMP_INVALID_ARG if the lattice cannot be divided. */
QMP_status_t QMP_layout_grid(const int dimensions[], int ndims);
/** After QMP_layout_grid: this node's sub-lattice extents (an array owned by
 *  QMP) and its number of sites; before it NULL (QMP_INVALID_OP recorded). */
const int* QMP_get_subgrid_dimensions(void);
int QMP_get_number_of_subgrid_sites(void);

/* ---- memory -------------------------------------------------------------- */

/** nbytes of memory aligned to QMP_ALIGN_DEFAULT (64) bytes; NULL if out of memory. */
QMP_mem_t* QMP_allocate_memory(size_t nbytes);
/** alignment: a power of two, or QMP_ALIGN_ANY; flags: QMP_MEM_* (COMMS
 *  memory is registered for the fast path once). */
QMP_mem_t* QMP_allocate_aligned_memory(size_t nbytes, size_t alignment, int flags);
/** The aligned address of memory from QMP_allocate_(aligned_)memory; NULL for NULL. */
void* QMP_get_memory_pointer(QMP_mem_t* mem);
/** Frees memory from QMP_allocate_(aligned_)memory (NULL: nothing); message
 *  memory declared over it must be freed first. */
void QMP_free_memory(QMP_mem_t* mem);

/** Message memory: a contiguous buffer of nbytes. Where a declaration
 *  describes no bytes, its pointers may be NULL (as in USQCD QMP); else a
 *  NULL pointer or a negative count is QMP_INVALID_ARG (NULL returned). */
QMP_msgmem_t QMP_declare_msgmem(const void* mem, size_t nbytes);
/** nblocks blocks of blksize bytes, stride bytes apart from base. */
QMP_msgmem_t QMP_declare_strided_msgmem(void* base, size_t blksize, int nblocks, ptrdiff_t stride);
/** num strided pieces, each as QMP_declare_strided_msgmem. */
QMP_msgmem_t QMP_declare_strided_array_msgmem(void* base[], size_t blksize[], int nblocks[],
                                              ptrdiff_t stride[], int num);
/** count blocks: block i is blocklen[i] elements of elemsize bytes starting
 *  at element index[i] from base. */
QMP_msgmem_t QMP_declare_indexed_msgmem(void* base, int blocklen[], int index[], int elemsize, int count);
/** Frees a message-memory description (not the memory it describes); handles
 *  declared over it must be freed first (QMP 2.5: Message memory). */
void QMP_free_msgmem(QMP_msgmem_t m);

/* ---- message handles ----------------------------------------------------- */

/** Persistent send to / receive from the logical-topology neighbour along
 *  `axis` in direction `dir` (+1/-1), periodic. NULL (with QMP_error) for a
 *  bad axis or direction, a NULL msgmem, or no declared topology. */
QMP_msghandle_t QMP_declare_send_relative(QMP_msgmem_t m, int axis, int dir, int priority);
QMP_msghandle_t QMP_comm_declare_send_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir,
                                               int priority);
QMP_msghandle_t QMP_declare_receive_relative(QMP_msgmem_t m, int axis, int dir, int priority);
QMP_msghandle_t QMP_comm_declare_receive_relative(QMP_comm_t comm, QMP_msgmem_t m, int axis, int dir,
                                                  int priority);
/** Persistent send to / receive from any node of the communicator. */
QMP_msghandle_t QMP_declare_send_to(QMP_msgmem_t m, int rem_node_rank, int priority);
QMP_msghandle_t QMP_comm_declare_send_to(QMP_comm_t comm, QMP_msgmem_t m, int rem_node_rank, int priority);
QMP_msghandle_t QMP_declare_receive_from(QMP_msgmem_t m, int src_node_rank, int priority);
QMP_msghandle_t QMP_comm_declare_receive_from(QMP_comm_t comm, QMP_msgmem_t m, int src_node_rank,
                                              int priority);
/** One handle over nhandle handles, which it then owns (a multiple handle
 *  given here is dissolved into it). NULL, with QMP_INVALID_ARG, if a handle
 *  is NULL, given twice, or already inside another multiple handle;
 *  QMP_INVALID_OP if one is started. */
QMP_msghandle_t QMP_declare_multiple(QMP_msghandle_t msgh[], int nhandle);
/** QMP_declare_multiple under its older name (num handles, usually sends and
 *  their receives). */
QMP_msghandle_t QMP_declare_send_recv_pairs(QMP_msghandle_t msgh[], int num);
/** Moves the handle's memory so that its base is `addr` (the same layout,
 *  shifted). QMP_INVALID_ARG for a strided array over several bases;
 *  QMP_INVALID_OP while the handle is active. */
QMP_status_t QMP_change_address(QMP_msghandle_t msg, void* addr);
/** QMP_change_address for each member of a multiple handle: member i to
 *  addr[i] (naddr = members). QMP_INVALID_ARG if naddr differs. */
QMP_status_t QMP_change_address_multiple(QMP_msghandle_t msg, void* addr[], int naddr);
/** Accepted for USQCD QMP's interface: meshmp's receives announce their
 *  memory when started (the receiver-ready protocol), so there is nothing to
 *  clear. QMP_INVALID_ARG for a NULL handle or a value not of
 *  QMP_clear_to_send_t. */
QMP_status_t QMP_clear_to_send(QMP_msghandle_t msg, QMP_clear_to_send_t cts);
/** Starts a handle; QMP_INVALID_OP if it is already active. The data of a
 *  started send may not be touched until QMP_wait returns. */
QMP_status_t QMP_start(QMP_msghandle_t msg);
/** Blocks until a started handle (every member of a multiple one) has
 *  completed; its memory may then be used (QMP 2.5: Message passing). A
 *  handle not started returns QMP_SUCCESS at once. QMP_ERROR /
 *  QMP_MEMSIZE_ERR / QMP_BAD_MESSAGE as the failed transfer says (the
 *  handle's QMP_get_error_string names it). */
QMP_status_t QMP_wait(QMP_msghandle_t msg);
/** QMP_wait on each of num handles; the first failure's status. */
QMP_status_t QMP_wait_all(QMP_msghandle_t msg[], int num);
/** Whether a started handle (every member of a multiple one) has completed,
 *  after one round of progress; QMP_TRUE for a handle not started, QMP_FALSE
 *  for NULL. When true the handle is complete as after QMP_wait. */
QMP_bool_t QMP_is_complete(QMP_msghandle_t msg);
/** Frees a handle (a multiple handle with its members). A started handle, or
 *  a member of a multiple handle, is not freed: QMP_INVALID_OP is reported
 *  (QMP_get_error_number(NULL)) and the call returns at once. */
void QMP_free_msghandle(QMP_msghandle_t msg);

/* ---- collectives --------------------------------------------------------- */

/** Returns on each node once every node of the communicator has entered it
 *  (QMP 2.5: Global operations). QMP_ERROR if a node died. */
QMP_status_t QMP_barrier(void);
QMP_status_t QMP_comm_barrier(QMP_comm_t comm);
/** Broadcast nbytes from node 0. */
QMP_status_t QMP_broadcast(void* buffer, size_t nbytes);
QMP_status_t QMP_comm_broadcast(QMP_comm_t comm, void* buffer, size_t nbytes);
/** Global sums in place: every node gets the sum of every node's *value, the
 *  same bits on each (a fixed combining order). The _array forms sum
 *  length elements elementwise (QMP_INVALID_ARG for length < 0 or a NULL
 *  array with length > 0). */
QMP_status_t QMP_sum_int(int* value);
QMP_status_t QMP_comm_sum_int(QMP_comm_t comm, int* value);
QMP_status_t QMP_sum_uint64_t(uint64_t* value);
QMP_status_t QMP_comm_sum_uint64_t(QMP_comm_t comm, uint64_t* value);
QMP_status_t QMP_sum_float(float* value);
QMP_status_t QMP_comm_sum_float(QMP_comm_t comm, float* value);
QMP_status_t QMP_sum_double(double* value);
QMP_status_t QMP_comm_sum_double(QMP_comm_t comm, double* value);
QMP_status_t QMP_sum_long_double(long double* value);
QMP_status_t QMP_comm_sum_long_double(QMP_comm_t comm, long double* value);
/** Sum of doubles accumulated in long double. */
QMP_status_t QMP_sum_double_extended(double* value);
QMP_status_t QMP_comm_sum_double_extended(QMP_comm_t comm, double* value);
QMP_status_t QMP_sum_float_array(float value[], int length);
QMP_status_t QMP_comm_sum_float_array(QMP_comm_t comm, float value[], int length);
QMP_status_t QMP_sum_double_array(double value[], int length);
QMP_status_t QMP_comm_sum_double_array(QMP_comm_t comm, double value[], int length);
QMP_status_t QMP_sum_long_double_array(long double value[], int length);
QMP_status_t QMP_comm_sum_long_double_array(QMP_comm_t comm, long double value[], int length);
/** Global maximum / minimum in place, every node the same value. */
QMP_status_t QMP_max_float(float* value);
QMP_status_t QMP_comm_max_float(QMP_comm_t comm, float* value);
QMP_status_t QMP_max_double(double* value);
QMP_status_t QMP_comm_max_double(QMP_comm_t comm, double* value);
QMP_status_t QMP_min_float(float* value);
QMP_status_t QMP_comm_min_float(QMP_comm_t comm, float* value);
QMP_status_t QMP_min_double(double* value);
QMP_status_t QMP_comm_min_double(QMP_comm_t comm, double* value);
/** Global bitwise exclusive or in place. */
QMP_status_t QMP_xor_ulong(unsigned long* value);
QMP_status_t QMP_comm_xor_ulong(QMP_comm_t comm, unsigned long* value);
/** Global reduction of buflen bytes at lbuffer with bfunc (associative and
 *  commutative), every node the same result. QMP_INVALID_ARG for a NULL bfunc,
 *  or a NULL buffer of buflen > 0 (0 bytes: nothing is combined, bfunc is
 *  not called). */
QMP_status_t QMP_binary_reduction(void* lbuffer, size_t buflen, QMP_binary_func bfunc);
QMP_status_t QMP_comm_binary_reduction(QMP_comm_t comm, void* lbuffer, size_t buflen, QMP_binary_func bfunc);
/** Block j (count bytes) of sendbuffer goes to node j, arriving as block i
 *  of its recvbuffer from node i. */
QMP_status_t QMP_comm_alltoall(QMP_comm_t comm, char* recvbuffer, char* sendbuffer, int count);

/* ---- errors, output, time, version -------------------------------------- */

/** The text of a status (never NULL; "QMP: unknown status code" for a value
 *  not in QMP_status_t) (QMP 2.5: Error handling). */
const char* QMP_error_string(QMP_status_t code);
/** The handle's last status; with a NULL handle, the last global error. */
QMP_status_t QMP_get_error_number(QMP_msghandle_t mh);
/** The text of the handle's last error -- with a NULL handle, of the last
 *  error anywhere -- naming the call and what failed. */
const char* QMP_get_error_string(QMP_msghandle_t mh);
/** Set the level and return the old one. */
int QMP_verbose(int level);
/** Set the profiling level and return the old one. Above 0, the time spent
 *  in QMP calls is counted (QMP_get_total_qmp_time: two clock reads per
 *  call); 0, the default, counts nothing -- as USQCD QMP built without
 *  timing, where the total stays 0. */
int QMP_profcontrol(int level);
/** Output on every node, one line per call, as USQCD QMP prints it:
 *  "QMP m<node>,n<nodes>@<host>: <message>\n" (QMP_info: "... info: ",
 *  QMP_error: "... error: "); the newline is added even when the message
 *  ends in one. QMP_printf and QMP_info write to stdout, QMP_error to
 *  stderr. Returns the number of characters of the message. */
int QMP_printf(const char* format, ...);
/** QMP_printf to stream. */
int QMP_fprintf(FILE* stream, const char* format, ...);
/** QMP_printf with " info: " after the node prefix. */
int QMP_info(const char* format, ...);
/** QMP_printf to stderr with " error: " after the node prefix. */
int QMP_error(const char* format, ...);
/** Wall-clock seconds. */
double QMP_time(void);
/** Seconds spent inside QMP calls (communication, collectives, waits) since
 *  start or the last reset, counted while QMP_profcontrol's level is above
 *  0; 0 when profiling was never on. */
void QMP_reset_total_qmp_time(void);
/** The seconds so far. */
double QMP_get_total_qmp_time(void);
/** "2.5.4" and 2005004: the USQCD QMP version meshmp is a drop-in for. */
const char* QMP_version_str(void);
int QMP_version_int(void);

#ifdef __cplusplus
}
#endif

#endif /* MESHMP_QMP_H */
