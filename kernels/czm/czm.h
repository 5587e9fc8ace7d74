/* The per-element and per-node work of the cohesive FEM (paper 000,
 * Alhadeff et al., Table III), one source for the cpu loops and the cuda
 * kernels (czm_cpu.c, czm_cuda.cu). Layout and conventions: czm_args.h;
 * element math: tri.h.
 *
 * Scatter (element -> its nodes) runs colour by colour so that no two
 * threads write one node (section 6.1), or, with A->atomic, all elements at
 * once with atomic adds. Insertion (section 6.4, Table IV) also runs colour
 * by colour; within a colour, element e is the only one touching the fans
 * of its nodes (no other element of the colour shares them), so its thread
 * can walk and relabel them alone. */
#ifndef CL_FE_CZM_H
#define CL_FE_CZM_H

#include "../common/record.h"
#include "czm_args.h"
#include "../fe/tri.h"

/* ---- gather and scatter ---------------------------------------------------- */

CL_HD static inline uint32_t cl_czm_node(const cl_czm_args *A, size_t e, int p) { return A->elem[p * A->ne + e]; }

/* Node ids, coordinates and (when ue) displacements of element e, interleaved as tri.h wants. */
CL_HD static inline void cl_czm_gather(const cl_czm_args *A, const int order, size_t e, uint32_t *id, real *xe,
                                       real *ue) {
  const real *x = (const real *)A->x, *u = (const real *)A->u;
  for (int p = 0; p < cl_tri_nodes(order); p++) {
    const uint32_t i = cl_czm_node(A, e, p);
    id[p] = i;
    xe[2 * p] = x[i], xe[2 * p + 1] = x[A->cap + i];
    if (ue) ue[2 * p] = u[i], ue[2 * p + 1] = u[A->cap + i];
  }
}

CL_HD static inline void cl_czm_add(real *p, real value, int atomic) {
#ifdef __CUDA_ARCH__
  if (atomic) {
    atomicAdd(p, value);
    return;
  }
#endif
  (void)atomic;
  *p += value;
}

CL_HD static inline void cl_czm_elasticity(const cl_czm_args *A, real *D) {
  cl_tri_elasticity((real)A->E, (real)A->nu, A->plane_strain, D);
}

/* ---- forces ------------------------------------------------------------------- */

/* Local nodes of element e's edge k in the facet order of a cohesive element (A, B, mid-side):
 * side 0 runs along the edge (corner k to k + 1), side 1 against it. */
CL_HD static inline void cl_czm_facet_local(int k, int side, int *local) {
  const int next = k == 2 ? 0 : k + 1;
  local[0] = side ? next : k;
  local[1] = side ? k : next;
  local[2] = 3 + k;
}

/* Adds to fe the forces of the cohesive elements on element e's cracked edges (computed per
 * cohesive element beforehand, so that they reach the nodes through the element's scatter). */
CL_HD static inline void cl_czm_add_cohesive(const cl_czm_args *A, const int order, size_t e, real *fe) {
  const real *cf = (const real *)A->coh_force;
  for (int k = 0; k < 3; k++) {
    const int32_t h = A->adj[k * A->ne + e];
    if (h > -2) continue;
    const size_t c = (size_t)(-2 - h), cc = A->coh_cap;
    const int side = (size_t)A->coh[c] == e ? 0 : 1;
    int local[3];
    cl_czm_facet_local(k, side, local);
    for (int p = 0; p < (order == 2 ? 3 : 2); p++) {
      fe[2 * local[p]] += cf[(size_t)(2 * (3 * side + p)) * cc + c];
      fe[2 * local[p] + 1] += cf[(size_t)(2 * (3 * side + p) + 1) * cc + c];
    }
  }
}

CL_HD static inline void cl_czm_scatter(const cl_czm_args *A, const int order, const uint32_t *id, const real *fe) {
  real *a = (real *)A->a;
  for (int p = 0; p < cl_tri_nodes(order); p++) {
    cl_czm_add(&a[id[p]], fe[2 * p], A->atomic);
    cl_czm_add(&a[A->cap + id[p]], fe[2 * p + 1], A->atomic);
  }
}

/* Nodal forces of element e added to the accelerations' accumulator a: minus the internal
 * force (stored stiffness times ue, or matrix-free through the Gauss points), plus the forces of
 * the cohesive elements on its cracked edges (so that they reach the nodes through this
 * colour-ordered scatter without atomics; with atomics the cohesive kernel adds them). */
CL_HD static inline void cl_czm_element_force(const cl_czm_args *A, const int order, size_t e) {
  const int nd = 2 * cl_tri_nodes(order);
  uint32_t id[CL_TRI_MAX_NODES];
  real xe[CL_TRI_MAX_DOFS], ue[CL_TRI_MAX_DOFS], fe[CL_TRI_MAX_DOFS];
  cl_czm_gather(A, order, e, id, xe, ue);
  if (A->stiffness) {
    const real *K = (const real *)A->stiffness;
    for (int i = 0; i < nd; i++) {
      real s = 0;
      for (int j = 0; j < nd; j++) s += K[(size_t)(i * nd + j) * A->ne + e] * ue[j];
      fe[i] = -s;
    }
  } else {
    real D[9];
    cl_czm_elasticity(A, D);
    cl_tri_internal_force(order, xe, D, (real)A->thickness, ue, fe);
    for (int i = 0; i < nd; i++) fe[i] = -fe[i];
  }
  if (!A->atomic) cl_czm_add_cohesive(A, order, e, fe); /* atomic: the cohesive kernel adds its own */
  cl_czm_scatter(A, order, id, fe);
}

/* The reaction at node i's prescribed components (bits of `fixed`) from the force f summed on
 * it (f + reaction = 0: the constraint holds the node; the node's own inertia m a, zero under a
 * constant prescribed velocity or displacement, is left out), and the work it does on the body
 * since the last evaluation by the trapezoid rule on the node's displacement u, which is what
 * velocity Verlet's energy balance holds. CL_CZM_FORCE_FINISH (the initial state) starts the
 * record without work. Layout: czm_args.h. */
CL_HD static inline void cl_czm_reaction(const cl_czm_args *A, int op, size_t i, int fixed, const real *f,
                                         const real *u) {
  real *r = (real *)A->reaction;
  const size_t cap = A->cap;
  real work = 0;
  for (int c = 0; c < 2; c++)
    if (fixed >> c & 1 && op != CL_CZM_FORCE_FINISH)
      work += (r[c * cap + i] - f[c]) / 2 * (u[c] - r[(3 + c) * cap + i]);
  /* The work first: its store waits on the loads above, and the new force and displacement are
   * stored after it. Stored before (they do not depend on those loads), the GPU issued them to the
   * addresses whose loads were still in flight, as cl_pd_finish did (kernels/pd/point_force.h;
   * test sass/test_pd_sass_hazard). */
  r[2 * cap + i] += work;
  for (int c = 0; c < 2; c++)
    if (fixed >> c & 1) r[c * cap + i] = -f[c], r[(3 + c) * cap + i] = u[c];
}

/* The per-node operations of the step (czm_kernels.h: CL_CZM_FORCE_START .. CL_CZM_KINETIC_STAGGERED),
 * fused so that a step launches two node kernels: kick-drift with the reset of the force
 * accumulator to the external load, and the division by the mass with the final kick (or one,
 * CL_CZM_LEAPFROG, between two steps of a graph). Nodes past counters[0] are not in use: a launch
 * may cover the capacity, so that it stays valid when insertion adds nodes. */
CL_HD static inline void cl_czm_node_op(const cl_czm_args *A, int op, size_t i, real *out) {
  real *u = (real *)A->u, *v = (real *)A->v, *a = (real *)A->a;
  const real *load = (const real *)A->load, half = (real)A->dt / 2;
  const size_t cap = A->cap;
  if (op == CL_CZM_KINETIC || op == CL_CZM_KINETIC_STAGGERED) {
    if (i >= A->counters[0]) return;
    const real shadow = op == CL_CZM_KINETIC ? 0 : half * half * (a[i] * a[i] + a[cap + i] * a[cap + i]);
    out[i] = ((const real *)A->mass)[i] * (v[i] * v[i] + v[cap + i] * v[cap + i] - shadow) / 2;
    return;
  }
  if (op == CL_CZM_STRESS_ZERO || op == CL_CZM_KICK_DRIFT_ZERO) {
    if (i == 0)
      for (int j = 0; j <= A->ncolours; j++) A->counters[3 + j] = 0;
    if (i < A->counters[0])
      for (int c = 0; c < 4; c++) ((real *)A->stress)[c * cap + i] = 0;
    if (op == CL_CZM_STRESS_ZERO) return;
  }
  /* below nn_early (the nodes in use and some room to grow) the node's values are read before the
   * counter says whether it is in use, so that the reads overlap instead of waiting on each other */
  if (i >= A->nn_early && i >= A->counters[0]) return;
  const real m = ((const real *)A->mass)[i];
  const int fixed = A->fixed ? A->fixed[i] : 0;
  real ai[2] = {a[i], a[cap + i]}, vi[2] = {v[i], v[cap + i]}, ui[2] = {u[i], u[cap + i]}, li[2] = {0, 0};
  if (load) li[0] = (real)A->load_scale * load[i], li[1] = (real)A->load_scale * load[cap + i];
  if (i >= A->counters[0]) return;
  const int finish = op == CL_CZM_FORCE_FINISH || op == CL_CZM_FINISH_KICK || op == CL_CZM_LEAPFROG;
  const int kick_drift = op == CL_CZM_KICK_DRIFT_START || op == CL_CZM_LEAPFROG || op == CL_CZM_KICK_DRIFT_ZERO;
  if (finish && fixed && A->reaction) cl_czm_reaction(A, op, i, fixed, ai, ui);
  for (int c = 0; c < 2; c++) {
    const size_t k = c * cap + i;
    if (finish) {
      ai[c] = fixed >> c & 1 ? 0 : ai[c] / m;
      if (op != CL_CZM_FORCE_FINISH) vi[c] += half * ai[c];
      if (!kick_drift) {
        a[k] = ai[c], v[k] = vi[c];
        continue;
      }
    }
    if (kick_drift) vi[c] += half * ai[c], ui[c] += (real)A->dt * vi[c], v[k] = vi[c], u[k] = ui[c];
    a[k] = li[c]; /* the accumulator starts from the external load */
  }
}

/* The element stiffness stored for the product kernel: ne x (2 nper)^2, entry (i, j) of
 * element e at (i nd + j) ne + e so that neighbouring threads read neighbouring words
 * (the paper's transposed layout, Fig. 16). */
CL_HD static inline void cl_czm_store_stiffness(const cl_czm_args *A, const int order, size_t e, real *K) {
  const int nd = 2 * cl_tri_nodes(order);
  uint32_t id[CL_TRI_MAX_NODES];
  real xe[CL_TRI_MAX_DOFS], D[9], Ke[CL_TRI_MAX_DOFS * CL_TRI_MAX_DOFS];
  cl_czm_gather(A, order, e, id, xe, NULL);
  cl_czm_elasticity(A, D);
  cl_tri_stiffness(order, xe, D, (real)A->thickness, Ke);
  for (int i = 0; i < nd * nd; i++) K[(size_t)i * A->ne + e] = Ke[i];
}

/* ---- masses, stresses, energies -------------------------------------------------- */

CL_HD static inline void cl_czm_element_mass(const cl_czm_args *A, const int order, size_t e) {
  uint32_t id[CL_TRI_MAX_NODES];
  real xe[CL_TRI_MAX_DOFS], m[CL_TRI_MAX_NODES];
  cl_czm_gather(A, order, e, id, xe, NULL);
  cl_tri_lumped_mass(order, xe, (real)A->rho, (real)A->thickness, m);
  for (int p = 0; p < cl_tri_nodes(order); p++) cl_czm_add(&((real *)A->mass)[id[p]], m[p], A->atomic);
}

/* Stresses at element e's nodes extrapolated from its Gauss points (eq. 4): the T6's three
 * points (Gauss point k nearest corner k) carry the linear field through them, which at corner
 * a weighs point a by 5/3 and the others by -1/3, at the mid-side node of edge a, a+1 weighs
 * those two by 2/3 and the third by -1/3; the T3's one point is constant. Summed into
 * stress[0..2] with a weight of 1 in stress[3], so each node ends with its elements' mean. */
CL_HD static inline void cl_czm_element_stress(const cl_czm_args *A, const int order, size_t e) {
  uint32_t id[CL_TRI_MAX_NODES];
  real xe[CL_TRI_MAX_DOFS], ue[CL_TRI_MAX_DOFS], D[9], sg[CL_TRI_MAX_GAUSS][3];
  cl_czm_gather(A, order, e, id, xe, ue);
  cl_czm_elasticity(A, D);
  for (int k = 0; k < cl_tri_ngauss(order); k++) cl_tri_stress_at_gauss(order, xe, D, ue, k, sg[k]);
  real *s = (real *)A->stress;
  for (int p = 0; p < cl_tri_nodes(order); p++) {
    for (int c = 0; c < 3; c++) {
      real v = sg[0][c];
      if (order == 2) {
        const int a = p % 3, b = a == 2 ? 0 : a + 1;
        v = 0;
        for (int k = 0; k < 3; k++)
          v += (p < 3 ? (k == a ? (real)5 / 3 : -(real)1 / 3) : (k == a || k == b ? (real)2 / 3 : -(real)1 / 3)) * sg[k][c];
      }
      cl_czm_add(&s[c * A->cap + id[p]], v, A->atomic);
    }
    cl_czm_add(&s[3 * A->cap + id[p]], 1, A->atomic);
  }
}

/* Strain energy of element e: ue . K ue / 2 = ue . f_int / 2. */
CL_HD static inline real cl_czm_element_energy(const cl_czm_args *A, const int order, size_t e) {
  uint32_t id[CL_TRI_MAX_NODES];
  real xe[CL_TRI_MAX_DOFS], ue[CL_TRI_MAX_DOFS], fe[CL_TRI_MAX_DOFS], D[9], w = 0;
  cl_czm_gather(A, order, e, id, xe, ue);
  cl_czm_elasticity(A, D);
  cl_tri_internal_force(order, xe, D, (real)A->thickness, ue, fe);
  for (int i = 0; i < 2 * cl_tri_nodes(order); i++) w += ue[i] * fe[i];
  return w / 2;
}

/* ---- the facet check (section 4.2) ------------------------------------------------- */

/* Marks in mask[e] the facets of e to crack: those it owns (the element across has a larger
 * index), not cracked yet, where the mean of the averaged nodal stresses of the facet's nodes
 * gives a normal traction >= sigma_max or a shear traction of magnitude >= tau_max (normal
 * and tangent from the reference geometry), both times the facet's strength factor when there
 * is one (random strengths, an insertion region); with facet_stress, records the two tractions
 * of a marked facet for insertion. Returns the number marked, also added to its
 * colour's counter (insertion then skips the colours with none). The element's node stresses
 * are read all at once, not facet by facet: on a small mesh the check waits on memory, not on
 * arithmetic. */
CL_HD static inline int cl_czm_facet_check(const cl_czm_args *A, const int order, size_t e) {
  const real *x = (const real *)A->x, *s = (const real *)A->stress;
  const size_t cap = A->cap;
  int own = 0, mask = 0, marked = 0;
  for (int k = 0; k < 3; k++) {
    const int32_t h = A->adj[k * A->ne + e];
    if (h >= 0 && (size_t)h > e) own |= 1 << k;
  }
  if (own) {
    const int count = order == 2 ? 3 : 2; /* nodes of a facet */
    uint32_t id[CL_TRI_MAX_NODES];
    real sig[CL_TRI_MAX_NODES][3];
    for (int p = 0; p < cl_tri_nodes(order); p++) {
      id[p] = cl_czm_node(A, e, p);
      const real mean = 1 / (s[3 * cap + id[p]] * count); /* the node's elements, then the facet's nodes */
      for (int c = 0; c < 3; c++) sig[p][c] = s[c * cap + id[p]] * mean;
    }
    for (int k = 0; k < 3; k++) {
      if (!(own >> k & 1)) continue;
      const int next = k == 2 ? 0 : k + 1;
      real sf[3];
      for (int c = 0; c < 3; c++) sf[c] = sig[k][c] + sig[next][c] + (order == 2 ? sig[3 + k][c] : 0);
      real tx = x[id[next]] - x[id[k]], ty = x[cap + id[next]] - x[cap + id[k]];
      const real inv = 1 / sqrt(tx * tx + ty * ty);
      tx *= inv, ty *= inv;
      const real nx = ty, ny = -tx;
      const real sn = nx * nx * sf[0] + ny * ny * sf[1] + 2 * nx * ny * sf[2];
      const real ss = tx * nx * sf[0] + ty * ny * sf[1] + (tx * ny + ty * nx) * sf[2];
      const real factor = A->strength ? ((const real *)A->strength)[k * A->ne + e] : 1;
      if (sn >= (real)A->sigma_max * factor || fabs(ss) >= (real)A->tau_max * factor) {
        mask |= 1 << k, marked++;
        if (A->facet_stress) {
          real *fs = (real *)A->facet_stress;
          fs[2 * k * A->ne + e] = sn, fs[(2 * k + 1) * A->ne + e] = ss;
        }
      }
    }
  }
  A->mask[e] = (uint8_t)mask;
  if (marked) {
#ifdef __CUDA_ARCH__
    atomicAdd((unsigned long long *)&A->counters[4 + A->colour[e]], (unsigned long long)marked);
#else
    __atomic_fetch_add(&A->counters[4 + A->colour[e]], (uint64_t)marked, __ATOMIC_RELAXED);
#endif
  }
  return marked;
}

/* ---- insertion (Table IV) ---------------------------------------------------------- */

/* The element across the edge of g at its corner v: dir 0 the edge leaving v, 1 the edge
 * arriving at v (walking with one dir turns around v one way); negative on a boundary or a
 * crack. Element e's facets in `virt` count as cracked already (the counting pass sees the
 * cracks its own thread would have made without making them). */
CL_HD static inline int32_t cl_czm_fan_next(const cl_czm_args *A, uint32_t v, size_t g, int dir, size_t e, int virt) {
  const size_t ne = A->ne;
  const int p = A->elem[g] == v ? 0 : A->elem[ne + g] == v ? 1 : 2;
  const int k = dir ? (p + 2) % 3 : p;
  if (g == e && (virt >> k & 1)) return -1;
  const int32_t h = A->adj[k * ne + g];
  if (virt && h == (int32_t)e)
    for (int j = 0; j < 3; j++)
      if ((virt >> j & 1) && A->adj[j * ne + e] == (int32_t)g) return -1;
  return h;
}

/* Whether element `to` is reached from `from` around v through uncracked edges. A node has at
 * most a few dozen elements; the bound only stops a walk on corrupted tables. */
CL_HD static inline int cl_czm_fan_reaches(const cl_czm_args *A, uint32_t v, size_t from, size_t to, size_t e,
                                           int virt) {
  for (int dir = 0; dir < 2; dir++) {
    int32_t g = cl_czm_fan_next(A, v, from, dir, e, virt);
    for (int guard = 0; g >= 0 && (size_t)g != from && guard < 256; guard++) {
      if ((size_t)g == to) return 1;
      g = cl_czm_fan_next(A, v, (size_t)g, dir, e, virt);
    }
  }
  return 0;
}

CL_HD static inline int cl_czm_back_edge(const cl_czm_args *A, size_t f, size_t e) {
  for (int j = 0; j < 3; j++)
    if (A->adj[j * A->ne + f] == (int32_t)e) return j;
  return -1;
}

/* New nodes and cohesive elements that element e's marked facets will make, in its order:
 * per facet the T6 mid-side node, then each corner whose fan the crack splits (recorded in
 * split[e] for the apply pass, which so walks each fan once more only to relabel it). */
CL_HD static inline uint64_t cl_czm_insert_count(const cl_czm_args *A, const int order, size_t e) {
  const int mask = A->mask[e];
  if (!mask) return 0;
  uint64_t nodes = 0, cohesive = 0;
  int virt = 0, split = 0;
  for (int k = 0; k < 3; k++) {
    if (!(mask >> k & 1)) continue;
    const size_t f = (size_t)A->adj[k * A->ne + e];
    virt |= 1 << k;
    cohesive++;
    if (order == 2) nodes++;
    for (int s = 0; s < 2; s++)
      if (!cl_czm_fan_reaches(A, cl_czm_node(A, e, (k + s) % 3), e, f, e, virt)) nodes++, split |= 1 << (2 * k + s);
  }
  A->split[e] = (uint8_t)split;
  return nodes << 32 | cohesive;
}

/* Node nv <- a copy of node v (position, displacement, velocity); its force accumulator starts
 * empty (insertion runs after the step has reset the accumulators to the external load, which a
 * new node does not carry). */
CL_HD static inline void cl_czm_copy_node(const cl_czm_args *A, uint32_t v, uint32_t nv) {
  real *fields[3] = {(real *)A->x, (real *)A->u, (real *)A->v};
  for (int f = 0; f < 3; f++)
    for (int c = 0; c < 2; c++) fields[f][c * A->cap + nv] = fields[f][c * A->cap + v];
  for (int c = 0; c < 2; c++) ((real *)A->a)[c * A->cap + nv] = 0;
}

CL_HD static inline void cl_czm_set_corner(const cl_czm_args *A, size_t g, uint32_t v, uint32_t nv) {
  for (int p = 0; p < 3; p++)
    if (A->elem[p * A->ne + g] == v) A->elem[p * A->ne + g] = nv;
}

/* Gives node nv instead of v to the elements around v connected to `from` (a path: the crack
 * just made split the fan), reading each next element before relabelling. */
CL_HD static inline void cl_czm_fan_relabel(const cl_czm_args *A, uint32_t v, size_t from, uint32_t nv) {
  for (int dir = 0; dir < 2; dir++) {
    int32_t g = cl_czm_fan_next(A, v, from, dir, from, 0);
    for (int guard = 0; g >= 0 && (size_t)g != from && guard < 256; guard++) {
      const int32_t h = cl_czm_fan_next(A, v, (size_t)g, dir, from, 0);
      cl_czm_set_corner(A, (size_t)g, v, nv);
      g = h;
    }
  }
  cl_czm_set_corner(A, from, v, nv);
}

/* Cracks element e's marked facets, numbering its new nodes from `node` and its cohesive
 * elements from `c`, in the order cl_czm_insert_count counted them. The corners to duplicate
 * are those the count found: within a colour only e's thread changes the fans of e's nodes, so
 * they are still split the same way. */
CL_HD static inline void cl_czm_insert_apply_from(const cl_czm_args *A, const int order, size_t e, uint32_t node,
                                                  size_t c) {
  const int mask = A->mask[e];
  const size_t ne = A->ne, cc = A->coh_cap, ng = order == 2 ? 3 : 2;
  for (int k = 0; k < 3; k++) {
    if (!(mask >> k & 1)) continue;
    const size_t f = (size_t)A->adj[k * ne + e];
    const int j = cl_czm_back_edge(A, f, e);
    A->coh[c] = (int32_t)e, A->coh[cc + c] = k, A->coh[2 * cc + c] = (int32_t)f, A->coh[3 * cc + c] = j;
    for (size_t g = c * ng; g < (c + 1) * ng; g++) {
      for (int s = 0; s < A->nstate; s++) ((real *)A->law.state[s])[g] = (real)A->state_init[s];
      /* the law starts from the facet's tractions when the check marked it */
      if (A->state_sn) ((real *)A->law.state[A->state_sn - 1])[g] = ((const real *)A->facet_stress)[2 * k * ne + e];
      if (A->state_ss) ((real *)A->law.state[A->state_ss - 1])[g] = ((const real *)A->facet_stress)[(2 * k + 1) * ne + e];
      for (int q = 0; q < CL_CZM_HIST_COLUMNS; q++) ((real *)A->hist)[q * cc * ng + g] = 0;
    }
    A->adj[k * ne + e] = A->adj[j * ne + f] = -2 - (int32_t)c;
    c++;
    if (order == 2) {
      const uint32_t old = A->elem[(3 + j) * ne + f];
      cl_czm_copy_node(A, old, node);
      A->elem[(3 + j) * ne + f] = node++;
    }
    for (int s = 0; s < 2; s++) {
      if (!(A->split[e] >> (2 * k + s) & 1)) continue;
      const uint32_t v = cl_czm_node(A, e, (k + s) % 3);
      cl_czm_copy_node(A, v, node);
      cl_czm_fan_relabel(A, v, f, node++);
    }
  }
}

/* The ordered numbering: from the counters plus e's offset in the scan of the colour's counts,
 * so that it does not depend on thread timing (the same on every device). */
CL_HD static inline void cl_czm_insert_apply(const cl_czm_args *A, const int order, size_t e) {
  if (!A->mask[e]) return;
  const uint64_t off = A->offsets[e];
  cl_czm_insert_apply_from(A, order, e, (uint32_t)(A->counters[0] + (off >> 32)),
                           (size_t)(A->counters[1] + (off & 0xffffffffu)));
}

#endif
