/* dda_precond's vectors between cleave's SoA layout (entry c n + i: pcg_args.h) and the block-major
 * layout of cuSPARSE's BSR solves (entry 6 i + c). */
#include <cuda_runtime.h>
#include <stddef.h>

__global__ static void soa_to_blocks(size_t n, const double *soa, double *blocks) {
  size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < 6 * n) blocks[e] = soa[(e % 6) * n + e / 6];
}

__global__ static void blocks_to_soa(size_t n, const double *blocks, double *soa) {
  size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (e < 6 * n) soa[e] = blocks[6 * (e % n) + e / n];
}

static unsigned grid(size_t n) { return (unsigned)((6 * n + 255) / 256); }

extern "C" int dda_precond_soa_to_blocks(size_t n, const double *soa, double *blocks) {
  if (n) soa_to_blocks<<<grid(n), 256>>>(n, soa, blocks);
  return (int)cudaGetLastError();
}

extern "C" int dda_precond_blocks_to_soa(size_t n, const double *blocks, double *soa) {
  if (n) blocks_to_soa<<<grid(n), 256>>>(n, blocks, soa);
  return (int)cudaGetLastError();
}
