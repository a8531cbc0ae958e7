#include "kernel_forwarder/link_state.h"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace meshmp::kernel_forwarder {

namespace {

void put_be(std::string& s, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint64_t get_be(const std::string& s, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

void start_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("meshrouted: libsodium cannot start");
}

}  // namespace

std::string encode_report(const LinkReport& r, const RouteKey& key) {
  start_sodium();
  std::string s = "MRT1";
  put_be(s, static_cast<std::uint32_t>(r.origin), 4);
  put_be(s, r.epoch, 8);
  put_be(s, r.seq, 4);
  put_be(s, r.down, 4);
  unsigned char mac[crypto_auth_BYTES];
  crypto_auth(mac, reinterpret_cast<const unsigned char*>(s.data()), s.size(), key.data());
  s.append(reinterpret_cast<const char*>(mac), sizeof mac);
  return s;
}

std::optional<LinkReport> decode_report(const std::string& bytes, const RouteKey& key, int nodes, int ndims) {
  start_sodium();
  if (bytes.size() != kReportBytes || bytes.compare(0, 4, "MRT1") != 0) return std::nullopt;
  const std::size_t body = kReportBytes - crypto_auth_BYTES;
  if (crypto_auth_verify(reinterpret_cast<const unsigned char*>(bytes.data()) + body,
                         reinterpret_cast<const unsigned char*>(bytes.data()), body, key.data()) != 0)
    return std::nullopt;
  LinkReport r;
  const std::uint64_t origin = get_be(bytes, 4, 4);
  r.epoch = get_be(bytes, 8, 8);
  r.seq = static_cast<std::uint32_t>(get_be(bytes, 16, 4));
  r.down = static_cast<std::uint32_t>(get_be(bytes, 20, 4));
  if (origin >= static_cast<std::uint64_t>(nodes) || (r.down >> (2 * ndims)) != 0) return std::nullopt;
  r.origin = static_cast<int>(origin);
  return r;
}

bool LinkStateDb::merge(const LinkReport& r) {
  auto it = newest_.find(r.origin);
  if (it != newest_.end() &&
      (r.epoch < it->second.epoch || (r.epoch == it->second.epoch && r.seq <= it->second.seq)))
    return false;
  newest_[r.origin] = r;
  return true;
}

routing::CableSet LinkStateDb::dead(const mesh::Torus& t) const {
  routing::CableSet set;
  for (const auto& [origin, r] : newest_)
    for (int d = 0; d < 2 * t.ndims(); ++d) {
      if (!(r.down & (1u << d))) continue;
      const mesh::Direction dir = mesh::Direction::from_index(d);
      const int peer = t.neighbour(origin, dir);
      if (origin < t.size() && peer >= 0 && peer != origin) set.add(t, {origin, dir});
    }
  return set;
}

RouteKey read_route_key(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) throw std::runtime_error("meshrouted: cannot open the key " + path + ": " + std::strerror(errno));
  struct stat st {};
  unsigned char buf[33];  // one more than a key, to see a longer file
  const bool ok_mode = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
                       (st.st_mode & 077) == 0;
  const ssize_t n = ok_mode ? ::read(fd, buf, sizeof buf) : -1;
  ::close(fd);
  if (!ok_mode)
    throw std::runtime_error("meshrouted: the key " + path + " must be a file of this user that no one else can read");
  RouteKey key{};
  if (n != static_cast<ssize_t>(key.size()))
    throw std::runtime_error("meshrouted: the key " + path + " must hold exactly 32 bytes");
  std::memcpy(key.data(), buf, key.size());
  return key;
}

}  // namespace meshmp::kernel_forwarder
