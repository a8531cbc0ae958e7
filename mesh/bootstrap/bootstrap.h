// The bootstrap seam (ARCHITECTURE.md §2 "The seams", §6): how a rank finds
// the rest of its job. Address cards are exchanged by put / fence / get, as
// PMIx does (Put, Commit + Fence, Get); a rank can end the whole job; and it
// learns its rank, the job's size and how many ranks share its host. The
// engine knows only this interface. Three implement it: qmprun's socket
// (mesh/bootstrap/client.h), PMIx (mesh/bootstrap/pmix.h: Slurm's
// `srun --mpi=pmix`, Open MPI's `mpirun`) and PMI-2 (mesh/bootstrap/pmi2.h:
// MPICH's `mpiexec`, Slurm's `srun --mpi=pmi2`).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace meshmp::mesh {

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  /// This rank, 0..size()-1, and the number of ranks in the job.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// The job's id: up to 64 lower-case letters and digits, the same on
  /// every rank and different for every job. It names the job's
  /// shared-memory segments, which any user can list: not a secret.
  virtual const std::string& job() const = 0;
  /// The host `rank` runs on as the launcher knows it, for checking a
  /// config's node list; "" where the launcher does not say (qmprun, whose
  /// ranks all run on its host).
  virtual std::string host_of(int rank) const { (void)rank; return ""; }
  /// What started the job, for messages: "qmprun", "PMIx".
  virtual const char* kind() const = 0;
  /// The application context this rank belongs to, 0 for the first: an
  /// MPMD launch (`mpirun -n 1 ocean : -n 8 atmos`, MPI-2.2 §8.8) starts
  /// several programs as one job, ranks numbered context by context; MPI
  /// gives it as MPI_APPNUM (MPI-2.2 §10.5.3). 0 where the launcher does
  /// not say.
  virtual int appnum() const { return 0; }

  /// Publishes `value` (bytes, any content) under `key` for this rank; other
  /// ranks see it after the next fence(). A second put of a key replaces it.
  virtual void put(const std::string& key, const std::string& value) = 0;
  /// Collective over every rank of the job: returns when every rank has
  /// called it, and every put made before it is visible to get(). Throws
  /// std::runtime_error if the launcher goes away or answers malformed data.
  virtual void fence() = 0;
  /// What `rank` put under `key` before the last fence. Throws
  /// std::runtime_error naming the rank and key if it put nothing there.
  virtual const std::string& get(int rank, const std::string& key) const = 0;
  /// The job's secret (bytes; never empty for a job of several ranks under
  /// a launcher): providers that accept connections from the network (tcp)
  /// authenticate their peers with it. Never part of a name others can see.
  virtual const std::string& secret() const = 0;
  /// Ranks of this job on this host, this one included.
  virtual int local_ranks() const = 0;
  /// Tells the launcher this rank is in finalize (before its last fence),
  /// so that a rank which exits without it can be told from one that
  /// finished; a launcher that tracks this itself (PMIx) needs nothing.
  virtual void finalizing() {}
  /// The ranks the launcher has said are in finalize since the last call,
  /// each once; never blocks. A rank with no link to such a peer learns
  /// from this that the peer will send nothing more (the engine's liveness
  /// check, issue 29). qmprun says so; PMIx launchers do not (empty).
  virtual std::vector<int> take_finalized() { return {}; }
  /// Asks the launcher to end the whole job with exit status `code`;
  /// returns once the request is sent.
  virtual void abort(int code, const std::string& message) = 0;
};

/// For a bootstrap over a resource manager's key-value store (PMIx, PMI-2),
/// which only the job's processes reach: the job id (MESHMP_JOB_PREFIX + 16
/// random hex digits) and secret (32 random bytes, as 64 hex digits) that
/// rank 0 makes and hands every rank by put, fence and get. A job of one
/// rank makes its own. Throws std::runtime_error for a malformed
/// MESHMP_JOB_PREFIX or a malformed value from rank 0.
void agree_job_and_secret(Bootstrap& b, std::string* job, std::string* secret);

/// The bootstrap the launch environment provides (ARCHITECTURE.md §6):
/// - PMIx, when the environment shows a PMIx server (PMIX_NAMESPACE,
///   PMIX_RANK and a PMIX_SERVER_URI*: `srun --mpi=pmix`, Open MPI's
///   `mpirun`, PRRTE);
/// - else qmprun's socket (MESHMP_BOOTSTRAP, authenticated with
///   MESHMP_SECRET, which is removed from the environment once used), for a
///   job of MESHMP_SIZE > 1 ranks;
/// - else PMI-2, when the environment shows its server (PMI_FD, PMI_RANK,
///   PMI_SIZE: MPICH's `mpiexec`, `srun --mpi=pmi2`);
/// - else none (nullptr): a job of one rank. Started by srun with
///   `--mpi=none` (SLURM_NTASKS > 1), each task is such a job; one line on
///   stderr says so.
/// Throws std::runtime_error, saying which launcher and why, if the
/// environment is inconsistent (MESHMP_SIZE > 1 without a launcher socket,
/// a rank out of range) or the launcher / PMIx server cannot be reached.
std::unique_ptr<Bootstrap> connect_bootstrap();

}  // namespace meshmp::mesh
