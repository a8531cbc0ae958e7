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
// The signed steps from coordinate a to b on an axis of size n: on a
// periodic axis the shorter way round, a tie going +.
int axis_steps(int a, int b, int n, bool periodic) {
  int d = b - a;
  if (periodic) {
    d = ((d % n) + n) % n;  // 0..n-1, the + way
    if (d > n - d) d -= n;  // the - way is shorter; a tie stays +
  }
  return d;
}
}  // namespace

// Axis by axis on the rank digits in place (no coordinate vectors): route
// tables and schedules ask it for every pair of nodes.
std::optional<Direction> sdf_next_hop(const Torus& t, int from, int to) {
  check_rank(t, from, "source");
  check_rank(t, to, "destination");
  int best = -1, best_steps = 0;
  for (int i = 0; i < t.ndims(); ++i) {
    const int n = t.dims()[i];
    const int steps = axis_steps(from % n, to % n, n, t.periodic()[i]);
    from /= n;
    to /= n;
    if (steps != 0 && (best < 0 || std::abs(steps) < std::abs(best_steps))) best = i, best_steps = steps;
  }
  if (best < 0) return std::nullopt;
  return Direction{best, best_steps > 0 ? +1 : -1};
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
