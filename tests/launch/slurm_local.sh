# A real one-node Slurm 22.05 (slurmctld, slurmd) with its own munged, all
# state under one directory (../shared/design/SLURM_LOCAL.md). Sourced by
# the launch tests and bench/compare_startup; needs root and Debian's slurm-wlm and
# munge (tools/setup).
#   slurm_up DIR   starts munged, slurmctld and slurmd with DIR as their home;
#                  exports SLURM_CONF; returns non-zero (daemon logs on
#                  stderr) if the node is not idle within 30 s
#   slurm_down     stops the daemons slurm_up started, by PID, and reaps
#                  them; non-zero if one is still running
# The ports are free ones chosen at random, so a system Slurm and other
# test runs are left alone.

slurm_pids=()

# Waits up to 10 s for a daemon's file (socket, pid file) to appear.
slurm_wait_for() {
  for _ in $(seq 100); do
    [ -e "$1" ] && return 0
    sleep 0.1
  done
  echo "slurm_up: no $1 after 10 s" >&2
  return 1
}

# A TCP port no socket uses, from 20000..32767: below the kernel's
# ephemeral range (32768..60999), where any outgoing connection -- of the
# other tests running beside this one -- may hold a port for a while and
# make the daemon's bind fail with "Address already in use".
slurm_free_port() {
  local p
  while :; do
    p=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12768 ))
    ss -Htan "sport = :$p" | grep -q . || { echo $p; return; }
  done
}

slurm_up() {
  local dir=$1 host
  host=$(hostname)
  mkdir -p "$dir/munge/key.d" "$dir/state" "$dir/spool" "$dir/log"
  chmod 755 "$dir" "$dir/munge"
  # munged: its socket directory must be reachable by all, its key private.
  head -c 1024 /dev/urandom > "$dir/munge/key.d/key"
  chown -R munge:munge "$dir/munge"
  chmod 700 "$dir/munge/key.d"
  chmod 400 "$dir/munge/key.d/key"
  # Each daemon in the foreground, a child of this shell: stopped by its PID
  # and reaped by wait, so not even a zombie stays.
  setpriv --reuid=munge --regid=munge --init-groups munged -F --key-file="$dir/munge/key.d/key" \
    --socket="$dir/munge/sock" --pid-file="$dir/munge/pid" --log-file="$dir/munge/key.d/log" \
    --seed-file="$dir/munge/key.d/seed" > "$dir/log/munged.out" 2>&1 &
  slurm_pids+=($!)
  slurm_wait_for "$dir/munge/sock" || { cat "$dir/munge/key.d/log" >&2; return 1; }
  munge -S "$dir/munge/sock" -n | unmunge -S "$dir/munge/sock" | grep -q "STATUS: *Success" ||
    { echo "slurm_up: munge does not work" >&2; return 1; }
  cat > "$dir/slurm.conf" <<CONF
ClusterName=meshmptest
SlurmctldHost=$host
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
ReturnToService=2
SlurmdParameters=config_overrides
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
PlugStackConfig=$dir/plugstack.conf
NodeName=$host CPUs=16 RealMemory=8000 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
  : > "$dir/plugstack.conf"
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -D -f "$SLURM_CONF" > "$dir/log/slurmctld.out" 2>&1 &
  local ctld=$!
  slurm_pids+=($ctld)
  slurm_wait_for "$dir/slurmctld.pid" || { cat "$dir/log/slurmctld.log" >&2; return 1; }
  slurmd -D -f "$SLURM_CONF" > "$dir/log/slurmd.out" 2>&1 &
  slurm_pids+=($!)
  # 30 s in all: sinfo itself waits up to its timeout for a slurmctld that
  # does not answer, so each call is bounded, and a slurmctld that has
  # exited (a port taken after all) ends the wait at once.
  local end=$((SECONDS + 30))
  while [ $SECONDS -lt $end ]; do
    if ! kill -0 "$ctld" 2>/dev/null; then
      echo "slurm_up: slurmctld exited:" >&2
      tail -5 "$dir/log/slurmctld.log" >&2
      return 1
    fi
    [ "$(timeout 5 sinfo -h -o %t 2>/dev/null)" = idle ] && return 0
    sleep 0.1
  done
  echo "slurm_up: the node is not idle after 30 s:" >&2
  sinfo >&2
  tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2
  return 1
}

slurm_down() {
  local pid i
  # slurmd first (it ends its job steps), then slurmctld, then munged.
  for (( i = ${#slurm_pids[@]} - 1; i >= 0; i-- )); do
    pid=${slurm_pids[$i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done || true
    kill -KILL "$pid" 2>/dev/null || true  # (safe under set -e: it has usually exited)
    wait "$pid" 2>/dev/null || true
  done
  local left=0
  for pid in "${slurm_pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      echo "slurm_down: daemon $pid is still running" >&2
      left=1
    fi
  done
  slurm_pids=()
  return $left
}
