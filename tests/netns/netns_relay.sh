# netns_relay.sh, sourced: relay_into_netns NS PORT makes a TCP port on the
# root namespace's loopback reachable as 127.0.0.1:PORT inside network
# namespace NS -- a socat there listens on it and relays through a Unix
# socket to a socat outside that connects to the port -- and returns once
# the inside end listens (at most 5 s); relay_stop ends both. For
# launchers' servers that a rank or proxy in a testbed namespace must reach
# (in_netns.sh: PMIx's; hydra_netns.sh: MPICH's mpiexec's). A real cluster
# needs none of this.
relay_into_netns() {
  local ns=$1 port=$2
  relay_sock=$(mktemp -u "${TMPDIR:-/tmp}/meshmp-relay-XXXXXXXX")
  socat "UNIX-LISTEN:$relay_sock,fork" "TCP:127.0.0.1:$port" &
  relay_outside=$!
  ip netns exec "$ns" socat "TCP-LISTEN:$port,bind=127.0.0.1,fork,reuseaddr" "UNIX-CONNECT:$relay_sock" &
  relay_inside=$!
  for _ in $(seq 100); do
    [ -S "$relay_sock" ] && ip netns exec "$ns" ss -Htln "sport = :$port" | grep -q . && break
    sleep 0.05
  done
}
relay_stop() {
  kill "$relay_inside" "$relay_outside" 2>/dev/null
  wait 2>/dev/null
  rm -f "$relay_sock"
}
