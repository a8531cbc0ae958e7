#!/usr/bin/env bash
# meshmp programs started by the cluster's own launchers through PMIx
# (issue 18) and PMI-2, no qmprun involved:
#   slurm    a real one-node Slurm 22.05 (slurm_local.sh): the QMP API test,
#            the MPI point-to-point and collective tests and the lattice-QCD
#            job under `srun --mpi=pmix -n 4` and `-n 8` (lqcd's results
#            identical to the same job under qmprun), an sbatch script with
#            -qmp-geom native, a config whose node list names this host;
#            refused clearly: a config naming other hosts, a config of
#            another size, srun without --mpi=pmix; a rank leaving early
#            fails the others' last fence with a message; a killed rank,
#            QMP_abort and MPI_Abort end the job through srun; qmprun in an
#            salloc shell starts the allocation's tasks
#            srun --mpi=pmi2: the QMP API, the MPI collectives, the
#            lattice-QCD job and MPI_Abort through PMI-2
#   openmpi  the same programs under Open MPI 4.1's `mpirun --oversubscribe
#            -n 4` (its own PMIx server), a killed rank, QMP_abort and
#            MPI_Abort; two programs as one job (`-n 1 P : -n 2 P`), each
#            rank's MPI_APPNUM (PMIX_APPNUM)
#   mpich    the same under MPICH 4.0's `mpiexec -n 4` (Hydra, through PMI-2)
# Every daemon the test starts is stopped by PID, whatever happens (trap);
# every job has a hard timeout; no process or segment may be left behind.
# Usage: launch_test.sh CASE QMPRUN -- QMP_API MPI_P2P MPI_COLL LQCD LINK_LOSS QMP_ABORT_PROBE
#          MPI_ABORT_PROBE EARLY_EXIT_PROBE MPI_APPNUM_PROBE PMI2_PROBE
set -uo pipefail
case_=$1 qmprun=$2
shift 3  # ... and "--"
qmp_api=$1 mpi_p2p=$2 mpi_coll=$3 lqcd=$4 link_loss=$5 abort_probe=$6 mpi_abort_probe=$7 early_exit=$8
appnum_probe=$9 pmi2_probe=${10}
here=$(dirname "$0")
unset TEST_PREMATURE_EXIT_FILE XML_OUTPUT_FILE GTEST_OUTPUT

if [ "$(id -u)" != 0 ]; then echo "launch_test: needs root (Slurm daemons, munged)"; exit 1; fi
export MESHMP_JOB_PREFIX="lt$(od -An -N5 -tx1 /dev/urandom | tr -d ' \n')"
work=$(mktemp -d)
chmod 755 "$work"
# shellcheck source=slurm_local.sh
source "$here/slurm_local.sh"
programs=("$qmp_api" "$mpi_p2p" "$mpi_coll" "$lqcd" "$link_loss" "$abort_probe" "$mpi_abort_probe" "$early_exit"
  "$appnum_probe" "$pmi2_probe")
cleanup() {
  local p exe left=0
  slurm_down || left=1
  for exe in "${programs[@]}"; do
    for p in $(pgrep -f "$exe"); do
      [ "$(readlink /proc/$p/exe 2>/dev/null)" = "$(readlink -f "$exe")" ] && { kill -KILL "$p"; left=1; }
    done
  done
  rm -rf "$work"
  if [ $left = 1 ]; then echo "launch_test: processes (or daemons) were left behind" >&2; exit 1; fi
  if ls /dev/shm | grep -q "^meshmp-$MESHMP_JOB_PREFIX"; then
    echo "launch_test: shared memory left behind" >&2
    rm -f /dev/shm/meshmp-"$MESHMP_JOB_PREFIX"*
    exit 1
  fi
}
trap cleanup EXIT
fail=0

# run DESCRIPTION COMMAND...: the command must succeed within 180 s.
run() {
  local what=$1; shift
  if ! timeout -k 5 180 "$@" > "$work/out" 2>&1; then
    echo "FAILED: $what"; tail -40 "$work/out"; fail=1
  else
    echo "ok: $what"
  fi
}
# refused DESCRIPTION EXPECTED-TEXT COMMAND...: the command must fail within
# 20 s, saying EXPECTED-TEXT.
refused() {
  local what=$1 text=$2; shift 2
  local t0=$SECONDS
  if timeout -k 5 60 "$@" > "$work/out" 2>&1 || ! grep -qF -- "$text" "$work/out" || [ $((SECONDS - t0)) -gt 20 ]; then
    echo "FAILED: $what was not refused clearly within 20 s:"; tail -20 "$work/out"; fail=1
  else
    echo "ok: $what refused: $(grep -m1 -F -- "$text" "$work/out")"
  fi
}
# mpmd DESCRIPTION COMMAND...: the command starts the appnum probe as two
# programs, 1 rank then 2; each rank must name its program (MPI_APPNUM).
mpmd() {
  local what=$1; shift
  run "$what" "$@"
  local want="rank 0 of 3: appnum 0, rank 0 of 1 in its program
rank 1 of 3: appnum 1, rank 0 of 2 in its program
rank 2 of 3: appnum 1, rank 1 of 2 in its program"
  if [ "$(grep '^rank ' "$work/out" | sort)" != "$want" ]; then
    echo "FAILED: $what: the ranks' programs:"; cat "$work/out"; fail=1
  fi
}
# pmi2 DESCRIPTION LAUNCHER...: the PMI-2 bootstrap used directly by 4
# ranks (values in several pieces, of every byte, empty ones); each must say
# it is ok.
pmi2() {
  local what=$1; shift
  run "$what" "$@" "$pmi2_probe"
  if [ "$(grep -c '^pmi2 probe: rank [0-3] of 4 ok, 4 on this host' "$work/out")" != 4 ]; then
    echo "FAILED: $what: not every rank's values came through:"; cat "$work/out"; fail=1
  fi
}
# The lattice-QCD job's results (every sweep's plaquette and link trace, the
# average, the CG's iterations and residual): all but the timings.
results() { awk '/^sweep/ {print $1, $2, $3, $5, $8} /^  plaquette|iterations, true residual/' "$1"; }
lqcd_args=(--lattice 4x4x4x8 --start hot --seed 7 --therm 2 --sweeps 2 --or-per-hb 1 --kappa 0.115 --cg-tol 1e-9)
# same_as_qmprun DESCRIPTION RANKS FILE [QMPRUN-ARGS -- LQCD-ARGS]: FILE holds
# lqcd's output under another launcher; it must match qmprun's run.
same_as_qmprun() {
  local what=$1 n=$2 file=$3; shift 3
  local qargs=() largs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do qargs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  largs=("$@")
  timeout -k 5 300 "$qmprun" --timeout 300 -n "$n" "${qargs[@]}" "$lqcd" "${lqcd_args[@]}" "${largs[@]}" \
    > "$work/ref.txt" 2>&1
  results "$work/ref.txt" > "$work/ref.plaq"
  results "$file" > "$work/got.plaq"
  if [ ! -s "$work/ref.plaq" ] || ! cmp -s "$work/ref.plaq" "$work/got.plaq"; then
    echo "FAILED: $what: lqcd results differ from qmprun's:"; diff "$work/ref.plaq" "$work/got.plaq"; tail -5 "$file"
    fail=1
  else
    echo "ok: $what: $(wc -l < "$work/got.plaq") lines of lqcd results identical to qmprun -n $n"
  fi
}
# killed_rank DESCRIPTION LAUNCHER...: rank 1 of link_loss is killed during
# its exchange with rank 0; the launcher must end the job with a non-zero
# status within 10 s, rank 0's exchange having failed (unless
# survivor_says=0: Hydra kills the other ranks at once), and nothing of the
# job may be left in /dev/shm (every rank held registered memory).
survivor_says=1
job_shm() { ls /dev/shm | grep "^meshmp-$MESHMP_JOB_PREFIX"; }
killed_rank() {
  local what=$1; shift
  timeout -k 5 120 "$@" "$link_loss" > "$work/out" 2>&1 &
  local job=$! victim="" p
  for _ in $(seq 300); do
    [ "$(grep -c 'rank [01] ready' "$work/out")" = 2 ] && break
    sleep 0.1
  done
  sleep 1
  for p in $(pgrep -f "$link_loss"); do
    [ "$(readlink /proc/$p/exe)" = "$(readlink -f "$link_loss")" ] || continue
    [ "$(tr '\0' '\n' < /proc/$p/environ | grep -E '^(PMIX_RANK|PMI_RANK)=' | cut -d= -f2)" = 1 ] && victim=$p
  done
  local t0; t0=$(date +%s%N)
  [ -n "$victim" ] && kill -KILL "$victim"
  wait $job; local rc=$?
  local took=$(( ($(date +%s%N) - t0) / 1000000 ))
  if [ -z "$victim" ] || [ $rc = 0 ] || [ $took -gt 10000 ] ||
    { [ $survivor_says = 1 ] && ! grep -q "rank 0: the exchange failed" "$work/out"; }; then
    echo "FAILED: $what (victim '$victim', status $rc after $took ms)"; tail -30 "$work/out"; fail=1
  elif [ -n "$(job_shm)" ]; then
    echo "FAILED: $what: left in /dev/shm:"; job_shm; rm -f /dev/shm/meshmp-"$MESHMP_JOB_PREFIX"*; fail=1
  else
    echo "ok: $what: the job ended after $took ms with status $rc; $(grep -m1 -e 'rank 0: the exchange failed' -e 'BAD TERMINATION' "$work/out")"
  fi
}

case $case_ in
slurm)
  slurm_up "$work/slurm" || exit 1
  srun=(srun --mpi=pmix --time=5)
  for n in 4 8; do
    geom=()
    [ $n = 8 ] && geom=(env MESHMP_GEOMETRY=2x2x2)  # the torus from the environment, as under qmprun
    run "srun -n $n: QMP API" "${srun[@]}" -n $n "${geom[@]}" "$qmp_api"
    run "srun -n $n: MPI point-to-point" "${srun[@]}" -n $n "$mpi_p2p"
    run "srun -n $n: MPI collectives" "${srun[@]}" -n $n "$mpi_coll"
    timeout -k 5 300 "${srun[@]}" -n $n "$lqcd" "${lqcd_args[@]}" > "$work/srun.txt" 2>&1
    same_as_qmprun "srun -n $n: lattice-QCD job" $n "$work/srun.txt"
  done
  # sbatch, as a user would write it: the torus from MESHMP_GEOMETRY, QMP's
  # machine from -qmp-geom native.
  cat > "$work/job.sh" <<JOB
#!/bin/bash
#SBATCH -n 8
export MESHMP_GEOMETRY=2x2x2
srun --mpi=pmix "$lqcd" -qmp-geom native ${lqcd_args[*]}
JOB
  if ! timeout -k 5 300 sbatch --wait -o "$work/sbatch.txt" "$work/job.sh" > "$work/out" 2>&1; then
    echo "FAILED: sbatch"; cat "$work/out" "$work/sbatch.txt"; fail=1
  else
    same_as_qmprun "sbatch -n 8, -qmp-geom native" 8 "$work/sbatch.txt" --geometry 2x2x2 -- -qmp-geom native
  fi
  # A config whose node list is this host, four times (a 2x2x1 torus).
  host=$(hostname)
  printf '[mesh]\ndims = [2, 2, 1]\nfabric = "switched"\n' > "$work/here.toml"
  for c in "0, 0, 0" "1, 0, 0" "0, 1, 0" "1, 1, 0"; do
    printf '[[node]]\nhost = "%s"\ncoords = [%s]\n' "$host" "$c" >> "$work/here.toml"
  done
  run "srun -n 4 with a config naming this host" env MESHMP_CONFIG="$work/here.toml" "${srun[@]}" -n 4 "$qmp_api"
  sed "s/\"$host\"/\"elsewhere\"/" "$work/here.toml" > "$work/elsewhere.toml"
  refused "a config naming other hosts" "node 0 is host \"elsewhere\" but PMIx started rank 0 on \"$host\"" \
    env MESHMP_CONFIG="$work/elsewhere.toml" "${srun[@]}" -n 4 "$lqcd" "${lqcd_args[@]}"
  refused "a config of 8 nodes for 4 ranks" "has 8 nodes but PMIx started 4 ranks" \
    env MESHMP_CONFIG="$(readlink -f "$here/../../configs/test-2x2x2.toml")" "${srun[@]}" -n 4 "$lqcd" "${lqcd_args[@]}"
  # srun without PMIx: every task a job of one -- allowed, but said.
  timeout -k 5 60 srun --mpi=none -n 2 "$lqcd" --lattice 4x4x4x4 --therm 0 --sweeps 1 > "$work/out" 2>&1
  if [ "$(grep -c 'SLURM_NTASKS=2 but no PMIx or PMI-2 server' "$work/out")" != 2 ] || [ "$(grep -c 'on 1 nodes' "$work/out")" != 2 ]; then
    echo "FAILED: srun without --mpi=pmix is not reported:"; cat "$work/out"; fail=1
  else
    echo "ok: srun without --mpi=pmix: $(grep -m1 'SLURM_NTASKS' "$work/out")"
  fi
  # A rank that leaves without finalizing: the others' last fence fails.
  timeout -k 5 60 "${srun[@]}" -n 4 "$early_exit" > "$work/out" 2>&1
  rc=$?
  if [ $rc = 0 ] || [ "$(grep -c 'finalize: PMIx_Fence failed.*a rank of the job has gone' "$work/out")" != 3 ]; then
    echo "FAILED: a failed fence (status $rc):"; cat "$work/out"; fail=1
  else
    echo "ok: a failed fence: $(grep -m1 'PMIx_Fence failed' "$work/out")"
  fi
  # Through PMI-2 (clusters whose MpiDefault is pmi2).
  pmi2 "srun --mpi=pmi2 -n 4: the PMI-2 bootstrap" srun --mpi=pmi2 --time=5 -n 4
  run "srun --mpi=pmi2 -n 4: QMP API" srun --mpi=pmi2 --time=5 -n 4 "$qmp_api"
  run "srun --mpi=pmi2 -n 4: MPI collectives" srun --mpi=pmi2 --time=5 -n 4 "$mpi_coll"
  timeout -k 5 300 srun --mpi=pmi2 --time=5 -n 4 "$lqcd" "${lqcd_args[@]}" > "$work/srun.txt" 2>&1
  same_as_qmprun "srun --mpi=pmi2 -n 4: lattice-QCD job" 4 "$work/srun.txt"
  refused "srun --mpi=pmi2: MPI_Abort on rank 1" "MPI_Abort(errorcode=9)" srun --mpi=pmi2 --time=5 -n 4 \
    "$mpi_abort_probe" abort 9
  killed_rank "srun: a killed rank" "${srun[@]}" -n 4
  refused "srun: QMP_abort on node 1" "aborts the job (code 7)" "${srun[@]}" -n 4 "$abort_probe" abort 7
  refused "srun: MPI_Abort on rank 1" "MPI_Abort(errorcode=9)" "${srun[@]}" -n 4 "$mpi_abort_probe" abort 9
  # meshmp's mpirun typed in an allocation of this host: its tasks are the
  # default -n.
  run "salloc -n 3 qmprun PROGRAM" salloc -n 3 --time=5 "$qmprun" "$appnum_probe"
  if [ "$(grep -c 'of 3: appnum 0' "$work/out")" != 3 ]; then
    echo "FAILED: salloc -n 3 qmprun did not start the allocation's 3 tasks:"; cat "$work/out"; fail=1
  fi
  ;;
openmpi)
  mpirun=(mpirun.openmpi --allow-run-as-root --oversubscribe -n 4)
  run "mpirun -n 4: QMP API" "${mpirun[@]}" "$qmp_api"
  run "mpirun -n 4: MPI point-to-point" "${mpirun[@]}" "$mpi_p2p"
  run "mpirun -n 4: MPI collectives" "${mpirun[@]}" "$mpi_coll"
  timeout -k 5 300 "${mpirun[@]}" "$lqcd" "${lqcd_args[@]}" > "$work/mpirun.txt" 2>&1
  same_as_qmprun "mpirun -n 4: lattice-QCD job" 4 "$work/mpirun.txt"
  killed_rank "mpirun: a killed rank" "${mpirun[@]}"
  refused "mpirun: QMP_abort on node 1" "aborts the job (code 7)" "${mpirun[@]}" "$abort_probe" abort 7
  refused "mpirun: MPI_Abort on rank 1" "MPI_Abort(errorcode=9)" "${mpirun[@]}" "$mpi_abort_probe" abort 9
  mpmd "mpirun -n 1 P : -n 2 P: MPI_APPNUM" mpirun.openmpi --allow-run-as-root --oversubscribe -n 1 "$appnum_probe" : \
    -n 2 "$appnum_probe"
  ;;
mpich)
  mpiexec=(mpiexec.mpich -n 4)
  pmi2 "mpiexec.mpich -n 4: the PMI-2 bootstrap" "${mpiexec[@]}"
  run "mpiexec.mpich -n 4: QMP API" "${mpiexec[@]}" "$qmp_api"
  run "mpiexec.mpich -n 4: MPI point-to-point" "${mpiexec[@]}" "$mpi_p2p"
  run "mpiexec.mpich -n 4: MPI collectives" "${mpiexec[@]}" "$mpi_coll"
  timeout -k 5 300 "${mpiexec[@]}" "$lqcd" "${lqcd_args[@]}" > "$work/mpiexec.txt" 2>&1
  same_as_qmprun "mpiexec.mpich -n 4: lattice-QCD job" 4 "$work/mpiexec.txt"
  survivor_says=0 killed_rank "mpiexec.mpich: a killed rank" "${mpiexec[@]}"
  refused "mpiexec.mpich: QMP_abort on node 1" "aborts the job (code 7)" "${mpiexec[@]}" "$abort_probe" abort 7
  refused "mpiexec.mpich: MPI_Abort on rank 1" "MPI_Abort(errorcode=9)" "${mpiexec[@]}" "$mpi_abort_probe" abort 9
  mpmd "mpiexec.mpich -n 1 P : -n 2 P: MPI_APPNUM" mpiexec.mpich -n 1 "$appnum_probe" : -n 2 "$appnum_probe"
  ;;
*)
  echo "launch_test: unknown case $case_"; exit 2 ;;
esac
exit $fail
