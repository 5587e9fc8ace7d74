/* Fill and reductions for every field dtype on the cpu backend. Sums and
 * sums of squares accumulate in double whatever the element type. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "../../runtime/dtype.h"
#include "../../runtime/field.h"
#include "../backend.h"

#define FILL_LOOP(T)                                              \
  do {                                                            \
    T *p = data;                                                  \
    T v = (T)value;                                               \
    _Pragma("omp parallel for schedule(static)")                  \
    for (size_t i = 0; i < count; i++) p[i] = v;                  \
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

#define REDUCE_LOOP(T)                                                                    \
  do {                                                                                    \
    const T *p = data;                                                                    \
    double acc = op == CL_REDUCE_MIN ? INFINITY : op == CL_REDUCE_MAX ? -INFINITY : 0.0; \
    switch (op) {                                                                         \
      case CL_REDUCE_MIN:                                                                 \
        _Pragma("omp parallel for schedule(static) reduction(min : acc)")                \
        for (size_t i = 0; i < count; i++) acc = fmin(acc, (double)p[i]);                 \
        break;                                                                            \
      case CL_REDUCE_MAX:                                                                 \
        _Pragma("omp parallel for schedule(static) reduction(max : acc)")                \
        for (size_t i = 0; i < count; i++) acc = fmax(acc, (double)p[i]);                 \
        break;                                                                            \
      case CL_REDUCE_SUM:                                                                 \
        _Pragma("omp parallel for schedule(static) reduction(+ : acc)")                  \
        for (size_t i = 0; i < count; i++) acc += (double)p[i];                           \
        break;                                                                            \
      default:                                                                            \
        _Pragma("omp parallel for schedule(static) reduction(+ : acc)")                  \
        for (size_t i = 0; i < count; i++) acc += (double)p[i] * (double)p[i];           \
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
