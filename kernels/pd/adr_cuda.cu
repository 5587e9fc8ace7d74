#include "../common/exact_sum.h"
#include "../common/launch_cuda.cuh"
#include "../common/reduce_cuda.cuh"
#include "adr.h"
#include "relax.h"

/* The quotient's terms of the first `owned` rows of n (as adr_cpu.c): the largest |terms| per
 * block into partials[b] and partials[CL_REDUCE_MAX_BLOCKS / 2 + b]. */
__global__ void CL_PREC(adr_max_kernel)(size_t owned, int dim, size_t n, const real *u, const real *v,
                                        const real *f, const real *f_prev, const real *lambda, double *partials) {
  double mn = 0, md = 0;
  CL_GRID_STRIDE(j, owned * (size_t)dim) {
    double a, b;
    cl_pd_adr_terms(u, v, f, f_prev, lambda, n, j / owned * n + j % owned, &a, &b);
    mn = fmax(mn, fabs(a)), md = fmax(md, b);
  }
  mn = cl_block_reduce(CL_COMBINE_MAX, mn);
  __syncthreads(); /* the shared partials are reused by the second reduction */
  md = cl_block_reduce(CL_COMBINE_MAX, md);
  if (threadIdx.x == 0) partials[blockIdx.x] = mn, partials[CL_REDUCE_MAX_BLOCKS / 2 + blockIdx.x] = md;
}

/* The fixed-point limbs of the two sums (kernels/common/exact_sum.h), added into acc by integer
 * atomics: in any order, the same bits. */
__global__ void CL_PREC(adr_sum_kernel)(size_t owned, int dim, size_t n, const real *u, const real *v,
                                        const real *f, const real *f_prev, const real *lambda, int scale_num,
                                        int scale_den, unsigned long long *acc) {
  long long s[2 * CL_EXACT_LIMBS] = {0};
  CL_GRID_STRIDE(j, owned * (size_t)dim) {
    double a, b;
    cl_pd_adr_terms(u, v, f, f_prev, lambda, n, j / owned * n + j % owned, &a, &b);
    cl_exact_add(s, a, scale_num), cl_exact_add(s + CL_EXACT_LIMBS, b, scale_den);
  }
  for (int k = 0; k < 2 * CL_EXACT_LIMBS; k++) {
    long long w = s[k];
    for (int off = 16; off > 0; off >>= 1) w += __shfl_down_sync(0xffffffffu, w, off);
    if ((threadIdx.x & 31) == 0 && w) atomicAdd(&acc[k], (unsigned long long)w); /* two's complement: signed sums */
  }
}

__global__ void CL_PREC(adr_update_kernel)(size_t count, size_t n, real *u, real *v, const real *f,
                                           real *f_prev, const real *lambda, real damping, int first) {
  CL_GRID_STRIDE(e, count) cl_pd_adr_step(u, v, f, f_prev, lambda, n, e, damping, first);
}

static int adr_blocks(size_t count) {
  int blocks = cl_reduce_blocks(count);
  return blocks > CL_REDUCE_MAX_BLOCKS / 2 ? CL_REDUCE_MAX_BLOCKS / 2 : blocks;
}

extern "C" int CL_PREC(cl_pd_adr_quotient_max_cuda)(size_t owned, int dim, size_t n, const void *u, const void *v,
                                                    const void *f, const void *f_prev, const void *lambda,
                                                    double *scratch, double max[2]) {
  int blocks = adr_blocks(owned * (size_t)dim);
  CL_PREC(adr_max_kernel)<<<blocks, CL_REDUCE_THREADS>>>(owned, dim, n, (const real *)u, (const real *)v,
                                                         (const real *)f, (const real *)f_prev,
                                                         (const real *)lambda, scratch);
  int e = (int)cudaGetLastError();
  if (e) return e;
  double partials[CL_REDUCE_MAX_BLOCKS];
  if ((e = (int)cudaMemcpy(partials, scratch, sizeof partials, cudaMemcpyDeviceToHost))) return e;
  max[0] = max[1] = 0;
  for (int b = 0; b < blocks; b++)
    max[0] = fmax(max[0], partials[b]), max[1] = fmax(max[1], partials[CL_REDUCE_MAX_BLOCKS / 2 + b]);
  return 0;
}

extern "C" int CL_PREC(cl_pd_adr_quotient_sum_cuda)(size_t owned, int dim, size_t n, const void *u, const void *v,
                                                    const void *f, const void *f_prev, const void *lambda,
                                                    const int scale[2], double *scratch,
                                                    long long acc[2 * CL_EXACT_LIMBS]) {
  unsigned long long *dacc = (unsigned long long *)scratch; /* 8 of the scratch's doubles */
  int e = (int)cudaMemset(dacc, 0, 2 * CL_EXACT_LIMBS * sizeof *dacc);
  if (e) return e;
  CL_PREC(adr_sum_kernel)<<<adr_blocks(owned * (size_t)dim), CL_REDUCE_THREADS>>>(
      owned, dim, n, (const real *)u, (const real *)v, (const real *)f, (const real *)f_prev,
      (const real *)lambda, scale[0], scale[1], dacc);
  if ((e = (int)cudaGetLastError())) return e;
  return (int)cudaMemcpy(acc, dacc, 2 * CL_EXACT_LIMBS * sizeof *dacc, cudaMemcpyDeviceToHost);
}

extern "C" int CL_PREC(cl_pd_adr_update_cuda)(size_t count, size_t n, void *u, void *v, const void *f,
                                              void *f_prev, const void *lambda, double damping, int first) {
  if (count == 0) return 0;
  CL_PREC(adr_update_kernel)<<<cl_grid_1d(count), CL_THREADS>>>(count, n, (real *)u, (real *)v, (const real *)f,
                                                                (real *)f_prev, (const real *)lambda,
                                                                (real)damping, first);
  return (int)cudaGetLastError();
}
