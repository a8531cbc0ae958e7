// qmprun: starts the ranks of a job on this host, serves their address
// exchange (fence) over a Unix socket, forwards or tags their output, and
// tears the whole job down when a rank fails, on --timeout, or on
// SIGINT/SIGTERM (ARCHITECTURE.md §6).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tools/qmprun/binding.h"

namespace meshmp::tools {

/// Default of --max-ranks: far more ranks than cores, as tests oversubscribe,
/// but not enough to exhaust the host's processes and memory.
inline constexpr int kDefaultMaxRanks = 256;

/// One program of a job and its ranks: an application context (MPI-2.2
/// §8.8, mpiexec's "-n 1 ocean : -n 8 atmos" form starts two). Contexts take
/// ranks in turn, the first from 0; each rank learns its context's index
/// (MESHMP_APPNUM, MPI_APPNUM).
struct AppContext {
  int nranks = 0;  ///< 0 (one context only): the job's
  /// Variables set in this context's ranks over the job's (-x, -env after a
  /// ":").
  std::vector<std::pair<std::string, std::string>> env;
  std::string wdir;                  ///< this context's --wdir; empty: the job's
  std::vector<std::string> command;  ///< program and its arguments
};

struct LaunchOptions {
  int nranks = 0;                 ///< the job's; 0: from the config's node count
  std::string geometry;           ///< "2x2x2"; empty: config or balanced
  std::string config;             ///< mesh config file
  std::string provider;            ///< MESHMP_PROVIDER for the ranks; empty: inherited (default auto)
  bool tag_output = false;        ///< prefix every output line with "[rank] "
  /// --output-filename DIR (Open MPI's): each rank's stdout and stderr also
  /// go to DIR/1/rank.R/stdout and .../stderr (created, truncated).
  std::string output_dir;
  bool merge_stderr = false;  ///< --merge-stderr-to-stdout: a rank's stderr is its stdout
  /// MPICH's -outfile-pattern / -errfile-pattern: a rank's stdout / stderr
  /// go to this file instead, "%r" its rank, "%h" the host's name, "%%" a %.
  std::string outfile_pattern, errfile_pattern;
  /// Which rank reads qmprun's standard input, as under Open MPI's mpirun
  /// and MPICH's mpiexec; the others read /dev/null. kStdinAll: every rank
  /// shares it; kStdinNone: none.
  int stdin_rank = 0;
  static constexpr int kStdinAll = -1, kStdinNone = -2;
  double timeout_s = 0;           ///< 0: none
  /// A rank stopped (SIGSTOP, ^Z, a debugger) this long is named on stderr;
  /// the job keeps waiting for it.
  double stopped_warning_s = 180;
  /// Ranks in finalize this long while others have not come: those others
  /// are named on stderr (once); the job keeps waiting.
  double finalize_warning_s = 10;
  /// Most ranks started on this host; a larger job (a config of 10^6 nodes
  /// without -n) is refused before anything is forked.
  int max_ranks = kDefaultMaxRanks;
  /// Testbed (tools/qmp-mesh) whose namespaces the ranks run in: rank r in
  /// "<netns>-n<r / ranks_per_node>", so each namespace is a host.
  std::string netns;
  int ranks_per_node = 0;  ///< 0: -n divided by the testbed's node count
  /// Variables set in every rank (-x, -genv): over the launcher's own
  /// environment, under the job's MESHMP_RANK, _SIZE, _JOB, _SECRET, ... .
  std::vector<std::pair<std::string, std::string>> env;
  /// --bind-to: what each rank is bound to (tools/qmprun/binding.h); --map-by
  /// ...:PE=N and --cpus-per-rank N give each rank N cores (and bind to core).
  BindTo bind_to = BindTo::kNone;
  MapBy map_by = MapBy::kCore;  ///< --map-by socket/package/numa: bound ranks dealt round those
  int cpus_per_rank = 1;
  bool hwthreads_as_cpus = false;  ///< --use-hwthread-cpus: a hardware thread is a CPU
  bool report_bindings = false;  ///< --report-bindings: each rank's CPUs on stderr as it starts
  /// --disable-auto-cleanup (MPICH's; Open MPI's --enable-recovery): a rank
  /// that ends without finalizing does not end the job. The others go on;
  /// their calls that need it fail (the engine sees its process gone), and
  /// fences complete without it. The job's exit status is the first such
  /// rank's. A rank that ends before it joined still ends the job.
  bool disable_auto_cleanup = false;
  std::string wdir;           ///< --wdir: the ranks' working directory; empty: qmprun's
  std::vector<AppContext> apps;  ///< one, or several (MPMD); their nranks add up to nranks
};

/// Runs the job; returns qmprun's exit status: 0 if every rank exited 0,
/// else the first failing rank's exit code (128+signal if it was killed), 124
/// on --timeout, 128+signal when qmprun itself was interrupted.
int run_job(const LaunchOptions& opt);

}  // namespace meshmp::tools
