// The simulated step counts of OPT and SDF scatter (routing/
// scatter_schedule.h, seed 003 §5.2) on the paper's layouts and ours, for
// the README (not a test; tests/unit/scatter_schedule_test checks them).
// Every root is simulated; the table gives the longest.
// Output: layout, nodes p, links at the root k, the bound
// max{ceil((p-1)/k), max distance}, OPT steps, SDF steps, SDF/OPT.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "routing/scatter_schedule.h"

using namespace meshmp;

int main() {
  std::printf("| layout | p | k | bound | OPT steps | SDF steps | SDF/OPT |\n|---|---:|---:|---:|---:|---:|---:|\n");
  for (const std::vector<int>& dims : std::vector<std::vector<int>>{
           {2, 2, 2}, {3, 3, 3}, {4, 4, 4}, {8, 8}, {4, 8, 8}, {6, 8, 8}}) {
    const mesh::Torus t(dims);
    int opt = 0, sdf = 0, bound = 0;
    for (int root = 0; root < t.size(); ++root) {
      opt = std::max(opt, routing::simulate_scatter(t, routing::opt_scatter(t, root)));
      sdf = std::max(sdf, routing::simulate_scatter(t, routing::sdf_scatter(t, root)));
      bound = std::max(bound, routing::scatter_lower_bound(t, root));
    }
    std::printf("| %s | %d | %zu | %d | %d | %d | %.2f |\n", t.to_string().c_str(), t.size(),
                routing::links_of(t, 0).size(), bound, opt, sdf, static_cast<double>(sdf) / opt);
  }
  return 0;
}
