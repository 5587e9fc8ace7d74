/* Arguments of the cohesive-FEM kernels (explicit dynamics of T3/T6 meshes
 * with extrinsic cohesive elements inserted on the fly, paper 000, Alhadeff
 * et al.). One struct, passed by value to every kernel and to the run-time
 * compiled cohesive kernel, so it is plain C that NVRTC also reads.
 *
 * Layout (the paper's two tables, section 5, stored as structure of arrays):
 *   nodes    x, u, v, a: cap x 2 (component c of node i at c cap + i); nodes
 *            0..nn-1 are in use, new ones are appended by insertion; mass cap;
 *            stress cap x 4 (xx, yy, xy, weight: summed over the elements of
 *            a node by the stress kernel, averaged by dividing by the weight).
 *   elements elem ne x nper (node a of element e at a ne + e), corners
 *            counter-clockwise then T6 mid-sides; adj ne x 3, the element
 *            across edge k (corners k, k+1), -1 on the boundary, and
 *            -2 - c across a crack holding cohesive element c. Elements are
 *            numbered colour by colour: colour j owns [colour_start[j],
 *            colour_start[j+1]) and no two elements of a colour share a node.
 *   cohesive coh coh_cap x 4: (e0, k0, e1, k1), the bulk element and local
 *            edge of each side, side 0 the smaller element; k0 | 4 marks a
 *            traction-free crack (a notch). Per Gauss point (ng per element,
 *            slot c ng + g): the law's state variables (law.state) and
 *            hist coh_cap ng x CL_CZM_HIST_COLUMNS (the columns CL_CZM_H_*: opening
 *            jump; the law's traction, the work it has done on the interface and the
 *            part of that stored, recoverable; the same three for the contact
 *            penalty and friction; the broken flag), coh_force coh_cap x 12 (per
 *            side s and facet node p, the force (x, y) at (2 (3 s + p) + comp)
 *            coh_cap + c).
 * Counters live on the device (counters[0] nodes, [1] cohesive elements) and
 * bound the node and cohesive loops, so insertion needs no host round trip and a
 * cuda graph of many steps stays valid while insertion changes them. */
#ifndef CL_FE_CZM_ARGS_H
#define CL_FE_CZM_ARGS_H

#include "../common/material_point.h"

#define CL_CZM_FREE 4 /* flag in k0: traction-free crack */
/* Threads per block of the element kernels: a T6 thread holds ~170 registers, so 256-thread
 * blocks fit one per multiprocessor, and a small mesh (12 800 elements) fills 50 of 132. */
#define CL_CZM_THREADS 64
#define CL_CZM_MAX_COLOURS 64
/* counters: [0] nodes, [1] cohesive elements, [2] NaN flag, [3] facets marked, [4 + j] marks of
 * colour j, then the flag of a negative dissipation increment */
#define CL_CZM_NEGATIVE_DISSIPATION (4 + CL_CZM_MAX_COLOURS)
#define CL_CZM_NCOUNTERS (5 + CL_CZM_MAX_COLOURS)

/* Columns of hist, per cohesive Gauss point (global x, y components where there are two). The
 * law and the contact keep their own traction and work, so that the balance reports them apart
 * and the law's dissipation (work - stored) can be checked to never decrease. */
enum {
  CL_CZM_H_JUMP = 0,           /* x, y: the jump at the last force evaluation */
  CL_CZM_H_LAW = 2,            /* x, y: the law's traction then */
  CL_CZM_H_LAW_WORK = 4,       /* work the law's traction has done on the interface (trapezoid rule) */
  CL_CZM_H_LAW_STORED = 5,     /* the part of it given back on unloading: traction . jump / 2 */
  CL_CZM_H_CONTACT = 6,        /* x, y: the contact traction (penalty and friction) */
  CL_CZM_H_CONTACT_WORK = 8,   /* work of the contact traction (trapezoid rule) */
  CL_CZM_H_CONTACT_STORED = 9, /* its elastic part: penalty dn^2 / 2 + stick traction^2 / (2 penalty) */
  CL_CZM_H_BROKEN = 10,        /* 1 once the law gave no traction at a positive normal opening */
  CL_CZM_H_ANGLE = 11,         /* the angle of the facet's current tangent */
  CL_CZM_HIST_COLUMNS = 12
};

typedef struct cl_czm_args {
  int order;          /* 1: T3, 2: T6 */
  int plane_strain;   /* else plane stress */
  int atomic;         /* scatter with atomics instead of by colour */
  int block_counter;  /* insertion numbered by block-local counters (cuda; not deterministic) */
  int insert_check;   /* CL_CZM_INSERT: first the nodal stresses (zeroed before) and the facet check
                         (the marks) */
  int insert_masses;  /* CL_CZM_INSERT: rebuild the lumped masses when it cracked anything */
  int ncolours;
  const uint64_t *colour_range; /* ncolours + 1 element offsets: colour j owns [range[j], range[j + 1]) */
  size_t ne, cap, nn; /* bulk elements, node capacity, nodes in use (a launch's bound: counters[0] is exact) */
  size_t nn_early;    /* node launches: nodes below it read their values while the counter says whether
                         they are in use; the others read the counter first (a graph's launches cover
                         the capacity, mostly unused) */
  size_t coh_cap, ncoh; /* ncoh: likewise, counters[1] exact */
  size_t first, count; /* the element range of one launch (a colour) */
  double E, nu, rho, thickness;
  double sigma_max, tau_max; /* facet strengths of the insertion check */
  const void *strength;      /* NULL, or per facet ne x 3 (edge k of element e at k ne + e): the factor on
                                sigma_max and tau_max of that facet (random strength; infinite outside
                                the insertion region) */
  void *facet_stress;        /* NULL, or ne x 6: the normal and shear stress of edge k at the check that
                                marked it, at (2 k + i) ne + e, for insertion_state */
  int state_sn, state_ss;    /* 1 + the law's state slot that insertion sets to the facet's normal
                                (shear) stress at insertion, 0: none (the traction starts there) */
  double contact;            /* penalty stiffness (per area) against interpenetration */
  int contact_after_breaking; /* keep the penalty on broken faces (else only until the law fails) */
  double friction;           /* Coulomb coefficient on broken faces in contact (with contact_after_breaking) */
  double dissipation_tol;    /* relative round-off allowed in a law's dissipation increment */
  void *x, *u, *v, *a, *mass, *stress;
  const void *load;          /* cap x 2 nodal force per unit load scale, or NULL */
  double load_scale;
  double dt;                 /* time step of the fused node updates */
  const uint8_t *fixed;      /* per node: bit c set, component c prescribed (acceleration 0) */
  const void *stiffness;     /* stored element stiffness ne x (2 nper)^2, or NULL: matrix-free */
  uint32_t *elem;
  int32_t *adj, *coh;
  uint8_t *mask;             /* per element: its facets to crack (bit k: edge k) */
  uint8_t *split;            /* per element, from the counting pass: bit 2k + s, corner s of
                                facet k must be duplicated */
  uint64_t *counts, *offsets; /* insertion: per element (new nodes << 32 | new cohesive), scanned; the
                                cuda ordered insertion uses them per colour: offsets list the
                                colour's marked elements, counts per entry of the list */
  uint64_t *block_sums;      /* cuda insertion: one per block of the cooperative grid (ne / 64 + 1) */
  uint64_t *counters;        /* [0] nodes in use, [1] cohesive elements, [2] the law's NaN flag,
                                [3] facets marked, [4 + j] facets marked in colour j (the
                                marks contiguous, so one fill clears them) */
  const uint8_t *colour;     /* per element: its colour */
  void *coh_force, *hist;
  cl_mp_args law;            /* the cohesive law's state arrays (law.state[k], coh_cap ng each) */
  double state_init[CL_MP_STATE_MAX];
  int nstate;
  uint64_t *nonfinite;       /* 1 + the first cohesive element whose traction was not finite */
  uint64_t *negative_dissipation; /* 1 + the first cohesive element whose law dissipated a negative energy */
  void *reaction;            /* cap x 5 or NULL: per node on its prescribed components the force the
                                constraint exerts (x, y), the work it has done, and u when last evaluated */
} cl_czm_args;

/* The operations of the kernels (czm_kernels.h runs them; czm.h implements them). Every one
 * works on A->first .. A->first + A->count - 1: nodes or elements (one colour, or all). */
typedef enum cl_czm_op {
  /* nodes (czm.h: cl_czm_node_op) */
  CL_CZM_FORCE_START,  /* a = load scale * load, or 0 */
  CL_CZM_FORCE_FINISH, /* a /= mass, 0 on prescribed components */
  CL_CZM_KICK_DRIFT_START, /* v += dt/2 a; u += dt v; then a = load scale * load */
  CL_CZM_FINISH_KICK,  /* a /= mass, 0 on prescribed components; v += dt/2 a */
  CL_CZM_LEAPFROG,     /* CL_CZM_FINISH_KICK then CL_CZM_KICK_DRIFT_START: the end of one step and the
                          begin of the next in one pass (inside a multi-step graph) */
  CL_CZM_STRESS_ZERO,  /* stress = 0; node 0 also clears the facet marks (counters[3..]) */
  CL_CZM_KICK_DRIFT_ZERO, /* CL_CZM_KICK_DRIFT_START and CL_CZM_STRESS_ZERO: the begin of a step with a check */
  CL_CZM_KINETIC,      /* out[i] = kinetic energy of node i */
  CL_CZM_KINETIC_STAGGERED, /* out[i] = m v(n-1/2) . v(n+1/2) / 2 = m (|v|^2 - dt^2 |a|^2 / 4) / 2: the kinetic
                               energy velocity Verlet conserves exactly with trapezoid work */
  /* elements */
  CL_CZM_FORCE,        /* a += element and cohesive forces (scatter) */
  CL_CZM_MASS,         /* elements: mass += lumped masses (scatter; zero mass first) */
  CL_CZM_STRESS,       /* elements: stress += nodal extrapolations, weights (zero first) */
  CL_CZM_STIFFNESS,    /* elements: store K (A->stiffness, writable here) */
  CL_CZM_ENERGY,       /* elements: out[e] = strain energy of e */
  CL_CZM_CHECK,        /* elements: mask facets to crack; counters[3] += facets marked */
  CL_CZM_COUNT,        /* elements: counts[e] = new nodes << 32 | new cohesive elements */
  CL_CZM_APPLY_BLOCK,  /* cuda: crack the marked facets numbering from block-local counters
                          (Appendix A; after CL_CZM_COUNT, one colour per launch) */
  CL_CZM_INSERT        /* [with A->insert_check the nodal stresses and the facet check, then] all
                          colours with marks (counters[4 + j]): count, scan, apply, advance, and
                          with A->insert_masses the masses when anything was cracked; one
                          cooperative kernel on cuda (no host round trip) */
} cl_czm_op;

#endif
