// qmprun's command line: its own options, and the ones Open MPI's mpirun and
// MPICH's mpiexec users type from habit, honoured or accepted (README,
// "Running"). Parsing stops at the program (the first argument that is not
// an option or an option's value) or at "--".
#pragma once

#include <string>
#include <vector>

#include "tools/qmprun/launcher.h"

namespace meshmp::tools {

/// Fills *opt from argv. Returns -1 to go on and run the job, else the exit
/// status to end with (0 after --help; 2 after a message on stderr naming
/// the bad option or value: an unknown option, no program, hosts other than
/// this one).
int parse_options(int argc, const char* const* argv, LaunchOptions* opt);

}  // namespace meshmp::tools
