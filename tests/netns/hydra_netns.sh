#!/usr/bin/env bash
# hydra_netns.sh [SSH OPTIONS] HOST COMMAND: MPICH's mpiexec (Hydra) calls
# this in ssh's place (-launcher ssh -launcher-exec) to start its proxy on
# HOST, here a namespace of a qmp-mesh testbed, as if each were a host of
# its own. The proxy reaches mpiexec's control port, in the root namespace,
# through a relay to the namespace's loopback (netns_relay.sh). A real
# cluster needs none of this. (tests/netns mixed_mpich)
set -uo pipefail
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done  # ssh's options (-x)
ns=$1
shift
cmd="$*"
control=$(sed -n 's/.*--control-port \([^ ]*\).*/\1/p' <<< "$cmd")
port=${control##*:}
[ -n "$port" ] || { echo "hydra_netns: no --control-port in: $cmd" >&2; exit 1; }
cmd=${cmd/--control-port $control/--control-port 127.0.0.1:$port}
# shellcheck source=netns_relay.sh
source "$(dirname "$0")/netns_relay.sh"
relay_into_netns "$ns" "$port"
ip netns exec "$ns" bash -c "$cmd"
rc=$?
relay_stop
exit $rc
