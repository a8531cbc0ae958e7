#!/usr/bin/env bash
# Installs meshmp with the same script as `bazel run //:install`, then builds
# hello_qmp.c the ways QMP users do -- plain cc with qmp-config (shared and
# static libqmp), pkg-config, CMake find_package(QMP) -- and runs each build
# on 4 ranks with the installed qmprun.
set -euo pipefail
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
tools/install/install --prefix "$prefix" >/dev/null
src=tests/install/hello_qmp.c
cfg="$prefix/bin/qmp-config"

[ "$("$cfg" --version)" = "2.5.4" ]
[ "$("$cfg" --prefix)" = "$prefix" ]

run() {  # label, program
  out=$("$prefix/bin/qmprun" -n 4 --timeout 60 "$2")
  echo "$out" | grep -q "hello_qmp: 4 nodes, ring and sum ok" || { echo "$1: unexpected output: $out" >&2; exit 1; }
  echo "$1: ok"
}

cc $("$cfg" --cflags) "$src" -o "$work/shared" $("$cfg" --ldflags --libs)
run "cc + qmp-config (shared)" "$work/shared"

cc $("$cfg" --cflags) "$src" -o "$work/static" "$prefix/lib/libqmp.a" -lstdc++ -lm -lrt -lpthread
if ldd "$work/static" | grep -q libqmp; then echo "static build still links libqmp.so" >&2; exit 1; fi
run "cc + libqmp.a (static)" "$work/static"

PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags qmp) \
  "$src" -o "$work/pc" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs --static qmp)
run "pkg-config" "$work/pc"

cp tests/install/CMakeLists.txt "$src" "$work/"
cmake -S "$work" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build" >/dev/null
run "cmake find_package(QMP)" "$work/build/hello_qmp"
