#include "mesh/geometry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <tuple>

namespace meshmp::mesh {

char axis_letter(int axis) {
  static constexpr char kLetters[kMaxDims + 1] = "xyztuv";
  return (axis >= 0 && axis < kMaxDims) ? kLetters[axis] : '?';
}

Torus::Torus(std::vector<int> dims, std::vector<bool> periodic)
    : dims_(std::move(dims)), periodic_(std::move(periodic)) {
  if (dims_.empty() || static_cast<int>(dims_.size()) > kMaxDims)
    throw std::invalid_argument("Torus: dims must have 1.." + std::to_string(kMaxDims) +
                                " entries, got " + std::to_string(dims_.size()));
  if (periodic_.empty()) periodic_.assign(dims_.size(), true);
  if (periodic_.size() != dims_.size())
    throw std::invalid_argument("Torus: periodic has " + std::to_string(periodic_.size()) +
                                " entries for " + std::to_string(dims_.size()) + " dims");
  long long n = 1;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] < 1)
      throw std::invalid_argument("Torus: dims[" + std::to_string(i) + "] = " +
                                  std::to_string(dims_[i]) + " must be >= 1");
    n *= dims_[i];
    if (n > (1 << 24)) throw std::invalid_argument("Torus: more than 2^24 nodes");
  }
  size_ = static_cast<int>(n);
}

namespace {

void check_rank(const char* fn, int r, int size) {
  if (r < 0 || r >= size)
    throw std::out_of_range(std::string(fn) + ": rank " + std::to_string(r) + " not in [0, " +
                            std::to_string(size) + ")");
}

}  // namespace

std::vector<int> Torus::coords(int r) const {
  check_rank("Torus::coords", r, size_);
  std::vector<int> c(dims_.size());
  for (size_t i = 0; i < dims_.size(); ++i) {
    c[i] = r % dims_[i];
    r /= dims_[i];
  }
  return c;
}

int Torus::rank(const std::vector<int>& c) const {
  if (c.size() != dims_.size())
    throw std::invalid_argument("Torus::rank: " + std::to_string(c.size()) +
                                " coordinates for a " + std::to_string(dims_.size()) + "-D torus");
  int r = 0;
  for (int i = ndims() - 1; i >= 0; --i) {
    if (c[i] < 0 || c[i] >= dims_[i])
      throw std::out_of_range("Torus::rank: coordinate " + std::to_string(i) + " = " +
                              std::to_string(c[i]) + " not in [0, " + std::to_string(dims_[i]) + ")");
    r = r * dims_[i] + c[i];
  }
  return r;
}

// neighbour and hop_distance work on the rank digits in place (no coordinate
// vectors): route tables and scatter schedules call them p^2 times.
int Torus::neighbour(int r, int axis, int sign) const {
  if (axis < 0 || axis >= ndims())
    throw std::out_of_range("Torus::neighbour: axis " + std::to_string(axis));
  if (sign != 1 && sign != -1)
    throw std::invalid_argument("Torus::neighbour: direction must be +1 or -1, got " +
                                std::to_string(sign));
  check_rank("Torus::neighbour", r, size_);
  int stride = 1;
  for (int i = 0; i < axis; ++i) stride *= dims_[i];
  const int x = r / stride % dims_[axis];
  int to = x + sign;
  if (to < 0 || to >= dims_[axis]) {
    if (!periodic_[axis]) return -1;
    to = (to + dims_[axis]) % dims_[axis];
  }
  return r + (to - x) * stride;
}

int Torus::hop_distance(int a, int b) const {
  check_rank("Torus::hop_distance", a, size_);
  check_rank("Torus::hop_distance", b, size_);
  int hops = 0;
  for (int i = 0; i < ndims(); ++i) {
    const int d = std::abs(a % dims_[i] - b % dims_[i]);
    hops += periodic_[i] ? std::min(d, dims_[i] - d) : d;
    a /= dims_[i];
    b /= dims_[i];
  }
  return hops;
}

std::string Torus::to_string() const {
  std::string s;
  for (int i = 0; i < ndims(); ++i) {
    if (i) s += 'x';
    s += std::to_string(dims_[i]);
    if (!periodic_[i]) s += 'o';
  }
  return s;
}

namespace {

// Branch and bound over the ways to write n as a product of k factors in
// non-increasing order, for the most even one (see balanced_dims).
class EvenSplit {
 public:
  EvenSplit(int n, int k) : k_(k), cur_(k) {
    for (int d = 1; static_cast<long long>(d) * d <= n; ++d)
      if (n % d == 0) {
        divisors_.push_back(d);
        if (d != n / d) divisors_.push_back(n / d);
      }
    std::sort(divisors_.begin(), divisors_.end());
    place(0, n, n);
  }
  std::vector<int> best() const { return best_; }

 private:
  // (largest - smallest, -smallest, sum of squares): smaller is more even.
  using Key = std::tuple<long long, long long, long long>;
  static Key key(const std::vector<int>& v) {
    long long sq = 0;
    for (int x : v) sq += static_cast<long long>(x) * x;
    return {v.front() - v.back(), -v.back(), sq};
  }
  // Largest integer r with r^k <= m.
  static long long root(long long m, int k) {
    long long r = static_cast<long long>(std::pow(static_cast<double>(m), 1.0 / k));
    auto pow_le = [&](long long x) {
      long long p = 1;
      for (int i = 0; i < k; ++i)
        if ((p *= x) > m) return false;
      return true;
    };
    while (r > 1 && !pow_le(r)) --r;
    while (pow_le(r + 1)) ++r;
    return r;
  }
  // Positions i.. still to fill with factors of m, none above `cap`.
  void place(int i, int m, int cap) {
    if (i == k_ - 1) {
      if (m > cap) return;
      cur_[i] = m;
      if (best_.empty() || key(cur_) < best_key_ || (key(cur_) == best_key_ && cur_ > best_)) {
        best_ = cur_;
        best_key_ = key(cur_);
      }
      return;
    }
    const int left = k_ - i;
    for (int d : divisors_) {
      if (d > cap) break;
      if (m % d != 0) continue;
      // d is the largest of the `left` factors still to place: d^left >= m.
      long long power = 1;
      for (int j = 0; j < left && power < m; ++j) power *= d;
      if (power < m) continue;
      // The smallest factor is at most the (left-1)-th root of the rest; the
      // bound on max - min only grows with d, so stop once it is too large.
      const long long smallest_max = left > 1 ? root(m / d, left - 1) : d;
      if (!best_.empty() && (i == 0 ? d : cur_[0]) - smallest_max > std::get<0>(best_key_)) break;
      cur_[i] = d;
      place(i + 1, m / d, d);
    }
  }

  int k_;
  std::vector<int> divisors_, cur_, best_;
  Key best_key_{};
};

}  // namespace

std::vector<int> balanced_dims(int n, int ndims) {
  if (n < 1) throw std::invalid_argument("balanced_dims: n = " + std::to_string(n) + " must be >= 1");
  if (ndims < 1) throw std::invalid_argument("balanced_dims: ndims = " + std::to_string(ndims) + " must be >= 1");
  return EvenSplit(n, ndims).best();
}

std::vector<int> parse_dims(const std::string& text) {
  std::vector<int> dims;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    int v = 0;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc() || v < 1)
      throw std::invalid_argument("geometry '" + text + "': expected sizes >= 1 like 2x2x2");
    dims.push_back(v);
    p = next;
    if (p < end) {
      if (*p != 'x' && *p != 'X' && *p != ',')
        throw std::invalid_argument("geometry '" + text + "': unexpected '" + std::string(1, *p) +
                                    "', sizes are separated by 'x'");
      if (++p == end) throw std::invalid_argument("geometry '" + text + "': ends with a separator");
    }
  }
  if (dims.empty() || static_cast<int>(dims.size()) > kMaxDims)
    throw std::invalid_argument("geometry '" + text + "': needs 1.." + std::to_string(kMaxDims) +
                                " sizes");
  return dims;
}

}  // namespace meshmp::mesh
