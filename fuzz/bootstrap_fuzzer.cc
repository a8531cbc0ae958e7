// libFuzzer target: the launcher's bootstrap protocol decoder
// (mesh/bootstrap/protocol.h) on an arbitrary byte stream, as a client of
// the launcher's socket, or the launcher as seen by a rank, could send it.
//
// The stream is cut into frames with take_frame() exactly as the launcher
// does; each body goes through decode_hello, decode_rank, decode_abort and
// decode_blobs.
// Properties checked (a violation is a crash): take_frame consumes exactly
// one announced frame or nothing; a frame announcing more than kMaxFrame is
// refused before its bytes arrive; an accepted HELLO carries the secret; an
// accepted blob list (a fence result, or a rank's key/value cards)
// re-encodes to the same bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mesh/bootstrap/protocol.h"

namespace bs = meshmp::mesh::bootstrap;

namespace {

[[noreturn]] void broken(const char* property) {
  std::fprintf(stderr, "bootstrap decoder broke: %s\n", property);
  std::abort();
}

const std::string kSecret = "0123456789abcdef0123456789abcdef";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string in(reinterpret_cast<const char*>(data), size);
  bs::Msg type;
  std::string body;
  bool bad = false;
  for (;;) {
    const std::size_t before = in.size();
    std::uint32_t announced = 0;
    if (before >= 8) std::memcpy(&announced, in.data() + 4, sizeof announced);
    if (!bs::take_frame(in, &type, &body, &bad)) {
      if (in.size() != before) broken("a refused or incomplete frame consumed bytes");
      if (bad != (before >= 8 && announced > bs::kMaxFrame)) broken("oversized frames, and only those, are bad");
      break;
    }
    if (body.size() != announced || in.size() != before - 8 - announced) broken("one whole frame taken");

    std::uint32_t rank;
    if (bs::decode_hello(body, kSecret, &rank) &&
        (body.size() != 8 + kSecret.size() || body.compare(8, std::string::npos, kSecret) != 0))
      broken("a HELLO is accepted only with the job's secret");

    std::uint32_t finalizing;
    if (bs::decode_rank(body, &finalizing) != (body.size() == sizeof finalizing)) broken("PEER_FINALIZING length check");

    int code;
    std::string message;
    if (bs::decode_abort(body, &code, &message) != (body.size() >= sizeof code)) broken("ABORT length check");

    std::vector<std::string> blobs, any;
    const std::size_t expected = body.empty() ? 0 : static_cast<unsigned char>(body[0]) % 8;
    const bool whole = bs::decode_blobs(body, &any);
    if (whole && bs::encode_blobs(any) != body) broken("blobs re-encode to the same bytes");
    if (bs::decode_blobs(body, expected, &blobs) != (whole && any.size() == expected))
      broken("a counted decode is a decode with that count");
  }
  return 0;
}
