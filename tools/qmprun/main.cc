// qmprun / mpirun / mpiexec: start N ranks of a meshmp job on this host.
#include "tools/qmprun/launcher.h"
#include "tools/qmprun/options.h"

int main(int argc, char** argv) {
  meshmp::tools::LaunchOptions opt;
  if (int rc = meshmp::tools::parse_options(argc, argv, &opt); rc >= 0) return rc;
  return meshmp::tools::run_job(opt);
}
