#!/usr/bin/env bash
# The 8-byte MPI message rate (bench/mpi_rate.c, windows of 16 and 64) of
# several meshmp revisions and of Open MPI 4.1.4, interleaved, on a bigger
# machine that has no MPI: for finding the commit that made a figure of the
# 16-core tables worse when the 2-core machine does not show it. Two ranks,
# each pinned to its own physical core.
# Here (the 2-core machine), each revision installed under a prefix named by
# it (compare_revisions keeps worktrees under ~/.cache/meshmp-bench/REV):
#   (cd ~/.cache/meshmp-bench/REV && bazel run -c opt //:install -- --prefix /tmp/bis/REV)   # per REV
#   MESHMP_PREFIX=/tmp/bis/REV BUNDLE=.bundle ../shared/bench-16core/build.sh                # any one REV
#   bench/bundle_revisions.sh add .bundle /tmp/bis/*
# There (the bundle carried along; raw lines in $OUT/rates.txt):
#   bash .bundle/bundle_revisions.sh run 5
# Here again: bench/bundle_revisions.sh summary rates.txt   (best and median per revision, M msg/s)
set -u
case "${1:-}" in
add)
  dc=$2; shift 2
  here=$(cd "$(dirname "$0")/.." && pwd)
  set -e
  : > "$dc/revisions.txt"
  for mm in "$@"; do
    rev=$(basename "$mm")
    cc -O2 -I"$mm/include" "$here/bench/mpi_rate.c" -o "$dc/bin/rate_$rev" "$mm/lib/libmeshmp.a" \
      -static-libstdc++ -static-libgcc -lstdc++ -lm -lrt -lpthread -lunistring -lsodium \
      -L/usr/lib/x86_64-linux-gnu/pmix2/lib -lpmix
    cp "$mm/bin/qmprun" "$dc/bin/qmprun_$rev"
    echo "$rev" >> "$dc/revisions.txt"
  done
  cc -O2 -I/usr/lib/x86_64-linux-gnu/openmpi/include "$here/bench/mpi_rate.c" -o "$dc/bin/rate_ompi" \
    -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi
  strip "$dc"/bin/rate_* "$dc"/bin/qmprun_* 2>/dev/null || true
  cp "$0" "$here/bench/bundle_pin.sh" "$dc/"
  ;;
run)
  ROUNDS=${2:-5} ITERS=${ITERS:-20000} OUT=${OUT:-/tmp/devout}
  mkdir -p "$OUT"; source "$(dirname "$0")/env.sh"; source "$(dirname "$0")/bundle_pin.sh"
  B=$DC/bin RAW=$OUT/rates.txt; : > "$RAW"
  mapfile -t revs < "$DC/revisions.txt"; libs=("${revs[@]}" ompi)
  echo "cpus $(nproc); physical cores ${#PRIM[@]}; pin $PIN; revisions ${revs[*]}"
  for r in $(seq 1 "$ROUNDS"); do
    n=${#libs[@]}
    for i in $(seq 0 $((n - 1))); do
      lib=${libs[$(( (i + r - 1) % n ))]}  # the order rotates each round
      for w in 16 64; do
        if [ "$lib" = ompi ]; then
          out=$(timeout 60 "${OMPIRUN[@]}" -np 2 -H localhost:2 --bind-to none --mca mpi_yield_when_idle 0 \
                "$B/pin" "$PIN" "$B/rate_ompi" "$ITERS" "$w" 2>&1)
        else
          out=$(timeout 60 "$B/qmprun_$lib" -n 2 "$B/pin" "$PIN" "$B/rate_$lib" "$ITERS" "$w" 2>&1)
        fi
        line=$(grep -m1 '^rate ' <<< "$out") || { echo "FAILED $lib w=$w: $out" >&2; continue; }
        echo "round=$r rev=$lib $line" >> "$RAW"
      done
    done
    echo "round $r done"
  done
  ;;
summary)
  python3 - "$2" <<'EOF'
import sys, re, statistics, collections
d = collections.defaultdict(list); order = []
for line in open(sys.argv[1]):
    m = re.match(r'round=\d+ rev=(\S+) rate window=(\d+) msgs=\d+ Mmsgs=([\d.]+)', line)
    if not m: continue
    if m[1] not in order: order.append(m[1])
    d[(m[1], int(m[2]))].append(float(m[3]))
print('| revision | window 16 best | median | window 64 best | median |')
print('|---|---:|---:|---:|---:|')
for rev in order:
    cells = []
    for w in (16, 64):
        v = d[(rev, w)]
        cells += ['%.2f' % max(v), '%.2f' % statistics.median(v)] if v else ['-', '-']
    print('| %s | %s |' % (rev, ' | '.join(cells)))
EOF
  ;;
*) echo "usage: bundle_revisions.sh add BUNDLE PREFIX... | run [ROUNDS] | summary RATES_FILE" >&2; exit 2 ;;
esac
