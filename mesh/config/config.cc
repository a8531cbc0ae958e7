#include "mesh/config/config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <toml.hpp>

#include "mesh/config/limits.h"

namespace meshmp::mesh {
namespace {

// A located error: "file:line: key: message".
[[noreturn]] void fail(const toml::value& at, const std::string& key, const std::string& msg) {
  const toml::source_location loc = at.location();
  throw ConfigError(loc.file_name() + ":" + std::to_string(loc.line()) + ": " + key + ": " + msg);
}

const char* type_name(const toml::value& v) {
  switch (v.type()) {
    case toml::value_t::boolean: return "a boolean";
    case toml::value_t::integer: return "an integer";
    case toml::value_t::floating: return "a float";
    case toml::value_t::string: return "a string";
    case toml::value_t::array: return "an array";
    case toml::value_t::table: return "a table";
    default: return "a date/time";
  }
}

void reject_unknown_keys(const toml::value& table, const std::string& prefix,
                         const std::set<std::string>& known) {
  for (const auto& [k, v] : table.as_table())
    if (!known.count(k)) fail(v, prefix + k, "unknown key");
}

long long get_int(const toml::value& v, const std::string& key) {
  if (!v.is_integer()) fail(v, key, std::string("expected an integer, found ") + type_name(v));
  return v.as_integer();
}

std::string get_string(const toml::value& v, const std::string& key) {
  if (!v.is_string()) fail(v, key, std::string("expected a string, found ") + type_name(v));
  return v.as_string().str;
}

const toml::value& get_table(const toml::value& parent, const std::string& key,
                             const std::string& full) {
  const toml::value& v = parent.at(key);
  if (!v.is_table()) fail(v, full, std::string("expected a table, found ") + type_name(v));
  return v;
}

// Expands a host pattern with exactly one %d / %0Nd conversion for node i.
std::string expand_pattern(const toml::value& at, const std::string& pattern, int i) {
  size_t pct = pattern.find('%');
  if (pct == std::string::npos || pattern.find('%', pct + 1) != std::string::npos)
    fail(at, "nodes.pattern", "needs exactly one %d (or %03d) for the node number, got '" + pattern + "'");
  size_t j = pct + 1;
  bool zero = j < pattern.size() && pattern[j] == '0';
  if (zero) ++j;
  int width = 0;
  // (A width of more than two digits is refused below; it is not summed
  // further, so "%0888…8d" cannot overflow.)
  while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) {
    if (width <= 16) width = width * 10 + (pattern[j] - '0');
    ++j;
  }
  if (j >= pattern.size() || pattern[j] != 'd' || width > 16)
    fail(at, "nodes.pattern", "the conversion must be %d or %0Nd, got '" + pattern + "'");
  std::string num = std::to_string(i);
  if (static_cast<int>(num.size()) < width) num.insert(0, width - num.size(), zero ? '0' : ' ');
  return pattern.substr(0, pct) + num + pattern.substr(j + 1);
}

std::vector<int> parse_coords(const toml::value& v, const std::string& key, const Torus& t) {
  if (!v.is_array()) fail(v, key, std::string("expected an array of integers, found ") + type_name(v));
  const auto& a = v.as_array();
  if (static_cast<int>(a.size()) != t.ndims())
    fail(v, key, "has " + std::to_string(a.size()) + " coordinates, the mesh has " +
                     std::to_string(t.ndims()) + " dims");
  std::vector<int> c;
  for (size_t i = 0; i < a.size(); ++i) {
    long long x = get_int(a[i], key + "[" + std::to_string(i) + "]");
    if (x < 0 || x >= t.dims()[i])
      fail(a[i], key + "[" + std::to_string(i) + "]",
           std::to_string(x) + " is outside 0.." + std::to_string(t.dims()[i] - 1));
    c.push_back(static_cast<int>(x));
  }
  return c;
}

Torus parse_mesh_geometry(const toml::value& mesh) {
  if (!mesh.contains("dims")) fail(mesh, "mesh.dims", "missing (for example dims = [4, 8, 8])");
  const toml::value& dv = mesh.at("dims");
  if (!dv.is_array() || dv.as_array().empty())
    fail(dv, "mesh.dims", std::string("expected a non-empty array of sizes, found ") + type_name(dv));
  std::vector<int> dims;
  for (size_t i = 0; i < dv.as_array().size(); ++i) {
    const toml::value& x = dv.as_array()[i];
    long long n = get_int(x, "mesh.dims[" + std::to_string(i) + "]");
    if (n < 1 || n > 4096) fail(x, "mesh.dims[" + std::to_string(i) + "]", "must be in 1..4096, got " + std::to_string(n));
    dims.push_back(static_cast<int>(n));
  }
  if (static_cast<int>(dims.size()) > kMaxDims)
    fail(dv, "mesh.dims", "has " + std::to_string(dims.size()) + " dims, at most " +
                              std::to_string(kMaxDims) + " are supported");
  std::vector<bool> periodic(dims.size(), true);
  if (mesh.contains("periodic")) {
    const toml::value& pv = mesh.at("periodic");
    if (pv.is_boolean()) {
      periodic.assign(dims.size(), pv.as_boolean());
    } else if (pv.is_array()) {
      if (pv.as_array().size() != dims.size())
        fail(pv, "mesh.periodic", "has " + std::to_string(pv.as_array().size()) +
                                      " entries for " + std::to_string(dims.size()) + " dims");
      for (size_t i = 0; i < dims.size(); ++i) {
        const toml::value& b = pv.as_array()[i];
        if (!b.is_boolean()) fail(b, "mesh.periodic[" + std::to_string(i) + "]", std::string("expected a boolean, found ") + type_name(b));
        periodic[i] = b.as_boolean();
      }
    } else {
      fail(pv, "mesh.periodic", std::string("expected a boolean or an array of booleans, found ") + type_name(pv));
    }
  }
  try {
    return Torus(dims, periodic);
  } catch (const std::exception& e) {
    fail(dv, "mesh.dims", e.what());
  }
}

void parse_mesh_options(const toml::value& mesh, MeshConfig& cfg) {
  if (mesh.contains("fabric")) {
    const toml::value& f = mesh.at("fabric");
    std::string s = get_string(f, "mesh.fabric");
    if (s == "mesh") cfg.fabric = Fabric::kMesh;
    else if (s == "switched") cfg.fabric = Fabric::kSwitched;
    else fail(f, "mesh.fabric", "must be \"mesh\" or \"switched\", got \"" + s + "\"");
  }
  if (mesh.contains("eager_limit")) {
    const toml::value& e = mesh.at("eager_limit");
    long long n = get_int(e, "mesh.eager_limit");
    if (n < 64 || n > (1 << 20)) fail(e, "mesh.eager_limit", "must be 64..1048576 bytes, got " + std::to_string(n));
    cfg.eager_limit = static_cast<std::size_t>(n);
  }
  if (mesh.contains("credits")) {
    const toml::value& c = mesh.at("credits");
    long long n = get_int(c, "mesh.credits");
    if (n < 4 || n > 1024) fail(c, "mesh.credits", "must be 4..1024 receive slots, got " + std::to_string(n));
    cfg.credits = static_cast<int>(n);
  }
}

void parse_nodes(const toml::value& root, MeshConfig& cfg) {
  const Torus& t = cfg.torus;
  const bool has_pattern = root.contains("nodes");
  const bool has_list = root.contains("node");
  if (has_pattern && has_list)
    fail(root.at("node"), "node", "give either [nodes] pattern or [[node]] entries, not both");
  if (has_pattern) {
    const toml::value& nodes = get_table(root, "nodes", "nodes");
    reject_unknown_keys(nodes, "nodes.", {"pattern", "first"});
    if (!nodes.contains("pattern")) fail(nodes, "nodes.pattern", "missing");
    const toml::value& pv = nodes.at("pattern");
    std::string pattern = get_string(pv, "nodes.pattern");
    long long first = nodes.contains("first") ? get_int(nodes.at("first"), "nodes.first") : 0;
    const long long last_first = INT_MAX - (t.size() - 1);  // the last node's number must be an int
    if (first < 0 || first > last_first)
      fail(nodes.at("first"), "nodes.first",
           "must be in 0.." + std::to_string(last_first) + " for " + std::to_string(t.size()) + " nodes, got " +
               std::to_string(first));
    for (int i = 0; i < t.size(); ++i) cfg.hosts.push_back(expand_pattern(pv, pattern, static_cast<int>(first) + i));
  } else if (has_list) {
    const toml::value& list = root.at("node");
    if (!list.is_array()) fail(list, "node", "expected [[node]] tables");
    const auto& a = list.as_array();
    cfg.hosts.assign(t.size(), "");
    std::map<int, size_t> seen;  // rank -> entry index
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string key = "node[" + std::to_string(i) + "]";
      if (!a[i].is_table()) fail(a[i], key, std::string("expected a table, found ") + type_name(a[i]));
      reject_unknown_keys(a[i], key + ".", {"host", "coords"});
      if (!a[i].contains("host")) fail(a[i], key + ".host", "missing");
      if (!a[i].contains("coords")) fail(a[i], key + ".coords", "missing");
      std::string host = get_string(a[i].at("host"), key + ".host");
      int r = t.rank(parse_coords(a[i].at("coords"), key + ".coords", t));
      if (auto it = seen.find(r); it != seen.end())
        fail(a[i].at("coords"), key + ".coords",
             "duplicate coordinates, already used by node[" + std::to_string(it->second) + "]");
      seen[r] = i;
      cfg.hosts[r] = host;
    }
    if (static_cast<int>(a.size()) != t.size())
      fail(list, "node", "lists " + std::to_string(a.size()) + " nodes but dims " + t.to_string() +
                             " need " + std::to_string(t.size()));
  }
}

void parse_interfaces(const toml::value& root, MeshConfig& cfg) {
  const Torus& t = cfg.torus;
  if (root.contains("interfaces")) {
    const toml::value& ifs = get_table(root, "interfaces", "interfaces");
    for (const auto& [k, v] : ifs.as_table()) {
      int dir = -1;
      for (int i = 0; i < 2 * t.ndims(); ++i)
        if (k == direction_key(Direction::from_index(i))) dir = i;
      if (dir < 0)
        fail(v, "interfaces." + k, "unknown direction; this " + std::to_string(t.ndims()) +
                                       "-D mesh has " + direction_key({0, 1}) + " .. " +
                                       direction_key({t.ndims() - 1, -1}));
      std::string name = get_string(v, "interfaces." + k);
      if (name.empty()) fail(v, "interfaces." + k, "interface name is empty");
      cfg.interfaces[dir] = name;
    }
  }
  if (cfg.fabric != Fabric::kMesh) return;
  // On a mesh fabric every link has its own cable and interface.
  const toml::value& at = root.contains("interfaces") ? root.at("interfaces") : root.at("mesh");
  for (int i = 0; i < 2 * t.ndims(); ++i) {
    Direction d = Direction::from_index(i);
    bool has_link = t.dims()[d.axis] > 1;
    if (has_link && cfg.interfaces[i].empty())
      fail(at, "interfaces." + direction_key(d),
           "missing: a mesh fabric needs an interface for every direction of an axis longer than 1");
  }
}

// "a.b.c.d/len": the address by inet_pton, the length 8..30, no host bits set.
Ipv4Block parse_block(const toml::value& v, const std::string& key) {
  const std::string text = get_string(v, key);
  const std::size_t slash = text.find('/');
  in_addr a{};
  if (slash == std::string::npos || ::inet_pton(AF_INET, text.substr(0, slash).c_str(), &a) != 1)
    fail(v, key, "expected an IPv4 block like \"10.1.0.0/16\", got '" + text + "'");
  const std::string len = text.substr(slash + 1);
  if (len.empty() || len.size() > 2 || len.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(len) < 8 || std::stoi(len) > 30)
    fail(v, key, "the prefix length must be 8..30, got '" + len + "'");
  Ipv4Block b{ntohl(a.s_addr), std::stoi(len)};
  if (b.base & ~(~std::uint32_t{0} << (32 - b.prefix)))
    fail(v, key, "'" + text + "' has host bits set; the block starts at a multiple of its size");
  return b;
}

void parse_addresses(const toml::value& root, MeshConfig& cfg) {
  if (!root.contains("addresses")) return;
  const toml::value& a = get_table(root, "addresses", "addresses");
  reject_unknown_keys(a, "addresses.", {"nodes", "cables"});
  if (a.contains("nodes")) cfg.node_block = parse_block(a.at("nodes"), "addresses.nodes");
  if (a.contains("cables")) cfg.cable_block = parse_block(a.at("cables"), "addresses.cables");
  const std::uint64_t node_room = (std::uint64_t{1} << (32 - cfg.node_block.prefix)) - 2;
  if (static_cast<std::uint64_t>(cfg.torus.size()) > node_room)
    fail(a.at("nodes"), "addresses.nodes",
         "holds " + std::to_string(node_room) + " node addresses, the mesh has " + std::to_string(cfg.torus.size()) +
             " nodes");
  const std::uint64_t n = cfg.node_block.base, c = cfg.cable_block.base;
  const std::uint64_t n_end = n + (std::uint64_t{1} << (32 - cfg.node_block.prefix));
  const std::uint64_t c_end = c + (std::uint64_t{1} << (32 - cfg.cable_block.prefix));
  if (n < c_end && c < n_end) fail(a, "addresses", "the nodes and cables blocks overlap");
}

}  // namespace

std::string direction_key(Direction d) {
  return std::string(1, axis_letter(d.axis)) + (d.sign > 0 ? "+" : "-");
}

namespace {

// toml11's multi-line report in one line: its first line, and where that
// ends without a reason ("toml::parse_boolean: ") the reason it gives under
// the source ("^--- the next token is not a boolean"), after the key of the
// line in error and, for a value, what it may be.
std::string describe_syntax_error(const std::string& what, const std::string& text, std::size_t line) {
  std::string first = what.substr(0, what.find('\n'));
  if (first.rfind("[error] ", 0) == 0) first = first.substr(8);
  const std::size_t mark = what.find("^---");
  if (mark == std::string::npos || first.empty() || first.back() != ' ') return first;
  std::string reason = what.substr(mark + 4, what.find('\n', mark) - mark - 4);
  reason.erase(0, reason.find_first_not_of(' '));
  // The key on that line of the file, if it is "key = value".
  std::istringstream in(text);
  std::string src;
  for (std::size_t i = 0; i < line && std::getline(in, src);) ++i;
  std::string key;
  if (const std::size_t eq = src.find('='); eq != std::string::npos) {
    key = src.substr(0, eq);
    key.erase(key.find_last_not_of(" \t") + 1);
    key.erase(0, key.find_first_not_of(" \t"));
  }
  std::string out = (key.empty() ? "" : key + ": ") + reason;
  if (first.find("parse_boolean") != std::string::npos) out += " (a boolean is true or false)";
  return out;
}

}  // namespace

MeshConfig parse_config(const std::string& text, const std::string& name) {
  check_config_limits(text, name);
  toml::value root;
  try {
    std::istringstream in(text);
    root = toml::parse(in, name);
  } catch (const toml::syntax_error& e) {
    throw ConfigError(name + ":" + std::to_string(e.location().line()) + ": syntax error: " +
                      describe_syntax_error(e.what(), text, e.location().line()));
  }
  reject_unknown_keys(root, "", {"mesh", "nodes", "node", "interfaces", "addresses"});
  if (!root.contains("mesh")) throw ConfigError(name + ":1: mesh: missing [mesh] table");
  const toml::value& mesh = get_table(root, "mesh", "mesh");
  reject_unknown_keys(mesh, "mesh.", {"dims", "periodic", "fabric", "eager_limit", "credits"});
  MeshConfig cfg;
  cfg.file = name;
  cfg.torus = parse_mesh_geometry(mesh);
  parse_mesh_options(mesh, cfg);
  parse_nodes(root, cfg);
  parse_interfaces(root, cfg);
  parse_addresses(root, cfg);
  return cfg;
}

// The file is untrusted: what is not a regular file (a directory, /dev/zero,
// a FIFO) or is larger than kMaxConfigBytes is refused before it is read.
MeshConfig load_config(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // a FIFO must not block the open
  if (fd < 0) throw ConfigError(path + ":0: cannot open file (" + std::strerror(errno) + ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw ConfigError(path + ":0: cannot stat file (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode))
    throw ConfigError(path + ":0: (file): is " + (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                      ", not a mesh config");
  if (static_cast<unsigned long long>(st.st_size) > kMaxConfigBytes)
    throw ConfigError(path + ":0: (file): is " + std::to_string(st.st_size) + " bytes; a mesh config is at most " +
                      std::to_string(kMaxConfigBytes) + " bytes");
  // Read at most one byte past the bound, in case the file grew since fstat.
  std::string text(kMaxConfigBytes + 1, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ConfigError(path + ":0: cannot read file (" + std::strerror(errno) + ")");
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return parse_config(text, path);
}

}  // namespace meshmp::mesh
