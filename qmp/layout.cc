#include "qmp/layout.h"

namespace meshmp::qmp {

std::optional<std::vector<int>> layout_nodes(const std::vector<int>& lattice, int nodes) {
  std::vector<int> per_node(lattice), split(lattice.size(), 1);
  for (int left = nodes; left > 1;) {
    int p = left;  // the largest prime factor of `left`
    for (int f = 2; f * f <= p;)
      if (p % f == 0) p /= f;
      else ++f;
    int best = -1;
    for (int i = 0; i < static_cast<int>(per_node.size()); ++i) {
      if (per_node[i] % p != 0) continue;
      if (best < 0 || per_node[i] > per_node[best] || (per_node[i] == per_node[best] && split[best] == 1)) best = i;
    }
    if (best < 0) return std::nullopt;
    per_node[best] /= p;
    split[best] *= p;
    left /= p;
  }
  return split;
}

}  // namespace meshmp::qmp
