// Which bootstrap a rank uses (bootstrap.h): PMIx, qmprun's socket, PMI-2,
// or none.
#include "mesh/bootstrap/bootstrap.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "mesh/bootstrap/client.h"
#include "mesh/bootstrap/pmi2.h"
#include "mesh/bootstrap/pmix.h"
#include "mesh/bootstrap/launch_env.h"
#include "mesh/random_token.h"

namespace meshmp::mesh {

void agree_job_and_secret(Bootstrap& b, std::string* job, std::string* secret) {
  static const char kIdChars[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  const char* prefix = std::getenv(env::kJobPrefix);
  std::string id = prefix ? prefix : "";
  if (id.size() > 24 || id.find_first_not_of(kIdChars) != std::string::npos)
    throw std::runtime_error(std::string(env::kJobPrefix) + "=" + id + ": expected up to 24 lower-case letters and digits");
  *job = id + random_hex(8);
  *secret = random_hex(32);
  if (b.size() == 1) return;
  constexpr const char* kJobKey = "job";  // rank 0's "<job id> <secret in hex>"
  if (b.rank() == 0) b.put(kJobKey, *job + " " + *secret);
  b.fence();
  const std::string& v = b.get(0, kJobKey);
  const std::size_t sp = v.find(' ');
  if (sp == std::string::npos || sp == 0 || sp > 64 || v.find_first_not_of(kIdChars) < sp || v.size() - sp - 1 != 64)
    throw std::runtime_error(std::string(b.kind()) + ": rank 0 published a malformed job id and secret");
  *job = v.substr(0, sp);
  *secret = v.substr(sp + 1);
}

std::unique_ptr<Bootstrap> connect_bootstrap() {
  if (pmix_environment()) return std::make_unique<PmixBootstrap>();
  if (!std::getenv(env::kBootstrap) && pmi2_environment()) return std::make_unique<Pmi2Bootstrap>();
  const int size = static_cast<int>(env::number(env::kSize, 1, 1, 1 << 24));
  const int rank = static_cast<int>(env::number(env::kRank, 0, 0, 1 << 24));
  if (rank >= size) throw std::runtime_error(std::string(env::kRank) + " must be below " + env::kSize);
  if (size == 1) {
    // srun with --mpi=none (or a plugin that is neither PMIx nor PMI-2):
    // every task starts alone, which is rarely what was meant.
    const long tasks = std::strtol(std::getenv("SLURM_NTASKS") ? std::getenv("SLURM_NTASKS") : "1", nullptr, 10);
    if (tasks > 1 && !std::getenv(env::kBootstrap))
      std::fprintf(stderr,
                   "meshmp: SLURM_NTASKS=%ld but no PMIx or PMI-2 server in the environment: this task runs as a "
                   "job of one rank; start the job with srun --mpi=pmix (or --mpi=pmi2)\n",
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
