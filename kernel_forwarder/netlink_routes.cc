#include "kernel_forwarder/netlink_routes.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

namespace meshmp::kernel_forwarder {

namespace {

struct SockFree { void operator()(nl_sock* s) const { nl_socket_free(s); } };
struct CacheFree { void operator()(nl_cache* c) const { nl_cache_free(c); } };
struct RouteFree { void operator()(rtnl_route* r) const { rtnl_route_put(r); } };
struct AddrFree { void operator()(nl_addr* a) const { nl_addr_put(a); } };

using Addr = std::unique_ptr<nl_addr, AddrFree>;

Addr ipv4(std::uint32_t host_order, int prefix) {
  const std::uint32_t be = htonl(host_order);
  Addr a(nl_addr_build(AF_INET, &be, sizeof be));
  if (!a) throw std::runtime_error("kernel_forwarder: out of memory");
  nl_addr_set_prefixlen(a.get(), prefix);
  return a;
}

std::string describe(const KernelRoute& r) {
  return dotted(r.dst) + "/32 via " + dotted(r.via) + " dev " + r.dev;
}

}  // namespace

void enable_forwarding() {
  const int fd = ::open("/proc/sys/net/ipv4/ip_forward", O_WRONLY | O_CLOEXEC);
  if (fd < 0 || ::write(fd, "1\n", 2) != 2) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(std::string("kernel_forwarder: cannot turn on IPv4 forwarding: ") + std::strerror(err));
  }
  ::close(fd);
}

std::vector<std::string> install_routes(const std::vector<KernelRoute>& routes) {
  std::vector<std::string> refused;
  std::unique_ptr<nl_sock, SockFree> sk(nl_socket_alloc());
  if (!sk) throw std::runtime_error("kernel_forwarder: out of memory");
  if (int err = nl_connect(sk.get(), NETLINK_ROUTE); err < 0)
    throw std::runtime_error(std::string("kernel_forwarder: rtnetlink: ") + nl_geterror(err));
  nl_cache* raw = nullptr;
  if (int err = rtnl_link_alloc_cache(sk.get(), AF_UNSPEC, &raw); err < 0)
    throw std::runtime_error(std::string("kernel_forwarder: listing interfaces: ") + nl_geterror(err));
  std::unique_ptr<nl_cache, CacheFree> links(raw);
  std::set<std::uint32_t> wanted;
  for (const KernelRoute& r : routes) {
    const int ifindex = rtnl_link_name2i(links.get(), r.dev.c_str());
    if (ifindex <= 0) throw std::runtime_error("kernel_forwarder: " + describe(r) + ": no interface " + r.dev);
    std::unique_ptr<rtnl_route, RouteFree> route(rtnl_route_alloc());
    Addr dst = ipv4(r.dst, 32), via = ipv4(r.via, 32), src = ipv4(r.src, 32);
    rtnl_route_set_family(route.get(), AF_INET);
    rtnl_route_set_table(route.get(), RT_TABLE_MAIN);
    rtnl_route_set_protocol(route.get(), kRouteProtocol);
    rtnl_route_set_scope(route.get(), RT_SCOPE_UNIVERSE);
    rtnl_route_set_type(route.get(), RTN_UNICAST);
    rtnl_route_set_dst(route.get(), dst.get());
    rtnl_route_set_pref_src(route.get(), src.get());
    rtnl_nexthop* nh = rtnl_route_nh_alloc();
    rtnl_route_nh_set_ifindex(nh, ifindex);
    rtnl_route_nh_set_gateway(nh, via.get());
    rtnl_route_add_nexthop(route.get(), nh);  // the route owns it now
    if (int err = rtnl_route_add(sk.get(), route.get(), NLM_F_CREATE | NLM_F_REPLACE); err < 0)
      refused.push_back("adding " + describe(r) + ": " + nl_geterror(err));
    else
      wanted.insert(r.dst);
  }
  // Routes of ours that are no longer wanted.
  if (int err = rtnl_route_alloc_cache(sk.get(), AF_INET, 0, &raw); err < 0)
    throw std::runtime_error(std::string("kernel_forwarder: listing routes: ") + nl_geterror(err));
  std::unique_ptr<nl_cache, CacheFree> table(raw);
  for (nl_object* o = nl_cache_get_first(table.get()); o; o = nl_cache_get_next(o)) {
    auto* route = reinterpret_cast<rtnl_route*>(o);
    if (rtnl_route_get_protocol(route) != kRouteProtocol || rtnl_route_get_table(route) != RT_TABLE_MAIN) continue;
    nl_addr* dst = rtnl_route_get_dst(route);
    std::uint32_t be = 0;
    if (!dst || nl_addr_get_len(dst) != 4) continue;
    std::memcpy(&be, nl_addr_get_binary_addr(dst), 4);
    if (wanted.count(ntohl(be)) == 0) {
      if (int err = rtnl_route_delete(sk.get(), route, 0); err < 0)
        refused.push_back("deleting the route to " + dotted(ntohl(be)) + ": " + nl_geterror(err));
    }
  }
  return refused;
}

}  // namespace meshmp::kernel_forwarder
