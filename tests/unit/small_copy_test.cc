// copy_payload (mesh/small_copy.h): every length from 0 to past the
// inline limit copies exactly those bytes, at every alignment, and touches
// nothing around the destination.
#include "mesh/small_copy.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

using meshmp::mesh::copy_payload;

TEST(SmallCopy, CopiesExactlyNBytesAtEveryLengthAndOffset) {
  std::vector<char> src(64);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 7 + 1);
  for (std::size_t n = 0; n <= 40; ++n) {
    for (std::size_t off = 0; off < 8; ++off) {
      std::vector<char> dst(64, '\x5a');
      copy_payload(dst.data() + 8 + off, src.data() + off, n);
      for (std::size_t i = 0; i < dst.size(); ++i) {
        const bool inside = i >= 8 + off && i < 8 + off + n;
        const char want = inside ? src[i - 8] : '\x5a';
        ASSERT_EQ(dst[i], want) << "n=" << n << " off=" << off << " byte " << i;
      }
    }
  }
}

}  // namespace
