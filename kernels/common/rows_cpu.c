#include "../backend.h"
#include "rows.h"

void CL_PREC(cl_set_rows_cpu)(void *field, size_t n, int component, const uint32_t *rows,
                              size_t count, double value, int add) {
  /* a row costs a store (a team forked for a few rows cost 20 times a small FPM model's step) */
#pragma omp parallel for schedule(static) if (count > CL_CPU_PARALLEL_MIN)
  for (size_t r = 0; r < count; r++) cl_set_row(field, n, component, rows, r, (real)value, add);
}
