#!/usr/bin/env bash
# in_netns.sh TESTBED PROGRAM ARGS...: runs this Slurm task -- rank
# $SLURM_PROCID, one per node of a qmp-mesh testbed -- in namespace
# TESTBED-n$SLURM_PROCID, as if each namespace were a host of its own.
# The task's PMIx client reaches slurmstepd by TCP to 127.0.0.1 (PMIx 4 has
# no other transport), which is the root namespace's loopback: socat relays
# that port into the task's namespace through a Unix socket. (tests/netns
# loss_srun; a real cluster needs none of this.)
set -uo pipefail
ns=$1-n$SLURM_PROCID
shift
port=$(env | sed -n 's|^PMIX_SERVER_URI[0-9]*=.*tcp4://127\.0\.0\.1:\([0-9]*\).*|\1|p' | head -1)
[ -n "$port" ] || { echo "in_netns: no PMIx server on 127.0.0.1 in the environment" >&2; exit 1; }
sock=$(mktemp -u "${TMPDIR:-/tmp}/meshmp-pmix-relay-XXXXXXXX")
socat "UNIX-LISTEN:$sock,fork" "TCP:127.0.0.1:$port" &
outside=$!
ip netns exec "$ns" socat "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$sock" &
inside=$!
for _ in $(seq 100); do
  [ -S "$sock" ] && ip netns exec "$ns" ss -Htln "sport = :$port" | grep -q . && break
  sleep 0.05
done
ip netns exec "$ns" "$@"
rc=$?
kill "$inside" "$outside" 2>/dev/null
wait 2>/dev/null
rm -f "$sock"
exit $rc
