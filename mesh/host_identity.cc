#include "mesh/host_identity.h"

#include <sys/stat.h>

#include <fstream>
#include <stdexcept>

namespace meshmp::mesh {

std::string host_identity() {
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string boot;
  if (!(f >> boot) || boot.empty()) throw std::runtime_error("host identity: cannot read /proc/sys/kernel/random/boot_id");
  struct stat st {};
  if (::stat("/proc/self/ns/net", &st) != 0)
    throw std::runtime_error("host identity: cannot stat /proc/self/ns/net");
  return boot + "/" + std::to_string(static_cast<unsigned long long>(st.st_ino));
}

std::string kernel_of(const std::string& id) { return id.substr(0, id.find('/')); }

bool same_host_name(const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (a.find('.') != std::string::npos && b.find('.') != std::string::npos) return false;
  return a.substr(0, a.find('.')) == b.substr(0, b.find('.'));
}

}  // namespace meshmp::mesh
