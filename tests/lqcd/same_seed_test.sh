#!/usr/bin/env bash
# The same seed gives the same run on any number of ranks: lqcd on 1, 2, 4
# and 8 ranks (two different 8-rank grids) must print the same plaquette
# after every sweep (to 1e-12 relative) and need the same number of CG
# iterations. Usage: same_seed_test.sh QMPRUN LQCD
set -euo pipefail
qmprun=$1 lqcd=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=("1 1x1x1x1" "2 1x1x1x2" "4 2x1x1x2" "8 2x2x1x2" "8 2x2x2x1")
for r in "${runs[@]}"; do
  set -- $r
  "$qmprun" -n "$1" --timeout 300 "$lqcd" --lattice 4x4x4x8 --grid "$2" --start hot --seed 5 \
    --therm 3 --sweeps 3 --or-per-hb 1 --kappa 0.115 --cg-tol 1e-9 > "$work/$1-$2.txt"
done
python3 - "$work" "${runs[@]}" <<'PY'
import re, sys
work, runs = sys.argv[1], sys.argv[2:]
def parse(path):
    text = open(path).read()
    plaq = [float(m) for m in re.findall(r"^sweep +\d+ \w+ +plaquette (\S+)", text, re.M)]
    cg = re.search(r"CG +(\d+) iterations", text)
    assert len(plaq) == 6 and cg, "incomplete output in " + path + ":\n" + text
    return plaq, int(cg.group(1))
ref_name = runs[0].replace(" ", "-")
ref_plaq, ref_cg = parse(f"{work}/{ref_name}.txt")
bad = 0
for r in runs[1:]:
    plaq, cg = parse(f"{work}/{r.replace(' ', '-')}.txt")
    for k, (a, b) in enumerate(zip(ref_plaq, plaq)):
        if abs(a - b) > 1e-12 * abs(a):
            print(f"ranks/grid {r}: sweep {k + 1} plaquette {b!r}, 1 rank {a!r}"); bad = 1
    if cg != ref_cg:
        print(f"ranks/grid {r}: {cg} CG iterations, 1 rank {ref_cg}"); bad = 1
print("plaquette history", ref_plaq, "CG iterations", ref_cg)
sys.exit(bad)
PY
