/* Launch geometry for one-thread-per-entry kernels with a grid-stride loop. */
#ifndef CL_LAUNCH_CUDA_CUH
#define CL_LAUNCH_CUDA_CUH

#include <cuda_runtime.h>

#define CL_THREADS 256

static inline unsigned cl_grid_1d(size_t n) {
  size_t blocks = (n + CL_THREADS - 1) / CL_THREADS;
  const size_t cap = (size_t)1 << 20; /* grid-stride loops cover the rest */
  return (unsigned)(blocks == 0 ? 1 : blocks > cap ? cap : blocks);
}

#define CL_GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

#endif
