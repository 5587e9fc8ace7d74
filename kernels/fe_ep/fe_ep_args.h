/* The device data of the quasi-static elastoplastic FE (paper 002, Devloo et al.), shared by the
 * cpu loops, the cuda launchers and the host model (fe_ep_model.c). Pointers are device
 * pointers; real arrays are void * so that one struct serves both precisions.
 *
 * Layouts (G = ne * ngp Gauss points; g = e gs_e + k gs_k is Gauss point k of element e):
 *   elem    ne x nn node indices, element-major (elem[e nn + a])
 *   grad    G x 2 nn physical shape-function gradients, the compact form of the paper's
 *           scattered operator B-bar (its nonzeros): dN_a / dx_c of Gauss point k of element e at
 *           grad[e grad_e + (k 2nn + 2a + c) grad_i]
 *   wdet    G weights w_k det J t (the paper's W), at g
 *   x       2 x nnodes node coordinates (SoA), from which the matrix-free element kernels
 *           (matrix_free nonzero) recompute the gradients and W at each Gauss point instead of
 *           reading grad and wdet
 * The strides are the backend's (fe_ep_model.c): element-major on the CPU (gs_e = ngp, gs_k = 1;
 * grad_e = 2nn ngp, grad_i = 1; fe_e = 2nn, fe_i = 1), where one core walks one element's data in
 * order; element-minor on a GPU (gs_e = 1, gs_k = ne; grad_e = 1, grad_i = ne; fe_e = 1, fe_i = ne),
 * where the threads of a warp (consecutive elements) then read and write consecutive words. The
 * arithmetic is the same; the host sees the CPU's order (cl_fe_ep_get).
 *   u, u_n  2 x nnodes displacements now and at the last converged increment (SoA)
 *   sig_n, ep_n   CL_FE_EP_NSIG x G stresses (xx yy zz xy, SoA: the 2D state's yz = xz = 0 are not
 *           stored, 16 B per Gauss point less to read and to write; the law sees all six) and G equivalent plastic
 *           strains at the last converged increment; sig, ep their updates for u
 *   dgp     9 x G the law's 2D tangent per Gauss point (r G + g), on a GPU only: its Newton tangent
 *           is one kernel per Gauss point (stresses, forces, this) and one per element-matrix row
 *   fe      ne x 2 nn element internal forces (entry i of element e at e fe_e + i fe_i); ke ne x
 *           (2 nn)^2 element tangents (row-major)
 *   node_start, node_slot   per node the element slots e nn + a that touch it (CSR), so that
 *           the global vector is a gather without atomics, deterministic on both backends
 *   csr_start, csr_slot     per nonzero of the global matrix the element-matrix entries
 *           e (2nn)^2 + r 2nn + c that add into it
 *   R       2 x nnodes internal forces (SoA); kval nnz values of the global matrix
 *   rowptr, col, fixed     the CSR pattern over the ndof dofs and the constrained dofs, and
 *   cg_*    the vectors of the conjugate gradients on the device (fe_ep_pcg.c; its product K p is the
 *           CSR product of fe_ep_mg_kernels.h)
 *   perm_map, perm_val   per nonzero of the fill-reducing reordered matrix its entry in kval, and
 *           its value (the device Cholesky, fe_ep_cusolver.c)
 *   law_args, law_state_n   a run-time compiled stress_update law (law == CL_FE_EP_JIT): its state
 *           variables for u (law_args.state[k], G each) and at the last converged increment; law_ep the
 *           index of its state "ep" (copied into ep for output), -1 when it has none */
#ifndef CL_FE_EP_ARGS_H
#define CL_FE_EP_ARGS_H

#include "../common/material_point.h"
#include "../fe/mohr_coulomb.h"

/* the stress components stored per Gauss point: xx yy zz xy (Voigt 0 1 2 5) */
#define CL_FE_EP_NSIG 4

/* the built-in laws compiled into the element kernels, or a run-time compiled one (lua/cleave/jit.lua
 * law:fe_module: the same kernels with CL_FE_EP_LAW defined as the law) */
enum { CL_FE_EP_ELASTIC = 0, CL_FE_EP_MOHR_COULOMB = 1, CL_FE_EP_JIT = 2 };

/* how the element kernels get B-bar and W (matrix_free): read grad and wdet; recompute them per Gauss
 * point from x; or (quadrilaterals, the forces alone: the tangents recompute per point) the element's
 * reference gradients and forces by sum factorization (kernels/fe/quad_sum.h), no per-point B-bar */
enum { CL_FE_EP_STORED = 0, CL_FE_EP_MATRIX_FREE = 1, CL_FE_EP_SUM_FACTORIZED = 2 };

/* operations: stresses and element forces [and tangents: consistent or elastic], gathers */
typedef enum cl_fe_ep_op {
  CL_FE_EP_FORCES = 0,         /* sig, ep and fe from u */
  CL_FE_EP_FORCES_TANGENT = 1, /* ... and ke with the consistent tangent */
  CL_FE_EP_ELASTIC_TANGENT = 2,/* ke with the elastic matrix (no stress update) */
  CL_FE_EP_GATHER_FORCES = 3,  /* R from fe */
  CL_FE_EP_GATHER_TANGENT = 4, /* kval from ke */
  CL_FE_EP_CONSTRAIN = 5,      /* constrained rows and columns of kval to the identity; cg_dinv */
  CL_FE_EP_CG_PRECONDITION = 6,/* cg_z = cg_dinv cg_r */
  CL_FE_EP_CG_STEP = 7,        /* cg_x += alpha cg_p, cg_r -= alpha cg_q */
  CL_FE_EP_CG_DIRECTION = 8,   /* cg_p = cg_z + beta cg_p */
  CL_FE_EP_PERMUTE = 9,        /* perm_val[k] = kval[perm_map[k]]: the values of the reordered matrix */
} cl_fe_ep_op;

typedef struct cl_fe_ep_args {
  int shape, order, nn, ngp;   /* element kind (kernels/fe/element.h), nodes and Gauss points per element */
  int law, plane_strain;       /* CL_FE_EP_ELASTIC / _MOHR_COULOMB / _JIT; 0: plane stress (elastic only) */
  int matrix_free;             /* the residual kind: CL_FE_EP_STORED (0) or, recomputing B-bar and W from x, */
                               /* CL_FE_EP_MATRIX_FREE or CL_FE_EP_SUM_FACTORIZED (below) */
  int sum_threads;             /* a GPU block of the sum-factorized kernel: threads (g per element); 0: CL_THREADS */
  double E, nu, c, phi;        /* material: Young's modulus, Poisson's ratio, cohesion, friction angle (degrees) */
  double thickness;
  cl_fe_mc_law mc;             /* law == CL_FE_EP_MOHR_COULOMB: its constants, computed once (cl_fe_mc_law_of) */
  size_t ne, nnodes, nnz;
  size_t gs_e, gs_k, grad_e, grad_i, fe_e, fe_i; /* the layout's strides (above) */
  const uint32_t *elem;
  const void *x, *grad, *wdet, *u, *u_n, *sig_n, *ep_n;
  void *sig, *ep, *fe, *ke, *R, *kval, *dgp;
  const uint32_t *node_start, *node_slot;
  const uint32_t *csr_start, *csr_slot;
  size_t ndof;
  const uint32_t *rowptr, *col;
  const uint8_t *fixed;
  void *cg_x, *cg_r, *cg_z, *cg_p, *cg_q, *cg_dinv;
  double cg_alpha, cg_beta;
  const int32_t *perm_map;     /* the device factorization's reordered pattern (fe_ep_cusolver.c) */
  void *perm_val;
  cl_mp_args law_args;
  const void *law_state_n[CL_MP_STATE_MAX];
  int law_nstate, law_ep;
} cl_fe_ep_args;

#endif
