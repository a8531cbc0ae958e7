# Sourced by bench/bundle_compare.sh and bench/bundle_revisions.sh on the big
# machine: PIN, the CPU list `pin` takes, one CPU per physical core first
# (by package and core id), the hyperthread siblings after them.
PRIM=() SEC=(); declare -A seen
while read -r cpu pkg core; do k="$pkg.$core"; if [ -z "${seen[$k]:-}" ]; then seen[$k]=1; PRIM+=("$cpu"); else SEC+=("$cpu"); fi
done < <(for d in /sys/devices/system/cpu/cpu[0-9]*; do c=${d##*cpu}; [ -f "$d/topology/core_id" ] || continue
  echo "$c $(cat "$d/topology/physical_package_id") $(cat "$d/topology/core_id")"; done | sort -k2,2n -k3,3n -k1,1n)
ALL=("${PRIM[@]}" "${SEC[@]}"); PIN=$(IFS=,; echo "${ALL[*]}")
