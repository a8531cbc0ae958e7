#include "mesh/providers/tcp/tcp_auth.h"

#include <sodium.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace meshmp::mesh::tcp {

static_assert(crypto_auth_KEYBYTES == sizeof(LinkKey::bytes) && crypto_auth_BYTES == 32);

namespace {

void start_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("tcp: libsodium cannot start");
}

void hello_mac(const LinkKey& k, const Challenge& c, const Hello& h, unsigned char* out) {
  static const char kLabel[] = "meshmp tcp hello v1";
  mac_of(k, {{kLabel, sizeof kLabel}, {c.nonce, sizeof c.nonce}, {&h, offsetof(Hello, mac)}}, out);
}

}  // namespace

void mac_of(const LinkKey& k, std::initializer_list<std::pair<const void*, std::size_t>> parts, unsigned char* out) {
  crypto_auth_hmacsha512256_state st;
  crypto_auth_hmacsha512256_init(&st, k.bytes, sizeof k.bytes);
  for (const auto& [p, n] : parts) crypto_auth_hmacsha512256_update(&st, static_cast<const unsigned char*>(p), n);
  crypto_auth_hmacsha512256_final(&st, out);
}

LinkKey derive_key(const std::string& secret) {
  if (secret.empty()) throw std::runtime_error("tcp: the job has no secret to authenticate links with");
  start_sodium();
  static const char kContext[] = "meshmp tcp provider link key v1";
  LinkKey k;
  crypto_generichash(k.bytes, sizeof k.bytes, reinterpret_cast<const unsigned char*>(secret.data()), secret.size(),
                     reinterpret_cast<const unsigned char*>(kContext), sizeof kContext - 1);
  return k;
}

Challenge make_challenge() {
  start_sodium();
  Challenge c{kMagic, kAuthVersion, {}};
  randombytes_buf(c.nonce, sizeof c.nonce);
  return c;
}

std::string check_challenge(const Challenge& c) {
  if (c.magic != kMagic) return "not a meshmp tcp link (or a peer of the other byte order)";
  if (c.version != kAuthVersion) return "handshake version " + std::to_string(c.version) + ", expected " +
                                        std::to_string(kAuthVersion);
  return "";
}

Hello make_hello(const LinkKey& k, const Challenge& c, int from, int to, int index, std::uint32_t flags) {
  Hello h{};
  h.magic = kMagic;
  h.from = static_cast<std::uint32_t>(from);
  h.to = static_cast<std::uint32_t>(to);
  h.index = static_cast<std::uint32_t>(index);
  h.flags = flags;
  randombytes_buf(h.nonce, sizeof h.nonce);
  hello_mac(k, c, h, h.mac);
  return h;
}

std::string check_hello(const LinkKey& k, const Challenge& sent, const Hello& h, int me, int nranks) {
  if (h.magic != kMagic) return "not a meshmp tcp hello";
  unsigned char want[32];
  hello_mac(k, sent, h, want);
  if (crypto_verify_32(want, h.mac) != 0) return "wrong authentication code (not this job's secret)";
  if (h.to != static_cast<std::uint32_t>(me)) return "addressed to rank " + std::to_string(h.to);
  if (h.from >= static_cast<std::uint32_t>(nranks) || h.from == static_cast<std::uint32_t>(me))
    return "from rank " + std::to_string(h.from) + " of a job of " + std::to_string(nranks);
  if (h.index > 1 || (h.flags & ~kOnDemand) || ((h.flags & kOnDemand) && h.index != 0))
    return "link #" + std::to_string(h.index) + " with flags " + std::to_string(h.flags);
  return "";
}

Welcome make_welcome(const LinkKey& k, const Challenge& sent, const Hello& h) {
  static const char kLabel[] = "meshmp tcp welcome v1";
  Welcome w;
  mac_of(k, {{kLabel, sizeof kLabel}, {h.nonce, sizeof h.nonce}, {sent.nonce, sizeof sent.nonce}, {&h, sizeof h}},
         w.mac);
  return w;
}

bool check_welcome(const LinkKey& k, const Challenge& c, const Hello& h, const Welcome& w) {
  const Welcome want = make_welcome(k, c, h);
  return crypto_verify_32(want.mac, w.mac) == 0;
}

}  // namespace meshmp::mesh::tcp
