#include "routing/sdf.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace meshmp::routing {

namespace {
void check_rank(const Torus& t, int r, const char* what) {
  if (r < 0 || r >= t.size())
    throw std::out_of_range(std::string("routing: ") + what + " rank " + std::to_string(r) + " is outside " +
                            t.to_string());
}
}  // namespace

std::vector<int> remaining_steps(const Torus& t, int from, int to) {
  check_rank(t, from, "source");
  check_rank(t, to, "destination");
  const std::vector<int> a = t.coords(from), b = t.coords(to);
  std::vector<int> steps(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const int n = t.dims()[i];
    int d = b[i] - a[i];
    if (t.periodic()[i]) {
      d = ((d % n) + n) % n;      // 0..n-1, the + way
      if (d > n - d) d -= n;      // the - way is shorter; a tie stays +
    }
    steps[i] = d;
  }
  return steps;
}

std::optional<Direction> sdf_next_hop(const Torus& t, int from, int to) {
  const std::vector<int> steps = remaining_steps(t, from, to);
  int best = -1;
  for (int i = 0; i < static_cast<int>(steps.size()); ++i)
    if (steps[i] != 0 && (best < 0 || std::abs(steps[i]) < std::abs(steps[best]))) best = i;
  if (best < 0) return std::nullopt;
  return Direction{best, steps[best] > 0 ? +1 : -1};
}

std::vector<int> sdf_route(const Torus& t, int from, int to) {
  std::vector<int> route{from};
  for (int at = from; at != to;) {
    at = t.neighbour(at, *sdf_next_hop(t, at, to));
    route.push_back(at);
  }
  return route;
}

}  // namespace meshmp::routing
