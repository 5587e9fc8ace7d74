/* The nonlinear solvers of the quasi-static FE over a load factor (paper 002, section 5):
 * initial stiffness (IS: the elastic stiffness factored once), modified IS with the
 * acceleration of Thomas (1984) / Sloan et al. (2000), and Newton with the consistent tangent;
 * increments cut back when they fail.
 *
 * Modified IS: the paper's eqs. 35-37 take two solves per update and let omega accumulate
 * du.du* / du.du over the iterations; taken literally (omega_0 = 0 or 1) that factor grows
 * without bound, and on the plastic wellbore (docs/methods/elastoplastic-fe.md) every order
 * diverged. Implemented instead is Thomas's scheme the paper cites: one solve per iteration,
 * u += alpha du with alpha = alpha_prev du_prev.(du_prev - du) / |du - du_prev|^2 -- the secant
 * estimate of 1 / (1 - rho) when each IS correction is rho times the last -- reset to 1 when
 * it falls below 1 or is not finite (the corrections grew or turned). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fe_ep_cusolver.h"
#include "fe_ep_model.h"
#include "fe_ep_mg.h"
#include "fe_ep_pcg.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double dot(const double *a, const double *b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

typedef struct solve_state {
  cl_fe_ep_model *m;
  cl_fe_ep_report *rep;
  double *u, *fint, *fext, *r, *du, *du2, *kval, *f0, *u0;
  double ref; /* |F_ext| of the increment, the residual's scale */
  int nonfinite_inc, nonfinite_it; /* where the last failed attempt's residual went non-finite (0: it did not) */
} solve_state;

static cl_status record(cl_fe_ep_model *m, int inc, int it, double lambda, double res, cl_error *err) {
  if (m->nhistory == m->cap_history) {
    const size_t cap = m->cap_history ? 2 * m->cap_history : 64;
    cl_fe_ep_record *h = realloc(m->history, cap * sizeof *h);
    if (!h) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the history");
    m->history = h, m->cap_history = cap;
  }
  m->history[m->nhistory++] = (cl_fe_ep_record){inc, it, lambda, res};
  return CL_OK;
}

/* R = F_int(u) - F_ext on the free dofs (0 on the fixed), its relative norm in *res; with
 * tangent, the consistent tangent into the device's kval too. */
static cl_status residual(solve_state *S, const double *u, int tangent, double *res, cl_error *err) {
  cl_fe_ep_model *m = S->m;
  const double t0 = now();
  CL_TRY(cl_field_upload(m->f[CL_FE_EP_F_U], u, err));
  CL_TRY(cl_fe_ep_internal_force(m, tangent, S->fint, err));
  double rr = 0;
  for (size_t i = 0; i < m->ndof; i++) {
    S->r[i] = m->fixed[i] ? 0 : S->fint[i] - S->fext[i];
    rr += S->r[i] * S->r[i];
  }
  *res = sqrt(rr) / S->ref;
  S->rep->residuals++;
  *(tangent ? &S->rep->t_tangent : &S->rep->t_residual) += now() - t0;
  return CL_OK;
}

/* linear = "factor" on a CUDA device factors there (cuSOLVER), elsewhere on the host (CHOLMOD) */
static int on_device(const cl_fe_ep_model *m, const cl_fe_ep_solve_opts *o) {
  return o->linear == CL_FE_EP_LINEAR_FACTOR && m->dev->kind == CL_BACKEND_CUDA;
}

const char *cl_fe_ep_solver_name(const cl_fe_ep_model *m, cl_fe_ep_linear_kind linear) {
  if (linear == CL_FE_EP_LINEAR_PCG) return "pcg";
  if (linear == CL_FE_EP_LINEAR_MG) return "mg-pcg";
  return m->dev->kind == CL_BACKEND_CUDA ? "cusolver" : cl_fe_ep_linear_name();
}

/* The matrix on the device (kval), constrained rows and columns replaced by the identity, made
 * ready to solve with: factored on the device (CUDA) or the host, or prepared for the device PCG.
 * A zero pivot names the node and component that nothing holds. */
static cl_status factor(solve_state *S, const cl_fe_ep_solve_opts *o, cl_error *err) {
  cl_fe_ep_model *m = S->m;
  const double t0 = now();
  S->rep->factorizations++;
  if (o->linear != CL_FE_EP_LINEAR_FACTOR) {
    cl_status st = cl_fe_ep_pcg_prepare(m, err);
    if (st == CL_OK && o->linear == CL_FE_EP_LINEAR_MG) st = cl_fe_ep_mg_setup(m, err);
    S->rep->mg_levels = cl_fe_ep_mg_levels(m->mg);
    S->rep->t_factor += now() - t0;
    return st;
  }
  size_t bad = 0;
  cl_error inner;
  cl_status st;
  if (on_device(m, o)) {
    st = cl_fe_ep_cusolver_factor(m, &bad, &inner);
  } else {
    CL_TRY(cl_field_download(m->f[CL_FE_EP_F_KVAL], S->kval, err));
    for (size_t r = 0; r < m->ndof; r++)
      for (uint64_t k = m->rowptr[r]; k < m->rowptr[r + 1]; k++)
        if (m->fixed[r] || m->fixed[m->col[k]]) S->kval[k] = m->col[k] == r ? 1 : 0;
    st = cl_fe_ep_linear_factor(m->solver, S->kval, &bad, &inner);
  }
  S->rep->t_factor += now() - t0;
  if (st == CL_ERR_ARG) {
    const size_t n = bad % m->A.nnodes;
    return cl_error_set(err, CL_ERR_ARG, "the stiffness matrix is singular at node %zu (%c, at (%g, %g)): the "
                        "constraints leave a rigid-body mode free; fix more displacements (model:fix{})", n + 1,
                        bad < m->A.nnodes ? 'x' : 'y', m->x[2 * n], m->x[2 * n + 1]);
  }
  if (st != CL_OK) return cl_error_set(err, st, "%s", inner.msg);
  return CL_OK;
}

/* The constraints must hold the three rigid-body modes of the plane (translations in x and y, the
 * rotation): the rotation about (xc, yc) is free when every fixed x lies at y = yc and every
 * fixed y at x = xc, i.e. when the spread of those coordinates vanishes. Checked before any
 * factorization, so that the error says what to fix rather than where a pivot vanished. */
static cl_status check_rigid_modes(const cl_fe_ep_model *m, cl_error *err) {
  const size_t nn = m->A.nnodes;
  double cnt[2] = {0, 0}, sum[2] = {0, 0}, sq[2] = {0, 0}, lo = 0, hi = 0;
  for (size_t i = 0; i < nn; i++) lo = fmin(lo, fmin(m->x[2 * i], m->x[2 * i + 1])), hi = fmax(hi, fmax(m->x[2 * i], m->x[2 * i + 1]));
  for (int c = 0; c < 2; c++)
    for (size_t i = 0; i < nn; i++)
      if (m->fixed[c * nn + i]) {
        const double v = m->x[2 * i + 1 - c]; /* fixed x: its y; fixed y: its x */
        cnt[c] += 1, sum[c] += v, sq[c] += v * v;
      }
  const double spread = (cnt[0] ? sq[0] - sum[0] * sum[0] / cnt[0] : 0) + (cnt[1] ? sq[1] - sum[1] * sum[1] / cnt[1] : 0);
  const int tx = cnt[0] == 0, ty = cnt[1] == 0, rot = !tx && !ty && spread <= 1e-20 * (hi - lo) * (hi - lo) * (cnt[0] + cnt[1]);
  if (!tx && !ty && !rot) return CL_OK;
  return cl_error_set(err, CL_ERR_ARG, "the stiffness matrix is singular: the constraints leave %s free; fix "
                      "more displacements (model:fix{})",
                      tx && ty ? "the translations in x and y and the rotation" : tx ? "the translation in x"
                      : ty ? "the translation in y" : "the rotation (all fixed x on one line y = const and all fixed "
                      "y on one line x = const)");
}

/* du = -K^-1 r */
static cl_status correction(solve_state *S, const cl_fe_ep_solve_opts *o, double *du, cl_error *err) {
  const double t0 = now();
  if (o->linear != CL_FE_EP_LINEAR_FACTOR)
    CL_TRY(cl_fe_ep_pcg_solve(S->m, S->r, du, o->linear == CL_FE_EP_LINEAR_MG, o->linear_tol, &S->rep->cg_iterations,
                              err));
  else if (on_device(S->m, o)) CL_TRY(cl_fe_ep_cusolver_solve(S->m, S->r, du, err));
  else CL_TRY(cl_fe_ep_linear_solve(S->m->solver, S->r, du, err));
  for (size_t i = 0; i < S->m->ndof; i++) du[i] = -du[i];
  S->rep->t_solve += now() - t0;
  return CL_OK;
}

/* One increment to load factor lambda from the converged state: *ok says whether it converged. */
static cl_status increment(solve_state *S, const cl_fe_ep_solve_opts *o, int inc, double lambda, int *ok,
                           cl_error *err) {
  cl_fe_ep_model *m = S->m;
  const size_t n = m->ndof;
  for (size_t i = 0; i < n; i++) {
    S->fext[i] = (1 - lambda) * S->f0[i] + lambda * m->f_ext[i];
    if (m->fixed[i]) S->u[i] = (1 - lambda) * S->u0[i] + lambda * m->fixed_value[i];
  }
  S->ref = sqrt(dot(S->fext, S->fext, n));
  if (!(S->ref > 0)) S->ref = 1; /* no load: the residual is taken in force units */
  double res, alpha = 1;
  *ok = 0;
  for (int it = 0;; it++) {
    CL_TRY(residual(S, S->u, o->method == CL_FE_EP_NEWTON, &res, err));
    CL_TRY(record(m, inc, it, lambda, res, err));
    S->rep->residual = res;
    if (res <= o->tol) break;
    S->nonfinite_inc = isfinite(res) ? 0 : inc, S->nonfinite_it = it;
    if (it >= o->max_iter || !isfinite(res)) return CL_OK;
    S->rep->iterations++;
    if (o->method == CL_FE_EP_NEWTON) CL_TRY(factor(S, o, err));
    CL_TRY(correction(S, o, S->du, err));
    if (o->method == CL_FE_EP_MIS && it > 0) {
      /* Thomas (1984): alpha = alpha_prev du_prev.(du_prev - du) / |du - du_prev|^2, the secant
       * estimate of 1 / (1 - rho) for corrections shrinking by rho per iteration */
      double dd = 0, dq = 0;
      for (size_t i = 0; i < n; i++) {
        const double q = S->du2[i] - S->du[i];
        dd += S->du2[i] * q, dq += q * q;
      }
      alpha = dq > 0 ? alpha * dd / dq : 1;
      if (!(alpha >= 1 && isfinite(alpha))) alpha = 1; /* corrections growing or turning: plain IS again */
    }
    for (size_t i = 0; i < n; i++) S->u[i] += alpha * S->du[i];
    memcpy(S->du2, S->du, n * sizeof(double));
  }
  *ok = 1;
  return CL_OK;
}

/* the converged state becomes the start of the next increment (or the state goes back to it) */
static cl_status commit(cl_fe_ep_model *m, int forward, cl_error *err) {
  const cl_fe_ep_field_id pairs[3][2] = {{CL_FE_EP_F_U, CL_FE_EP_F_U_N}, {CL_FE_EP_F_SIG, CL_FE_EP_F_SIG_N},
                                         {CL_FE_EP_F_EP, CL_FE_EP_F_EP_N}};
  for (int i = 0; i < 3 + m->A.law_nstate; i++) { /* then a run-time compiled law's state variables */
    cl_field *now = i < 3 ? m->f[pairs[i][0]] : m->law_state[0][i - 3];
    cl_field *converged = i < 3 ? m->f[pairs[i][1]] : m->law_state[1][i - 3];
    cl_field *from = forward ? now : converged, *to = forward ? converged : now;
    const size_t bytes = cl_field_bytes(from);
    CL_TRY(m->dev->copy(m->dev, cl_field_component(to, 0), cl_field_component(from, 0), bytes, err));
    cl_field_touch(to);
  }
  return CL_OK;
}

cl_status cl_fe_ep_solve(cl_fe_ep_model *m, const cl_fe_ep_solve_opts *o, cl_fe_ep_report *rep, cl_error *err) {
  cl_fe_ep_report local;
  if (!rep) rep = &local;
  memset(rep, 0, sizeof *rep);
  if (o->increments < 1) return cl_error_set(err, CL_ERR_ARG, "increments must be >= 1 (got %d)", o->increments);
  if (!(o->tol > 0 && o->tol < 1)) return cl_error_set(err, CL_ERR_ARG, "tol must lie in (0, 1) (got %g)", o->tol);
  if (o->linear != CL_FE_EP_LINEAR_FACTOR && !(o->linear_tol > 0 && o->linear_tol < 1))
    return cl_error_set(err, CL_ERR_ARG, "linear_tol must lie in (0, 1) (got %g)", o->linear_tol);
  const size_t n = m->ndof;
  solve_state S = {.m = m, .rep = rep};
  double *block = malloc(sizeof(double) * (9 * n + m->rowptr[n]));
  if (!block) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the solver");
  S.u = block, S.fint = S.u + n, S.fext = S.fint + n, S.r = S.fext + n, S.du = S.r + n, S.du2 = S.du + n;
  S.f0 = S.du2 + n, S.u0 = S.f0 + n, S.kval = S.u0 + 2 * n;
  m->nhistory = 0;
  cl_status st = check_rigid_modes(m, err);
  if (st != CL_OK) goto done;
  /* the start: the converged state's own internal forces, so that lambda = 0 is in equilibrium */
  double res;
  if ((st = cl_fe_ep_get(m, CL_FE_EP_F_U_N, S.u0, err)) != CL_OK) goto done;
  memcpy(S.u, S.u0, n * sizeof(double));
  S.ref = 1;
  memset(S.fext, 0, n * sizeof(double));
  if ((st = residual(&S, S.u0, 0, &res, err)) != CL_OK) goto done;
  memcpy(S.f0, S.fint, n * sizeof(double));
  rep->residuals = 0, rep->t_residual = 0;
  if (o->method != CL_FE_EP_NEWTON) {
    const double t0 = now();
    if ((st = cl_fe_ep_elastic_stiffness(m, err)) != CL_OK) goto done;
    rep->t_tangent += now() - t0;
    if ((st = factor(&S, o, err)) != CL_OK) goto done;
  }
  double lambda = 0, step = 1.0 / o->increments;
  int inc = 0;
  while (lambda < 1) {
    const double target = fmin(1, lambda + step);
    int ok;
    if ((st = increment(&S, o, inc + 1, target, &ok, err)) != CL_OK) goto done;
    if (ok) {
      if ((st = commit(m, 1, err)) != CL_OK) goto done;
      memcpy(S.u0, S.u, n * sizeof(double));
      lambda = target, inc++;
      continue;
    }
    if ((st = commit(m, 0, err)) != CL_OK) goto done; /* back to the last converged state */
    if (rep->cutbacks == o->max_cutbacks && S.nonfinite_inc) {
      st = cl_error_set(err, CL_ERR_ARG, "the residual went non-finite at increment %d, iteration %d (load factor "
                        "%.6g) after %d cut-backs: a stress or force the law returned is NaN or infinite; the state "
                        "stays at load factor %.6g: check the law and the loads", S.nonfinite_inc, S.nonfinite_it,
                        target, rep->cutbacks, lambda);
      goto done;
    }
    if (rep->cutbacks == o->max_cutbacks) {
      st = cl_error_set(err, CL_ERR_ARG, "the increment to load factor %.6g did not converge in %d iterations after "
                        "%d cut-backs (relative residual %.3g, tolerance %.3g); the state stays at load factor "
                        "%.6g: give more increments, a larger max_iter, or another method", target, o->max_iter,
                        rep->cutbacks, rep->residual, o->tol, lambda);
      goto done;
    }
    rep->cutbacks++;
    step /= 2;
    memcpy(S.u, S.u0, n * sizeof(double));
  }
  rep->increments = inc;
done:
  free(block);
  return st;
}
