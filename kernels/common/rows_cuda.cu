#include "../backend.h"
#include "launch_cuda.cuh"
#include "rows.h"

__global__ void CL_PREC(set_rows_kernel)(real *field, size_t n, int component, const uint32_t *rows,
                                         size_t count, real value, int add) {
  CL_GRID_STRIDE(r, count) cl_set_row(field, n, component, rows, r, value, add);
}

extern "C" int CL_PREC(cl_set_rows_cuda)(void *field, size_t n, int component, const uint32_t *rows,
                                         size_t count, double value, int add) {
  if (count == 0) return 0;
  CL_PREC(set_rows_kernel)<<<cl_grid_1d(count), CL_THREADS>>>((real *)field, n, component, rows, count,
                                                               (real)value, add);
  return (int)cudaGetLastError();
}
