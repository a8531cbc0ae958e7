// A program built with another MPI than meshmp's, started by qmprun, does
// not join the job: it finds no launcher of its own kind and runs alone, as
// rank 0 of 1, once per rank -- N copies writing the same files. qmprun
// tells such a program from the libraries it needs.
#pragma once

#include <string>

namespace meshmp::tools {

/// The first shared library `program` needs directly (ELF DT_NEEDED) that
/// is another MPI's: a versioned libmpi.so.N (Open MPI's libmpi.so.40,
/// Intel MPI's libmpi.so.12), libmpich.so.N, or their Fortran and C++
/// libraries (libmpi_mpifh, libmpi_cxx, libmpifort, libmpichcxx). meshmp's
/// own are unversioned (libmpi.so, libqmp.so, libmeshmp.so). "" for none,
/// for a program that is not an ELF file (a script), or one that cannot be
/// read. `program` as execvp(3) finds it: searched in PATH when it has no '/'.
std::string foreign_mpi_library(const std::string& program);

}  // namespace meshmp::tools
