#!/usr/bin/env bash
# hydra_netns.sh [SSH OPTIONS] HOST COMMAND: MPICH's mpiexec (Hydra) calls
# this in ssh's place (-launcher ssh -launcher-exec) to start its proxy on
# HOST, here a namespace of a qmp-mesh testbed, as if each were a host of
# its own. The proxy reaches mpiexec's control port, in the root namespace,
# through socat: a TCP port on the namespace's loopback relayed through a
# Unix socket (as in_netns.sh does for PMIx). A real cluster needs none of
# this. (tests/netns mixed_mpich)
set -uo pipefail
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done  # ssh's options (-x)
ns=$1
shift
cmd="$*"
control=$(sed -n 's/.*--control-port \([^ ]*\).*/\1/p' <<< "$cmd")
port=${control##*:}
[ -n "$port" ] || { echo "hydra_netns: no --control-port in: $cmd" >&2; exit 1; }
cmd=${cmd/--control-port $control/--control-port 127.0.0.1:$port}
sock=$(mktemp -u "${TMPDIR:-/tmp}/meshmp-hydra-relay-XXXXXXXX")
socat "UNIX-LISTEN:$sock,fork" "TCP:127.0.0.1:$port" &
outside=$!
ip netns exec "$ns" socat "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$sock" &
inside=$!
for _ in $(seq 100); do
  [ -S "$sock" ] && ip netns exec "$ns" ss -Htln "sport = :$port" | grep -q . && break
  sleep 0.05
done
ip netns exec "$ns" bash -c "$cmd"
rc=$?
kill "$inside" "$outside" 2>/dev/null
wait 2>/dev/null
rm -f "$sock"
exit $rc
