// qmp-config: how to compile and link against an installed meshmp QMP, in the
// form USQCD's qmp-config prints it (QMP_API.md "Conventions users rely on").
// The prefix is where this program is installed (PREFIX/bin/qmp-config), so
// an installed tree can be moved. Several flags print their values on one
// line, in the order below, as build scripts expect.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

namespace {

std::string install_prefix() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "/usr/local";
  std::string exe(buf, static_cast<size_t>(n));
  std::string bin = exe.substr(0, exe.rfind('/'));
  return bin.substr(0, bin.rfind('/'));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Print the flags for building against meshmp's QMP."};
  bool prefix = false, exec_prefix = false, version = false, comms = false, cc = false, copts = false,
       cflags = false, ldflags = false, libs = false, ar = false, ranlib = false;
  app.add_flag("--prefix", prefix, "installation prefix");
  app.add_flag("--exec-prefix", exec_prefix, "prefix of programs and libraries");
  app.add_flag("--version", version, "QMP version implemented (2.5.4)");
  app.add_flag("--comms", comms, "communication layer: MPI (parallel message passing)");
  app.add_flag("--cc", cc, "C compiler meshmp was built with");
  app.add_flag("--copts", copts, "compiler optimisation flags");
  app.add_flag("--cflags", cflags, "flags to compile against qmp.h");
  app.add_flag("--ldflags", ldflags, "flags to find libqmp");
  app.add_flag("--libs", libs, "libraries to link");
  app.add_flag("--ar", ar, "archiver");
  app.add_flag("--ranlib", ranlib, "ranlib");
  CLI11_PARSE(app, argc, argv);

  const std::string p = install_prefix();
  std::vector<std::string> out;
  if (prefix) out.push_back(p);
  if (exec_prefix) out.push_back(p);
  if (version) out.push_back("2.5.4");
  if (comms) out.push_back("MPI");
  if (cc) out.push_back("cc");
  if (copts) out.push_back("-O2");
  if (cflags) out.push_back("-I" + p + "/include");
  if (ldflags) out.push_back("-L" + p + "/lib -Wl,-rpath," + p + "/lib");
  if (libs) out.push_back("-lqmp -lstdc++ -lm -lrt -lpthread -lunistring -lsodium -L/usr/lib/x86_64-linux-gnu/pmix2/lib -Wl,-rpath,/usr/lib/x86_64-linux-gnu/pmix2/lib -lpmix");
  if (ar) out.push_back("ar");
  if (ranlib) out.push_back("ranlib");
  if (out.empty()) {
    std::fputs(app.help().c_str(), stdout);
    return 1;
  }
  for (size_t i = 0; i < out.size(); ++i) std::printf("%s%s", i ? " " : "", out[i].c_str());
  std::printf("\n");
  return 0;
}
