/* Kernels around a user's expression (cleave.expr, compiled by jit/): a
 * region test over points, and a load value of time written to rows of a
 * field. The generated unit defines cl_jit_region_test(x, y, z, dx) or
 * cl_jit_value(t) before including this header, which gives the loops the
 * cpu entry point and the cuda kernel share. */
#ifndef CL_EXPRESSION_H
#define CL_EXPRESSION_H

#include "real.h"
#include "rows.h"

typedef struct cl_region_args {
  const void *x;   /* n x dim coordinates (SoA, real) */
  size_t n;
  int dim;
  double dx;
  uint8_t *inside; /* out: 1 where the test holds */
} cl_region_args;

typedef struct cl_rows_args {
  void *field;          /* n x k, real */
  size_t n;
  int component;
  const uint32_t *rows; /* count distinct 1-based rows */
  size_t count;
  double t;
  int add;              /* add the value instead of setting it */
} cl_rows_args;

#ifdef CL_JIT_REGION
CL_HD static inline void cl_region_at(const cl_region_args *a, size_t i) {
  const real *x = (const real *)a->x;
  const real px = x[i], py = a->dim > 1 ? x[a->n + i] : 0, pz = a->dim > 2 ? x[2 * a->n + i] : 0;
  a->inside[i] = cl_jit_region_test(px, py, pz, (real)a->dx) ? 1 : 0;
}
#endif

#ifdef CL_JIT_VALUE
CL_HD static inline void cl_rows_at(const cl_rows_args *a, size_t r) {
  cl_set_row((real *)a->field, a->n, a->component, a->rows, r, cl_jit_value((real)a->t), a->add);
}
#endif

#endif
