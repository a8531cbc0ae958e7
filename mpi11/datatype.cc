// Datatypes (MPI-1.1 §3.12): the predefined C types, the six constructors,
// extents with MPI_LB/MPI_UB markers, MPI_Pack/Unpack, and the counts of a
// status. A type keeps its constructor's description (blocks of a child
// type, a vector as one strided block), so it costs memory in proportion
// to its arguments, not its elements; one whose map has at most
// kMaxFlatRuns pieces is also flattened at construction into the runs of
// one instance, so packing it is a list of memcpys. Sending or receiving a
// non-contiguous type is one pass into (or out of) a packed buffer; a
// contiguous one is sent straight from the user's memory.
#include <algorithm>
#include <climits>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

constexpr int kFirstDerived = Types::kFirstDerived;

template <typename A, typename B>
struct Pair {
  A a;
  B b;
};

std::shared_ptr<TypeInfo> basic(MPI_Datatype self, const char* name, std::size_t size, std::size_t align) {
  auto t = std::make_shared<TypeInfo>();
  t->in_use = t->predefined = t->committed = true;
  t->name = name;
  t->size = size;
  t->ub = t->true_ub = static_cast<MPI_Aint>(size);
  t->align = align;
  t->flat = true;
  if (size) t->runs.push_back({0, size});
  t->element_sizes = {size};
  t->elements = 1;
  t->uniform = self;
  t->contiguous = true;
  return t;
}

// A value-index pair for MAXLOC/MINLOC (§4.9.3): struct { V value; I index; }.
template <typename V, typename I>
std::shared_ptr<TypeInfo> pair(MPI_Datatype self, const char* name, MPI_Datatype v, MPI_Datatype i) {
  using P = Pair<V, I>;
  auto t = std::make_shared<TypeInfo>();
  t->in_use = t->predefined = t->committed = true;
  t->name = name;
  t->size = sizeof(V) + sizeof(I);
  t->ub = sizeof(P);
  t->true_ub = offsetof(P, b) + sizeof(I);
  t->align = alignof(P);
  if (offsetof(P, b) == sizeof(V)) {
    t->runs.push_back({0, sizeof(V) + sizeof(I)});
  } else {
    t->runs.push_back({0, sizeof(V)});
    t->runs.push_back({static_cast<MPI_Aint>(offsetof(P, b)), sizeof(I)});
  }
  t->flat = true;
  t->element_sizes = {sizeof(V), sizeof(I)};
  t->elements = 2;
  (void)v;
  (void)i;
  t->uniform = self;
  t->contiguous = t->runs.size() == 1 && t->size == sizeof(P);
  return t;
}

}  // namespace

Types::Types() : table(kFirstDerived) {
  table[MPI_CHAR] = basic(MPI_CHAR, "MPI_CHAR", 1, 1);
  table[MPI_SIGNED_CHAR] = basic(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 1);
  table[MPI_UNSIGNED_CHAR] = basic(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 1);
  table[MPI_BYTE] = basic(MPI_BYTE, "MPI_BYTE", 1, 1);
  table[MPI_WCHAR] = basic(MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t), alignof(wchar_t));
  table[MPI_SHORT] = basic(MPI_SHORT, "MPI_SHORT", sizeof(short), alignof(short));
  table[MPI_UNSIGNED_SHORT] = basic(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(short), alignof(short));
  table[MPI_INT] = basic(MPI_INT, "MPI_INT", sizeof(int), alignof(int));
  table[MPI_UNSIGNED] = basic(MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(int), alignof(int));
  table[MPI_LONG] = basic(MPI_LONG, "MPI_LONG", sizeof(long), alignof(long));
  table[MPI_UNSIGNED_LONG] = basic(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(long), alignof(long));
  table[MPI_LONG_LONG_INT] = basic(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", sizeof(long long), alignof(long long));
  table[MPI_UNSIGNED_LONG_LONG] =
      basic(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", sizeof(long long), alignof(long long));
  table[MPI_FLOAT] = basic(MPI_FLOAT, "MPI_FLOAT", sizeof(float), alignof(float));
  table[MPI_DOUBLE] = basic(MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), alignof(double));
  // x86-64 long double: 10 bytes of data in 16; sent whole.
  table[MPI_LONG_DOUBLE] = basic(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), alignof(long double));
  table[MPI_PACKED] = basic(MPI_PACKED, "MPI_PACKED", 1, 1);
  for (MPI_Datatype m : {MPI_LB, MPI_UB}) {
    auto t = std::make_shared<TypeInfo>();
    t->in_use = t->predefined = t->committed = true;
    t->name = m == MPI_LB ? "MPI_LB" : "MPI_UB";
    (m == MPI_LB ? t->lb_marker : t->ub_marker) = true;
    t->flat = true;
    t->contiguous = true;
    table[m] = t;
  }
  table[MPI_FLOAT_INT] = pair<float, int>(MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, MPI_INT);
  table[MPI_DOUBLE_INT] = pair<double, int>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE, MPI_INT);
  table[MPI_LONG_INT] = pair<long, int>(MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, MPI_INT);
  table[MPI_SHORT_INT] = pair<short, int>(MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, MPI_INT);
  table[MPI_2INT] = pair<int, int>(MPI_2INT, "MPI_2INT", MPI_INT, MPI_INT);
  table[MPI_LONG_DOUBLE_INT] =
      pair<long double, int>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, MPI_INT);
  // Fortran (gfortran's sizes): a COMPLEX is one element of two REALs.
  table[MPI_INTEGER] = basic(MPI_INTEGER, "MPI_INTEGER", 4, 4);
  table[MPI_REAL] = basic(MPI_REAL, "MPI_REAL", 4, 4);
  table[MPI_DOUBLE_PRECISION] = basic(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8);
  table[MPI_COMPLEX] = basic(MPI_COMPLEX, "MPI_COMPLEX", 8, 4);
  table[MPI_DOUBLE_COMPLEX] = basic(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 8);
  table[MPI_LOGICAL] = basic(MPI_LOGICAL, "MPI_LOGICAL", 4, 4);
  table[MPI_CHARACTER] = basic(MPI_CHARACTER, "MPI_CHARACTER", 1, 1);
  table[MPI_2REAL] = pair<float, float>(MPI_2REAL, "MPI_2REAL", MPI_REAL, MPI_REAL);
  table[MPI_2DOUBLE_PRECISION] =
      pair<double, double>(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION);
  table[MPI_2INTEGER] = pair<int, int>(MPI_2INTEGER, "MPI_2INTEGER", MPI_INTEGER, MPI_INTEGER);
  table[MPI_INTEGER1] = basic(MPI_INTEGER1, "MPI_INTEGER1", 1, 1);
  table[MPI_INTEGER2] = basic(MPI_INTEGER2, "MPI_INTEGER2", 2, 2);
  table[MPI_INTEGER4] = basic(MPI_INTEGER4, "MPI_INTEGER4", 4, 4);
  table[MPI_INTEGER8] = basic(MPI_INTEGER8, "MPI_INTEGER8", 8, 8);
  table[MPI_REAL4] = basic(MPI_REAL4, "MPI_REAL4", 4, 4);
  table[MPI_REAL8] = basic(MPI_REAL8, "MPI_REAL8", 8, 8);
  table[MPI_2COMPLEX] = pair<std::complex<float>, std::complex<float>>(MPI_2COMPLEX, "MPI_2COMPLEX", MPI_COMPLEX, MPI_COMPLEX);
  table[MPI_2DOUBLE_COMPLEX] = pair<std::complex<double>, std::complex<double>>(
      MPI_2DOUBLE_COMPLEX, "MPI_2DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX, MPI_DOUBLE_COMPLEX);
  // MPI-2.2's C99 types and the multi-language integers.
  table[MPI_INT8_T] = basic(MPI_INT8_T, "MPI_INT8_T", 1, 1);
  table[MPI_INT16_T] = basic(MPI_INT16_T, "MPI_INT16_T", 2, 2);
  table[MPI_INT32_T] = basic(MPI_INT32_T, "MPI_INT32_T", 4, 4);
  table[MPI_INT64_T] = basic(MPI_INT64_T, "MPI_INT64_T", 8, 8);
  table[MPI_UINT8_T] = basic(MPI_UINT8_T, "MPI_UINT8_T", 1, 1);
  table[MPI_UINT16_T] = basic(MPI_UINT16_T, "MPI_UINT16_T", 2, 2);
  table[MPI_UINT32_T] = basic(MPI_UINT32_T, "MPI_UINT32_T", 4, 4);
  table[MPI_UINT64_T] = basic(MPI_UINT64_T, "MPI_UINT64_T", 8, 8);
  table[MPI_C_BOOL] = basic(MPI_C_BOOL, "MPI_C_BOOL", sizeof(bool), alignof(bool));
  table[MPI_C_FLOAT_COMPLEX] = basic(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", 8, 4);
  table[MPI_C_DOUBLE_COMPLEX] = basic(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16, 8);
  table[MPI_C_LONG_DOUBLE_COMPLEX] = basic(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX",
                                           sizeof(std::complex<long double>), alignof(long double));
  table[MPI_AINT] = basic(MPI_AINT, "MPI_AINT", sizeof(MPI_Aint), alignof(MPI_Aint));
  table[MPI_OFFSET] = basic(MPI_OFFSET, "MPI_OFFSET", sizeof(MPI_Offset), alignof(MPI_Offset));
  table[MPI_COUNT] = basic(MPI_COUNT, "MPI_COUNT", sizeof(MPI_Count), alignof(MPI_Count));
  // The rest of MPI-2.2 §16.2.5's sized Fortran types, and the C++ types.
  table[MPI_REAL16] = basic(MPI_REAL16, "MPI_REAL16", sizeof(__float128), alignof(__float128));
  table[MPI_COMPLEX8] = basic(MPI_COMPLEX8, "MPI_COMPLEX8", 8, 4);
  table[MPI_COMPLEX16] = basic(MPI_COMPLEX16, "MPI_COMPLEX16", 16, 8);
  table[MPI_COMPLEX32] = basic(MPI_COMPLEX32, "MPI_COMPLEX32", 2 * sizeof(__float128), alignof(__float128));
  table[MPI_INTEGER16] = basic(MPI_INTEGER16, "MPI_INTEGER16", sizeof(__int128), alignof(__int128));
  table[MPI_CXX_BOOL] = basic(MPI_CXX_BOOL, "MPI_CXX_BOOL", sizeof(bool), alignof(bool));
  table[MPI_CXX_FLOAT_COMPLEX] = basic(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 8, 4);
  table[MPI_CXX_DOUBLE_COMPLEX] = basic(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16, 8);
  table[MPI_CXX_LONG_DOUBLE_COMPLEX] = basic(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX",
                                             sizeof(std::complex<long double>), alignof(long double));
}

MPI_Datatype Types::add(std::shared_ptr<TypeInfo> t) {
  for (std::size_t i = kFirstDerived; i < table.size(); ++i)
    if (!table[i]) {
      table[i] = std::move(t);
      return static_cast<MPI_Datatype>(i);
    }
  table.push_back(std::move(t));
  return static_cast<MPI_Datatype>(table.size() - 1);
}

namespace {

std::shared_ptr<TypeInfo> shared_type(MPI_Datatype t) {
  Types& ts = g_types;
  if (t <= 0 || static_cast<std::size_t>(t) >= ts.table.size()) return nullptr;
  return ts.table[t];
}

// a * b, or std::length_error: no type map may describe more than 2^63 bytes.
std::size_t times(std::size_t a, std::size_t b) {
  std::size_t r;
  if (__builtin_mul_overflow(a, b, &r) || r > static_cast<std::size_t>(std::numeric_limits<MPI_Aint>::max()))
    throw std::length_error("the datatype describes more than 2^63 bytes");
  return r;
}

// Upper bound on the contiguous pieces of one instance of t (saturating at
// kMaxFlatRuns + 1): a block of a dense child -- one run filling its extent
// -- is one piece per repetition.
std::size_t runs_bound(const TypeInfo& t) {
  constexpr std::size_t kOver = TypeInfo::kMaxFlatRuns + 1;
  if (t.flat) return t.runs.size();
  std::size_t n = 0;
  for (const TypeBlock& b : t.blocks) {
    const TypeInfo& c = *b.child;
    const bool dense = c.flat && c.runs.size() == 1 && static_cast<MPI_Aint>(c.size) == c.extent();
    const std::size_t per = dense ? 1 : runs_bound(c);
    std::size_t add = 0;
    if (__builtin_mul_overflow(b.reps, dense ? std::size_t{1} : b.blocklen, &add) ||
        __builtin_mul_overflow(add, per, &add) || add >= kOver || (n += add) >= kOver)
      return kOver;
  }
  return n;
}

}  // namespace

std::shared_ptr<const TypeInfo> keep_type(MPI_Datatype t) { return shared_type(t); }

// Builds a type from its blocks (MPI-1.1 §3.12.3: lb and ub from the LB/UB
// markers if any, else from the data; a struct's ub is padded to its
// strictest alignment, as the C compiler pads a struct). Everything is
// worked out from the blocks' children without visiting their elements.
std::shared_ptr<TypeInfo> build_type(const std::vector<TypeBlock>& blocks, bool pad_to_alignment) {
  auto t = std::make_shared<TypeInfo>();
  t->in_use = true;
  constexpr MPI_Aint kMax = std::numeric_limits<MPI_Aint>::max(), kMin = std::numeric_limits<MPI_Aint>::min();
  MPI_Aint mlb = kMax, rlb = kMax, mub = kMin, rub = kMin, tlb = kMax, tub = kMin;
  bool uniform_set = false;
  for (const TypeBlock& b : blocks) {
    const TypeInfo& c = *b.child;
    if (b.blocklen == 0 || b.reps == 0) continue;
    const MPI_Aint span_j = static_cast<MPI_Aint>(times(b.blocklen - 1, 1)) * c.extent();
    const MPI_Aint span_r = static_cast<MPI_Aint>(b.reps - 1) * b.rep_stride;
    const MPI_Aint first = b.disp + std::min<MPI_Aint>(0, span_j) + std::min<MPI_Aint>(0, span_r);
    const MPI_Aint last = b.disp + std::max<MPI_Aint>(0, span_j) + std::max<MPI_Aint>(0, span_r);
    const MPI_Aint lo = first + c.lb, hi = last + c.ub;
    const bool pure_lb = c.lb_marker && c.runs.empty() && !c.ub_marker && c.size == 0 && c.predefined;
    const bool pure_ub = c.ub_marker && c.runs.empty() && !c.lb_marker && c.size == 0 && c.predefined;
    if (c.lb_marker) mlb = std::min(mlb, lo);
    else if (!pure_ub) rlb = std::min(rlb, lo);
    if (c.ub_marker) mub = std::max(mub, hi);
    else if (!pure_lb) rub = std::max(rub, hi);
    if (pure_lb || pure_ub) continue;
    const std::size_t n = times(b.reps, b.blocklen);
    t->size += times(n, c.size);
    t->elements += times(n, c.elements);
    t->align = std::max(t->align, c.align);
    if (c.size) {
      tlb = std::min(tlb, first + c.true_lb);
      tub = std::max(tub, last + c.true_ub);
      if (!uniform_set) t->uniform = c.uniform, uniform_set = true;
      else if (t->uniform != c.uniform) t->uniform = MPI_DATATYPE_NULL;
    }
    t->blocks.push_back(b);
  }
  t->lb_marker = mlb != kMax;
  t->ub_marker = mub != kMin;
  t->lb = t->lb_marker ? mlb : (rlb != kMax ? rlb : 0);
  t->ub = t->ub_marker ? mub : (rub != kMin ? rub : t->lb);
  if (pad_to_alignment && !t->ub_marker && t->align > 1) {
    const MPI_Aint a = static_cast<MPI_Aint>(t->align), e = t->ub - t->lb;
    if (e % a) t->ub += a - e % a;
  }
  if (t->size) {
    t->true_lb = tlb;
    t->true_ub = tub;
  }
  if (runs_bound(*t) <= TypeInfo::kMaxFlatRuns) {
    std::vector<Run> runs;
    for_each_run(*t, 1, [&](MPI_Aint off, std::size_t len) { runs.push_back({off, len}); });
    t->runs = std::move(runs);
    t->flat = true;
  }
  t->contiguous = t->size == 0 || (t->flat && t->runs.size() == 1 && static_cast<MPI_Aint>(t->size) == t->extent());
  return t;
}

std::shared_ptr<TypeInfo> resize_type(std::shared_ptr<TypeInfo> t, MPI_Aint lb, MPI_Aint extent) {
  t->lb = lb;
  t->ub = lb + extent;
  t->lb_marker = t->ub_marker = true;
  t->contiguous = t->size == 0 || (t->flat && t->runs.size() == 1 && static_cast<MPI_Aint>(t->size) == t->extent());
  return t;
}

int make_type(const char* call, std::shared_ptr<TypeInfo> t, MPI_Datatype* newtype, Envelope env) {
  if (!newtype) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "newtype is NULL");
  for (MPI_Datatype d : env.types) env.kept.push_back(keep_type(d));
  t->envelope = std::move(env);
  *newtype = g_types.add(std::move(t));
  return MPI_SUCCESS;
}

// Checks a constructor's old type: valid (committed or not).
const TypeInfo* old_type(const char* call, MPI_Datatype t, int* err, const char* arg) {
  const TypeInfo* ti = type_info(t);
  if (!ti) *err = raise(MPI_COMM_NULL, call, MPI_ERR_TYPE, std::string(arg) + " is not a valid datatype");
  return ti;
}


int bad_type(MPI_Comm comm, const char* call, MPI_Datatype t, const char* arg) {
  const TypeInfo* ti = type_info(t);
  if (!ti) return raise(comm, call, MPI_ERR_TYPE, std::string(arg) + " is not a valid datatype (" + std::to_string(t) + ")");
  if (!ti->committed) return raise(comm, call, MPI_ERR_TYPE, std::string(arg) + " has not been committed");
  return raise(comm, call, MPI_ERR_TYPE, std::string(arg) + " MPI_LB/MPI_UB carry no data");
}

int bad_count(MPI_Comm comm, const char* call, int count, const char* arg) {
  return raise(comm, call, MPI_ERR_COUNT, std::string(arg) + " = " + std::to_string(count) + " is negative");
}

void pack(const TypeInfo& t, const void* buf, std::size_t count, char* out) {
  const char* base = static_cast<const char*>(buf);
  if (t.contiguous) {
    if (count * t.size != 0) std::memcpy(out, base + t.true_lb, count * t.size);
    return;
  }
  for_each_run(t, count, [&](MPI_Aint off, std::size_t len) {
    std::memcpy(out, base + off, len);
    out += len;
  });
}

void unpack(const TypeInfo& t, const char* in, std::size_t bytes, void* buf, std::size_t count) {
  char* base = static_cast<char*>(buf);
  if (t.contiguous) {
    const std::size_t n = std::min(bytes, count * t.size);
    if (n) std::memcpy(base + t.true_lb, in, n);
    return;
  }
  // Whole instances, then what is left of a partial one.
  const std::size_t whole = t.size ? std::min(count, bytes / t.size) : count;
  auto copy = [&](MPI_Aint off, std::size_t len) {
    const std::size_t n = std::min(bytes, len);
    if (n) std::memcpy(base + off, in, n);
    in += n;
    bytes -= n;
  };
  for_each_run(t, whole, copy);
  if (whole < count && bytes) {
    base += static_cast<MPI_Aint>(whole) * t.extent();
    for_each_run(t, 1, copy);
  }
}

namespace {
// Counts the basic elements of one instance of t, in type-map order, whose
// bytes fit whole in `rem`, taking their bytes off it; sets *stop at the
// first one that does not fit.
std::size_t take_elements(const TypeInfo& t, std::size_t& rem, bool* stop) {
  std::size_t n = 0;
  if (t.predefined) {
    for (std::size_t es : t.element_sizes) {
      if (es > rem) {
        *stop = true;
        return n;
      }
      ++n;
      rem -= es;
    }
    return n;
  }
  for (const TypeBlock& b : t.blocks) {
    const TypeInfo& c = *b.child;
    if (c.size == 0) continue;
    const std::size_t total = b.reps * b.blocklen, fit = std::min(total, rem / c.size);
    n += fit * c.elements;
    rem -= fit * c.size;
    if (fit < total) return n + take_elements(c, rem, stop);
  }
  return n;
}
}  // namespace

std::size_t elements_in(const TypeInfo& t, std::size_t bytes) {
  if (t.size == 0) return 0;
  std::size_t n = bytes / t.size * t.elements, rem = bytes % t.size;
  if (rem == 0) return n;
  bool stop = false;
  n += take_elements(t, rem, &stop);
  return rem ? std::numeric_limits<std::size_t>::max() : n;
}

}  // namespace meshmp::mpi

using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  const char* call = "MPI_Type_contiguous";
  int err;
  if ((err = check_count(MPI_COMM_NULL, call, count))) return err;
  const TypeInfo* o = old_type(call, oldtype, &err);
  if (!o) return err;
  return make_type(call, build_type({{0, static_cast<std::size_t>(count), 1, 0, keep_type(oldtype)}}, false), newtype,
                   {MPI_COMBINER_CONTIGUOUS, {count}, {}, {oldtype}, {}});
} MESHMP_MPI_END(Type_contiguous)

namespace {

// A negative block length is MPI_ERR_ARG, as in MPICH 4.0.2 (the standard
// names no class; a negative count is MPI_ERR_COUNT).
int check_blocklength(const char* call, int blocklength) {
  if (blocklength >= 0) return MPI_SUCCESS;
  return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "blocklength = " + std::to_string(blocklength) + " is negative");
}

// The indexed constructors (§3.12.1-3.12.4): `count` blocks of oldtype,
// block i holding len(i) instances from byte disp(extent, i).
template <typename Len, typename Disp>
int blocks_of(const char* call, int count, MPI_Datatype oldtype, MPI_Datatype* newtype, Len len, Disp disp,
              Envelope env) {
  int err;
  if ((err = check_count(MPI_COMM_NULL, call, count))) return err;
  const TypeInfo* o = old_type(call, oldtype, &err);
  if (!o) return err;
  const std::shared_ptr<const TypeInfo> child = keep_type(oldtype);
  std::vector<TypeBlock> blocks;
  blocks.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    if (len(i) < 0)
      return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "array_of_blocklengths[" + std::to_string(i) + "] is negative");
    blocks.push_back({disp(o->extent(), i), static_cast<std::size_t>(len(i)), 1, 0, child});
  }
  env.types = {oldtype};
  return make_type(call, build_type(blocks, false), newtype, std::move(env));
}

// The vector constructors (§3.12.1-3.12.2): one strided block, whatever the
// count.
int vector_of(const char* call, int count, int blocklength, MPI_Aint stride_bytes, MPI_Datatype oldtype,
              MPI_Datatype* newtype, Envelope env) {
  int err;
  if ((err = check_count(MPI_COMM_NULL, call, count))) return err;
  if ((err = check_blocklength(call, blocklength))) return err;
  if (!old_type(call, oldtype, &err)) return err;
  return make_type(call,
                   build_type({{0, static_cast<std::size_t>(blocklength), static_cast<std::size_t>(count), stride_bytes,
                           keep_type(oldtype)}},
                         false),
                   newtype, std::move(env));
}

int check_arrays(const char* call, int count, const void* lens, const void* disps) {
  if (count > 0 && (!lens || !disps))
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "array_of_blocklengths or array_of_displacements is NULL");
  return MPI_SUCCESS;
}

// An envelope's arguments (MPI-2.2 §4.1.13's table): `head`, then each of
// the `count`-long arrays (which may be NULL when count is 0).
template <typename T>
std::vector<T> args(std::initializer_list<T> head, int count, std::initializer_list<const T*> arrays) {
  std::vector<T> v(head);
  for (const T* a : arrays)
    if (count > 0) v.insert(v.end(), a, a + count);
  return v;
}

}  // namespace

MESHMP_MPI_FN(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  return vector_of("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype,
                   {MPI_COMBINER_HVECTOR_INTEGER, {count, blocklength}, {stride}, {oldtype}, {}});
} MESHMP_MPI_END(Type_hvector)

MESHMP_MPI_FN(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  const TypeInfo* o = type_info(oldtype);
  return vector_of("MPI_Type_vector", count, blocklength, o ? static_cast<MPI_Aint>(stride) * o->extent() : 0, oldtype,
                   newtype, {MPI_COMBINER_VECTOR, {count, blocklength, stride}, {}, {oldtype}, {}});
} MESHMP_MPI_END(Type_vector)

MESHMP_MPI_FN(int, Type_hindexed, (int count, const int* array_of_blocklengths, const MPI_Aint* array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  if (int err = check_arrays("MPI_Type_hindexed", count, array_of_blocklengths, array_of_displacements)) return err;
  return blocks_of("MPI_Type_hindexed", count, oldtype, newtype, [&](int i) { return array_of_blocklengths[i]; },
                   [&](MPI_Aint, int i) { return array_of_displacements[i]; },
                   {MPI_COMBINER_HINDEXED_INTEGER, args<int>({count}, count, {array_of_blocklengths}),
                    args<MPI_Aint>({}, count, {array_of_displacements}), {}, {}});
} MESHMP_MPI_END(Type_hindexed)

MESHMP_MPI_FN(int, Type_indexed, (int count, const int* array_of_blocklengths, const int* array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  if (int err = check_arrays("MPI_Type_indexed", count, array_of_blocklengths, array_of_displacements)) return err;
  return blocks_of("MPI_Type_indexed", count, oldtype, newtype, [&](int i) { return array_of_blocklengths[i]; },
                   [&](MPI_Aint extent, int i) { return array_of_displacements[i] * extent; },
                   {MPI_COMBINER_INDEXED, args<int>({count}, count, {array_of_blocklengths, array_of_displacements}), {},
                    {}, {}});
} MESHMP_MPI_END(Type_indexed)

namespace {
// MPI_Type_struct and MPI_Type_create_struct (§3.12.5).
int struct_of(const char* call, int count, const int* array_of_blocklengths, const MPI_Aint* array_of_displacements,
              const MPI_Datatype* array_of_types, MPI_Datatype* newtype, int combiner) {
  int err;
  if ((err = check_count(MPI_COMM_NULL, call, count))) return err;
  if (count > 0 && (!array_of_blocklengths || !array_of_displacements || !array_of_types))
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "an array argument is NULL");
  std::vector<TypeBlock> blocks;
  blocks.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const std::string arg = "array_of_types[" + std::to_string(i) + "]";
    if (!old_type(call, array_of_types[i], &err, arg.c_str())) return err;
    if (array_of_blocklengths[i] < 0)
      return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "array_of_blocklengths[" + std::to_string(i) + "] is negative");
    blocks.push_back(
        {array_of_displacements[i], static_cast<std::size_t>(array_of_blocklengths[i]), 1, 0, keep_type(array_of_types[i])});
  }
  return make_type(call, build_type(blocks, true), newtype,
                   {combiner, args<int>({count}, count, {array_of_blocklengths}),
                    args<MPI_Aint>({}, count, {array_of_displacements}), args<MPI_Datatype>({}, count, {array_of_types}),
                    {}});
}
}  // namespace

MESHMP_MPI_FN(int, Type_struct, (int count, const int* array_of_blocklengths, const MPI_Aint* array_of_displacements, const MPI_Datatype* array_of_types, MPI_Datatype* newtype)) {
  return struct_of("MPI_Type_struct", count, array_of_blocklengths, array_of_displacements, array_of_types, newtype,
                   MPI_COMBINER_STRUCT_INTEGER);
} MESHMP_MPI_END(Type_struct)

MESHMP_MPI_FN(int, Type_commit, (MPI_Datatype* datatype)) {
  if (!datatype || !type_info(*datatype)) return raise(MPI_COMM_NULL, "MPI_Type_commit", MPI_ERR_TYPE, "datatype is not a valid datatype");
  shared_type(*datatype)->committed = true;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_commit)

MESHMP_MPI_FN(int, Type_free, (MPI_Datatype* datatype)) {
  if (!datatype || !type_info(*datatype)) return raise(MPI_COMM_NULL, "MPI_Type_free", MPI_ERR_TYPE, "datatype is not a valid datatype");
  if (*datatype < kFirstDerived || type_info(*datatype)->predefined)  // MPI_Type_create_f90_*'s too
    return raise(MPI_COMM_NULL, "MPI_Type_free", MPI_ERR_TYPE, "a predefined datatype cannot be freed");
  // Its attributes' delete callbacks first; one that fails keeps the type.
  if (int err = delete_type_attributes(*datatype, "MPI_Type_free")) return err;
  // Requests still using it hold their own reference (keep_type).
  g_types.table[*datatype].reset();
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_free)

namespace {
const TypeInfo* query(const char* call, MPI_Datatype t, const void* out, int* err) {
  const TypeInfo* ti = type_info(t);
  if (!ti) *err = raise(MPI_COMM_NULL, call, MPI_ERR_TYPE, "datatype is not a valid datatype");
  else if (!out) *err = raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "the output argument is NULL"), ti = nullptr;
  return ti;
}
}  // namespace

MESHMP_MPI_FN(int, Type_extent, (MPI_Datatype datatype, MPI_Aint* extent)) {
  int err;
  const TypeInfo* t = query("MPI_Type_extent", datatype, extent, &err);
  if (!t) return err;
  *extent = t->extent();
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_extent)

MESHMP_MPI_FN(int, Type_size, (MPI_Datatype datatype, int* size)) {
  int err;
  const TypeInfo* t = query("MPI_Type_size", datatype, size, &err);
  if (!t) return err;
  *size = t->size > INT_MAX ? MPI_UNDEFINED : static_cast<int>(t->size);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_size)

MESHMP_MPI_FN(int, Type_lb, (MPI_Datatype datatype, MPI_Aint* displacement)) {
  int err;
  const TypeInfo* t = query("MPI_Type_lb", datatype, displacement, &err);
  if (!t) return err;
  *displacement = t->lb;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_lb)

MESHMP_MPI_FN(int, Type_ub, (MPI_Datatype datatype, MPI_Aint* displacement)) {
  int err;
  const TypeInfo* t = query("MPI_Type_ub", datatype, displacement, &err);
  if (!t) return err;
  *displacement = t->ub;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_ub)

MESHMP_MPI_FN(int, Address, (const void* location, MPI_Aint* address)) {
  if (!address) return raise(MPI_COMM_NULL, "MPI_Address", MPI_ERR_ARG, "address is NULL");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Address)

MESHMP_MPI_FN(int, Pack, (const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position, MPI_Comm comm)) {
  const char* call = "MPI_Pack";
  int err;
  if (!check_comm(comm, call, &err)) return err;
  if ((err = check_count(comm, call, incount, "incount")) || (err = check_type(comm, call, datatype))) return err;
  if (!position || *position < 0) return raise(comm, call, MPI_ERR_ARG, "position is NULL or negative");
  const TypeInfo& t = *type_info(datatype);
  const std::size_t n = static_cast<std::size_t>(incount) * t.size;
  if (static_cast<std::size_t>(*position) + n > static_cast<std::size_t>(std::max(outsize, 0)))
    return raise(comm, call, MPI_ERR_ARG,
                 "outsize = " + std::to_string(outsize) + " bytes cannot take " + std::to_string(n) + " more at position " + std::to_string(*position));
  pack(t, inbuf, static_cast<std::size_t>(incount), static_cast<char*>(outbuf) + *position);
  *position += static_cast<int>(n);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Pack)

MESHMP_MPI_FN(int, Unpack, (const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm)) {
  const char* call = "MPI_Unpack";
  int err;
  if (!check_comm(comm, call, &err)) return err;
  if ((err = check_count(comm, call, outcount, "outcount")) || (err = check_type(comm, call, datatype))) return err;
  if (!position || *position < 0) return raise(comm, call, MPI_ERR_ARG, "position is NULL or negative");
  const TypeInfo& t = *type_info(datatype);
  const std::size_t n = static_cast<std::size_t>(outcount) * t.size;
  if (static_cast<std::size_t>(*position) + n > static_cast<std::size_t>(std::max(insize, 0)))
    return raise(comm, call, MPI_ERR_ARG,
                 "insize = " + std::to_string(insize) + " bytes hold fewer than the " + std::to_string(n) + " needed from position " + std::to_string(*position));
  unpack(t, static_cast<const char*>(inbuf) + *position, n, outbuf, static_cast<std::size_t>(outcount));
  *position += static_cast<int>(n);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Unpack)

MESHMP_MPI_FN(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int* size)) {
  const char* call = "MPI_Pack_size";
  int err;
  if (!check_comm(comm, call, &err)) return err;
  if ((err = check_count(comm, call, incount, "incount")) || (err = check_type(comm, call, datatype))) return err;
  if (!size) return raise(comm, call, MPI_ERR_ARG, "size is NULL");
  *size = static_cast<int>(static_cast<std::size_t>(incount) * type_info(datatype)->size);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Pack_size)

MESHMP_MPI_FN(int, Get_count, (const MPI_Status* status, MPI_Datatype datatype, int* count)) {
  if (int err = check_type(MPI_COMM_NULL, "MPI_Get_count", datatype)) return err;
  const TypeInfo* t = type_info(datatype);
  if (!status || !count) return raise(MPI_COMM_NULL, "MPI_Get_count", MPI_ERR_ARG, "status or count is NULL");
  const auto bytes = static_cast<std::size_t>(status->meshmp_bytes);
  if (t->size == 0) *count = bytes == 0 ? 0 : MPI_UNDEFINED;
  else *count = bytes % t->size ? MPI_UNDEFINED : static_cast<int>(bytes / t->size);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Get_count)

MESHMP_MPI_FN(int, Get_elements, (const MPI_Status* status, MPI_Datatype datatype, int* count)) {
  if (int err = check_type(MPI_COMM_NULL, "MPI_Get_elements", datatype)) return err;
  const TypeInfo* t = type_info(datatype);
  if (!status || !count) return raise(MPI_COMM_NULL, "MPI_Get_elements", MPI_ERR_ARG, "status or count is NULL");
  const std::size_t n = elements_in(*t, static_cast<std::size_t>(status->meshmp_bytes));
  *count = n > static_cast<std::size_t>(INT_MAX) ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Get_elements)

// ---- MPI-2 names real MPI-1 programs use ------------------------------------------

MESHMP_MPI_FN(int, Get_address, (const void* location, MPI_Aint* address)) {
  if (!address) return raise(MPI_COMM_NULL, "MPI_Get_address", MPI_ERR_ARG, "address is NULL");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Get_address)

// MPI-3.1 §4.1.12. Addresses are absolute here, so these are integer sums,
// taken modulo 2^64 as the addresses are.
MESHMP_MPI_FN_NOTHROW(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp)) {
  return static_cast<MPI_Aint>(static_cast<unsigned long>(base) + static_cast<unsigned long>(disp));
}
MESHMP_MPI_FN_NOTHROW(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2)) {
  return static_cast<MPI_Aint>(static_cast<unsigned long>(addr1) - static_cast<unsigned long>(addr2));
}

MESHMP_MPI_FN(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  return vector_of("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype,
                   {MPI_COMBINER_HVECTOR, {count, blocklength}, {stride}, {oldtype}, {}});
} MESHMP_MPI_END(Type_create_hvector)

MESHMP_MPI_FN(int, Type_create_hindexed, (int count, const int* array_of_blocklengths, const MPI_Aint* array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  if (int err = check_arrays("MPI_Type_create_hindexed", count, array_of_blocklengths, array_of_displacements)) return err;
  return blocks_of("MPI_Type_create_hindexed", count, oldtype, newtype,
                   [&](int i) { return array_of_blocklengths[i]; }, [&](MPI_Aint, int i) { return array_of_displacements[i]; },
                   {MPI_COMBINER_HINDEXED, args<int>({count}, count, {array_of_blocklengths}),
                    args<MPI_Aint>({}, count, {array_of_displacements}), {}, {}});
} MESHMP_MPI_END(Type_create_hindexed)

// MPI-2.2 §4.1.2: `count` blocks of `blocklength` instances each, at
// displacements in multiples of oldtype's extent (indexed_block) or in bytes
// (hindexed_block).
MESHMP_MPI_FN(int, Type_create_indexed_block, (int count, int blocklength, const int* array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  const char* call = "MPI_Type_create_indexed_block";
  if (int err = check_blocklength(call, blocklength)) return err;
  if (count > 0 && !array_of_displacements)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "array_of_displacements is NULL");
  return blocks_of(call, count, oldtype, newtype, [&](int) { return blocklength; },
                   [&](MPI_Aint extent, int i) { return array_of_displacements[i] * extent; },
                   {MPI_COMBINER_INDEXED_BLOCK, args<int>({count, blocklength}, count, {array_of_displacements}), {}, {},
                    {}});
} MESHMP_MPI_END(Type_create_indexed_block)

MESHMP_MPI_FN(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint* array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  const char* call = "MPI_Type_create_hindexed_block";
  if (int err = check_blocklength(call, blocklength)) return err;
  if (count > 0 && !array_of_displacements)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "array_of_displacements is NULL");
  return blocks_of(call, count, oldtype, newtype, [&](int) { return blocklength; },
                   [&](MPI_Aint, int i) { return array_of_displacements[i]; },
                   {MPI_COMBINER_HINDEXED_BLOCK, {count, blocklength}, args<MPI_Aint>({}, count, {array_of_displacements}),
                    {}, {}});
} MESHMP_MPI_END(Type_create_hindexed_block)

// MPI-2.2 §4.1.10: the same type map, extent and bounds as oldtype, as a
// new handle; committed if oldtype is.
MESHMP_MPI_FN(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype* newtype)) {
  const char* call = "MPI_Type_dup";
  int err;
  const TypeInfo* o = old_type(call, oldtype, &err);
  if (!o) return err;
  std::shared_ptr<TypeInfo> t = build_type({{0, 1, 1, 0, keep_type(oldtype)}}, false);
  t->committed = o->committed;
  if ((err = make_type(call, std::move(t), newtype, {MPI_COMBINER_DUP, {}, {}, {oldtype}, {}}))) return err;
  // Its attributes through their copy callbacks; one that fails takes the new type back.
  if ((err = copy_type_attributes(oldtype, *newtype))) {
    delete_type_attributes(*newtype, call);
    g_types.table[*newtype].reset();
    *newtype = MPI_DATATYPE_NULL;
  }
  return err;
} MESHMP_MPI_END(Type_dup)

MESHMP_MPI_FN(int, Type_create_struct, (int count, const int* array_of_blocklengths, const MPI_Aint* array_of_displacements, const MPI_Datatype* array_of_types, MPI_Datatype* newtype)) {
  return struct_of("MPI_Type_create_struct", count, array_of_blocklengths, array_of_displacements, array_of_types,
                   newtype, MPI_COMBINER_STRUCT);
} MESHMP_MPI_END(Type_create_struct)

// MPI-2 §4.1.7: oldtype's map with lb and ub markers at lb and lb + extent.
MESHMP_MPI_FN(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype)) {
  const char* call = "MPI_Type_create_resized";
  int err;
  const TypeInfo* o = old_type(call, oldtype, &err);
  if (!o) return err;
  return make_type(call, resize_type(build_type({{0, 1, 1, 0, keep_type(oldtype)}}, false), lb, extent), newtype,
                   {MPI_COMBINER_RESIZED, {}, {lb, extent}, {oldtype}, {}});
} MESHMP_MPI_END(Type_create_resized)

MESHMP_MPI_FN(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent)) {
  int err;
  const TypeInfo* t = query("MPI_Type_get_extent", datatype, lb && extent ? lb : nullptr, &err);
  if (!t) return err;
  *lb = t->lb;
  *extent = t->extent();
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_get_extent)

MESHMP_MPI_FN(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent)) {
  int err;
  const TypeInfo* t = query("MPI_Type_get_true_extent", datatype, true_lb && true_extent ? true_lb : nullptr, &err);
  if (!t) return err;
  *true_lb = t->true_lb;
  *true_extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_get_true_extent)

MESHMP_MPI_FN(int, Type_get_name, (MPI_Datatype datatype, char* type_name, int* resultlen)) {
  int err;
  const TypeInfo* t = query("MPI_Type_get_name", datatype, type_name && resultlen ? type_name : nullptr, &err);
  if (!t) return err;
  std::memcpy(type_name, t->name.c_str(), t->name.size() + 1);
  *resultlen = static_cast<int>(t->name.size());
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_get_name)

MESHMP_MPI_FN(int, Type_set_name, (MPI_Datatype datatype, const char* type_name)) {
  int err;
  if (!query("MPI_Type_set_name", datatype, type_name, &err)) return err;
  shared_type(datatype)->name.assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
} MESHMP_MPI_END(Type_set_name)
