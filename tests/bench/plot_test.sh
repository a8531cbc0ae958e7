#!/usr/bin/env bash
# bench/plot draws a PNG from each kind of raw comparison lines, with the
# best of the rounds per point (the points it prints are checked against
# values picked by hand from the fixtures), and refuses a malformed line or
# a mix of kinds, naming file and line.
set -uo pipefail
plot=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
is_png() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1: not a PNG"
  [ "$(stat -c %s "$1")" -gt 10000 ] || fail "$1: a PNG with nothing drawn"
}
# expect_points RAW EXPECTED: plot RAW; the printed points are EXPECTED.
expect_points() {
  "$plot" "$work/$1" "$work/$1.png" --title "test" > "$work/$1.points" || fail "bench/plot $1 exited $?"
  is_png "$work/$1.png"
  diff <(sort "$work/$1.points") <(printf '%s' "$2" | sort) || fail "$1: other points drawn"
}

cat > "$work/p2p" <<'RAW'
meshmp bytes=8 latency_us=0.25 bandwidth_MBps=32
meshmp bytes=8 latency_us=0.21 bandwidth_MBps=38
meshmp bytes=1048576 latency_us=80 bandwidth_MBps=13000
ompi bytes=8 latency_us=0.30 bandwidth_MBps=27
ompi bytes=1048576 latency_us=95 bandwidth_MBps=11000
fi_pingpong bytes=8 latency_us=3.1 bandwidth_MBps=0
RAW
expect_points p2p 'latency fi_pingpong 8 3.1
latency meshmp 8 0.21
latency meshmp 1048576 80
latency ompi 8 0.3
latency ompi 1048576 95
bandwidth meshmp 8 38
bandwidth meshmp 1048576 13000
bandwidth ompi 8 27
bandwidth ompi 1048576 11000
'

# Collectives: per operation, the smallest and largest size against ranks.
cat > "$work/coll" <<'RAW'
meshmp op=barrier ranks=2 bytes=0 us=0.30
meshmp op=barrier ranks=2 bytes=0 us=0.21
meshmp op=barrier ranks=8 bytes=0 us=4.0
openmpi op=barrier ranks=2 bytes=0 us=0.9
meshmp op=broadcast ranks=2 bytes=8 us=0.4
meshmp op=broadcast ranks=2 bytes=1024 us=1.5
meshmp op=broadcast ranks=2 bytes=65536 us=20
meshmp op=broadcast ranks=8 bytes=65536 us=90
meshmp op=broadcast ranks=8 bytes=65536 us=70
RAW
expect_points coll 'barrier meshmp 0 B 2 0.21
barrier meshmp 0 B 8 4
barrier openmpi 0 B 2 0.9
broadcast meshmp 8 B 2 0.4
broadcast meshmp 65536 B 2 20
broadcast meshmp 65536 B 8 70
'

# QMP against USQCD QMP: sweeps (lowest), CG (highest), 1 KiB gathers.
cat > "$work/qmp" <<'RAW'
meshmp n=2 gather ranks=2 grid=2 bytes=1024 us=5.5
meshmp n=2 gather ranks=2 grid=2 bytes=1024 us=4.5
meshmp n=2 gather ranks=2 grid=2 bytes=4096 us=9.0
usqcd n=2 gather ranks=2 grid=2 bytes=1024 us=7.25
meshmp n=2 alloc pairs=10000 us=0.05
meshmp n=2 sweep=0.50 cg=1.2
meshmp n=2 sweep=0.40 cg=1.1
meshmp n=4 sweep=0.30 cg=0.9
usqcd n=2 sweep=0.60 cg=0.8
RAW
expect_points qmp 'lqcd sweep meshmp 2 0.4
lqcd sweep meshmp 4 0.3
lqcd sweep usqcd 2 0.6
lqcd CG meshmp 2 1.2
lqcd CG meshmp 4 0.9
lqcd CG usqcd 2 0.8
1 KiB gather meshmp 2 4.5
1 KiB gather usqcd 2 7.25
'

echo "meshmp bytes=8 latency=0.2" > "$work/bad"
if "$plot" "$work/bad" "$work/bad.png" 2> "$work/err"; then fail "a malformed line was accepted"; fi
grep -q "bad:1: not 'SERIES bytes=N" "$work/err" || { cat "$work/err"; fail "the error does not name the line"; }
printf 'meshmp op=barrier ranks=2 bytes=0 us=1\nmeshmp bytes=8 latency_us=1 bandwidth_MBps=1\n' > "$work/mixed"
if "$plot" "$work/mixed" "$work/mixed.png" 2> "$work/err"; then fail "a mix of kinds was accepted"; fi
grep -q "mixed:2: not SERIES op=NAME" "$work/err" || { cat "$work/err"; fail "the error does not name the line"; }
echo "ok: bench/plot"
