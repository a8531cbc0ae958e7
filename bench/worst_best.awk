# Summary of a comparison's interleaved rounds, for bench/compare_hpcc,
# compare_lammps and compare_qe: per figure, each library's worst .. best
# and meshmp's best against Open MPI's.
# Input lines: LIBRARY FIGURE VALUE (LIBRARY meshmp or openmpi), any order;
# figures print in the order first seen.
# Variables (awk -v): label, the first column's heading; fmt, the printf
# format of a value (default %.3f); lower, a regular expression of the
# figures where lower is better (default all, as for times; others, such
# as rates, are better higher); ratio, the last column's heading.
{ lib = $1; key = $2; v = $3 + 0
  down = lower == "" || key ~ lower
  if (!((lib, key) in best) || (down ? v < best[lib, key] : v > best[lib, key])) best[lib, key] = v
  if (!((lib, key) in worst) || (down ? v > worst[lib, key] : v < worst[lib, key])) worst[lib, key] = v
  if (!(key in seen)) { seen[key] = 1; order[++nk] = key; if (length(key) > kw) kw = length(key) } }
END {
  if (fmt == "") fmt = "%.3f"
  if (length(label) > kw) kw = length(label)
  for (i = 1; i <= nk; ++i) for (l = 1; l <= 2; ++l) {
    lib = l == 1 ? "meshmp" : "openmpi"; k = order[i]
    cell[lib, k] = sprintf(fmt " .. " fmt, worst[lib, k], best[lib, k])
    if (length(cell[lib, k]) > vw) vw = length(cell[lib, k]) }
  if (vw < 8) vw = 8
  printf "%-*s %-*s %-*s %s\n", kw, label, vw, "meshmp", vw, "Open MPI", ratio
  for (i = 1; i <= nk; ++i) { k = order[i]
    printf "%-*s %-*s %-*s %.2f\n", kw, k, vw, cell["meshmp", k], vw, cell["openmpi", k],
           best["meshmp", k] / best["openmpi", k] } }
