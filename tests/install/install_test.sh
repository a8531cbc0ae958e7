#!/usr/bin/env bash
# Installs meshmp with the same script as `bazel run //:install`, then builds
# hello_qmp.c the ways QMP users do -- plain cc with qmp-config (shared and
# static libqmp), pkg-config, CMake find_package(QMP) -- and runs each build
# on 4 ranks with the installed qmprun; then builds hello_mpi.c the way MPI
# users do -- the installed mpicc and mpicxx, pkg-config mpi -- and runs it
# with the installed mpirun.
set -euo pipefail
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
tools/install/install --prefix "$prefix" >/dev/null
src=examples/hello/hello_qmp.c
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

cc $("$cfg" --cflags) "$src" -o "$work/static" "$prefix/lib/libqmp.a" -lstdc++ -lm -lrt -lpthread -lunistring -lsodium -L/usr/lib/x86_64-linux-gnu/pmix2/lib -Wl,-rpath,/usr/lib/x86_64-linux-gnu/pmix2/lib -lpmix
if ldd "$work/static" | grep -q 'libqmp\|libmeshmp'; then echo "static build still links libqmp.so" >&2; exit 1; fi
run "cc + libqmp.a (static)" "$work/static"

PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags qmp) \
  "$src" -o "$work/pc" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs --static qmp)
run "pkg-config" "$work/pc"

cp tests/install/CMakeLists.txt "$src" "$work/"
cmake -S "$work" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build" >/dev/null
run "cmake find_package(QMP)" "$work/build/hello_qmp"

# MPI: the wrappers, their -show forms, and the same core under libmpi.
mpisrc=examples/hello/hello_mpi.c
runmpi() {  # label, program
  out=$("$prefix/bin/mpirun" -np 4 --timeout 60 "$2")
  echo "$out" | grep -q "hello_mpi: 4 ranks, ring, column and sum ok" || { echo "$1: unexpected output: $out" >&2; exit 1; }
  echo "$1: ok"
}
show=$("$prefix/bin/mpicc" -show -O2 x.c -o x)
[ "$show" = "cc -I$prefix/include -O2 x.c -o x -L$prefix/lib -Wl,-rpath,$prefix/lib -lmpi" ] || { echo "mpicc -show: $show" >&2; exit 1; }
[ "$("$prefix/bin/mpicxx" -compile_info -c x.cc)" = "c++ -I$prefix/include -c x.cc" ]
[ "$("$prefix/bin/mpicc" -link_info x.o)" = "cc x.o -L$prefix/lib -Wl,-rpath,$prefix/lib -lmpi" ]
# mpic++ and mpiCC, the C++ wrapper's other names.
[ "$("$prefix/bin/mpic++" -compile_info -c x.cc)" = "c++ -I$prefix/include -c x.cc" ]
[ "$("$prefix/bin/mpiCC" -compile_info -c x.cc)" = "c++ -I$prefix/include -c x.cc" ]
# MPICH's -cc= picks the compiler.
[ "$("$prefix/bin/mpicc" -cc=gcc-12 -show -c x.c)" = "gcc-12 -I$prefix/include -c x.c" ]
# Open MPI's --showme forms, as Makefiles and build systems use them.
[ "$("$prefix/bin/mpicc" --showme -O2 x.c)" = "cc -I$prefix/include -O2 x.c -L$prefix/lib -Wl,-rpath,$prefix/lib -lmpi" ]
[ "$("$prefix/bin/mpicc" --showme:compile)" = "-I$prefix/include" ]
[ "$("$prefix/bin/mpicc" --showme:link)" = "-L$prefix/lib -Wl,-rpath,$prefix/lib -lmpi" ]
[ "$("$prefix/bin/mpicxx" -showme:command)" = "c++" ]
[ "$("$prefix/bin/mpicc" --showme:incdirs) $("$prefix/bin/mpicc" --showme:libdirs) $("$prefix/bin/mpicc" --showme:libs)" = \
  "$prefix/include $prefix/lib mpi" ]
"$prefix/bin/mpicc" --showme:version | grep -q "^mpicc (meshmp): MPI 1.1" ||
  { echo "mpicc --showme:version: $("$prefix/bin/mpicc" --showme:version)" >&2; exit 1; }
if "$prefix/bin/mpicc" --showme:nonsense 2>/dev/null; then echo "mpicc --showme:nonsense was taken" >&2; exit 1; fi

"$prefix/bin/mpicc" -O2 -Wall -Werror "$mpisrc" -o "$work/mpi_c"
runmpi "mpicc" "$work/mpi_c"
"$prefix/bin/mpicc" -c "$mpisrc" -o "$work/mpi.o" && "$prefix/bin/mpicc" "$work/mpi.o" -o "$work/mpi_two_step"
runmpi "mpicc -c, then link" "$work/mpi_two_step"
# shellcheck disable=SC2046  # the flags are words
cc $("$prefix/bin/mpicc" --showme:compile) -c "$mpisrc" -o "$work/mpi_showme.o" &&
  cc "$work/mpi_showme.o" -o "$work/mpi_showme" $("$prefix/bin/mpicc" --showme:link)
runmpi "cc with mpicc --showme:compile and --showme:link" "$work/mpi_showme"
cp "$mpisrc" "$work/hello_mpi.cc"
"$prefix/bin/mpicxx" -O2 "$work/hello_mpi.cc" -o "$work/mpi_cxx"
runmpi "mpicxx" "$work/mpi_cxx"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags mpi) \
  "$mpisrc" -o "$work/mpi_pc" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs mpi)
runmpi "pkg-config mpi" "$work/mpi_pc"
cc -I"$prefix/include" "$mpisrc" -o "$work/mpi_static" "$prefix/lib/libmpi.a" -lstdc++ -lm -lrt -lpthread -lunistring -lsodium -L/usr/lib/x86_64-linux-gnu/pmix2/lib -Wl,-rpath,/usr/lib/x86_64-linux-gnu/pmix2/lib -lpmix
runmpi "cc + libmpi.a (static)" "$work/mpi_static"

# The profiling interface (MPI-1.1 §8): a tool's MPI_Send, MPI_Recv and
# MPI_Barrier replace the library's (weak) ones, in the program itself or
# in a shared library linked before libmpi, and the library's own calls do
# not reach them.
profsrc=tests/install/profile_mpi.c
"$prefix/bin/mpicc" -O2 "$profsrc" -o "$work/profile_in_program"
cc -I"$prefix/include" -O2 -fPIC -shared -DTOOL_ONLY "$profsrc" -o "$work/libprofile.so" -L"$prefix/lib" -lmpi
"$prefix/bin/mpicc" -O2 -DPROGRAM_ONLY "$profsrc" -o "$work/profile_by_library" -L"$work" -Wl,-rpath,"$work" -lprofile
for p in profile_in_program profile_by_library; do
  out=$("$prefix/bin/mpirun" -np 2 --timeout 60 "$work/$p")
  echo "$out" | grep -q "profile_mpi: ok" || { echo "$p: unexpected output: $out" >&2; exit 1; }
  echo "$p: ok"
done

# The installed tools: one qmp-mesh (check, show, net), and the lattice-QCD
# job as meshmp-lqcd.
"$prefix/bin/qmp-mesh" check configs/test-2x2x2.toml | grep -q "ok: 3-D torus 2x2x2, 8 nodes"
"$prefix/bin/qmp-mesh" show configs/test-2x2x2.toml | grep -q "^rank 7 "
"$prefix/bin/qmp-mesh" net --help | grep -q "up"
if "$prefix/bin/qmp-mesh" net down nosuchbed 2>/dev/null; then echo "net down of no testbed returned 0" >&2; exit 1; fi
out=$("$prefix/bin/qmprun" -n 2 --timeout 60 "$prefix/bin/meshmp-lqcd" --lattice 4x4x4x4 --therm 1 \
  --sweeps 1)
echo "$out" | grep -q "plaquette" || { echo "meshmp-lqcd: unexpected output: $out" >&2; exit 1; }
echo "qmp-mesh and meshmp-lqcd: ok"
