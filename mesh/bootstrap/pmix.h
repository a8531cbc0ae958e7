// The bootstrap seam (bootstrap.h) over PMIx (OpenPMIx 4.2, Debian's
// libpmix): what a rank uses when Slurm's `srun --mpi=pmix`, Open MPI's
// `mpirun` or PRRTE started it (ARCHITECTURE.md §6). Rank and size come
// from the job's namespace; address cards travel by PMIx_Put + PMIx_Commit
// + PMIx_Fence (PMIX_COLLECT_DATA) + PMIx_Get; abort is PMIx_Abort, which
// has the resource manager end the job.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "mesh/bootstrap/bootstrap.h"

namespace meshmp::mesh {

class PmixBootstrap final : public Bootstrap {
 public:
  /// PMIx_Init, then the job's size and this node's rank count from the
  /// namespace, then one fence in which rank 0 hands every rank the job id
  /// (MESHMP_JOB_PREFIX + 16 random hex digits) and the job's secret (32
  /// random bytes from getrandom). Throws std::runtime_error naming the
  /// PMIx call and its error string (PMIx_Error_string) on failure.
  PmixBootstrap();
  /// PMIx_Finalize.
  ~PmixBootstrap() override;
  PmixBootstrap(const PmixBootstrap&) = delete;
  PmixBootstrap& operator=(const PmixBootstrap&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  /// PMIX_APPNUM of this rank (Open MPI's `mpirun -n 1 a : -n 2 b`; 0
  /// where the server does not say).
  int appnum() const override { return appnum_; }
  const std::string& job() const override { return job_; }
  const char* kind() const override { return "PMIx"; }
  /// PMIX_HOSTNAME of `rank` ("" if the server does not say).
  std::string host_of(int rank) const override;
  /// PMIx_Put of the bytes as a PMIX_BYTE_OBJECT, key "meshmp.KEY", scope
  /// PMIX_GLOBAL; visible to the other ranks after the next fence().
  void put(const std::string& key, const std::string& value) override;
  /// PMIx_Commit, then PMIx_Fence over the whole namespace with
  /// PMIX_COLLECT_DATA. Throws std::runtime_error("PMIx_Fence failed: …")
  /// if the resource manager reports an error (a rank gone, its timeout:
  /// Slurm's PMIxTimeout / SLURM_PMIX_TIMEOUT).
  void fence() override;
  /// PMIx_Get of `rank`'s "meshmp.KEY" from the data the last fence brought
  /// (PMIX_OPTIONAL: no request to a remote server). Throws
  /// std::runtime_error naming the rank and key if it put nothing there.
  const std::string& get(int rank, const std::string& key) const override;
  const std::string& secret() const override { return secret_; }
  /// PMIX_LOCAL_SIZE: ranks of this job on this node.
  int local_ranks() const override { return local_; }
  /// PMIx_Abort(code, message) for every rank of the namespace.
  void abort(int code, const std::string& message) override;

 private:
  std::string nspace_;
  int rank_ = 0, size_ = 1, local_ = 1, appnum_ = 0;
  std::string job_, secret_;
  mutable std::map<std::pair<int, std::string>, std::string> got_;  // since the last fence
};

/// True when the environment shows a PMIx server to connect to:
/// PMIX_NAMESPACE, PMIX_RANK and one of PMIX_SERVER_URI4/41/3/2/21.
bool pmix_environment();

}  // namespace meshmp::mesh
