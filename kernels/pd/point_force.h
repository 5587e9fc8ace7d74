/* One point's row of bonds, shared by the cpu loop and the cuda kernels:
 * lanes `lane`, lane + stride, ... of the row (lane 0, stride 1 for a whole row).
 * `dim` is passed separately from a->dim so that callers can make it a
 * compile-time constant: the small per-axis arrays below then live in
 * registers (a run-time bound puts them in local memory, which on the GPU
 * turned the kernel L2-bound). */
#ifndef CL_PD_POINT_FORCE_H
#define CL_PD_POINT_FORCE_H

#include "force.h"
#include "pmb.h"

typedef struct cl_pd_partial {
  real acc[3];
  real weight_all, weight_intact, energy;
} cl_pd_partial;

CL_HD static inline void cl_pd_row(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim,
                                   size_t i, uint32_t lane, uint32_t stride, cl_pd_partial *p) {
  const real *x = (const real *)a->x, *u = (const real *)a->u, *vol = (const real *)a->volume;
  const real *g = (const real *)a->surface;
  const size_t n = a->n;
  real xi_i[3], ui[3], gi[3], gj[3];
  for (int c = 0; c < dim; c++) xi_i[c] = x[c * n + i], ui[c] = u[c * n + i];
  if (g)
    for (int c = 0; c < dim; c++) gi[c] = g[c * n + i];
  for (uint32_t b = a->offsets[i] + lane; b < a->offsets[i + 1]; b += stride) {
    uint32_t entry = a->neighbors[b], j = entry & CL_PD_INDEX;
    real xi[3], eta[3];
    for (int c = 0; c < dim; c++) xi[c] = x[c * n + j] - xi_i[c], eta[c] = u[c * n + j] - ui[c];
    real volume = vol ? vol[j] : (real)a->uniform_volume, scale = 1;
    if (g) {
      for (int c = 0; c < dim; c++) gj[c] = g[c * n + j];
      scale = cl_pd_surface_factor(dim, xi, gi, gj);
    }
    real before = p->weight_intact;
    int intact = cl_pd_bond(m, dim, xi, eta, volume, scale, !(entry & CL_PD_BROKEN), p->acc,
                            &p->weight_all, &p->weight_intact);
    if (!intact && !(entry & CL_PD_BROKEN)) a->neighbors[b] = entry | CL_PD_BROKEN;
    if (intact && a->energy) {
      /* bond energy density c s^2 |xi| / 2, half of it to each end */
      real r0 = 0, r = 0;
      for (int c = 0; c < dim; c++) r0 += xi[c] * xi[c], r += (xi[c] + eta[c]) * (xi[c] + eta[c]);
      r0 = sqrt(r0), r = sqrt(r);
      real s = (r - r0) / r0;
      p->energy += (real)0.25 * m->c * s * s * r0 * (p->weight_intact - before) * scale;
    }
  }
}

/* Writes point i's acceleration, damage and energy from its summed partial. */
CL_HD static inline void cl_pd_finish(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim,
                                      size_t i, const cl_pd_partial *p) {
  real *acc = (real *)a->a;
  const real *body = (const real *)a->body;
  for (int c = 0; c < dim; c++)
    acc[c * a->n + i] = (p->acc[c] + (body ? body[c * a->n + i] : 0)) * m->inv_rho;
  if (a->damage)
    ((real *)a->damage)[i] = p->weight_all > 0 ? 1 - p->weight_intact / p->weight_all : 0;
  if (a->energy) ((real *)a->energy)[i] = p->energy;
}

CL_HD static inline cl_pd_pmb cl_pd_material(const cl_pd_force_args *a) {
  cl_pd_pmb m;
  m.c = (real)a->c;
  m.s0 = (real)a->s0;
  m.inv_rho = (real)(1 / a->rho);
  m.delta = (real)a->delta;
  m.half_dx = (real)(a->dx > 0 ? a->dx / 2 : 0);
  m.inv_dx = (real)(a->dx > 0 ? 1 / a->dx : 0);
  return m;
}

#endif
