// QMP collectives (QMP_API.md "Collectives") over collectives/: the torus
// algorithms on a communicator with a torus (the allocated one, a job of a
// -qmp-geom machine, or one with a logical topology), generic ones otherwise.
// Sums give the same bits on every node whatever order messages arrive in.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "collectives/collectives.h"
#include "qmp/internal.h"

using namespace meshmp;
using namespace meshmp::qmp;

namespace {

template <typename T>
void sum(void* io, const void* in, std::size_t n, void*) {
  for (std::size_t i = 0; i < n; ++i) static_cast<T*>(io)[i] += static_cast<const T*>(in)[i];
}
template <typename T>
void max(void* io, const void* in, std::size_t n, void*) {
  for (std::size_t i = 0; i < n; ++i) static_cast<T*>(io)[i] = std::max(static_cast<T*>(io)[i], static_cast<const T*>(in)[i]);
}
template <typename T>
void min(void* io, const void* in, std::size_t n, void*) {
  for (std::size_t i = 0; i < n; ++i) static_cast<T*>(io)[i] = std::min(static_cast<T*>(io)[i], static_cast<const T*>(in)[i]);
}
void bxor(void* io, const void* in, std::size_t n, void*) {
  for (std::size_t i = 0; i < n; ++i) static_cast<unsigned long*>(io)[i] ^= static_cast<const unsigned long*>(in)[i];
}

template <typename T>
collectives::ReduceOp op(void (*f)(void*, const void*, std::size_t, void*)) {
  collectives::ReduceOp o;
  o.combine = f;
  o.keeps_in = true;
  o.elem_size = sizeof(T);
  return o;
}

QMP_status_t combine(QMP_comm_t comm, void* buf, std::size_t count, const collectives::ReduceOp& o, const char* call) {
  if (!check_comm(comm, call)) return state().last_error;
  if (!buf && count) return fail(QMP_INVALID_ARG, call, "value is NULL");
  TimeInQmp timer;
  mesh::Error e = collectives::allreduce(comm->group, buf, count, o);
  return e == mesh::Error::kOk ? QMP_SUCCESS : fail(status_of(e), call, mesh::error_name(e));
}

template <typename T>
QMP_status_t sum_array(QMP_comm_t comm, T* v, int n, const char* call) {
  if (n < 0) return fail(QMP_INVALID_ARG, call, "length < 0");
  return combine(comm, v, static_cast<std::size_t>(n), op<T>(sum<T>), call);
}

}  // namespace

extern "C" {

QMP_status_t QMP_barrier(void) try { return QMP_comm_barrier(state().dflt); } QMP_END_STATUS(QMP_barrier)
QMP_status_t QMP_comm_barrier(QMP_comm_t comm) try {
  if (!check_comm(comm, "QMP_barrier")) return state().last_error;
  TimeInQmp timer;
  mesh::Error e = collectives::barrier(comm->group);
  return e == mesh::Error::kOk ? QMP_SUCCESS : fail(status_of(e), "QMP_barrier", mesh::error_name(e));
} QMP_END_STATUS(QMP_comm_barrier)

QMP_status_t QMP_broadcast(void* buffer, size_t nbytes) try { return QMP_comm_broadcast(state().dflt, buffer, nbytes); } QMP_END_STATUS(QMP_broadcast)
QMP_status_t QMP_comm_broadcast(QMP_comm_t comm, void* buffer, size_t nbytes) try {
  if (!check_comm(comm, "QMP_broadcast")) return state().last_error;
  if (!buffer && nbytes) return fail(QMP_INVALID_ARG, "QMP_broadcast", "buffer is NULL");
  TimeInQmp timer;
  mesh::Error e = collectives::broadcast(comm->group, buffer, nbytes, 0);
  return e == mesh::Error::kOk ? QMP_SUCCESS : fail(status_of(e), "QMP_broadcast", mesh::error_name(e));
} QMP_END_STATUS(QMP_comm_broadcast)

QMP_status_t QMP_sum_int(int* v) try { return QMP_comm_sum_int(state().dflt, v); } QMP_END_STATUS(QMP_sum_int)
QMP_status_t QMP_comm_sum_int(QMP_comm_t c, int* v) try { return sum_array(c, v, 1, "QMP_sum_int"); } QMP_END_STATUS(QMP_comm_sum_int)
QMP_status_t QMP_sum_uint64_t(uint64_t* v) try { return QMP_comm_sum_uint64_t(state().dflt, v); } QMP_END_STATUS(QMP_sum_uint64_t)
QMP_status_t QMP_comm_sum_uint64_t(QMP_comm_t c, uint64_t* v) try { return sum_array(c, v, 1, "QMP_sum_uint64_t"); } QMP_END_STATUS(QMP_comm_sum_uint64_t)
QMP_status_t QMP_sum_float(float* v) try { return QMP_comm_sum_float(state().dflt, v); } QMP_END_STATUS(QMP_sum_float)
QMP_status_t QMP_comm_sum_float(QMP_comm_t c, float* v) try { return sum_array(c, v, 1, "QMP_sum_float"); } QMP_END_STATUS(QMP_comm_sum_float)
QMP_status_t QMP_sum_double(double* v) try { return QMP_comm_sum_double(state().dflt, v); } QMP_END_STATUS(QMP_sum_double)
QMP_status_t QMP_comm_sum_double(QMP_comm_t c, double* v) try { return sum_array(c, v, 1, "QMP_sum_double"); } QMP_END_STATUS(QMP_comm_sum_double)
QMP_status_t QMP_sum_long_double(long double* v) try { return QMP_comm_sum_long_double(state().dflt, v); } QMP_END_STATUS(QMP_sum_long_double)
QMP_status_t QMP_comm_sum_long_double(QMP_comm_t c, long double* v) try { return sum_array(c, v, 1, "QMP_sum_long_double"); } QMP_END_STATUS(QMP_comm_sum_long_double)

QMP_status_t QMP_sum_double_extended(double* v) try { return QMP_comm_sum_double_extended(state().dflt, v); } QMP_END_STATUS(QMP_sum_double_extended)
QMP_status_t QMP_comm_sum_double_extended(QMP_comm_t c, double* v) try {
  if (!v) return fail(QMP_INVALID_ARG, "QMP_sum_double_extended", "value is NULL");
  long double x = *v;
  QMP_status_t st = sum_array(c, &x, 1, "QMP_sum_double_extended");
  if (st == QMP_SUCCESS) *v = static_cast<double>(x);
  return st;
} QMP_END_STATUS(QMP_comm_sum_double_extended)

QMP_status_t QMP_sum_float_array(float v[], int n) try { return QMP_comm_sum_float_array(state().dflt, v, n); } QMP_END_STATUS(QMP_sum_float_array)
QMP_status_t QMP_comm_sum_float_array(QMP_comm_t c, float v[], int n) try { return sum_array(c, v, n, "QMP_sum_float_array"); } QMP_END_STATUS(QMP_comm_sum_float_array)
QMP_status_t QMP_sum_double_array(double v[], int n) try { return QMP_comm_sum_double_array(state().dflt, v, n); } QMP_END_STATUS(QMP_sum_double_array)
QMP_status_t QMP_comm_sum_double_array(QMP_comm_t c, double v[], int n) try { return sum_array(c, v, n, "QMP_sum_double_array"); } QMP_END_STATUS(QMP_comm_sum_double_array)
QMP_status_t QMP_sum_long_double_array(long double v[], int n) try { return QMP_comm_sum_long_double_array(state().dflt, v, n); } QMP_END_STATUS(QMP_sum_long_double_array)
QMP_status_t QMP_comm_sum_long_double_array(QMP_comm_t c, long double v[], int n) try {
  return sum_array(c, v, n, "QMP_sum_long_double_array");
} QMP_END_STATUS(QMP_comm_sum_long_double_array)

QMP_status_t QMP_max_float(float* v) try { return QMP_comm_max_float(state().dflt, v); } QMP_END_STATUS(QMP_max_float)
QMP_status_t QMP_comm_max_float(QMP_comm_t c, float* v) try { return combine(c, v, 1, op<float>(max<float>), "QMP_max_float"); } QMP_END_STATUS(QMP_comm_max_float)
QMP_status_t QMP_max_double(double* v) try { return QMP_comm_max_double(state().dflt, v); } QMP_END_STATUS(QMP_max_double)
QMP_status_t QMP_comm_max_double(QMP_comm_t c, double* v) try { return combine(c, v, 1, op<double>(max<double>), "QMP_max_double"); } QMP_END_STATUS(QMP_comm_max_double)
QMP_status_t QMP_min_float(float* v) try { return QMP_comm_min_float(state().dflt, v); } QMP_END_STATUS(QMP_min_float)
QMP_status_t QMP_comm_min_float(QMP_comm_t c, float* v) try { return combine(c, v, 1, op<float>(min<float>), "QMP_min_float"); } QMP_END_STATUS(QMP_comm_min_float)
QMP_status_t QMP_min_double(double* v) try { return QMP_comm_min_double(state().dflt, v); } QMP_END_STATUS(QMP_min_double)
QMP_status_t QMP_comm_min_double(QMP_comm_t c, double* v) try { return combine(c, v, 1, op<double>(min<double>), "QMP_min_double"); } QMP_END_STATUS(QMP_comm_min_double)
QMP_status_t QMP_xor_ulong(unsigned long* v) try { return QMP_comm_xor_ulong(state().dflt, v); } QMP_END_STATUS(QMP_xor_ulong)
QMP_status_t QMP_comm_xor_ulong(QMP_comm_t c, unsigned long* v) try {
  return combine(c, v, 1, op<unsigned long>(bxor), "QMP_xor_ulong");
} QMP_END_STATUS(QMP_comm_xor_ulong)

QMP_status_t QMP_binary_reduction(void* lbuffer, size_t buflen, QMP_binary_func bfunc) try {
  return QMP_comm_binary_reduction(state().dflt, lbuffer, buflen, bfunc);
} QMP_END_STATUS(QMP_binary_reduction)
QMP_status_t QMP_comm_binary_reduction(QMP_comm_t c, void* lbuffer, size_t buflen, QMP_binary_func bfunc) try {
  if (!bfunc) return fail(QMP_INVALID_ARG, "QMP_binary_reduction", "bfunc is NULL");
  collectives::ReduceOp o;
  o.elem_size = buflen ? buflen : 1;
  o.ctx = reinterpret_cast<void*>(bfunc);
  o.combine = [](void* io, const void* in, std::size_t n, void* ctx) {
    // One element: the whole buffer. The user function takes a non-const `in`.
    if (n) reinterpret_cast<QMP_binary_func>(ctx)(io, const_cast<void*>(in));
  };
  // No bytes: no element (lbuffer may be NULL), and bfunc is not called.
  return combine(c, lbuffer, buflen ? 1 : 0, o, "QMP_binary_reduction");
} QMP_END_STATUS(QMP_comm_binary_reduction)

QMP_status_t QMP_comm_alltoall(QMP_comm_t comm, char* recvbuffer, char* sendbuffer, int count) try {
  if (!check_comm(comm, "QMP_comm_alltoall")) return state().last_error;
  if (count < 0 || (count && (!recvbuffer || !sendbuffer)))
    return fail(QMP_INVALID_ARG, "QMP_comm_alltoall", "NULL buffer or count < 0");
  TimeInQmp timer;
  mesh::Error e = collectives::alltoall(comm->group, sendbuffer, recvbuffer, static_cast<std::size_t>(count));
  return e == mesh::Error::kOk ? QMP_SUCCESS : fail(status_of(e), "QMP_comm_alltoall", mesh::error_name(e));
} QMP_END_STATUS(QMP_comm_alltoall)

}  // extern "C"
