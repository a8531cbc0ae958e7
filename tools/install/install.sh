#!/usr/bin/env bash
# Installs meshmp's QMP: bazel run //:install -- --prefix DIR
# Lays out DIR/include/qmp.h, DIR/lib/libqmp.{a,so}, DIR/bin/{qmprun,mpirun,
# mpiexec,qmp-config,qmp-mesh}, DIR/lib/pkgconfig/qmp.pc, DIR/lib/cmake/QMP/.
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
install -m 0644 "$r/tools/install/libqmp.a" "$prefix/lib/libqmp.a"
install -m 0755 "$r/tools/install/libqmp.so" "$prefix/lib/libqmp.so"
for b in qmprun mpirun mpiexec; do install -m 0755 "$r/tools/qmprun/$b" "$prefix/bin/$b"; done
install -m 0755 "$r/tools/qmp_config/qmp-config" "$prefix/bin/qmp-config"
install -m 0755 "$r/tools/qmp_mesh/qmp-mesh" "$prefix/bin/qmp-mesh"
sed "s|@PREFIX@|$prefix|" "$r/tools/install/qmp.pc.in" > "$prefix/lib/pkgconfig/qmp.pc"
install -m 0644 "$r/tools/install/QMPConfig.cmake" "$r/tools/install/QMPConfigVersion.cmake" "$prefix/lib/cmake/QMP/"
echo "meshmp QMP installed in $prefix"
