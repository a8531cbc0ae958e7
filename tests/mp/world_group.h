// The world as a collectives::Group for the collective tests, and the
// critical path of the collective just finished, maximum over the group.
#pragma once

#include <algorithm>
#include <vector>

#include "collectives/collectives.h"
#include "tests/mp/rank_main.h"

namespace meshmp::testing {

/// Every rank of the job, in rank order, on collective context `context`;
/// with the job's torus unless `as_torus` is false.
inline collectives::Group world_group(std::uint32_t context, bool as_torus = true) {
  mesh::Engine& e = engine();
  collectives::Group g;
  g.engine = &e;
  g.context = context;
  g.me = e.rank();
  for (int r = 0; r < e.size(); ++r) g.ranks.push_back(r);
  if (as_torus) g.torus = e.torus();
  return g;
}

/// Largest collectives::last_critical_path() over the group for the
/// collective just finished, collected by the direct gather (which reads
/// nothing it is measuring) and a broadcast.
inline int max_critical_path(const collectives::Group& g) {
  int mine = collectives::last_critical_path();
  std::vector<int> all(g.size());
  EXPECT_EQ(collectives::gather(g, &mine, all.data(), sizeof(int), 0, collectives::ScatterAlgorithm::kDirect),
            mesh::Error::kOk);
  int m = *std::max_element(all.begin(), all.end());
  EXPECT_EQ(collectives::broadcast(g, &m, sizeof m, 0), mesh::Error::kOk);
  return m;
}

}  // namespace meshmp::testing
