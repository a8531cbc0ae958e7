#!/usr/bin/env bash
# bench/plot draws a PNG from raw comparison lines (best of rounds per
# point) and refuses a malformed line naming file and line.
set -uo pipefail
plot=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/raw" <<'RAW'
meshmp bytes=8 latency_us=0.25 bandwidth_MBps=32
meshmp bytes=8 latency_us=0.21 bandwidth_MBps=38
meshmp bytes=1048576 latency_us=80 bandwidth_MBps=13000
ompi bytes=8 latency_us=0.30 bandwidth_MBps=27
ompi bytes=1048576 latency_us=95 bandwidth_MBps=11000
fi_pingpong bytes=8 latency_us=3.1 bandwidth_MBps=0
RAW
"$plot" "$work/raw" "$work/out.png" --title "test" || { echo "FAILED: bench/plot exited $?"; exit 1; }
[ "$(head -c 8 "$work/out.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || { echo "FAILED: not a PNG"; exit 1; }
[ "$(stat -c %s "$work/out.png")" -gt 10000 ] || { echo "FAILED: a PNG with nothing drawn"; exit 1; }
echo "meshmp bytes=8 latency=0.2" > "$work/bad"
if "$plot" "$work/bad" "$work/bad.png" 2> "$work/err"; then echo "FAILED: a malformed line was accepted"; exit 1; fi
grep -q "bad:1: not 'SERIES bytes=N" "$work/err" || { echo "FAILED: the error does not name the line"; cat "$work/err"; exit 1; }
echo "ok: bench/plot"
