/* Launch geometry of one-thread-per-entry kernels with a grid-stride loop
 * (CUDA, precompiled or NVRTC; cl_grid_1d is for the host that launches). */
#ifndef CL_GRID_H
#define CL_GRID_H

#define CL_THREADS 256

#define CL_GRID_STRIDE(i, n) \
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n); i += (size_t)gridDim.x * blockDim.x)

#ifndef __CUDACC_RTC__
#include <stddef.h>

/* Blocks of `threads` covering n entries. */
static inline unsigned cl_grid_blocks(size_t n, unsigned threads) {
  size_t blocks = (n + threads - 1) / threads;
  const size_t cap = (size_t)1 << 20; /* grid-stride loops cover the rest */
  return (unsigned)(blocks == 0 ? 1 : blocks > cap ? cap : blocks);
}

static inline unsigned cl_grid_1d(size_t n) { return cl_grid_blocks(n, CL_THREADS); }
#endif

#endif
