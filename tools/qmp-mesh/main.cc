// qmp-mesh: a mesh config file checked and shown, and the cluster it
// describes built on this host out of network namespaces and veth cables
// (issue 17) -- so meshmp's tcp provider and its routing can be tested on a
// real mesh of links. On a mesh fabric every node forwards IPv4 and holds
// kernel routes along the SDF route to every other node's address
// (kernel_forwarder/, issue 19).
//
//   qmp-mesh check CONFIG                validate it: one summary line, or the
//                                        error (file:line: key: ...)
//   qmp-mesh show CONFIG                 and every node: rank, host,
//                                        coordinates, neighbours, interfaces
//   qmp-mesh net up CONFIG --name NAME   build it (root); an interrupted or
//                                        failed `up` removes what it made
//   qmp-mesh net show NAME               list its namespaces and addresses
//   qmp-mesh net down NAME               remove everything it made
//
// Addresses: kernel_forwarder/address_plan.h. Jobs run on it with `qmprun --netns NAME`.
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_forwarder/address_plan.h"
#include "kernel_forwarder/netlink_routes.h"
#include "kernel_forwarder/route_plan.h"
#include "mesh/config/config.h"
#include "routing/route_table.h"
#include "tools/qmp-mesh/config_commands.h"
#include "tools/qmp-mesh/routers.h"

extern char** environ;

namespace {

using meshmp::kernel_forwarder::NetPlan;

std::atomic<bool> g_interrupted{false};
void on_signal(int) { g_interrupted = true; }

// Runs `ip ARGS...` (iproute2, never a shell); throws with the command on failure.
void ip(std::vector<std::string> args, bool quiet = false) {
  if (g_interrupted) throw std::runtime_error("interrupted");
  args.insert(args.begin(), "ip");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (quiet) posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "ip", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(std::string("cannot run ip (iproute2): ") + std::strerror(rc));
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
    std::string cmd;
    for (auto& a : args) cmd += (cmd.empty() ? "" : " ") + a;
    throw std::runtime_error("failed: " + cmd);
  }
}

// The namespaces of testbed `name` that exist ("<name>-n<i>", "<name>-hub").
std::vector<std::string> namespaces_of(const std::string& name) {
  std::vector<std::string> v;
  DIR* d = ::opendir("/run/netns");
  if (!d) return v;
  const std::string node = name + "-n", hub = name + "-hub";
  while (dirent* e = ::readdir(d)) {
    const std::string s = e->d_name;
    const bool is_node = s.rfind(node, 0) == 0 && s.size() > node.size() &&
                         s.find_first_not_of("0123456789", node.size()) == std::string::npos;
    if (is_node || s == hub) v.push_back(s);
  }
  ::closedir(d);
  std::sort(v.begin(), v.end());
  return v;
}

int net_down(const std::string& name) {
  int failed = meshmp::tools::stop_routers(name);
  if (failed) std::cerr << "qmp-mesh net down: " << failed << " meshrouted daemon(s) would not stop\n";
  for (const std::string& ns : namespaces_of(name)) {  // deleting a namespace deletes its veth ends
    try {
      ip({"netns", "delete", ns});
    } catch (const std::exception& e) {
      std::cerr << "qmp-mesh net down: " << e.what() << "\n";
      ++failed;
    }
  }
  return failed ? 1 : 0;
}

// Runs fn() with this thread in network namespace `ns` (/run/netns/NS),
// then returns to the one it was in.
template <class Fn>
void in_namespace(const std::string& ns, Fn fn) {
  const int home = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  const int there = ::open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
  if (home < 0 || there < 0 || ::setns(there, CLONE_NEWNET) != 0) {
    const int err = errno;
    if (home >= 0) ::close(home);
    if (there >= 0) ::close(there);
    throw std::runtime_error("cannot enter network namespace " + ns + ": " + std::strerror(err));
  }
  ::close(there);
  try {
    fn();
  } catch (...) {
    ::setns(home, CLONE_NEWNET);
    ::close(home);
    throw;
  }
  if (::setns(home, CLONE_NEWNET) != 0) throw std::runtime_error("cannot return to this host's network namespace");
  ::close(home);
}

// Every node forwards, with a /32 route along the SDF route to each other
// node's address (kernel_forwarder/route_plan.h).
void install_kernel_routes(const NetPlan& p, const meshmp::mesh::Torus& t) {
  namespace kf = meshmp::kernel_forwarder;
  const meshmp::routing::RouteTables tables(t, {});
  for (int i = 0; i < p.nodes; ++i) {
    if (g_interrupted) throw std::runtime_error("interrupted");
    in_namespace(p.node_ns(i), [&] {
      kf::enable_forwarding();
      // Every cable is up now: a refused route is a fault in the plan.
      const std::vector<std::string> refused = kf::install_routes(kf::node_routes(p, tables, t, i));
      if (!refused.empty()) throw std::runtime_error("kernel_forwarder: " + refused.front());
    });
  }
}

void build(const NetPlan& p) {
  using meshmp::kernel_forwarder::dotted;
  for (int i = 0; i < p.nodes; ++i) {
    ip({"netns", "add", p.node_ns(i)});
    ip({"-n", p.node_ns(i), "link", "set", "lo", "up"});
  }
  if (p.switched) {
    ip({"netns", "add", p.hub_ns()});
    ip({"-n", p.hub_ns(), "link", "add", "br0", "type", "bridge"});
    ip({"-n", p.hub_ns(), "link", "set", "br0", "up"});
    for (int i = 0; i < p.nodes; ++i) {
      const std::string port = "n" + std::to_string(i);
      ip({"link", "add", "eth0", "netns", p.node_ns(i), "type", "veth", "peer", "name", port, "netns", p.hub_ns()});
      ip({"-n", p.hub_ns(), "link", "set", port, "master", "br0", "up"});
      ip({"-n", p.node_ns(i), "addr", "add", dotted(p.node_addr[i]) + "/16", "dev", "eth0"});
      ip({"-n", p.node_ns(i), "link", "set", "eth0", "up"});
    }
    return;
  }
  for (int i = 0; i < p.nodes; ++i) ip({"-n", p.node_ns(i), "addr", "add", dotted(p.node_addr[i]) + "/32", "dev", "lo"});
  for (const auto& c : p.cables) {
    ip({"link", "add", c.if_a, "netns", p.node_ns(c.a), "type", "veth", "peer", "name", c.if_b, "netns",
        p.node_ns(c.b)});
    ip({"-n", p.node_ns(c.a), "addr", "add", dotted(c.addr_a) + "/31", "dev", c.if_a});
    ip({"-n", p.node_ns(c.b), "addr", "add", dotted(c.addr_b) + "/31", "dev", c.if_b});
    ip({"-n", p.node_ns(c.a), "link", "set", c.if_a, "up"});
    ip({"-n", p.node_ns(c.b), "link", "set", c.if_b, "up"});
  }
}

int net_up(const std::string& config, const std::string& name, std::string meshrouted) {
  if (std::string why = meshmp::kernel_forwarder::check_name(name); !why.empty()) throw std::runtime_error(why);
  if (::geteuid() != 0) throw std::runtime_error("needs root: it creates network namespaces and veth cables");
  const meshmp::mesh::MeshConfig cfg = meshmp::mesh::load_config(config);
  const NetPlan plan = meshmp::kernel_forwarder::make_plan(cfg, name);
  // A testbed only ever uses 198.18.0.0/15, whatever a config asks for.
  for (const auto* b : {&cfg.node_block, &cfg.cable_block}) {
    namespace kf = meshmp::kernel_forwarder;
    const std::uint32_t mask = ~std::uint32_t{0} << (32 - kf::kTestbedPrefix);
    if (b->prefix < kf::kTestbedPrefix || (b->base & mask) != kf::kTestbedBlock)
      throw std::runtime_error(config + ": [addresses] " + kf::block_text(*b) +
                               " is outside 198.18.0.0/15, the only block a testbed uses");
  }
  if (!plan.switched && meshrouted.empty()) meshrouted = meshmp::tools::default_meshrouted();
  if (!plan.switched && (meshrouted.empty() || ::access(meshrouted.c_str(), X_OK) != 0))
    throw std::runtime_error("a mesh testbed runs meshrouted in every node, and there is none next to qmp-mesh: "
                             "give its path with --meshrouted");
  if (!namespaces_of(name).empty())
    throw std::runtime_error("namespaces of testbed \"" + name + "\" exist already (" + namespaces_of(name)[0] +
                             " ...): choose another --name or run `qmp-mesh net down " + name + "` first");
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  for (int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &sa, nullptr);
  try {
    build(plan);
    if (!plan.switched) {
      install_kernel_routes(plan, cfg.torus);
      meshmp::tools::start_routers(plan, config, meshrouted);
    }
  } catch (...) {
    // Nothing half-built stays behind, also after SIGINT/SIGTERM: the
    // removal itself is not interrupted (ip() refuses to run while
    // g_interrupted is set, and a second ^C must not cut it short).
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    for (int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &ignore, nullptr);
    const bool interrupted = g_interrupted.exchange(false);
    net_down(name);
    if (interrupted) throw std::runtime_error("up: interrupted; what it had made is removed");
    throw;
  }
  std::cout << "qmp-mesh: testbed " << name << ": " << plan.nodes << " namespaces " << plan.node_ns(0) << ".."
            << plan.node_ns(plan.nodes - 1) << ", "
            << (plan.switched ? "one bridge in " + plan.hub_ns()
                              : std::to_string(plan.cables.size()) + " cables, a meshrouted in each node (" +
                                    meshmp::tools::routers_dir(name) + ")")
            << "\n";
  return 0;
}

int net_show(const std::string& name) {
  const auto v = namespaces_of(name);
  if (v.empty()) {
    std::cerr << "qmp-mesh net show: no testbed \"" << name << "\"\n";
    return 1;
  }
  for (const std::string& ns : v) {
    std::cout << ns << ":\n" << std::flush;
    ip({"-n", ns, "-brief", "address", "show"});
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"qmp-mesh: check and show a meshmp mesh config; build the cluster it describes of network "
               "namespaces on this host"};
  app.require_subcommand(1);
  std::string file;
  CLI::App* check = app.add_subcommand("check", "validate FILE and print a one-line summary");
  check->add_option("FILE", file, "config file")->required();
  CLI::App* show_cfg = app.add_subcommand("show", "print every node, its neighbours and interfaces");
  show_cfg->add_option("FILE", file, "config file")->required();
  CLI::App* net = app.add_subcommand("net", "the namespace testbed");
  net->require_subcommand(1);
  std::string config, name;
  CLI::App* up = net->add_subcommand("up", "build the cluster CONFIG describes (root)");
  up->add_option("config", config, "mesh config file (configs/*.toml)")->required()->check(CLI::ExistingFile);
  up->add_option("--name", name, "testbed name: 1-8 lower-case letters and digits")->required();
  std::string meshrouted;
  up->add_option("--meshrouted", meshrouted, "the meshrouted program (default: the one next to qmp-mesh)");
  CLI::App* show = net->add_subcommand("show", "list a testbed's namespaces and addresses");
  show->add_option("name", name, "testbed name")->required();
  CLI::App* down = net->add_subcommand("down", "remove a testbed");
  down->add_option("name", name, "testbed name")->required();
  CLI11_PARSE(app, argc, argv);
  if (*check || *show_cfg) return meshmp::tools::check_config(file, show_cfg->parsed());
  try {
    if (*up) return net_up(config, name, meshrouted);
    if (*show) return net_show(name);
    if (*down) {
      if (std::string why = meshmp::kernel_forwarder::check_name(name); !why.empty()) throw std::runtime_error(why);
      // A name that is not a testbed is a mistake to say, as `net show` does.
      struct stat st {};
      if (namespaces_of(name).empty() && ::stat(meshmp::tools::routers_dir(name).c_str(), &st) != 0) {
        std::cerr << "qmp-mesh net down: no testbed \"" << name << "\" (nothing to remove)\n";
        return 1;
      }
      return net_down(name);
    }
  } catch (const std::exception& e) {
    std::cerr << "qmp-mesh net: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
