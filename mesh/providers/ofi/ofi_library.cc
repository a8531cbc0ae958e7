#include "mesh/providers/ofi/ofi_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace meshmp::mesh::ofi {

namespace {

struct Loaded {
  Library lib{};
  std::string error;  // "" when loaded
};

const Loaded& load() {
  static const Loaded loaded = [] {
    Loaded l;
    // libfabric's psm provider brings PSM's libinfinipath, whose crash
    // handler writes a "<program>.<time>-<pid>,<host>.btr" backtrace into
    // the working directory; meshmp's users did not ask for those.
    ::setenv("IPATH_NO_BACKTRACE", "1", 0);
    void* h = ::dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      l.error = std::string("ofi: cannot load libfabric (Debian: apt install libfabric1): ") + ::dlerror();
      return l;
    }
    auto sym = [&](const char* name, const char* version) -> void* {
      void* p = ::dlvsym(h, name, version);
      if (!p && l.error.empty())
        l.error = std::string("ofi: libfabric.so.1 has no ") + name + "@" + version + " (it is older than 1.3?)";
      return p;
    };
    l.lib.getinfo = reinterpret_cast<decltype(l.lib.getinfo)>(sym("fi_getinfo", "FABRIC_1.3"));
    l.lib.freeinfo = reinterpret_cast<decltype(l.lib.freeinfo)>(sym("fi_freeinfo", "FABRIC_1.3"));
    l.lib.dupinfo = reinterpret_cast<decltype(l.lib.dupinfo)>(sym("fi_dupinfo", "FABRIC_1.3"));
    l.lib.fabric = reinterpret_cast<decltype(l.lib.fabric)>(sym("fi_fabric", "FABRIC_1.1"));
    l.lib.strerror = reinterpret_cast<decltype(l.lib.strerror)>(sym("fi_strerror", "FABRIC_1.0"));
    return l;
  }();
  return loaded;
}

}  // namespace

const Library& lib() {
  const Loaded& l = load();
  if (!l.error.empty()) throw std::runtime_error(l.error);
  return l.lib;
}

bool available() { return load().error.empty(); }

}  // namespace meshmp::mesh::ofi
