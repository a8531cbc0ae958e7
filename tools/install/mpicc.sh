#!/usr/bin/env bash
# mpicc / mpicxx / mpif77 / mpif90 / mpifort: compile and link MPI programs
# against meshmp's MPI-1.1 library, the way MPICH's wrappers do. Installed
# under each name in PREFIX/bin (the name picks the compiler); the prefix is
# found from the script's own location, so an installed tree can be moved.
#   -show          print the command instead of running it
#   -compile_info  print the command used to compile only (MPICH's name)
#   -link_info     print the command used to link (MPICH's name)
#   -showme, --showme[:compile|:link|:command|:incdirs|:libdirs|:libs|:version|:help]
#                  Open MPI's names: the whole command, or only the compile
#                  flags, the link flags, the compiler, the include or
#                  library directories, the libraries, which MPI this is
# The compiler is cc / c++ / gfortran, or $MESHMP_CC / $MESHMP_CXX / $MESHMP_FC,
# or what MPICH's -cc=, -cxx=, -fc= (also -f77=, -f90=) name.
# Fortran programs find mpif.h and the `mpi` module in PREFIX/include. With
# gfortran 10 or later they are compiled with -fallow-argument-mismatch: an
# MPI-1 program passes INTEGER, REAL, ... buffers to the same MPI_SEND, which
# those compilers otherwise reject.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
prefix=$(dirname "$here")
cflags=(-I"$prefix/include")
case "$(basename "$0")" in
  *cxx|*c++|*CC) compiler=${MESHMP_CXX:-c++} ;;
  *f77|*f90|*fort)
    compiler=${MESHMP_FC:-gfortran}
    if "$compiler" --version 2>/dev/null | grep -q "GNU Fortran" &&
       [ "$("$compiler" -dumpversion | cut -d. -f1)" -ge 10 ]; then
      cflags+=(-fallow-argument-mismatch)
    fi
    ;;
  *) compiler=${MESHMP_CC:-cc} ;;
esac
libs=(-L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lmpi)
for a in "$@"; do
  case "$a" in -cc=*|-cxx=*|-fc=*|-f77=*|-f90=*) compiler=${a#*=} ;; esac
done

# Open MPI's --showme:WHAT prints one part and exits.
for a in "$@"; do
  case "$a" in
    -showme:*|--showme:*)
      case "${a#*:}" in
        compile) echo "${cflags[*]}" ;;
        link) echo "${libs[*]}" ;;
        command) echo "$compiler" ;;
        incdirs) echo "$prefix/include" ;;
        libdirs) echo "$prefix/lib" ;;
        libs) echo mpi ;;
        version) echo "$(basename "$0") $("$here/qmprun" --version | cut -d' ' -f2-)" ;;
        help) echo "$(basename "$0") --showme:{compile,link,command,incdirs,libdirs,libs,version,help}" ;;
        *) echo "$(basename "$0"): $a: expected --showme:compile, link, command, incdirs, libdirs, libs, version or help" >&2
           exit 2 ;;
      esac
      exit 0 ;;
  esac
done

show=0 mode=link args=()
for a in "$@"; do
  case "$a" in
    -show|-showme|--showme) show=1 ;;
    -cc=*|-cxx=*|-fc=*|-f77=*|-f90=*) ;;
    -compile_info) show=1 mode=compile ;;
    -link_info) show=1 mode=link_only ;;
    -c|-E|-S|-M|-MM) mode=compile; args+=("$a") ;;
    *) args+=("$a") ;;
  esac
done
case $mode in
  compile) cmd=("$compiler" "${cflags[@]}" "${args[@]}") ;;
  link_only) cmd=("$compiler" "${args[@]}" "${libs[@]}") ;;
  *) cmd=("$compiler" "${cflags[@]}" "${args[@]}" "${libs[@]}") ;;
esac
if [ $show = 1 ]; then
  echo "${cmd[*]}"
else
  exec "${cmd[@]}"
fi
