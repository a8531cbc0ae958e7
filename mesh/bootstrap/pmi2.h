// The bootstrap seam (bootstrap.h) over PMI-2: what a rank uses when MPICH's
// `mpiexec` (Hydra, on one host or across hosts by ssh) or Slurm's
// `srun --mpi=pmi2` started it. The client is Slurm's libpmi2 (Debian's
// libpmi2-0), loaded at run time only when the environment shows a PMI-2
// server (PMI_FD), so that no other meshmp program needs it. Address cards
// travel by PMI2_KVS_Put + PMI2_KVS_Fence + PMI2_KVS_Get: values of bytes are
// written as hex in pieces of at most PMI2_MAX_VALLEN; abort is PMI2_Abort.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mesh/bootstrap/bootstrap.h"

namespace meshmp::mesh {

class Pmi2Bootstrap final : public Bootstrap {
 public:
  /// PMI2_Init, then one fence in which rank 0 hands every rank the job id
  /// (MESHMP_JOB_PREFIX + 16 random hex digits) and the job's secret (32
  /// random bytes), and every rank publishes its host name (for
  /// local_ranks() and host_of()). Throws std::runtime_error naming the
  /// PMI2 call and its return code on failure, or saying what to install
  /// if libpmi2.so.0 cannot be loaded.
  Pmi2Bootstrap();
  /// PMI2_Finalize.
  ~Pmi2Bootstrap() override;
  Pmi2Bootstrap(const Pmi2Bootstrap&) = delete;
  Pmi2Bootstrap& operator=(const Pmi2Bootstrap&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  /// PMI2_Init's appnum (Hydra's `mpiexec -n 1 a : -n 2 b`).
  int appnum() const override { return appnum_; }
  const std::string& job() const override { return job_; }
  const char* kind() const override { return "PMI-2"; }
  /// The host name `rank` published at start.
  std::string host_of(int rank) const override;
  /// PMI2_KVS_Put of the bytes in hex, under "meshmp.RANK.KEY.0", ".1", …
  /// (PMI-2 has one key space for the whole job): visible to the other
  /// ranks after the next fence().
  void put(const std::string& key, const std::string& value) override;
  /// PMI2_KVS_Fence, then a get of every rank's key for this fence: a
  /// barrier (Hydra's fence alone is not). Throws std::runtime_error
  /// ("PMI2_KVS_Fence failed …", or naming a rank whose key is missing).
  void fence() override;
  /// PMI2_KVS_Get of `rank`'s pieces of KEY. Throws std::runtime_error
  /// naming the rank and key if it put nothing there or the pieces are
  /// malformed.
  const std::string& get(int rank, const std::string& key) const override;
  const std::string& secret() const override { return secret_; }
  /// Ranks whose published host name is this rank's.
  int local_ranks() const override { return local_; }
  /// Under Slurm, PMI2_Abort for the whole job with the message (PMI-2
  /// carries no exit code: srun chooses the job's status). Under Hydra,
  /// which has no PMI-2 abort, exits with `code` (1 for 0): Hydra ends the
  /// job on a rank's non-zero exit and returns that status.
  void abort(int code, const std::string& message) override;

 private:
  int rank_ = 0, size_ = 1, local_ = 1, appnum_ = 0;
  long fences_ = 0;
  std::string kvs_;  // PMI2_Job_GetId: the job's key-value space
  std::string job_, secret_;
  std::vector<std::string> hosts_;
  mutable std::map<std::pair<int, std::string>, std::string> got_;  // since the last fence
};

/// True when the environment shows a PMI-2 server to connect to: PMI_FD,
/// PMI_RANK and PMI_SIZE (Hydra; Slurm's pmi2 plugin).
bool pmi2_environment();

}  // namespace meshmp::mesh
