// meshrouted: the per-node routing daemon of an IP mesh (ARCHITECTURE.md §4;
// seed 003 §4, §5.1). One per host on a cluster, one per namespace in the
// testbed (qmp-mesh net up starts them). It
//   - installs the node's kernel routes: a /32 to every other node's address
//     along the SDF route (kernel_forwarder/route_plan.h),
//   - watches its cables through rtnetlink (a cable is down when its
//     interface is not up or has lost carrier),
//   - floods what it sees to its live neighbours in authenticated UDP
//     reports (link_state.h), merges theirs, and
//   - whenever the set of dead cables changes, replaces the routes with
//     shortest routes around them (routing/route_table.h) -- and gives the
//     SDF routes back when the cables return.
// TCP connections between node addresses then survive a cable cut: they
// retransmit along the detour.
//
//   meshrouted --config FILE [--node I] --key FILE [--port 7077]
//
// Without --node, the node is the one the config's node list names this
// host (gethostname; a short name matches its long form); a host that is
// listed for no node or for several needs --node.
//
// Exits 0 on SIGTERM/SIGINT, 1 with a message on a bad argument or a
// netlink failure. A route the kernel refuses (its next hop's interface
// went down before the daemon read that event) is logged once and tried
// again every 250 ms until the interfaces settle. One line on stderr per
// change of the dead cables.
#include <arpa/inet.h>
#include <linux/if.h>
#include <netinet/in.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_forwarder/address_plan.h"
#include "kernel_forwarder/link_state.h"
#include "kernel_forwarder/netlink_routes.h"
#include "kernel_forwarder/route_plan.h"
#include "mesh/config/config.h"
#include "routing/route_table.h"

namespace kf = meshmp::kernel_forwarder;
using meshmp::mesh::Direction;

namespace {

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

struct OwnCable {
  int dir = 0;              // Direction::index
  std::string ifname;       // this end
  std::uint32_t peer = 0;   // the other end's address (host order)
};

struct SockFree { void operator()(nl_sock* s) const { nl_socket_free(s); } };
struct CacheFree { void operator()(nl_cache* c) const { nl_cache_free(c); } };

int ignore_message(nl_msg*, void*) { return NL_OK; }

// One line of the log (stderr; qmp-mesh keeps it in the testbed's nN.log,
// systemd in the journal): a UTC timestamp to the millisecond, then the text.
void log_line(const std::string& text) {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  ::gmtime_r(&secs, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
  std::fprintf(stderr, "%s.%03dZ meshrouted: %s\n", stamp, static_cast<int>(ms), text.c_str());
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class Daemon {
 public:
  Daemon(const meshmp::mesh::MeshConfig& cfg, int node, kf::RouteKey key, int port)
      : t_(cfg.torus), node_(node), key_(key), port_(port), plan_(kf::make_plan(cfg, "meshrouted")) {
    if (plan_.switched) throw std::runtime_error(cfg.file + ": fabric = \"switched\" needs no routes");
    if (node < 0 || node >= t_.size())
      throw std::runtime_error("--node " + std::to_string(node) + " is not a node of " + t_.to_string());
    for (const kf::Cable& c : plan_.cables) {
      if (c.a == node_) cables_.push_back({Direction{c.axis, +1}.index(), c.if_a, c.addr_b});
      if (c.b == node_) cables_.push_back({Direction{c.axis, -1}.index(), c.if_b, c.addr_a});
    }
    me_.origin = node_;
    me_.epoch = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    // Link events: any change of an interface wakes the loop.
    events_.reset(nl_socket_alloc());
    query_.reset(nl_socket_alloc());
    if (!events_ || !query_) throw std::runtime_error("out of memory");
    nl_socket_disable_seq_check(events_.get());
    nl_socket_modify_cb(events_.get(), NL_CB_VALID, NL_CB_CUSTOM, ignore_message, nullptr);
    if (int e = nl_connect(events_.get(), NETLINK_ROUTE); e < 0) throw std::runtime_error(std::string("rtnetlink: ") + nl_geterror(e));
    if (int e = nl_connect(query_.get(), NETLINK_ROUTE); e < 0) throw std::runtime_error(std::string("rtnetlink: ") + nl_geterror(e));
    nl_socket_add_membership(events_.get(), RTNLGRP_LINK);
    nl_socket_set_nonblocking(events_.get());
    udp_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port_));
    if (udp_ < 0 || ::bind(udp_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error("cannot listen on UDP port " + std::to_string(port_) + ": " + std::strerror(errno));
  }
  ~Daemon() {
    if (udp_ >= 0) ::close(udp_);
  }

  void run() {
    kf::enable_forwarding();
    me_.down = own_down();
    db_.merge(me_);
    reroute("start");
    flood(me_);
    double last_refresh = now_ms(), last_retry = 0;
    while (!g_stop) {
      pollfd fds[2] = {{nl_socket_get_fd(events_.get()), POLLIN, 0}, {udp_, POLLIN, 0}};
      const int n = ::poll(fds, 2, 250);
      if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      bool changed = false;
      if (n > 0 && (fds[0].revents & POLLIN)) {
        while (nl_recvmsgs_default(events_.get()) >= 0) {
        }
        const std::uint32_t down = own_down();
        if (down != me_.down) {
          me_.down = down;
          ++me_.seq;
          db_.merge(me_);
          flood(me_);
          changed = true;
        }
      }
      if (n > 0 && (fds[1].revents & POLLIN)) changed |= receive();
      if (changed) reroute("change");
      else if (retry_ && now_ms() - last_retry > 200) {
        last_retry = now_ms();
        reroute("retry");
      }
      // Every second: our own report again, and every report of a cable
      // down, so a node that missed a datagram (or started later) catches up.
      if (now_ms() - last_refresh > 1000) {
        last_refresh = now_ms();
        flood(me_);
        for (const auto& r : reports_)
          if (r.second.down && r.first != node_) flood(r.second);
      }
    }
  }

 private:
  // The cables of this node that are down: interface missing, not up, or
  // without carrier.
  std::uint32_t own_down() {
    nl_cache* raw = nullptr;
    if (int e = rtnl_link_alloc_cache(query_.get(), AF_UNSPEC, &raw); e < 0)
      throw std::runtime_error(std::string("listing interfaces: ") + nl_geterror(e));
    std::unique_ptr<nl_cache, CacheFree> links(raw);
    std::uint32_t down = 0;
    for (const OwnCable& c : cables_) {
      rtnl_link* l = rtnl_link_get_by_name(links.get(), c.ifname.c_str());
      const unsigned flags = l ? rtnl_link_get_flags(l) : 0;
      if (l) rtnl_link_put(l);
      if (!(flags & IFF_UP) || !(flags & IFF_LOWER_UP)) down |= 1u << c.dir;
    }
    return down;
  }

  void flood(const kf::LinkReport& r) {
    const std::string bytes = kf::encode_report(r, key_);
    for (const OwnCable& c : cables_) {
      if (me_.down & (1u << c.dir)) continue;
      sockaddr_in to{};
      to.sin_family = AF_INET;
      to.sin_port = htons(static_cast<std::uint16_t>(port_));
      to.sin_addr.s_addr = htonl(c.peer);
      ::sendto(udp_, bytes.data(), bytes.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof to);
    }
  }

  bool receive() {
    bool changed = false;
    char buf[256];
    for (;;) {
      const ssize_t n = ::recv(udp_, buf, sizeof buf, 0);
      if (n < 0) break;
      auto r = kf::decode_report(std::string(buf, static_cast<std::size_t>(n)), key_, t_.size(), t_.ndims());
      if (!r || r->origin == node_) continue;  // forged, malformed, or our own coming back
      if (db_.merge(*r)) {
        const bool different = reports_[r->origin].down != r->down;
        reports_[r->origin] = *r;
        flood(*r);
        changed |= different;
      }
    }
    return changed;
  }

  // New routes for the cables now down, installed; one log line naming
  // each dead cable by its ends (node, direction, interface) and how many
  // of this node's routes changed.
  void reroute(const char* why) {
    const double t0 = now_ms();
    const meshmp::routing::CableSet dead = db_.dead(t_);
    const meshmp::routing::RouteTables tables(t_, dead);
    auto routes = kf::node_routes(plan_, tables, t_, node_, dead);
    // A route refused because its next hop's interface went down a moment
    // ago (its event not read yet) is tried again shortly: a cable that
    // flaps must not end the daemon, which would leave the node unrouted.
    const std::vector<std::string> refused = kf::install_routes(routes);
    retry_ = !refused.empty();
    const std::string refusal = retry_ ? refused.front() : "";
    if (retry_ && refusal != last_refusal_)  // once per kind of refusal, not every retry
      log_line("node " + std::to_string(node_) + ": " + std::to_string(refused.size()) + " route change" +
               (refused.size() == 1 ? "" : "s") + " refused, trying again: " + refusal);
    last_refusal_ = refusal;
    std::size_t changed = 0;
    for (const kf::KernelRoute& r : routes)
      if (std::find(installed_.begin(), installed_.end(), r) == installed_.end()) ++changed;
    std::string cables;
    for (const kf::Cable& c : plan_.cables) {
      const Direction plus{c.axis, +1}, minus{c.axis, -1};
      if (!dead.contains(t_, {c.a, plus})) continue;
      cables += std::string(cables.empty() ? "" : ", ") + "node " + std::to_string(c.a) + " " +
                meshmp::mesh::direction_key(plus) + " (" + c.if_a + ") - node " + std::to_string(c.b) + " " +
                meshmp::mesh::direction_key(minus) + " (" + c.if_b + ")";
    }
    if (std::string(why) == "retry" && changed == 0 && retry_) {  // nothing new to say
      installed_ = std::move(routes);
      return;
    }
    char took[32];
    std::snprintf(took, sizeof took, "%.1f", now_ms() - t0);
    log_line("node " + std::to_string(node_) + ": " + why + ": cables down: " + (cables.empty() ? "none" : cables) +
             "; " + std::to_string(changed) + " of " + std::to_string(routes.size()) + " routes changed, installed in " +
             took + " ms");
    installed_ = std::move(routes);
  }

  meshmp::mesh::Torus t_;
  int node_;
  kf::RouteKey key_;
  int port_;
  kf::NetPlan plan_;
  std::vector<OwnCable> cables_;
  kf::LinkReport me_;
  kf::LinkStateDb db_;
  std::map<int, kf::LinkReport> reports_;
  std::vector<kf::KernelRoute> installed_;  ///< the routes of the last reroute
  bool retry_ = false;                      ///< the kernel refused some of them: reroute again soon
  std::string last_refusal_;                ///< the first refusal of the last reroute, if any
  std::unique_ptr<nl_sock, SockFree> events_, query_;
  int udp_ = -1;
};

// The config's node for this host: the one whose host name is this host's.
int node_of_this_host(const meshmp::mesh::MeshConfig& cfg) {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  const std::string me = name, me_short = me.substr(0, me.find('.'));
  int found = -1;
  for (int i = 0; i < static_cast<int>(cfg.hosts.size()); ++i) {
    const std::string& h = cfg.hosts[static_cast<std::size_t>(i)];
    if (h != me && h.substr(0, h.find('.')) != me_short) continue;
    if (found >= 0)
      throw std::runtime_error(cfg.file + " lists this host (" + me + ") as nodes " + std::to_string(found) + " and " +
                               std::to_string(i) + ": give --node");
    found = i;
  }
  if (found < 0) throw std::runtime_error(cfg.file + " lists no node on this host (" + me + "): give --node");
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"meshmp's per-node routing daemon: SDF kernel routes, rerouted around dead cables."};
  std::string config, key_file;
  int node = -1, port = 7077;
  app.add_option("--config", config, "mesh config file")->required()->check(CLI::ExistingFile);
  app.add_option("--node", node, "this node's number in the config (default: the node the config names this host)");
  app.add_option("--key", key_file, "the mesh's routing key: 32 bytes, mode 0600")->required();
  app.add_option("--port", port, "UDP port of the link-state reports")->check(CLI::Range(1, 65535));
  CLI11_PARSE(app, argc, argv);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  for (int s : {SIGINT, SIGTERM}) ::sigaction(s, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  try {
    const meshmp::mesh::MeshConfig cfg = meshmp::mesh::load_config(config);
    Daemon d(cfg, node >= 0 ? node : node_of_this_host(cfg), kf::read_route_key(key_file), port);
    d.run();
  } catch (const std::exception& e) {
    log_line(e.what());
    return 1;
  }
  return 0;
}
