#include "tools/qmprun/foreign_mpi.h"

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <regex>
#include <sstream>

namespace meshmp::tools {
namespace {

// Where execvp(3) would find `program`; "" if nowhere.
std::string resolve(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

bool is_foreign(const char* needed) {
  static const std::regex other(
      R"(lib(mpi\.so\.[0-9.]+|mpich\.so.*|mpi_mpifh\.so.*|mpi_usempi.*\.so.*|mpi_cxx\.so.*|mpifort\.so.*|mpichcxx\.so.*|mpichf90\.so.*))");
  return std::regex_match(needed, other);
}

}  // namespace

std::string foreign_mpi_library(const std::string& program) {
  const std::string path = resolve(program);
  if (path.empty() || ::elf_version(EV_CURRENT) == EV_NONE) return "";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string found;
  if (Elf* elf = ::elf_begin(fd, ELF_C_READ, nullptr)) {
    Elf_Scn* scn = nullptr;
    while (found.empty() && elf_kind(elf) == ELF_K_ELF && (scn = ::elf_nextscn(elf, scn))) {
      GElf_Shdr sh;
      if (!::gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || sh.sh_entsize == 0) continue;
      Elf_Data* data = ::elf_getdata(scn, nullptr);
      for (std::size_t i = 0; data && i < sh.sh_size / sh.sh_entsize && found.empty(); ++i) {
        GElf_Dyn dyn;
        if (!::gelf_getdyn(data, static_cast<int>(i), &dyn) || dyn.d_tag != DT_NEEDED) continue;
        const char* name = ::elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
        if (name && is_foreign(name)) found = name;
      }
    }
    ::elf_end(elf);
  }
  ::close(fd);
  return found;
}

}  // namespace meshmp::tools
