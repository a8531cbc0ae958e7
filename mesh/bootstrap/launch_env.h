// Environment variables through which qmprun hands a job to its ranks (and
// through which users tune a run). One place, so launcher and library agree;
// the README's environment table lists the same names.
#pragma once

namespace meshmp::mesh::env {

/// The integer in environment variable `name`, `dflt` when unset or empty.
/// Throws std::runtime_error "NAME=VALUE: expected an integer in LO..HI".
long number(const char* name, long dflt, long lo, long hi);

inline constexpr const char* kRank = "MESHMP_RANK";            ///< this rank, 0..size-1
inline constexpr const char* kSize = "MESHMP_SIZE";            ///< number of ranks
inline constexpr const char* kAppnum = "MESHMP_APPNUM";        ///< this rank's application context (MPMD), 0..
inline constexpr const char* kJob = "MESHMP_JOB";              ///< job id (shm names; visible, not a secret)
inline constexpr const char* kJobPrefix = "MESHMP_JOB_PREFIX"; ///< begins the job id (test harnesses), any launcher
inline constexpr const char* kSecret = "MESHMP_SECRET";        ///< per-job secret the launcher checks (never in a name)
inline constexpr const char* kBootstrap = "MESHMP_BOOTSTRAP";  ///< launcher's Unix socket
inline constexpr const char* kGeometry = "MESHMP_GEOMETRY";    ///< torus, e.g. 2x2x2
inline constexpr const char* kConfig = "MESHMP_CONFIG";        ///< mesh config file
inline constexpr const char* kProvider = "MESHMP_PROVIDER";    ///< auto, shm, tcp, ofi
inline constexpr const char* kOfiProvider = "MESHMP_OFI_PROVIDER";  ///< ofi: libfabric's provider (verbs, tcp ...)
inline constexpr const char* kOfiHeartbeat = "MESHMP_OFI_HEARTBEAT";  ///< ofi: 1 heartbeats on every fabric, 0 none
inline constexpr const char* kDebug = "MESHMP_DEBUG";          ///< 1: say at start which provider serves which peers
inline constexpr const char* kEagerLimit = "MESHMP_EAGER_LIMIT";  ///< bytes; overrides config
inline constexpr const char* kStreamEagerLimit = "MESHMP_STREAM_EAGER_LIMIT";  ///< bytes; tcp, ofi without hardware RDMA
inline constexpr const char* kCredits = "MESHMP_CREDITS";      ///< slots per link; overrides config
inline constexpr const char* kShmCma = "MESHMP_SHM_CMA";       ///< 0: never use process_vm_writev
inline constexpr const char* kShmArenaNames = "MESHMP_SHM_ARENA_NAMES";  ///< 1: registered memory in named /dev/shm segments
inline constexpr const char* kSpin = "MESHMP_SPIN";            ///< polls before blocking
inline constexpr const char* kYield = "MESHMP_YIELD";          ///< 1: sched_yield between idle polls
inline constexpr const char* kUnexpectedLimit = "MESHMP_UNEXPECTED_LIMIT";  ///< bytes
inline constexpr const char* kRegisteredLimit = "MESHMP_REGISTERED_LIMIT";  ///< bytes of registered memory per rank
inline constexpr const char* kTcpTimeout = "MESHMP_TCP_TIMEOUT_MS";  ///< tcp: a silent peer/cable fails after this
inline constexpr const char* kConnectTimeout = "MESHMP_CONNECT_TIMEOUT_MS";  ///< tcp: a link not up by then fails
inline constexpr const char* kBarrier = "MESHMP_BARRIER";      ///< auto, rdma, flat, exchange, combine
inline constexpr const char* kStats = "MESHMP_STATS";          ///< 1: per-link counters at finalize

}  // namespace meshmp::mesh::env
