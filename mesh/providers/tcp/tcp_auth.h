// Authentication of every tcp connection (issue 17, ARCHITECTURE.md §6): a
// challenge-response over the job's secret, computed with libsodium's
// crypto_auth (HMAC-SHA-512-256), so that only ranks holding the secret the
// launcher (or PMIx) handed out can open a link -- and the connecting rank
// learns that the listener holds it too.
//
//   listener -> connector  Challenge {magic, version, nonce_l}            40 bytes
//   connector -> listener  Hello {magic, from, to, index, flags, nonce_c,
//                                 MAC("hello", nonce_l, fields, nonce_c)} 84 bytes
//   listener -> connector  Welcome {MAC("welcome", nonce_c, hello)}       32 bytes
//
// The nonces are fresh random 32-byte values (randombytes_buf), so a
// recorded Hello or Welcome is worth nothing on another connection. The
// magic carries a byte order check: frames are in the host order of
// x86-64/aarch64 (little-endian), and a peer of the other order fails here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

namespace meshmp::mesh::tcp {

inline constexpr std::uint32_t kMagic = 0x3154'4d4d;  // "MMT1" in little-endian byte order
inline constexpr std::uint32_t kAuthVersion = 1;
inline constexpr std::uint32_t kOnDemand = 1;         // Hello flag: a link made on first use (seed 004 §3)

/// The 32-byte crypto_auth key of a job, derived from its secret with
/// crypto_generichash (BLAKE2b) under a meshmp-specific context.
struct LinkKey {
  unsigned char bytes[32];
};
/// Throws std::runtime_error if `secret` is empty or libsodium cannot start.
LinkKey derive_key(const std::string& secret);

/// The 32-byte MAC (HMAC-SHA-512-256) under `k` of the concatenation of
/// `parts` (a label first), into `out`. The ofi provider's requests use it too.
void mac_of(const LinkKey& k, std::initializer_list<std::pair<const void*, std::size_t>> parts, unsigned char* out);

struct Challenge {
  std::uint32_t magic, version;
  unsigned char nonce[32];
};
struct Hello {
  std::uint32_t magic, from, to, index, flags;
  unsigned char nonce[32];
  unsigned char mac[32];
};
struct Welcome {
  unsigned char mac[32];
};
static_assert(sizeof(Challenge) == 40 && sizeof(Hello) == 84 && sizeof(Welcome) == 32);

Challenge make_challenge();
/// The connector's answer to `c`, introducing rank `from`'s link #index to rank `to`.
Hello make_hello(const LinkKey& k, const Challenge& c, int from, int to, int index, std::uint32_t flags);
/// "" if `h` answers the challenge `sent` under key `k` and is addressed to
/// rank `me` of a job of `nranks`; else why not (for the log; the connection
/// is closed either way).
std::string check_hello(const LinkKey& k, const Challenge& sent, const Hello& h, int me, int nranks);
Welcome make_welcome(const LinkKey& k, const Challenge& sent, const Hello& h);
/// Whether the listener that sent challenge `c` proved the key for `h`.
bool check_welcome(const LinkKey& k, const Challenge& c, const Hello& h, const Welcome& w);
/// "" if a received challenge is one this build speaks; else why not.
std::string check_challenge(const Challenge& c);

}  // namespace meshmp::mesh::tcp
