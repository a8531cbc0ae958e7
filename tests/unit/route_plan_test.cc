// kernel_forwarder/route_plan: the kernel routes of a node of the 2x2x2
// test mesh, checked against the address plan worked out by hand (cables
// numbered node by node, axis by axis: cable 0 is node 0's x+ to node 1,
// 198.18.0.0/31 on eth1 - 198.18.0.1 on eth2; cable 1 node 0's y+ to node
// 2, .2/.3 on eth3/eth4; cable 3 node 1's x+ to node 0, .6 on eth1 - .7 on
// node 0's eth2). Node i's address is 198.19.0.(i+1).
#include <gtest/gtest.h>

#include "kernel_forwarder/route_plan.h"
#include "mesh/config/config.h"

namespace {

using meshmp::kernel_forwarder::KernelRoute;
using meshmp::kernel_forwarder::make_plan;
using meshmp::kernel_forwarder::node_routes;
using meshmp::routing::CableSet;
using meshmp::routing::RouteTables;

std::uint32_t ip(int a, int b, int c, int d) {
  return (std::uint32_t(a) << 24) | (std::uint32_t(b) << 16) | (std::uint32_t(c) << 8) | std::uint32_t(d);
}

TEST(RoutePlan, NodeZeroOfTheTestMesh) {
  const auto cfg = meshmp::mesh::load_config("configs/test-2x2x2.toml");
  const auto plan = make_plan(cfg, "t");
  const auto routes = node_routes(plan, RouteTables(cfg.torus, {}), cfg.torus, 0);
  ASSERT_EQ(routes.size(), 7u);
  const std::uint32_t me = ip(198, 19, 0, 1);
  // Node 1 (x) and node 7 (x, y, z: x first) leave by the x+ cable.
  EXPECT_EQ(routes[0], (KernelRoute{ip(198, 19, 0, 2), ip(198, 18, 0, 1), "eth1", me}));
  EXPECT_EQ(routes[6], (KernelRoute{ip(198, 19, 0, 8), ip(198, 18, 0, 1), "eth1", me}));
  // Node 2 (y) by the y+ cable.
  EXPECT_EQ(routes[1], (KernelRoute{ip(198, 19, 0, 3), ip(198, 18, 0, 3), "eth3", me}));
  // With the x+ cable dead, node 1 is reached over the other x cable.
  CableSet dead;
  dead.add(cfg.torus, {0, {0, +1}});
  const auto detour = node_routes(plan, RouteTables(cfg.torus, dead), cfg.torus, 0, dead);
  EXPECT_EQ(detour[0], (KernelRoute{ip(198, 19, 0, 2), ip(198, 18, 0, 6), "eth2", me}));
  // ... and so is the far end of the dead cable (node 1's 198.18.0.1), for
  // the link between nodes 0 and 1 that connected over it; node 0's own end
  // needs no route.
  ASSERT_EQ(detour.size(), 8u);
  EXPECT_EQ(detour[7], (KernelRoute{ip(198, 18, 0, 1), ip(198, 18, 0, 6), "eth2", me}));
  // Node 1 reaches node 0's end, 198.18.0.0, the other way round too.
  const auto from_one = node_routes(plan, RouteTables(cfg.torus, dead), cfg.torus, 1, dead);
  ASSERT_EQ(from_one.size(), 8u);
  EXPECT_EQ(from_one[7].dst, ip(198, 18, 0, 0));
  EXPECT_NE(from_one[7].dev, "eth2") << "not over the dead cable (node 1's end of it is eth2)";
}

TEST(RoutePlan, ASwitchedPlanIsRefused) {
  auto cfg = meshmp::mesh::load_config("configs/test-2x2x2.toml");
  cfg.fabric = meshmp::mesh::Fabric::kSwitched;
  const auto plan = make_plan(cfg, "t");
  EXPECT_THROW(node_routes(plan, RouteTables(cfg.torus, {}), cfg.torus, 0), std::invalid_argument);
}

}  // namespace

// A cluster's own numbering ([addresses]): node i at nodes + i + 1, cable k
// at cables + 2k (+ end) and + 2k + 1 (- end).
TEST(RoutePlan, TheConfigsAddressBlocks) {
  auto cfg = meshmp::mesh::load_config("configs/test-2x2x2.toml");
  cfg.node_block = {ip(10, 1, 0, 0), 16};
  cfg.cable_block = {ip(10, 2, 0, 0), 16};
  const auto plan = make_plan(cfg, "t");
  EXPECT_EQ(plan.node_addr[7], ip(10, 1, 0, 8));
  const auto routes = node_routes(plan, RouteTables(cfg.torus, {}), cfg.torus, 0);
  EXPECT_EQ(routes[6], (KernelRoute{ip(10, 1, 0, 8), ip(10, 2, 0, 1), "eth1", ip(10, 1, 0, 1)}));
}
