#include "tools/qmprun/launcher.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mesh/bootstrap/protocol.h"
#include "mesh/config/config.h"
#include "mesh/geometry.h"
#include "mesh/bootstrap/launch_env.h"
#include "mesh/random_token.h"

namespace meshmp::tools {
namespace {

using Clock = std::chrono::steady_clock;
namespace bs = mesh::bootstrap;

// The job id names the job's shared-memory segments, which every user can
// list: it is not a secret. MESHMP_JOB_PREFIX (a test harness's) starts it.
std::string make_job_id() {
  const char* prefix = std::getenv("MESHMP_JOB_PREFIX");
  std::string id = prefix ? prefix : "";
  if (id.size() > 24 || id.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz") != std::string::npos)
    throw std::runtime_error("MESHMP_JOB_PREFIX=" + id + ": expected up to 24 lower-case letters and digits");
  return id + mesh::random_hex(8);
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "ended with wait status " + std::to_string(status);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// Removes every shared-memory segment of this job a rank left behind (it
// died between creating a segment and its peer opening it) -- only ours: a
// name someone else planted is not ours to remove.
void sweep_shm(const std::string& job) {
  const std::string prefix = "meshmp-" + job + "-";
  DIR* d = ::opendir("/dev/shm");
  if (!d) return;
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d))
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) names.push_back(e->d_name);
  ::closedir(d);
  struct stat st {};
  for (const std::string& n : names)
    if (::lstat(("/dev/shm/" + n).c_str(), &st) == 0 && st.st_uid == ::geteuid()) ::shm_unlink(("/" + n).c_str());
}

// Output of one rank's stdout or stderr: re-emitted on qmprun's, line by
// line with a tag (--tag-output) or as it comes, and copied to `file`
// (--output-filename) if there is one.
struct OutputPipe {
  int fd = -1;
  int rank = 0;
  FILE* to = nullptr;
  bool tag = false;
  FILE* file = nullptr;  // owned
  std::string partial;

  void take(const char* data, std::size_t n) {
    if (file) {
      std::fwrite(data, 1, n, file);
      std::fflush(file);
    }
    if (!tag) {
      std::fwrite(data, 1, n, to);
      std::fflush(to);
      return;
    }
    partial.append(data, n);
    emit(false);
  }
  void close() {
    if (tag) emit(true);
    if (file) std::fclose(file), file = nullptr;
    ::close(fd);
    fd = -1;
  }
  void emit(bool at_eof) {
    size_t start = 0, nl;
    while ((nl = partial.find('\n', start)) != std::string::npos) {
      std::fprintf(to, "[%d] %.*s\n", rank, static_cast<int>(nl - start), partial.data() + start);
      start = nl + 1;
    }
    partial.erase(0, start);
    if (at_eof && !partial.empty()) {
      std::fprintf(to, "[%d] %s\n", rank, partial.c_str());
      partial.clear();
    }
    std::fflush(to);
  }
};

// A connection to the bootstrap socket. It never blocks us: the socket is
// non-blocking, bytes wait in `in` until a frame is whole and in `out` until
// the peer takes them, and a connection that has not said HELLO by
// `hello_by` is closed (a stalled or hostile client cannot hold up the
// launcher's watch over the ranks).
struct Client {
  int fd = -1;
  int rank = -1;  // -1 until HELLO
  std::string in, out;
  Clock::time_point hello_by;
};

constexpr auto kHelloDeadline = std::chrono::seconds(5);

class Job {
 public:
  explicit Job(const LaunchOptions& opt) : opt_(opt) {}
  ~Job() { cleanup(); }

  int run();

 private:
  void resolve_geometry();
  void place_in_namespaces();
  void enter_namespace(int r);    // in the child, before exec
  void export_rank_names(int r);  // in the child, before exec
  void redirect_output(int r);    // in the child, before exec
  std::pair<FILE*, FILE*> open_output_files(int r);
  void open_socket();
  void start_guardian();
  void spawn();
  void loop();
  void on_signal();
  void on_client(Client& c, short revents);
  void on_frame(Client& c, bs::Msg type, std::string body);
  void drop(Client& c, const char* why);
  void reap();
  void complete_fence();
  void report_finalize_wait(Clock::time_point now);
  void fail_job(int code, const std::string& message);
  void teardown(int sig);
  void cleanup();

  LaunchOptions opt_;
  int n_ = 0;
  std::string geometry_;
  std::string config_abs_;
  std::vector<std::string> netns_paths_;  // by rank (--netns)
  std::vector<cpu_set_t> bindings_;       // by rank (--bind-to); empty: not bound
  int per_host_ = 0;                      // ranks per namespace (--netns); 0: all on this host
  std::string job_id_;
  std::string secret_;  // what a HELLO must carry; only our children get it
  std::string dir_, sock_path_;
  int listen_fd_ = -1, sig_fd_ = -1;
  int guardian_fd_ = -1;  // closes when we end, however we end
  std::vector<pid_t> pids_;
  std::vector<bool> alive_;
  std::vector<Clock::time_point> stopped_since_;  // time_point{} while running
  std::vector<bool> stop_reported_;
  // Ranks that said HELLO, and those that said FINALIZING: one that exits
  // between the two, even with status 0, leaves the others waiting for it.
  std::vector<bool> joined_, finalizing_;
  // --disable-auto-cleanup: ranks that ended without finalizing while the
  // job went on. Fences complete without them.
  std::vector<bool> gone_;
  Clock::time_point finalize_wait_since_{};  // the first FINALIZING
  bool finalize_wait_reported_ = false;
  int alive_count_ = 0;
  pid_t pgid_ = 0;
  std::vector<Client> clients_;
  std::map<int, std::string> fence_blobs_;  // rank -> blob of the current fence
  std::vector<OutputPipe> pipes_;
  int exit_code_ = 0;
  bool failed_ = false;
  bool tearing_down_ = false;
  Clock::time_point kill_deadline_{};
  Clock::time_point timeout_at_{};
  sigset_t old_mask_{};
};

namespace {
// --report-bindings, in the child before exec: the CPUs rank r may run on,
// as Linux lists them ("0", "0-3,8"), on its stderr; `bound`: qmprun bound it.
void report_binding(int r, bool bound) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  std::string list;
  if (::sched_getaffinity(0, sizeof mask, &mask) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (!CPU_ISSET(c, &mask)) continue;
      int last = c;
      while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &mask)) ++last;
      list += (list.empty() ? "" : ",") + std::to_string(c) + (last > c ? "-" + std::to_string(last) : "");
      c = last;
    }
  }
  const bool one = CPU_COUNT(&mask) == 1;
  std::fprintf(stderr, "qmprun: rank %d (pid %d) %s %s\n", r, static_cast<int>(::getpid()),
               !bound ? "not bound, on CPUs" : one ? "bound to CPU" : "bound to CPUs", list.c_str());
}
}  // namespace

// The rank, the job's size and the rank's place among the ranks of its host
// (its namespace under --netns) under the names wrapper scripts and
// libraries read before MPI_Init to pick a GPU, a NUMA domain or a log
// file: meshmp's own, Open MPI's mpirun(1) "exported environment
// variables" and MPICH Hydra's MPI_LOCALRANKID/MPI_LOCALNRANKS. Neither
// library takes them for a launch of its own (a one-rank program built with
// it still runs as a singleton); PMI_* and SLURM_* are not set, as meshmp
// and Slurm's tools take those for their launchers.
void Job::export_rank_names(int r) {
  const int per = per_host_ > 0 ? per_host_ : n_;
  const int local = r % per, local_size = std::min(per, n_ - r / per * per);
  const std::string rank = std::to_string(r), size = std::to_string(n_), lr = std::to_string(local),
                    ls = std::to_string(local_size);
  const std::pair<const char*, const std::string*> names[] = {
      {"MESHMP_LOCAL_RANK", &lr},       {"MESHMP_LOCAL_SIZE", &ls},          {"OMPI_COMM_WORLD_RANK", &rank},
      {"OMPI_COMM_WORLD_SIZE", &size},  {"OMPI_COMM_WORLD_LOCAL_RANK", &lr}, {"OMPI_COMM_WORLD_LOCAL_SIZE", &ls},
      {"OMPI_COMM_WORLD_NODE_RANK", &lr}, {"OMPI_UNIVERSE_SIZE", &size},     {"MPI_LOCALRANKID", &lr},
      {"MPI_LOCALNRANKS", &ls}};
  for (const auto& [name, value] : names)
    ::setenv(name, value->c_str(), 1);
}

// --output-filename DIR: DIR/1/rank.R/stdout and, unless stderr is merged
// into stdout, .../stderr, as Open MPI 4.1 names them; the directories are
// made as needed.
std::pair<FILE*, FILE*> Job::open_output_files(int r) {
  const std::string dir = opt_.output_dir + "/1/rank." + std::to_string(r);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("--output-filename: cannot make " + dir + ": " + ec.message());
  FILE* out = std::fopen((dir + "/stdout").c_str(), "we");
  FILE* err = out && !opt_.merge_stderr ? std::fopen((dir + "/stderr").c_str(), "we") : nullptr;
  if (!out || (!err && !opt_.merge_stderr)) {
    const std::string why = std::strerror(errno);
    if (out) std::fclose(out);
    throw std::runtime_error("--output-filename: cannot write in " + dir + ": " + why);
  }
  return {out, err};
}

// In the child, before exec: MPICH's -outfile-pattern and -errfile-pattern
// (the rank's stdout / stderr to a file of its own) and
// --merge-stderr-to-stdout.
void Job::redirect_output(int r) {
  const auto to_file = [&](const std::string& pattern, int fd, const char* option) {
    if (pattern.empty()) return;
    std::string path;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] != '%' || i + 1 == pattern.size()) {
        path += pattern[i];
        continue;
      }
      const char c = pattern[++i];
      if (c == 'r') {
        path += std::to_string(r);
      } else if (c == 'h') {
        char host[256] = {};
        ::gethostname(host, sizeof host - 1);
        path += host;
      } else {
        path += c;  // "%%"; options.cc refused any other
      }
    }
    const int f = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (f < 0 || ::dup2(f, fd) < 0) {
      std::fprintf(stderr, "qmprun: %s: cannot write %s: %s\n", option, path.c_str(), std::strerror(errno));
      ::_exit(127);
    }
    ::close(f);
  };
  to_file(opt_.outfile_pattern, 1, "-outfile-pattern");
  if (opt_.merge_stderr && opt_.errfile_pattern.empty()) ::dup2(1, 2);
  to_file(opt_.errfile_pattern, 2, "-errfile-pattern");
}

void Job::enter_namespace(int r) {
  if (netns_paths_.empty()) return;
  const int fd = ::open(netns_paths_[r].c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::setns(fd, CLONE_NEWNET) != 0) {
    const std::string msg = "qmprun: rank " + std::to_string(r) + ": cannot enter network namespace " +
                            netns_paths_[r] + ": " + std::strerror(errno) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::close(fd);
}

void Job::resolve_geometry() {
  std::vector<int> dims;
  if (!opt_.config.empty()) {
    mesh::MeshConfig cfg = mesh::load_config(opt_.config);  // fail early, with file:line
    dims = cfg.torus.dims();
    char* abs = ::realpath(opt_.config.c_str(), nullptr);
    config_abs_ = abs ? abs : opt_.config;
    std::free(abs);
  }
  if (!opt_.geometry.empty()) dims = mesh::parse_dims(opt_.geometry);
  long long product = 1;
  for (int d : dims) product = std::min<long long>(product * d, 1LL << 31);  // saturates: at most 6 dims
  if (!opt_.nranks && product > opt_.max_ranks)
    throw std::runtime_error((opt_.geometry.empty() ? "config " + opt_.config : "geometry " + opt_.geometry) +
                             " has " + (product >= (1LL << 31) ? "over 2^31" : std::to_string(product)) +
                             " nodes, more than the " + std::to_string(opt_.max_ranks) +
                             " ranks qmprun starts on one host; give -n, or raise --max-ranks");
  n_ = opt_.nranks ? opt_.nranks : static_cast<int>(product);
  if (n_ > opt_.max_ranks)
    throw std::runtime_error("-n " + std::to_string(n_) + " is more than the " + std::to_string(opt_.max_ranks) +
                             " ranks qmprun starts on one host; raise --max-ranks to start them");
  if (!dims.empty() && product != n_)
    throw std::runtime_error("geometry " + (opt_.geometry.empty() ? mesh::Torus(dims).to_string() : opt_.geometry) +
                             " has " + std::to_string(product) + " nodes but -n is " + std::to_string(n_));
  if (!opt_.geometry.empty()) geometry_ = opt_.geometry;
  if (opt_.stdin_rank >= n_)
    throw std::runtime_error("--stdin " + std::to_string(opt_.stdin_rank) + ": the job has " + std::to_string(n_) +
                             " ranks");
  if (!opt_.netns.empty()) place_in_namespaces();
  if (opt_.bind_to != BindTo::kNone)
    bindings_ = plan_bindings(n_, opt_.bind_to, opt_.map_by, opt_.cpus_per_rank, opt_.hwthreads_as_cpus);
}

// qmprun --netns: rank r runs in node r / ranks_per_node's namespace.
void Job::place_in_namespaces() {
  int nodes = 0;
  while (::access(("/run/netns/" + opt_.netns + "-n" + std::to_string(nodes)).c_str(), F_OK) == 0) ++nodes;
  if (nodes == 0)
    throw std::runtime_error("--netns " + opt_.netns + ": no testbed of that name (qmp-mesh net up CONFIG --name " +
                             opt_.netns + " builds one)");
  int per = opt_.ranks_per_node;
  if (per == 0) {
    if (n_ % nodes != 0)
      throw std::runtime_error("--netns " + opt_.netns + " has " + std::to_string(nodes) + " nodes, which do not divide " +
                               std::to_string(n_) + " ranks evenly; give --ranks-per-node");
    per = n_ / nodes;
  }
  if (static_cast<long long>(per) * nodes < n_)
    throw std::runtime_error("--netns " + opt_.netns + ": " + std::to_string(nodes) + " nodes x " + std::to_string(per) +
                             " ranks per node hold fewer than " + std::to_string(n_) + " ranks");
  for (int r = 0; r < n_; ++r) netns_paths_.push_back("/run/netns/" + opt_.netns + "-n" + std::to_string(r / per));
  per_host_ = per;
}

void Job::open_socket() {
  char tmpl[] = "/tmp/meshmp-XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  dir_ = tmpl;
  sock_path_ = dir_ + "/bootstrap.sock";
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock_path_.c_str());
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 128) != 0)
    throw std::runtime_error("bootstrap socket " + sock_path_ + ": " + std::strerror(errno));
}

// A small process that outlives the launcher: when the launcher ends, even
// by SIGKILL, its end of a pipe closes; the guardian then waits (at most
// 5 s) for the ranks' process group, which the launcher sent it, to be gone
// -- they die with the launcher -- and removes the socket directory and the
// job's segments.
void Job::start_guardian() {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t g = ::fork();
  if (g < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (g == 0) {
    ::setsid();  // not in the ranks' group, not in the terminal's
    ::close(p[1]);
    ::close(listen_fd_);
    pid_t group = 0;
    ssize_t n;
    while ((n = ::read(p[0], &group, sizeof group)) < 0 && errno == EINTR) {
    }
    if (n != sizeof group) group = 0;
    char c;
    while (::read(p[0], &c, 1) != 0 && errno == EINTR) {
    }
    for (int i = 0; i < 500 && group > 0 && ::kill(-group, 0) == 0; ++i) ::usleep(10000);
    ::unlink(sock_path_.c_str());
    ::rmdir(dir_.c_str());
    sweep_shm(job_id_);
    ::_exit(0);
  }
  ::close(p[0]);
  guardian_fd_ = p[1];
}

void Job::spawn() {
  pids_.assign(n_, 0);
  alive_.assign(n_, false);
  stopped_since_.assign(n_, Clock::time_point{});
  stop_reported_.assign(n_, false);
  joined_.assign(n_, false);
  gone_.assign(n_, false);
  finalizing_.assign(n_, false);
  // Each application context's argv; contexts take ranks in turn.
  std::vector<std::vector<char*>> argvs;
  for (const AppContext& app : opt_.apps) {
    std::vector<char*>& argv = argvs.emplace_back();
    for (const std::string& a : app.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
  }
  const pid_t parent = ::getpid();
  // Output through qmprun: tagged, or copied to --output-filename's files,
  // all of them opened before any rank starts.
  const bool piped = opt_.tag_output || !opt_.output_dir.empty();
  std::vector<std::pair<FILE*, FILE*>> files(n_);
  struct Closer {
    std::vector<std::pair<FILE*, FILE*>>& files;
    ~Closer() {
      for (auto& [out, err] : files) {
        if (out) std::fclose(out);
        if (err) std::fclose(err);
      }
    }
  } closer{files};
  if (!opt_.output_dir.empty())
    for (int r = 0; r < n_; ++r) files[r] = open_output_files(r);
  std::size_t appnum = 0;
  int app_end = opt_.apps[0].nranks ? opt_.apps[0].nranks : n_;  // ranks below this run opt_.apps[appnum]
  for (int r = 0; r < n_; ++r) {
    if (r == app_end) app_end += opt_.apps[++appnum].nranks;
    const AppContext& app = opt_.apps[appnum];
    std::vector<char*>& argv = argvs[appnum];
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    if (piped && (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0))
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::setpgid(0, pgid_);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // no orphans even if qmprun is SIGKILLed
      if (::getppid() != parent) ::_exit(127);
      ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
      if (piped) {
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
      }
      redirect_output(r);
      if (opt_.stdin_rank != LaunchOptions::kStdinAll && opt_.stdin_rank != r) {
        const int null = ::open("/dev/null", O_RDONLY);
        if (null < 0 || ::dup2(null, 0) < 0) ::_exit(127);
        if (null != 0) ::close(null);
      }
      enter_namespace(r);
      // qmprun may itself run under a PMIx launcher (srun --mpi=pmix -n 1
      // qmprun ...); its ranks are its own job, so they must not see the
      // outer job's server (mesh/bootstrap/bootstrap.h picks PMIx first).
      ::unsetenv("PMIX_NAMESPACE");
      ::unsetenv("PMIX_RANK");
      ::unsetenv("PMI_FD");  // nor a PMI-2 one (mpiexec.mpich -n 1 qmprun ...)
      // -x / -genv first: the job's own variables below must win over them.
      for (const auto& [name, value] : opt_.env) ::setenv(name.c_str(), value.c_str(), 1);
      for (const auto& [name, value] : app.env) ::setenv(name.c_str(), value.c_str(), 1);
      ::setenv(mesh::env::kRank, std::to_string(r).c_str(), 1);
      ::setenv(mesh::env::kAppnum, std::to_string(appnum).c_str(), 1);
      ::setenv(mesh::env::kSize, std::to_string(n_).c_str(), 1);
      ::setenv(mesh::env::kJob, job_id_.c_str(), 1);
      ::setenv(mesh::env::kSecret, secret_.c_str(), 1);
      ::setenv(mesh::env::kBootstrap, sock_path_.c_str(), 1);
      if (!opt_.provider.empty()) ::setenv(mesh::env::kProvider, opt_.provider.c_str(), 1);
      if (!geometry_.empty()) ::setenv(mesh::env::kGeometry, geometry_.c_str(), 1);
      if (!config_abs_.empty()) ::setenv(mesh::env::kConfig, config_abs_.c_str(), 1);
      export_rank_names(r);
      if (!bindings_.empty() && ::sched_setaffinity(0, sizeof bindings_[r], &bindings_[r]) != 0) {
        std::fprintf(stderr, "qmprun: rank %d: cannot bind to its CPUs: %s\n", r, std::strerror(errno));
        ::_exit(127);
      }
      if (opt_.report_bindings) report_binding(r, !bindings_.empty());
      const std::string& wdir = app.wdir.empty() ? opt_.wdir : app.wdir;
      if (!wdir.empty() && ::chdir(wdir.c_str()) != 0) {
        std::fprintf(stderr, "qmprun: --wdir %s: %s\n", wdir.c_str(), std::strerror(errno));
        ::_exit(127);
      }
      ::execvp(argv[0], argv.data());
      std::fprintf(stderr, "qmprun: cannot run %s: %s\n", argv[0], std::strerror(errno));
      ::_exit(127);
    }
    if (pgid_ == 0) pgid_ = pid;
    ::setpgid(pid, pgid_);
    pids_[r] = pid;
    alive_[r] = true;
    ++alive_count_;
    if (piped) {
      ::close(out[1]);
      ::close(err[1]);
      pipes_.push_back({out[0], r, stdout, opt_.tag_output, files[r].first, {}});
      pipes_.push_back({err[0], r, stderr, opt_.tag_output, files[r].second, {}});
      files[r] = {};
    }
  }
}

void Job::fail_job(int code, const std::string& message) {
  if (!failed_) {
    failed_ = true;
    exit_code_ = code;
    std::fprintf(stderr, "qmprun: %s\n", message.c_str());
    std::fflush(stderr);
  }
  teardown(SIGTERM);
}

// SIGTERM everyone still running; SIGKILL one second later.
void Job::teardown(int sig) {
  if (alive_count_ == 0) return;
  if (!tearing_down_) {
    tearing_down_ = true;
    kill_deadline_ = Clock::now() + std::chrono::seconds(1);
  }
  if (pgid_ > 0) ::killpg(pgid_, sig);
  for (int r = 0; r < n_; ++r)
    if (alive_[r]) ::kill(pids_[r], sig);
}

void Job::reap() {
  int status;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG | WUNTRACED | WCONTINUED)) > 0) {
    for (int r = 0; r < n_; ++r) {
      if (pids_[r] != pid || !alive_[r]) continue;
      if (WIFSTOPPED(status) || WIFCONTINUED(status)) {
        stopped_since_[r] = WIFSTOPPED(status) ? Clock::now() : Clock::time_point{};
        if (WIFCONTINUED(status) && stop_reported_[r])
          std::fprintf(stderr, "qmprun: rank %d (pid %d) runs again\n", r, static_cast<int>(pid));
        stop_reported_[r] = false;
        continue;
      }
      alive_[r] = false;
      --alive_count_;
      bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if ((!ok || !finalizing_[r]) && joined_[r] && opt_.disable_auto_cleanup && !tearing_down_) {
        // The job goes on without it (MPICH's -disable-auto-cleanup; its
        // mpiexec says nothing either): the exit status tells.
        if (exit_code_ == 0) exit_code_ = ok ? 1 : exit_code_of(status);
        gone_[r] = true;
        complete_fence();
      } else if (!ok && !tearing_down_)
        fail_job(exit_code_of(status), "rank " + std::to_string(r) + " (pid " + std::to_string(pid) + ") " +
                                           describe_status(status) + "; ending the job");
      else if (joined_[r] && !finalizing_[r] && !tearing_down_)
        fail_job(1, "rank " + std::to_string(r) + " (pid " + std::to_string(pid) +
                        ") exited with status 0 without finalizing (QMP_finalize_msg_passing, MPI_Finalize); the "
                        "ranks that wait for it would wait forever: ending the job");
    }
  }
}

// A fence is over when every rank has sent its blob, but for those gone
// (--disable-auto-cleanup), whose blobs are empty: each rank gets them all.
void Job::complete_fence() {
  if (fence_blobs_.empty()) return;
  for (int r = 0; r < n_; ++r)
    if (!gone_[r] && !fence_blobs_.count(r)) return;
  std::vector<std::string> blobs(static_cast<std::size_t>(n_));
  for (auto& [r, b] : fence_blobs_) blobs[static_cast<std::size_t>(r)] = std::move(b);
  fence_blobs_.clear();
  const std::string result = bs::encode_frame(bs::Msg::kFenceResult, bs::encode_blobs(blobs));
  for (Client& other : clients_)
    if (other.fd >= 0 && other.rank >= 0) other.out += result;  // sent as each socket takes it
}

// Ranks in finalize wait in its fence for every other rank; if some have
// not come --finalize-warning seconds after the first, say once who is
// missing (a rank still computing, or one stuck waiting on a peer that has
// finalized).
void Job::report_finalize_wait(Clock::time_point now) {
  if (finalize_wait_reported_ || tearing_down_ || finalize_wait_since_ == Clock::time_point{} ||
      now - finalize_wait_since_ < std::chrono::duration<double>(opt_.finalize_warning_s))
    return;
  std::string missing;
  int in = 0;
  for (int r = 0; r < n_; ++r) {
    if (finalizing_[r]) ++in;
    else if (alive_[r]) missing += (missing.empty() ? "" : ", ") + std::to_string(r) + " (pid " + std::to_string(pids_[r]) + ")";
  }
  if (missing.empty()) return;
  finalize_wait_reported_ = true;
  std::fprintf(stderr, "qmprun: %d rank%s in finalize for %.0f s, waiting for rank %s, which has not finalized\n",
               in, in == 1 ? " has been" : "s have been", opt_.finalize_warning_s, missing.c_str());
}

void Job::on_signal() {
  signalfd_siginfo si;
  while (::read(sig_fd_, &si, sizeof si) == sizeof si) {
    if (si.ssi_signo == SIGCHLD) {
      reap();
    } else if (si.ssi_signo == SIGUSR1 || si.ssi_signo == SIGUSR2) {
      // Passed on to every rank, as Open MPI's mpirun does: a batch system's
      // warning before the time limit (sbatch --signal), a program's own
      // checkpoint trigger.
      for (int r = 0; r < n_; ++r)
        if (alive_[r]) ::kill(pids_[r], static_cast<int>(si.ssi_signo));
    } else {
      int sig = static_cast<int>(si.ssi_signo);
      fail_job(128 + sig, std::string("interrupted by ") + strsignal(sig) + "; ending the job");
    }
  }
}

void Job::drop(Client& c, const char* why) {
  if (why) std::fprintf(stderr, "qmprun: %s\n", why);
  ::close(c.fd);
  c.fd = -1;
}

void Job::on_client(Client& c, short revents) {
  if (revents & POLLOUT) {
    const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) c.out.erase(0, static_cast<std::size_t>(n));
    else if (n < 0 && errno != EAGAIN && errno != EINTR) return drop(c, nullptr);
  }
  if (!(revents & (POLLIN | POLLHUP | POLLERR))) return;
  char buf[65536];
  const ssize_t n = ::read(c.fd, buf, sizeof buf);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return drop(c, nullptr);
  if (n > 0) c.in.append(buf, static_cast<std::size_t>(n));
  bs::Msg type;
  std::string body;
  bool bad = false;
  while (c.fd >= 0 && bs::take_frame(c.in, &type, &body, &bad)) on_frame(c, type, std::move(body));
  if (bad) drop(c, "closed a bootstrap connection that announced an oversized frame");
}

void Job::on_frame(Client& c, bs::Msg type, std::string body) {
  if (c.rank < 0) {
    // Only ranks of this job may join: the HELLO must carry the job's secret
    // (handed to our children in MESHMP_SECRET, never part of a name) and an
    // unclaimed rank. The pid is not checked: a rank may run under a wrapper
    // (valgrind, perf, sh -c).
    std::uint32_t rank;
    if (type != bs::Msg::kHello || !bs::decode_hello(body, secret_, &rank))
      return drop(c, "refused a bootstrap connection without this job's secret");
    bool taken = false;
    for (const Client& o : clients_) taken |= o.rank == static_cast<int>(rank);
    if (rank >= static_cast<std::uint32_t>(n_) || taken) {
      std::fprintf(stderr, "qmprun: refused a bootstrap connection claiming rank %u\n", rank);
      return drop(c, nullptr);
    }
    c.rank = static_cast<int>(rank);
    joined_[c.rank] = true;
    return;
  }
  if (type == bs::Msg::kFinalizing) {
    finalizing_[c.rank] = true;
    if (finalize_wait_since_ == Clock::time_point{}) finalize_wait_since_ = Clock::now();
    // Every other rank learns it (issue 29): one waiting on this rank with
    // no link to it -- which would bring a BYE -- fails instead of hanging.
    const std::string notice = bs::encode_frame(bs::Msg::kPeerFinalizing, bs::encode_rank(c.rank));
    for (Client& other : clients_)
      if (other.fd >= 0 && other.rank >= 0 && other.rank != c.rank) other.out += notice;
    return;
  }
  if (type == bs::Msg::kFence) {
    fence_blobs_[c.rank] = std::move(body);
    return complete_fence();
  }
  int code;
  std::string message;
  if (type == bs::Msg::kAbort && bs::decode_abort(body, &code, &message))
    fail_job(code ? code : 1, "rank " + std::to_string(c.rank) + " aborted the job with code " +
                                  std::to_string(code) + ": " + message);
}

void Job::loop() {
  while (alive_count_ > 0 || !pipes_.empty()) {
    std::vector<pollfd> fds;
    fds.push_back({sig_fd_, POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (Client& c : clients_) fds.push_back({c.fd, static_cast<short>(POLLIN | (c.out.empty() ? 0 : POLLOUT)), 0});
    for (OutputPipe& p : pipes_) fds.push_back({p.fd, POLLIN, 0});
    int wait_ms = 200;
    ::poll(fds.data(), fds.size(), wait_ms);

    if (fds[0].revents) on_signal();
    // fds mirrors clients_ and pipes_ as they were before poll: walk those
    // first, accept newcomers last.
    const size_t nclients = clients_.size(), npipes = pipes_.size();
    size_t i = 2;
    for (size_t k = 0; k < nclients; ++k, ++i)
      if (fds[i].revents && clients_[k].fd >= 0) on_client(clients_[k], fds[i].revents);
    for (size_t k = 0; k < npipes; ++k, ++i) {
      if (!fds[i].revents) continue;
      char buf[65536];
      ssize_t n = ::read(pipes_[k].fd, buf, sizeof buf);
      if (n > 0) {
        pipes_[k].take(buf, static_cast<size_t>(n));
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        pipes_[k].close();
      }
    }
    if (fds[1].revents & POLLIN) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) clients_.push_back({fd, -1, {}, {}, Clock::now() + kHelloDeadline});
    }
    for (Client& c : clients_)
      if (c.fd >= 0 && c.rank < 0 && Clock::now() >= c.hello_by)
        drop(c, "closed a bootstrap connection that said no HELLO within 5 s");
    std::erase_if(clients_, [](const Client& c) { return c.fd < 0; });
    std::erase_if(pipes_, [](const OutputPipe& p) { return p.fd < 0; });

    const auto now = Clock::now();
    for (int r = 0; r < n_; ++r)
      if (alive_[r] && !stop_reported_[r] && stopped_since_[r] != Clock::time_point{} &&
          now - stopped_since_[r] >= std::chrono::duration<double>(opt_.stopped_warning_s)) {
        stop_reported_[r] = true;
        std::fprintf(stderr,
                     "qmprun: rank %d (pid %d) has been stopped for %.0f s (SIGSTOP, a debugger?); the job "
                     "waits for it (SIGCONT resumes it)\n",
                     r, static_cast<int>(pids_[r]), std::chrono::duration<double>(now - stopped_since_[r]).count());
      }
    report_finalize_wait(now);
    if (opt_.timeout_s > 0 && !tearing_down_ && now >= timeout_at_)
      fail_job(124, "the job exceeded --timeout (or MPIEXEC_TIMEOUT) " + std::to_string(opt_.timeout_s) +
                        " s; ending it");
    if (tearing_down_ && alive_count_ > 0 && now >= kill_deadline_) teardown(SIGKILL);
    // After SIGKILL, pipes held open by a rank's own children must not keep us.
    if (alive_count_ == 0 && tearing_down_ && now >= kill_deadline_ + std::chrono::seconds(1)) break;
  }
}

void Job::cleanup() {
  for (Client& c : clients_)
    if (c.fd >= 0) ::close(c.fd);
  clients_.clear();
  for (OutputPipe& p : pipes_)
    if (p.fd >= 0) p.close();
  pipes_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_), listen_fd_ = -1;
  if (sig_fd_ >= 0) ::close(sig_fd_), sig_fd_ = -1;
  if (!sock_path_.empty()) ::unlink(sock_path_.c_str()), sock_path_.clear();
  if (!dir_.empty()) ::rmdir(dir_.c_str()), dir_.clear();
  if (!job_id_.empty()) sweep_shm(job_id_);
  if (guardian_fd_ >= 0) ::close(guardian_fd_), guardian_fd_ = -1;  // nothing left for it
}

int Job::run() {
  resolve_geometry();
  job_id_ = make_job_id();
  secret_ = mesh::random_hex(16);
  open_socket();
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) sigaddset(&mask, s);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask_);
  sig_fd_ = ::signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  timeout_at_ = Clock::now() + std::chrono::milliseconds(static_cast<long>(opt_.timeout_s * 1000));
  start_guardian();
  spawn();
  // If the guardian is gone, the normal cleanup below still runs.
  const ssize_t told = ::write(guardian_fd_, &pgid_, sizeof pgid_);
  (void)told;
  loop();
  cleanup();
  ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  return exit_code_;
}

}  // namespace

int run_job(const LaunchOptions& opt) {
  try {
    Job job(opt);
    return job.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "qmprun: %s\n", e.what());
    return 2;
  }
}

}  // namespace meshmp::tools
