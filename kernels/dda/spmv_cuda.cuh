/* The DDA matrix's product on cuda, shared by the launch per operation (pcg_cuda.cu) and the
 * persistent solve (pcg_persistent_cuda.cu): BSR a warp a block row, a long row the whole thread
 * block's (pcg_ops.h: cl_dda_bsr_lane, the order of the sums), HSBCSR a thread a matrix row. The
 * thread block is CL_DDA_BSR_WARPS warps (CL_THREADS, CL_REDUCE_THREADS). */
#ifndef CL_DDA_SPMV_CUDA_CUH
#define CL_DDA_SPMV_CUDA_CUH

#include "../common/blas1.h"
#include "../common/grid.h"
#include "../common/reduce_cuda.cuh"
#include "pcg_ops.h"

static_assert(CL_DDA_BSR_WARPS * 32 == CL_THREADS && CL_THREADS == CL_REDUCE_THREADS,
              "the product's thread block is CL_DDA_BSR_WARPS warps");

/* Entry e of the product's input v, for the thread that will finish entry e (cl_dda_spmv_finish),
 * read before the row's own loads: after out[e]'s store it was one more round trip at the end of
 * every row (out and in may alias as far as the compiler knows). 0 where neither pnew nor dot
 * wants it (the launches' product). */
__device__ static inline real cl_dda_spmv_own(const cl_dda_pcg_args *A, size_t e, const real *p2, real beta,
                                              const real *pnew, const double *dot) {
  return pnew || dot ? cl_dda_spmv_input((const real *)A->in, p2, beta, e) : 0;
}

/* The end of a row's product, by the thread that holds its entry e's sum: out[e], with pnew the
 * direction's entry v (in + beta p2, cl_dda_spmv_own) written there, and this entry's term of
 * v.out added to *dot. */
__device__ static inline void cl_dda_spmv_finish(const cl_dda_pcg_args *A, size_t e, real sum, real v, real *pnew,
                                                 double *dot) {
  ((real *)A->out)[e] = sum;
  if (pnew) pnew[e] = v;
  if (dot) *dot += cl_dot_term(v, sum);
}

/* The pipelined PCG's work on block row i by the lanes of one warp (all call it; lane c < 6 holds
 * nval, entry c of n = A m): each of the six its entry, the row's w shared by shuffles, then its entry
 * of the next m (pcg_ops.h: cl_dda_pipelined_entry, cl_dda_pipelined_m); the terms of the sums into
 * pipe. */
__device__ static inline void cl_dda_pipelined_lanes(const cl_dda_pcg_args *A, size_t i, int lane, real nval,
                                                     double *pipe) {
  const real w = lane < 6 ? cl_dda_pipelined_entry(A, (size_t)lane * A->n + i, &nval, pipe) : 0;
  real ws[6];
  for (int k = 0; k < 6; k++) ws[k] = __shfl_sync(0xffffffffu, w, k);
  if (lane < 6) cl_dda_pipelined_m(A, i, lane, ws);
}

/* A whole thread block's product of the long block row i: warp w's slices 5 w .. 5 w + 4, the warps'
 * sums in warp order by warp 0's lanes 0..5, which finish the row -- or, with pipe (the pipelined
 * PCG's sums), do its pipelined work (cl_dda_pipelined_lanes). Every thread of the block calls it. */
__device__ static void cl_dda_bsr_block_row(const cl_dda_pcg_args *A, size_t i, const real *p2, real beta,
                                            real *pnew, double *dot, double *pipe) {
  __shared__ real warp_sum[CL_DDA_BSR_WARPS][6];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const real own = threadIdx.x < 6 ? cl_dda_spmv_own(A, threadIdx.x * A->n + i, p2, beta, pnew, dot) : 0;
  real acc[6];
  cl_dda_bsr_lane(A, i, warp, CL_DDA_BSR_WARPS, lane, p2, beta, acc);
  for (int off = 16; off > 0; off >>= 1)
    for (int r = 0; r < 6; r++) acc[r] += __shfl_down_sync(0xffffffffu, acc[r], off);
  if (lane == 0)
    for (int r = 0; r < 6; r++) warp_sum[warp][r] = acc[r];
  __syncthreads();
  if (threadIdx.x < 32) {
    real s = 0;
    if (threadIdx.x < 6) {
      s = warp_sum[0][threadIdx.x];
      for (int w = 1; w < CL_DDA_BSR_WARPS; w++) s += warp_sum[w][threadIdx.x];
    }
    if (pipe) cl_dda_pipelined_lanes(A, i, threadIdx.x, s, pipe);
    else if (threadIdx.x < 6) cl_dda_spmv_finish(A, threadIdx.x * A->n + i, s, own, pnew, dot);
  }
  __syncthreads(); /* warp_sum is read before the next long row writes it */
}

/* A warp's product of the short block row i (every lane calls it); with pipe, the row's pipelined
 * work (cl_dda_pipelined_lanes) instead of out's entries. */
__device__ static void cl_dda_bsr_short_row(const cl_dda_pcg_args *A, size_t i, int lane, const real *p2, real beta,
                                            real *pnew, double *dot, double *pipe) {
  const real own = lane < 6 ? cl_dda_spmv_own(A, lane * A->n + i, p2, beta, pnew, dot) : 0;
  real acc[6], mine = 0;
  cl_dda_bsr_lane(A, i, 0, 1, lane, p2, beta, acc);
  for (int off = 16; off > 0; off >>= 1)
    for (int r = 0; r < 6; r++) acc[r] += __shfl_down_sync(0xffffffffu, acc[r], off);
  for (int r = 0; r < 6; r++) { /* entry r's sum from lane 0 to lane r */
    const real s = __shfl_sync(0xffffffffu, acc[r], 0);
    if (lane == r) mine = s;
  }
  if (pipe) cl_dda_pipelined_lanes(A, i, lane, mine, pipe);
  else if (lane < 6) cl_dda_spmv_finish(A, lane * A->n + i, mine, own, pnew, dot);
}

/* out = A_parts v over the grid, v = in (p2 NULL) or in + beta p2 (the direction, written into
 * pnew where not NULL), this thread's terms of v.out added to *dot (not NULL); or, with pipe (the
 * pipelined PCG's n = A m: in = m, the whole matrix), out not written but each block row's sums going
 * to its pipelined work in the lanes that hold them (cl_dda_pipelined_lanes), this thread's terms of
 * r.u, w.u and r.r added to pipe[0..2] (HSBCSR: a thread a block row, its six matrix rows in turn,
 * cl_dda_pipelined_row). BSR: the long rows
 * (A->long_rows) go to thread blocks of their own, the first Lb of the grid (at most half of it),
 * each taking rows Lb apart; warp w of the other thread blocks b takes the short rows (b - Lb) W + w,
 * + (G - Lb) W, ... (W warps a block, G blocks). Where the long row's block took short rows too, it
 * ran its passes and the long row one after another: case 1's block 0 took 12.5 us a product on the
 * H100 against the grid's mean of 5.7, and every other block waited for it at the next barrier. A
 * grid of one block takes its long rows after its short ones. Every thread of the grid calls it (the
 * shuffles and block barriers need them all). */
__device__ static void cl_dda_spmv_grid(const cl_dda_pcg_args *A, const real *p2, real beta, real *pnew,
                                        double *dot, double *pipe) {
  const size_t n = A->n;
  if (A->format != CL_DDA_BSR && pipe) {
    CL_GRID_STRIDE(i, n) {
      real s[6];
      for (int r = 0; r < 6; r++) s[r] = cl_dda_hsbcsr_row(A, (size_t)r * n + i, NULL, 0);
      cl_dda_pipelined_row(A, i, s, pipe);
    }
    return;
  }
  if (A->format != CL_DDA_BSR) {
    CL_GRID_STRIDE(k, 6 * n) {
      const real own = cl_dda_spmv_own(A, k, p2, beta, pnew, dot);
      cl_dda_spmv_finish(A, k, cl_dda_hsbcsr_row(A, k, p2, beta), own, pnew, dot);
    }
    return;
  }
  const int32_t nlong = A->long_rows[0];
  const unsigned grid = gridDim.x, lb = nlong < (int32_t)(grid / 2) ? (unsigned)nlong : grid / 2;
  if (blockIdx.x < lb) {
    for (int32_t k = (int32_t)blockIdx.x; k < nlong; k += (int32_t)lb)
      cl_dda_bsr_block_row(A, (size_t)A->long_rows[1 + k], p2, beta, pnew, dot, pipe);
    return;
  }
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const size_t stride = (size_t)(grid - lb) * CL_DDA_BSR_WARPS;
  for (size_t i = (size_t)(blockIdx.x - lb) * CL_DDA_BSR_WARPS + warp; i < n; i += stride)
    if (!cl_dda_bsr_long(A, i)) cl_dda_bsr_short_row(A, i, lane, p2, beta, pnew, dot, pipe);
  if (lb == 0)
    for (int32_t k = 0; k < nlong; k++)
      cl_dda_bsr_block_row(A, (size_t)A->long_rows[1 + k], p2, beta, pnew, dot, pipe);
}

/* The thread blocks of CL_THREADS (CL_DDA_BSR_WARPS warps) that give the product a thread a
 * matrix row (HSBCSR) or a warp a block row (BSR). */
static inline unsigned cl_dda_spmv_blocks(const cl_dda_pcg_args *A) {
  return A->format == CL_DDA_BSR ? cl_grid_blocks(A->n, CL_DDA_BSR_WARPS) : cl_grid_1d(6 * A->n);
}

#endif
