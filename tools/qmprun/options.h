// qmprun's command line: its own options, and the ones Open MPI's mpirun and
// MPICH's mpiexec users type from habit, honoured or accepted (README,
// "Running"). Parsing stops at the program (the first argument that is not
// an option or an option's value) or at "--"; a ":" word starts another
// program of the same job (MPMD, MPI-2.2 §8.8), with options of its own.
#pragma once

#include <string>
#include <vector>

#include "tools/qmprun/launcher.h"

namespace meshmp::tools {

/// Fills *opt from argv. Returns -1 to go on and run the job, else the exit
/// status to end with (0 after --help; 2 after a message on stderr naming
/// the bad option or value: an unknown option, no program, hosts other than
/// this one, a job's option after a ":", a program of several without -n).
int parse_options(int argc, const char* const* argv, LaunchOptions* opt);

}  // namespace meshmp::tools
