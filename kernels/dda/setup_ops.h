/* A step's contacts set up on the model's device, written once for both backends (contact_cpu.c,
 * contact_cuda.cu; model.c drives it after the diagonal kernel, which gives the centroids): each
 * contact's geometry at the step's start (cl_dda_contact_at: the springs' directions and gaps) from
 * the device's vertices, and its joint's law -- the joint of its edge (made by a joint set or line of
 * the cutter), else of its pair of blocks, else the default -- as the open-close rule reads it (tan phi,
 * and cohesion and tensile strength times the joint length while bonded), and the friction force at
 * the step's start of a sliding one, straight into the solver's arrays (cl_dda_solver_setup_args): no
 * geometry is built or sent by the host. */
#ifndef CL_DDA_SETUP_OPS_H
#define CL_DDA_SETUP_OPS_H

#include <stdint.h>

#include "../common/real.h"
#include "contact.h"

typedef struct cl_dda_setup_args {
  /* the model's (on its device): blocks, vertex starts (n + 1), vertices, the per-block moments of
   * the diagonal kernel (6 x n, SoA; rows 4, 5 the centroid), each vertex's edge joint (-1: none),
   * the joint pairs' sorted keys (min block n + max block) and joints, each joint's tan phi,
   * cohesion and tension (3 a joint) */
  size_t n;
  const int32_t *vstart;
  const void *vx, *vy, *moments;
  const int32_t *edge_joint;
  size_t npairs;
  const int64_t *pair_keys;
  const int32_t *pair_joint;
  const double *joint_law;
  /* the solver's (cl_dda_solver_setup_args): the step's nc contacts' blocks, vertex, edge (its first
   * vertex), start state, bond, anchor, joint length, sliding direction and normal force; out: the
   * geometry (26 x nc, SoA: en, fn, es, fs, gn0, gs0), the edges' lengths, the laws (3 x nc) and the
   * start's friction forces times the sliding direction */
  size_t nc;
  const int32_t *cbi, *cbj, *cvi, *cej, *cstate, *cbonded;
  const void *t_ref, *length, *sgn, *N;
  void *geo, *len, *law, *friction;
} cl_dda_setup_args;

/* The joint of contact k (vertex block i, edge block j, edge e) as an index into joint_law. */
CL_HD static inline int32_t cl_dda_joint_index(const cl_dda_setup_args *a, int32_t i, int32_t j, int32_t e) {
  if (a->edge_joint[e] >= 0) return a->edge_joint[e];
  const int64_t key = i < j ? (int64_t)i * (int64_t)a->n + j : (int64_t)j * (int64_t)a->n + i;
  size_t lo = 0, hi = a->npairs;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (a->pair_keys[mid] < key) lo = mid + 1;
    else if (a->pair_keys[mid] > key) hi = mid;
    else return a->pair_joint[mid];
  }
  return 0;
}

CL_HD static inline void cl_dda_contact_setup(const cl_dda_setup_args *a, size_t k) {
  const size_t n = a->n, nc = a->nc;
  const real *vx = (const real *)a->vx, *vy = (const real *)a->vy, *mo = (const real *)a->moments;
  const int32_t i = a->cbi[k], j = a->cbj[k], v = a->cvi[k], e = a->cej[k];
  const int32_t f = e + 1 == a->vstart[j + 1] ? a->vstart[j] : e + 1;
  const cl_dda_contact_geometry g =
      cl_dda_contact_at(vx[v], vy[v], vx[e], vy[e], vx[f], vy[f], ((const real *)a->t_ref)[k], mo[4 * n + (size_t)i],
                        mo[5 * n + (size_t)i], mo[4 * n + (size_t)j], mo[5 * n + (size_t)j]);
  real *geo = (real *)a->geo, *law = (real *)a->law;
  for (int r = 0; r < 6; r++) {
    geo[r * nc + k] = (real)g.en[r], geo[(6 + r) * nc + k] = (real)g.fn[r];
    geo[(12 + r) * nc + k] = (real)g.es[r], geo[(18 + r) * nc + k] = (real)g.fs[r];
  }
  geo[24 * nc + k] = (real)g.gn0, geo[25 * nc + k] = (real)g.gs0;
  ((real *)a->len)[k] = (real)g.len;
  const double *jl = a->joint_law + 3 * (size_t)cl_dda_joint_index(a, i, j, e);
  const double l = a->cbonded[k] ? ((const real *)a->length)[k] : 0;
  law[k] = (real)jl[0], law[nc + k] = (real)(jl[1] * l), law[2 * nc + k] = (real)(jl[2] * l);
  const double N = ((const real *)a->N)[k], sgn = ((const real *)a->sgn)[k];
  ((real *)a->friction)[k] = a->cstate[k] == CL_DDA_SLIDE ? (real)(jl[0] * (N > 0 ? N : 0) * sgn) : 0;
}

#endif
