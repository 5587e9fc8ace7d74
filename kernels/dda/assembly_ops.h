/* The assembly of the DDA step's global matrix on the device, written once for both backends
 * (pcg_cpu.c, pcg_cuda.cu; pcg.c builds the indices once a step): every entry of every matrix block
 * and of every block row of the right-hand side summed over its block's contacts' shares, listed in
 * contact order, each share's entry computed where it is summed from its contact's springs
 * (contact.h) and its record (spring_record.h). This is the paper's Fig. 4 (sort the shares by block,
 * sum each segment) with the sort done on the contacts' indices alone: no atomics, no write
 * conflicts, the same sums in the same order on the CPU and the GPU. The entries were a springs
 * pass's slots (108 + 12 reals a contact, 65 MB for case 1's 67 516 contacts, written once and read
 * once an open-close iteration from DRAM); a share's entry is an outer product's, two of its
 * contact's values a spring, and computing it where it is summed reads the record's 208 bytes a
 * contact instead (14 MB, which stays in the H100's L2 from iteration to iteration). */
#ifndef CL_DDA_ASSEMBLY_OPS_H
#define CL_DDA_ASSEMBLY_OPS_H

#include "../common/real.h"
#include "contact.h"
#include "pcg_args.h"
#include "pcg_ops.h"
#include "spring_record.h"

/* A share (its contact k's item) of a matrix block (rhs 0: item 4 k + role, 0: Kii, 1: Kjj, 2: Kij,
 * 3: Kij^T, whose entry e is Kij's transposed one; e = 6 r + c, row-major) or of a block row of b
 * (rhs 1: item 2 k + side, 0: Fi, 1: Fj; e < 6): the five values its entry e is made of, from k's
 * record (spring_record.h): a matrix block's the row block's pair (n, s) at r and the column
 * block's at c; b's the block's pair at e, the gaps gn0, gs0 and the friction force. Every load is
 * unconditional and its address depends on the item alone (the record is there for every contact,
 * open or not): on the GPU a batch of shares' loads go out together, before their states are known. */
CL_HD static inline void cl_dda_share_load(const cl_dda_pcg_args *A, int rhs, int32_t item, int e, real op[5]) {
  const size_t k = (size_t)(item >> (rhs ? 1 : 2));
  const real *rec = (const real *)A->cspring + CL_DDA_SPRING_VALUES * k;
  const int role = item & 3, r = rhs ? e : role == 3 ? e % 6 : e / 6, c = role == 3 ? e / 6 : e % 6;
  const int row_b = rhs ? item & 1 : role == 1, col_b = role != 0; /* the edge block's pair */
  const real *x = rec + (row_b ? CL_DDA_SPRING_B : CL_DDA_SPRING_A) + 2 * r;
  const real *y = rhs ? rec + CL_DDA_SPRING_GAPS : rec + (col_b ? CL_DDA_SPRING_B : CL_DDA_SPRING_A) + 2 * c;
  op[0] = x[0], op[1] = x[1], op[2] = y[0], op[3] = y[1];
  op[4] = rhs ? ((const real *)A->cfric)[k] : 0; /* set for the sliding ones */
}

/* The share's entry from its five values, its contact's state not open: the normal spring, the
 * shear spring when locked, the friction force when sliding, each entry the sum cl_dda_spring
 * (contact.h) makes of it in the same order -- as the springs pass computed its slot, so that the
 * sums are those of before bit for bit. */
CL_HD static inline real cl_dda_share_value(const cl_dda_pcg_args *A, int rhs, int32_t item, int32_t state,
                                            const real op[5]) {
  const int lock = state == CL_DDA_LOCK;
  const double kn = A->kn, ks = A->ks;
  if (rhs) {
    const double a = op[0], as = op[1], gn0 = op[2], gs0 = op[3], fric = lock ? 0 : op[4];
    double f = 0;
    if (!(item & 1)) {
      f -= kn * gn0 * a;
      if (lock) f -= ks * gs0 * as;
      else f -= fric * as;
    } else {
      f += kn * gn0 * a;
      if (lock) f += ks * gs0 * as;
      else f += fric * as;
    }
    return (real)f;
  }
  const double un = op[0], us = op[1], wn = op[2], ws = op[3];
  double v = 0;
  if ((item & 3) >= 2) {
    v -= kn * un * wn;
    if (lock) v -= ks * us * ws;
  } else {
    v += kn * un * wn;
    if (lock) v += ks * us * ws;
  }
  return (real)v;
}

/* The gather's items: ntarget matrix blocks (36 entries each) then n block rows of b (6 entries).
 * On the GPU 36 threads an item, CL_DDA_GATHER_ITEMS items a thread block (1 008 threads), each
 * thread summing one entry over the item's shares in contact order. An item of more than
 * CL_DDA_GATHER_LONG shares is the whole thread block's: case 1's fixed base has ~190 neighbours,
 * and its diagonal block and block row sum hundreds of shares where a mean block's sum ~30 -- one
 * thread's chain of dependent loads for each, while the rest of the grid waited. There slice s of
 * the CL_DDA_GATHER_ITEMS sums shares s, s + 28, ..., and the slices' sums are added in slice order
 * (the CPU in the same order). A shorter item's entries are each one thread's sum in share order;
 * on the GPU its 36 threads first load 36 of its shares' items and states at once (pcg_cuda.cu). */
#define CL_DDA_GATHER_ITEMS 28
#define CL_DDA_GATHER_LONG 64

/* The state of the contact of a share (rhs as cl_dda_share_load's), CL_DDA_OPEN for none (item -1):
 * an open contact's share does not count. */
CL_HD static inline int32_t cl_dda_share_state(const cl_dda_pcg_args *A, int rhs, int32_t item) {
  return item >= 0 ? A->cstate[item >> (rhs ? 1 : 2)] : CL_DDA_OPEN;
}

/* sum plus entry e of the shares q, q + stride, .. (< end) of a matrix block (rhs 0) or of a block
 * row of b (rhs 1), in their order, an open contact's skipped. A share's item is one load, its
 * contact's state and its values (cl_dda_share_load) the next: they are issued CL_DDA_GATHER_BATCH
 * shares at a time (a missing share's from contact 0's record, unused); the additions stay one
 * after another in share order. Two shares: on the GPU their 10 values fill the 32 registers of two
 * blocks an SM (the slots were one value a share, and four were in flight). */
#define CL_DDA_GATHER_BATCH 2

CL_HD static inline real cl_dda_share_sum(const cl_dda_pcg_args *A, int rhs, int32_t q, int32_t end, int stride,
                                          int e, real sum) {
  const int32_t *items = rhs ? A->ritem : A->gitem;
  for (; q < end; q += CL_DDA_GATHER_BATCH * stride) {
    int32_t item[CL_DDA_GATHER_BATCH], state[CL_DDA_GATHER_BATCH];
    real op[CL_DDA_GATHER_BATCH][5];
    for (int u = 0; u < CL_DDA_GATHER_BATCH; u++) item[u] = q + u * stride < end ? items[q + u * stride] : -1;
    for (int u = 0; u < CL_DDA_GATHER_BATCH; u++) {
      state[u] = cl_dda_share_state(A, rhs, item[u]);
      cl_dda_share_load(A, rhs, item[u] >= 0 ? item[u] : 0, e, op[u]);
    }
    for (int u = 0; u < CL_DDA_GATHER_BATCH; u++)
      if (state[u] != CL_DDA_OPEN) sum += cl_dda_share_value(A, rhs, item[u], state[u], op[u]);
  }
  return sum;
}

/* Item t's shares: items lo .. hi of gitem (a matrix block) or of ritem (a block row of b, the
 * return value 1: rhs). */
CL_HD static inline int cl_dda_gather_shares(const cl_dda_pcg_args *A, size_t t, int32_t *lo, int32_t *hi) {
  const int rhs = t >= A->ntarget;
  const int32_t *start = rhs ? A->rstart + (t - A->ntarget) : A->gstart + t;
  *lo = start[0], *hi = start[1];
  return rhs;
}

/* Whether item t is a long one, summed in CL_DDA_GATHER_ITEMS slices. */
CL_HD static inline int cl_dda_gather_long(const cl_dda_pcg_args *A, size_t t) {
  int32_t lo, hi;
  cl_dda_gather_shares(A, t, &lo, &hi);
  return hi - lo > CL_DDA_GATHER_LONG;
}

/* Entry e (0..35, row-major; 0..5 in a block row of b) of item t before its shares: a matrix
 * block's diagonal submatrix (0 without one), a block row's per-block right-hand side. */
CL_HD static inline real cl_dda_gather_first(const cl_dda_pcg_args *A, size_t t, int e) {
  if (t >= A->ntarget) return ((const real *)A->Fdiag)[(size_t)e * A->n + (t - A->ntarget)];
  const int32_t d = A->tdiag[t];
  return d >= 0 ? ((const real *)A->Kdiag)[36 * (size_t)d + e] : 0;
}

/* Whether item t has an entry e (a block row of b has 6). */
CL_HD static inline int cl_dda_gather_has(const cl_dda_pcg_args *A, size_t t, int e) { return t < A->ntarget || e < 6; }

/* Slice `slice` of `slices` of entry e of item t: its first term (slice 0) plus its shares slice,
 * slice + slices, ... */
CL_HD static inline real cl_dda_gather_part(const cl_dda_pcg_args *A, size_t t, int e, int slice, int slices) {
  int32_t lo, hi;
  const int rhs = cl_dda_gather_shares(A, t, &lo, &hi);
  return cl_dda_share_sum(A, rhs, lo + slice, hi, slices, e, slice == 0 ? cl_dda_gather_first(A, t, e) : 0);
}

/* Entry e of item t, sum, where the format keeps it (BSR: row-major at 36 t; HSBCSR: the diagonal
 * or upper slices; b: SoA). */
CL_HD static inline void cl_dda_gather_write(const cl_dda_pcg_args *A, size_t t, int e, real sum) {
  const size_t n = A->n;
  if (t >= A->ntarget) ((real *)A->b)[(size_t)e * n + (t - A->ntarget)] = sum;
  else if (A->format == CL_DDA_BSR) ((real *)A->val)[36 * t + e] = sum;
  else if (t < n) ((real *)A->diag)[(size_t)e * n + t] = sum;
  else ((real *)A->up)[(size_t)e * A->nup + (t - n)] = sum;
}

/* After all of item t's entries are written: a diagonal block's inverse from its sums. One
 * pass where three were (blocks, factors, b): an open-close iteration's assembly is two launches
 * and the factors' check. */
CL_HD static inline void cl_dda_gather_finish(const cl_dda_pcg_args *A, size_t t) {
  if (t < A->ntarget && A->tdiag[t] >= 0) cl_dda_factor_block(A, (size_t)A->tdiag[t]);
}

/* Item t whole (the cpu's): each entry from its slices in slice order, as the GPU sums it; then
 * the factor of a diagonal block. */
CL_HD static inline void cl_dda_gather_item(const cl_dda_pcg_args *A, size_t t) {
  const int slices = cl_dda_gather_long(A, t) ? CL_DDA_GATHER_ITEMS : 1;
  for (int e = 0; e < 36; e++) {
    if (!cl_dda_gather_has(A, t, e)) continue;
    real sum = cl_dda_gather_part(A, t, e, 0, slices);
    for (int s = 1; s < slices; s++) sum += cl_dda_gather_part(A, t, e, s, slices);
    cl_dda_gather_write(A, t, e, sum);
  }
  cl_dda_gather_finish(A, t);
}

#endif
