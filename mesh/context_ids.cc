#include "mesh/context_ids.h"

namespace meshmp::mesh {

ContextIds::ContextIds() {
  free_.fill(~std::uint32_t{0});
  free_[0] &= ~((std::uint32_t{1} << kReserved) - 1);
  in_use_ = kReserved;
}

std::uint32_t ContextIds::take(Mask& agreed) {
  for (std::uint32_t w = 0; w < free_.size(); ++w) {
    const std::uint32_t both = agreed[w] & free_[w];
    if (!both) continue;
    const std::uint32_t bit = both & (~both + 1);  // the lowest set bit
    agreed[w] &= ~bit;
    free_[w] &= ~bit;
    ++in_use_;
    return 2 * (w * 32 + static_cast<std::uint32_t>(__builtin_ctz(bit)));
  }
  return kNone;
}

std::uint32_t ContextIds::take_highest(Mask& agreed) {
  for (std::uint32_t w = static_cast<std::uint32_t>(free_.size()); w-- > 0;) {
    const std::uint32_t both = agreed[w] & free_[w];
    if (!both) continue;
    const std::uint32_t bit = std::uint32_t{1} << (31 - __builtin_clz(both));  // the highest set bit
    agreed[w] &= ~bit;
    free_[w] &= ~bit;
    ++in_use_;
    return 2 * (w * 32 + static_cast<std::uint32_t>(__builtin_ctz(bit)));
  }
  return kNone;
}

std::uint32_t ContextIds::take_highest(Mask& agreed, std::uint32_t bucket) {
  bucket %= 64;
  const std::uint32_t bit = std::uint32_t{1} << (bucket % 32);
  for (std::uint32_t w = static_cast<std::uint32_t>(free_.size()); w-- > 0;) {
    if (w % 2 != bucket / 32 || !(agreed[w] & free_[w] & bit)) continue;
    agreed[w] &= ~bit;
    free_[w] &= ~bit;
    ++in_use_;
    return 2 * (w * 32 + bucket % 32);
  }
  return take_highest(agreed);
}

std::uint32_t ContextIds::take_lowest_agreed(Mask& agreed) {
  for (std::uint32_t w = 0; w < agreed.size(); ++w) {
    if (!agreed[w]) continue;
    const std::uint32_t bit = agreed[w] & (~agreed[w] + 1);
    return (free_[w] & bit) ? take(agreed) : kNone;
  }
  return kNone;
}

bool ContextIds::release(std::uint32_t ctx) {
  const std::uint32_t pair = ctx / 2;
  if (pair < kReserved || pair >= kPairs) return false;
  std::uint32_t& word = free_[pair / 32];
  const std::uint32_t bit = std::uint32_t{1} << (pair % 32);
  if (word & bit) return false;
  word |= bit;
  --in_use_;
  ++releases_[pair];
  return true;
}

}  // namespace meshmp::mesh
