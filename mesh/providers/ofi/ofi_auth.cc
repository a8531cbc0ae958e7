#include "mesh/providers/ofi/ofi_auth.h"

#include <sodium.h>

#include <cstring>
#include <stdexcept>

namespace meshmp::mesh::ofi {

namespace {

// The tcp handshake's MAC, truncated to the 16 bytes a request has room for.
void mac16(const tcp::LinkKey& k, std::initializer_list<std::pair<const void*, std::size_t>> parts,
           unsigned char out[16]) {
  unsigned char full[crypto_auth_hmacsha512256_BYTES];
  tcp::mac_of(k, parts, full);
  std::memcpy(out, full, 16);
}

void request_mac(const tcp::LinkKey& k, const ListenerId& l, const ConnReq& r, unsigned char out[16]) {
  static const char kLabel[] = "meshmp ofi connreq v1";
  mac16(k, {{kLabel, sizeof kLabel}, {l.bytes, sizeof l.bytes}, {&r, offsetof(ConnReq, mac)}}, out);
}

}  // namespace

ListenerId make_listener_id() {
  if (sodium_init() < 0) throw std::runtime_error("ofi: libsodium cannot start");
  ListenerId l;
  randombytes_buf(l.bytes, sizeof l.bytes);
  return l;
}

ConnReq make_conn_req(const tcp::LinkKey& k, const ListenerId& l, int from, int to, int index, std::uint16_t flags) {
  ConnReq r{};
  r.magic = kMagic;
  r.from = static_cast<std::uint32_t>(from);
  r.to = static_cast<std::uint32_t>(to);
  r.index = static_cast<std::uint16_t>(index);
  r.flags = flags;
  randombytes_buf(r.nonce, sizeof r.nonce);
  request_mac(k, l, r, r.mac);
  return r;
}

std::string check_conn_req(const tcp::LinkKey& k, const ListenerId& l, const void* data, std::size_t len, int me,
                           int nranks, ConnReq* out) {
  if (len < sizeof(ConnReq)) return "a connection request of " + std::to_string(len) + " bytes (48 expected)";
  ConnReq r;
  std::memcpy(&r, data, sizeof r);
  if (r.magic != kMagic) return "a connection request that is not meshmp's (bad magic)";
  unsigned char want[16];
  request_mac(k, l, r, want);
  if (sodium_memcmp(want, r.mac, sizeof want) != 0)
    return "a connection request not made with this job's secret for this listener";
  if (r.to != static_cast<std::uint32_t>(me)) return "a connection request addressed to rank " + std::to_string(r.to);
  if (r.from >= static_cast<std::uint32_t>(nranks) || r.from == static_cast<std::uint32_t>(me))
    return "a connection request from rank " + std::to_string(r.from);
  if (r.index > 1 || (r.flags & ~kOnDemand) != 0 || ((r.flags & kOnDemand) && r.index != 0))
    return "a connection request for link #" + std::to_string(r.index) + " with flags " + std::to_string(r.flags);
  *out = r;
  return "";
}

Welcome make_welcome(const tcp::LinkKey& k, const ConnReq& r) {
  static const char kLabel[] = "meshmp ofi welcome v1";
  Welcome w;
  mac16(k, {{kLabel, sizeof kLabel}, {&r, sizeof r}}, w.mac);
  return w;
}

bool check_welcome(const tcp::LinkKey& k, const ConnReq& r, const void* data, std::size_t len) {
  if (len < sizeof(Welcome)) return false;
  const Welcome want = make_welcome(k, r);
  return sodium_memcmp(want.mac, data, sizeof want.mac) == 0;
}

std::string to_hex(const unsigned char* p, std::size_t n) {
  std::string s(2 * n + 1, '\0');
  sodium_bin2hex(s.data(), s.size(), p, n);
  s.pop_back();
  return s;
}

bool from_hex(const std::string& hex, unsigned char* p, std::size_t n) {
  // Lower case only, as to_hex writes it; libsodium reads the digits.
  std::size_t got = 0;
  return hex.size() == 2 * n && hex.find_first_not_of("0123456789abcdef") == std::string::npos &&
         sodium_hex2bin(p, n, hex.data(), hex.size(), nullptr, &got, nullptr) == 0 && got == n;
}

}  // namespace meshmp::mesh::ofi
