#!/usr/bin/env bash
# The ping-pong demo (the main job until the lattice-QCD program lands):
# 8 ranks on a 2x2x2 torus exchange 1 MiB with all six neighbours, then
# ranks 0 and 1 measure latency and bandwidth from 8 B to 4 MiB.
# Run: bazel run //examples/pingpong:demo
set -euo pipefail
qmprun=$1 exchange=$2 pingpong=$3
echo "== 8 ranks, 2x2x2 torus: every rank sends 1 MiB to each of its 6 neighbours"
"$qmprun" -n 8 --geometry 2x2x2 --timeout 120 "$exchange"
echo
echo "== ranks 0 and 1: half round-trip latency and streaming bandwidth"
"$qmprun" -n 2 --timeout 300 "$pingpong" --iters 20000
