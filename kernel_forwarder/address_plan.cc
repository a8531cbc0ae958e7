#include "kernel_forwarder/address_plan.h"

#include <stdexcept>

namespace meshmp::kernel_forwarder {

std::string dotted(std::uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." + std::to_string((a >> 8) & 255) +
         "." + std::to_string(a & 255);
}

std::string block_text(const mesh::Ipv4Block& b) { return dotted(b.base) + "/" + std::to_string(b.prefix); }

std::string check_name(const std::string& name) {
  if (name.empty() || name.size() > 8 || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789") != std::string::npos)
    return "--name " + name + ": expected 1 to 8 lower-case letters and digits";
  return "";
}

NetPlan make_plan(const mesh::MeshConfig& cfg, const std::string& name) {
  NetPlan p;
  p.name = name;
  p.nodes = cfg.torus.size();
  p.switched = cfg.fabric == mesh::Fabric::kSwitched;
  const std::uint64_t node_room = (std::uint64_t{1} << (32 - cfg.node_block.prefix)) - 2;
  if (static_cast<std::uint64_t>(p.nodes) > node_room)
    throw std::runtime_error(cfg.file + ": " + std::to_string(p.nodes) + " nodes; the address plan's nodes block (" +
                             block_text(cfg.node_block) + ") holds " + std::to_string(node_room));
  for (int i = 0; i < p.nodes; ++i) p.node_addr.push_back(cfg.node_block.base + static_cast<std::uint32_t>(i) + 1);
  if (p.switched) return p;
  const mesh::Torus& t = cfg.torus;
  for (int i = 0; i < p.nodes; ++i)
    for (int axis = 0; axis < t.ndims(); ++axis) {
      const int j = t.neighbour(i, axis, +1);
      if (j < 0 || j == i) continue;
      const mesh::Direction plus{axis, +1}, minus{axis, -1};
      Cable c;
      c.a = i;
      c.b = j;
      c.axis = axis;
      c.if_a = cfg.interfaces[static_cast<std::size_t>(plus.index())];
      c.if_b = cfg.interfaces[static_cast<std::size_t>(minus.index())];
      if (c.if_a.empty() || c.if_b.empty())
        throw std::runtime_error(cfg.file + ": [interfaces] names no interface for \"" +
                                 mesh::direction_key(c.if_a.empty() ? plus : minus) +
                                 "\", which a mesh testbed needs for every cabled direction");
      const std::uint64_t cable_room = std::uint64_t{1} << (31 - cfg.cable_block.prefix);
      if (p.cables.size() >= cable_room)
        throw std::runtime_error(cfg.file + ": more than " + std::to_string(cable_room) +
                                 " cables; the address plan's cables block (" + block_text(cfg.cable_block) +
                                 ", a /31 each) holds no more");
      const std::uint32_t k = static_cast<std::uint32_t>(p.cables.size());
      c.addr_a = cfg.cable_block.base + 2 * k;
      c.addr_b = cfg.cable_block.base + 2 * k + 1;
      p.cables.push_back(c);
    }
  return p;
}

}  // namespace meshmp::kernel_forwarder
