// Torus / mesh geometry: rank <-> coordinates, neighbours, hop distance and a
// balanced factorisation of a job size (ARCHITECTURE.md §2).
#pragma once

#include <string>
#include <vector>

namespace meshmp::mesh {

/// Largest number of torus dimensions meshmp supports (seed 003 §3 uses 3-D
/// and a 5-D machine projected onto 3-D; QMP allows any, we stop at 6).
inline constexpr int kMaxDims = 6;

/// A direction on the torus: an axis and a sign (+1 or -1). Directions are
/// numbered 2*axis + (sign < 0), so a D-dimensional torus has 2*D of them.
struct Direction {
  int axis = 0;
  int sign = +1;
  int index() const { return 2 * axis + (sign < 0 ? 1 : 0); }
  static Direction from_index(int i) { return {i / 2, (i % 2) ? -1 : +1}; }
};

/// Conventional axis letters x, y, z, t, u, v used in config files and output.
char axis_letter(int axis);

/// A D-dimensional mesh, each axis periodic (torus) or open. Ranks are
/// numbered lexicographically with axis 0 fastest, QMP's convention
/// (QMP_API.md "Behaviour to keep").
class Torus {
 public:
  Torus() = default;
  /// dims: sizes, 1..kMaxDims entries, each >= 1. periodic: one flag per axis
  /// (empty means all periodic). Throws std::invalid_argument naming the bad
  /// argument otherwise.
  explicit Torus(std::vector<int> dims, std::vector<bool> periodic = {});

  int ndims() const { return static_cast<int>(dims_.size()); }
  const std::vector<int>& dims() const { return dims_; }
  const std::vector<bool>& periodic() const { return periodic_; }
  int size() const { return size_; }

  /// Coordinates of a rank in [0, size()).
  std::vector<int> coords(int rank) const;
  /// Rank of coordinates, each in [0, dims[i]).
  int rank(const std::vector<int>& coords) const;
  /// The rank one step from `rank` along `axis` in direction `sign` (+1/-1),
  /// wrapping on periodic axes; -1 past the edge of an open axis.
  int neighbour(int rank, int axis, int sign) const;
  int neighbour(int rank, Direction d) const { return neighbour(rank, d.axis, d.sign); }
  /// Which link to the neighbour in direction d: 1 for the - direction of a
  /// periodic axis of size 2 (whose + and - links reach the same peer), else
  /// 0 (ARCHITECTURE.md §3).
  int link_index(Direction d) const {
    return dims_[d.axis] == 2 && periodic_[d.axis] && d.sign < 0 ? 1 : 0;
  }
  /// Number of link hops between two ranks: the sum over axes of
  /// min(|d|, dim-|d|) on periodic axes and |d| on open ones.
  int hop_distance(int a, int b) const;
  /// "4x8x8", with an "o" suffix on open axes ("4x8ox8").
  std::string to_string() const;

  bool operator==(const Torus& o) const { return dims_ == o.dims_ && periodic_ == o.periodic_; }

 private:
  std::vector<int> dims_;
  std::vector<bool> periodic_;
  int size_ = 1;
};

/// The most even factorisation of n into `ndims` factors, in non-increasing
/// order: MPI_Dims_create with all entries free (MPI-1.1 §6.5.2, "as close
/// to each other as possible"). Most even means the smallest difference
/// between the largest and the smallest factor, then the largest smallest
/// factor, then the smallest sum of squares (these agree with MPICH 4.0.2
/// for every n <= 1024 and ndims <= 4). 72 in 2-D is 9x8, not 12x6. Exact,
/// by branch and bound over the divisors of n. Throws std::invalid_argument
/// when n < 1 or ndims < 1.
std::vector<int> balanced_dims(int n, int ndims);

/// Parses "4x8x8" (also "4X8X8" or "4,8,8") into sizes; throws
/// std::invalid_argument with a message naming the text on any error.
std::vector<int> parse_dims(const std::string& text);

}  // namespace meshmp::mesh
