#!/usr/bin/env bash
# Physics: the average plaquette of the SU(3) Wilson action at beta = 6.0
# agrees with the published large-volume value 0.59368 within three standard
# errors of the measured sweeps. A 12^4 lattice keeps the finite-volume shift
# below the error (8^4 sits ~0.0007 higher). The seed is fixed, so the
# outcome is the same on every run. Usage: plaquette_beta6_test.sh QMPRUN LQCD
set -euo pipefail
qmprun=$1 lqcd=$2
out=$("$qmprun" -n 2 --timeout 900 "$lqcd" --lattice 12x12x12x12 --grid 1x1x1x2 --beta 6.0 --seed 2026 \
  --therm 20 --sweeps 80 --or-per-hb 3 --cg-tol 0.5)
line=$(grep -E '^  plaquette ' <<<"$out") || { echo "no plaquette summary in:"; echo "$out"; exit 1; }
echo "$line"
awk -v ref=0.59368 '{ p = $2; e = $4; d = p - ref; if (d < 0) d = -d;
  printf "measured %s +- %s, reference %s: |difference| = %.6f = %.2f standard errors\n", p, e, ref, d, d / e;
  exit !(e > 0 && d < 3 * e) }' <<<"$line"
