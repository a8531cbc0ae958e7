#!/usr/bin/env bash
# Installs meshmp's QMP and MPI: bazel run //:install -- --prefix DIR
# Lays out DIR/include/{qmp,mpi,mpif}.h (and mpi.mod, the `mpi` module, when
# gfortran is there), DIR/lib/libmeshmp.{a,so} (linked as libqmp.* and
# libmpi.*), DIR/bin/{qmprun,mpirun,mpiexec,mpicc,mpicxx,mpic++,mpiCC,mpif77,mpif90,mpifort,
# qmp-config,qmp-mesh,meshrouted,meshmp-lqcd}, DIR/lib/pkgconfig/{qmp,mpi}.pc,
# DIR/lib/cmake/QMP/.
set -euo pipefail
usage() { echo "usage: bazel run //:install -- --prefix DIR" >&2; exit 2; }
[ $# -eq 2 ] && [ "$1" = "--prefix" ] || usage
prefix=$2
case "$prefix" in /*) ;; *) prefix="${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix" ;; esac
here=$(cd "$(dirname "$0")" && pwd)
r="$here/install.runfiles/meshmp"
[ -d "$r" ] || r="$PWD"
mkdir -p "$prefix/include" "$prefix/lib/pkgconfig" "$prefix/lib/cmake/QMP" "$prefix/bin"
install -m 0644 "$r/qmp/qmp.h" "$prefix/include/qmp.h"
install -m 0644 "$r/mpi11/mpi.h" "$prefix/include/mpi.h"
install -m 0644 "$r/mpi11/fortran/mpif.h" "$prefix/include/mpif.h"
install -m 0644 "$r/tools/install/libmeshmp.a" "$prefix/lib/libmeshmp.a"
install -m 0755 "$r/tools/install/libmeshmp.so" "$prefix/lib/libmeshmp.so"
for l in qmp mpi; do
  ln -sfn libmeshmp.a "$prefix/lib/lib$l.a"
  ln -sfn libmeshmp.so "$prefix/lib/lib$l.so"
done
for w in mpicc mpicxx mpic++ mpiCC mpif77 mpif90 mpifort; do install -m 0755 "$r/tools/install/mpicc.sh" "$prefix/bin/$w"; done
for b in qmprun mpirun mpiexec; do install -m 0755 "$r/tools/qmprun/$b" "$prefix/bin/$b"; done
install -m 0755 "$r/tools/qmp_config/qmp-config" "$prefix/bin/qmp-config"
install -m 0755 "$r/tools/qmp-mesh/qmp-mesh" "$prefix/bin/qmp-mesh"
install -m 0755 "$r/examples/lqcd/lqcd" "$prefix/bin/meshmp-lqcd"
install -m 0755 "$r/kernel_forwarder/meshrouted" "$prefix/bin/meshrouted"
for pc in qmp mpi; do sed "s|@PREFIX@|$prefix|" "$r/tools/install/$pc.pc.in" > "$prefix/lib/pkgconfig/$pc.pc"; done
install -m 0644 "$r/tools/install/QMPConfig.cmake" "$r/tools/install/QMPConfigVersion.cmake" "$prefix/lib/cmake/QMP/"
# `use mpi` for Fortran 90 programs: mpif.h and MPI_SIZEOF's interface
# (mpi11/fortran/mpi_module.f90; its specifics are in libmpi), compiled by
# the compiler that will use it (.mod files are compiler-specific).
fc=${MESHMP_FC:-gfortran}
if command -v "$fc" >/dev/null; then
  tmp=$(mktemp -d)
  "$fc" -c -I"$prefix/include" -J"$prefix/include" "$r/mpi11/fortran/mpi_module.f90" -o "$tmp/mpi.o"
  rm -rf "$tmp"
fi
echo "meshmp QMP and MPI installed in $prefix"
