/* PCG's scalars on the device (pcg.c's iteration): computed by the last pass of the dot products
 * and read by the vector updates, so an iteration is a fixed sequence of launches with no host
 * wait; the host reads them only every few iterations (cl_dda_solver's check_every). The stopping
 * rule is decided here at every iteration and the updates of a stopped solve do nothing: iterations
 * launched past the stop leave x as the stopping iteration left it (the host-scalar iterates
 * exactly, whatever check_every is). Written once for both backends. */
#ifndef CL_DDA_PCG_SCALARS_H
#define CL_DDA_PCG_SCALARS_H

#include "../common/real.h"
#include "pcg_args.h"

/* the scalars' slots */
enum { CL_DDA_S_BB, CL_DDA_S_RZ, CL_DDA_S_RR, CL_DDA_S_RR0, CL_DDA_S_ALPHA, CL_DDA_S_BETA, CL_DDA_S_SMALL,
       CL_DDA_S_ITERATIONS, CL_DDA_S_STATE, CL_DDA_S_CHANGED, CL_DDA_S_UNSETTLED, CL_DDA_S_FACTORED,
       CL_DDA_S_CHECKED, CL_DDA_S_START_IT, CL_DDA_SCALARS };

/* a solve's state (slot CL_DDA_S_STATE) */
enum { CL_DDA_PCG_RUNNING = 0, CL_DDA_PCG_CONVERGED, CL_DDA_PCG_SMALL_UPDATE, CL_DDA_PCG_BREAKDOWN,
       CL_DDA_PCG_MAX_ITERATIONS, CL_DDA_PCG_ZERO_RHS, CL_DDA_PCG_NOT_FACTORED };

CL_HD static inline int cl_dda_pcg_running(const double *s) { return s[CL_DDA_S_STATE] == CL_DDA_PCG_RUNNING; }

/* Whether the solve stopped on one of its criteria (the residual, the displacement). */
CL_HD static inline int cl_dda_pcg_converged(const double *s) {
  return s[CL_DDA_S_STATE] == CL_DDA_PCG_CONVERGED || s[CL_DDA_S_STATE] == CL_DDA_PCG_SMALL_UPDATE;
}

/* Why a solve that has not stopped before this iteration stops after it (or RUNNING). */
CL_HD static inline int cl_dda_pcg_stop(const cl_dda_pcg_args *A, const double *s) {
  if (!(sqrt(s[CL_DDA_S_RR]) > A->tol * sqrt(s[CL_DDA_S_BB]))) return CL_DDA_PCG_CONVERGED;
  if (s[CL_DDA_S_SMALL] != 0) return CL_DDA_PCG_SMALL_UPDATE;
  if (s[CL_DDA_S_ITERATIONS] >= A->max_iterations) return CL_DDA_PCG_MAX_ITERATIONS;
  return CL_DDA_PCG_RUNNING;
}

/* The scalar step of a dot operation (one thread), given its sums d0 and d1:
 * CL_DDA_OP_DOT_BB: d0 = b.b; CL_DDA_OP_BEGIN: d0 = r.z, d1 = r.r of the start;
 * CL_DDA_OP_ALPHA: d0 = p.q, alpha = r.z / p.q, and whether the update alpha p has an energy
 * (alpha p)^T A (alpha p) = alpha r.z below the displacement criterion's (pcg.h);
 * CL_DDA_OP_BETA: d0 = r.z, d1 = r.r after the update: beta, and the stopping rule;
 * CL_DDA_OP_OPEN_CLOSE: the contacts changed (d0) and sliding unsettled (d1, open_close_ops.h);
 * CL_DDA_OP_FACTOR_CHECK: d0 = the squares of the inverses' first slices, not finite when a
 * diagonal block could not be factored (pcg.c), which stops the next solve before it begins;
 * CL_DDA_OP_START_SUMS: d0 = b.b, d1 = FACTOR_CHECK's sum (pcg_persistent_cuda.cu). */
CL_HD static inline void cl_dda_pcg_scalars(const cl_dda_pcg_args *A, int op, double d0, double d1) {
  double *s = A->scal;
  if (op == CL_DDA_OP_OPEN_CLOSE) {
    s[CL_DDA_S_CHANGED] = d0, s[CL_DDA_S_UNSETTLED] = d1;
  } else if (op == CL_DDA_OP_FACTOR_CHECK) {
    s[CL_DDA_S_FACTORED] = d0;
  } else if (op == CL_DDA_OP_START_SUMS) {
    s[CL_DDA_S_BB] = d0, s[CL_DDA_S_FACTORED] = d1;
  } else if (op == CL_DDA_OP_DOT_BB) {
    s[CL_DDA_S_BB] = d0;
  } else if (op == CL_DDA_OP_BEGIN) {
    s[CL_DDA_S_RZ] = d0, s[CL_DDA_S_RR] = s[CL_DDA_S_RR0] = d1;
    s[CL_DDA_S_SMALL] = 0, s[CL_DDA_S_ITERATIONS] = 0;
    s[CL_DDA_S_STATE] = !isfinite(s[CL_DDA_S_FACTORED]) ? CL_DDA_PCG_NOT_FACTORED
                        : s[CL_DDA_S_BB] == 0                ? CL_DDA_PCG_ZERO_RHS
                                                             : cl_dda_pcg_stop(A, s);
  } else if (!cl_dda_pcg_running(s)) {
    return;
  } else if (op == CL_DDA_OP_ALPHA) {
    if (!(d0 > 0)) { /* not positive definite (or not finite): reported as not converged */
      s[CL_DDA_S_STATE] = CL_DDA_PCG_BREAKDOWN;
      return;
    }
    s[CL_DDA_S_ALPHA] = s[CL_DDA_S_RZ] / d0;
    s[CL_DDA_S_SMALL] = s[CL_DDA_S_ALPHA] * s[CL_DDA_S_RZ] <= A->update_energy;
  } else {
    s[CL_DDA_S_BETA] = d0 / s[CL_DDA_S_RZ];
    s[CL_DDA_S_RZ] = d0, s[CL_DDA_S_RR] = d1;
    s[CL_DDA_S_ITERATIONS] += 1;
    s[CL_DDA_S_STATE] = cl_dda_pcg_stop(A, s);
  }
}

/* Whether op is one of the pipelined PCG's (three sums, cl_dda_pcg_pipelined_scalars). */
CL_HD static inline int cl_dda_pcg_pipelined_op(int op) {
  return op == CL_DDA_OP_PIPE_BEGIN || op == CL_DDA_OP_PIPE_STEP || op == CL_DDA_OP_PIPE_CHECK ||
         op == CL_DDA_OP_PIPE_RESTART;
}

/* The pipelined PCG accepts x where its true residual |b - A x| is within this many times tol |b|: its
 * recurrence's r drifts from the true one further than the standard PCG's, whose own drifts too (its
 * x's true residual 2.8e-12 at tol 1e-12 on dda_precond's 600-block jointed system), and a check held
 * to tol itself would fail solves the standard one passes. */
#define CL_DDA_PIPE_CHECK_SLACK 10

/* Whether the pipelined PCG's solve stopped on the recurrence's residual with x not yet checked
 * against the true one, or broke down (p.A p from the recurrences not positive: their round-off) after
 * an iteration since its last start: CL_DDA_OP_PIPE_CHECK follows. */
CL_HD static inline int cl_dda_pcg_to_check(const double *s) {
  return (s[CL_DDA_S_STATE] == CL_DDA_PCG_CONVERGED && s[CL_DDA_S_CHECKED] == 0) ||
         (s[CL_DDA_S_STATE] == CL_DDA_PCG_BREAKDOWN && s[CL_DDA_S_ITERATIONS] > s[CL_DDA_S_START_IT]);
}

/* The pipelined PCG's scalar step (Ghysels & Vanroose 2014, Alg. 3; pcg_ops.h: cl_dda_pipelined_row),
 * given gamma = r.u, delta = w.u and rr = r.r of one reduction: CL_DDA_OP_PIPE_BEGIN first does
 * BEGIN's (r.z = gamma, r.r, the start's stop; x not checked yet), CL_DDA_OP_PIPE_STEP BETA's
 * (beta = gamma / the last gamma, the iteration counted, the stopping rule on the same quantities as
 * the standard PCG's), CL_DDA_OP_PIPE_RESTART, while running, the stopping rule on the true r of the
 * check before it, the iterations counted on; then, while running, ALPHA's with p.q = p^T A p from the
 * recurrences: delta at a start (beta 0: z, q, s, p begin anew), delta - beta gamma / the last alpha
 * after -- its breakdown and the displacement criterion as ALPHA's. CL_DDA_OP_PIPE_CHECK, after a stop
 * on the recurrence's residual or a breakdown (cl_dda_pcg_to_check), rr the true r.r: converged, the
 * residual reported the true one, where it is within CL_DDA_PIPE_CHECK_SLACK tol; else the solve runs
 * again from x (RESTART): the recurrences drift from b - A x (case 1's first system from x = 0, 143
 * iterations: 1.2e-12 at tol 1e-12; dda_precond's 600-block jointed system: a breakdown after 1 171
 * iterations, its true residual 2e-7). */
CL_HD static inline void cl_dda_pcg_pipelined_scalars(const cl_dda_pcg_args *A, int op, double gamma, double delta,
                                                      double rr) {
  double *s = A->scal;
  if (op == CL_DDA_OP_PIPE_CHECK) {
    if (!cl_dda_pcg_to_check(s)) return;
    s[CL_DDA_S_RR] = rr;
    const int pass = sqrt(rr) <= CL_DDA_PIPE_CHECK_SLACK * A->tol * sqrt(s[CL_DDA_S_BB]);
    s[CL_DDA_S_STATE] = pass ? CL_DDA_PCG_CONVERGED : CL_DDA_PCG_RUNNING, s[CL_DDA_S_CHECKED] = pass;
    return;
  }
  const double last_alpha = s[CL_DDA_S_ALPHA];
  const int start = op != CL_DDA_OP_PIPE_STEP;
  if (op == CL_DDA_OP_PIPE_RESTART) {
    if (!cl_dda_pcg_running(s)) return;
    s[CL_DDA_S_RZ] = gamma, s[CL_DDA_S_RR] = rr;
    s[CL_DDA_S_STATE] = cl_dda_pcg_stop(A, s);
  } else {
    cl_dda_pcg_scalars(A, start ? CL_DDA_OP_BEGIN : CL_DDA_OP_BETA, gamma, rr);
    if (start) s[CL_DDA_S_CHECKED] = 0;
  }
  if (start) s[CL_DDA_S_START_IT] = s[CL_DDA_S_ITERATIONS];
  if (!cl_dda_pcg_running(s)) return;
  if (start) s[CL_DDA_S_BETA] = 0;
  cl_dda_pcg_scalars(A, CL_DDA_OP_ALPHA, start ? delta : delta - s[CL_DDA_S_BETA] * gamma / last_alpha, 0);
}

#endif
