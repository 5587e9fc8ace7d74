/* The DDA solver's operations as CUDA kernels (assembly_ops.h, pcg_ops.h): one thread per
 * contact, matrix block, block row, matrix row or vector entry (BSR's product: a warp a block row,
 * spmv_cuda.cuh), on the default stream like the block kernels and the
 * reductions; a dot operation is a reduction and its one-block last pass, which does PCG's scalar step. */
#include "../common/blas1.h"
#include "../common/launch_cuda.cuh"
#include "../common/reduce_cuda.cuh"
#include "assembly_ops.h"
#include "open_close_ops.h"
#include "pcg_kernels.h"
#include "pcg_ops.h"
#include "spmv_cuda.cuh"

/* The springs, 36 threads a contact: thread e writes entry e of its three submatrices (and of its
 * right-hand sides), so that a contact's slots are written by neighbouring threads at once. */
__global__ void __launch_bounds__(36 * CL_DDA_GATHER_ITEMS) CL_PREC(dda_springs_kernel)(cl_dda_pcg_args A) {
  const size_t k = (size_t)blockIdx.x * CL_DDA_GATHER_ITEMS + threadIdx.x / 36;
  if (k < A.nc) cl_dda_contact_spring_entry(&A, k, (int)(threadIdx.x % 36));
}

/* Entry e of short item t (CL_DDA_GATHER_LONG shares at most) by thread e of its group g, in share
 * order, as the CPU sums it. One thread's share after another was three dependent loads (item,
 * state, slot) a batch of four: a mean diagonal block's ~30 shares were ~24 round trips, and its
 * thread block of 28 items (~3 of them diagonal) held its 1 008 threads until they were done. Here
 * the group's threads load 36 shares' items and states at once into staged (one share each, -1 for
 * an open or absent one); then every slot load's address is known and they go out a batch at a
 * time, ~10 round trips. Every thread of the block calls it (its barriers). */
#define CL_DDA_GATHER_ROUNDS ((CL_DDA_GATHER_LONG + 35) / 36)

__device__ static void gather_short(const cl_dda_pcg_args *A, size_t t, int g, int e, int is_short) {
  __shared__ int32_t staged[CL_DDA_GATHER_ITEMS][36];
  int32_t lo = 0, hi = 0;
  const int rhs = is_short ? cl_dda_gather_shares(A, t, &lo, &hi) : 0, has = is_short && cl_dda_gather_has(A, t, e);
  const int32_t *items = rhs ? A->ritem : A->gitem;
  const real *slots = (const real *)(rhs ? A->cF : A->cK);
  real sum = has ? cl_dda_gather_first(A, t, e) : 0;
  for (int round = 0; round < CL_DDA_GATHER_ROUNDS; round++) {
    const int32_t q = lo + 36 * round, count = hi - q < 36 ? hi - q : 36;
    const int32_t item = e < count ? items[q + e] : -1;
    staged[g][e] = cl_dda_share_used(A, rhs, item) ? item : -1;
    __syncthreads();
    for (int u0 = 0; has && u0 < count; u0 += CL_DDA_GATHER_BATCH) {
      int32_t it[CL_DDA_GATHER_BATCH];
      real v[CL_DDA_GATHER_BATCH];
      for (int u = 0; u < CL_DDA_GATHER_BATCH; u++) it[u] = u0 + u < count ? staged[g][u0 + u] : -1;
      for (int u = 0; u < CL_DDA_GATHER_BATCH; u++) v[u] = it[u] >= 0 ? slots[cl_dda_share_slot(rhs, it[u], e)] : 0;
      for (int u = 0; u < CL_DDA_GATHER_BATCH; u++)
        if (it[u] >= 0) sum += v[u];
    }
    if (round + 1 < CL_DDA_GATHER_ROUNDS) __syncthreads(); /* staged is read before the next round writes it */
  }
  if (has) cl_dda_gather_write(A, t, e, sum);
  __syncthreads(); /* the sums are written: a diagonal block's factor reads them */
}

/* The gather (assembly_ops.h), 36 threads an item: thread e sums entry e, so a contact's 36 slots
 * are read by neighbouring threads at once; a long item is the whole block's after the others, its
 * slices' sums added in slice order; a diagonal block's factor waits at a block barrier for its 36
 * sums. The incremental gather's items are the listed contacts' claimed blocks (an item whose block
 * is another's does nothing), then the block rows. Two blocks an SM: 32 registers a thread at most. */
__global__ void __launch_bounds__(36 * CL_DDA_GATHER_ITEMS, 2) CL_PREC(dda_gather_kernel)(cl_dda_pcg_args A) {
  __shared__ int64_t long_target[CL_DDA_GATHER_ITEMS];
  __shared__ real part[CL_DDA_GATHER_ITEMS][36];
  const int g = (int)(threadIdx.x / 36), e = (int)(threadIdx.x % 36);
  const size_t u = (size_t)blockIdx.x * CL_DDA_GATHER_ITEMS + g;
  const int64_t t = u < cl_dda_gather_items(&A) ? cl_dda_gather_target(&A, u) : -1;
  const int active = t >= 0, is_long = active && cl_dda_gather_long(&A, (size_t)t);
  if (e == 0) long_target[g] = is_long ? t : -1;
  gather_short(&A, active ? (size_t)t : 0, g, e, active && !is_long); /* its barriers publish long_target */
  for (int w = 0; w < CL_DDA_GATHER_ITEMS; w++) {
    if (long_target[w] < 0) continue;
    const size_t tl = (size_t)long_target[w];
    const int has = cl_dda_gather_has(&A, tl, e);
    part[g][e] = has ? cl_dda_gather_part(&A, tl, e, g, CL_DDA_GATHER_ITEMS) : 0;
    __syncthreads();
    if (g == 0 && has) {
      real sum = part[0][e];
      for (int s = 1; s < CL_DDA_GATHER_ITEMS; s++) sum += part[s][e];
      cl_dda_gather_write(&A, tl, e, sum);
    }
    __syncthreads(); /* the sums are written (the factor reads them) and part is free again */
  }
  if (active && e == 0) cl_dda_gather_finish(&A, (size_t)t), cl_dda_gather_release(&A, u, (size_t)t);
  if (u == 0 && e == 0) cl_dda_gather_empty_list(&A);
}

/* The matrix blocks' share targets (CL_DDA_OP_SHARE_TARGETS), a thread a block. */
__global__ void CL_PREC(dda_share_targets_kernel)(cl_dda_pcg_args A) {
  CL_GRID_STRIDE(t, A.ntarget) cl_dda_share_targets(&A, t);
}

/* CL_DDA_OP_SPRINGS_CHANGED: the first nlisted groups of 36 threads a listed contact (thread e its
 * entry e, threads 0..3 its shares' claims), then three contacts a group, 12 threads each for a
 * sliding contact's right-hand sides. */
__global__ void __launch_bounds__(36 * CL_DDA_GATHER_ITEMS) CL_PREC(dda_springs_changed_kernel)(cl_dda_pcg_args A) {
  const size_t v = (size_t)blockIdx.x * CL_DDA_GATHER_ITEMS + threadIdx.x / 36;
  const int e = (int)(threadIdx.x % 36);
  if (v < A.nlisted) {
    cl_dda_listed_spring_entry(&A, (size_t)A.clist[1 + v], e);
    if (e < 4) cl_dda_claim_block(&A, v, e);
    return;
  }
  const size_t k = 3 * (v - A.nlisted) + (size_t)(e / 12);
  if (k < A.nc) cl_dda_sliding_force_entry(&A, k, e % 12);
}

/* The per-block-row kernels (the block solves, the factors, block Jacobi's step) in thread blocks of
 * one warp, a row a thread: in blocks of 256 case 1's 4 333 rows took 17 of the H100's 132 SMs
 * (12 us a Jacobi step); in blocks of 32 they take 136 blocks on as many SMs. The step's dot
 * partials are then one pair a warp (at most CL_REDUCE_MAX_BLOCKS of them). */
#define CL_DDA_ROW_THREADS 32

static inline int row_blocks(size_t n) {
  const unsigned blocks = cl_grid_blocks(n, CL_DDA_ROW_THREADS);
  return blocks > CL_REDUCE_MAX_BLOCKS ? CL_REDUCE_MAX_BLOCKS : (int)blocks;
}

__global__ void CL_PREC(dda_pcg_block_kernel)(cl_dda_pcg_args A, int op) {
  CL_GRID_STRIDE(i, A.n) cl_dda_pcg_block(&A, op, i);
}

/* Five blocks an SM (48 registers): case 1's 542 blocks in one wave on 132 SMs (the batched loads
 * of cl_dda_bsr_lane took it to 60 registers, four an SM, unbounded). */
__global__ void __launch_bounds__(CL_THREADS, 5) CL_PREC(dda_spmv_kernel)(cl_dda_pcg_args A) {
  cl_dda_spmv_grid(&A, NULL, 0, NULL, NULL, NULL);
}

/* The long rows of the BSR pattern (CL_DDA_OP_LONG_ROWS), in one thread block: its count then
 * needs no zeroing launch before it (a few us at case 1's 4 361 rows, once a step). Their order
 * is the atomics': the product gives each its own thread block, whichever. */
__global__ void CL_PREC(dda_long_rows_kernel)(cl_dda_pcg_args A) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  for (size_t i = threadIdx.x; i < A.n; i += blockDim.x)
    if (cl_dda_bsr_long(&A, i)) A.long_rows[1 + atomicAdd(&count, 1)] = (int32_t)i;
  __syncthreads();
  if (threadIdx.x == 0) A.long_rows[0] = count;
}

__global__ void CL_PREC(dda_pcg_entry_kernel)(cl_dda_pcg_args A, int op) {
  CL_GRID_STRIDE(e, 6 * A.n) cl_dda_pcg_entry(&A, op, e);
}

/* A dot operation's first pass: x.y (and u.v for the two-sum ones), two partial sums a block (the
 * second reduction after a barrier: the block reduction's shared words are reused). */
__global__ void CL_PREC(dda_dots_kernel)(cl_dda_pcg_args A, int op) {
  const void *x[2], *y[2];
  const int count = cl_dda_dot_vectors(&A, op, x, y);
  const real *x0 = (const real *)x[0], *y0 = (const real *)y[0], *x1 = (const real *)x[count - 1];
  const real *y1 = (const real *)y[count - 1];
  double a = 0, b = 0;
  CL_GRID_STRIDE(i, 6 * A.n) {
    a += cl_dot_term(x0[i], y0[i]);
    if (count == 2) b += cl_dot_term(x1[i], y1[i]);
  }
  a = cl_block_reduce(CL_COMBINE_SUM, a);
  __syncthreads();
  b = cl_block_reduce(CL_COMBINE_SUM, b);
  if (threadIdx.x == 0) A.partials[blockIdx.x] = a, A.partials[gridDim.x + blockIdx.x] = b;
}

/* The open-close rule, one thread a contact, and its counts' partial sums (two a block). */
__global__ void CL_PREC(dda_open_close_kernel)(cl_dda_pcg_args A) {
  double changed = 0, unsettled = 0;
  CL_GRID_STRIDE(k, A.nc) {
    const int flag = cl_dda_contact_rule_listed(&A, k);
    changed += flag == 1, unsettled += flag == 2;
  }
  changed = cl_block_reduce(CL_COMBINE_SUM, changed);
  __syncthreads();
  unsettled = cl_block_reduce(CL_COMBINE_SUM, unsettled);
  if (threadIdx.x == 0) A.partials[blockIdx.x] = changed, A.partials[gridDim.x + blockIdx.x] = unsettled;
}

/* Block Jacobi's fused iteration step, one thread a block row, and BETA's partial sums (two a
 * thread block of CL_DDA_ROW_THREADS). */
__global__ void CL_PREC(dda_step_jacobi_kernel)(cl_dda_pcg_args A) {
  double sums[2] = {0, 0};
  CL_GRID_STRIDE(i, A.n) cl_dda_step_jacobi(&A, i, sums);
  double a = cl_block_reduce(CL_COMBINE_SUM, sums[0]);
  __syncthreads();
  double b = cl_block_reduce(CL_COMBINE_SUM, sums[1]);
  if (threadIdx.x == 0) A.partials[blockIdx.x] = a, A.partials[gridDim.x + blockIdx.x] = b;
}

/* The pipelined PCG's rows (CL_DDA_OP_PIPE_*), one thread a block row, and the partial sums of r.u,
 * w.u and r.r (three a thread block of CL_DDA_ROW_THREADS). */
__global__ void CL_PREC(dda_pipelined_kernel)(cl_dda_pcg_args A, int op) {
  double sums[3] = {0, 0, 0};
  CL_GRID_STRIDE(i, A.n) cl_dda_pipelined_op_row(&A, op, i, sums);
  for (int k = 0; k < 3; k++) {
    const double v = cl_block_reduce(CL_COMBINE_SUM, sums[k]);
    if (threadIdx.x == 0) A.partials[(size_t)k * gridDim.x + blockIdx.x] = v;
    __syncthreads(); /* the reduction's shared words are reused */
  }
}

/* The last pass of a dot operation or of the open-close rule, one block: the sums of the partials
 * (three for the pipelined PCG's operations, two for the others), then the scalar step on the device. */
__global__ void CL_PREC(dda_dots_finish_kernel)(cl_dda_pcg_args A, int op, int nparts) {
  const int pipelined = cl_dda_pcg_pipelined_op(op), count = pipelined ? 3 : 2;
  double d[3] = {0, 0, 0};
  for (int k = 0; k < count; k++) {
    double a = 0;
    for (int i = threadIdx.x; i < nparts; i += blockDim.x) a += A.partials[(size_t)k * nparts + i];
    d[k] = cl_block_reduce(CL_COMBINE_SUM, a);
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  if (pipelined) cl_dda_pcg_pipelined_scalars(&A, op, d[0], d[1], d[2]);
  else cl_dda_pcg_scalars(&A, op, d[0], d[1]);
}

extern "C" int CL_PREC(cl_dda_pcg_cuda)(const cl_dda_pcg_args *A, int op) {
  if (A->n == 0) return 0;
  switch (op) {
    case CL_DDA_OP_SPRINGS:
      if (A->nc)
        CL_PREC(dda_springs_kernel)<<<(unsigned)((A->nc + CL_DDA_GATHER_ITEMS - 1) / CL_DDA_GATHER_ITEMS),
                                      36 * CL_DDA_GATHER_ITEMS>>>(*A);
      break;
    case CL_DDA_OP_GATHER:
      CL_PREC(dda_gather_kernel)<<<(unsigned)((cl_dda_gather_items(A) + CL_DDA_GATHER_ITEMS - 1) / CL_DDA_GATHER_ITEMS),
                                   36 * CL_DDA_GATHER_ITEMS>>>(*A);
      break;
    case CL_DDA_OP_SHARE_TARGETS:
      if (A->ntarget) CL_PREC(dda_share_targets_kernel)<<<cl_grid_1d(A->ntarget), CL_THREADS>>>(*A);
      break;
    case CL_DDA_OP_SPRINGS_CHANGED: {
      const size_t groups = A->nlisted + (A->nc + 2) / 3;
      if (groups)
        CL_PREC(dda_springs_changed_kernel)<<<(unsigned)((groups + CL_DDA_GATHER_ITEMS - 1) / CL_DDA_GATHER_ITEMS),
                                              36 * CL_DDA_GATHER_ITEMS>>>(*A);
      break;
    }
    case CL_DDA_OP_FACTOR:
    case CL_DDA_OP_BLOCK_SOLVE:
    case CL_DDA_OP_SSOR_FINISH:
      CL_PREC(dda_pcg_block_kernel)<<<row_blocks(A->n), CL_DDA_ROW_THREADS>>>(*A, op);
      break;
    case CL_DDA_OP_SPMV:
      CL_PREC(dda_spmv_kernel)<<<cl_dda_spmv_blocks(A), CL_THREADS>>>(*A);
      break;
    case CL_DDA_OP_LONG_ROWS:
      CL_PREC(dda_long_rows_kernel)<<<1, 1024>>>(*A);
      break;
    case CL_DDA_OP_DOT_BB:
    case CL_DDA_OP_BEGIN:
    case CL_DDA_OP_ALPHA:
    case CL_DDA_OP_BETA:
    case CL_DDA_OP_FACTOR_CHECK: {
      const int blocks = cl_reduce_blocks(6 * A->n);
      int e;
      CL_PREC(dda_dots_kernel)<<<blocks, CL_REDUCE_THREADS>>>(*A, op);
      if ((e = (int)cudaGetLastError())) return e;
      CL_PREC(dda_dots_finish_kernel)<<<1, CL_REDUCE_THREADS>>>(*A, op, blocks);
      break;
    }
    case CL_DDA_OP_STEP_JACOBI: {
      const int blocks = row_blocks(A->n);
      int e;
      CL_PREC(dda_step_jacobi_kernel)<<<blocks, CL_DDA_ROW_THREADS>>>(*A);
      if ((e = (int)cudaGetLastError())) return e;
      CL_PREC(dda_dots_finish_kernel)<<<1, CL_REDUCE_THREADS>>>(*A, CL_DDA_OP_BETA, blocks);
      break;
    }
    case CL_DDA_OP_PIPE_BEGIN:
    case CL_DDA_OP_PIPE_STEP:
    case CL_DDA_OP_PIPE_CHECK:
    case CL_DDA_OP_PIPE_RESTART: {
      const int blocks = row_blocks(A->n);
      int e;
      CL_PREC(dda_pipelined_kernel)<<<blocks, CL_DDA_ROW_THREADS>>>(*A, op);
      if ((e = (int)cudaGetLastError())) return e;
      CL_PREC(dda_dots_finish_kernel)<<<1, CL_REDUCE_THREADS>>>(*A, op, blocks);
      break;
    }
    case CL_DDA_OP_OPEN_CLOSE: {
      const int blocks = cl_reduce_blocks(A->nc);
      int e;
      CL_PREC(dda_open_close_kernel)<<<blocks, CL_REDUCE_THREADS>>>(*A);
      if ((e = (int)cudaGetLastError())) return e;
      CL_PREC(dda_dots_finish_kernel)<<<1, CL_REDUCE_THREADS>>>(*A, op, blocks);
      break;
    }
    default:
      CL_PREC(dda_pcg_entry_kernel)<<<cl_grid_1d(6 * A->n), CL_THREADS>>>(*A, op);
  }
  return (int)cudaGetLastError();
}
