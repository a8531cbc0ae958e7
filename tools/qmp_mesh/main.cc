// qmp-mesh: validate a mesh config file and show the torus it describes.
//   qmp-mesh check FILE   -- exit 0 and one summary line, or the error (file:line: key: ...)
//   qmp-mesh show FILE    -- every node: rank, host, coordinates, and per
//                            direction the neighbour and the interface
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "mesh/config.h"

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

int main(int argc, char** argv) {
  CLI::App app{"Validate a meshmp mesh config file and show its geometry."};
  app.require_subcommand(1);
  std::string file;
  CLI::App* check = app.add_subcommand("check", "validate FILE and print a one-line summary");
  check->add_option("FILE", file, "config file")->required();
  CLI::App* show = app.add_subcommand("show", "print every node, its neighbours and interfaces");
  show->add_option("FILE", file, "config file")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    MeshConfig c = load_config(file);
    print_summary(c);
    if (show->parsed()) print_nodes(c);
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "qmp-mesh: %s\n", e.what());
    return 1;
  }
  return 0;
}
