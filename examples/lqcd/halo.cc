#include "examples/lqcd/halo.h"
#include "examples/lqcd/comm_error.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace lqcd {

namespace {

void check(bool ok, const std::string& what) {
  if (!ok) throw CommError(what + ": " + QMP_get_error_string(nullptr));
}

}  // namespace

Halo::Halo(const Layout& layout, std::size_t site_bytes, Shape shape)
    : layout_(layout), site_bytes_(site_bytes), shape_(shape) {
  std::vector<QMP_msghandle_t> every;
  for (int a = 0; a < 4; ++a) {
    Axis& ax = axes_[a];
    // The face's sites in a fixed order of the other coordinates; in
    // kCorners the axes before this one include their halo.
    Coord lo{}, hi{};
    for (int b = 0; b < 4; ++b) {
      const bool with_halo = shape == Shape::kCorners && b < a;
      lo[b] = with_halo ? -1 : 0;
      hi[b] = with_halo ? layout.local[b] + 1 : layout.local[b];
    }
    Coord x;
    for (x[3] = lo[3]; x[3] < hi[3]; ++x[3])
      for (x[2] = lo[2]; x[2] < hi[2]; ++x[2])
        for (x[1] = lo[1]; x[1] < hi[1]; ++x[1])
          for (x[0] = lo[0]; x[0] < hi[0]; ++x[0]) {
            if (x[a] != 0) continue;  // one entry per face site
            Coord y = x;
            y[a] = layout.local[a] - 1;
            ax.send_up.push_back(layout.index(y));
            y[a] = -1;
            ax.recv_up.push_back(layout.index(y));
            y[a] = 0;
            ax.send_down.push_back(layout.index(y));
            y[a] = layout.local[a];
            ax.recv_down.push_back(layout.index(y));
          }
    ax.remote = layout.grid[a] > 1;
    if (!ax.remote) continue;
    const std::size_t bytes = ax.send_up.size() * site_bytes;
    for (int k = 0; k < 4; ++k) {
      ax.mem[k] = QMP_allocate_memory(bytes);
      check(ax.mem[k] != nullptr, "halo buffer");
      ax.msgmem[k] = QMP_declare_msgmem(QMP_get_memory_pointer(ax.mem[k]), bytes);
      check(ax.msgmem[k] != nullptr, "halo msgmem");
    }
    ax.parts[0] = QMP_declare_send_relative(ax.msgmem[0], a, +1, 0);
    ax.parts[1] = QMP_declare_send_relative(ax.msgmem[1], a, -1, 0);
    ax.parts[2] = QMP_declare_receive_relative(ax.msgmem[2], a, -1, 0);
    ax.parts[3] = QMP_declare_receive_relative(ax.msgmem[3], a, +1, 0);
    for (QMP_msghandle_t h : ax.parts) check(h != nullptr, "halo handle on axis " + std::to_string(a));
    if (shape == Shape::kCorners) {
      ax.handles = QMP_declare_multiple(ax.parts, 4);
      check(ax.handles != nullptr, "halo multiple handle");
    } else {
      every.insert(every.end(), ax.parts, ax.parts + 4);
    }
  }
  if (!every.empty()) {
    all_ = QMP_declare_multiple(every.data(), static_cast<int>(every.size()));
    check(all_ != nullptr, "halo multiple handle");
  }
}

Halo::~Halo() {
  // A multiple handle frees its members.
  if (all_) QMP_free_msghandle(all_);
  for (Axis& ax : axes_) {
    if (ax.handles) QMP_free_msghandle(ax.handles);
    for (int k = 0; k < 4; ++k) {
      if (ax.msgmem[k]) QMP_free_msgmem(ax.msgmem[k]);
      if (ax.mem[k]) QMP_free_memory(ax.mem[k]);
    }
  }
}

void Halo::pack(int a, char* field) {
  Axis& ax = axes_[a];
  const std::size_t n = ax.send_up.size(), sb = site_bytes_;
  if (!ax.remote) {  // one node on this axis: the halo is our own opposite face
    for (std::size_t i = 0; i < n; ++i) {
      std::memcpy(field + ax.recv_up[i] * sb, field + ax.send_up[i] * sb, sb);
      std::memcpy(field + ax.recv_down[i] * sb, field + ax.send_down[i] * sb, sb);
    }
    return;
  }
  auto* up = static_cast<char*>(QMP_get_memory_pointer(ax.mem[0]));
  auto* down = static_cast<char*>(QMP_get_memory_pointer(ax.mem[1]));
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(up + i * sb, field + ax.send_up[i] * sb, sb);
    std::memcpy(down + i * sb, field + ax.send_down[i] * sb, sb);
  }
}

void Halo::unpack(int a, char* field) {
  Axis& ax = axes_[a];
  if (!ax.remote) return;
  const std::size_t n = ax.send_up.size(), sb = site_bytes_;
  const auto* from_minus = static_cast<const char*>(QMP_get_memory_pointer(ax.mem[2]));
  const auto* from_plus = static_cast<const char*>(QMP_get_memory_pointer(ax.mem[3]));
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(field + ax.recv_up[i] * sb, from_minus + i * sb, sb);
    std::memcpy(field + ax.recv_down[i] * sb, from_plus + i * sb, sb);
  }
}

void Halo::wait(QMP_msghandle_t h) {
  const double t0 = QMP_time();
  check(QMP_wait(h) == QMP_SUCCESS, "halo wait");
  wait_seconds_ += QMP_time() - t0;
}

void Halo::start(char* field) {
  for (int a = 0; a < 4; ++a) pack(a, field);
  if (all_) check(QMP_start(all_) == QMP_SUCCESS, "halo start");
}

void Halo::finish(char* field) {
  if (all_) wait(all_);
  for (int a = 0; a < 4; ++a) unpack(a, field);
}

void Halo::exchange(char* field) {
  if (shape_ == Shape::kFaces) {
    start(field);
    finish(field);
    return;
  }
  for (int a = 0; a < 4; ++a) {
    pack(a, field);
    if (axes_[a].remote) {
      check(QMP_start(axes_[a].handles) == QMP_SUCCESS, "halo start");
      wait(axes_[a].handles);
    }
    unpack(a, field);
  }
}

}  // namespace lqcd
