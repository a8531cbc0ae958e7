// Which bootstrap a rank uses (bootstrap.h): PMIx, qmprun's socket, or none.
#include "mesh/bootstrap/bootstrap.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "mesh/bootstrap/client.h"
#include "mesh/bootstrap/pmix.h"
#include "mesh/bootstrap/launch_env.h"

namespace meshmp::mesh {

std::unique_ptr<Bootstrap> connect_bootstrap() {
  if (pmix_environment()) return std::make_unique<PmixBootstrap>();
  const int size = static_cast<int>(env::number(env::kSize, 1, 1, 1 << 24));
  const int rank = static_cast<int>(env::number(env::kRank, 0, 0, 1 << 24));
  if (rank >= size) throw std::runtime_error(std::string(env::kRank) + " must be below " + env::kSize);
  if (size == 1) {
    // srun without --mpi=pmix (or with a plugin that is not PMIx): every
    // task starts alone, which is rarely what was meant.
    const long tasks = std::strtol(std::getenv("SLURM_NTASKS") ? std::getenv("SLURM_NTASKS") : "1", nullptr, 10);
    if (tasks > 1 && !std::getenv(env::kBootstrap))
      std::fprintf(stderr,
                   "meshmp: SLURM_NTASKS=%ld but no PMIx server in the environment: this task runs as a job of "
                   "one rank; start the job with srun --mpi=pmix\n",
                   tasks);
    return nullptr;
  }
  const char* sock = std::getenv(env::kBootstrap);
  const char* secret = std::getenv(env::kSecret);
  const char* job = std::getenv(env::kJob);
  if (!sock || !secret || !job)
    throw std::runtime_error(std::string(env::kSize) + " > 1 but no launcher: start the job with qmprun, or with "
                             "srun --mpi=pmix or Open MPI's mpirun");
  if (!*job || std::strspn(job, "0123456789abcdefghijklmnopqrstuvwxyz") != std::strlen(job) || std::strlen(job) > 64)
    throw std::runtime_error(std::string(env::kJob) + "=" + job + ": expected up to 64 lower-case letters and digits");
  const int appnum = static_cast<int>(env::number(env::kAppnum, 0, 0, size - 1));
  auto boot = std::make_unique<LauncherBootstrap>(sock, rank, size, job, secret, appnum);
  // The secret has done its work: the program and its children need not see it.
  ::unsetenv(env::kSecret);
  return boot;
}

}  // namespace meshmp::mesh
