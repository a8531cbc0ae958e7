#!/usr/bin/env bash
# The Fortran 77 bindings as a Fortran user meets them: installs meshmp with
# the same script as `bazel run //:install`, checks what the mpif77/mpif90
# wrappers run, builds one program per chapter of MPI-1.1 with the installed
# mpif77 (fixed form, INCLUDE 'mpif.h') and one free-form program with mpif90
# (USE mpi), one of Fortran and C together, links one statically against
# libmpi.a, and runs each with the installed mpirun on 1 to 4 ranks. Each
# program prints "NAME: N ranks ok" only if all its checks passed on every
# rank; a failed check ends its job with MPI_ABORT.
set -euo pipefail
prefix=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$prefix" "$work"' EXIT
tools/install/install --prefix "$prefix" >/dev/null
src=tests/fortran

[ -f "$prefix/include/mpif.h" ] && [ -f "$prefix/include/mpi.mod" ]
major=$(gfortran -dumpversion | cut -d. -f1)
mismatch=""
[ "$major" -ge 10 ] && mismatch=" -fallow-argument-mismatch"
show=$("$prefix/bin/mpif77" -show -O2 x.f -o x)
[ "$show" = "gfortran -I$prefix/include$mismatch -O2 x.f -o x -L$prefix/lib -Wl,-rpath,$prefix/lib -lmpi" ] ||
  { echo "mpif77 -show: $show" >&2; exit 1; }
[ "$("$prefix/bin/mpif90" -compile_info -c x.f90)" = "gfortran -I$prefix/include$mismatch -c x.f90" ]

run() {  # name, program, ranks...
  local name=$1 prog=$2; shift 2
  for n in "$@"; do
    out=$("$prefix/bin/mpirun" -np "$n" --timeout 60 "$prog") || { echo "$name on $n ranks failed: $out" >&2; exit 1; }
    echo "$out" | grep -qx "$name: $n ranks ok" || { echo "$name on $n ranks: unexpected output: $out" >&2; exit 1; }
    echo "$name: $n ranks ok"
  done
}

for chapter in ring p2p datatype coll comm topo env; do
  "$prefix/bin/mpif77" -O2 -w "$src/$chapter.f" "$src/check.f" -o "$work/$chapter"
  run "$chapter" "$work/$chapter" 1 2 3 4
done

# One-sided communication and parallel I/O: refused at run time, not at link time.
"$prefix/bin/mpif77" -O2 -w "$src/refused.f" "$src/check.f" -o "$work/refused"
run refused "$work/refused" 1 2

# MPI_ABORT: the job ends with its code, and what the aborting rank wrote
# to unit 6 before it is in the job's output.
"$prefix/bin/mpif77" -O2 -w "$src/abort.f" -o "$work/abort"
status=0
out=$("$prefix/bin/mpirun" -np 3 --timeout 60 "$work/abort" 2>/dev/null) || status=$?
[ "$status" = 5 ] || { echo "abort: status $status, not 5" >&2; exit 1; }
[ "$out" = "abort: rank 1 wrote this before MPI_ABORT" ] || { echo "abort: unexpected output: $out" >&2; exit 1; }
echo "abort: 3 ranks ok"

# Fortran and C in one program: absolute addresses from either language.
"$prefix/bin/mpicc" -O2 -c "$src/interop_c.c" -o "$work/interop_c.o"
"$prefix/bin/mpif77" -O2 -w "$src/interop.f" "$src/check.f" "$work/interop_c.o" -o "$work/interop"
run interop "$work/interop" 1 2 3

# Linked statically, as with libmpi.a from the C side.
gfortran -w $mismatch -I"$prefix/include" "$src/ring.f" "$src/check.f" -o "$work/ring_static" \
  "$prefix/lib/libmpi.a" -lstdc++ -lm -lrt -lpthread -lunistring -lsodium -L/usr/lib/x86_64-linux-gnu/pmix2/lib -Wl,-rpath,/usr/lib/x86_64-linux-gnu/pmix2/lib -lpmix
if ldd "$work/ring_static" | grep -q 'libmpi\|libmeshmp'; then echo "static build still links libmpi.so" >&2; exit 1; fi
run ring "$work/ring_static" 3

"$prefix/bin/mpif90" -O2 "$src/use_mpi.f90" -o "$work/use_mpi"
run use_mpi "$work/use_mpi" 1 3
