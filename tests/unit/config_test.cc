#include "mesh/config/config.h"

#include "mesh/config/limits.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace meshmp::mesh {
namespace {

const char* kGood = R"(# a 2x2x2 test mesh
[mesh]
dims = [2, 2, 2]
periodic = [true, true, false]
fabric = "mesh"
eager_limit = 8192
credits = 16

[nodes]
pattern = "node%02d"

[interfaces]
"x+" = "eth1"
"x-" = "eth2"
"y+" = "eth3"
"y-" = "eth4"
"z+" = "eth5"
"z-" = "eth6"
)";

TEST(Config, ParsesAllFields) {
  MeshConfig c = parse_config(kGood, "good.toml");
  EXPECT_EQ(c.torus, Torus({2, 2, 2}, {true, true, false}));
  EXPECT_EQ(c.fabric, Fabric::kMesh);
  EXPECT_EQ(c.eager_limit, 8192u);
  EXPECT_EQ(c.credits, 16);
  ASSERT_EQ(c.hosts.size(), 8u);
  EXPECT_EQ(c.hosts[0], "node00");
  EXPECT_EQ(c.hosts[7], "node07");
  EXPECT_EQ(c.interfaces[(Direction{1, -1}).index()], "eth4");
}

TEST(Config, DefaultsAndExplicitNodeList) {
  MeshConfig c = parse_config(R"([mesh]
dims = [2, 1]
fabric = "switched"
[[node]]
host = "b"
coords = [1, 0]
[[node]]
host = "a"
coords = [0, 0]
)", "list.toml");
  EXPECT_EQ(c.eager_limit, kDefaultEagerLimit);
  EXPECT_EQ(c.credits, kDefaultCredits);
  EXPECT_EQ(c.hosts, (std::vector<std::string>{"a", "b"}));
}

struct BadCase {
  const char* name;
  const char* text;
  const char* expected;  // substring of the message: "file:line: key: ..."
};

class MalformedConfig : public ::testing::TestWithParam<BadCase> {};

TEST_P(MalformedConfig, NamesFileLineAndKey) {
  const BadCase& b = GetParam();
  try {
    parse_config(b.text, "bad.toml");
    FAIL() << b.name << ": accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(b.expected), std::string::npos)
        << b.name << ": message was: " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedConfig,
    ::testing::Values(
        BadCase{"syntax", "[mesh\ndims = [2]\n", "bad.toml:1: syntax error"},
        // Issue 30: toml11 says "toml::parse_boolean: " and nothing more.
        BadCase{"bad_boolean", "[mesh]\ndims = [2, 2]\nperiodic = tru\n",
                "bad.toml:3: syntax error: periodic: the next token is not a boolean (a boolean is true or false)"},
        BadCase{"missing_mesh", "[nodes]\npattern = \"n%d\"\n", "bad.toml:1: mesh: missing [mesh]"},
        BadCase{"missing_dims", "[mesh]\nfabric = \"switched\"\n", ": mesh.dims: missing"},
        BadCase{"dims_wrong_type", "[mesh]\ndims = \"2x2\"\nfabric = \"switched\"\n",
                "bad.toml:2: mesh.dims: expected a non-empty array of sizes, found a string"},
        BadCase{"dim_wrong_type", "[mesh]\ndims = [2, 2.5]\nfabric = \"switched\"\n",
                "bad.toml:2: mesh.dims[1]: expected an integer, found a float"},
        BadCase{"dim_zero", "[mesh]\ndims = [2, 0]\nfabric = \"switched\"\n",
                "bad.toml:2: mesh.dims[1]: must be in 1..4096, got 0"},
        BadCase{"too_many_dims", "[mesh]\ndims = [1,1,1,1,1,1,1]\nfabric = \"switched\"\n",
                "bad.toml:2: mesh.dims: has 7 dims"},
        BadCase{"periodic_length", "[mesh]\ndims = [2, 2]\nperiodic = [true]\nfabric = \"switched\"\n",
                "bad.toml:3: mesh.periodic: has 1 entries for 2 dims"},
        BadCase{"unknown_fabric", "[mesh]\ndims = [2]\nfabric = \"ring\"\n",
                "bad.toml:3: mesh.fabric: must be \"mesh\" or \"switched\""},
        BadCase{"unknown_key", "[mesh]\ndims = [2]\nfabric = \"switched\"\neager = 5\n",
                "bad.toml:4: mesh.eager: unknown key"},
        BadCase{"eager_range", "[mesh]\ndims = [2]\nfabric = \"switched\"\neager_limit = 1\n",
                "bad.toml:4: mesh.eager_limit: must be 64..1048576 bytes, got 1"},
        BadCase{"credits_type", "[mesh]\ndims = [2]\nfabric = \"switched\"\ncredits = \"many\"\n",
                "bad.toml:4: mesh.credits: expected an integer, found a string"},
        BadCase{"node_count", "[mesh]\ndims = [2, 2]\nfabric = \"switched\"\n[[node]]\nhost = \"a\"\ncoords = [0, 0]\n",
                "bad.toml:4: node: lists 1 nodes but dims 2x2 need 4"},
        BadCase{"duplicate_coords",
                "[mesh]\ndims = [2]\nfabric = \"switched\"\n[[node]]\nhost = \"a\"\ncoords = [1]\n[[node]]\nhost = \"b\"\ncoords = [1]\n",
                "bad.toml:9: node[1].coords: duplicate coordinates, already used by node[0]"},
        BadCase{"coords_range", "[mesh]\ndims = [2]\nfabric = \"switched\"\n[[node]]\nhost = \"a\"\ncoords = [2]\n",
                "bad.toml:6: node[0].coords[0]: 2 is outside 0..1"},
        BadCase{"node_missing_host", "[mesh]\ndims = [1]\nfabric = \"switched\"\n[[node]]\ncoords = [0]\n",
                "node[0].host: missing"},
        BadCase{"bad_pattern", "[mesh]\ndims = [2]\nfabric = \"switched\"\n[nodes]\npattern = \"node\"\n",
                "bad.toml:5: nodes.pattern: needs exactly one %d"},
        BadCase{"pattern_width_overflow",
                "[mesh]\ndims = [2]\nfabric = \"switched\"\n[nodes]\npattern = \"n%08888888888888888888d\"\n",
                "bad.toml:5: nodes.pattern: the conversion must be %d or %0Nd"},
        BadCase{"unknown_direction", "[mesh]\ndims = [2, 2]\n[interfaces]\n\"z+\" = \"eth1\"\n",
                "bad.toml:4: interfaces.z+: unknown direction; this 2-D mesh has x+ .. y-"},
        BadCase{"missing_interface",
                "[mesh]\ndims = [2, 2]\n[interfaces]\n\"x+\" = \"eth1\"\n\"x-\" = \"eth2\"\n\"y+\" = \"eth3\"\n",
                "interfaces.y-: missing: a mesh fabric needs an interface"},
        BadCase{"interface_type", "[mesh]\ndims = [2]\n[interfaces]\n\"x+\" = 1\n\"x-\" = \"e\"\n",
                "bad.toml:4: interfaces.x+: expected a string, found an integer"},
        BadCase{"block_syntax", "[mesh]\ndims = [2]\nfabric = \"switched\"\n[addresses]\nnodes = \"10.1.0.0\"\n",
                "bad.toml:5: addresses.nodes: expected an IPv4 block like"},
        BadCase{"block_prefix", "[mesh]\ndims = [2]\nfabric = \"switched\"\n[addresses]\ncables = \"10.2.0.0/31\"\n",
                "bad.toml:5: addresses.cables: the prefix length must be 8..30, got '31'"},
        BadCase{"block_host_bits", "[mesh]\ndims = [2]\nfabric = \"switched\"\n[addresses]\nnodes = \"10.1.0.1/16\"\n",
                "bad.toml:5: addresses.nodes: '10.1.0.1/16' has host bits set"},
        BadCase{"block_too_small", "[mesh]\ndims = [8]\nfabric = \"switched\"\n[addresses]\nnodes = \"10.1.0.0/30\"\n",
                "bad.toml:5: addresses.nodes: holds 2 node addresses, the mesh has 8 nodes"},
        BadCase{"blocks_overlap", "[mesh]\ndims = [2]\nfabric = \"switched\"\n[addresses]\nnodes = \"10.0.0.0/8\"\ncables = \"10.2.0.0/16\"\n",
                "addresses: the nodes and cables blocks overlap"},
        BadCase{"addresses_key", "[mesh]\ndims = [2]\nfabric = \"switched\"\n[addresses]\nnode = \"10.1.0.0/16\"\n",
                "bad.toml:5: addresses.node: unknown key"}),
    [](const auto& info) { return std::string(info.param.name); });

// The shipped configs parse and describe the machines they claim to.
struct Shipped {
  const char* file;
  std::vector<int> dims;
};

TEST(Config, ShippedConfigsLoad) {
  for (const Shipped& s : {Shipped{"configs/jlab-4x8x8.toml", {4, 8, 8}},
                           Shipped{"configs/jlab-6x8x8.toml", {6, 8, 8}},
                           Shipped{"configs/test-2x2x2.toml", {2, 2, 2}},
                           Shipped{"configs/test-4x4x4.toml", {4, 4, 4}},
                           Shipped{"configs/mesh-8x8.toml", {8, 8}}}) {
    MeshConfig c = load_config(s.file);
    EXPECT_EQ(c.torus.dims(), s.dims) << s.file;
    EXPECT_EQ(static_cast<int>(c.hosts.size()), c.torus.size()) << s.file;
  }
}

TEST(Config, MissingFileIsNamed) {
  try {
    load_config("/nonexistent/mesh.toml");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/mesh.toml:0: cannot open file (No such file or directory)");
  }
}

// Issue 15, item 10: hostile input is refused before toml11 sees it, with
// file, line and key.
std::string refusal(const std::string& text) {
  try {
    parse_config(text, "deep.toml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

std::string load_refusal(const std::string& path) {
  try {
    load_config(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

const std::string kMeshHead = "[mesh]\ndims = [2]\nfabric = \"switched\"\n";

TEST(ConfigLimits, TenThousandNestedArraysAreRefusedWithFileLineAndKey) {
  const std::string text = kMeshHead + "x = " + std::string(10000, '[') + std::string(10000, ']') + "\n";
  EXPECT_EQ(refusal(text).rfind("deep.toml:4: x: nested more than 32 deep", 0), 0u) << refusal(text);
}

TEST(ConfigLimits, NestedInlineTablesAndAnUnclosedArrayAreRefused) {
  std::string inl;
  for (int i = 0; i < 10000; ++i) inl += "{a = ";
  EXPECT_EQ(refusal(kMeshHead + "\n\ny = " + inl + "1").rfind("deep.toml:6: y: nested more than", 0), 0u)
      << refusal(kMeshHead + "\n\ny = " + inl + "1");
  // Unclosed but shallow: toml11's own syntax error, with the line.
  EXPECT_NE(refusal(kMeshHead + "z = [1, 2\n").find("deep.toml:"), std::string::npos);
  EXPECT_EQ(refusal(kMeshHead + "z = " + std::string(100000, '[')).rfind("deep.toml:4: z: nested", 0), 0u);
}

TEST(ConfigLimits, DeepDottedKeysAndHeadersAreRefused) {
  std::string dotted = "a";
  for (int i = 0; i < 100000; ++i) dotted += ".a";
  EXPECT_EQ(refusal(kMeshHead + dotted + " = 1\n").rfind("deep.toml:4: a.a.a.a", 0), 0u);
  EXPECT_EQ(refusal(kMeshHead + "[" + dotted + "]\n").rfind("deep.toml:4: a.a.a.a", 0), 0u);
  // Under a 20-segment header, a 20-segment key is 40 deep.
  std::string twenty = "b";
  for (int i = 1; i < 20; ++i) twenty += ".b";
  EXPECT_EQ(refusal(kMeshHead + "[" + twenty + "]\n" + twenty + " = 1\n").rfind("deep.toml:5: b.b", 0), 0u)
      << refusal(kMeshHead + "[" + twenty + "]\n" + twenty + " = 1\n");
}

TEST(ConfigLimits, BracketsInStringsAndCommentsAreNotNesting) {
  const std::string brackets(100, '[');
  const std::string text = kMeshHead + "# " + brackets + "\n[nodes]\npattern = \"n%d" + brackets +
                           "\"\n[interfaces]\n'x+' = '''" + brackets + "\n" + brackets + "'''\n\"x-\" = \"{{\\\"\"\n";
  MeshConfig c = parse_config(text, "ok.toml");
  EXPECT_EQ(c.hosts[1], "n1" + brackets);
  EXPECT_EQ(c.interfaces[0], brackets + "\n" + brackets);
  EXPECT_EQ(c.interfaces[1], "{{\"");
}

TEST(ConfigLimits, OrdinaryNestingIsAccepted) {
  EXPECT_NO_THROW(parse_config(kMeshHead + "[nodes]\npattern = \"n%d\"\n", "ok.toml"));
  // 30 nested arrays under a one-segment key in a one-segment table: 32 deep.
  const std::string deep = kMeshHead + "unused = " + std::string(30, '[') + std::string(30, ']') + "\n";
  EXPECT_NE(refusal(deep).find("deep.toml:4: mesh.unused: unknown key"), std::string::npos) << refusal(deep);
  const std::string deeper = kMeshHead + "unused = " + std::string(31, '[') + std::string(31, ']') + "\n";
  EXPECT_NE(refusal(deeper).find("deep.toml:4: unused: nested more than 32 deep"), std::string::npos);
}

TEST(ConfigLimits, NodeNumbersMustFitAnInt) {
  EXPECT_NE(refusal(kMeshHead + "[nodes]\npattern = \"n%d\"\nfirst = 2147483647\n")
                .find("deep.toml:6: nodes.first: must be in 0..2147483646 for 2 nodes, got 2147483647"),
            std::string::npos);
  const MeshConfig c = parse_config(kMeshHead + "[nodes]\npattern = \"n%d\"\nfirst = 2147483646\n", "ok.toml");
  EXPECT_EQ(c.hosts[1], "n2147483647");
}

// Found by //fuzz:config (fuzz/corpus/config/toml11-literal-0xff): toml11
// 3.7.1 reads past the end of its buffer on a literal string holding a byte
// that is not UTF-8. TOML files are UTF-8 (TOML v1.0.0, "Spec"), so such
// bytes are refused before toml11 sees them.
TEST(ConfigLimits, BytesThatAreNotUtf8AreRefusedWithLineAndKey) {
  EXPECT_EQ(refusal("'\xff'"), "deep.toml:1: (key): byte 0xff at column 2 is not UTF-8 (TOML files are UTF-8)");
  EXPECT_EQ(refusal(kMeshHead + "[nodes]\npattern = 'n\xc3%d'\n"),
            "deep.toml:5: pattern: byte 0xc3 at column 13 is not UTF-8 (TOML files are UTF-8)");
  EXPECT_EQ(refusal(kMeshHead + "# \xed\xa0\x80 is a surrogate\n").rfind("deep.toml:4: (comment): byte 0xed at column 3", 0),
            0u);
  // Valid UTF-8 anywhere is fine.
  const MeshConfig c = parse_config(kMeshHead + "# Gr\xc3\xbc\xc3\x9f\n[nodes]\npattern = 'n\xc3\xa9%d'\n", "ok.toml");
  EXPECT_EQ(c.hosts[0], "n\xc3\xa9" "0");
}

// Found by //fuzz:config (fuzz/corpus/config/toml11-empty-array-extended):
// toml11 3.7.1 takes back() of an empty array when a dotted key or table
// header extends a key whose value is `[]` (undefined behaviour). No key
// of a mesh config takes an empty array, so one is refused before toml11
// sees it; arrays holding empty arrays still reach toml11 and the checks.
TEST(ConfigLimits, AnEmptyArrayIsRefusedWithLineAndKey) {
  EXPECT_EQ(refusal(kMeshHead + "di = []\ndi.s = [2]\n"), "deep.toml:4: di: is an empty array; no key of a mesh config takes one");
  EXPECT_EQ(refusal(kMeshHead + "[t]\na = [ # none\n  ]\n[t.a.b]\n"),
            "deep.toml:5: a: is an empty array; no key of a mesh config takes one");
  EXPECT_EQ(refusal("[mesh]\ndims = []\n"), "deep.toml:2: dims: is an empty array; no key of a mesh config takes one");
  EXPECT_NE(refusal(kMeshHead + "periodic = [[]]\n").find("mesh.periodic"), std::string::npos);
  EXPECT_NE(refusal(kMeshHead + "x = ['']\n").find("mesh.x: unknown key"), std::string::npos);
}

TEST(ConfigLimits, DirectoriesDevicesAndHugeFilesAreRefusedBeforeReading) {
  EXPECT_EQ(load_refusal("/tmp"), "/tmp:0: (file): is a directory, not a mesh config");
  EXPECT_EQ(load_refusal("/dev/zero"), "/dev/zero:0: (file): is not a regular file, not a mesh config");
  const std::string big = ::testing::TempDir() + "/big.toml";
  {
    std::ofstream out(big);
    out << kMeshHead << "# " << std::string(kMaxConfigBytes, 'x') << "\n";
  }
  EXPECT_NE(load_refusal(big).find(big + ":0: (file): is 10"), std::string::npos) << load_refusal(big);
  EXPECT_NE(load_refusal(big).find("a mesh config is at most 1048576 bytes"), std::string::npos);
  std::remove(big.c_str());
  EXPECT_NE(refusal(std::string(kMaxConfigBytes + 1, '#')).find("deep.toml:1: (file): is 1048577 bytes"),
            std::string::npos);
}

}  // namespace
}  // namespace meshmp::mesh
