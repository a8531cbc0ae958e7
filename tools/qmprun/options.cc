#include "tools/qmprun/options.h"
#include "tools/qmprun/foreign_mpi.h"

#include "mesh/host_identity.h"
#include "mpi11/mpi.h"
#include "qmp/qmp.h"

#include <unistd.h>
#include <wordexp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <utility>

namespace meshmp::tools {
namespace {

// Spellings that are not our options' names with one dash fewer: "-np",
// MPICH's "-hosts", "-machinefile", "-envlist", "-l". Any other single-dash
// word of several letters that names a long option ("-genv", "-wdir",
// "-bind-to") is that option.
const std::map<std::string, std::string>& single_dash_renames() {
  static const std::map<std::string, std::string> m = {
      {"-np", "-n"},         {"-hosts", "--host"},       {"-machinefile", "--hostfile"},
      {"-envlist", "--genvlist"}, {"-l", "--label"},
  };
  return m;
}

// How many values follow an option word (after its rewrite), as `app`
// declares it: none for a flag or a "--name=value" word, two for
// -genv/-env (a pair), else one (also for a word `app` does not have).
int values_of(const std::string& option, const CLI::App& app) {
  if (option.find('=') != std::string::npos) return 0;
  const CLI::Option* o = app.get_option_no_throw(option);
  if (!o) return 1;
  return o->get_expected_max() == 0 ? 0 : std::max(1, o->get_type_size_min());  // a flag expects no value
}

// argv with those spellings rewritten to `app`'s long options in the
// options part only: the program (the first word that is neither an option
// nor an option's value, or what follows "--") and its arguments are passed
// on as they are. Reversed, as CLI11 takes a vector. The first option `app`
// does not have is *unknown (CLI11 would set it aside and go on, reading
// the words after it in ways they never meant: "--report-bindings -np 2"
// as -n p).
std::vector<std::string> normalized(const std::vector<std::string>& words, const CLI::App& app,
                                    std::string* unknown) {
  std::vector<std::string> args;
  const std::size_t argc = words.size();
  std::size_t i = 0;
  while (i < argc) {
    const std::string& a = words[i++];
    if (a == "--" || a.size() < 2 || a[0] != '-') {  // the program from here on
      args.push_back(a);
      break;
    }
    const std::size_t eq = a.find('=');
    std::string long_name;  // what a single-dash spelling stands for
    if (a[1] != '-') {
      const std::string name = a.substr(0, eq);
      if (auto it = single_dash_renames().find(name); it != single_dash_renames().end())
        long_name = it->second;
      else if (name.size() > 2 && app.get_option_no_throw("-" + name))
        long_name = "-" + name;
    }
    int more;  // values that follow as words of their own
    if (!long_name.empty()) {
      args.push_back(long_name);
      more = values_of(long_name, app);
      if (eq != std::string::npos) args.push_back(a.substr(eq + 1)), --more;
    } else {
      // "-n4": a short option with its value attached.
      const bool attached = a[1] != '-' && a.size() > 2;
      if (unknown->empty() && !app.get_option_no_throw(attached ? a.substr(0, 2) : a.substr(0, eq))) *unknown = a;
      args.push_back(a);
      more = attached ? 0 : values_of(a, app);
    }
    for (; more > 0 && i < argc; --more) args.push_back(words[i++]);
  }
  while (i < argc) args.push_back(words[i++]);
  std::reverse(args.begin(), args.end());
  return args;
}

// Names this host answers to: qmprun runs ranks here and nowhere else.
bool is_this_host(const std::string& h) {
  if (h == "localhost" || h == "127.0.0.1" || h == "::1" || h == "localhost.localdomain") return true;
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 && mesh::same_host_name(h, name);
}

int not_here(const std::string& app, const std::string& what) {
  std::cerr << app << ": " << what
            << " names another host; " << app
            << " starts ranks on this host only. Across hosts, launch with srun --mpi=pmix or Open MPI's "
               "mpirun.openmpi (README, \"On a cluster\").\n";
  return 2;
}

// A host's slots as a hostfile or -H gives them: N of "slots=N" or of
// "host:N"; 1 without (MPICH counts so, and a PBS_NODEFILE repeats a host
// once per slot); 0 for a count that is not a number.
long slots_of(const std::string& n) {
  if (n.empty() || n.size() > 6 || n.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::strtol(n.c_str(), nullptr, 10);
}

// The hosts a hostfile names: the first word of each line, '#' starts a
// comment (Open MPI's "host slots=N" and MPICH's "host:N" forms). *slots:
// the slots of all its lines.
int check_hostfile(const std::string& app, const std::string& path, long* slots) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << app << ": --hostfile " << path << ": cannot be read\n";
    return 2;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string host;
    if (!(words >> host)) continue;
    const std::size_t colon = host.find(':');
    long here = colon == std::string::npos ? 1 : slots_of(host.substr(colon + 1));
    host = host.substr(0, colon);
    if (!is_this_host(host)) return not_here(app, "--hostfile " + path + " line " + std::to_string(n) + " (" + host + ")");
    for (std::string word; words >> word;)
      if (word.rfind("slots=", 0) == 0) here = slots_of(word.substr(6));
    if (here < 1) {
      std::cerr << app << ": --hostfile " << path << " line " << n << ": the slots are not a positive number\n";
      return 2;
    }
    *slots += here;
  }
  return -1;
}

// -x VAR=VALUE or -x VAR (this environment's value, if set) into *env.
int take_exports(const std::string& app, const std::vector<std::string>& exported,
                 std::vector<std::pair<std::string, std::string>>* env) {
  for (const std::string& x : exported) {
    const std::size_t eq = x.find('=');
    if (eq == 0 || x.empty()) {
      std::cerr << app << ": -x " << x << ": no variable name\n";
      return 2;
    }
    if (eq != std::string::npos) {
      env->emplace_back(x.substr(0, eq), x.substr(eq + 1));
    } else if (const char* v = std::getenv(x.c_str())) {
      env->emplace_back(x, v);
    }
  }
  return -1;
}

// --host names, each with an optional ":N" of slots (Open MPI's -H host:4,
// MPICH's -hosts host:4).
int check_hosts(const std::string& app, const std::vector<std::string>& hosts, long* slots) {
  for (const std::string& h : hosts) {
    const std::size_t colon = h.rfind(':');
    const bool counted = colon != std::string::npos && colon > 0 && colon + 1 < h.size() &&
                         h.find_first_not_of("0123456789", colon + 1) == std::string::npos;
    if (!is_this_host(h) && !(counted && is_this_host(h.substr(0, colon)))) return not_here(app, "--host " + h);
    // "::1" is a host, not "::" with 1 slot: a count only after a name of this host.
    const long here = counted && !is_this_host(h) ? slots_of(h.substr(colon + 1)) : 1;
    if (here < 1) {
      std::cerr << app << ": --host " << h << ": the slots are not a positive number\n";
      return 2;
    }
    *slots += here;
  }
  return -1;
}

// What a parse error ends qmprun with, after CLI11 said what was wrong: 0
// for --help and --version, else 2, as for an unknown option (CLI11's own
// codes, 105 for a value out of range, mean nothing to a batch script).
int exit_status(const CLI::App& app, const CLI::ParseError& e) { return app.exit(e) == 0 ? 0 : 2; }

// MPICH's file patterns: %r (rank), %h (host) and %% are taken.
CLI::Validator pattern_check() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        for (std::size_t i = 0; i < v.size(); ++i)
          if (v[i] == '%') {
            if (i + 1 == v.size() || (v[i + 1] != 'r' && v[i + 1] != 'h' && v[i + 1] != '%'))
              return "in " + v + ", %" + (i + 1 < v.size() ? std::string(1, v[i + 1]) : "") +
                     " is not %r (rank), %h (host) or %%";
            ++i;
          }
        return "";
      },
      "PATTERN");
}

// The words of a --map-by or --bind-to value: "slot:PE=2:SPAN" -> slot, PE=2, SPAN.
std::vector<std::string> colon_words(const std::string& v) {
  std::vector<std::string> words;
  std::size_t from = 0;
  for (std::size_t colon; (colon = v.find(':', from)) != std::string::npos; from = colon + 1)
    words.push_back(v.substr(from, colon - from));
  words.push_back(v.substr(from));
  return words;
}

// A positive count of at most 65536, or 0.
int count_of(const std::string& w) {
  if (w.empty() || w.size() > 5 || w.find_first_not_of("0123456789") != std::string::npos) return 0;
  const int n = std::atoi(w.c_str());
  return n <= 1 << 16 ? n : 0;
}

std::string lower(std::string w) {
  std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return std::tolower(c); });
  return w;
}

// --map-by (Open MPI: OBJECT[:PE=N][:SPAN|OVERSUBSCRIBE|NOOVERSUBSCRIBE],
// ppr:K:node[...]), --bind-to (Open MPI: OBJECT[:overload-allowed|
// if-supported]; MPICH: core:N, hwthread:N) and --cpus-per-rank into *opt:
// ranks per node, cores per rank, what a rank is bound to. PE=N and
// --cpus-per-rank bind to core unless --bind-to says otherwise, as in Open
// MPI. --map-by socket, package and numa deal bound ranks round those
// objects, as Open MPI does; the other objects keep core order.
int read_placement(const std::string& app, const std::string& map_by, const std::string& bind_to, int cpus_per_rank,
                   LaunchOptions* opt) {
  if (!map_by.empty()) {
    std::vector<std::string> w = colon_words(map_by);
    std::size_t modifiers = 1;
    if (lower(w[0]) == "ppr") {
      if (w.size() < 3 || lower(w[2]) != "node" || (opt->ranks_per_node = count_of(w[1])) == 0) {
        std::cerr << app << ": --map-by " << map_by << ": expected ppr:K:node with K a positive number\n";
        return 2;
      }
      modifiers = 3;
    } else {
      static const std::pair<const char*, MapBy> objects[] = {
          {"core", MapBy::kCore},       {"slot", MapBy::kCore},       {"node", MapBy::kCore}, {"hwthread", MapBy::kCore},
          {"socket", MapBy::kPackage}, {"package", MapBy::kPackage}, {"numa", MapBy::kNuma}};
      const auto o = std::find_if(std::begin(objects), std::end(objects),
                                  [&](const auto& kv) { return lower(w[0]) == kv.first; });
      if (o == std::end(objects)) {
        std::cerr << app << ": --map-by " << map_by
                  << ": not ppr:K:node, core, slot, node, socket, package, numa or hwthread\n";
        return 2;
      }
      opt->map_by = o->second;
    }
    for (std::size_t i = modifiers; i < w.size(); ++i) {
      const std::string m = lower(w[i]);
      if (m.rfind("pe=", 0) == 0 && count_of(m.substr(3)) > 0) {
        cpus_per_rank = count_of(m.substr(3));
      } else if (m != "span" && m != "oversubscribe" && m != "nooversubscribe") {
        std::cerr << app << ": --map-by " << map_by << ": unknown modifier " << w[i]
                  << " (PE=N, SPAN, OVERSUBSCRIBE and NOOVERSUBSCRIBE are taken)\n";
        return 2;
      }
    }
  }
  if (cpus_per_rank > 0) {
    opt->cpus_per_rank = cpus_per_rank;
    opt->bind_to = BindTo::kCore;
  }
  if (!bind_to.empty()) {
    const std::vector<std::string> w = colon_words(bind_to);
    static const std::pair<const char*, BindTo> objects[] = {{"none", BindTo::kNone},       {"core", BindTo::kCore},
                                                             {"hwthread", BindTo::kHwthread}, {"socket", BindTo::kPackage},
                                                             {"package", BindTo::kPackage}, {"numa", BindTo::kNuma}};
    const auto o = std::find_if(std::begin(objects), std::end(objects),
                                [&](const auto& kv) { return lower(w[0]) == kv.first; });
    if (o == std::end(objects)) {
      std::cerr << app << ": --bind-to " << bind_to << ": not core, hwthread, socket, package, numa or none\n";
      return 2;
    }
    opt->bind_to = o->second;
    for (std::size_t i = 1; i < w.size(); ++i) {
      const std::string m = lower(w[i]);
      const bool counted = (o->second == BindTo::kCore || o->second == BindTo::kHwthread) && count_of(m) > 0;
      if (counted) {
        opt->cpus_per_rank = count_of(m);
      } else if (m != "overload-allowed" && m != "if-supported") {
        std::cerr << app << ": --bind-to " << bind_to << ": unknown modifier " << w[i]
                  << " (core:N, hwthread:N, overload-allowed and if-supported are taken)\n";
        return 2;
      }
    }
  }
  return -1;
}

// Inside a Slurm allocation but outside a job step (an sbatch script, an
// salloc shell), "mpirun ./prog" means the allocation's tasks on its nodes,
// as Open MPI's mpirun and MPICH's mpiexec take it. qmprun starts ranks on
// this host only, so where the allocation is this one host it takes
// SLURM_NTASKS as the default -n (*ntasks), and where it spans several
// hosts, or another host (an salloc shell on a login node), it refuses and
// points to srun. Inside a step (srun -n 1 qmprun ...) the allocation is
// not qmprun's.
int check_slurm_allocation(const std::string& app, int* ntasks) {
  const char* job = std::getenv("SLURM_JOB_ID");
  if (!job || !*job || std::getenv("SLURM_STEP_ID")) return -1;
  const auto number = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::strtol(v, nullptr, 10) : 0L;
  };
  const long nodes = number("SLURM_JOB_NUM_NODES");
  const char* list = std::getenv("SLURM_JOB_NODELIST");
  char here[256] = {};
  (void)::gethostname(here, sizeof here - 1);
  const std::string where = std::string(app) + ": this shell holds Slurm allocation " + job;
  const std::string srun = "start the job with srun --mpi=pmix PROGRAM, which runs the allocation's tasks on its "
                           "nodes, or with Open MPI's mpirun.openmpi (README, \"On a cluster\")";
  if (nodes > 1) {
    std::cerr << where << " of " << nodes << " nodes, but " << app << " starts ranks on this host only: " << srun
              << "; to run on one node of it, srun -N 1 -n 1 " << app << " -n N PROGRAM\n";
    return 2;
  }
  if (!std::getenv("SLURMD_NODENAME") && list && !mesh::same_host_name(list, here)) {
    std::cerr << where << " on " << list << " but runs on " << here << ", where " << app
              << " would start the ranks: " << srun << "\n";
    return 2;
  }
  const long n = number("SLURM_NTASKS");
  if (n >= 1 && n <= (1 << 16)) *ntasks = static_cast<int>(n);
  return -1;
}

// A program after a ":" (MPI-2.2 §8.8) or on a line of a --configfile,
// `where` ("after ':' number 2", "FILE line 3"), with the options that
// belong to it alone: -n, -x, -env, --wdir, --host.
int parse_context(const std::string& app_name, const std::vector<std::string>& words, const std::string& where,
                  AppContext* ctx) {
  CLI::App app{"The options of a program after a ':' (the job's options go before the first program)."};
  app.name(app_name + " ... :");
  app.add_option("-n,-c,--np,--n", ctx->nranks, "number of ranks of this program")->check(CLI::Range(1, 1 << 16));
  std::vector<std::string> exported;
  app.add_option("-x", exported, "VAR=VALUE, or VAR: set in this program's ranks")->allow_extra_args(false);
  std::vector<std::pair<std::string, std::string>> env;
  app.add_option("--env", env, "VAR VALUE: set in this program's ranks")->allow_extra_args(false);
  app.add_option("--wdir", ctx->wdir, "working directory of this program's ranks")->check(CLI::ExistingDirectory);
  std::vector<std::string> hosts;
  app.add_option("-H,--host", hosts, "this host only")->delimiter(',')->allow_extra_args(false);
  app.prefix_command();
  std::string unknown;
  std::vector<std::string> args = normalized(words, app, &unknown);
  if (!unknown.empty()) {
    std::cerr << app_name << ": " << unknown << " " << where
              << ": a program there takes -n, -x, -env, --wdir and --host; the job's options go before the first "
                 "program\n";
    return 2;
  }
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return exit_status(app, e);
  }
  ctx->command = app.remaining();
  if (!ctx->command.empty() && ctx->command[0] == "--") ctx->command.erase(ctx->command.begin());
  if (ctx->command.empty()) {
    std::cerr << app_name << ": no PROGRAM " << where << "\n";
    return 2;
  }
  long slots = 0;  // a program after ':' needs its own -n all the same
  if (int rc = check_hosts(app_name, hosts, &slots); rc >= 0) return rc;
  if (int rc = take_exports(app_name, exported, &ctx->env); rc >= 0) return rc;
  for (auto& kv : env) ctx->env.push_back(std::move(kv));
  return -1;
}

// The programs of a --configfile (MPI-2.2 §8.8's "mpiexec -configfile
// myfile"; Open MPI's --app): one per line, each line what would follow a
// ":" on the command line, split into words as a shell does (quotes,
// backslashes, $VAR; no $(...)) by wordexp(3). Blank lines and lines
// starting with '#' are skipped.
int read_program_file(const std::string& app_name, const std::string& path, std::vector<AppContext>* apps) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << app_name << ": --configfile " << path << ": cannot be read\n";
    return 2;
  }
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string where = path + " line " + std::to_string(n);
    wordexp_t w{};
    const int rc = ::wordexp(line.c_str(), &w, WRDE_NOCMD | WRDE_UNDEF);
    if (rc != 0) {
      if (rc == WRDE_NOSPACE) ::wordfree(&w);
      std::cerr << app_name << ": " << where << ": "
                << (rc == WRDE_BADVAL   ? "names an unset variable"
                    : rc == WRDE_CMDSUB ? "holds a command substitution, which is not run"
                    : rc == WRDE_BADCHAR ? "holds one of | & ; < > ( ) { } or a newline"
                                         : "cannot be split into words (an unbalanced quote?)")
                << "\n";
      return 2;
    }
    std::vector<std::string> words(w.we_wordv, w.we_wordv + w.we_wordc);
    ::wordfree(&w);
    AppContext ctx;
    if (int prc = parse_context(app_name, words, where, &ctx); prc >= 0) return prc;
    apps->push_back(std::move(ctx));
  }
  if (apps->empty()) {
    std::cerr << app_name << ": --configfile " << path << " names no program\n";
    return 2;
  }
  return -1;
}

// A program built with another MPI would run as that many jobs of one rank
// (foreign_mpi.h): refused before anything starts, unless the job is one
// rank (opt.nranks 0: the config's node count, checked too).
int refuse_foreign_mpi(const std::string& app_name, const LaunchOptions& opt) {
  if (opt.nranks == 1) return -1;
  for (const AppContext& app : opt.apps) {
    const std::string lib = foreign_mpi_library(app.command[0]);
    if (lib.empty()) continue;
    std::cerr << app_name << ": " << app.command[0] << " was built with another MPI (it needs " << lib
              << "; meshmp's is libmpi.so): started by " << app_name
              << ", each of its ranks would run alone, as rank 0 of 1. Build it with meshmp's mpicc, mpicxx or "
                 "mpif90 (mpicc -showme shows what they link), or start it with its own MPI's mpirun (Open MPI's "
                 "mpirun.openmpi, MPICH's mpirun.mpich)\n";
    return 2;
  }
  return -1;
}

}  // namespace

int parse_options(int argc, const char* const* argv, LaunchOptions* opt) {
  const char* slash = argc > 0 ? std::strrchr(argv[0], '/') : nullptr;
  const std::string app_name = argc > 0 ? (slash ? slash + 1 : argv[0]) : "qmprun";
  CLI::App app{"Start a meshmp job: N ranks of PROGRAM on this host, connected as a torus."};
  app.name(app_name);
  app.footer("PROGRAM [ARGS...] follow the options (or \"--\"). Open MPI's and MPICH's spellings of the options "
             "above (-np, -c, --np; -genv, -env; -ppn, -N, --map-by ppr:K:node; -H, --host, -hostfile, -machinefile; "
             "-l, -prepend-rank, -genvlist; any long option with one dash) "
             "are taken; --oversubscribe, --allow-run-as-root, -genvall, --prefix and -launcher change nothing here. "
             "Several programs "
             "as one job (MPMD): -n 1 ocean : -n 8 atmos ARGS; after each ':' a program takes -n (needed), -x, "
             "-env, --wdir and --host for its own ranks, which are numbered after the previous program's; "
             "MPI_APPNUM says which program a rank runs.");
  app.set_version_flag("--version,-V", app_name + " (meshmp): MPI " + std::to_string(MPI_VERSION) + "." +
                                           std::to_string(MPI_SUBVERSION) + " with MPI-2.2/3.1 additions, QMP " +
                                           QMP_VERSION_STR);
  app.add_option("-n,-c,--np,--n", opt->nranks, "number of ranks (also -np); default: the config's node count")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--geometry", opt->geometry, "torus shape, e.g. 2x2x2 (product = N)");
  app.add_option("--config", opt->config, "mesh config file (configs/*.toml)")->check(CLI::ExistingFile);
  app.add_option("--provider", opt->provider,
                 "links: auto (shm on one host; between hosts ofi over an RDMA fabric libfabric finds, else tcp; the "
                 "default), shm, tcp or ofi (libfabric; MESHMP_OFI_PROVIDER picks its provider)")
      ->check(CLI::IsMember({"auto", "shm", "tcp", "ofi"}));
  app.add_flag("--tag-output,--label,--prepend-rank", opt->tag_output,
               "prefix each output line with [rank] (also MPICH's -l and -prepend-rank, srun's --label)");
  app.add_option("--output-filename", opt->output_dir,
                 "also write each rank's stdout and stderr to DIR/1/rank.R/stdout and stderr (Open MPI's)");
  app.add_flag("--merge-stderr-to-stdout", opt->merge_stderr, "each rank's stderr goes where its stdout goes");
  app.add_option("--outfile-pattern", opt->outfile_pattern,
                 "write each rank's stdout to this file instead, %r its rank, %h the host (MPICH's -outfile-pattern)")
      ->check(pattern_check());
  app.add_option("--errfile-pattern", opt->errfile_pattern,
                 "the same for stderr (MPICH's -errfile-pattern)")
      ->check(pattern_check());
  // MPIEXEC_TIMEOUT: what MPICH's and Open MPI's mpiexec read (test suites set it).
  app.add_option("--timeout", opt->timeout_s, "kill the job after this many seconds")
      ->envname("MPIEXEC_TIMEOUT")
      ->check(CLI::PositiveNumber);
  app.add_option("--stopped-warning", opt->stopped_warning_s,
                 "name a rank that has been stopped (SIGSTOP) this many seconds (default 180)")
      ->check(CLI::PositiveNumber);
  app.add_option("--finalize-warning", opt->finalize_warning_s,
                 "name the ranks that have not finalized this many seconds after the first did (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--max-ranks", opt->max_ranks,
                 "start at most this many ranks on this host (default " + std::to_string(kDefaultMaxRanks) + ")")
      ->check(CLI::Range(1, 1 << 24));
  app.add_option("--netns", opt->netns,
                 "run rank r in network namespace NAME-n<r / ranks per node> of a qmp-mesh testbed (root)");
  app.add_option("--ranks-per-node,--ppn,-N,--npernode", opt->ranks_per_node,
                 "ranks per node (also -ppn, --map-by ppr:K:node): with --netns, per namespace (default: -n / "
                 "nodes); on this host alone, the default -n")
      ->check(CLI::Range(1, 1 << 16));
  // Environment for the ranks.
  std::vector<std::string> exported;
  // Each occurrence takes its own value(s) only: the program follows.
  app.add_option("-x", exported, "VAR=VALUE, or VAR to pass this environment's value, set in every rank (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--genvlist", exported, "VAR,VAR,...: pass these variables' values (MPICH's -genvlist, -envlist)")
      ->delimiter(',')
      ->allow_extra_args(false);
  std::vector<std::pair<std::string, std::string>> genv;
  app.add_option("--genv,--env", genv, "VAR VALUE: set in every rank (MPICH's -genv / -env; repeatable)")
      ->allow_extra_args(false);
  bool accepted = false;  // flags taken from habit that change nothing
  app.add_flag("--genvall", accepted, "pass the whole environment (the default)");
  app.add_flag("--oversubscribe", accepted, "accepted: more ranks than cores are always allowed");
  app.add_flag("--allow-run-as-root", accepted, "accepted: root may always run jobs");
  std::string prefix_dir, launcher;
  app.add_option("--prefix", prefix_dir,
                 "accepted: Open MPI's installation directory on remote nodes; ranks run here with this meshmp's "
                 "libraries");
  app.add_option("--launcher,--bootstrap", launcher,
                 "accepted: MPICH's way to start its proxies (fork, ssh, rsh, slurm); qmprun forks the ranks itself")
      ->check(CLI::IsMember({"fork", "ssh", "rsh", "slurm"}))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_flag("--use-hwthread-cpus", opt->hwthreads_as_cpus,
               "a hardware thread is a CPU: --bind-to core and PE=N count hardware threads, not cores");
  // Placement.
  std::vector<std::string> hosts;
  app.add_option("-H,--host", hosts, "hosts to run on: this host only (comma-separated)")
      ->delimiter(',')
      ->allow_extra_args(false);
  std::string hostfile;
  app.add_option("--hostfile,-f", hostfile, "file of hosts to run on: this host only (also -machinefile)");
  std::string map_by, bind_to;
  app.add_option("--map-by", map_by,
                 "ppr:K:node (K ranks per node, as --ranks-per-node), or core, slot, node, hwthread (core order), or "
                 "socket, numa (bound ranks dealt round them); then :PE=N, N cores per rank (binds to core)");
  app.add_option("--bind-to", bind_to,
                 "core: rank r on the r-th core it may run on (with all its hardware threads), hwthread, socket "
                 "(or package), numa: the socket or NUMA node of that core; none (the default). MPICH's core:N: N "
                 "cores each");
  int cpus_per_rank = 0;
  app.add_option("--cpus-per-rank,--cpus-per-proc", cpus_per_rank,
                 "cores for each rank, as --map-by slot:PE=N (binds to core)")
      ->check(CLI::Range(1, 1 << 16));
  app.add_flag("--report-bindings", opt->report_bindings, "print each rank's CPUs on stderr as it starts");
  app.add_flag("--disable-auto-cleanup,--enable-recovery", opt->disable_auto_cleanup,
               "a rank that ends without finalizing does not end the job: the others go on, and their calls "
               "that need it fail (MPICH's -disable-auto-cleanup, Open MPI's --enable-recovery)");
  std::string stdin_to = "0";
  app.add_option("--stdin", stdin_to, "rank that reads this standard input (the others read /dev/null), all or none "
                                      "(default 0)");
  std::string wdir;
  app.add_option("--wdir", wdir, "working directory of the ranks")->check(CLI::ExistingDirectory);
  std::string program_file;
  app.add_option("--configfile,--app", program_file,
                 "file of the job's programs, one per line, each with its own -n, -x, -env, --wdir, --host (also "
                 "-configfile)");
  app.prefix_command();
  // MPMD (MPI-2.2 §8.8): "-n 1 ocean : -n 8 atmos"; every ":" word starts
  // another program.
  std::vector<std::vector<std::string>> programs(1);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], ":") == 0) programs.emplace_back();
    else programs.back().emplace_back(argv[i]);
  }
  std::string unknown;
  std::vector<std::string> args = normalized(programs[0], app, &unknown);
  const std::string unknown_name = unknown.substr(0, unknown.find('='));
  if (unknown_name == "--mca" || unknown_name == "-mca" || unknown_name == "--gmca" || unknown_name == "-gmca") {
    std::cerr << app_name << ": " << unknown_name
              << " sets Open MPI's parameters, which meshmp does not read: meshmp's are environment variables "
                 "(README, \"Configuration\"; -x VAR=VALUE sets one for the ranks), and --provider chooses the links "
                 "(--provider tcp for --mca btl tcp,self)\n";
    return 2;
  } else if (!unknown.empty()) {
    std::cerr << app_name << ": unknown option " << unknown << " (see " << app_name << " --help)\n";
    return 2;
  }
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return exit_status(app, e);
  }
  opt->apps.assign(1, AppContext{});
  std::vector<std::string>& command = opt->apps[0].command;
  command = app.remaining();
  if (!command.empty() && command[0] == "--") command.erase(command.begin());
  if (!program_file.empty()) {
    if (!command.empty() || programs.size() > 1 || opt->nranks) {
      std::cerr << app_name << ": --configfile " << program_file
                << " names the programs and their -n: give no PROGRAM, ':' or -n beside it\n";
      return 2;
    }
    opt->apps.clear();
    if (int rc = read_program_file(app_name, program_file, &opt->apps); rc >= 0) return rc;
  } else if (command.empty()) {
    std::cerr << app_name << ": no PROGRAM given\n" << app.help();
    return 2;
  }
  long host_slots = 0, file_slots = 0;  // the slots -H and --hostfile give, all on this host
  if (int rc = check_hosts(app_name, hosts, &host_slots); rc >= 0) return rc;
  if (!hostfile.empty())
    if (int rc = check_hostfile(app_name, hostfile, &file_slots); rc >= 0) return rc;
  if (int rc = read_placement(app_name, map_by, bind_to, cpus_per_rank, opt); rc >= 0) return rc;
  if (stdin_to == "all" || stdin_to == "none") {
    opt->stdin_rank = stdin_to == "all" ? LaunchOptions::kStdinAll : LaunchOptions::kStdinNone;
  } else {
    char* end = nullptr;
    const long r = std::strtol(stdin_to.c_str(), &end, 10);
    if (stdin_to.empty() || *end || r < 0 || r >= (1 << 24)) {
      std::cerr << app_name << ": --stdin " << stdin_to << ": expected a rank, all or none\n";
      return 2;
    }
    opt->stdin_rank = static_cast<int>(r);
  }
  if (int rc = take_exports(app_name, exported, &opt->env); rc >= 0) return rc;
  for (auto& kv : genv) opt->env.push_back(std::move(kv));
  opt->wdir = wdir;
  if (program_file.empty()) opt->apps[0].nranks = opt->nranks;
  for (std::size_t k = 1; k < programs.size(); ++k) {
    AppContext ctx;
    if (int rc = parse_context(app_name, programs[k], "after ':' number " + std::to_string(k), &ctx); rc >= 0)
      return rc;
    opt->apps.push_back(std::move(ctx));
  }
  if (opt->apps.size() > 1) {
    long total = 0;
    for (std::size_t k = 0; k < opt->apps.size(); ++k) {
      if (opt->apps[k].nranks < 1) {
        std::cerr << app_name << ": each program of a job of several needs its own -n; "
                  << opt->apps[k].command[0] << " (program " << k + 1 << ") has none\n";
        return 2;
      }
      total += opt->apps[k].nranks;
    }
    if (total > (1 << 16)) {
      std::cerr << app_name << ": the programs' -n add up to " << total << ", more than 65536\n";
      return 2;
    }
    opt->nranks = static_cast<int>(total);
  } else {
    opt->nranks = opt->apps[0].nranks;
  }
  // The default -n: one rank, an allocation's tasks, the slots -H or
  // --hostfile give this host (-H's over the file's; mpirun --hostfile
  // $PBS_NODEFILE), or (Open MPI's -N K, --map-by ppr:K:node; MPICH's -ppn
  // K) K ranks on each node, of which there is one, this host, outside a
  // --netns testbed.
  int allocated = 1;
  if (int rc = check_slurm_allocation(app_name, &allocated); rc >= 0) return rc;
  if (const long slots = host_slots > 0 ? host_slots : file_slots; slots > 0) {
    if (slots > 1 << 16) {
      std::cerr << app_name << ": -H or --hostfile gives " << slots << " slots, more than 65536\n";
      return 2;
    }
    allocated = static_cast<int>(slots);
  }
  if (opt->ranks_per_node > 0 && opt->netns.empty()) allocated = opt->ranks_per_node;
  if (opt->nranks == 0 && opt->config.empty() && opt->geometry.empty())
    opt->nranks = opt->apps[0].nranks = allocated;
  return refuse_foreign_mpi(app_name, *opt);
}

}  // namespace meshmp::tools
