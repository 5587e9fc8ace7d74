#include "../backend.h"
#include "rows.h"

void CL_PREC(cl_set_rows_cpu)(void *field, size_t n, int component, const uint32_t *rows,
                              size_t count, double value, int add) {
#pragma omp parallel for schedule(static)
  for (size_t r = 0; r < count; r++) cl_set_row(field, n, component, rows, r, (real)value, add);
}
