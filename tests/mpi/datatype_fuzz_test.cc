// Random derived datatypes checked against a model of their type maps
// (MPI-1.1 §3.12; MPI-2.2 §4.1.2-4.1.7). Each round builds a type nested up
// to four deep from MPI_INT and MPI_DOUBLE by contiguous, vector, hvector,
// indexed, hindexed, indexed_block, hindexed_block, resized and struct
// constructors, with negative strides and displacements, repeated and
// overlapping blocks, and from one to some 200 000 basic elements (so both
// the flattened runs and the walked description of mpi11/ are used). The model
// -- the list of (displacement, basic type) in type-map order, and the
// bounds -- predicts:
// - MPI_Type_size, MPI_Type_get_extent and MPI_Type_get_true_extent;
// - MPI_Pack and MPI_Unpack, each in two calls: every element in place and
//   no other byte touched (MPI_Pack_size at least what was packed);
// - a typed send from rank 0 to the last rank, received as the type map's
//   elements back to back (the same type signature, §3.3.1), and the
//   reverse, with MPI_Get_count and MPI_Get_elements of the typed receive;
// - a typed send to oneself, MPI_Bcast and MPI_Allgather of the type.
// A receive into a type whose elements overlap is erroneous (§3.12.5), so
// those rounds only send. Displacements keep doubles 8-aligned so that no
// alignment padding (§3.12.3, implementation-defined) enters the bounds;
// structs, which may pad, are resized to their model's bounds.
//
// BUILD runs it at 2 and 3 ranks, at 8 over the relays of a line mesh of 8
// (shm and ofi: rank 0 to rank 7 is 7 hops) and over tcp.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tests/mpi/mpi_main.h"
#include "tests/support/draw.h"

namespace {

using meshmp::testing_support::Draw;

struct Elem {
  long disp;
  bool is_double;
  long bytes() const { return is_double ? 8 : 4; }
};

// A datatype and its model: the type map of one instance, and its bounds.
struct Model {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::vector<Elem> map;
  long lb = 0, ub = 0;
  bool markers = false;  // bounds set by MPI_Type_create_resized somewhere inside
  std::string name;
  long extent() const { return ub - lb; }
  void free_type() {
    if (type != MPI_INT && type != MPI_DOUBLE && type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
  }
};

Model basic(bool is_double) {
  Model m;
  m.type = is_double ? MPI_DOUBLE : MPI_INT;
  m.map.push_back({0, is_double});
  m.ub = is_double ? 8 : 4;
  m.name = is_double ? "double" : "int";
  return m;
}

// Appends copies of `c` at byte displacements `at`: the new bounds are the
// least and greatest of the copies' (each copy's markers or data).
void add_copies(Model& r, const Model& c, const std::vector<long>& at, bool& first) {
  for (long d : at) {
    for (const Elem& e : c.map) r.map.push_back({d + e.disp, e.is_double});
    if (first) {
      r.lb = d + c.lb;
      r.ub = d + c.ub;
      first = false;
    } else {
      r.lb = std::min(r.lb, d + c.lb);
      r.ub = std::max(r.ub, d + c.ub);
    }
  }
}

constexpr long kMaxElems = 60000;

Model make(Draw& d, int depth);
Model make_child(Draw& d, int depth) { return depth <= 0 || d.below(3) == 0 ? basic(d.below(2)) : make(d, depth - 1); }

Model make(Draw& d, int depth) {
  Model c = make_child(d, depth);
  Model r;
  bool first = true;
  const long E = c.extent();
  const long budget = std::max(1L, kMaxElems / static_cast<long>(c.map.size()));
  int what = d.below(9);
  if (E <= 0) what = 7;  // resize first: a zero or negative extent stacks copies
  std::vector<long> at;
  switch (what) {
    case 0: {
      const int n = 1 + d.below(static_cast<int>(std::min(budget, 8L)));
      for (int k = 0; k < n; ++k) at.push_back(k * E);
      MPI_Type_contiguous(n, c.type, &r.type);
      r.name = "contiguous(" + std::to_string(n) + ", " + c.name + ")";
      break;
    }
    case 1:
    case 2: {  // vector, hvector; strides -2..4, hvector's plus 0, 8 or 16 bytes
      const int blocklen = 1 + d.below(3);
      const long drawn = 1L + d.below(static_cast<int>(std::min(budget, 6000L)));
      const long count = std::max(1L, std::min(drawn, budget / blocklen));
      const int stride = d.below(7) - 2;
      const long bytes = stride * E + (what == 2 ? d.below(3) * 8 : 0);
      for (long k = 0; k < count; ++k)
        for (int b = 0; b < blocklen; ++b) at.push_back((what == 1 ? k * stride * E : k * bytes) + b * E);
      if (what == 1)
        MPI_Type_vector(static_cast<int>(count), blocklen, stride, c.type, &r.type);
      else
        MPI_Type_create_hvector(static_cast<int>(count), blocklen, bytes, c.type, &r.type);
      r.name = std::string(what == 1 ? "vector(" : "hvector(") + std::to_string(count) + ", " +
               std::to_string(blocklen) + ", " + std::to_string(what == 1 ? stride : bytes) + ", " + c.name + ")";
      break;
    }
    case 3:
    case 4:
    case 5:
    case 6: {  // indexed, hindexed, indexed_block, hindexed_block; displacements may repeat
      const int count = 1 + d.below(static_cast<int>(std::min(budget, 20L)));
      const bool same_length = what >= 5, in_bytes = what == 4 || what == 6;
      const int blocklen = 1 + d.below(3);
      std::vector<int> lengths, disps;
      std::vector<MPI_Aint> byte_disps;
      for (int k = 0; k < count; ++k) {
        lengths.push_back(same_length ? blocklen : 1 + d.below(4));
        disps.push_back(d.below(40) - 10);
        byte_disps.push_back(disps.back() * E + d.below(2) * 8);
        const long from = in_bytes ? byte_disps.back() : disps.back() * E;
        for (int b = 0; b < lengths.back(); ++b) at.push_back(from + b * E);
      }
      if (what == 3) MPI_Type_indexed(count, lengths.data(), disps.data(), c.type, &r.type);
      if (what == 4) MPI_Type_create_hindexed(count, lengths.data(), byte_disps.data(), c.type, &r.type);
      if (what == 5) MPI_Type_create_indexed_block(count, blocklen, disps.data(), c.type, &r.type);
      if (what == 6) MPI_Type_create_hindexed_block(count, blocklen, byte_disps.data(), c.type, &r.type);
      static const char* const kNames[] = {"indexed", "hindexed", "indexed_block", "hindexed_block"};
      r.name = std::string(kNames[what - 3]) + "(" + std::to_string(count) + ", " + c.name + ")";
      break;
    }
    case 7: {
      const long lb = c.lb + (d.below(5) - 2) * 8;
      long extent = E + d.below(5) * 8;
      if (extent <= 0) extent = 8 * (1 + d.below(3));
      MPI_Type_create_resized(c.type, lb, extent, &r.type);
      add_copies(r, c, {0}, first);
      r.lb = lb;
      r.ub = lb + extent;
      r.markers = true;
      r.name = "resized(" + std::to_string(lb) + ", " + std::to_string(extent) + ", " + c.name + ")";
      c.free_type();
      return r;
    }
    default: {  // struct of 1-3 children, with markers all or none (§3.12.3's rule then holds), resized
      std::vector<Model> kids;
      kids.push_back(std::move(c));
      const int n = 1 + d.below(3);
      while (static_cast<int>(kids.size()) < n) {
        Model k = make_child(d, depth - 1);
        if (k.markers != kids[0].markers || static_cast<long>(k.map.size()) * 4 > kMaxElems) {
          k.free_type();
          if (kids[0].markers) break;
          k = basic(d.below(2));
        }
        kids.push_back(std::move(k));
      }
      std::vector<int> lengths;
      std::vector<MPI_Aint> disps;
      std::vector<MPI_Datatype> types;
      for (const Model& k : kids) {
        lengths.push_back(1 + d.below(2));
        disps.push_back((d.below(16) - 4) * 8);
        types.push_back(k.type);
        std::vector<long> kat;
        for (int b = 0; b < lengths.back(); ++b) kat.push_back(disps.back() + b * k.extent());
        add_copies(r, k, kat, first);
      }
      MPI_Datatype s;
      MPI_Type_create_struct(static_cast<int>(kids.size()), lengths.data(), disps.data(), types.data(), &s);
      MPI_Aint lb, extent;
      MPI_Type_get_extent(s, &lb, &extent);
      EXPECT_EQ(lb, r.lb) << "struct lower bound";
      EXPECT_GE(extent, r.extent()) << "struct extent";
      EXPECT_LE(extent, r.extent() + 7) << "struct extent: more than alignment padding";
      MPI_Type_create_resized(s, r.lb, r.extent(), &r.type);
      MPI_Type_free(&s);
      r.markers = true;
      r.name = "struct(" + std::to_string(kids.size()) + ": " + kids[0].name + ", ...)";
      for (Model& k : kids) k.free_type();
      return r;
    }
  }
  add_copies(r, c, at, first);
  r.markers = c.markers;
  c.free_type();
  return r;
}

// The round's values: element k of the packed signature.
std::uint32_t mix(long k, int round) {
  std::uint32_t x = static_cast<std::uint32_t>(k) * 2654435761u ^ static_cast<std::uint32_t>(round) * 40503u;
  return x ^ (x >> 15);
}

// A buffer of bytes 0xA5 holding `count` instances of a type whose
// elements span [lo, hi), with a margin each side; base() is where the
// instances start.
struct Layout {
  static constexpr long kMargin = 64;
  long lo, hi;
  std::vector<char> bytes;
  Layout(long lo_, long hi_) : lo(lo_), hi(hi_), bytes(static_cast<std::size_t>(hi_ - lo_ + 2 * kMargin), '\xA5') {}
  char* base() { return bytes.data() + kMargin - lo; }
};

std::vector<Elem> instances(const Model& m, int count) {
  std::vector<Elem> all;
  for (int i = 0; i < count; ++i)
    for (const Elem& e : m.map) all.push_back({e.disp + i * m.extent(), e.is_double});
  return all;
}
void span(const std::vector<Elem>& all, long* lo, long* hi) {
  *lo = 0;
  *hi = 0;
  for (const Elem& e : all) {
    *lo = std::min(*lo, e.disp);
    *hi = std::max(*hi, e.disp + e.bytes());
  }
}
bool overlapping(std::vector<Elem> all) {
  std::sort(all.begin(), all.end(), [](const Elem& a, const Elem& b) { return a.disp < b.disp; });
  for (std::size_t k = 1; k < all.size(); ++k)
    if (all[k - 1].disp + all[k - 1].bytes() > all[k].disp) return true;
  return false;
}
void fill(char* base, const std::vector<Elem>& all, int round) {
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (all[k].is_double) {
      const double v = static_cast<double>(mix(static_cast<long>(k), round) % 1000000) + 0.5;
      std::memcpy(base + all[k].disp, &v, 8);
    } else {
      const int v = static_cast<int>(mix(static_cast<long>(k), round));
      std::memcpy(base + all[k].disp, &v, 4);
    }
  }
}
// Elements back to back, as the layout at `base` holds them.
std::vector<char> packed_of(const char* base, const std::vector<Elem>& all) {
  std::vector<char> p;
  for (const Elem& e : all) p.insert(p.end(), base + e.disp, base + e.disp + e.bytes());
  return p;
}
// The type of the elements back to back: a struct of runs of one basic type.
MPI_Datatype packed_type(const std::vector<Elem>& all) {
  std::vector<int> lengths;
  std::vector<MPI_Aint> disps;
  std::vector<MPI_Datatype> types;
  long off = 0;
  for (const Elem& e : all) {
    const MPI_Datatype t = e.is_double ? MPI_DOUBLE : MPI_INT;
    if (!types.empty() && types.back() == t) {
      ++lengths.back();
    } else {
      lengths.push_back(1);
      disps.push_back(off);
      types.push_back(t);
    }
    off += e.bytes();
  }
  MPI_Datatype s, r;
  MPI_Type_create_struct(static_cast<int>(types.size()), lengths.data(), disps.data(), types.data(), &s);
  MPI_Type_create_resized(s, 0, off, &r);
  MPI_Type_free(&s);
  MPI_Type_commit(&r);
  return r;
}
// "" where `got` holds what `want` does, else the first byte that differs
// (its offset from base()).
std::string difference(const Layout& got, const Layout& want) {
  const auto m = std::mismatch(got.bytes.begin(), got.bytes.end(), want.bytes.begin());
  if (m.first == got.bytes.end()) return "";
  return "byte " + std::to_string((m.first - got.bytes.begin()) - Layout::kMargin + got.lo) + " is " +
         std::to_string(static_cast<unsigned char>(*m.first)) + ", not " +
         std::to_string(static_cast<unsigned char>(*m.second));
}

void run_round(std::uint64_t seed, int round) {
  const int me = mpitest::rank(), p = mpitest::size(), last = p - 1;
  Draw d{(seed * 1000003 + static_cast<std::uint64_t>(round)) * 0x9E3779B97F4A7C15ull + 1};
  SCOPED_TRACE("round " + std::to_string(round));  // (the struct checks in make())
  Model t = make(d, 1 + d.below(3));
  ASSERT_EQ(MPI_Type_commit(&t.type), MPI_SUCCESS);
  const int count = d.below(4) == 0 ? 0 : 1 + d.below(t.map.size() > 20000 ? 2 : 6);
  SCOPED_TRACE(std::to_string(count) + " x " + t.name);

  // Size and bounds.
  int size;
  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Type_size(t.type, &size);
  MPI_Type_get_extent(t.type, &lb, &extent);
  MPI_Type_get_true_extent(t.type, &true_lb, &true_extent);
  long bytes = 0, lo = LONG_MAX, hi = LONG_MIN;
  for (const Elem& e : t.map) {
    bytes += e.bytes();
    lo = std::min(lo, e.disp);
    hi = std::max(hi, e.disp + e.bytes());
  }
  EXPECT_EQ(size, bytes);
  EXPECT_EQ(lb, t.lb);
  EXPECT_EQ(extent, t.extent());
  EXPECT_EQ(true_lb, lo);
  EXPECT_EQ(true_extent, hi - lo);

  const std::vector<Elem> all = instances(t, count);
  span(all, &lo, &hi);
  if (hi - lo > (64L << 20)) {  // the same on every rank: a type too sparse to lay out here
    t.free_type();
    return;
  }
  Layout source(lo, hi);
  fill(source.base(), all, round);
  Layout expected = source;  // what a receive of `all` must leave
  const std::vector<char> packed = packed_of(source.base(), all);
  const bool receivable = !overlapping(all);
  const MPI_Datatype flat = packed_type(all);
  const int half = count / 2;

  // MPI_Pack and MPI_Unpack, in two calls each.
  int pack_size = 0, position = 0;
  MPI_Pack_size(count, t.type, MPI_COMM_WORLD, &pack_size);
  EXPECT_GE(pack_size, static_cast<int>(packed.size()));
  std::vector<char> pack_buf(static_cast<std::size_t>(pack_size) + 1);
  ASSERT_EQ(MPI_Pack(source.base(), half, t.type, pack_buf.data(), pack_size, &position, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Pack(source.base() + half * t.extent(), count - half, t.type, pack_buf.data(), pack_size, &position,
                     MPI_COMM_WORLD),
            MPI_SUCCESS);
  EXPECT_EQ(position, static_cast<int>(packed.size()));
  if (receivable) {
    Layout out(lo, hi);
    int at = 0;
    MPI_Unpack(pack_buf.data(), position, &at, out.base(), half, t.type, MPI_COMM_WORLD);
    MPI_Unpack(pack_buf.data(), position, &at, out.base() + half * t.extent(), count - half, t.type, MPI_COMM_WORLD);
    EXPECT_EQ(difference(out, expected), "") << "MPI_Unpack";
  }

  // Typed to the last rank, received back to back; and the reverse.
  if (p > 1 && me == 0) {
    ASSERT_EQ(MPI_Send(source.base(), count, t.type, last, 1, MPI_COMM_WORLD), MPI_SUCCESS);
    if (receivable) {
      Layout in(lo, hi);
      MPI_Status st;
      ASSERT_EQ(MPI_Recv(in.base(), count + 1, t.type, last, 2, MPI_COMM_WORLD, &st), MPI_SUCCESS);
      int got_count = -1, got_elements = -1;
      MPI_Get_count(&st, t.type, &got_count);
      MPI_Get_elements(&st, t.type, &got_elements);
      EXPECT_EQ(got_count, count);
      EXPECT_EQ(got_elements, static_cast<int>(all.size()));
      EXPECT_EQ(difference(in, expected), "") << "typed receive";
    }
  } else if (p > 1 && me == last) {
    std::vector<char> in(packed.size() + 1);
    ASSERT_EQ(MPI_Recv(in.data(), 1, flat, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    EXPECT_TRUE(std::equal(packed.begin(), packed.end(), in.begin())) << "typed send";
    if (receivable) ASSERT_EQ(MPI_Send(packed.data(), 1, flat, 0, 2, MPI_COMM_WORLD), MPI_SUCCESS);
  }

  // To oneself, nonblocking.
  {
    std::vector<char> in(packed.size() + 1);
    MPI_Request r[2];
    MPI_Irecv(in.data(), 1, flat, me, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(source.base(), count, t.type, me, 3, MPI_COMM_WORLD, &r[1]);
    ASSERT_EQ(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    EXPECT_TRUE(std::equal(packed.begin(), packed.end(), in.begin())) << "send to self";
  }

  if (receivable) {
    Layout b = me == 0 ? source : Layout(lo, hi);
    ASSERT_EQ(MPI_Bcast(b.base(), count, t.type, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(difference(b, expected), "") << "MPI_Bcast";
  }

  // MPI_Allgather: rank r's instances at instance r * count, the same values.
  const std::vector<Elem> gathered = instances(t, count * p);
  if (static_cast<long>(gathered.size()) <= 400000 && !overlapping(gathered)) {
    long glo, ghi;
    span(gathered, &glo, &ghi);
    Layout got(glo, ghi), want(glo, ghi);
    for (std::size_t k = 0; k < gathered.size(); ++k)
      std::memcpy(want.base() + gathered[k].disp, source.base() + all[k % all.size()].disp,
                  static_cast<std::size_t>(gathered[k].bytes()));
    ASSERT_EQ(MPI_Allgather(source.base(), count, t.type, got.base(), count, t.type, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT_EQ(difference(got, want), "") << "MPI_Allgather";
  }
  MPI_Datatype f = flat;
  MPI_Type_free(&f);
  t.free_type();
}

TEST(DatatypeFuzz, RandomTypesMoveAsTheirTypeMapsSay) {
  for (int round = 0; round < 60; ++round) {
    run_round(7, round);
    if (HasFailure()) return;
  }
}

}  // namespace

MPI_TEST_MAIN()
