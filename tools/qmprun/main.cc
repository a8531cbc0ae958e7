// qmprun / mpirun / mpiexec: start N ranks of a meshmp job on this host.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstring>
#include <iostream>

#include "tools/qmprun/launcher.h"

int main(int argc, char** argv) {
  using meshmp::tools::LaunchOptions;
  // MPI users type -np; CLI11 wants one-letter short options. Rewrite it
  // before the program name only.
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::string& a : args) {
    if (a == "-np") a = "-n";
    else if (!a.empty() && a[0] != '-') break;
  }
  std::reverse(args.begin(), args.end());

  LaunchOptions opt;
  CLI::App app{"Start a meshmp job: N ranks of PROGRAM on this host, connected as a torus."};
  app.name(argc > 0 ? std::string(std::strrchr(argv[0], '/') ? std::strrchr(argv[0], '/') + 1 : argv[0]) : "qmprun");
  app.add_option("-n", opt.nranks, "number of ranks (also -np); default: the config's node count")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--geometry", opt.geometry, "torus shape, e.g. 2x2x2 (product = N)");
  app.add_option("--config", opt.config, "mesh config file (configs/*.toml)")->check(CLI::ExistingFile);
  app.add_option("--provider", opt.provider, "links: auto (shm on one host; between hosts ofi over an RDMA fabric libfabric finds, else tcp; the default), shm, tcp or ofi (libfabric; MESHMP_OFI_PROVIDER picks its provider)")->check(CLI::IsMember({"auto", "shm", "tcp", "ofi"}));
  app.add_flag("--tag-output", opt.tag_output, "prefix each output line with [rank]");
  app.add_option("--timeout", opt.timeout_s, "kill the job after this many seconds")->check(CLI::PositiveNumber);
  app.add_option("--stopped-warning", opt.stopped_warning_s,
                 "name a rank that has been stopped (SIGSTOP) this many seconds (default 180)")
      ->check(CLI::PositiveNumber);
  app.add_option("--finalize-warning", opt.finalize_warning_s,
                 "name the ranks that have not finalized this many seconds after the first did (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-ranks", opt.max_ranks,
                 "start at most this many ranks on this host (default " +
                     std::to_string(meshmp::tools::kDefaultMaxRanks) + ")")
      ->check(CLI::Range(1, 1 << 24));
  app.add_option("--netns", opt.netns,
                 "run rank r in network namespace NAME-n<r / ranks per node> of a qmp-mesh testbed (root)");
  app.add_option("--ranks-per-node", opt.ranks_per_node, "with --netns: ranks per namespace (default: -n / nodes)")
      ->check(CLI::Range(1, 1 << 16));
  app.prefix_command();
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  opt.command = app.remaining();
  if (opt.command.empty()) {
    std::cerr << app.get_name() << ": no PROGRAM given\n" << app.help();
    return 2;
  }
  if (opt.nranks == 0 && opt.config.empty() && opt.geometry.empty()) opt.nranks = 1;
  return meshmp::tools::run_job(opt);
}
