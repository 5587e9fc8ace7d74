/* The assembly of the DDA step's global matrix on the device, written once for both backends
 * (pcg_cpu.c, pcg_cuda.cu; pcg.c builds the indices once a step): each contact's spring submatrices
 * and right-hand sides (contact.h) computed by one thread into its own slots, then every matrix
 * block and every block row of the right-hand side summed by one thread from the slots of its
 * contacts, listed in contact order. This is the paper's Fig. 4 (sort the shares by block, sum each
 * segment) with the sort done on the contacts' indices alone: no atomics, no write conflicts, the
 * same sums in the same order on the CPU and the GPU. */
#ifndef CL_DDA_ASSEMBLY_OPS_H
#define CL_DDA_ASSEMBLY_OPS_H

#include "../common/real.h"
#include "contact.h"
#include "pcg_args.h"
#include "pcg_ops.h"

/* Contact k's Kii, Kjj, Kij (normal spring; shear spring when locked) and Fi, Fj (with the
 * friction force when sliding). An open contact has no share: its slots are left as they are and
 * the gathers skip it (the step's pattern and indices hold every contact, open or closed). */
CL_HD static inline void cl_dda_contact_springs(const cl_dda_pcg_args *A, size_t k) {
  const size_t nc = A->nc;
  const int32_t state = A->cstate[k];
  if (state == CL_DDA_OPEN) return;
  const real *geo = (const real *)A->cgeo;
  double en[6], fn[6], es[6], fs[6], Kii[36], Kjj[36], Kij[36], Fi[6], Fj[6];
  for (int c = 0; c < 6; c++) {
    en[c] = geo[c * nc + k], fn[c] = geo[(6 + c) * nc + k];
    es[c] = geo[(12 + c) * nc + k], fs[c] = geo[(18 + c) * nc + k];
    Fi[c] = Fj[c] = 0;
  }
  for (int e = 0; e < 36; e++) Kii[e] = Kjj[e] = Kij[e] = 0;
  cl_dda_spring(A->kn, geo[24 * nc + k], en, fn, Kii, Kjj, Kij, Fi, Fj);
  if (state == CL_DDA_LOCK) {
    cl_dda_spring(A->ks, geo[25 * nc + k], es, fs, Kii, Kjj, Kij, Fi, Fj);
  } else {
    const double f = ((const real *)A->cfric)[k];
    for (int r = 0; r < 6; r++) Fi[r] -= f * es[r], Fj[r] += f * fs[r];
  }
  real *K = (real *)A->cK, *F = (real *)A->cF;
  for (int e = 0; e < 36; e++) {
    K[e * nc + k] = (real)Kii[e], K[(36 + e) * nc + k] = (real)Kjj[e], K[(72 + e) * nc + k] = (real)Kij[e];
  }
  for (int r = 0; r < 6; r++) F[r * nc + k] = (real)Fi[r], F[(6 + r) * nc + k] = (real)Fj[r];
}

/* Matrix block t: its diagonal submatrix (if any) plus its contacts' shares, written where the
 * format keeps it (BSR: row-major at 36 t; HSBCSR: the diagonal or upper slices). */
CL_HD static inline void cl_dda_gather_block(const cl_dda_pcg_args *A, size_t t) {
  const size_t nc = A->nc, n = A->n;
  const real *K = (const real *)A->cK;
  real *dst;
  size_t stride;
  if (A->format == CL_DDA_BSR) dst = (real *)A->val + 36 * t, stride = 1;
  else if (t < n) dst = (real *)A->diag + t, stride = n;
  else dst = (real *)A->up + (t - n), stride = A->nup;
  const int32_t d = A->tdiag[t];
  real sum[36];
  for (int e = 0; e < 36; e++) sum[e] = d >= 0 ? ((const real *)A->Kdiag)[36 * (size_t)d + e] : 0;
  for (int32_t q = A->gstart[t]; q < A->gstart[t + 1]; q++) {
    const int32_t item = A->gitem[q], role = item & 3;
    const size_t k = (size_t)(item >> 2);
    if (A->cstate[k] == CL_DDA_OPEN) continue;
    for (int e = 0; e < 36; e++) {
      const int entry = role == 3 ? 6 * (e % 6) + e / 6 : e; /* Kij^T */
      sum[e] += K[((role == 3 ? 2 : role) * 36 + entry) * nc + k];
    }
  }
  for (int e = 0; e < 36; e++) dst[(size_t)e * stride] = sum[e];
}

/* Block row i of the right-hand side b (SoA). */
CL_HD static inline void cl_dda_gather_rhs(const cl_dda_pcg_args *A, size_t i) {
  const size_t nc = A->nc, n = A->n;
  const real *F = (const real *)A->cF, *Fd = (const real *)A->Fdiag;
  real *b = (real *)A->b;
  for (int r = 0; r < 6; r++) {
    real s = Fd[r * n + i];
    for (int32_t q = A->rstart[i]; q < A->rstart[i + 1]; q++) {
      const int32_t item = A->ritem[q];
      if (A->cstate[item >> 1] == CL_DDA_OPEN) continue;
      s += F[((item & 1) * 6 + r) * nc + (size_t)(item >> 1)];
    }
    b[r * n + i] = s;
  }
}

/* Item t of CL_DDA_OP_GATHER (ntarget + n items): matrix block t and, for a diagonal block, its
 * Cholesky factor from the sums the thread has just written; past ntarget, block row t - ntarget of
 * b. One pass where three were: an open-close iteration's assembly is two launches and the factors'
 * check. */
CL_HD static inline void cl_dda_gather(const cl_dda_pcg_args *A, size_t t) {
  if (t >= A->ntarget) {
    cl_dda_gather_rhs(A, t - A->ntarget);
    return;
  }
  cl_dda_gather_block(A, t);
  if (A->tdiag[t] >= 0) cl_dda_factor_block(A, (size_t)A->tdiag[t]);
}

#endif
