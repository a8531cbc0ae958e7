// libFuzzer target: the mesh config parser (mesh/config/config.h, toml11 behind
// mesh/config/limits.h) on arbitrary text. Every input must either parse or
// throw ConfigError naming the file; any other exception, a crash, a stack
// overflow or a run of more than libFuzzer's -timeout is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mesh/config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const meshmp::mesh::MeshConfig c = meshmp::mesh::parse_config(text, "fuzz.toml");
    if (c.torus.size() < 1) {
      std::fprintf(stderr, "parse_config accepted a torus without nodes\n");
      std::abort();
    }
  } catch (const meshmp::mesh::ConfigError& e) {
    if (std::string(e.what()).rfind("fuzz.toml:", 0) != 0) {
      std::fprintf(stderr, "ConfigError without the file name: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
