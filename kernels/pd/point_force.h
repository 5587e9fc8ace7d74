/* One point's row of bonds, shared by the cpu loop and the cuda kernels:
 * lanes `lane`, lane + stride, ... of the row (lane 0, stride 1 for a whole row).
 * `dim` is passed separately from a->dim so that callers can make it a
 * compile-time constant: the small per-axis arrays below then live in
 * registers (a run-time bound puts them in local memory, which on the GPU
 * turned the kernel L2-bound). */
#ifndef CL_PD_POINT_FORCE_H
#define CL_PD_POINT_FORCE_H

#include "force_args.h"
#include "pmb.h"
#include "../common/record.h"
#include "../common/verlet.h"

typedef struct cl_pd_partial {
  real acc[3];
  real weight_all, weight_intact, energy;
} cl_pd_partial;

/* One bond of the row: force, breaking, damage weights and (if asked) the
 * bond's energy density c s^2 |xi| / 2, half of it to each end (w: the bond's
 * weight, cl_pd_bond). Returns whether the bond is intact after this step. */
CL_HD static inline int cl_pd_visit(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim,
                                    const real *xi, const real *eta, real r0, real inv_r0, real w,
                                    real scale, int intact, size_t slot, cl_pd_partial *p) {
  real before = p->weight_intact;
  intact = cl_pd_bond(m, dim, xi, eta, r0, inv_r0, w, scale, intact, p->acc, &p->weight_all,
                      &p->weight_intact, a, slot);
  if (intact && a->energy) {
    real d[3], r, inv_r;
    const real s = cl_pd_stretch(dim, xi, eta, r0, inv_r0, d, &r, &inv_r);
    p->energy += (real)0.25 * m->c * s * s * r0 * (p->weight_intact - before) * scale;
  }
  return intact;
}

/* Volume and surface-correction factor of bond i-j (r0 = |xi|; gi: point i's factors; gj: j's where
 * the caller has them, NULL to read them from a->surface). */
CL_HD static inline void cl_pd_bond_weights(const cl_pd_force_args *a, const int dim, size_t j, const real *xi,
                                            real r0, const real *gi, const real *gj, real *volume, real *scale) {
  const real *vol = (const real *)a->volume, *g = (const real *)a->surface;
  *volume = vol ? vol[j] : (real)a->uniform_volume;
  *scale = 1;
  if (g) {
    real read[3];
    if (!gj)
      for (int c = 0; c < dim; c++) read[c] = g[c * a->n + j];
    *scale = cl_pd_surface_factor(dim, xi, r0, gi, gj ? gj : read);
  }
}

CL_HD static inline void cl_pd_load_point(const cl_pd_force_args *a, const int dim, size_t i, real *ui, real *gi) {
  const real *u = (const real *)a->u, *g = (const real *)a->surface;
  for (int c = 0; c < dim; c++) ui[c] = u[c * a->n + i];
  if (g)
    for (int c = 0; c < dim; c++) gi[c] = g[c * a->n + i];
}

/* Point i's bonds from its CSR row. */
CL_HD static inline void cl_pd_row(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim,
                                   size_t i, uint32_t lane, uint32_t stride, cl_pd_partial *p) {
  const real *x = (const real *)a->x, *u = (const real *)a->u;
  const size_t n = a->n;
  real xi_i[3], ui[3], gi[3];
  for (int c = 0; c < dim; c++) xi_i[c] = x[c * n + i];
  cl_pd_load_point(a, dim, i, ui, gi);
  for (uint32_t b = a->offsets[i] + lane; b < a->offsets[i + 1]; b += stride) {
    uint32_t entry = a->neighbors[b], j = entry & CL_PD_INDEX;
    real xi[3], eta[3], volume, scale, r0_2 = 0;
    for (int c = 0; c < dim; c++) {
      xi[c] = x[c * n + j] - xi_i[c], eta[c] = u[c * n + j] - ui[c];
      r0_2 += xi[c] * xi[c];
    }
    const real inv_r0 = CL_RSQRT(r0_2), r0 = r0_2 * inv_r0;
    cl_pd_bond_weights(a, dim, j, xi, r0, gi, NULL, &volume, &scale);
    int intact = cl_pd_visit(a, m, dim, xi, eta, r0, inv_r0, volume * cl_pd_volume_fraction(m, r0), scale,
                             !(entry & CL_PD_BROKEN), b, p);
    if (!intact && !(entry & CL_PD_BROKEN)) a->neighbors[b] = entry | CL_PD_BROKEN;
  }
}

/* Sets bits of a bond-state word shared with other lanes of the point. */
CL_HD static inline void cl_pd_mark_broken(uint32_t *word, uint32_t bits) {
#ifdef __CUDA_ARCH__
  atomicOr(word, bits);
#else
  *word |= bits;
#endif
}

/* Stores in a bond-state word the bonds that broke in this step: `broken` has the bit of every bond
 * found broken (before it, as in state, the word as read, or now). Collecting them all, a branchless
 * OR per bond, and keeping the new ones here costs ~3 instructions per bond less on the GPU than
 * testing each bond's old state (pd_sass/count.sh). */
CL_HD static inline void cl_pd_store_broken(uint32_t *word, uint32_t state, uint32_t broken) {
  const uint32_t fresh = broken & ~state;
  if (fresh) cl_pd_mark_broken(word, fresh);
}

/* Bond k of point i on a lattice, to neighbour j (present) whose displacement is uj (and surface
 * factors gj, or NULL: read from a->surface where there are any): geometry is
 * the stencil entry's xi (dim), |xi|, 1 / |xi|, fraction its partial-volume fraction
 * (cl_pd_volume_fraction of |xi|); state is the bond-state word holding bit k, broken
 * collects the bits of the bonds found broken (cl_pd_store_broken). Shared by the stencil walk below and the CUDA kernels
 * that take the stencil as launch constants (stencil_table.cuh) or u from shared memory
 * (stencil_tile.cuh). */
CL_HD static inline void cl_pd_lattice_bond_to(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim,
                                               size_t i, uint32_t j, uint32_t k, const real *geometry,
                                               real fraction, const real *uj, const real *ui, const real *gi,
                                               const real *gj, uint32_t state, uint32_t *broken, cl_pd_partial *p) {
  real xi[3], eta[3], volume, scale;
  for (int c = 0; c < dim; c++) xi[c] = geometry[c], eta[c] = uj[c] - ui[c];
  cl_pd_bond_weights(a, dim, j, xi, geometry[dim], gi, gj, &volume, &scale);
  const uint32_t bit = 1u << (k & 31);
  const int intact = cl_pd_visit(a, m, dim, xi, eta, geometry[dim], geometry[dim + 1], volume * fraction, scale,
                                 !(state & bit), (size_t)k * a->n + i, p);
  *broken |= (uint32_t)(intact - 1) & bit; /* intact is 0 or 1 */
}

/* The same with the neighbour's displacement read from u. */
CL_HD static inline void cl_pd_lattice_bond(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim,
                                            size_t i, uint32_t j, uint32_t k, const real *geometry, real fraction,
                                            const real *ui, const real *gi, uint32_t state, uint32_t *broken,
                                            cl_pd_partial *p) {
  const real *u = (const real *)a->u;
  real uj[3];
  for (int c = 0; c < dim; c++) uj[c] = (u + c * a->n)[j]; /* the component's base is hoisted */
  cl_pd_lattice_bond_to(a, m, dim, i, j, k, geometry, fraction, uj, ui, gi, NULL, state, broken, p);
}

/* Point i's bonds from the lattice stencil: lanes take stencil entries
 * lane, lane + stride, ...; bonds to cells without a point are skipped. */
CL_HD static inline void cl_pd_lattice_row(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim,
                                           size_t i, uint32_t lane, uint32_t stride, cl_pd_partial *p) {
  const real *stencil = (const real *)a->stencil_geometry;
  const size_t n = a->n;
  const int64_t home = a->cell[i];
  real ui[3], gi[3];
  cl_pd_load_point(a, dim, i, ui, gi);
  for (uint32_t w = 0; 32 * w < a->nstencil; w++) {
    const uint32_t state = a->broken[w * n + i];
    const uint32_t end = 32 * w + 32 < a->nstencil ? 32 * w + 32 : a->nstencil;
    uint32_t broken = 0;
    for (uint32_t k = 32 * w + lane; k < end; k += stride) {
      const uint32_t j = a->map[home + a->stencil[k]];
      if (j == CL_PD_ABSENT) continue;
      const real *geometry = stencil + k * (dim + 2);
      cl_pd_lattice_bond(a, m, dim, i, j, k, geometry, cl_pd_volume_fraction(m, geometry[dim]), ui, gi, state, &broken, p);
    }
    cl_pd_store_broken(&a->broken[w * n + i], state, broken);
  }
}

/* Writes point i's acceleration, damage and energy from its summed partial. With the closing kick
 * fused (a->v) it kicks the point's velocity with the new acceleration: the separate kick's expression
 * on the same value, so the same bits, without a pass over v and a of its own. With the next step's
 * opening kick-drift fused too (a->u_next, force_args.h) v and a come in one step behind: v is kicked
 * with the acceleration it replaces (the opening kick this step's drift made, recomputed from the same
 * values), then with the new one, and the drift of the next step writes u(n+1) to the other buffer
 * (a point cannot drift u in place: its neighbours' threads read it). Every kick and drift is
 * verlet.h's expression on the values the separate stages would see, so the same bits. Any kernel
 * that calls this gets both fusions.
 * A component's a(n) is stored after its v: with the drift fused, after v(n), which depends on the
 * a(n - 1) read from the same address. Stored before (a(n) does not depend on that load), the GPU
 * issued the store to a line whose load was still in flight — the one difference the SASS showed
 * between the fused step's kernel and the default's, which the H100 ran 3.8 times slower with the
 * same instructions, stalled on L1TEX (docs/methods/peridynamics.md). Test: sass/test_pd_sass_hazard
 * (pd_sass/hazard.py finds such pairs in the SASS).
 * ui: the point's own u(n) where the caller holds a copy the drift can start from (the tile kernel's
 * shared memory: no global load), or NULL to read it from a->u. Not the rows' registers: kept live
 * through the epilogue they cost the list kernel 7 registers in f32 (48 -> 55, 5 -> 4 blocks an SM),
 * for a load that hits L1. */
CL_HD static inline void cl_pd_finish_from(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim,
                                           size_t i, const cl_pd_partial *p, const real *ui) {
  real *acc = (real *)a->a, *v = (real *)a->v, *u_next = (real *)a->u_next;
  const real *body = (const real *)a->body;
  const unsigned held = a->kick_held ? a->kick_held[i] : 0;
  const real dt = (real)a->kick_dt;
  for (int c = 0; c < dim; c++) {
    const size_t at = c * a->n + i;
    const real value = (p->acc[c] + (body ? body[at] : 0)) * m->inv_rho;
    if (v && !(held >> c & 1)) {
      real vc = v[at];
      if (u_next) {
        real uc = ui ? ui[c] : ((const real *)a->u)[at];
        cl_verlet_kick(&vc, acc[at], dt); /* v(n-1/2) */
        cl_verlet_kick(&vc, value, dt);   /* v(n) */
        v[at] = vc;
        cl_verlet_kick_drift(&uc, &vc, value, dt); /* v(n+1/2), in a register only; u(n+1) */
        u_next[at] = uc;
      } else {
        cl_verlet_kick(&vc, value, dt);
        v[at] = vc;
      }
    }
    acc[at] = value;
    if (a->nonfinite && !isfinite(value)) cl_record_first(a->nonfinite, i);
  }
  if (a->damage)
    ((real *)a->damage)[i] = p->weight_all > 0 ? 1 - p->weight_intact / p->weight_all : 0;
  if (a->energy) ((real *)a->energy)[i] = p->energy;
}

CL_HD static inline void cl_pd_finish(const cl_pd_force_args *a, const cl_pd_pmb *m, const int dim,
                                      size_t i, const cl_pd_partial *p) {
  cl_pd_finish_from(a, m, dim, i, p, NULL);
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
