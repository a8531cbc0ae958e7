#include "tools/qmp-mesh/routers.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <vector>

namespace meshmp::tools {

namespace {

std::runtime_error sys_error(const std::string& what) { return std::runtime_error(what + ": " + std::strerror(errno)); }

void write_file(const std::string& path, const void* data, std::size_t n, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) throw sys_error("cannot create " + path);
  const bool ok = ::write(fd, data, n) == static_cast<ssize_t>(n);
  ::close(fd);
  if (!ok) throw sys_error("cannot write " + path);
}

// A running process (not a zombie) whose program is meshrouted: so that a
// PID reused since is never signalled.
bool alive(pid_t pid) {
  const int fd = ::open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool running = stat_is_running_meshrouted(fd);
  ::close(fd);
  return running;
}

}  // namespace

bool stat_is_running_meshrouted(int stat_fd) {
  char buf[4096];  // a stat line is some 300 bytes; its 52 fields fit in 1 KiB
  std::size_t n = 0;
  for (;;) {
    const ssize_t r = ::read(stat_fd, buf + n, sizeof buf - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return false;  // ESRCH: the process has gone since the file was opened
    if (r == 0 || (n += static_cast<std::size_t>(r)) == sizeof buf) break;
  }
  const std::string_view text(buf, n);
  const std::size_t close = text.rfind(')');
  if (close == std::string_view::npos || close + 2 >= text.size() || text[close + 2] == 'Z') return false;
  return text.find("(meshrouted)") != std::string_view::npos;
}

std::string routers_dir(const std::string& name) { return "/run/meshmp-net/" + name; }

std::string default_meshrouted() {
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = 0;
  std::string dir(self);
  dir.resize(dir.rfind('/') + 1);
  for (const char* rel : {"meshrouted", "../../kernel_forwarder/meshrouted"})  // installed; bazel-bin
    if (::access((dir + rel).c_str(), X_OK) == 0) return dir + rel;
  return "";
}

void start_routers(const kernel_forwarder::NetPlan& plan, const std::string& config, const std::string& meshrouted) {
  const std::string dir = routers_dir(plan.name);
  ::mkdir("/run/meshmp-net", 0755);
  if (::mkdir(dir.c_str(), 0700) != 0) throw sys_error("cannot create " + dir);
  unsigned char key[32];
  if (::getrandom(key, sizeof key, 0) != static_cast<ssize_t>(sizeof key)) throw sys_error("getrandom");
  write_file(dir + "/key", key, sizeof key, 0600);
  std::ifstream in(config, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  write_file(dir + "/mesh.toml", text.data(), text.size(), 0600);
  for (int i = 0; i < plan.nodes; ++i) {
    const std::string ns = "/run/netns/" + plan.node_ns(i), log = dir + "/n" + std::to_string(i) + ".log";
    const std::string node = std::to_string(i), cfg = dir + "/mesh.toml", keyf = dir + "/key";
    const pid_t pid = ::fork();
    if (pid < 0) throw sys_error("fork");
    if (pid == 0) {
      const int nsfd = ::open(ns.c_str(), O_RDONLY | O_CLOEXEC);
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if (nsfd < 0 || out < 0 || ::setns(nsfd, CLONE_NEWNET) != 0) ::_exit(127);
      ::setsid();
      ::dup2(out, 1);
      ::dup2(out, 2);
      const int null = ::open("/dev/null", O_RDONLY);
      if (null >= 0) ::dup2(null, 0);
      ::execl(meshrouted.c_str(), "meshrouted", "--config", cfg.c_str(), "--node", node.c_str(), "--key",
              keyf.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    const std::string p = std::to_string(pid);
    write_file(dir + "/n" + node + ".pid", p.data(), p.size(), 0600);
  }
  // A daemon that cannot start says so at once: give them a moment and check.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  for (int i = 0; i < plan.nodes; ++i) {
    std::ifstream pf(dir + "/n" + std::to_string(i) + ".pid");
    pid_t pid = 0;
    pf >> pid;
    int st = 0;
    if (pid > 0 && ::waitpid(pid, &st, WNOHANG) == pid) {
      std::ifstream lf(dir + "/n" + std::to_string(i) + ".log");
      std::string line;
      std::getline(lf, line);
      throw std::runtime_error("meshrouted of node " + std::to_string(i) + " exited: " + line);
    }
  }
}

int stop_routers(const std::string& name) {
  const std::string dir = routers_dir(name);
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  std::vector<pid_t> pids;
  std::vector<std::string> files;
  while (dirent* e = ::readdir(d)) {
    const std::string f = e->d_name;
    if (f != "." && f != "..") files.push_back(f);
    if (f.size() > 4 && f.compare(f.size() - 4, 4, ".pid") == 0) {
      std::ifstream pf(dir + "/" + f);
      pid_t pid = 0;
      if (pf >> pid && pid > 1) pids.push_back(pid);
    }
  }
  ::closedir(d);
  for (pid_t pid : pids)
    if (alive(pid)) ::kill(pid, SIGTERM);
  int left = 0;
  for (pid_t pid : pids) {
    for (int k = 0; k < 200 && alive(pid); ++k) {
      ::waitpid(pid, nullptr, WNOHANG);  // ours, when up and down run in one process
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (alive(pid)) {
      ::kill(pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      left += alive(pid);
    }
  }
  for (const std::string& f : files) ::unlink((dir + "/" + f).c_str());
  ::rmdir(dir.c_str());
  return left;
}

}  // namespace meshmp::tools
