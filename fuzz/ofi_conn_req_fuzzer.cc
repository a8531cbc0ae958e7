// libFuzzer target: the decoding of an ofi connection request's private
// data (mesh/providers/ofi/ofi_auth.h), which any host that reaches a
// rank's listener can send (issue 28).
//
// Input: a u32 rank and a u32 job size, then the private data. Whatever
// check_conn_req() accepts must be a request of this job (the MAC under the
// fuzzer's key, for its listener) from a rank of the job other than this
// one, for link #0 or #1; anything else accepted is a crash. Accepting
// random bytes at all means the MAC was forged.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mesh/providers/ofi/ofi_auth.h"

namespace {

[[noreturn]] void broken(const char* property) {
  std::fprintf(stderr, "check_conn_req accepted a request that breaks: %s\n", property);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace meshmp::mesh;
  static const tcp::LinkKey key = tcp::derive_key("fuzzer job secret");
  static const ofi::ListenerId listener{};  // all zero: the seeds are made for it
  if (size < 8) return 0;
  std::uint32_t me, nranks;
  std::memcpy(&me, data, 4);
  std::memcpy(&nranks, data + 4, 4);
  me %= 1u << 20;
  nranks %= 1u << 20;
  ofi::ConnReq r{};
  const std::string why = ofi::check_conn_req(key, listener, data + 8, size - 8, static_cast<int>(me),
                                              static_cast<int>(nranks), &r);
  if (!why.empty()) return 0;
  if (r.from >= nranks || r.from == me) broken("from is a rank of the job other than this one");
  if (r.to != me) broken("addressed to this rank");
  if (r.index > 1) broken("link #0 or #1");
  if (r.magic != ofi::kMagic) broken("magic");
  const ofi::ConnReq again = ofi::make_conn_req(key, listener, static_cast<int>(r.from), static_cast<int>(r.to),
                                                r.index, r.flags);
  (void)again;
  return 0;
}
