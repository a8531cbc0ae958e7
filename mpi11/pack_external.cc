// MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size
// (MPI-2.2 §4.2, "external32" of §13.5.2): every basic value big-endian at
// its standard size -- MPI_LONG and MPI_UNSIGNED_LONG in 4 bytes,
// MPI_WCHAR in 2, MPI_LONG_DOUBLE as an IEEE binary128 in 16 -- so data
// packed here unpack on any machine with any MPI. A value that does not fit
// its external size (a long beyond 32 bits) is MPI_ERR_ARG; so is a datarep
// other than "external32" and a buffer too short.
#include <cfloat>
#include <complex>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "mpi11/internal.h"

using namespace meshmp;
using namespace meshmp::mpi;

namespace {

// kReversed: a 16-byte value (IEEE binary128, a 128-bit integer) whose
// bytes are only reversed; the others go through 64 bits.
enum class Kind { kRaw, kSigned, kUnsigned, kFloat, kLongDouble, kReversed };

// One basic value: where in the instance, its native and external32 sizes.
struct Part {
  MPI_Aint offset;
  std::size_t native, external;
  Kind kind;
};

// The basic values of one instance of a predefined type.
std::vector<Part> parts_of(MPI_Datatype h) {
  auto one = [](std::size_t native, std::size_t external, Kind k) { return std::vector<Part>{{0, native, external, k}}; };
  auto two = [](std::size_t native, std::size_t external, Kind k, MPI_Aint second) {
    return std::vector<Part>{{0, native, external, k}, {second, native, external, k}};
  };
  switch (h) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_PACKED: case MPI_CHARACTER:
    case MPI_INT8_T: case MPI_UINT8_T: case MPI_INTEGER1: case MPI_C_BOOL: case MPI_CXX_BOOL:
      return one(1, 1, Kind::kRaw);
    case MPI_WCHAR: return one(sizeof(wchar_t), 2, Kind::kUnsigned);
    case MPI_SHORT: case MPI_INT16_T: case MPI_INTEGER2: return one(2, 2, Kind::kSigned);
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: return one(2, 2, Kind::kUnsigned);
    case MPI_INT: case MPI_INT32_T: case MPI_INTEGER: case MPI_INTEGER4: case MPI_LOGICAL:
      return one(4, 4, Kind::kSigned);
    case MPI_UNSIGNED: case MPI_UINT32_T: return one(4, 4, Kind::kUnsigned);
    case MPI_LONG: return one(sizeof(long), 4, Kind::kSigned);
    case MPI_UNSIGNED_LONG: return one(sizeof(long), 4, Kind::kUnsigned);
    case MPI_LONG_LONG_INT: case MPI_INT64_T: case MPI_INTEGER8: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
      return one(8, 8, Kind::kSigned);
    case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: return one(8, 8, Kind::kUnsigned);
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4: return one(4, 4, Kind::kFloat);
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: return one(8, 8, Kind::kFloat);
    case MPI_LONG_DOUBLE: return one(sizeof(long double), 16, Kind::kLongDouble);
    case MPI_COMPLEX: case MPI_C_FLOAT_COMPLEX: case MPI_CXX_FLOAT_COMPLEX: case MPI_COMPLEX8: case MPI_2REAL:
      return two(4, 4, Kind::kFloat, 4);
    case MPI_DOUBLE_COMPLEX: case MPI_C_DOUBLE_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX: case MPI_COMPLEX16:
    case MPI_2DOUBLE_PRECISION:
      return two(8, 8, Kind::kFloat, 8);
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX:
      return two(sizeof(long double), 16, Kind::kLongDouble, sizeof(long double));
    case MPI_REAL16: case MPI_INTEGER16: return one(16, 16, Kind::kReversed);
    case MPI_COMPLEX32: return two(16, 16, Kind::kReversed, 16);
    case MPI_2INT: case MPI_2INTEGER: return two(4, 4, Kind::kSigned, 4);
    case MPI_2COMPLEX: return {{0, 4, 4, Kind::kFloat}, {4, 4, 4, Kind::kFloat}, {8, 4, 4, Kind::kFloat}, {12, 4, 4, Kind::kFloat}};
    case MPI_2DOUBLE_COMPLEX:
      return {{0, 8, 8, Kind::kFloat}, {8, 8, 8, Kind::kFloat}, {16, 8, 8, Kind::kFloat}, {24, 8, 8, Kind::kFloat}};
    case MPI_FLOAT_INT: return {{0, 4, 4, Kind::kFloat}, {4, 4, 4, Kind::kSigned}};
    case MPI_DOUBLE_INT: return {{0, 8, 8, Kind::kFloat}, {8, 4, 4, Kind::kSigned}};
    case MPI_LONG_INT: return {{0, sizeof(long), 4, Kind::kSigned}, {sizeof(long), 4, 4, Kind::kSigned}};
    case MPI_SHORT_INT: return {{0, 2, 2, Kind::kSigned}, {4, 4, 4, Kind::kSigned}};
    case MPI_LONG_DOUBLE_INT:
      return {{0, sizeof(long double), 16, Kind::kLongDouble}, {sizeof(long double), 4, 4, Kind::kSigned}};
    default: return {};  // MPI_LB, MPI_UB: no data
  }
}

// The parts of every predefined type, found by its TypeInfo (a derived
// type's leaves are the predefined types' own objects).
const std::vector<Part>& parts_of(const TypeInfo& leaf) {
  static const std::map<const TypeInfo*, std::vector<Part>> table = [] {
    std::map<const TypeInfo*, std::vector<Part>> m;
    for (int h = 1; h < Types::kFirstDerived; ++h)
      if (const TypeInfo* t = type_info(h)) m[t] = parts_of(h);
    return m;
  }();
  static const std::vector<Part> none;
  auto it = table.find(&leaf);
  return it == table.end() ? none : it->second;
}

// f(native offset, part) for every basic value of `count` instances of t,
// in type-map order.
template <typename F>
void for_each_value(const TypeInfo& t, MPI_Aint base, F& f) {
  if (t.predefined) {
    for (const Part& p : parts_of(t)) f(base + p.offset, p);
    return;
  }
  for (const TypeBlock& b : t.blocks)
    for (std::size_t r = 0; r < b.reps; ++r)
      for (std::size_t j = 0; j < b.blocklen; ++j)
        for_each_value(*b.child, base + b.disp + static_cast<MPI_Aint>(r) * b.rep_stride +
                                     static_cast<MPI_Aint>(j) * b.child->extent(), f);
}
template <typename F>
void for_each_value(const TypeInfo& t, std::size_t count, F f) {
  for (std::size_t k = 0; k < count; ++k) for_each_value(t, static_cast<MPI_Aint>(k) * t.extent(), f);
}

std::size_t external_size(const TypeInfo& t, std::size_t count) {
  std::size_t n = 0;
  for_each_value(t, count, [&](MPI_Aint, const Part& p) { n += p.external; });
  return n;
}

// Big-endian bytes <-> unsigned integers of up to 8 bytes.
void put_be(unsigned char* out, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[n - 1 - i] = static_cast<unsigned char>(v >> (8 * i));
}
std::uint64_t get_be(const unsigned char* in, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v = v << 8 | in[i];
  return v;
}
std::uint64_t get_native(const char* p, std::size_t n) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, n);  // little-endian host: the low bytes
  return v;
}
void put_native(char* p, std::uint64_t v, std::size_t n) { std::memcpy(p, &v, n); }

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "external32 conversion written for little-endian hosts");

// The 16 bytes of an IEEE binary128, most significant first, of `ld`.
void long_double_out(const char* native, unsigned char* out) {
  long double ld;
  std::memcpy(&ld, native, sizeof ld);
#if LDBL_MANT_DIG == 113
  unsigned char q[16];
  std::memcpy(q, &ld, 16);
#else
  const __float128 f = static_cast<__float128>(ld);
  unsigned char q[16];
  std::memcpy(q, &f, 16);
#endif
  for (int i = 0; i < 16; ++i) out[i] = q[15 - i];
}
void long_double_in(const unsigned char* in, char* native) {
  unsigned char q[16];
  for (int i = 0; i < 16; ++i) q[i] = in[15 - i];
#if LDBL_MANT_DIG == 113
  long double ld;
  std::memcpy(&ld, q, 16);
#else
  __float128 f;
  std::memcpy(&f, q, 16);
  const long double ld = static_cast<long double>(f);
#endif
  std::memset(native, 0, sizeof(long double));
  std::memcpy(native, &ld, sizeof ld);
}

// `n` bytes in the other byte order (little-endian host <-> big-endian).
template <typename From, typename To>
void reversed(const From* from, To* to, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) to[i] = static_cast<To>(from[n - 1 - i]);
}

// Whether a native integer value fits `external` bytes.
bool fits(std::uint64_t v, std::size_t native, std::size_t external, bool is_signed) {
  if (external >= native) return true;
  const unsigned bits = 8 * static_cast<unsigned>(external);
  if (!is_signed) return v >> bits == 0;
  const auto s = static_cast<std::int64_t>(v << (64 - 8 * native)) >> (64 - 8 * native);  // sign-extended
  return s >= -(std::int64_t{1} << (bits - 1)) && s < (std::int64_t{1} << (bits - 1));
}

int check_rep(const char* call, const char* datarep) {
  if (datarep && std::strcmp(datarep, "external32") == 0) return MPI_SUCCESS;
  return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
               std::string("datarep \"") + (datarep ? datarep : "(null)") + "\" is not \"external32\"");
}

int check_args(const char* call, const char* datarep, int count, MPI_Datatype type, const void* position) {
  if (int err = check_rep(call, datarep)) return err;
  if (int err = check_count(MPI_COMM_NULL, call, count)) return err;
  if (int err = check_type(MPI_COMM_NULL, call, type)) return err;
  if (!position) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "position (or size) is NULL");
  return MPI_SUCCESS;
}

}  // namespace

MESHMP_MPI_FN(int, Pack_external_size, (const char* datarep, int incount, MPI_Datatype datatype, MPI_Aint* size)) {
  const char* call = "MPI_Pack_external_size";
  if (int err = check_args(call, datarep, incount, datatype, size)) return err;
  *size = static_cast<MPI_Aint>(external_size(*type_info(datatype), static_cast<std::size_t>(incount)));
  return MPI_SUCCESS;
} MESHMP_MPI_END(Pack_external_size)

MESHMP_MPI_FN(int, Pack_external, (const char* datarep, const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, MPI_Aint outsize, MPI_Aint* position)) {
  const char* call = "MPI_Pack_external";
  if (int err = check_args(call, datarep, incount, datatype, position)) return err;
  const TypeInfo& t = *type_info(datatype);
  const std::size_t n = external_size(t, static_cast<std::size_t>(incount));
  if (*position < 0 || outsize < *position || static_cast<std::size_t>(outsize - *position) < n)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                 std::to_string(n) + " bytes do not fit outsize - position = " + std::to_string(outsize - *position));
  auto* out = static_cast<unsigned char*>(outbuf) + *position;
  const char* in = static_cast<const char*>(inbuf);
  bool too_big = false;
  for_each_value(t, static_cast<std::size_t>(incount), [&](MPI_Aint at, const Part& p) {
    const char* v = in + at;
    switch (p.kind) {
      case Kind::kRaw: std::memcpy(out, v, p.external); break;
      case Kind::kLongDouble: long_double_out(v, out); break;
      case Kind::kReversed: reversed(v, out, p.external); break;
      default: {
        const std::uint64_t x = get_native(v, p.native);
        too_big |= p.kind != Kind::kFloat && !fits(x, p.native, p.external, p.kind == Kind::kSigned);
        put_be(out, x, p.external);
      }
    }
    out += p.external;
  });
  if (too_big)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "a value does not fit its external32 size (MPI_LONG: 4 bytes)");
  *position += static_cast<MPI_Aint>(n);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Pack_external)

MESHMP_MPI_FN(int, Unpack_external, (const char* datarep, const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf, int outcount, MPI_Datatype datatype)) {
  const char* call = "MPI_Unpack_external";
  if (int err = check_args(call, datarep, outcount, datatype, position)) return err;
  const TypeInfo& t = *type_info(datatype);
  const std::size_t n = external_size(t, static_cast<std::size_t>(outcount));
  if (*position < 0 || insize < *position || static_cast<std::size_t>(insize - *position) < n)
    return raise(MPI_COMM_NULL, call, MPI_ERR_ARG,
                 std::to_string(n) + " bytes are wanted and insize - position = " + std::to_string(insize - *position));
  const auto* in = static_cast<const unsigned char*>(inbuf) + *position;
  char* out = static_cast<char*>(outbuf);
  for_each_value(t, static_cast<std::size_t>(outcount), [&](MPI_Aint at, const Part& p) {
    char* v = out + at;
    switch (p.kind) {
      case Kind::kRaw: std::memcpy(v, in, p.external); break;
      case Kind::kLongDouble: long_double_in(in, v); break;
      case Kind::kReversed: reversed(in, v, p.external); break;
      default: {
        std::uint64_t x = get_be(in, p.external);
        if (p.kind == Kind::kSigned && p.native > p.external && (x >> (8 * p.external - 1) & 1))
          x |= ~std::uint64_t{0} << (8 * p.external);  // sign-extend
        put_native(v, x, p.native);
      }
    }
    in += p.external;
  });
  *position += static_cast<MPI_Aint>(n);
  return MPI_SUCCESS;
} MESHMP_MPI_END(Unpack_external)
