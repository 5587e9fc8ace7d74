/* The whole PCG solve of cl_dda_pcg (pcg.c) as one persistent cooperative kernel: the start
 * (b.b, r = b - A x, z = M^-1 r, p = z, r.z and r.r) and every iteration until the stopping rule
 * (pcg_scalars.h) stops it, the grid kept in step by grid-wide barriers. At case 1's size (26 k
 * unknowns) an iteration's arithmetic is ~1.5 MB of matrix and vectors, under a microsecond of
 * bandwidth; one launch per operation made it 8.5 launches and 0.34 host waits, 165 us. Here a
 * solve is one launch, and its host reads the scalars once.
 *
 * The operations are those of the launches (pcg_ops.h: the same row product, block solves and
 * updates, the same scalar step); only the dots' order of summation differs: each block reduces its
 * grid-stride slice, one grid barrier, then every block sums all the blocks' partials in the same
 * order, so that all hold the same scalars (in shared memory) without a second barrier, and take
 * the same branch of the stopping rule. Block 0 writes them back at the end. The partials alternate
 * between two sets: a block may write the next dot's while a slower one still reads this one's.
 * Block Jacobi's iteration has two barriers, after p.q and after r.z and r.r: the direction
 * p = z + beta p is formed row by row inside the next product (the same expression as the launches'
 * direction pass), into the other of two buffers, instead of a pass and a barrier of its own.
 * The pipelined PCG (cl_dda_pcg_args.pipelined, grid_pipelined) has one barrier an iteration.
 * With rule, a converged solve is followed in the same launch by the open-close rule on its
 * solution (open_close_ops.h), its counts a last grid-wide dot: an open-close iteration's solve and
 * rule are one launch and one host wait. */
#include <cooperative_groups.h>

#include "../common/blas1.h"
#include "../common/launch_cuda.cuh"
#include "../common/reduce_cuda.cuh"
#include "open_close_ops.h"
#include "pcg_kernels.h"
#include "pcg_ops.h"
#include "spmv_cuda.cuh"

namespace cg = cooperative_groups;

/* The block rows, a thread each, 32 consecutive ones a warp, consecutive warps' rows on consecutive
 * thread blocks: a grid-stride loop gave case 1's 4 333 block solves to the first 17 of its 264
 * blocks (17 SMs, 8 warps each); this spreads them over 136 blocks, a warp each, still reading
 * 32 neighbouring words at a time. */
#define CL_DDA_GRID_BLOCK_ROWS(i, n)                                                                  \
  for (size_t i = ((size_t)(threadIdx.x >> 5) * gridDim.x + blockIdx.x) * 32 + (threadIdx.x & 31); i < (n); \
       i += (size_t)gridDim.x * blockDim.x)

/* The block's sums d[0 .. count - 1] (valid in thread 0) in one pass: all shuffled down each warp, one
 * shared stage and one block barrier where reductions in turn took one more each -- the same terms in
 * the same order as cl_block_reduce's. Its shared words are read again only after a grid barrier. */
__device__ static void block_sums(double *d, int count) {
  __shared__ double warp_part[3][CL_REDUCE_THREADS / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int off = 16; off > 0; off >>= 1)
    for (int k = 0; k < count; k++) d[k] += __shfl_down_sync(0xffffffffu, d[k], off);
  if (lane == 0)
    for (int k = 0; k < count; k++) warp_part[k][warp] = d[k];
  __syncthreads();
  if (warp == 0) {
    const int used = lane < (int)(blockDim.x / 32);
    for (int k = 0; k < count; k++) d[k] = used ? warp_part[k][lane] : 0;
    for (int off = 16; off > 0; off >>= 1)
      for (int k = 0; k < count; k++) d[k] += __shfl_down_sync(0xffffffffu, d[k], off);
  }
}

/* A dot operation's sums d[0 .. count - 1] (this thread's terms; three: the pipelined PCG's) over the
 * grid, then its scalar step on the block's copy of the scalars (A->scal, shared); *set alternates the
 * partials' two sets (of two sums a block, three in the pipelined kernel: a set's place must not
 * depend on the operation, or one set's third sums would overlap the other's). After the
 * grid barrier the first warp alone sums the blocks' partials (lane l: partials l, l + 32, ..., then
 * a shuffle; every block in the same order): no block barrier but the one that publishes the
 * scalars. (All the block's threads loading them at once, then a block sum, measured slower on the
 * H100: 17.2 against 15.7 us a case-1 iteration.) */
__device__ static void grid_sums(cl_dda_pcg_args *A, int op, double *d, int count, int *set, cg::grid_group &grid) {
  const int stride = A->pipelined ? 3 : 2; /* one kernel's sets alike: the pipelined one's hold three sums */
  double *part = A->partials + (size_t)(*set) * stride * gridDim.x;
  *set ^= 1;
  block_sums(d, count);
  if (threadIdx.x == 0)
    for (int k = 0; k < count; k++) part[(size_t)k * gridDim.x + blockIdx.x] = d[k];
  grid.sync();
  if (threadIdx.x < 32) {
    double s[3] = {0, 0, 0};
    for (unsigned b = threadIdx.x; b < gridDim.x; b += 32)
      for (int k = 0; k < count; k++) s[k] += part[(size_t)k * gridDim.x + b];
    for (int off = 16; off > 0; off >>= 1)
      for (int k = 0; k < count; k++) s[k] += __shfl_down_sync(0xffffffffu, s[k], off);
    if (threadIdx.x == 0 && cl_dda_pcg_pipelined_op(op)) cl_dda_pcg_pipelined_scalars(A, op, s[0], s[1], s[2]);
    else if (threadIdx.x == 0) cl_dda_pcg_scalars(A, op, s[0], s[1]);
  }
  __syncthreads();
}

__device__ static void grid_dots(cl_dda_pcg_args *A, int op, double d0, double d1, int *set,
                                 cg::grid_group &grid) {
  double d[3] = {d0, d1, 0};
  grid_sums(A, op, d, 2, set, grid);
}

/* out = A_parts in over the grid (the launches' product, spmv_cuda.cuh), then a barrier. With dot,
 * this thread's terms of in.out (p.q) are added to *dot: the entries a thread writes are the ones
 * it reads. */
__device__ static void grid_product(cl_dda_pcg_args *A, int parts, const void *in, void *out, double *dot,
                                    cg::grid_group &grid) {
  A->parts = parts, A->in = in, A->out = out;
  cl_dda_spmv_grid(A, NULL, 0, NULL, dot, NULL);
  if (!dot) grid.sync(); /* with dot, the dot's own barrier follows */
}

/* Block Jacobi's product after the first iteration: q = A p with the direction p = z + beta pold
 * formed on the fly (entry by entry, as CL_DDA_OP_DIRECTION forms it), each row's entries of p
 * written into pnew and their p.q terms added to *dot. The direction's own pass and barrier are
 * gone: pold is not written in this pass (pnew is the other buffer), and z not at all. */
__device__ static void grid_direction_product(cl_dda_pcg_args *A, const real *pold, real *pnew, double *dot) {
  A->parts = CL_DDA_WHOLE, A->in = A->z, A->out = A->q;
  cl_dda_spmv_grid(A, pold, (real)A->scal[CL_DDA_S_BETA], pnew, dot, NULL);
  A->p = pnew; /* the step's x += alpha p */
}

__device__ static void grid_block_solve(cl_dda_pcg_args *A, const void *in, void *out, cg::grid_group &grid) {
  A->in = in, A->out = out;
  CL_DDA_GRID_BLOCK_ROWS(i, A->n) cl_dda_pcg_block(A, CL_DDA_OP_BLOCK_SOLVE, i);
  grid.sync();
}

/* z = M^-1 r as pcg.c's precondition, a barrier after each operation. */
__device__ static void grid_precondition(cl_dda_pcg_args *A, int kind, cg::grid_group &grid) {
  if (kind == CL_DDA_BLOCK_JACOBI) {
    grid_block_solve(A, A->r, A->z, grid);
    return;
  }
  const size_t m = 6 * A->n;
  grid_block_solve(A, A->r, A->t, grid);                 /* t = D^-1 r */
  grid_product(A, CL_DDA_LOWER, A->t, A->z, NULL, grid); /* z = L D^-1 r */
  A->in = A->r, A->out = A->z;
  CL_GRID_STRIDE(e, m) cl_dda_pcg_entry(A, CL_DDA_OP_SUBTRACT, e); /* z = (I - L D^-1) r */
  grid.sync();
  grid_block_solve(A, A->z, A->t, grid);                 /* t = D^-1 z */
  grid_product(A, CL_DDA_UPPER, A->t, A->z, NULL, grid); /* z = L^T t */
  CL_DDA_GRID_BLOCK_ROWS(i, A->n) cl_dda_pcg_block(A, CL_DDA_OP_SSOR_FINISH, i); /* z = t - D^-1 L^T t */
  grid.sync();
}

/* The standard PCG after the start's sums: r = b - A x, z = M^-1 r, p = z, r.z and r.r, then the
 * iterations. */
__device__ static void standard(cl_dda_pcg_args *A, int kind, int *set, cg::grid_group &grid) {
  const size_t n = A->n, m = 6 * n;
  real *r = (real *)A->r, *z = (real *)A->z, *p = (real *)A->p;
  const double *scal = A->scal;
  grid_product(A, CL_DDA_WHOLE, A->x, A->q, NULL, grid);
  CL_GRID_STRIDE(e, m) cl_dda_pcg_entry(A, CL_DDA_OP_RESIDUAL, e); /* r = b - A x */
  grid.sync();
  grid_precondition(A, kind, grid);
  double d0 = 0, d1 = 0;
  CL_GRID_STRIDE(e, m) p[e] = z[e], d0 += cl_dot_term(r[e], z[e]), d1 += cl_dot_term(r[e], r[e]);
  grid_dots(A, CL_DDA_OP_BEGIN, d0, d1, set, grid);
  /* block Jacobi: two barriers an iteration, the direction formed in the next product, its two
   * buffers p and t (which only SSOR-AI uses) in turn */
  const int jacobi = kind == CL_DDA_BLOCK_JACOBI;
  real *dir[2] = {p, (real *)A->t};
  for (int it = 0; cl_dda_pcg_running(scal); it++) {
    d0 = 0;
    if (jacobi && it > 0)
      grid_direction_product(A, dir[(it - 1) & 1], dir[it & 1], &d0); /* p = z + beta p, q = A p, p.q */
    else
      grid_product(A, CL_DDA_WHOLE, A->p, A->q, &d0, grid); /* q = A p, and p.q */
    grid_dots(A, CL_DDA_OP_ALPHA, d0, 0, set, grid);     /* alpha = r.z / p.q */
    if (!cl_dda_pcg_running(scal)) break;                /* breakdown */
    double sums[2] = {0, 0};
    if (jacobi) {
      CL_DDA_GRID_BLOCK_ROWS(i, n) cl_dda_step_jacobi(A, i, sums); /* x, r, z = D^-1 r and r.z, r.r */
    } else {
      CL_GRID_STRIDE(e, m) cl_dda_pcg_entry(A, CL_DDA_OP_STEP, e); /* x += alpha p, r -= alpha q */
      grid.sync();
      grid_precondition(A, kind, grid);
      CL_GRID_STRIDE(e, m) sums[0] += cl_dot_term(r[e], z[e]), sums[1] += cl_dot_term(r[e], r[e]);
    }
    grid_dots(A, CL_DDA_OP_BETA, sums[0], sums[1], set, grid);  /* beta; stop? */
    if (jacobi) continue;
    CL_GRID_STRIDE(e, m) cl_dda_pcg_entry(A, CL_DDA_OP_DIRECTION, e); /* p = z + beta p, while running */
    grid.sync();
  }
}

/* The pipelined PCG after the start's sums (pcg_ops.h: cl_dda_pipelined_row; Ghysels & Vanroose 2014,
 * Alg. 3 with block Jacobi): q = A x, then each row's r = b - q and u = D^-1 r, w = A u (the start's
 * one more product), then the rows' m = D^-1 w and the sums of r.u, w.u and r.r; then each iteration
 * is one pass and ONE grid barrier -- the product n = A m, each block row's sums going straight into
 * its updates of z, q, s, p, x, r, u, w, its next m and its terms of the three sums, then the barrier
 * of the sums, after which every block has alpha, beta and the stop (pcg_scalars.h). m alternates
 * between two buffers: a row's next m is written while other rows' products still read this one. A
 * stop on the recurrence's residual is checked against the true one (a product and a barrier), and
 * where it fails the recurrences start again from x (a product and two barriers more) and the
 * iterations go on (pcg_scalars.h: cl_dda_pcg_to_check). x is whole at the end: the last barrier
 * followed its update. */
__device__ static void grid_pipelined(cl_dda_pcg_args *A, int *set, cg::grid_group &grid) {
  const size_t n = A->n;
  void *mbuf[2] = {A->m, A->mnext};
  double d[3] = {0, 0, 0};
  int it = 0;
  for (int op = CL_DDA_OP_PIPE_BEGIN;; op = CL_DDA_OP_PIPE_RESTART) {
    if (op == CL_DDA_OP_PIPE_BEGIN) {
      grid_product(A, CL_DDA_WHOLE, A->x, A->q, NULL, grid);
      CL_DDA_GRID_BLOCK_ROWS(i, n) cl_dda_pipelined_residual_row(A, i, NULL); /* r = b - A x, u = D^-1 r */
      grid.sync();
    }
    grid_product(A, CL_DDA_WHOLE, A->u, A->w, NULL, grid); /* w = A u */
    d[0] = d[1] = d[2] = 0;
    A->mnext = mbuf[it & 1];
    CL_DDA_GRID_BLOCK_ROWS(i, n) cl_dda_pipelined_row(A, i, NULL, d); /* m = D^-1 w, the sums */
    grid_sums(A, op, d, 3, set, grid);
    for (; cl_dda_pcg_running(A->scal); it++) {
      d[0] = d[1] = d[2] = 0;
      A->m = mbuf[it & 1], A->mnext = mbuf[(it + 1) & 1];
      A->parts = CL_DDA_WHOLE, A->in = A->m, A->out = A->t;
      cl_dda_spmv_grid(A, NULL, 0, NULL, NULL, d); /* n = A m and the rows' updates, m, sums */
      grid_sums(A, CL_DDA_OP_PIPE_STEP, d, 3, set, grid);
    }
    if (!cl_dda_pcg_to_check(A->scal)) return;
    grid_product(A, CL_DDA_WHOLE, A->x, A->q, NULL, grid);
    d[0] = d[1] = d[2] = 0;
    CL_DDA_GRID_BLOCK_ROWS(i, n) cl_dda_pipelined_residual_row(A, i, d); /* the true r, u = D^-1 r, r.r */
    grid_sums(A, CL_DDA_OP_PIPE_CHECK, d, 3, set, grid);
    if (!cl_dda_pcg_running(A->scal)) return; /* it passed */
  }
}

/* The persistent solve: the start's sums, the standard or the pipelined PCG (a constant in each
 * kernel below: each kernel holds one of them, so the pipelined code takes no registers from the
 * standard kernel), and with rule the open-close rule; block 0 writes the scalars back. */
__device__ __forceinline__ static void persistent_solve(cl_dda_pcg_args &args, int kind, int rule, int pipelined) {
  cg::grid_group grid = cg::this_grid();
  __shared__ double scal[CL_DDA_SCALARS];
  for (int k = threadIdx.x; k < CL_DDA_SCALARS; k += blockDim.x) scal[k] = args.scal[k];
  __syncthreads();
  cl_dda_pcg_args a = args, *A = &a;
  a.scal = scal, a.pipelined = pipelined; /* the kernel's constant (grid_sums' stride) */
  const size_t m = 6 * a.n;
  const real *b = (const real *)a.b, *dinv = (const real *)a.dinv;
  int set = 0;
  double d0 = 0, d1 = 0;
  /* b.b, and whether every diagonal block was factored (the assembly leaves that check to this
   * kernel: pcg.c's check_pending) */
  CL_GRID_STRIDE(e, m) d0 += cl_dot_term(b[e], b[e]), d1 += cl_dot_term(dinv[e], dinv[e]);
  grid_dots(A, CL_DDA_OP_START_SUMS, d0, d1, &set, grid);
  if (pipelined) grid_pipelined(A, &set, grid);
  else standard(A, kind, &set, grid);
  if (rule && cl_dda_pcg_converged(scal)) { /* x is whole: the last barrier followed its update */
    d0 = 0, d1 = 0;
    CL_GRID_STRIDE(k, a.nc) {
      const int flag = cl_dda_contact_rule_listed(A, k);
      d0 += flag == 1, d1 += flag == 2;
    }
    grid_dots(A, CL_DDA_OP_OPEN_CLOSE, d0, d1, &set, grid); /* the contacts changed and unsettled */
  }
  if (blockIdx.x == 0)
    for (int k = threadIdx.x; k < CL_DDA_SCALARS; k += blockDim.x) args.scal[k] = scal[k];
}

__global__ void __launch_bounds__(CL_REDUCE_THREADS) CL_PREC(dda_pcg_persistent_kernel)(cl_dda_pcg_args args,
                                                                                         int kind, int rule) {
  persistent_solve(args, kind, rule, 0);
}

/* Two blocks an SM asked for: left to itself ptxas gave the pipelined kernel 80 registers and 152 / 376
 * bytes of spill stores / loads (sm_90); held to two blocks an SM, 128 and none -- the standard
 * kernel's 128 and two blocks an SM. */
__global__ void __launch_bounds__(CL_REDUCE_THREADS, 2) CL_PREC(dda_pcg_pipelined_kernel)(cl_dda_pcg_args args,
                                                                                        int kind, int rule) {
  persistent_solve(args, kind, rule, 1);
}

/* As many blocks as fit on the device at once (a grid barrier needs them all resident), no more
 * than the product needs (a warp a block row in BSR, a thread a matrix row in HSBCSR:
 * cl_dda_spmv_blocks), than the model's pcg_blocks asks, nor than the partials hold
 * (CL_DDA_DOT_PARTIALS: two sets of three a block). */
extern "C" int CL_PREC(cl_dda_pcg_persistent_cuda)(const cl_dda_pcg_args *A, int kind, int rule) {
  static int per_sm[2] = {-1, -1}, sms = 0;
  const int v = A->pipelined != 0;
  const void *kernel = v ? (const void *)CL_PREC(dda_pcg_pipelined_kernel) : (const void *)CL_PREC(dda_pcg_persistent_kernel);
  if (per_sm[v] < 0) {
    int dev, cooperative = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    per_sm[v] = 0;
    if (cooperative) cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm[v], kernel, CL_REDUCE_THREADS, 0);
    cudaGetLastError();
  }
  if (per_sm[v] < 1) return CL_DDA_NO_COOPERATIVE;
  const size_t want = cl_dda_spmv_blocks(A);
  size_t blocks = (size_t)per_sm[v] * (size_t)sms;
  if (want < blocks) blocks = want;
  if (A->persistent_blocks > 0 && (size_t)A->persistent_blocks < blocks) blocks = (size_t)A->persistent_blocks;
  if (blocks > CL_DDA_DOT_PARTIALS / 6) blocks = CL_DDA_DOT_PARTIALS / 6;
  if (blocks < 1) blocks = 1;
  cl_dda_pcg_args args = *A;
  void *params[] = {&args, &kind, &rule};
  const cudaError_t e = cudaLaunchCooperativeKernel(kernel, (unsigned)blocks, CL_REDUCE_THREADS, params, 0, 0);
  if (e == cudaErrorCooperativeLaunchTooLarge || e == cudaErrorNotSupported) {
    cudaGetLastError();
    return CL_DDA_NO_COOPERATIVE;
  }
  return (int)e;
}
