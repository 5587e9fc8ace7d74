/* The open-close rule of the DDA step on the device, per contact, written once for both backends
 * (pcg_cpu.c, pcg_cuda.cu, and the tail of pcg_persistent_cuda.cu's solve; pcg.c drives it): after each solve every
 * contact applies cl_dda_open_close (contact.h) to its gaps in the device's solution and keeps its
 * state, sliding direction, state changes, normal and friction force on the device; only the counts
 * of changed and unsettled contacts come back, as two of PCG's scalars (pcg_scalars.h).
 *
 * A contact counts as changed when its state changed, as unsettled when it slides and its normal
 * force moved by more than 1e-6 of itself; the iteration goes on while either count is not zero.
 * The round-off bands (slip_floor: 1e-9 of the allowed displacement, force_floor: that through the
 * normal stiffness) keep a contact carrying no force from flipping on gaps of 1e-20 and chattering
 * on slightly larger ones. A contact that changed flip_limit times keeps its state, but for
 * locking: an open one that penetrates closes, and a sliding one whose slip turns back locks --
 * held sliding, its friction would push the blocks along their slip and do negative work (on
 * dda_slope.lua the friction work of 100 steps came out -1.7 J, every negative share a held
 * contact's). Locked, a held contact stores its shear in a conservative spring, and it changes at
 * most once more. */
#ifndef CL_DDA_OPEN_CLOSE_OPS_H
#define CL_DDA_OPEN_CLOSE_OPS_H

#include "../common/real.h"
#include "contact.h"
#include "pcg_args.h"

/* Contact k's rule on x; returns 1 if its state changed, 2 if it slides unsettled, else 0. */
CL_HD static inline int cl_dda_contact_rule(const cl_dda_pcg_args *A, size_t k) {
  const size_t nc = A->nc, n = A->n, i = (size_t)A->cbi[k], j = (size_t)A->cbj[k];
  const real *geo = (const real *)A->cgeo, *x = (const real *)A->x, *law = (const real *)A->claw;
  real *sgn = (real *)A->csgn, *N = (real *)A->cN, *fric = (real *)A->cfric;
  double en[6], fn[6], es[6], fs[6], Di[6], Dj[6];
  for (int c = 0; c < 6; c++) {
    en[c] = geo[c * nc + k], fn[c] = geo[(6 + c) * nc + k];
    es[c] = geo[(12 + c) * nc + k], fs[c] = geo[(18 + c) * nc + k];
    Di[c] = x[c * n + i], Dj[c] = x[c * n + j];
  }
  const double gs0 = geo[25 * nc + k], gn = cl_dda_gap(geo[24 * nc + k], en, fn, Di, Dj);
  const double gs = cl_dda_gap(gs0, es, fs, Di, Dj), normal = -A->kn * gn;
  const cl_dda_contact_law rule = {A->kn, A->ks, law[k], law[nc + k], law[2 * nc + k], A->slip_floor, A->force_floor};
  const int old = A->cstate[k];
  double dir = sgn[k];
  int state = cl_dda_open_close(old, gn, gs, gs0, &dir, &rule);
  if (A->cflips[k] >= A->flip_limit && state != old && state != CL_DDA_LOCK) state = old;
  int flag = 0;
  if (state != old) flag = 1, A->cflips[k]++, sgn[k] = (real)dir;
  else if (state == CL_DDA_SLIDE && fabs(normal - N[k]) > 1e-6 * fabs(normal) + rule.force_floor) flag = 2;
  A->cstate[k] = state;
  N[k] = state == CL_DDA_OPEN ? 0 : (real)normal;
  fric[k] = state == CL_DDA_SLIDE ? (real)(law[k] * (N[k] > 0 ? N[k] : 0) * sgn[k]) : 0; /* tan phi max(N, 0) sgn */
  return flag;
}


/* Contact k's rule (cl_dda_contact_rule's flag), and k listed when its state changed, for the
 * incremental assembly (assembly_ops.h): clist[0] counts the listed, clist[1 ..] holds them, at most
 * nc (the host counts the changes too -- the scalar it reads -- and assembles in full past nc); on
 * the GPU in the order of the atomics, which changes no sum (the list only says which blocks). */
CL_HD static inline int cl_dda_contact_rule_listed(const cl_dda_pcg_args *A, size_t k) {
  const int flag = cl_dda_contact_rule(A, k);
  if (flag != 1 || !A->clist) return flag;
#ifdef __CUDA_ARCH__
  const int32_t at = atomicAdd(A->clist, 1);
#else
  const int32_t at = A->clist[0]++;
#endif
  if ((size_t)at < A->nc) A->clist[1 + at] = (int32_t)k;
  return flag;
}

#endif
