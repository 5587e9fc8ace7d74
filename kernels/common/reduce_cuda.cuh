/* Two-pass device reduction into a double: each block reduces a grid-stride
 * slice with warp shuffles, a second one-block pass combines the partials.
 * The partials live in the device's scratch buffer (CL_REDUCE_SCRATCH_DOUBLES). */
#ifndef CL_REDUCE_CUDA_CUH
#define CL_REDUCE_CUDA_CUH

#include <cuda_runtime.h>
#include <math.h>

#include "../backend.h"
#include "reduce_ops.h"

#define CL_REDUCE_THREADS 256

enum { CL_COMBINE_MIN = 0, CL_COMBINE_MAX = 1, CL_COMBINE_SUM = 2 };

__device__ __forceinline__ double cl_combine(int how, double a, double b) {
  return how == CL_COMBINE_MIN ? cl_min_nan(a, b) : how == CL_COMBINE_MAX ? cl_max_nan(a, b) : a + b;
}

__device__ __forceinline__ double cl_combine_identity(int how) {
  return how == CL_COMBINE_MIN ? INFINITY : how == CL_COMBINE_MAX ? -INFINITY : 0.0;
}

/* Reduces v over the block; thread 0 gets the result. */
__device__ __forceinline__ double cl_block_reduce(int how, double v) {
  __shared__ double warp_part[CL_REDUCE_THREADS / 32];
  for (int off = 16; off > 0; off >>= 1) v = cl_combine(how, v, __shfl_down_sync(0xffffffffu, v, off));
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_part[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (int)(blockDim.x / 32) ? warp_part[lane] : cl_combine_identity(how);
    for (int off = 16; off > 0; off >>= 1) v = cl_combine(how, v, __shfl_down_sync(0xffffffffu, v, off));
  }
  return v;
}

/* Second pass over nparts partials and copy of the result to the host. */
extern "C" int cl_cuda_reduce_finish(int how, double *scratch, int nparts, double *out);

static inline int cl_reduce_blocks(size_t n) {
  size_t b = (n + CL_REDUCE_THREADS - 1) / CL_REDUCE_THREADS;
  if (b < 1) b = 1;
  return b > CL_REDUCE_MAX_BLOCKS ? CL_REDUCE_MAX_BLOCKS : (int)b;
}

#endif
