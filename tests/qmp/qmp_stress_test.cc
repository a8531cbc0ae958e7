// Random halo exchanges through the QMP 2.5 API, every byte checked. Each
// round draws 1-6 faces: an axis of the logical topology and a direction,
// a size (0, a few words, 1 KiB, around the eager limit, up to 48 KiB), and
// for each side a kind of message memory of that size (contiguous, strided,
// a strided array of two pieces, indexed; the receive's kind independent of
// the send's), addressed relative (axis, direction) or by node number. The
// faces' buffers come from two pools of QMP_allocate_memory blocks, dealt
// anew each round, so a buffer meets other sizes, kinds and peers from
// round to round (the channel requests a freed handle leaves for the next
// handle on the same channel and buffer must fit it). The handles are
// started as one QMP_declare_multiple, or one by one and completed by
// QMP_wait in reverse or by QMP_wait_all; receives before or after their
// sends. Every byte a face's receive may write is checked: the stream its
// neighbour sent in layout order, and nothing else touched. Every node
// draws the same plan from a fixed seed. USQCD QMP 2.5.1 passes a C version
// of it.
//
// BUILD runs it on 2, 3, 4 and 8 nodes (2x2x2), with a 4 KiB eager limit,
// without process_vm_writev, over tcp, and on the 2x2x2 mesh fabric over
// ofi (routed faces).
#include <gtest/gtest.h>
#include <qmp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/support/draw.h"

namespace {

using meshmp::testing_support::Draw;

constexpr std::size_t kBufferBytes = 96 * 1024;
constexpr int kPool = 8, kMaxFaces = 6;

// The byte at stream position i of `node`'s face `face` in `round`; never 0
// (0 is what a receive buffer holds before).
unsigned char byte_at(int node, int round, int face, long i) {
  std::uint32_t x = static_cast<std::uint32_t>(node + 1) * 2654435761u ^ static_cast<std::uint32_t>(round) * 40503u ^
                    static_cast<std::uint32_t>(face) * 97u ^ static_cast<std::uint32_t>(i) * 2246822519u;
  x ^= x >> 15;
  return static_cast<unsigned char>(x | 1);
}

// Message memory over a buffer: kind 0 contiguous, 1 strided, 2 indexed
// (8-byte elements), 3 a strided array of two pieces.
struct Layout {
  int kind = 0;
  long bytes = 0;
  int block = 0, blocks = 0, stride = 0;  // strided kinds
  std::vector<int> lengths, index;        // indexed: in 8-byte elements

  // Offsets of the stream's bytes in the buffer, in stream order.
  std::vector<long> positions() const {
    std::vector<long> at;
    if (kind == 0)
      for (long i = 0; i < bytes; ++i) at.push_back(i);
    if (kind == 1 || kind == 3)
      for (int b = 0; b < blocks; ++b)
        for (int i = 0; i < block; ++i) at.push_back(static_cast<long>(b) * stride + i);
    if (kind == 2)
      for (std::size_t b = 0; b < lengths.size(); ++b)
        for (int i = 0; i < lengths[b] * 8; ++i) at.push_back(static_cast<long>(index[b]) * 8 + i);
    return at;
  }

  QMP_msgmem_t declare(char* buf) {
    switch (kind) {
      case 0: return QMP_declare_msgmem(buf, static_cast<std::size_t>(bytes));
      case 1: return QMP_declare_strided_msgmem(buf, static_cast<std::size_t>(block), blocks, stride);
      case 2: return QMP_declare_indexed_msgmem(buf, lengths.data(), index.data(), 8, static_cast<int>(lengths.size()));
      default: {
        const int first = blocks / 2;
        void* base[2] = {buf, buf + static_cast<long>(first) * stride};
        std::size_t size[2] = {static_cast<std::size_t>(block), static_cast<std::size_t>(block)};
        int count[2] = {first, blocks - first};
        std::ptrdiff_t strides[2] = {stride, stride};
        return QMP_declare_strided_array_msgmem(base, size, count, strides, 2);
      }
    }
  }
};

// A layout of exactly `bytes` that fits a buffer.
Layout draw_layout(Draw& d, long bytes) {
  Layout l;
  l.bytes = bytes;
  l.kind = d.below(4);
  if (l.kind == 1 || l.kind == 3) {
    int n = 1 + d.below(8);
    if (bytes % n) n = 1;
    l.blocks = bytes ? n : d.below(3);
    l.block = bytes ? static_cast<int>(bytes / n) : 0;
    l.stride = l.block + 8 * d.below(3);
    if (l.stride == 0) l.stride = 8;
    if (static_cast<long>(l.blocks) * l.stride > static_cast<long>(kBufferBytes)) l.kind = 0;
  } else if (l.kind == 2) {
    if (bytes % 8) {
      l.kind = 0;
      return l;
    }
    const long words = bytes / 8;
    const int n = static_cast<int>(std::min<long>(words, 1 + d.below(4)));
    long left = words, end = 0;
    for (int b = 0; b < n; ++b) {
      const long w = b == n - 1 ? left : 1 + d.below(static_cast<int>(left - (n - 1 - b)));
      l.lengths.push_back(static_cast<int>(w));
      l.index.push_back(static_cast<int>(end + d.below(2)));  // gaps of a word, or none
      end = l.index.back() + w;
      left -= w;
    }
    if (end * 8 > static_cast<long>(kBufferBytes)) l = Layout{0, bytes};
  }
  return l;
}

struct Face {
  int axis = 0, dir = 1;
  bool by_node = false;
  Layout send, recv;
  char *send_buf = nullptr, *recv_buf = nullptr;
  QMP_msgmem_t send_mm = nullptr, recv_mm = nullptr;
};

class QmpStress : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int m = QMP_get_number_of_nodes(); m > 2 && m % 2 == 0; m /= 2) dims_.push_back(2);
    int rest = QMP_get_number_of_nodes();
    for (int d : dims_) rest /= d;
    dims_.push_back(rest);
    if (QMP_get_logical_number_of_dimensions() == 0)
      ASSERT_EQ(QMP_declare_logical_topology(dims_.data(), static_cast<int>(dims_.size())), QMP_SUCCESS);
    for (int k = 0; k < 2 * kPool; ++k) pool_.push_back(QMP_allocate_memory(kBufferBytes));
  }
  void TearDown() override {
    for (QMP_mem_t* m : pool_) QMP_free_memory(m);
  }
  char* send_pool(int k) { return static_cast<char*>(QMP_get_memory_pointer(pool_[k])); }
  char* recv_pool(int k) { return static_cast<char*>(QMP_get_memory_pointer(pool_[kPool + k])); }
  // The node `dir` steps along `axis` from this one.
  int neighbour(int axis, int dir) const {
    const int* mine = QMP_get_logical_coordinates();
    std::vector<int> c(mine, mine + dims_.size());
    c[axis] = (c[axis] + dir + dims_[axis]) % dims_[axis];
    return QMP_get_node_number_from(c.data());
  }
  void round(std::uint64_t seed, int r);

  std::vector<int> dims_;
  std::vector<QMP_mem_t*> pool_;
};

void QmpStress::round(std::uint64_t seed, int r) {
  const int me = QMP_get_node_number();
  Draw d{(seed * 1000003 + static_cast<std::uint64_t>(r)) * 0x9E3779B97F4A7C15ull + 1};
  std::vector<int> send_deal(kPool), recv_deal(kPool);
  for (int k = 0; k < kPool; ++k) send_deal[k] = recv_deal[k] = k;
  for (int k = kPool - 1; k > 0; --k) {
    std::swap(send_deal[k], send_deal[d.below(k + 1)]);
    std::swap(recv_deal[k], recv_deal[d.below(k + 1)]);
  }
  std::vector<Face> faces(static_cast<std::size_t>(1 + d.below(kMaxFaces)));
  const int completion = d.below(3);
  for (Face& f : faces) {
    f.axis = d.below(static_cast<int>(dims_.size()));
    f.dir = d.below(2) ? 1 : -1;
    f.by_node = d.below(4) == 0;
    long bytes = 0;
    switch (d.below(5)) {
      case 0: bytes = 0; break;
      case 1: bytes = 8 * (1 + d.below(16)); break;
      case 2: bytes = 16384 - 64 + 8 * d.below(16); break;  // around the eager limit
      case 3: bytes = 1024; break;
      default: bytes = 8 * d.below(static_cast<int>(kBufferBytes / 16));
    }
    f.send = draw_layout(d, bytes);
    f.recv = draw_layout(d, bytes);
  }
  std::vector<QMP_msghandle_t> handles;
  for (std::size_t k = 0; k < faces.size(); ++k) {
    Face& f = faces[k];
    SCOPED_TRACE("face " + std::to_string(k));
    f.send_buf = send_pool(send_deal[k]);
    f.recv_buf = recv_pool(recv_deal[k]);
    std::memset(f.send_buf, 0, kBufferBytes);
    std::memset(f.recv_buf, 0, kBufferBytes);
    const std::vector<long> at = f.send.positions();
    for (std::size_t i = 0; i < at.size(); ++i)
      f.send_buf[at[i]] = static_cast<char>(byte_at(me, r, static_cast<int>(k), static_cast<long>(i)));
    f.send_mm = f.send.declare(f.send_buf);
    f.recv_mm = f.recv.declare(f.recv_buf);
    ASSERT_NE(f.send_mm, nullptr) << QMP_get_error_string(nullptr);
    ASSERT_NE(f.recv_mm, nullptr) << QMP_get_error_string(nullptr);
    QMP_msghandle_t s = f.by_node ? QMP_declare_send_to(f.send_mm, neighbour(f.axis, f.dir), 0)
                                  : QMP_declare_send_relative(f.send_mm, f.axis, f.dir, 0);
    QMP_msghandle_t v = f.by_node ? QMP_declare_receive_from(f.recv_mm, neighbour(f.axis, -f.dir), 0)
                                  : QMP_declare_receive_relative(f.recv_mm, f.axis, -f.dir, 0);
    ASSERT_NE(s, nullptr) << QMP_get_error_string(nullptr);
    ASSERT_NE(v, nullptr) << QMP_get_error_string(nullptr);
    const bool receive_first = d.below(2);
    handles.push_back(receive_first ? v : s);
    handles.push_back(receive_first ? s : v);
  }
  const int n = static_cast<int>(handles.size());
  if (completion == 0) {
    QMP_msghandle_t all = QMP_declare_multiple(handles.data(), n);
    ASSERT_NE(all, nullptr) << QMP_get_error_string(nullptr);
    EXPECT_EQ(QMP_start(all), QMP_SUCCESS);
    EXPECT_EQ(QMP_wait(all), QMP_SUCCESS);
    QMP_free_msghandle(all);
  } else {
    for (QMP_msghandle_t h : handles) EXPECT_EQ(QMP_start(h), QMP_SUCCESS);
    if (completion == 1) {
      for (int i = n - 1; i >= 0; --i) EXPECT_EQ(QMP_wait(handles[i]), QMP_SUCCESS);
    } else {
      EXPECT_EQ(QMP_wait_all(handles.data(), n), QMP_SUCCESS);
    }
    for (QMP_msghandle_t h : handles) QMP_free_msghandle(h);
  }
  for (std::size_t k = 0; k < faces.size(); ++k) {
    const Face& f = faces[k];
    const int from = neighbour(f.axis, -f.dir);
    std::vector<char> want(kBufferBytes, 0);
    const std::vector<long> at = f.recv.positions();
    for (std::size_t i = 0; i < at.size(); ++i) {
      const unsigned char b = byte_at(from, r, static_cast<int>(k), static_cast<long>(i));
      want[static_cast<std::size_t>(at[i])] = static_cast<char>(b);
    }
    const auto bad = std::mismatch(want.begin(), want.end(), f.recv_buf);
    EXPECT_TRUE(bad.first == want.end()) << "face " << k << " (axis " << f.axis << ", dir " << f.dir << ", kinds "
                                     << f.send.kind << "/" << f.recv.kind << ", " << f.send.bytes << " bytes): byte "
                                     << (bad.first - want.begin()) << " differs";
    QMP_free_msgmem(f.send_mm);
    QMP_free_msgmem(f.recv_mm);
  }
}

TEST_F(QmpStress, RandomHalosArriveWholeInEveryKindOfMessageMemory) {
  for (int r = 0; r < 150; ++r) {
    SCOPED_TRACE("round " + std::to_string(r));
    round(5, r);
    if (HasFailure()) return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  QMP_thread_level_t provided;
  if (QMP_init_msg_passing(&argc, &argv, QMP_THREAD_SINGLE, &provided) != QMP_SUCCESS) return 3;
  const int rc = RUN_ALL_TESTS();
  QMP_finalize_msg_passing();
  return rc;
}
