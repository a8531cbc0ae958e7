#!/usr/bin/env bash
# meshmp at this checkout ("new") against an earlier meshmp ("old"), Open MPI
# 4.1.4 and USQCD QMP on a bigger machine that has no MPI, in one short run:
# MPI point-to-point and collectives (../shared/bench-16core/p2p.c, coll.c),
# the QMP collectives (bench/qmp_collectives.c) and the QMP neighbour gather
# (bench/qmp_gather.c), the halo exchange by MPI_Neighbor_alltoall
# (bench/mpi_neighbor.c), the first collectives after start and after an
# idle second (bench/mpi_warmup.c, 16 ranks; meshmp also with ranks that
# never sleep), and MPI_Barrier alone on 4, 8 and 16 ranks
# (bench/mpi_personalized.c; the new meshmp under each MESHMP_BARRIER,
# issue 31), and the cost of a routed hop
# (bench/mpi_pingpong.c from rank 0 to rank 1, 2, 3 and 6 of a line of 7,
# bench/line-7.toml: the new meshmp's forwarding agent relays, an old one
# without it links directly), interleaved, the order rotating per round,
# every rank pinned to its own core.
# Here (the 2-core machine):
#   bazel run -c opt //:install -- --prefix /tmp/mm_new
#   (cd WORKTREE_OF_BASE && bazel run -c opt //:install -- --prefix /tmp/mm_old)
#   MESHMP_PREFIX=/tmp/mm_new BUNDLE=.bundle ../shared/bench-16core/build.sh
#   bench/bundle_compare.sh add /tmp/mm_new /tmp/mm_old .bundle
# There (the bundle carried along; results in $OUT/raw.txt):
#   bash .bundle/bundle_compare.sh run 5
# Here again: python3 bench/bundle_summary.py raw.txt   (best and median, ratios)
set -u
if [ "${1:-}" = add ]; then
  new=$2 old=$3 dc=$4 here=$(cd "$(dirname "$0")/.." && pwd)
  anchor=${USQCD_QMP:-$here/../shared/anchors/usqcd-qmp}
  set -e
  for v in new old; do
    mm=$new sfx=""
    [ $v = old ] && mm=$old sfx=_old
    libs=("$mm/lib/libmeshmp.a" -static-libstdc++ -static-libgcc -lstdc++ -lm -lrt -lpthread -lunistring -lsodium
          -L/usr/lib/x86_64-linux-gnu/pmix2/lib -lpmix)
    for p in p2p coll; do cc -O2 -I"$mm/include" "$here/../shared/bench-16core/$p.c" -o "$dc/bin/${p}_meshmp$sfx" "${libs[@]}"; done
    cc -O2 -I"$mm/include" "$here/bench/qmp_gather.c" -o "$dc/bin/gather_meshmp$sfx" "${libs[@]}"
    cc -O2 -I"$mm/include" "$here/bench/qmp_collectives.c" -o "$dc/bin/qmpcoll_meshmp$sfx" "${libs[@]}"
    cc -O2 -I"$mm/include" "$here/bench/mpi_warmup.c" -o "$dc/bin/warm_meshmp$sfx" "${libs[@]}"
    cc -O2 -I"$mm/include" "$here/bench/mpi_pingpong.c" -o "$dc/bin/hop_meshmp$sfx" "${libs[@]}"
    cp "$mm/bin/qmprun" "$dc/bin/qmprun$sfx"  # each build with its own launcher
  done
  cc -O2 -I/usr/lib/x86_64-linux-gnu/openmpi/include -I"$anchor/include" "$here/bench/qmp_collectives.c" \
    "$anchor/lib/libqmp.a" -o "$dc/bin/qmpcoll_usqcd" -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi
  # A program for the new meshmp only and for Open MPI: new_and_ompi SOURCE NAME.
  new_and_ompi() {
    rm -f "$dc/bin/${2}_meshmp_old"
    cc -O2 -I"$new/include" "$1" -o "$dc/bin/${2}_meshmp" "$new/lib/libmeshmp.a" \
      -static-libstdc++ -static-libgcc -lstdc++ -lm -lrt -lpthread -lunistring -lsodium \
      -L/usr/lib/x86_64-linux-gnu/pmix2/lib -lpmix
    cc -O2 -I/usr/lib/x86_64-linux-gnu/openmpi/include "$1" -o "$dc/bin/${2}_ompi" \
      -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi
  }
  # The halo exchange by neighbourhood collective (MPI-3; an old meshmp may
  # not have MPI_Neighbor_alltoall).
  new_and_ompi "$here/bench/mpi_neighbor.c" nbr
  # MPI_Barrier alone: MESHMP_BARRIER chooses the new meshmp's.
  new_and_ompi "$here/bench/mpi_personalized.c" bar
  cc -O2 -I/usr/lib/x86_64-linux-gnu/openmpi/include "$here/bench/mpi_warmup.c" -o "$dc/bin/warm_ompi" \
    -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi
  strip "$dc"/bin/* 2>/dev/null || true
  # qmprun's libraries that build.sh's Open MPI runtime does not carry
  # (elfutils' libelf: the check for programs of another MPI); libhwloc is
  # Open MPI's too.
  cp -L /usr/lib/x86_64-linux-gnu/libelf.so.1 "$dc/root/usr/lib/x86_64-linux-gnu/"
  cp "$0" "$here/bench/bundle_pin.sh" "$here/bench/line-7.toml" "$dc/"
  exit 0
fi
[ "${1:-}" = run ] || { echo "usage: bundle_compare.sh add NEW_PREFIX OLD_PREFIX BUNDLE | run [ROUNDS]" >&2; exit 2; }
shift
T0=$(date +%s); ROUNDS=${1:-3}; DEADLINE=${DEADLINE:-330}; OUT=${OUT:-/tmp/devout}
mkdir -p "$OUT"; source "$(dirname "$0")/env.sh"; B=$DC/bin; RAW=$OUT/raw.txt; LOG=$OUT/log.txt; : > "$RAW"
left() { echo $((DEADLINE - ($(date +%s) - T0))); }
say() { echo "[$(( $(date +%s) - T0 ))s] $*" | tee -a "$LOG"; }
source "$(dirname "$0")/bundle_pin.sh"
say "cpus $(nproc); physical cores ${#PRIM[@]}; pin $PIN"
{ lscpu; uptime; } > "$OUT/env.txt" 2>&1
mm() { local n=$1 g=$2; shift 2; timeout 60 "$B/qmprun$QSFX" -n "$n" $g "$B/pin" "$PIN" "$@"; }
om() { local n=$1; shift 2; timeout 60 "${OMPIRUN[@]}" -np "$n" -H "localhost:$n" --bind-to none --mca mpi_yield_when_idle 0 "$B/pin" "$PIN" "$@"; }
geo() { case $1 in 16) echo "--geometry 2x2x2x2" ;; 8) echo "--geometry 2x2x2" ;; 4) echo "--geometry 2x2" ;; 2) echo "--geometry 2" ;; esac; }
rec() { local tag=$1; shift; echo "### $tag :: $*" >> "$LOG"; "$@" > /tmp/run.out 2>&1; local rc=$?
  cat /tmp/run.out >> "$LOG"; grep -E "^(p2p|coll|gather|alloc|pingpong bytes=(8|1048576) )" /tmp/run.out | sed "s/^/$tag /" >> "$RAW"
  [ $rc = 0 ] || say "FAILED rc=$rc: $tag"; }
run_lib() {  # lib round
  local l=$1 r=$2 n
  case $l in
    new) sfx="" QSFX="" ;; old) sfx="_old" QSFX="_old" ;;
  esac
  if [ $l = ref ]; then
    for n in 16 8; do rec "R=$r lib=ompi cfg=coll n=$n" om $n x "$B/coll_ompi" 1; done
    rec "R=$r lib=ompi cfg=p2p n=2" om 2 x "$B/p2p_ompi" 1
    for n in 2 8 16; do rec "R=$r lib=usqcd cfg=qmpcoll n=$n" om $n x "$B/qmpcoll_usqcd" 5000; done
    for n in 8 16; do rec "R=$r lib=usqcd cfg=gather n=$n" om $n x "$B/gather_usqcd" 2000; done
    [ -x "$B/nbr_ompi" ] && rec "R=$r lib=ompi cfg=nbr n=8" om 8 x "$B/nbr_ompi" 1
    [ -x "$B/warm_ompi" ] && rec "R=$r lib=ompi cfg=warm n=16" om 16 x "$B/warm_ompi"
    for n in 4 8 16; do  # one run, its lines under each cfg so the summary pairs them
      [ -x "$B/bar_ompi" ] || continue
      rec "R=$r lib=ompi cfg=bar_rdma n=$n" om $n x "$B/bar_ompi" 5000 barrier
      for b in combine flat auto; do
        grep "^R=$r lib=ompi cfg=bar_rdma n=$n " "$RAW" | sed "s/cfg=bar_rdma/cfg=bar_$b/" >> "$RAW.more"
      done
      cat "$RAW.more" >> "$RAW"; rm -f "$RAW.more"
    done
  else
    for n in 16 8; do rec "R=$r lib=$l cfg=coll n=$n" mm $n "" "$B/coll_meshmp$sfx" 1; done
    rec "R=$r lib=$l cfg=p2p n=2" mm 2 "" "$B/p2p_meshmp$sfx" 1
    # Rendezvous through the slots (two copies) instead of process_vm_writev:
    # 2-3x faster from 16 KiB to 1 MiB on the 2-core VM (docs/performance.md).
    MESHMP_SHM_CMA=0 rec "R=$r lib=$l cfg=p2p_nocma n=2" mm 2 "" "$B/p2p_meshmp$sfx" 1
    for n in 2 8 16; do rec "R=$r lib=$l cfg=qmpcoll n=$n" mm $n "$(geo $n)" "$B/qmpcoll_meshmp$sfx" 5000; done
    for n in 8 16; do rec "R=$r lib=$l cfg=gather n=$n" mm $n "$(geo $n)" "$B/gather_meshmp$sfx" 2000; done
    [ -x "$B/nbr_meshmp$sfx" ] && rec "R=$r lib=$l cfg=nbr n=8" mm 8 "$(geo 8)" "$B/nbr_meshmp$sfx" 1
    [ -x "$B/warm_meshmp$sfx" ] && rec "R=$r lib=$l cfg=warm n=16" mm 16 "" "$B/warm_meshmp$sfx"
    # ... and with ranks that never sleep (do the sleeps make the warm-up?)
    [ -x "$B/warm_meshmp$sfx" ] && MESHMP_SPIN=1000000000 rec "R=$r lib=$l cfg=warm_nosleep n=16" mm 16 "" "$B/warm_meshmp$sfx"
    for n in 4 8 16; do for b in rdma combine flat auto; do
      [ -x "$B/bar_meshmp$sfx" ] && MESHMP_BARRIER=$b rec "R=$r lib=$l cfg=bar_$b n=$n" mm $n "" "$B/bar_meshmp$sfx" 5000 barrier
    done; done
    for k in 1 2 3 6; do
      [ -x "$B/hop_meshmp$sfx" ] && MESHMP_CONFIG=$DC/line-7.toml rec "R=$r lib=$l cfg=hop$k n=7" mm 7 "" "$B/hop_meshmp$sfx" 2000 $k
    done
  fi
}
orders=("new old ref" "ref new old" "old ref new")
for r in $(seq 1 "$ROUNDS"); do
  for l in ${orders[$(( (r-1) % 3 ))]}; do
    [ "$(left)" -gt 25 ] || { say "deadline: stop"; break 2; }
    run_lib $l $r
  done
  say "round $r done"
done
say "all done; $(wc -l < "$RAW") raw lines"; ls /dev/shm | head -3 >> "$LOG"
