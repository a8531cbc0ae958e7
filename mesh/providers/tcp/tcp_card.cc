#include "mesh/providers/tcp/tcp_card.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <sstream>
#include <stdexcept>

namespace meshmp::mesh::tcp {

namespace {

std::uint32_t mask_of(int prefix) { return prefix == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix); }
bool same_subnet(const InterfaceAddress& a, std::uint32_t b) { return ((a.addr ^ b) & mask_of(a.prefix)) == 0; }

}  // namespace

std::string ip_string(std::uint32_t addr) {
  in_addr a{htonl(addr)};
  char buf[INET_ADDRSTRLEN];
  return inet_ntop(AF_INET, &a, buf, sizeof buf) ? buf : "?";
}

std::string encode_card(const TcpCard& c) {
  std::string s = "tcp " + std::to_string(c.port) + " " + c.host;
  for (const auto& a : c.addrs) s += " " + ip_string(a.addr) + "/" + std::to_string(a.prefix) + "@" + a.ifname;
  return s;
}

TcpCard parse_card(const std::string& text, int rank) {
  auto bad = [&](const std::string& what) {
    return std::runtime_error("tcp: malformed address card from rank " + std::to_string(rank) + ": " + what);
  };
  if (text.size() > 4096) throw bad("longer than 4096 bytes");
  std::istringstream in(text);
  std::string word, port;
  TcpCard c;
  if (!(in >> word) || word != "tcp") throw bad("does not start with \"tcp\"");
  if (!(in >> port) || port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port) < 1 || std::stoi(port) > 65535)
    throw bad("port");
  c.port = std::stoi(port);
  if (!(in >> c.host) || c.host.find_first_not_of("0123456789abcdef-/") != std::string::npos || c.host.size() > 128)
    throw bad("host");
  while (in >> word) {
    const auto slash = word.find('/'), at = word.find('@');
    if (slash == std::string::npos || at == std::string::npos || at < slash) throw bad("address \"" + word + "\"");
    InterfaceAddress a;
    in_addr ia{};
    const std::string ip = word.substr(0, slash), pre = word.substr(slash + 1, at - slash - 1);
    if (inet_pton(AF_INET, ip.c_str(), &ia) != 1) throw bad("address \"" + word + "\"");
    a.addr = ntohl(ia.s_addr);
    if (pre.empty() || pre.size() > 2 || pre.find_first_not_of("0123456789") != std::string::npos ||
        std::stoi(pre) > 32)
      throw bad("prefix in \"" + word + "\"");
    a.prefix = std::stoi(pre);
    a.ifname = word.substr(at + 1);
    if (a.ifname.empty() || a.ifname.size() >= IFNAMSIZ ||
        a.ifname.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
            std::string::npos)
      throw bad("interface in \"" + word + "\"");
    if (c.addrs.size() >= 64) throw bad("more than 64 addresses");
    c.addrs.push_back(a);
  }
  return c;
}

std::vector<InterfaceAddress> local_addresses() {
  std::vector<InterfaceAddress> v;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return v;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
    InterfaceAddress a;
    a.addr = ntohl(reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
    if ((a.addr >> 24) == 127) continue;
    std::uint32_t m = i->ifa_netmask ? ntohl(reinterpret_cast<sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr) : ~0u;
    a.prefix = __builtin_popcount(m);
    a.ifname = i->ifa_name;
    if (v.size() < 64) v.push_back(a);
  }
  freeifaddrs(list);
  return v;
}

std::optional<std::uint32_t> node_address(const TcpCard& c) {
  for (const auto& a : c.addrs)
    if (a.ifname == "lo" && a.prefix == 32) return a.addr;
  return std::nullopt;
}

std::optional<Dial> choose_dial(const TcpCard& mine, const TcpCard& peer, const std::string& ifname) {
  if (!ifname.empty())
    for (const auto& m : mine.addrs)
      if (m.ifname == ifname)
        for (const auto& p : peer.addrs)
          if (same_subnet(m, p.addr) && m.prefix >= 8) return Dial{p.addr, m.addr};
  for (const auto& m : mine.addrs)
    if (m.ifname != "lo")
      for (const auto& p : peer.addrs)
        if (same_subnet(m, p.addr) && m.prefix >= 8) return Dial{p.addr, 0};
  if (auto to = node_address(peer))
    if (auto from = node_address(mine)) return Dial{*to, *from};
  if (peer.addrs.empty()) return std::nullopt;
  return Dial{peer.addrs.front().addr, 0};
}

}  // namespace meshmp::mesh::tcp
