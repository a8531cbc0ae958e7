#include "mesh/providers/ofi/ofi_auth.h"

#include <sodium.h>

#include <cstring>
#include <stdexcept>

namespace meshmp::mesh::ofi {

namespace {

void mac_of(const tcp::LinkKey& k, std::initializer_list<std::pair<const void*, std::size_t>> parts,
            unsigned char out[16]) {
  unsigned char full[crypto_auth_hmacsha512256_BYTES];
  crypto_auth_hmacsha512256_state st;
  crypto_auth_hmacsha512256_init(&st, k.bytes, sizeof k.bytes);
  for (const auto& [p, n] : parts) crypto_auth_hmacsha512256_update(&st, static_cast<const unsigned char*>(p), n);
  crypto_auth_hmacsha512256_final(&st, full);
  std::memcpy(out, full, 16);
}

void request_mac(const tcp::LinkKey& k, const ListenerId& l, const ConnReq& r, unsigned char out[16]) {
  static const char kLabel[] = "meshmp ofi connreq v1";
  mac_of(k, {{kLabel, sizeof kLabel}, {l.bytes, sizeof l.bytes}, {&r, offsetof(ConnReq, mac)}}, out);
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
  mac_of(k, {{kLabel, sizeof kLabel}, {&r, sizeof r}}, w.mac);
  return w;
}

bool check_welcome(const tcp::LinkKey& k, const ConnReq& r, const void* data, std::size_t len) {
  if (len < sizeof(Welcome)) return false;
  const Welcome want = make_welcome(k, r);
  return sodium_memcmp(want.mac, data, sizeof want.mac) == 0;
}

std::string to_hex(const unsigned char* p, std::size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

bool from_hex(const std::string& hex, unsigned char* p, std::size_t n) {
  if (hex.size() != 2 * n) return false;
  auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  for (std::size_t i = 0; i < n; ++i) {
    const int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    p[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

}  // namespace meshmp::mesh::ofi
