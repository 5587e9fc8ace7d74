/* The operations of the DDA step's preconditioned conjugate gradients, written once for both
 * backends (pcg_cpu.c, pcg_cuda.cu; pcg.c drives them): the block-sparse product in BSR or in
 * HSBCSR (upper blocks only, the lower triangle applied as the transposes of the upper blocks in
 * the same pass), the inverses of the diagonal blocks (block Jacobi, and the diagonal
 * solves of SSOR's approximate inverse) and the vector updates. Every output entry is written by
 * one thread from a fixed order of terms: no atomics, and the CPU and CUDA results agree to the
 * rounding of fused multiply-adds. */
#ifndef CL_DDA_PCG_OPS_H
#define CL_DDA_PCG_OPS_H

#include "../common/blas1.h"
#include "../common/real.h"
#include "pcg_args.h"
#include "pcg_scalars.h"

/* Diagonal block i: entry (r, c) at [(6 r + c) *stride] of the pointer returned (BSR: the row's
 * block in column i, found once). */
CL_HD static inline const real *cl_dda_diag_block(const cl_dda_pcg_args *A, size_t i, size_t *stride) {
  if (A->format == CL_DDA_HSBCSR) {
    *stride = A->n;
    return (const real *)A->diag + i;
  }
  int32_t p = A->rowptr[i];
  while (A->col[p] != (int32_t)i) p++; /* every row holds its diagonal block */
  *stride = 1;
  return (const real *)A->val + 36 * (size_t)p;
}

/* Block i's inverse D^-1 into dinv (sliced), through its lower Cholesky factor L: D^-1 = L^-T L^-1.
 * A block that is not positive definite gets NaN in its first entry, which the host finds with a
 * reduction. The lower triangle is read at once and factored in l (row by row: (r, c) at
 * r (r + 1) / 2 + c), inverted in place, and the product written: each entry read back from the
 * output after its own store, and the diagonal block searched for again for each entry, made a chain
 * of ~50 dependent loads a block (the gather's diagonal items waited on it). The inverse, where the
 * factor was kept, makes PCG's block solve a 6 x 6 product: the two triangular solves were a chain of
 * 12 dependent steps with 12 divisions a block row, every iteration (12 us of the H100's 50 a case-1
 * iteration, its uncoalesced loads waiting on each other). */
CL_HD static inline void cl_dda_factor_block(const cl_dda_pcg_args *A, size_t i) {
  const size_t n = A->n;
  size_t stride;
  const real *D = cl_dda_diag_block(A, i, &stride);
  real *Dinv = (real *)A->dinv, l[21];
  for (int r = 0; r < 6; r++)
    for (int c = 0; c <= r; c++) l[r * (r + 1) / 2 + c] = D[(size_t)(6 * r + c) * stride];
  for (int j = 0; j < 6; j++) {
    real *lj = l + j * (j + 1) / 2, d = lj[j];
    for (int k = 0; k < j; k++) d -= lj[k] * lj[k];
    if (!(d > 0)) {
      Dinv[i] = (real)NAN;
      return;
    }
    lj[j] = sqrt(d);
    for (int r = j + 1; r < 6; r++) {
      real *lr = l + r * (r + 1) / 2, s = lr[j];
      for (int k = 0; k < j; k++) s -= lr[k] * lj[k];
      lr[j] = s / lj[j];
    }
  }
  /* L^-1 in place, a column at a time from the last ((L^-1 L)(r, j) = 0 for r > j): column j's
   * entries from the bottom up, each reading L's entries of column j above it, not yet replaced */
  for (int j = 5; j >= 0; j--) {
    real *lj = l + j * (j + 1) / 2;
    lj[j] = 1 / lj[j];
    for (int r = 5; r > j; r--) {
      real *lr = l + r * (r + 1) / 2, s = 0;
      for (int k = j + 1; k <= r; k++) s += lr[k] * l[k * (k + 1) / 2 + j];
      lr[j] = -s * lj[j];
    }
  }
  for (int r = 0; r < 6; r++)
    for (int c = 0; c <= r; c++) { /* (L^-T L^-1)(r, c) = sum over k >= r of L^-1(k, r) L^-1(k, c) */
      real s = 0;
      for (int k = r; k < 6; k++) s += l[k * (k + 1) / 2 + r] * l[k * (k + 1) / 2 + c];
      Dinv[(6 * r + c) * n + i] = s, Dinv[(6 * c + r) * n + i] = s;
    }
}

/* z = D^-1 v for block i (v, z: 6 entries): 36 independent loads, no chain between rows. */
CL_HD static inline void cl_dda_block_solve(const cl_dda_pcg_args *A, size_t i, const real *v, real *z) {
  const size_t n = A->n;
  const real *Dinv = (const real *)A->dinv;
  for (int r = 0; r < 6; r++) {
    real s = 0;
    for (int c = 0; c < 6; c++) s += Dinv[(6 * r + c) * n + i] * v[c];
    z[r] = s;
  }
}

/* The per-block operations: CL_DDA_OP_FACTOR, CL_DDA_OP_BLOCK_SOLVE, CL_DDA_OP_SSOR_FINISH. */
CL_HD static inline void cl_dda_pcg_block(const cl_dda_pcg_args *A, int op, size_t i) {
  const size_t n = A->n;
  if (op == CL_DDA_OP_FACTOR) {
    cl_dda_factor_block(A, i);
    return;
  }
  const real *in = (const real *)(op == CL_DDA_OP_BLOCK_SOLVE ? A->in : A->z);
  real v[6], w[6];
  for (int c = 0; c < 6; c++) v[c] = in[c * n + i];
  cl_dda_block_solve(A, i, v, w);
  if (op == CL_DDA_OP_BLOCK_SOLVE) {
    for (int c = 0; c < 6; c++) ((real *)A->out)[c * n + i] = w[c];
  } else { /* t read before z is written (see cl_dda_step_jacobi: they may alias) */
    const real *t = (const real *)A->t;
    real ts[6];
    for (int c = 0; c < 6; c++) ts[c] = t[c * n + i];
    for (int c = 0; c < 6; c++) ((real *)A->z)[c * n + i] = ts[c] - w[c];
  }
}

/* Block Jacobi's iteration after alpha, fused (CL_DDA_OP_STEP_JACOBI) for block i: x += alpha p,
 * r -= alpha q (while the solve runs), z = D^-1 r, and r.z and r.r of its six entries added to
 * sums (NULL: not summed; the cpu sums them in entry order afterwards). Every load comes before the
 * first store, none waits on the scalars (x, p, q are read whether or not the solve runs): x, r, p,
 * q, z and D^-1 may alias as far as the compiler knows, so the update entry by entry made each load
 * wait for the store before it -- the cuda step's SASS was load p, x; store x; load q, r; store r,
 * six times, then D^-1's 36 loads: 14 round trips to memory in a row, 12 us a step for case 1's
 * 4 361 block rows on the H100. Now one. */
CL_HD static inline void cl_dda_step_jacobi(const cl_dda_pcg_args *A, size_t i, double *sums) {
  const size_t n = A->n;
  real *x = (real *)A->x, *r = (real *)A->r, *z = (real *)A->z;
  const real *p = (const real *)A->p, *q = (const real *)A->q;
  real v[6], w[6], xs[6], ps[6], qs[6];
  for (int c = 0; c < 6; c++) {
    const size_t e = (size_t)c * n + i;
    v[c] = r[e], xs[c] = x[e], ps[c] = p[e], qs[c] = q[e];
  }
  const int running = cl_dda_pcg_running(A->scal);
  const real alpha = (real)A->scal[CL_DDA_S_ALPHA];
  if (running)
    for (int c = 0; c < 6; c++) xs[c] += alpha * ps[c], v[c] -= alpha * qs[c];
  cl_dda_block_solve(A, i, v, w);
  for (int c = 0; c < 6; c++) {
    const size_t e = (size_t)c * n + i;
    if (running) x[e] = xs[c], r[e] = v[c];
    z[e] = w[c];
  }
  if (sums)
    for (int c = 0; c < 6; c++) sums[0] += cl_dot_term(v[c], w[c]), sums[1] += cl_dot_term(v[c], v[c]);
}

/* The pipelined PCG (Ghysels & Vanroose 2014, Alg. 3, with block Jacobi: M = D, so that m = M^-1 w
 * is the block row's own; pcg.c, pcg_persistent_cuda.cu), entry e of its vectors. nval NULL: the
 * start, whose w = A u is in A->w. Else *nval is entry e of n = A m and, while the solve runs,
 * z = n + beta z, q = m + beta q, s = w + beta s, p = u + beta p (beta 0 and the old z, q, s, p not
 * read at a start's first iteration: they hold whatever was left there), x += alpha p, r -= alpha s,
 * u -= alpha q, w -= alpha z. Returns the entry's w, for its row's next m (cl_dda_pipelined_m), and
 * adds its terms of r.u, w.u and r.r to sums[0..2] (NULL: not summed; the cpu sums in entry order
 * afterwards). Every load before the first store, as in cl_dda_step_jacobi. A block row's six
 * entries are one thread's on the cpu and in the launches (cl_dda_pipelined_row), six lanes' in the
 * persistent solve's product (spmv_cuda.cuh: a lane an entry, w shared by shuffles): one entry's
 * nine loads a thread, where a thread a row held 54 and the kernel spilled 1.9 kB. */
CL_HD static inline real cl_dda_pipelined_entry(const cl_dda_pcg_args *A, size_t e, const real *nval, double *sums) {
  real *x = (real *)A->x, *r = (real *)A->r, *u = (real *)A->u, *w = (real *)A->w;
  real *z = (real *)A->z, *q = (real *)A->q, *s = (real *)A->s, *p = (real *)A->p;
  const int update = nval && cl_dda_pcg_running(A->scal), first = A->scal[CL_DDA_S_BETA] == 0;
  real rs = r[e], us = u[e], ws = w[e];
  if (update) {
    const real alpha = (real)A->scal[CL_DDA_S_ALPHA], beta = first ? 0 : (real)A->scal[CL_DDA_S_BETA];
    const real xs = x[e], ms = ((const real *)A->m)[e];
    real zs = first ? 0 : z[e], qs = first ? 0 : q[e], ss = first ? 0 : s[e], ps = first ? 0 : p[e];
    zs = *nval + beta * zs, qs = ms + beta * qs, ss = ws + beta * ss, ps = us + beta * ps;
    rs -= alpha * ss, us -= alpha * qs, ws -= alpha * zs;
    x[e] = xs + alpha * ps, r[e] = rs, u[e] = us, w[e] = ws;
    z[e] = zs, q[e] = qs, s[e] = ss, p[e] = ps;
  }
  if (sums) sums[0] += cl_dot_term(rs, us), sums[1] += cl_dot_term(ws, us), sums[2] += cl_dot_term(rs, rs);
  return ws;
}

/* Entry c of block row i's next m = D^-1 w (w: the row's six entries after their update) into
 * A->mnext. */
CL_HD static inline void cl_dda_pipelined_m(const cl_dda_pcg_args *A, size_t i, int c, const real w[6]) {
  const size_t n = A->n;
  const real *Dinv = (const real *)A->dinv;
  real m = 0;
  for (int k = 0; k < 6; k++) m += Dinv[(6 * c + k) * n + i] * w[k];
  ((real *)A->mnext)[(size_t)c * n + i] = m;
}

/* Block row i of the pipelined PCG in one thread (nrow: the row's six entries of n = A m; NULL: the
 * start): its entries, then its next m. */
CL_HD static inline void cl_dda_pipelined_row(const cl_dda_pcg_args *A, size_t i, const real *nrow, double *sums) {
  real w[6];
  for (int c = 0; c < 6; c++) w[c] = cl_dda_pipelined_entry(A, (size_t)c * A->n + i, nrow ? nrow + c : NULL, sums);
  for (int c = 0; c < 6; c++) cl_dda_pipelined_m(A, i, c, w);
}

/* Block row i of the pipelined PCG's start and check, q = A x given: r = b - q, u = D^-1 r, and its
 * terms of r.r added to sums[2] (NULL: not summed). */
CL_HD static inline void cl_dda_pipelined_residual_row(const cl_dda_pcg_args *A, size_t i, double *sums) {
  const size_t n = A->n;
  const real *b = (const real *)A->b, *q = (const real *)A->q;
  real r[6], u[6];
  for (int c = 0; c < 6; c++) r[c] = b[(size_t)c * n + i] - q[(size_t)c * n + i];
  cl_dda_block_solve(A, i, r, u);
  for (int c = 0; c < 6; c++) {
    ((real *)A->r)[(size_t)c * n + i] = r[c], ((real *)A->u)[(size_t)c * n + i] = u[c];
    if (sums) sums[2] += cl_dot_term(r[c], r[c]);
  }
}

/* A pipelined operation (CL_DDA_OP_PIPE_*) on block row i where the products are in memory (the
 * launches and the cpu): the step's n = A m in A->t, the check's q = A x in A->q. */
CL_HD static inline void cl_dda_pipelined_op_row(const cl_dda_pcg_args *A, int op, size_t i, double *sums) {
  real nrow[6];
  if (op == CL_DDA_OP_PIPE_CHECK) {
    cl_dda_pipelined_residual_row(A, i, sums);
    return;
  }
  if (op == CL_DDA_OP_PIPE_STEP)
    for (int c = 0; c < 6; c++) nrow[c] = ((const real *)A->t)[(size_t)c * A->n + i];
  cl_dda_pipelined_row(A, i, op == CL_DDA_OP_PIPE_STEP ? nrow : NULL, sums);
}

/* Entry e of a product's input: in, or in + beta p2 (p2 not NULL: the direction z + beta p formed
 * on the fly, as CL_DDA_OP_DIRECTION forms it). */
CL_HD static inline real cl_dda_spmv_input(const real *in, const real *p2, real beta, size_t e) {
  return p2 ? in[e] + beta * p2[e] : in[e];
}

/* HSBCSR's product, a thread a matrix row: row r of block row i of A_parts v, v = in (p2 NULL) or
 * in + beta p2, for the k-th thread (r = k / n, i = k % n: neighbouring threads read neighbouring
 * words of a slice), which is entry k of out. */
CL_HD static inline real cl_dda_hsbcsr_row(const cl_dda_pcg_args *A, size_t k, const real *p2, real beta) {
  const size_t n = A->n, i = k % n, nup = A->nup;
  const int r = (int)(k / n), parts = A->parts;
  const real *in = (const real *)A->in, *up = (const real *)A->up;
  real s = 0;
  if (parts & CL_DDA_DIAG) {
    const real *d = (const real *)A->diag;
    for (int c = 0; c < 6; c++) s += d[(6 * r + c) * n + i] * cl_dda_spmv_input(in, p2, beta, c * n + i);
  }
  if (parts & CL_DDA_UPPER)
    for (int32_t k = A->uptr[i]; k < A->uptr[i + 1]; k++) {
      const size_t j = (size_t)A->ucol[k];
      for (int c = 0; c < 6; c++) s += up[(6 * r + c) * nup + (size_t)k] * cl_dda_spmv_input(in, p2, beta, c * n + j);
    }
  if (parts & CL_DDA_LOWER)
    for (int32_t q = A->lptr[i]; q < A->lptr[i + 1]; q++) {
      const size_t k = (size_t)A->lslot[q], j = (size_t)A->urow[k];
      for (int c = 0; c < 6; c++) /* (U_k^T)(r, c) */
        s += up[(6 * c + r) * nup + k] * cl_dda_spmv_input(in, p2, beta, c * n + j);
    }
  return s;
}

/* BSR's product, a warp a block row (cuda: spmv_cuda.cuh). A thread a matrix row left the product
 * to its longest row: case 1's fixed base touches ~190 blocks, one thread looping over them while
 * the rest of the grid waited (69 us a product on the H100, its mean row ~12 blocks). Lane l < 30
 * of a warp takes column c = l % 6 of the row's blocks slice l / 6, + 5, + 10, ...: the six lanes of
 * a slice read a block's rows as consecutive words, and each lane gathers one input entry a block.
 * The lanes' six sums go down a shuffle tree. A row of more than CL_DDA_BSR_LONG blocks is the whole
 * thread block's (CL_DDA_BSR_WARPS warps, slices 5 w + l / 6, 40 of them), its warps' sums added in
 * warp order. The cpu adds the same terms in the same order (cl_dda_bsr_row). */
#define CL_DDA_BSR_SLICES 5
#define CL_DDA_BSR_WARPS 8
#define CL_DDA_BSR_LONG (8 * CL_DDA_BSR_SLICES) /* more than 8 passes of a lone warp */

CL_HD static inline int cl_dda_bsr_long(const cl_dda_pcg_args *A, size_t i) {
  return A->rowptr[i + 1] - A->rowptr[i] > CL_DDA_BSR_LONG;
}

/* Whether a block of block row i in column j is in A->parts. */
CL_HD static inline int cl_dda_bsr_used(const cl_dda_pcg_args *A, size_t i, size_t j) {
  return (A->parts & (j == i ? CL_DDA_DIAG : j > i ? CL_DDA_UPPER : CL_DDA_LOWER)) != 0;
}

/* Whether block p of block row i is in A->parts, and if so its column c's input entry into *v (v
 * as cl_dda_hsbcsr_row's). */
CL_HD static inline int cl_dda_bsr_input(const cl_dda_pcg_args *A, size_t i, int32_t p, int c, const real *p2,
                                         real beta, real *v) {
  const size_t j = (size_t)A->col[p];
  if (!cl_dda_bsr_used(A, i, j)) return 0;
  *v = cl_dda_spmv_input((const real *)A->in, p2, beta, (size_t)c * A->n + j);
  return 1;
}

/* Block p's column c times v added to acc. */
CL_HD static inline void cl_dda_bsr_add(const cl_dda_pcg_args *A, int32_t p, int c, real v, real acc[6]) {
  const real *blk = (const real *)A->val + 36 * (size_t)p + c;
  for (int r = 0; r < 6; r++) acc[r] += blk[6 * r] * v;
}

/* Block p's terms of block row i's six entries of A_parts v, column c of the block, added to acc
 * (nothing where the block is not in A->parts). */
CL_HD static inline void cl_dda_bsr_terms(const cl_dda_pcg_args *A, size_t i, int32_t p, int c, const real *p2,
                                          real beta, real acc[6]) {
  real v;
  if (cl_dda_bsr_input(A, i, p, c, p2, beta, &v)) cl_dda_bsr_add(A, p, c, v, acc);
}

/* Lane `lane` of warp `warp` of the `warps` that take block row i (cuda): its terms, the blocks of
 * its slice (5 warp + lane / 6, then every 5 warps-th) in column lane % 6, into acc. A block's
 * column and its input entry are two dependent loads: they are issued CL_DDA_BSR_BATCH blocks at a
 * time (block after block, case 1's long row was ~5 blocks a lane, ten round trips in a row while
 * the rest of the grid waited at the next barrier); the terms are added in block order as before.
 * The batch's columns are all loaded before any is looked at, and the input entries are loaded
 * whether or not the block is in A->parts (the column is a valid one either way): where the part
 * check came between one block's column and the next's, the build's SASS branched on each loaded
 * column before loading the next, a round trip a block again. Five a batch: case 1's long row
 * (191 blocks over a thread block's 40 slices) is one batch, two trips, where four made it two
 * batches; the launches' product stays within its 48 registers without spills (eight spilled). */
#define CL_DDA_BSR_BATCH 5

CL_HD static inline void cl_dda_bsr_lane(const cl_dda_pcg_args *A, size_t i, int warp, int warps, int lane,
                                         const real *p2, real beta, real acc[6]) {
  for (int r = 0; r < 6; r++) acc[r] = 0;
  if (lane >= 6 * CL_DDA_BSR_SLICES) return;
  const int32_t end = A->rowptr[i + 1], step = CL_DDA_BSR_SLICES * warps;
  const int c = lane % 6;
  const real *in = (const real *)A->in;
  for (int32_t p = A->rowptr[i] + CL_DDA_BSR_SLICES * warp + lane / 6; p < end; p += CL_DDA_BSR_BATCH * step) {
    int32_t j[CL_DDA_BSR_BATCH];
    real v[CL_DDA_BSR_BATCH];
    for (int u = 0; u < CL_DDA_BSR_BATCH; u++) j[u] = p + u * step < end ? A->col[p + u * step] : -1;
    for (int u = 0; u < CL_DDA_BSR_BATCH; u++)
      v[u] = j[u] >= 0 ? cl_dda_spmv_input(in, p2, beta, (size_t)c * A->n + (size_t)j[u]) : 0;
    for (int u = 0; u < CL_DDA_BSR_BATCH; u++)
      if (j[u] >= 0 && cl_dda_bsr_used(A, i, (size_t)j[u])) cl_dda_bsr_add(A, p + u * step, c, v[u], acc);
  }
}

/* Block row i of the BSR product into sum (the cpu's): each lane's terms as cl_dda_bsr_lane's, in
 * the same order (the blocks in row order, each to its lane's sums: one pass over the row's
 * contiguous blocks), added in the order of the cuda warp's shuffle-down tree (lane l += lane
 * l + off, off = 16, 8, .., 1), then the warps' sums in warp order. */
CL_HD static inline void cl_dda_bsr_row(const cl_dda_pcg_args *A, size_t i, const real *p2, real beta, real sum[6]) {
  const int warps = cl_dda_bsr_long(A, i) ? CL_DDA_BSR_WARPS : 1, slices = CL_DDA_BSR_SLICES * warps;
  real t[CL_DDA_BSR_WARPS][32][6];
  for (int w = 0; w < warps; w++)
    for (int l = 0; l < 32; l++)
      for (int r = 0; r < 6; r++) t[w][l][r] = 0;
  for (int32_t q = 0; q < A->rowptr[i + 1] - A->rowptr[i]; q++) {
    const int slice = q % slices, w = slice / CL_DDA_BSR_SLICES, l0 = 6 * (slice % CL_DDA_BSR_SLICES);
    for (int c = 0; c < 6; c++) cl_dda_bsr_terms(A, i, A->rowptr[i] + q, c, p2, beta, t[w][l0 + c]);
  }
  for (int w = 0; w < warps; w++) {
    for (int off = 16; off > 0; off >>= 1)
      for (int l = 0; l < off; l++)
        for (int r = 0; r < 6; r++) t[w][l][r] += t[w][l + off][r];
    for (int r = 0; r < 6; r++) sum[r] = w == 0 ? t[0][0][r] : sum[r] + t[w][0][r];
  }
}

/* Block row i of out = A_parts in (CL_DDA_OP_SPMV on the cpu) in either format. */
CL_HD static inline void cl_dda_spmv_block_row(const cl_dda_pcg_args *A, size_t i) {
  if (A->format == CL_DDA_BSR) {
    real s[6];
    cl_dda_bsr_row(A, i, NULL, 0, s);
    for (int r = 0; r < 6; r++) ((real *)A->out)[(size_t)r * A->n + i] = s[r];
  } else {
    for (size_t k = i; k < 6 * A->n; k += A->n) ((real *)A->out)[k] = cl_dda_hsbcsr_row(A, k, NULL, 0);
  }
}

/* The per-entry vector updates; PCG's (STEP, DIRECTION) only while the solve runs. */
CL_HD static inline void cl_dda_pcg_entry(const cl_dda_pcg_args *A, int op, size_t e) {
  real *x = (real *)A->x, *r = (real *)A->r, *z = (real *)A->z, *p = (real *)A->p;
  const real *q = (const real *)A->q;
  if (op == CL_DDA_OP_RESIDUAL) {
    r[e] = ((const real *)A->b)[e] - q[e];
  } else if (op == CL_DDA_OP_SUBTRACT) {
    ((real *)A->out)[e] = ((const real *)A->in)[e] - ((real *)A->out)[e];
  } else if (cl_dda_pcg_running(A->scal)) {
    if (op == CL_DDA_OP_STEP) {
      const real alpha = (real)A->scal[CL_DDA_S_ALPHA];
      x[e] += alpha * p[e], r[e] -= alpha * q[e];
    } else {
      p[e] = z[e] + (real)A->scal[CL_DDA_S_BETA] * p[e];
    }
  }
}

/* The vectors of a dot operation: x.y, and u.v for the two-sum ones (BEGIN, BETA: r.z, r.r). */
CL_HD static inline int cl_dda_dot_vectors(const cl_dda_pcg_args *A, int op, const void **x, const void **y) {
  if (op == CL_DDA_OP_DOT_BB) x[0] = y[0] = A->b;
  else if (op == CL_DDA_OP_FACTOR_CHECK) x[0] = y[0] = A->dinv; /* its first 6 n entries */
  else if (op == CL_DDA_OP_ALPHA) x[0] = A->p, y[0] = A->q;
  else x[0] = A->r, y[0] = A->z, x[1] = y[1] = A->r;
  return op == CL_DDA_OP_BEGIN || op == CL_DDA_OP_BETA ? 2 : 1;
}

#endif
