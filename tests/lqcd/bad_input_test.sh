#!/usr/bin/env bash
# Bad input ends the job cleanly on every rank with one clear message:
# a malformed option (usage error, status 2), a lattice the grid does not
# divide, and a gauge file that does not exist or is corrupt (status 1).
# Usage: bad_input_test.sh QMPRUN LQCD
set -uo pipefail
qmprun=$1 lqcd=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
expect() {  # status, text, lqcd arguments...
  local want=$1 text=$2
  shift 2
  out=$("$qmprun" -n 2 --timeout 60 "$lqcd" "$@" 2>&1)
  got=$?
  # qmprun reports the first failing rank's status.
  if [ "$got" != "$want" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "lqcd $*: status $got (want $want), output:"; echo "$out"; fail=1
  fi
}
expect 2 "--lattice" --lattice 8x8x8
expect 2 "--beta" --beta -1
expect 1 "dims multiply to 3 but the communicator has 2 nodes" --lattice 8x8x8x8 --grid 1x1x1x3
expect 1 "not divisible by the 2 nodes" --lattice 8x8x8x3 --grid 1x1x1x2
expect 1 "$work/none.nersc: cannot open" --lattice 4x4x4x4 --load "$work/none.nersc"
"$qmprun" -n 2 --timeout 60 "$lqcd" --lattice 4x4x4x4 --therm 1 --sweeps 0 --cg-tol 0.5 --save "$work/ok.nersc" >/dev/null
# One flipped bit in the data.
python3 -c "
import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[-9] ^= 1; open(sys.argv[2], 'wb').write(b)" \
  "$work/ok.nersc" "$work/bad.nersc"
expect 1 "CHECKSUM" --lattice 4x4x4x4 --load "$work/bad.nersc"
expect 1 "DIMENSION_1 = 4, but the lattice is 8" --lattice 8x4x4x4 --load "$work/ok.nersc"
exit $fail
