/* The element-wise steps of the field reductions, shared by the cpu loops
 * (array_ops.c) and the cuda kernels (reduce_cuda.cuh, array_ops.cu).
 * fmin/fmax drop a NaN operand, so a field holding NaN would reduce to a
 * finite number; these keep it, as numpy's min and max do (a sum propagates
 * NaN by itself). */
#ifndef CL_REDUCE_OPS_H
#define CL_REDUCE_OPS_H

#include "real.h"

static inline CL_HD double cl_min_nan(double a, double b) { return a != a || b != b ? a + b : b < a ? b : a; }
static inline CL_HD double cl_max_nan(double a, double b) { return a != a || b != b ? a + b : b > a ? b : a; }

/* The value CL_REDUCE_FIRST_NONFINITE takes the minimum of: entry i's index
 * when it is NaN or infinite, +inf otherwise (indices below 2^40 are exact). */
static inline CL_HD double cl_nonfinite_index(double x, size_t i) {
  return x - x != 0 ? (double)i : INFINITY; /* x - x is NaN exactly when x is NaN or +-inf */
}

#endif
