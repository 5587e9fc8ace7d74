#include "../backend.h"
#include "rows.h"

void CL_PREC(cl_set_rows_cpu)(void *field, size_t n, int component, const uint32_t *rows,
                              size_t count, double value, int add) {
  /* a row costs a store: below a few thousand rows, forking a thread team costs more than the work
   * (on a busy 2-core machine, 20 times a small FPM model's whole step) */
#pragma omp parallel for schedule(static) if (count > 4096)
  for (size_t r = 0; r < count; r++) cl_set_row(field, n, component, rows, r, (real)value, add);
}
