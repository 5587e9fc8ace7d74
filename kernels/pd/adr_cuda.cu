#include "../common/launch_cuda.cuh"
#include "../common/reduce_cuda.cuh"
#include "adr.h"
#include "force.h"

__global__ void CL_PREC(adr_quotient_kernel)(size_t count, size_t n, const real *u, const real *v,
                                             const real *f, const real *f_prev, const real *lambda,
                                             double *partials) {
  double sn = 0, sd = 0;
  CL_GRID_STRIDE(e, count) {
    double a, b;
    cl_pd_adr_terms(u, v, f, f_prev, lambda, n, e, &a, &b);
    sn += a, sd += b;
  }
  sn = cl_block_reduce(CL_COMBINE_SUM, sn);
  __syncthreads(); /* the shared partials are reused by the second reduction */
  sd = cl_block_reduce(CL_COMBINE_SUM, sd);
  if (threadIdx.x == 0) partials[blockIdx.x] = sn, partials[CL_REDUCE_MAX_BLOCKS / 2 + blockIdx.x] = sd;
}

__global__ void CL_PREC(adr_update_kernel)(size_t count, size_t n, real *u, real *v, const real *f,
                                           real *f_prev, const real *lambda, real damping, int first) {
  CL_GRID_STRIDE(e, count) cl_pd_adr_step(u, v, f, f_prev, lambda, n, e, damping, first);
}

extern "C" int CL_PREC(cl_pd_adr_quotient_cuda)(size_t count, size_t n, const void *u, const void *v,
                                                const void *f, const void *f_prev, const void *lambda,
                                                double *scratch, double *num, double *den) {
  int blocks = cl_reduce_blocks(count);
  if (blocks > CL_REDUCE_MAX_BLOCKS / 2) blocks = CL_REDUCE_MAX_BLOCKS / 2;
  CL_PREC(adr_quotient_kernel)<<<blocks, CL_REDUCE_THREADS>>>(count, n, (const real *)u, (const real *)v,
                                                              (const real *)f, (const real *)f_prev,
                                                              (const real *)lambda, scratch);
  int e = (int)cudaGetLastError();
  if (e) return e;
  double partials[CL_REDUCE_MAX_BLOCKS];
  if ((e = (int)cudaMemcpy(partials, scratch, sizeof partials, cudaMemcpyDeviceToHost))) return e;
  *num = *den = 0;
  for (int b = 0; b < blocks; b++) *num += partials[b], *den += partials[CL_REDUCE_MAX_BLOCKS / 2 + b];
  return 0;
}

extern "C" int CL_PREC(cl_pd_adr_update_cuda)(size_t count, size_t n, void *u, void *v, const void *f,
                                              void *f_prev, const void *lambda, double damping, int first) {
  if (count == 0) return 0;
  CL_PREC(adr_update_kernel)<<<cl_grid_1d(count), CL_THREADS>>>(count, n, (real *)u, (real *)v, (const real *)f,
                                                                (real *)f_prev, (const real *)lambda,
                                                                (real)damping, first);
  return (int)cudaGetLastError();
}
