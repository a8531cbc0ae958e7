#!/usr/bin/env bash
# The main job (README): 8 ranks on a 2x2x2x1 torus, an 8^4 lattice at
# beta = 6.0: thermalisation, measured sweeps, then a Wilson-Dirac CG solve.
# Extra arguments go to lqcd (e.g. --save cfg.nersc).
set -euo pipefail
qmprun=$1 lqcd=$2
shift 2
exec "$qmprun" -n 8 --geometry 2x2x2x1 --timeout 600 "$lqcd" -qmp-geom native \
  --lattice 8x8x8x8 --beta 6.0 --therm 50 --sweeps 100 --or-per-hb 4 --kappa 0.12 "$@"
