/* The quasi-static elastoplastic FE model (paper 002, Devloo et al.; cleave.fe): a 2D mesh of
 * triangles or Lagrange quadrilaterals on a device, the weights W computed once (the operator
 * B-bar too when the residual is "stored"), the CSR sparsity built once, Dirichlet constraints, edge pressures, an initial stress,
 * and the nonlinear solvers (fe_ep_solve.c) over a load factor.
 *
 * Degrees of freedom are numbered as the fields store them: dof c nnodes + n is component c
 * (0: x, 1: y) of node n. Precision f64. */
#ifndef CL_FE_EP_MODEL_H
#define CL_FE_EP_MODEL_H

#include "../../runtime/field.h"
#include "../../runtime/runtime.h"
#include "fe_ep_args.h"
#include "fe_ep_linear.h"

typedef struct cl_fe_ep_mesh {
  int shape, order;           /* CL_FE_TRI (order 1, 2) or CL_FE_QUAD (1, 2, 3): kernels/fe/element.h */
  size_t nnodes, nelems;
  const double *x;            /* 2 nnodes, interleaved (x0, y0, x1, ...) */
  const uint32_t *elem;       /* nelems x nodes per element, in element.h's node order */
} cl_fe_ep_mesh;

typedef struct cl_fe_ep_material {
  int law;                    /* CL_FE_EP_ELASTIC, CL_FE_EP_MOHR_COULOMB or CL_FE_EP_JIT */
  int plane_strain;           /* 1: plane strain; 0: plane stress (elastic only) */
  double E, nu, c, phi;       /* phi in degrees; for CL_FE_EP_JIT, E and nu give the initial stiffness */
  double thickness;
  /* CL_FE_EP_JIT: the entry points of the law's element kernels (forces; forces and tangent) compiled
   * for the model's device in f64 (jit.lua law:fe_module), its state variables' count and initial
   * values, and the index of the one named "ep" (-1: none) */
  void *law_entry[2];
  int law_nstate, law_ep;
  double law_state0[CL_MP_STATE_MAX];
} cl_fe_ep_material;

typedef enum cl_fe_ep_method { CL_FE_EP_IS = 0, CL_FE_EP_MIS = 1, CL_FE_EP_NEWTON = 2 } cl_fe_ep_method;

/* linear solves: a sparse Cholesky on a CUDA model's device (cuSOLVER: fe_ep_cusolver.c) or on the
 * host (CHOLMOD, or CG when built without it: fe_ep_linear.c), Jacobi-PCG on the model's device
 * (fe_ep_pcg.c), or CG there preconditioned by a geometric multigrid V-cycle (fe_ep_mg.c) */
typedef enum cl_fe_ep_linear_kind {
  CL_FE_EP_LINEAR_FACTOR = 0, CL_FE_EP_LINEAR_PCG = 1, CL_FE_EP_LINEAR_MG = 2
} cl_fe_ep_linear_kind;

typedef struct cl_fe_ep_solve_opts {
  cl_fe_ep_method method;
  int increments;             /* equal load-factor increments from the last state to the loads set */
  double tol;                 /* relative residual |R_free| / |F_ext| */
  int max_iter;               /* iterations per increment before it is cut back */
  int max_cutbacks;           /* halvings of an increment before the solve gives up */
  cl_fe_ep_linear_kind linear;
  /* CG (pcg, mg): each solve to |b - K x| <= linear_tol |b|. An inexact correction changes only how
   * fast the nonlinear iteration converges, not where to (its residual is exact). */
  double linear_tol;
} cl_fe_ep_solve_opts;

/* One iteration of the history: increment (1-based), iteration in it (0 = the residual before
 * the first correction), load factor, relative residual. */
typedef struct cl_fe_ep_record {
  int increment, iteration;
  double lambda, residual;
} cl_fe_ep_record;

typedef struct cl_fe_ep_report {
  int increments, iterations, residuals, factorizations, cutbacks;
  long cg_iterations;         /* of the device PCG (Jacobi or multigrid), all solves together */
  int mg_levels;              /* of the multigrid hierarchy (linear = "mg") */
  double residual;            /* the last relative residual */
  double t_residual, t_tangent, t_factor, t_solve; /* seconds */
} cl_fe_ep_report;

typedef enum cl_fe_ep_field_id {
  CL_FE_EP_F_ELEM, CL_FE_EP_F_GRAD, CL_FE_EP_F_WDET, CL_FE_EP_F_U, CL_FE_EP_F_U_N, CL_FE_EP_F_SIG,
  CL_FE_EP_F_SIG_N, CL_FE_EP_F_EP, CL_FE_EP_F_EP_N, CL_FE_EP_F_FE, CL_FE_EP_F_KE, CL_FE_EP_F_R, CL_FE_EP_F_KVAL,
  CL_FE_EP_F_NODE_START, CL_FE_EP_F_NODE_SLOT, CL_FE_EP_F_CSR_START, CL_FE_EP_F_CSR_SLOT, CL_FE_EP_F_ROWPTR,
  CL_FE_EP_F_COL, CL_FE_EP_F_FIXED, CL_FE_EP_F_CG_X, CL_FE_EP_F_CG_R, CL_FE_EP_F_CG_Z, CL_FE_EP_F_CG_P, CL_FE_EP_F_CG_Q,
  CL_FE_EP_F_CG_DINV, CL_FE_EP_F_X, CL_FE_EP_F_DGP, CL_FE_EP_NFIELDS
} cl_fe_ep_field_id;

typedef struct cl_fe_ep_cusolver cl_fe_ep_cusolver; /* fe_ep_cusolver.c */
typedef struct cl_fe_ep_mg cl_fe_ep_mg;             /* fe_ep_mg.c */

typedef struct cl_fe_ep_model {
  cl_fe_ep_args A;            /* device pointers and sizes */
  cl_device_ref *ref;
  cl_device *dev;
  cl_fe_ep_material mat;
  cl_field *f[CL_FE_EP_NFIELDS];
  cl_field *law_state[2][CL_MP_STATE_MAX]; /* CL_FE_EP_JIT: the law's state for u [0] and converged [1] */
  size_t ndof;
  double *x;                  /* host: node coordinates (interleaved), Gauss point coordinates (2 G) */
  double *xg;
  uint64_t *rowptr;           /* host: CSR pattern over the dofs */
  uint32_t *col;
  uint8_t *fixed;             /* per dof: constrained */
  double *fixed_value;        /* per dof: its prescribed value */
  double *f_ext;              /* per dof: the external forces the next solve reaches */
  cl_fe_ep_linear *solver;
  cl_fe_ep_cusolver *device_solver; /* linear = "factor" on a CUDA device, made at its first factorization */
  cl_fe_ep_mg *mg;            /* linear = "mg": the hierarchy of the last matrix factored */
  size_t grid_ni, grid_nj;    /* the structured node grid (node i + ni j) of a generated mesh; 0: none */
  int grid_wrap;              /* j periodic (the full ring) */
  cl_fe_ep_record *history;   /* of the last solve */
  size_t nhistory, cap_history;
} cl_fe_ep_model;

/* Builds the model: checks the material (named parameter and the fix) and every element's
 * Jacobian at its Gauss points (an inverted or degenerate element is named), computes W (the
 * residual is matrix-free: no B-bar until cl_fe_ep_set_matrix_free asks for it), the gather tables and the CSR sparsity, and allocates the state on dev (zero displacement
 * and stress). */
cl_status cl_fe_ep_create(cl_device_ref *dev, const cl_fe_ep_mesh *mesh, const cl_fe_ep_material *mat,
                          cl_fe_ep_model **out, cl_error *err);
void cl_fe_ep_destroy(cl_fe_ep_model *m);

/* The layout of the per-Gauss-point data (fe_ep_args.h): element-minor (1, a GPU's at creation) or
 * element-major (0, the CPU's); the data move with it. For tests: the CPU runs the GPU's layout. After
 * an error (out of memory) the model's state is undefined: destroy it. */
cl_status cl_fe_ep_set_layout(cl_fe_ep_model *m, int element_minor, cl_error *err);

/* The element kernels' B-bar and W (fe_ep_args.h's residual kinds): recomputed at every Gauss point
 * from the node coordinates (CL_FE_EP_MATRIX_FREE, the default: faster on a GPU,
 * docs/methods/elastoplastic-fe.md), the residual's by sum factorization (CL_FE_EP_SUM_FACTORIZED,
 * quadrilaterals only) or read from stored arrays (CL_FE_EP_STORED: B-bar is built and uploaded here, 16 n B
 * per Gauss point, and freed again when the model goes back to a matrix-free kind); the same numbers to
 * rounding either way. On an error (out of memory, sum factorization of triangles) the model stays as it was. */
cl_status cl_fe_ep_set_matrix_free(cl_fe_ep_model *m, int matrix_free, cl_error *err);

/* The threads of a GPU block of the sum-factorized residual kernel: 0 (the default, 256) or a multiple of
 * 32 from the element's Gauss points to 256 (a block holds threads / g elements); for the benchmark, which
 * times the sizes side by side. No effect on the CPU or on the results. */
cl_status cl_fe_ep_set_sum_threads(cl_fe_ep_model *m, int threads, cl_error *err);

/* Declares the mesh's nodes a structured grid: node i + ni j (0-based), ni x nj = nnodes; wrap: j is
 * periodic (the last row of nodes is followed by the first). Needed by linear = "mg". */
cl_status cl_fe_ep_set_grid(cl_fe_ep_model *m, size_t ni, size_t nj, int wrap, cl_error *err);

/* Prescribes component c (0 x, 1 y) of node n to value (reached by the next solve). */
cl_status cl_fe_ep_fix(cl_fe_ep_model *m, size_t node, int c, double value, cl_error *err);

/* Adds the consistent nodal forces of a normal pressure p (positive: pushing into the body) on
 * one element edge, given by its order + 1 nodes in order along it (corners at the ends). The
 * edge must belong to an element; the outward side is found from it. */
cl_status cl_fe_ep_edge_pressure(cl_fe_ep_model *m, const uint32_t *nodes, double p, cl_error *err);

/* Adds the consistent nodal forces of a body force (bx, by) per unit volume (gravity: rho g). */
cl_status cl_fe_ep_body_force(cl_fe_ep_model *m, double bx, double by, cl_error *err);

/* Clears the external forces (before setting new loads). */
void cl_fe_ep_clear_loads(cl_fe_ep_model *m);

/* Sets the stress of every Gauss point (xx, yy, zz, xy; tension positive) as the converged
 * state: an in-situ stress. Must lie inside the yield surface of a plastic law. */
cl_status cl_fe_ep_initial_stress(cl_fe_ep_model *m, const double s[4], cl_error *err);

/* Takes the model from its converged state to the loads and prescribed values set now, in
 * opts->increments increments of the load factor. An increment that does not converge is
 * halved (at most max_cutbacks times over the solve); when that fails, the error reports the
 * history and the state stays at the last converged increment. rep may be NULL. */
cl_status cl_fe_ep_solve(cl_fe_ep_model *m, const cl_fe_ep_solve_opts *opts, cl_fe_ep_report *rep, cl_error *err);

/* The linear solver a solve with `linear` uses on this model's device: "pcg", "mg-pcg", "cusolver"
 * (CUDA), "cholmod" or "cg" (the host's, fe_ep_linear.h). */
const char *cl_fe_ep_solver_name(const cl_fe_ep_model *m, cl_fe_ep_linear_kind linear);

/* Host copies: u (2 nnodes, SoA), Gauss point stresses (6 G, SoA, Voigt; 4 stored: yz = xz = 0), ep (G), weights (G); Gauss point k of
 * element e at e ngp + k on every backend (the device's own order may differ: fe_ep_args.h). */
cl_status cl_fe_ep_get(cl_fe_ep_model *m, cl_fe_ep_field_id id, double *out, cl_error *err);

/* Seconds per evaluation, averaged over reps after one warm-up, of the residual (strain, return
 * mapping, element forces, gather; the state is not committed) and of the tangent (the same with
 * the element matrices and their gather into the CSR values), both on the device and synchronised,
 * without host transfers; tangent NULL: the residual's alone. */
cl_status cl_fe_ep_profile(cl_fe_ep_model *m, int reps, double *residual, double *tangent, cl_error *err);

/* ---- internal: fe_ep_solve.c uses these ---- */
/* internal forces of u into fint (host, ndof) [and the consistent tangent into kval] */
cl_status cl_fe_ep_internal_force(cl_fe_ep_model *m, int tangent, double *fint, cl_error *err);
/* the elastic stiffness into kval (device) */
cl_status cl_fe_ep_elastic_stiffness(cl_fe_ep_model *m, cl_error *err);

#endif
