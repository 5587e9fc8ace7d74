/* The DDA step's linear system on the model's device: the global matrix, its pattern given as a
 * host BSR (bsr.h), assembled on the device from the diagonal submatrices and the closed contacts'
 * springs (assembly_ops.h) -- or loaded with the host BSR's values -- in the paper's HSBCSR or in
 * full BSR (pcg_args.h), and conjugate gradients preconditioned by block Jacobi or SSOR's
 * approximate inverse, warm-started from the caller's x. Inside PCG only scalars (the dots) cross
 * to the host. */
#ifndef CL_DDA_PCG_H
#define CL_DDA_PCG_H

#include "../../runtime/device.h"
#include "bsr.h"
#include "pcg_args.h"

typedef enum cl_dda_preconditioner { CL_DDA_BLOCK_JACOBI = 0, CL_DDA_SSOR_AI = 1 } cl_dda_preconditioner;

typedef struct cl_dda_pcg_result {
  int iterations;
  int converged;
  double residual; /* |b - A x| / |b| at the end (the recurrence's) */
} cl_dda_pcg_result;

enum { CL_DDA_SOLVER_BUFFERS = 30 };

typedef struct cl_dda_solver {
  cl_device *dev;
  cl_dda_spmv_format format;
  cl_dda_pcg_args A;                       /* pointers into buf */
  void *buf[CL_DDA_SOLVER_BUFFERS];        /* device buffers, grown on demand */
  size_t cap[CL_DDA_SOLVER_BUFFERS];       /* their sizes in bytes */
  void *stage;                             /* host staging of the HSBCSR arrays and the vectors */
  size_t stage_cap;
} cl_dda_solver;

/* An empty solver on d (zero-initialised s). */
void cl_dda_solver_init(cl_dda_solver *s, cl_device *d, cl_dda_spmv_format format);
void cl_dda_solver_free(cl_dda_solver *s);

/* Loads a with its host values (symmetric; its upper triangle is what HSBCSR keeps) and factors
 * its diagonal blocks -- for tests and benchmarks: the model assembles on the device
 * (cl_dda_solver_assemble). CL_ERR_ARG naming the block when a diagonal block is not positive
 * definite. */
cl_status cl_dda_solver_load(cl_dda_solver *s, const cl_dda_bsr *a, cl_error *err);

/* The closed contacts of an open-close iteration, in the order their shares are summed. */
typedef struct cl_dda_closed_contacts {
  size_t count;
  const int32_t *bi, *bj, *state; /* the vertex's block, the edge's block, cl_dda_contact_state */
  const double *geo;              /* 26 x count (SoA): en, fn, es, fs, gn0, gs0 (contact.h) */
  const double *friction;         /* friction force times the sliding direction (sliding ones) */
  double kn, ks;                  /* spring stiffnesses */
} cl_dda_closed_contacts;

/* Assembles on the device the matrix of pattern a (its values unused) from the diagonal
 * submatrices Kdiag (36 n, row-major blocks) and right-hand sides Fdiag (6 x n, SoA), both device
 * arrays, and the contacts' springs; the right-hand side stays on the device for cl_dda_pcg with
 * b = NULL. Factors the diagonal blocks as cl_dda_solver_load. */
cl_status cl_dda_solver_assemble(cl_dda_solver *s, const cl_dda_bsr *a, const cl_dda_closed_contacts *c,
                                 const void *Kdiag, const void *Fdiag, cl_error *err);

/* y = A x for host vectors of 6 n, block-major (entry 6 i + k), through the device's product
 * (for tests and benchmarks). */
cl_status cl_dda_solver_spmv(cl_dda_solver *s, const double *x, double *y, cl_error *err);

/* Solves A x = b (host vectors of 6 n, block-major; b NULL: the assembled one) from the given x. */
cl_status cl_dda_pcg(cl_dda_solver *s, const double *b, double *x, cl_dda_preconditioner kind, double tol,
                     int max_iterations, cl_dda_pcg_result *res, cl_error *err);

#endif
