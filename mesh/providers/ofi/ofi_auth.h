// Authentication of every ofi connection (issue 28, ARCHITECTURE.md §6).
// A connected libfabric endpoint is made by one message each way -- the
// connection request's private data (fi_connect) and the accept's
// (fi_accept) -- so the tcp provider's three-message challenge-response
// (tcp_auth.h) becomes:
//
//   connector -> listener  ConnReq {magic, from, to, index, flags, nonce,
//                                   MAC(listener id, fields, nonce)}   48 bytes
//   listener -> connector  Welcome {MAC("welcome", ConnReq)}            16 bytes
//
// under the job's link key (tcp::derive_key, libsodium's HMAC-SHA-512-256,
// truncated to 128 bits: the private data of an InfiniBand connection
// request holds 56 bytes). The listener id is 16 random bytes a provider
// draws when it starts and publishes on its address card, so a request is
// good for one listener of one job; a replay to that listener carries a
// nonce it has seen, and is refused (OfiProvider keeps them). Both are
// checked before any endpoint is made.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "mesh/providers/tcp/tcp_auth.h"

namespace meshmp::mesh::ofi {

inline constexpr std::uint32_t kMagic = 0x314f'4d4d;  // "MMO1" in little-endian byte order
inline constexpr std::uint16_t kOnDemand = 1;         // flag: a link made on first use (seed 004 §3)

struct ListenerId {
  unsigned char bytes[16];
};

struct ConnReq {
  std::uint32_t magic, from, to;
  std::uint16_t index, flags;
  unsigned char nonce[16];
  unsigned char mac[16];
};
struct Welcome {
  unsigned char mac[16];
};
static_assert(sizeof(ConnReq) == 48 && sizeof(Welcome) == 16);

ListenerId make_listener_id();
/// Rank `from`'s request for its link #index to rank `to`, whose listener is `l`.
ConnReq make_conn_req(const tcp::LinkKey& k, const ListenerId& l, int from, int to, int index, std::uint16_t flags);
/// Decodes the private data of a connection request (untrusted: any bytes,
/// any length) into *out. "" if it is a request of this job to listener `l`
/// of rank `me` (of `nranks`), else why not.
std::string check_conn_req(const tcp::LinkKey& k, const ListenerId& l, const void* data, std::size_t len, int me,
                           int nranks, ConnReq* out);
Welcome make_welcome(const tcp::LinkKey& k, const ConnReq& r);
/// Whether the accept's private data `data` proves the key for request `r`.
bool check_welcome(const tcp::LinkKey& k, const ConnReq& r, const void* data, std::size_t len);

/// Lower-case hex of `n` bytes, and back (false if `hex` is not 2n hex digits).
std::string to_hex(const unsigned char* p, std::size_t n);
bool from_hex(const std::string& hex, unsigned char* p, std::size_t n);

}  // namespace meshmp::mesh::ofi
