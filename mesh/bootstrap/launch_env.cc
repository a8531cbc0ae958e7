#include "mesh/bootstrap/launch_env.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace meshmp::mesh::env {

long number(const char* name, long dflt, long lo, long hi) {
  const char* s = std::getenv(name);
  if (!s || !*s) return dflt;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s, &end, 10);
  if (*end || errno || v < lo || v > hi)
    throw std::runtime_error(std::string(name) + "=" + s + ": expected an integer in " + std::to_string(lo) + ".." +
                             std::to_string(hi));
  return v;
}

}  // namespace meshmp::mesh::env
