// What a job left in /dev/shm, for tests that check nothing is left behind.
#pragma once

#include <dirent.h>

#include <cstring>
#include <string>
#include <vector>

namespace meshmp::testing_support {

/// Names in /dev/shm that start with `prefix` (e.g. "meshmp-<job id>").
inline std::vector<std::string> shm_names(const std::string& prefix) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir("/dev/shm")) {
    while (dirent* e = ::readdir(d))
      if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) out.push_back(e->d_name);
    ::closedir(d);
  }
  return out;
}

}  // namespace meshmp::testing_support
