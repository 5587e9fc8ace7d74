/* Fill and reductions for every field dtype on the cpu backend. Sums and
 * sums of squares accumulate in double whatever the element type; min and
 * max propagate NaN (reduce_ops.h). */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "../../runtime/dtype.h"
#include "../../runtime/field.h"
#include "../backend.h"
#include "reduce_ops.h"

#define FILL_LOOP(T)                                                                     \
  do {                                                                                   \
    T *p = data;                                                                         \
    T v = (T)value;                                                                      \
    _Pragma("omp parallel for schedule(static) if (count > CL_CPU_PARALLEL_MIN)")        \
    for (size_t i = 0; i < count; i++) p[i] = v;                                         \
  } while (0)

void cl_fill_cpu(int t, void *data, size_t count, double value) {
  switch ((cl_dtype)t) {
    case CL_F32: FILL_LOOP(float); break;
    case CL_F64: FILL_LOOP(double); break;
    case CL_I32: FILL_LOOP(int32_t); break;
    case CL_U32: FILL_LOOP(uint32_t); break;
    case CL_U8: FILL_LOOP(uint8_t); break;
    default: break;
  }
}

#pragma omp declare reduction(min_nan : double : omp_out = cl_min_nan(omp_out, omp_in)) initializer(omp_priv = INFINITY)
#pragma omp declare reduction(max_nan : double : omp_out = cl_max_nan(omp_out, omp_in)) initializer(omp_priv = -INFINITY)

/* A sum of TERM over i < count into acc: above CL_CPU_PARALLEL_MIN in SUM_CHUNKS fixed chunks, each
 * summed in order, then the chunks' sums in order -- the same bits for any number of threads and on
 * every call (OpenMP's reduction(+) adds the threads' sums in the order they finish: two calls on a
 * 16-core host differed in the last bit). */
#define SUM_CHUNKS 64
#define SUM_LOOP(acc, TERM)                                                               \
  do {                                                                                    \
    if (count <= CL_CPU_PARALLEL_MIN) {                                                   \
      for (size_t i = 0; i < count; i++) acc += TERM;                                     \
      break;                                                                              \
    }                                                                                     \
    double part_[SUM_CHUNKS];                                                             \
    const size_t chunk_ = (count + SUM_CHUNKS - 1) / SUM_CHUNKS;                          \
    _Pragma("omp parallel for schedule(static)")                                          \
    for (int c_ = 0; c_ < SUM_CHUNKS; c_++) {                                             \
      double s_ = 0;                                                                      \
      const size_t end_ = (size_t)(c_ + 1) * chunk_ < count ? (size_t)(c_ + 1) * chunk_ : count; \
      for (size_t i = (size_t)c_ * chunk_; i < end_; i++) s_ += TERM;                     \
      part_[c_] = s_;                                                                     \
    }                                                                                     \
    for (int c_ = 0; c_ < SUM_CHUNKS; c_++) acc += part_[c_];                             \
  } while (0)

#define REDUCE_LOOP(T)                                                                    \
  do {                                                                                    \
    const T *p = data;                                                                    \
    double acc = op == CL_REDUCE_MAX ? -INFINITY : op == CL_REDUCE_SUM || op == CL_REDUCE_NORM2 ? 0.0 : INFINITY; \
    switch (op) {                                                                         \
      case CL_REDUCE_MIN:                                                                 \
        _Pragma("omp parallel for schedule(static) reduction(min_nan : acc) if (count > CL_CPU_PARALLEL_MIN)") \
        for (size_t i = 0; i < count; i++) acc = cl_min_nan(acc, (double)p[i]);           \
        break;                                                                            \
      case CL_REDUCE_MAX:                                                                 \
        _Pragma("omp parallel for schedule(static) reduction(max_nan : acc) if (count > CL_CPU_PARALLEL_MIN)") \
        for (size_t i = 0; i < count; i++) acc = cl_max_nan(acc, (double)p[i]);           \
        break;                                                                            \
      case CL_REDUCE_SUM:                                                                 \
        SUM_LOOP(acc, (double)p[i]);                                                      \
        break;                                                                            \
      case CL_REDUCE_NORM2:                                                               \
        SUM_LOOP(acc, (double)p[i] * (double)p[i]);                                       \
        break;                                                                            \
      default:                                                                            \
        _Pragma("omp parallel for schedule(static) reduction(min : acc) if (count > CL_CPU_PARALLEL_MIN)") \
        for (size_t i = 0; i < count; i++) acc = fmin(acc, cl_nonfinite_index((double)p[i], i)); \
        break;                                                                            \
    }                                                                                     \
    *out = acc;                                                                           \
  } while (0)

void cl_reduce_cpu(int t, const void *data, size_t count, int op, double *out) {
  switch ((cl_dtype)t) {
    case CL_F32: REDUCE_LOOP(float); break;
    case CL_F64: REDUCE_LOOP(double); break;
    case CL_I32: REDUCE_LOOP(int32_t); break;
    case CL_U32: REDUCE_LOOP(uint32_t); break;
    case CL_U8: REDUCE_LOOP(uint8_t); break;
    default: *out = 0; break;
  }
}
