/* The accepted step's bookkeeping of each contact, on the model's device, written once for both
 * backends (contact_cpu.c, contact_cuda.cu; pcg.c's cl_dda_solver_account drives it): from the
 * accepted solution x, a sliding contact's friction work f sgn (gs - gs0); its shear force (sliding:
 * the friction force f sgn; locked: ks gs; open: 0); the anchor of a contact that is not locked
 * following its slip (t_ref += gs / l: no stored shear), and its bond lost; and whether it is closed.
 * The work and the closed flags are summed by two reductions, the rest stays on the device until a
 * reader asks for the contacts (cl_dda_host_contacts); with the pattern on the device the same pass
 * writes each accepted contact into the device list the next step's transfer reads (into_*), in
 * place of six copies. */
#ifndef CL_DDA_ACCOUNT_OPS_H
#define CL_DDA_ACCOUNT_OPS_H

#include "../common/real.h"
#include "contact.h"

typedef struct cl_dda_account_args {
  size_t n, nc;                    /* blocks, contacts */
  const int32_t *cbi, *cbj;        /* the contacts' blocks (vertex's, edge's) */
  const int32_t *cstate;           /* their states (cl_dda_contact_state) */
  const void *csgn, *cN;           /* their sliding directions and normal forces */
  const void *cgeo;                /* 26 x nc (SoA): en, fn, es, fs, gn0, gs0 (contact.h) */
  const void *x;                   /* the accepted solution, 6 x n (SoA) */
  const void *cfric;               /* friction force times the sliding direction (sliding ones) */
  const void *len;                 /* the edges' lengths */
  double ks;                       /* shear stiffness */
  void *t_ref, *S;                 /* anchors (ratios along the edges), shear forces: updated */
  int32_t *bonded;                 /* bonds: lost where not locked */
  void *work, *closed;             /* per contact: friction work, 1 where closed (the reductions' input) */
  int32_t *into_state, *into_bonded; /* or NULL: the device list's arrays, written with the accepted */
  void *into_sgn, *into_N, *into_t_ref, *into_S; /* state, bond, direction, forces and anchor */
} cl_dda_account_args;

CL_HD static inline void cl_dda_contact_account(const cl_dda_account_args *a, size_t k) {
  const size_t nc = a->nc, n = a->n, i = (size_t)a->cbi[k], j = (size_t)a->cbj[k];
  const real *geo = (const real *)a->cgeo, *x = (const real *)a->x, *fric = (const real *)a->cfric;
  real *t_ref = (real *)a->t_ref, *S = (real *)a->S, *work = (real *)a->work, *closed = (real *)a->closed;
  double es[6], fs[6], Di[6], Dj[6];
  for (int c = 0; c < 6; c++) {
    es[c] = geo[(12 + c) * nc + k], fs[c] = geo[(18 + c) * nc + k];
    Di[c] = x[c * n + i], Dj[c] = x[c * n + j];
  }
  const double gs0 = geo[25 * nc + k], gs = cl_dda_gap(gs0, es, fs, Di, Dj);
  const int state = a->cstate[k];
  const double f = fric[k]; /* tan phi max(N, 0) sgn, the rule's (open_close_ops.h) */
  work[k] = state == CL_DDA_SLIDE ? (real)(f * (gs - gs0)) : 0;
  S[k] = state == CL_DDA_SLIDE ? (real)f : state == CL_DDA_LOCK ? (real)(a->ks * gs) : 0;
  if (state != CL_DDA_LOCK) {
    t_ref[k] += (real)(gs / ((const real *)a->len)[k]);
    a->bonded[k] = 0;
  }
  closed[k] = state != CL_DDA_OPEN;
  if (a->into_state) {
    a->into_state[k] = state, a->into_bonded[k] = a->bonded[k];
    ((real *)a->into_sgn)[k] = ((const real *)a->csgn)[k], ((real *)a->into_N)[k] = ((const real *)a->cN)[k];
    ((real *)a->into_t_ref)[k] = t_ref[k], ((real *)a->into_S)[k] = S[k];
  }
}

#endif
