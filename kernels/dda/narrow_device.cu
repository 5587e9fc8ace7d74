/* The narrow phase's count and write passes on cuda (narrow_kernels.h): a thread a pair. */
#include "../common/launch_cuda.cuh"
#include "narrow_kernels.h"

__global__ void dda_narrow_kernel(cl_dda_narrow_args a) {
  CL_GRID_STRIDE(k, a.npairs) {
    int32_t i = a.pairs[2 * k], j = a.pairs[2 * k + 1];
    if (a.count) a.count[k] = cl_dda_pair_contacts(&a.g, i, j, a.d0, NULL, 0);
    else cl_dda_pair_contacts(&a.g, i, j, a.d0, a.out + a.offset[k], (int)(a.offset[k + 1] - a.offset[k]));
  }
}

extern "C" int cl_dda_narrow_cuda(const cl_dda_narrow_args *a) {
  if (a->npairs == 0) return 0;
  dda_narrow_kernel<<<cl_grid_1d(a->npairs), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}
