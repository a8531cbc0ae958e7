#!/usr/bin/env bash
# in_netns.sh TESTBED PROGRAM ARGS...: runs this Slurm task -- rank
# $SLURM_PROCID, one per node of a qmp-mesh testbed -- in namespace
# TESTBED-n$SLURM_PROCID, as if each namespace were a host of its own.
# The task's PMIx client reaches slurmstepd by TCP to 127.0.0.1 (PMIx 4 has
# no other transport), which is the root namespace's loopback: socat relays
# that port into the task's namespace (netns_relay.sh). (tests/netns
# loss_srun; a real cluster needs none of this.)
set -uo pipefail
ns=$1-n$SLURM_PROCID
shift
port=$(env | sed -n 's|^PMIX_SERVER_URI[0-9]*=.*tcp4://127\.0\.0\.1:\([0-9]*\).*|\1|p' | head -1)
[ -n "$port" ] || { echo "in_netns: no PMIx server on 127.0.0.1 in the environment" >&2; exit 1; }
# shellcheck source=netns_relay.sh
source "$(dirname "$0")/netns_relay.sh"
relay_into_netns "$ns" "$port"
ip netns exec "$ns" "$@"
rc=$?
relay_stop
exit $rc
