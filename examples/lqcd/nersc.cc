#include "examples/lqcd/nersc.h"
#include "examples/lqcd/comm_error.h"

#include <qmp.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

namespace lqcd {

namespace {

constexpr int kDoublesPerSite = 4 * 9 * 2;  // four 3x3 complex links
constexpr std::size_t kMaxHeaderBytes = 1 << 16;

// What node 0 tells every node after reading or writing.
struct Outcome {
  int ok = 1;
  char message[1024] = {};
  NerscInfo info;
  int have_trace = 0;
};

void share(Outcome& o) {
  QMP_broadcast(&o, sizeof o);
  if (!o.ok) throw NerscError(o.message);
}

// Node n's interior links in local order (x fastest), kDoublesPerSite each.
void pack_links(const GaugeField& u, double* out) {
  const Layout& l = u.layout();
  l.for_each_site([&](const Coord& x) {
    const std::int64_t s = l.index(x);
    for (int mu = 0; mu < 4; ++mu)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          *out++ = u(s, mu)(i, j).real();
          *out++ = u(s, mu)(i, j).imag();
        }
  });
}

void unpack_links(GaugeField& u, const double* in) {
  const Layout& l = u.layout();
  l.for_each_site([&](const Coord& x) {
    const std::int64_t s = l.index(x);
    for (int mu = 0; mu < 4; ++mu)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j, in += 2) u(s, mu)(i, j) = Complex(in[0], in[1]);
  });
}

// Calls f(local site number, global site number) for node `node`'s sites.
template <typename F>
void for_node_sites(const Layout& l, int node, F&& f) {
  int* c = QMP_get_logical_coordinates_from(node);
  const Layout theirs(l.global, l.grid, Coord{c[0], c[1], c[2], c[3]});
  std::free(c);
  std::int64_t k = 0;
  theirs.for_each_site([&](const Coord& x) { f(k++, theirs.global_site(x)); });
}

void transfer(void* buf, std::size_t bytes, int node, bool send) {
  QMP_msgmem_t mm = QMP_declare_msgmem(buf, bytes);
  QMP_msghandle_t h = send ? QMP_declare_send_to(mm, node, 0) : QMP_declare_receive_from(mm, node, 0);
  if (!h || QMP_start(h) != QMP_SUCCESS || QMP_wait(h) != QMP_SUCCESS)
    throw CommError(std::string("NERSC I/O: transfer with node ") + std::to_string(node) + " failed: " +
                             QMP_get_error_string(nullptr));
  QMP_free_msghandle(h);
  QMP_free_msgmem(mm);
}

// Node 0: the whole lattice in global order <-> every node's sub-lattice.
void scatter(const std::vector<double>& global, GaugeField& u) {
  const Layout& l = u.layout();
  std::vector<double> buf(static_cast<std::size_t>(l.volume) * kDoublesPerSite);
  if (QMP_get_node_number() == 0) {
    for (int n = QMP_get_number_of_nodes() - 1; n >= 0; --n) {
      for_node_sites(l, n, [&](std::int64_t k, std::int64_t g) {
        std::memcpy(&buf[k * kDoublesPerSite], &global[g * kDoublesPerSite], kDoublesPerSite * sizeof(double));
      });
      if (n) transfer(buf.data(), buf.size() * sizeof(double), n, true);
    }
  } else {
    transfer(buf.data(), buf.size() * sizeof(double), 0, false);
  }
  unpack_links(u, buf.data());
  u.refresh();
}

std::vector<double> gather(const GaugeField& u) {
  const Layout& l = u.layout();
  std::vector<double> buf(static_cast<std::size_t>(l.volume) * kDoublesPerSite), global;
  pack_links(u, buf.data());
  if (QMP_get_node_number() != 0) {
    transfer(buf.data(), buf.size() * sizeof(double), 0, true);
    return global;
  }
  global.resize(static_cast<std::size_t>(l.global_volume()) * kDoublesPerSite);
  for (int n = 0; n < QMP_get_number_of_nodes(); ++n) {
    if (n) transfer(buf.data(), buf.size() * sizeof(double), n, false);
    for_node_sites(l, n, [&](std::int64_t k, std::int64_t g) {
      std::memcpy(&global[g * kDoublesPerSite], &buf[k * kDoublesPerSite], kDoublesPerSite * sizeof(double));
    });
  }
  return global;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

struct Format {
  int width;      // bytes per number
  bool big;       // file byte order
};

// Header values agree with a recomputed one to 1e-6 relative, or to the
// precision they were printed with if that is coarser.
bool agrees(const std::string& text, double computed) {
  const double v = std::stod(text);
  const auto dot = text.find('.');
  double printed = 0;
  if (dot != std::string::npos) {
    std::size_t digits = 0;
    while (dot + 1 + digits < text.size() && std::isdigit(static_cast<unsigned char>(text[dot + 1 + digits]))) ++digits;
    printed = 0.5 * std::pow(10.0, -static_cast<double>(digits));
  }
  return std::abs(v - computed) <= std::max(1e-6 * std::abs(computed), printed);
}

// Node 0: parses and converts the file. Returns the links in global order.
std::vector<double> load(const std::string& path, const Layout& l, Outcome& o, std::string* plaq, std::string* trace) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NerscError(path + ": cannot open: " + std::strerror(errno));
  std::map<std::string, std::string> keys;
  std::string line;
  std::size_t header_bytes = 0;
  bool begun = false, ended = false;
  while (!ended && std::getline(in, line)) {
    header_bytes += line.size() + 1;
    if (header_bytes > kMaxHeaderBytes) break;
    const std::string t = trim(line);
    if (!begun) {
      if (t != "BEGIN_HEADER") throw NerscError(path + ": not a NERSC file: the first line is not BEGIN_HEADER");
      begun = true;
    } else if (t == "END_HEADER") {
      ended = true;
    } else if (const auto eq = t.find('='); eq != std::string::npos) {
      keys[trim(t.substr(0, eq))] = trim(t.substr(eq + 1));
    }
  }
  if (!ended) throw NerscError(path + ": no END_HEADER within the first " + std::to_string(kMaxHeaderBytes) + " bytes");
  auto need = [&](const std::string& k) -> const std::string& {
    auto it = keys.find(k);
    if (it == keys.end()) throw NerscError(path + ": header key " + k + " is missing");
    return it->second;
  };
  for (int mu = 0; mu < 4; ++mu) {
    const std::string k = "DIMENSION_" + std::to_string(mu + 1);
    const std::string& v = need(k);
    if (v != std::to_string(l.global[mu]))
      throw NerscError(path + ": " + k + " = " + v + ", but the lattice is " + std::to_string(l.global[mu]) +
                       " along that axis");
  }
  const std::string& type = need("DATATYPE");
  int rows;
  if (type == "4D_SU3_GAUGE_3x3") rows = 3;
  else if (type == "4D_SU3_GAUGE") rows = 2;
  else throw NerscError(path + ": DATATYPE = " + type + " is not 4D_SU3_GAUGE or 4D_SU3_GAUGE_3x3");
  const std::string& fp = need("FLOATING_POINT");
  Format f;
  if (fp == "IEEE32" || fp == "IEEE32BIG") f = {4, true};
  else if (fp == "IEEE32LITTLE") f = {4, false};
  else if (fp == "IEEE64BIG") f = {8, true};
  else if (fp == "IEEE64LITTLE") f = {8, false};
  else throw NerscError(path + ": FLOATING_POINT = " + fp + " is not IEEE32[BIG|LITTLE] or IEEE64[BIG|LITTLE]");
  const std::string& sum_text = need("CHECKSUM");
  std::uint32_t expected_sum;
  {
    std::size_t used = 0;
    unsigned long v = 0;
    try {
      v = std::stoul(sum_text, &used, 16);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != sum_text.size() || v > 0xffffffffUL)
      throw NerscError(path + ": CHECKSUM = " + sum_text + " is not a 32-bit hexadecimal number");
    expected_sum = static_cast<std::uint32_t>(v);
  }
  *plaq = need("PLAQUETTE");
  if (auto it = keys.find("LINK_TRACE"); it != keys.end()) *trace = it->second;
  for (const std::string* v : {plaq, trace})
    if (!v->empty()) {
      try {
        std::stod(*v);
      } catch (const std::exception&) {
        throw NerscError(path + ": " + (v == plaq ? "PLAQUETTE" : "LINK_TRACE") + " = " + *v + " is not a number");
      }
    }

  const std::size_t data_offset = static_cast<std::size_t>(in.tellg());
  const std::size_t per_site = static_cast<std::size_t>(4 * rows * 3 * 2);
  const std::size_t count = static_cast<std::size_t>(l.global_volume()) * per_site;
  std::vector<unsigned char> raw(count * f.width);
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  if (static_cast<std::size_t>(in.gcount()) != raw.size())
    throw NerscError(path + ": truncated: the data ends at byte offset " + std::to_string(data_offset + in.gcount()) +
                     ", expected " + std::to_string(raw.size()) + " bytes of data from offset " +
                     std::to_string(data_offset));
  if (in.peek() != std::char_traits<char>::eof())
    throw NerscError(path + ": unexpected bytes after the data at byte offset " + std::to_string(data_offset + raw.size()));

  const bool swap = f.big != (std::endian::native == std::endian::big);
  std::uint32_t sum = 0;
  std::vector<double> numbers(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (f.width == 8) {
      std::uint64_t w;
      std::memcpy(&w, &raw[i * 8], 8);
      if (swap) w = __builtin_bswap64(w);
      sum += static_cast<std::uint32_t>(w) + static_cast<std::uint32_t>(w >> 32);
      numbers[i] = std::bit_cast<double>(w);
    } else {
      std::uint32_t w;
      std::memcpy(&w, &raw[i * 4], 4);
      if (swap) w = __builtin_bswap32(w);
      sum += w;
      numbers[i] = std::bit_cast<float>(w);
    }
  }
  if (sum != expected_sum) {
    char buf[160];
    std::snprintf(buf, sizeof buf, ": CHECKSUM = %s in the header, %08x computed from the data", sum_text.c_str(), sum);
    throw NerscError(path + buf);
  }
  o.info.checksum = sum;
  // Into full 3x3 links, rebuilding the third row where only two are stored.
  std::vector<double> links(static_cast<std::size_t>(l.global_volume()) * kDoublesPerSite);
  for (std::int64_t site = 0; site < l.global_volume(); ++site)
    for (int mu = 0; mu < 4; ++mu) {
      const double* src = &numbers[(site * 4 + mu) * rows * 6];
      Su3 m;
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < 3; ++j) m(i, j) = Complex(src[i * 6 + j * 2], src[i * 6 + j * 2 + 1]);
      if (rows == 2)
        for (int j = 0; j < 3; ++j) {
          const int a = (j + 1) % 3, b = (j + 2) % 3;
          m(2, j) = std::conj(m(0, a) * m(1, b) - m(0, b) * m(1, a));
        }
      double* dst = &links[(site * 4 + mu) * 18];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          dst[i * 6 + j * 2] = m(i, j).real();
          dst[i * 6 + j * 2 + 1] = m(i, j).imag();
        }
    }
  return links;
}

void fail(Outcome& o, const std::string& message) {
  o.ok = 0;
  std::snprintf(o.message, sizeof o.message, "%s", message.c_str());
}

}  // namespace

NerscInfo read_nersc(const std::string& path, GaugeField& u) {
  const Layout& l = u.layout();
  Outcome o;
  std::vector<double> links;
  std::string plaq, trace;
  if (QMP_get_node_number() == 0) {
    try {
      links = load(path, l, o, &plaq, &trace);
    } catch (const NerscError& e) {
      fail(o, e.what());
    }
  }
  share(o);
  scatter(links, u);
  const Averages a = measure(u);
  if (QMP_get_node_number() == 0) {
    char buf[256];
    if (!agrees(plaq, a.plaquette)) {
      std::snprintf(buf, sizeof buf, ": PLAQUETTE = %s in the header, %.10f computed from the data", plaq.c_str(), a.plaquette);
      fail(o, path + buf);
    } else if (!trace.empty() && !agrees(trace, a.link_trace)) {
      std::snprintf(buf, sizeof buf, ": LINK_TRACE = %s in the header, %.10f computed from the data", trace.c_str(), a.link_trace);
      fail(o, path + buf);
    }
  }
  o.info.plaquette = a.plaquette;
  o.info.link_trace = a.link_trace;
  share(o);
  return o.info;
}

NerscInfo write_nersc(const std::string& path, GaugeField& u, bool two_rows) {
  const Layout& l = u.layout();
  const Averages a = measure(u);
  const std::vector<double> links = gather(u);
  Outcome o;
  o.info.plaquette = a.plaquette;
  o.info.link_trace = a.link_trace;
  if (QMP_get_node_number() == 0) {
    const int rows = two_rows ? 2 : 3;
    std::vector<std::uint64_t> words;
    words.reserve(static_cast<std::size_t>(l.global_volume()) * 4 * rows * 6);
    std::uint32_t sum = 0;
    for (std::int64_t link = 0; link < l.global_volume() * 4; ++link)
      for (int k = 0; k < rows * 6; ++k) {
        const std::uint64_t w = std::bit_cast<std::uint64_t>(links[link * 18 + k]);
        sum += static_cast<std::uint32_t>(w) + static_cast<std::uint32_t>(w >> 32);
        words.push_back(std::endian::native == std::endian::big ? w : __builtin_bswap64(w));
      }
    o.info.checksum = sum;
    std::ostringstream h;
    char num[64];
    h << "BEGIN_HEADER\nHDR_VERSION = 1.0\nDATATYPE = " << (two_rows ? "4D_SU3_GAUGE" : "4D_SU3_GAUGE_3x3")
      << "\nSTORAGE_FORMAT = 1.0\n";
    for (int mu = 0; mu < 4; ++mu) h << "DIMENSION_" << mu + 1 << " = " << l.global[mu] << "\n";
    for (int mu = 0; mu < 4; ++mu) h << "BOUNDARY_" << mu + 1 << " = PERIODIC\n";
    std::snprintf(num, sizeof num, "%08x", sum);
    h << "CHECKSUM = " << num << "\n";
    std::snprintf(num, sizeof num, "%.12f", a.link_trace);
    h << "LINK_TRACE = " << num << "\n";
    std::snprintf(num, sizeof num, "%.12f", a.plaquette);
    h << "PLAQUETTE = " << num << "\nFLOATING_POINT = IEEE64BIG\nCREATOR = meshmp-lqcd\n";
    const std::time_t now = std::time(nullptr);
    char date[64];
    std::strftime(date, sizeof date, "%a %b %d %H:%M:%S %Y", std::gmtime(&now));
    h << "CREATION_DATE = " << date << "\nEND_HEADER\n";
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    const std::string header = h.str();
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(words.data()), static_cast<std::streamsize>(words.size() * 8));
    out.close();
    if (!out) fail(o, path + ": cannot write: " + std::strerror(errno));
  }
  share(o);
  return o.info;
}

}  // namespace lqcd
