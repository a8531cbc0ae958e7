// Reduction operations (MPI-1.1 §4.9): the twelve predefined operations on
// the basic C and Fortran types they are defined for (§4.9.2-4.9.3), and user operations
// from MPI_Op_create (§4.9.4), commutative or not.
//
// The collectives combine `inout = inout (op) in`. A predefined operation
// runs on packed basic elements; a user function gets whole instances of the
// datatype, laid out with its extent, and computes inoutvec = invec (op)
// inoutvec, so for a non-commutative one the operands are passed swapped and
// the result copied back, keeping rank order.
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "mpi11/internal.h"

namespace meshmp::mpi {
namespace {

using Combine = void (*)(void*, const void*, std::size_t, void*);

template <typename T, typename F>
void elementwise(void* io, const void* in, std::size_t n, F f) {
  T* a = static_cast<T*>(io);
  const T* b = static_cast<const T*>(in);
  for (std::size_t i = 0; i < n; ++i) a[i] = f(a[i], b[i]);
}

template <typename T> void op_max(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, [](T a, T b) { return a < b ? b : a; }); }
template <typename T> void op_min(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, [](T a, T b) { return b < a ? b : a; }); }
// Integer sums and products wrap modulo 2^bits (the two's-complement
// result) instead of overflowing, which C++ leaves undefined for signed and
// promoted types: an overflowing MPI_SUM of ints -- or one over a rank's
// stale elements when counts differ (an erroneous program) -- gives bits,
// not undefined behaviour inside the library.
template <typename T>
using Wrapping = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <typename T> T add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return static_cast<T>(static_cast<Wrapping<T>>(a) + static_cast<Wrapping<T>>(b));
  else return static_cast<T>(a + b);
}
template <typename T> T multiply(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return static_cast<T>(static_cast<Wrapping<T>>(a) * static_cast<Wrapping<T>>(b));
  else return static_cast<T>(a * b);
}
template <typename T> void op_sum(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, add<T>); }
template <typename T> void op_prod(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, multiply<T>); }
template <typename T> void op_land(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, [](T a, T b) { return static_cast<T>(a && b); }); }
template <typename T> void op_lor(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, [](T a, T b) { return static_cast<T>(a || b); }); }
template <typename T> void op_lxor(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, [](T a, T b) { return static_cast<T>(!a != !b); }); }
template <typename T> void op_band(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, [](T a, T b) { return static_cast<T>(a & b); }); }
template <typename T> void op_bor(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, [](T a, T b) { return static_cast<T>(a | b); }); }
template <typename T> void op_bxor(void* io, const void* in, std::size_t n, void*) { elementwise<T>(io, in, n, [](T a, T b) { return static_cast<T>(a ^ b); }); }

// MAXLOC/MINLOC on packed (value, index) pairs (§4.9.3): the larger (smaller)
// value; on a tie the smaller index. The index is an int in C's pairs and of
// the value's type in Fortran's (MPI_2REAL: a REAL).
template <typename V, typename I, bool kMax>
void op_loc(void* io, const void* in, std::size_t n, void*) {
  constexpr std::size_t kSize = sizeof(V) + sizeof(I);
  char* a = static_cast<char*>(io);
  const char* b = static_cast<const char*>(in);
  for (std::size_t i = 0; i < n; ++i, a += kSize, b += kSize) {
    V va, vb;
    I ia, ib;
    std::memcpy(&va, a, sizeof va);
    std::memcpy(&vb, b, sizeof vb);
    std::memcpy(&ia, a + sizeof(V), sizeof ia);
    std::memcpy(&ib, b + sizeof(V), sizeof ib);
    const bool take_b = kMax ? vb > va : vb < va;
    if (take_b) std::memcpy(a, b, kSize);
    else if (va == vb && ib < ia) std::memcpy(a + sizeof(V), &ib, sizeof ib);
  }
}

enum Kind { kInteger, kFloating, kByte, kPair, kNone };

Kind kind_of(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_WCHAR: case MPI_SHORT:
    case MPI_UNSIGNED_SHORT: case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG:
    case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG: case MPI_INT8_T: case MPI_INT16_T: case MPI_INT32_T:
    case MPI_INT64_T: case MPI_UINT8_T: case MPI_UINT16_T: case MPI_UINT32_T: case MPI_UINT64_T: case MPI_AINT:
    case MPI_OFFSET: case MPI_COUNT:
      return kInteger;
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_LONG_DOUBLE: case MPI_REAL16: return kFloating;
    case MPI_BYTE: return kByte;
    case MPI_FLOAT_INT: case MPI_DOUBLE_INT: case MPI_LONG_INT: case MPI_SHORT_INT: case MPI_2INT:
    case MPI_LONG_DOUBLE_INT: case MPI_2REAL: case MPI_2DOUBLE_PRECISION: case MPI_2INTEGER:
      return kPair;
    default: return kNone;
  }
}

template <typename T>
Combine arithmetic(MPI_Op op, bool integer) {
  switch (op) {
    case MPI_MAX: return op_max<T>;
    case MPI_MIN: return op_min<T>;
    case MPI_SUM: return op_sum<T>;
    case MPI_PROD: return op_prod<T>;
    default: break;
  }
  if constexpr (std::is_integral_v<T> || std::is_same_v<T, __int128>) {
    if (!integer) return nullptr;
    switch (op) {
      case MPI_LAND: return op_land<T>;
      case MPI_LOR: return op_lor<T>;
      case MPI_LXOR: return op_lxor<T>;
      case MPI_BAND: return op_band<T>;
      case MPI_BOR: return op_bor<T>;
      case MPI_BXOR: return op_bxor<T>;
      default: break;
    }
  }
  return nullptr;
}

template <typename V, typename I = int>
Combine loc(MPI_Op op) {
  return op == MPI_MAXLOC ? op_loc<V, I, true> : op == MPI_MINLOC ? op_loc<V, I, false> : nullptr;
}

// Fortran INTEGERs take the arithmetic and bitwise operations; the logical
// ones are for LOGICAL (§4.9.2).
template <typename T>
Combine fortran_integer(MPI_Op op) {
  return op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR ? nullptr : arithmetic<T>(op, true);
}

// COMPLEX and DOUBLE COMPLEX take MPI_SUM and MPI_PROD (§4.9.2).
template <typename T>
Combine complex(MPI_Op op) {
  using C = std::complex<T>;
  return op == MPI_SUM ? op_sum<C> : op == MPI_PROD ? op_prod<C> : nullptr;
}

// COMPLEX32: two IEEE binary128 REALs (std::complex is for the standard
// floating types only), MPI_SUM and MPI_PROD.
struct Complex32 {
  __float128 re, im;
};
void complex32_sum(void* io, const void* in, std::size_t n, void*) {
  elementwise<Complex32>(io, in, n, [](Complex32 a, Complex32 b) { return Complex32{a.re + b.re, a.im + b.im}; });
}
void complex32_prod(void* io, const void* in, std::size_t n, void*) {
  elementwise<Complex32>(io, in, n, [](Complex32 a, Complex32 b) {
    return Complex32{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  });
}

// LOGICAL takes the logical operations; the result is .TRUE. (1) or .FALSE. (0).
Combine logical(MPI_Op op) {
  return op == MPI_LAND ? op_land<std::int32_t> : op == MPI_LOR ? op_lor<std::int32_t>
         : op == MPI_LXOR ? op_lxor<std::int32_t> : nullptr;
}

Combine predefined(MPI_Op op, MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: return arithmetic<char>(op, true);
    case MPI_SIGNED_CHAR: return arithmetic<signed char>(op, true);
    case MPI_UNSIGNED_CHAR: return arithmetic<unsigned char>(op, true);
    case MPI_WCHAR: return arithmetic<wchar_t>(op, true);
    case MPI_SHORT: return arithmetic<short>(op, true);
    case MPI_UNSIGNED_SHORT: return arithmetic<unsigned short>(op, true);
    case MPI_INT: return arithmetic<int>(op, true);
    case MPI_UNSIGNED: return arithmetic<unsigned>(op, true);
    case MPI_LONG: return arithmetic<long>(op, true);
    case MPI_UNSIGNED_LONG: return arithmetic<unsigned long>(op, true);
    case MPI_LONG_LONG_INT: return arithmetic<long long>(op, true);
    case MPI_UNSIGNED_LONG_LONG: return arithmetic<unsigned long long>(op, true);
    case MPI_FLOAT: return arithmetic<float>(op, false);
    case MPI_DOUBLE: return arithmetic<double>(op, false);
    case MPI_LONG_DOUBLE: return arithmetic<long double>(op, false);
    case MPI_BYTE:
      return op == MPI_BAND ? op_band<unsigned char> : op == MPI_BOR ? op_bor<unsigned char>
             : op == MPI_BXOR ? op_bxor<unsigned char> : nullptr;
    case MPI_FLOAT_INT: return loc<float>(op);
    case MPI_DOUBLE_INT: return loc<double>(op);
    case MPI_LONG_INT: return loc<long>(op);
    case MPI_SHORT_INT: return loc<short>(op);
    case MPI_2INT: return loc<int>(op);
    case MPI_LONG_DOUBLE_INT: return loc<long double>(op);
    case MPI_INTEGER: case MPI_INTEGER4: return fortran_integer<std::int32_t>(op);
    case MPI_INTEGER1: return fortran_integer<std::int8_t>(op);
    case MPI_INTEGER2: return fortran_integer<std::int16_t>(op);
    case MPI_INTEGER8: return fortran_integer<std::int64_t>(op);
    case MPI_REAL: case MPI_REAL4: return arithmetic<float>(op, false);
    case MPI_DOUBLE_PRECISION: case MPI_REAL8: return arithmetic<double>(op, false);
    case MPI_COMPLEX: return complex<float>(op);
    case MPI_DOUBLE_COMPLEX: return complex<double>(op);
    case MPI_LOGICAL: return logical(op);
    case MPI_2REAL: return loc<float, float>(op);
    case MPI_2DOUBLE_PRECISION: return loc<double, double>(op);
    case MPI_2INTEGER: return loc<std::int32_t, std::int32_t>(op);
    case MPI_INT8_T: return arithmetic<std::int8_t>(op, true);
    case MPI_INT16_T: return arithmetic<std::int16_t>(op, true);
    case MPI_INT32_T: return arithmetic<std::int32_t>(op, true);
    case MPI_INT64_T: return arithmetic<std::int64_t>(op, true);
    case MPI_UINT8_T: return arithmetic<std::uint8_t>(op, true);
    case MPI_UINT16_T: return arithmetic<std::uint16_t>(op, true);
    case MPI_UINT32_T: return arithmetic<std::uint32_t>(op, true);
    case MPI_UINT64_T: return arithmetic<std::uint64_t>(op, true);
    case MPI_AINT: return arithmetic<MPI_Aint>(op, true);
    case MPI_OFFSET: return arithmetic<MPI_Offset>(op, true);
    case MPI_COUNT: return arithmetic<MPI_Count>(op, true);
    case MPI_C_BOOL: case MPI_CXX_BOOL:
      return op == MPI_LAND ? op_land<bool> : op == MPI_LOR ? op_lor<bool> : op == MPI_LXOR ? op_lxor<bool> : nullptr;
    case MPI_C_FLOAT_COMPLEX: case MPI_CXX_FLOAT_COMPLEX: case MPI_COMPLEX8: return complex<float>(op);
    case MPI_C_DOUBLE_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX: case MPI_COMPLEX16: return complex<double>(op);
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX: return complex<long double>(op);
    case MPI_REAL16: return arithmetic<__float128>(op, false);
    case MPI_COMPLEX32: return op == MPI_SUM ? complex32_sum : op == MPI_PROD ? complex32_prod : nullptr;
    case MPI_INTEGER16: return fortran_integer<__int128>(op);
    default: return nullptr;
  }
}

const char* op_name(MPI_Op op) {
  static const char* const names[] = {"MPI_OP_NULL", "MPI_MAX",  "MPI_MIN",    "MPI_SUM",    "MPI_PROD",
                                      "MPI_LAND",    "MPI_BAND", "MPI_LOR",    "MPI_BOR",    "MPI_LXOR",
                                      "MPI_BXOR",    "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"};
  return op >= 0 && op <= MPI_NO_OP ? names[op] : "a user operation";
}

// A predefined operation (MPI_REPLACE and MPI_NO_OP too), which
// MPI_Op_free refuses.
bool is_predefined(MPI_Op op) { return op > MPI_OP_NULL && op <= MPI_NO_OP; }

constexpr MPI_Op kFirstUser = 32;

struct UserOp {
  MPI_User_function* fn = nullptr;
  bool commute = true;
};
std::vector<UserOp>& user_ops() {
  static std::vector<UserOp> ops(kFirstUser);
  return ops;
}

// The user function sees instance addresses (work pointer - lb).
void user_commutative(void* io, const void* in, std::size_t n, void* ctx) {
  const Reduction& r = *static_cast<const Reduction*>(ctx);
  int len = static_cast<int>(n);
  MPI_Datatype t = r.type;
  r.user(const_cast<char*>(static_cast<const char*>(in)) - r.lb, static_cast<char*>(io) - r.lb, &len, &t);
}

void user_ordered(void* io, const void* in, std::size_t n, void* ctx) {
  const Reduction& r = *static_cast<const Reduction*>(ctx);
  int len = static_cast<int>(n);
  MPI_Datatype t = r.type;
  char* right = const_cast<char*>(static_cast<const char*>(in));
  r.user(static_cast<char*>(io) - r.lb, right - r.lb, &len, &t);  // right = io (op) right
  std::memcpy(io, right, n * r.op.elem_size);
}

}  // namespace

int make_reduction(MPI_Comm comm, const char* call, MPI_Op op, MPI_Datatype type, Reduction* out) {
  const TypeInfo& t = *type_info(type);
  out->type = type;
  if (op == MPI_REPLACE || op == MPI_NO_OP)
    return raise(comm, call, MPI_ERR_OP,
                 std::string(op_name(op)) + " is for one-sided accumulate operations only (MPI-3.1 §11.3.4)");
  if (op > MPI_OP_NULL && op <= MPI_MINLOC) {
    Combine f = t.uniform ? predefined(op, t.uniform) : nullptr;
    if (!f) {
      const TypeInfo* u = type_info(t.uniform);
      return raise(comm, call, MPI_ERR_OP,
                   std::string(op_name(op)) + " is not defined for " + (u ? u->name : "a datatype that mixes basic types") +
                       (kind_of(t.uniform) == kPair ? " (pair types take MPI_MAXLOC/MPI_MINLOC)" : ""));
    }
    out->op.combine = f;
    out->op.keeps_in = true;
    out->op.elem_size = type_info(t.uniform)->size;
    out->packed = true;
    out->elems_per_instance = t.size / out->op.elem_size;
    return MPI_SUCCESS;
  }
  if (op < kFirstUser || op >= static_cast<int>(user_ops().size()) || !user_ops()[op].fn)
    return raise(comm, call, MPI_ERR_OP, "op " + std::to_string(op) + " is not an operation");
  const UserOp& u = user_ops()[op];
  if (t.extent() <= 0) return raise(comm, call, MPI_ERR_TYPE, "a user operation needs a datatype of positive extent");
  out->user = u.fn;
  out->lb = t.lb;
  out->packed = false;
  out->op.elem_size = static_cast<std::size_t>(t.extent());
  out->op.commutative = u.commute;
  out->op.combine = u.commute ? user_commutative : user_ordered;
  out->op.ctx = out;
  return MPI_SUCCESS;
}

}  // namespace meshmp::mpi

using namespace meshmp::mpi;

MESHMP_MPI_FN(int, Op_create, (MPI_User_function* function, int commute, MPI_Op* op)) {
  if (!function || !op) return raise(MPI_COMM_NULL, "MPI_Op_create", MPI_ERR_ARG, "function or op is NULL");
  auto& ops = user_ops();
  MPI_Op h = kFirstUser;
  while (h < static_cast<int>(ops.size()) && ops[h].fn) ++h;
  if (h == static_cast<int>(ops.size())) ops.emplace_back();
  ops[h] = UserOp{function, commute != 0};
  *op = h;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Op_create)

MESHMP_MPI_FN(int, Op_free, (MPI_Op* op)) {
  if (!op) return raise(MPI_COMM_NULL, "MPI_Op_free", MPI_ERR_ARG, "op is NULL");
  auto& ops = user_ops();
  if (is_predefined(*op)) return raise(MPI_COMM_NULL, "MPI_Op_free", MPI_ERR_OP, "a predefined operation cannot be freed");
  if (*op < kFirstUser || *op >= static_cast<int>(ops.size()) || !ops[*op].fn)
    return raise(MPI_COMM_NULL, "MPI_Op_free", MPI_ERR_OP, "op " + std::to_string(*op) + " is not an operation");
  ops[*op] = UserOp{};
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Op_free)

// MPI-2.2 §5.9.5: whether op is commutative -- every predefined one of the
// collectives is, a user one as MPI_Op_create was told. MPI_REPLACE
// (a op b = b) and MPI_NO_OP (a op b = a) are not, as MPICH says too.
MESHMP_MPI_FN(int, Op_commutative, (MPI_Op op, int* commute)) {
  const char* call = "MPI_Op_commutative";
  if (!commute) return raise(MPI_COMM_NULL, call, MPI_ERR_ARG, "commute is NULL");
  if (is_predefined(op)) {
    *commute = op == MPI_REPLACE || op == MPI_NO_OP ? 0 : 1;
    return MPI_SUCCESS;
  }
  const auto& ops = user_ops();
  if (op < kFirstUser || op >= static_cast<int>(ops.size()) || !ops[op].fn)
    return raise(MPI_COMM_NULL, call, MPI_ERR_OP, "op " + std::to_string(op) + " is not an operation");
  *commute = ops[op].commute ? 1 : 0;
  return MPI_SUCCESS;
} MESHMP_MPI_END(Op_commutative)
