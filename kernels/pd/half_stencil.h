/* The lattice step with each bond computed once (issue 19's "half stencil"; kernel = "half"):
 * the stencil is symmetric and ordered so that entry K - 1 - k is the step opposite to entry k
 * (lattice.c), and point i computes only its bonds k >= K / 2, adding the force to itself and its
 * opposite to neighbour j. Since other points add to i and j at the same time, the sums are
 * atomic: three passes, a zeroed, the bonds (force density sums into a, bond bits at both ends),
 * and a finish that turns the sums into accelerations and takes the damage from the bond bits.
 * The bond math is cl_pd_bond's; a bond's stretch is the same bitwise from either end, so the
 * result equals the full stencil's up to the order of the sums. Built-in PMB only (a run-time
 * law's per-bond state is kept at both ends), no energies (the full kernel gives those). */
#ifndef CL_PD_HALF_STENCIL_H
#define CL_PD_HALF_STENCIL_H

#include "point_force.h"

/* *x += v where other threads add to *x too. */
CL_HD static inline void cl_pd_add_shared(real *x, real v) {
#ifdef __CUDA_ARCH__
  atomicAdd(x, v);
#else
#ifdef _OPENMP
#pragma omp atomic update
#endif
  *x += v;
#endif
}

/* Sets bits of a bond-state word that other threads set bits of too. */
CL_HD static inline void cl_pd_or_shared(uint32_t *word, uint32_t bits) {
#ifdef __CUDA_ARCH__
  atomicOr(word, bits);
#else
#ifdef _OPENMP
#pragma omp atomic update
#endif
  *word |= bits;
#endif
}

/* Point i's half of the stencil: forces into the sums a (zeroed before) of i and of each neighbour. */
CL_HD static inline void cl_pd_half_row(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim, size_t i) {
  const real *u = (const real *)a->u, *stencil = (const real *)a->stencil_geometry, *vol = (const real *)a->volume;
  real *sum = (real *)a->a;
  const size_t n = a->n;
  const int64_t home = a->cell[i];
  const uint32_t count = a->nstencil;
  const real volume_i = vol ? vol[i] : (real)a->uniform_volume;
  real ui[3], gi[3], own[3] = {0, 0, 0};
  cl_pd_load_point(a, dim, i, ui, gi);
  /* bit k of i's state, k >= K / 2, is written by this thread only: one read of each word serves */
  for (uint32_t w = count / 2 / 32; 32 * w < count; w++) {
    const uint32_t state = a->broken[w * n + i];
    const uint32_t end = 32 * w + 32 < count ? 32 * w + 32 : count;
    uint32_t fresh = 0;
    for (uint32_t k = 32 * w > count / 2 ? 32 * w : count / 2; k < end; k++) {
      const uint32_t j = a->map[home + a->stencil[k]];
      if (j == CL_PD_ABSENT) continue;
      const real *geometry = stencil + k * (dim + 2); /* xi, |xi|, 1 / |xi| */
      real xi[3], eta[3], volume_j, scale, f[3] = {0, 0, 0}, all = 0, intact_weight = 0;
      for (int c = 0; c < dim; c++) xi[c] = geometry[c], eta[c] = u[c * n + j] - ui[c];
      cl_pd_bond_weights(a, dim, j, xi, geometry[dim], gi, NULL, &volume_j, &scale);
      const uint32_t bit = 1u << (k & 31);
      /* unit volume: f is the force per volume of the other end */
      const int intact = cl_pd_bond(m, dim, xi, eta, geometry[dim], geometry[dim + 1],
                                    cl_pd_volume_fraction(m, geometry[dim]), scale, !(state & bit), f,
                                    &all, &intact_weight, a, (size_t)k * n + i);
      for (int c = 0; c < dim; c++) {
        own[c] += volume_j * f[c];
        cl_pd_add_shared(&sum[c * n + j], -volume_i * f[c]);
      }
      if (!intact && !(state & bit)) {
        const uint32_t back = count - 1 - k; /* the same bond seen from j */
        fresh |= bit;
        cl_pd_or_shared(&a->broken[(back / 32) * n + j], 1u << (back & 31));
      }
    }
    if (fresh) cl_pd_or_shared(&a->broken[w * n + i], fresh);
  }
  for (int c = 0; c < dim; c++) cl_pd_add_shared(&sum[c * n + i], own[c]);
}

/* After every point's half row: point i's acceleration from its sum, and its damage from its bond bits. */
CL_HD static inline void cl_pd_half_finish(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim, size_t i) {
  const real *stencil = (const real *)a->stencil_geometry, *vol = (const real *)a->volume;
  const size_t n = a->n;
  const int64_t home = a->cell[i];
  cl_pd_partial p = {{0, 0, 0}, 0, 0, 0};
  for (int c = 0; c < dim; c++) p.acc[c] = ((const real *)a->a)[c * n + i];
  for (uint32_t k = 0; a->damage && k < a->nstencil; k++) {
    const uint32_t j = a->map[home + a->stencil[k]];
    if (j == CL_PD_ABSENT) continue;
    const real w = (vol ? vol[j] : (real)a->uniform_volume) * cl_pd_volume_fraction(m, stencil[k * (dim + 2) + dim]);
    p.weight_all += w;
    if (!(a->broken[(k / 32) * n + i] & (1u << (k & 31)))) p.weight_intact += w;
  }
  cl_pd_finish(a, m, dim, i, &p);
}

#endif
