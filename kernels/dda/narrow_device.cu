/* The narrow phase's count and write passes on cuda (narrow_kernels.h): a thread a pair. */
#include "../common/launch_cuda.cuh"
#include "narrow_kernels.h"

/* Thread blocks of 64: a pair is a long serial chain of f64 work (both blocks' boxes, each block's
 * vertices against the other's edges, the vertex pairs), and case 1's ~17 000 pairs in blocks of
 * 256 filled 66 of the H100's 132 SMs with 8 warps each (129 us a pass); in blocks of 64 they take
 * every SM, a warp a scheduler. */
#define CL_DDA_NARROW_THREADS 64

__global__ void __launch_bounds__(CL_DDA_NARROW_THREADS) dda_narrow_kernel(cl_dda_narrow_args a) {
  CL_GRID_STRIDE(k, a.npairs) {
    int32_t i = a.pairs[2 * k], j = a.pairs[2 * k + 1];
    if (a.count) a.count[k] = cl_dda_pair_contacts(&a.g, i, j, a.d0, NULL, 0);
    else cl_dda_pair_contacts(&a.g, i, j, a.d0, a.out + a.offset[k], (int)(a.offset[k + 1] - a.offset[k]));
  }
}

extern "C" int cl_dda_narrow_cuda(const cl_dda_narrow_args *a) {
  if (a->npairs == 0) return 0;
  dda_narrow_kernel<<<cl_grid_blocks(a->npairs, CL_DDA_NARROW_THREADS), CL_DDA_NARROW_THREADS>>>(*a);
  return (int)cudaGetLastError();
}
