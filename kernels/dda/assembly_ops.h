/* The assembly of the DDA step's global matrix on the device, written once for both backends
 * (pcg_cpu.c, pcg_cuda.cu; pcg.c builds the indices once a step): each contact's spring submatrices
 * and right-hand sides (contact.h) computed entry by entry into its own slots, then every entry of
 * every matrix block and of every block row of the right-hand side summed from the slots of its
 * block's contacts, listed in contact order. This is the paper's Fig. 4 (sort the shares by block,
 * sum each segment) with the sort done on the contacts' indices alone: no atomics, no write
 * conflicts, the same sums in the same order on the CPU and the GPU. The slots are contact-major
 * (cK: 108 a contact, Kii, Kjj, Kij row-major; cF: 12, Fi, Fj) so that the 36 entries of one
 * contact's submatrix, summed by 36 neighbouring GPU threads, are read in one coalesced sweep. */
#ifndef CL_DDA_ASSEMBLY_OPS_H
#define CL_DDA_ASSEMBLY_OPS_H

#include "../common/real.h"
#include "contact.h"
#include "pcg_args.h"
#include "pcg_ops.h"

/* Entry e (0..35, row-major: r = e / 6, c = e % 6) of contact k's Kii, Kjj, Kij into its slots: the
 * normal spring, and the shear spring when locked, each entry the sum cl_dda_spring (contact.h)
 * makes of it in the same order. An open contact has no share: its slots are left as they are and
 * the gathers skip it (the step's pattern and indices hold every contact, open or closed). */
CL_HD static inline void cl_dda_contact_stiffness_entry(const cl_dda_pcg_args *A, size_t k, int e) {
  const int32_t state = A->cstate[k];
  if (state == CL_DDA_OPEN) return;
  const size_t nc = A->nc;
  const real *geo = (const real *)A->cgeo; /* en, fn, es, fs (6 rows each), gn0, gs0 */
  const int r = e / 6, c = e % 6;
  const double kn = A->kn, ks = A->ks;
  const double enr = geo[r * nc + k], enc = geo[c * nc + k], fnr = geo[(6 + r) * nc + k], fnc = geo[(6 + c) * nc + k];
  double kii = 0, kjj = 0, kij = 0;
  kii += kn * enr * enc, kjj += kn * fnr * fnc, kij -= kn * enr * fnc;
  if (state == CL_DDA_LOCK) {
    const double esr = geo[(12 + r) * nc + k], esc = geo[(12 + c) * nc + k];
    const double fsr = geo[(18 + r) * nc + k], fsc = geo[(18 + c) * nc + k];
    kii += ks * esr * esc, kjj += ks * fsr * fsc, kij -= ks * esr * fsc;
  }
  real *K = (real *)A->cK + 108 * k;
  K[e] = (real)kii, K[36 + e] = (real)kjj, K[72 + e] = (real)kij;
}

/* Entry e (0..11: Fi then Fj) of contact k's right-hand sides into its slots: the normal spring's,
 * the shear spring's when locked, the friction force when sliding (cfric: the last rule's, so it
 * changes from one open-close iteration to the next). An open contact: as above. */
CL_HD static inline void cl_dda_contact_force_entry(const cl_dda_pcg_args *A, size_t k, int e) {
  const int32_t state = A->cstate[k];
  if (state == CL_DDA_OPEN) return;
  const size_t nc = A->nc;
  const real *geo = (const real *)A->cgeo;
  const int q = e % 6, lock = state == CL_DDA_LOCK; /* Fi (e < 6) or Fj, entry q */
  const double kn = A->kn, ks = A->ks;
  const double gn0 = geo[24 * nc + k], gs0 = geo[25 * nc + k];
  const double fric = lock ? 0 : ((const real *)A->cfric)[k]; /* set for the sliding ones */
  double f = 0;
  if (e < 6) {
    const double a = geo[q * nc + k], as = geo[(12 + q) * nc + k];
    f -= kn * gn0 * a;
    if (lock) f -= ks * gs0 * as;
    else f -= fric * as;
  } else {
    const double b = geo[(6 + q) * nc + k], bs = geo[(18 + q) * nc + k];
    f += kn * gn0 * b;
    if (lock) f += ks * gs0 * bs;
    else f += fric * bs;
  }
  ((real *)A->cF)[12 * k + (size_t)e] = (real)f;
}

/* Entry e of contact k's submatrices and, for e < 12, of its right-hand sides (the full assembly's).
 * An entry a thread (36 a contact on the GPU): a contact's 108 slots are written by neighbouring
 * threads as contiguous words, where a thread a contact wrote its own 960 bytes, 864 bytes apart
 * from its neighbours' (155 us for case 1's 67 516 contacts on the H100, against ~15 us for their
 * 45 MB). */
CL_HD static inline void cl_dda_contact_spring_entry(const cl_dda_pcg_args *A, size_t k, int e) {
  cl_dda_contact_stiffness_entry(A, k, e);
  if (e < 12) cl_dda_contact_force_entry(A, k, e);
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

/* A share of a matrix block (rhs 0: item 4 k + role of gitem, the slots cK; Kij^T's entry e is
 * Kij's transposed entry) or of a block row of b (rhs 1: item 2 k + side of ritem, the slots cF):
 * whether it counts (its contact is not open), and where its entry e lies among the slots. */
CL_HD static inline int cl_dda_share_used(const cl_dda_pcg_args *A, int rhs, int32_t item) {
  return item >= 0 && A->cstate[item >> (rhs ? 1 : 2)] != CL_DDA_OPEN;
}

CL_HD static inline size_t cl_dda_share_slot(int rhs, int32_t item, int e) {
  const size_t k = (size_t)(item >> (rhs ? 1 : 2));
  const int role = item & 3;
  return rhs ? 12 * k + 6 * (size_t)(item & 1) + (size_t)e
             : 108 * k + (role == 3 ? 72 + (size_t)(6 * (e % 6) + e / 6) : 36 * (size_t)role + (size_t)e);
}

/* sum plus entry e of the shares q, q + stride, .. (< end) of a matrix block (rhs 0) or of a block
 * row of b (rhs 1), in their order, an open contact's skipped. A share's item, its contact's state
 * and its slot are three dependent loads: they are issued CL_DDA_GATHER_BATCH shares at a time (one
 * share after another, a thread waited three L2 round trips a share); the additions stay one after
 * another in share order. */
#define CL_DDA_GATHER_BATCH 4

CL_HD static inline real cl_dda_share_sum(const cl_dda_pcg_args *A, int rhs, int32_t q, int32_t end, int stride,
                                          int e, real sum) {
  const int32_t *items = rhs ? A->ritem : A->gitem;
  const real *slots = (const real *)(rhs ? A->cF : A->cK);
  for (; q < end; q += CL_DDA_GATHER_BATCH * stride) {
    int32_t item[CL_DDA_GATHER_BATCH];
    int used[CL_DDA_GATHER_BATCH];
    real v[CL_DDA_GATHER_BATCH];
    for (int u = 0; u < CL_DDA_GATHER_BATCH; u++) item[u] = q + u * stride < end ? items[q + u * stride] : -1;
    for (int u = 0; u < CL_DDA_GATHER_BATCH; u++) used[u] = cl_dda_share_used(A, rhs, item[u]);
    for (int u = 0; u < CL_DDA_GATHER_BATCH; u++) v[u] = used[u] ? slots[cl_dda_share_slot(rhs, item[u], e)] : 0;
    for (int u = 0; u < CL_DDA_GATHER_BATCH; u++)
      if (used[u]) sum += v[u];
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


/* The incremental assembly. After the first assembly of an attempt, an open-close iteration changes
 * the matrix only where the rule changed a contact's state (open <-> closed: all its springs; slide
 * <-> lock: the shear spring), and b where a contact changed or slides (its friction force follows
 * the last solve's normal force). The rule lists the contacts it changed (clist, open_close_ops.h);
 * CL_DDA_OP_SPRINGS_CHANGED rewrites their submatrices and the right-hand sides of the sliding
 * contacts and of the listed locked ones,
 * and each listed contact's shares claim their matrix blocks (tmark: the smallest claiming item
 * wins, so that a block two listed contacts share is summed once); the incremental gather then
 * re-sums each claimed block from its whole share list, in share order as the full gather does (not
 * old + delta: the result is the full assembly's bit for bit), re-factors the claimed diagonal
 * blocks, and re-gathers every block row of b (n items of 6 entries: a few percent of the matrix's
 * sums). The listed contacts' blocks are all that changed in the matrix: every other block's shares
 * have the states and slots of the assembly before. */

/* Whether the format keeps contact k's share `role` (HSBCSR keeps only the upper one of Kij, Kij^T). */
CL_HD static inline int cl_dda_share_kept(const cl_dda_pcg_args *A, size_t k, int role) {
  if (A->format == CL_DDA_BSR || role < 2) return 1;
  return (role == 2) == (A->cbj[k] > A->cbi[k]);
}

/* Matrix block t's shares name it in ctarget, and t is unclaimed (CL_DDA_OP_SHARE_TARGETS, once a
 * step before its first incremental assembly: the inverse of gstart / gitem, host or device built). */
CL_HD static inline void cl_dda_share_targets(const cl_dda_pcg_args *A, size_t t) {
  for (int32_t q = A->gstart[t]; q < A->gstart[t + 1]; q++) A->ctarget[A->gitem[q]] = (int32_t)t;
  A->tmark[t] = INT32_MAX;
}

/* Entry e of listed contact k's slots in an incremental assembly: its submatrices, and its right-hand
 * sides where it is locked now (a sliding one's are cl_dda_sliding_force_entry's, written once). */
CL_HD static inline void cl_dda_listed_spring_entry(const cl_dda_pcg_args *A, size_t k, int e) {
  cl_dda_contact_stiffness_entry(A, k, e);
  if (e < 12 && A->cstate[k] == CL_DDA_LOCK) cl_dda_contact_force_entry(A, k, e);
}

/* Entry e (0..11) of contact k's right-hand sides in an incremental assembly where it slides: its
 * friction force follows the last rule's normal force. A locked contact's do not change while it
 * stays locked (its springs' forces are the step's geometry), so only the listed ones are rewritten. */
CL_HD static inline void cl_dda_sliding_force_entry(const cl_dda_pcg_args *A, size_t k, int e) {
  if (A->cstate[k] == CL_DDA_SLIDE) cl_dda_contact_force_entry(A, k, e);
}

/* Listed contact v's share `role` claims its matrix block for gather item 4 v + role. */
CL_HD static inline void cl_dda_claim_block(const cl_dda_pcg_args *A, size_t v, int role) {
  const size_t k = (size_t)A->clist[1 + v];
  if (!cl_dda_share_kept(A, k, role)) return;
  int32_t *mark = A->tmark + A->ctarget[4 * k + (size_t)role];
  const int32_t u = (int32_t)(4 * v) + role;
#ifdef __CUDA_ARCH__
  atomicMin(mark, u);
#else
  if (u < *mark) *mark = u;
#endif
}

/* The gather's items: the full one's ntarget matrix blocks, or the incremental one's four shares of
 * each listed contact; then the n block rows of b. */
CL_HD static inline size_t cl_dda_gather_items(const cl_dda_pcg_args *A) {
  return (A->incremental ? 4 * A->nlisted : A->ntarget) + A->n;
}

/* Gather item u's target t (< ntarget: a matrix block; ntarget + i: block row i of b), or -1: an
 * incremental item whose share the format drops or whose block another item claimed. */
CL_HD static inline int64_t cl_dda_gather_target(const cl_dda_pcg_args *A, size_t u) {
  if (!A->incremental) return (int64_t)u;
  const size_t listed = 4 * A->nlisted;
  if (u >= listed) return (int64_t)(A->ntarget + (u - listed));
  const size_t k = (size_t)A->clist[1 + u / 4];
  const int role = (int)(u % 4);
  if (!cl_dda_share_kept(A, k, role)) return -1;
  const int32_t t = A->ctarget[4 * k + (size_t)role];
  return A->tmark[t] == (int32_t)u ? (int64_t)t : -1;
}

/* After gather item u (target t) is written and factored: its claimed block unclaimed again (no other
 * item takes it for its own: they hold other numbers). */
CL_HD static inline void cl_dda_gather_release(const cl_dda_pcg_args *A, size_t u, size_t t) {
  if (A->incremental && u < 4 * A->nlisted) A->tmark[t] = INT32_MAX;
}

/* Once a gather, full or incremental (one thread): the rule's list emptied for the next rule. The
 * springs before it have read the list; its entries stay for this gather's items. */
CL_HD static inline void cl_dda_gather_empty_list(const cl_dda_pcg_args *A) {
  if (A->clist) A->clist[0] = 0;
}

#endif
