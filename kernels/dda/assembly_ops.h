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

/* Entry e (0..35, row-major: r = e / 6, c = e % 6) of contact k's Kii, Kjj, Kij into its slots and,
 * for e < 12, entry e of its Fi, Fj: the normal spring, the shear spring when locked, the friction
 * force when sliding, each entry the sum cl_dda_spring (contact.h) makes of it in the same order.
 * An entry a thread (36 a contact on the GPU): a contact's 108 slots are written by neighbouring
 * threads as contiguous words, where a thread a contact wrote its own 960 bytes, 864 bytes apart
 * from its neighbours' (155 us for case 1's 67 516 contacts on the H100, against ~15 us for their
 * 45 MB). An open contact has no share: its slots are left as they are and the gathers skip it
 * (the step's pattern and indices hold every contact, open or closed). */
CL_HD static inline void cl_dda_contact_spring_entry(const cl_dda_pcg_args *A, size_t k, int e) {
  const int32_t state = A->cstate[k];
  if (state == CL_DDA_OPEN) return;
  const size_t nc = A->nc;
  const real *geo = (const real *)A->cgeo; /* en, fn, es, fs (6 rows each), gn0, gs0 */
  const int r = e / 6, c = e % 6, lock = state == CL_DDA_LOCK;
  const double kn = A->kn, ks = A->ks;
  const double enr = geo[r * nc + k], enc = geo[c * nc + k], fnr = geo[(6 + r) * nc + k], fnc = geo[(6 + c) * nc + k];
  double kii = 0, kjj = 0, kij = 0;
  kii += kn * enr * enc, kjj += kn * fnr * fnc, kij -= kn * enr * fnc;
  if (lock) {
    const double esr = geo[(12 + r) * nc + k], esc = geo[(12 + c) * nc + k];
    const double fsr = geo[(18 + r) * nc + k], fsc = geo[(18 + c) * nc + k];
    kii += ks * esr * esc, kjj += ks * fsr * fsc, kij -= ks * esr * fsc;
  }
  real *K = (real *)A->cK + 108 * k;
  K[e] = (real)kii, K[36 + e] = (real)kjj, K[72 + e] = (real)kij;
  if (e >= 12) return;
  const int q = e % 6; /* Fi (e < 6) or Fj, entry q */
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

/* Entry e (0..35, row-major) of matrix block t: its diagonal submatrix's (if any) plus its
 * contacts' shares, written where the format keeps it (BSR: row-major at 36 t; HSBCSR: the diagonal
 * or upper slices). Kij^T's entry e is Kij's transposed entry. */
CL_HD static inline void cl_dda_gather_block_entry(const cl_dda_pcg_args *A, size_t t, int e) {
  const size_t n = A->n;
  const real *K = (const real *)A->cK;
  const int32_t d = A->tdiag[t];
  real sum = d >= 0 ? ((const real *)A->Kdiag)[36 * (size_t)d + e] : 0;
  const int transposed = 6 * (e % 6) + e / 6;
  for (int32_t q = A->gstart[t]; q < A->gstart[t + 1]; q++) {
    const int32_t item = A->gitem[q], role = item & 3;
    const size_t k = (size_t)(item >> 2);
    if (A->cstate[k] == CL_DDA_OPEN) continue;
    sum += role == 3 ? K[108 * k + 72 + transposed] : K[108 * k + 36 * role + e];
  }
  if (A->format == CL_DDA_BSR) ((real *)A->val)[36 * t + e] = sum;
  else if (t < n) ((real *)A->diag)[(size_t)e * n + t] = sum;
  else ((real *)A->up)[(size_t)e * A->nup + (t - n)] = sum;
}

/* Entry r (0..5) of block row i of the right-hand side b (SoA). */
CL_HD static inline void cl_dda_gather_rhs_entry(const cl_dda_pcg_args *A, size_t i, int r) {
  const size_t n = A->n;
  const real *F = (const real *)A->cF;
  real s = ((const real *)A->Fdiag)[r * n + i];
  for (int32_t q = A->rstart[i]; q < A->rstart[i + 1]; q++) {
    const int32_t item = A->ritem[q];
    const size_t k = (size_t)(item >> 1);
    if (A->cstate[k] == CL_DDA_OPEN) continue;
    s += F[12 * k + 6 * (item & 1) + r];
  }
  ((real *)A->b)[r * n + i] = s;
}

/* Entry e of item t of CL_DDA_OP_GATHER (ntarget + n items): matrix block t's entry e (36 of them);
 * past ntarget, entry e of block row t - ntarget of b (6 of them; e >= 6 does nothing). */
CL_HD static inline void cl_dda_gather_entry(const cl_dda_pcg_args *A, size_t t, int e) {
  if (t < A->ntarget) cl_dda_gather_block_entry(A, t, e);
  else if (e < 6) cl_dda_gather_rhs_entry(A, t - A->ntarget, e);
}

/* After all of item t's entries are written: a diagonal block's Cholesky factor from its sums. One
 * pass where three were (blocks, factors, b): an open-close iteration's assembly is two launches
 * and the factors' check. */
CL_HD static inline void cl_dda_gather_finish(const cl_dda_pcg_args *A, size_t t) {
  if (t < A->ntarget && A->tdiag[t] >= 0) cl_dda_factor_block(A, (size_t)A->tdiag[t]);
}

#endif
