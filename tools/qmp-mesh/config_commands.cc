#include "tools/qmp-mesh/config_commands.h"

#include <cstdio>
#include <string>
#include <vector>

#include "mesh/config/config.h"

using namespace meshmp::mesh;

namespace {

const char* fabric_name(Fabric f) { return f == Fabric::kMesh ? "mesh" : "switched"; }

void print_summary(const MeshConfig& c) {
  std::printf("%s: ok: %d-D torus %s, %d nodes, fabric %s, eager limit %zu bytes, %d credits per link\n",
              c.file.c_str(), c.torus.ndims(), c.torus.to_string().c_str(), c.torus.size(),
              fabric_name(c.fabric), c.eager_limit, c.credits);
}

void print_nodes(const MeshConfig& c) {
  const Torus& t = c.torus;
  for (int r = 0; r < t.size(); ++r) {
    std::vector<int> xs = t.coords(r);
    std::string coords;
    for (size_t i = 0; i < xs.size(); ++i) coords += (i ? "," : "") + std::to_string(xs[i]);
    std::printf("rank %d host %s coords (%s)", r, c.hosts.empty() ? "-" : c.hosts[r].c_str(), coords.c_str());
    for (int d = 0; d < 2 * t.ndims(); ++d) {
      Direction dir = Direction::from_index(d);
      int n = t.neighbour(r, dir);
      if (n < 0 || n == r) continue;
      const std::string& ifname = c.interfaces[d];
      std::printf("  %s->%d%s%s", direction_key(dir).c_str(), n, ifname.empty() ? "" : " via ",
                  ifname.c_str());
    }
    std::printf("\n");
  }
}

}  // namespace

namespace meshmp::tools {

int check_config(const std::string& file, bool show_nodes) {
  try {
    MeshConfig c = load_config(file);
    print_summary(c);
    if (show_nodes) print_nodes(c);
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "qmp-mesh: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace meshmp::tools
