/* Sparse SPD solves for the quasi-static FE: CHOLMOD when built with it, else Jacobi-PCG. */
#include "fe_ep_linear.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLEAVE_HAVE_CHOLMOD
#include <cholmod.h>

struct cl_fe_ep_linear {
  cholmod_common c;
  size_t n;
  const uint64_t *rowptr; /* the pattern (the caller's), until the first factorization */
  const uint32_t *col;
  cholmod_sparse *A; /* the full CSR read as CSC (the matrix is symmetric), upper triangle used */
  cholmod_factor *L;
};

const char *cl_fe_ep_linear_name(void) { return "cholmod"; }

cl_status cl_fe_ep_linear_create(size_t n, const uint64_t *rowptr, const uint32_t *col, cl_fe_ep_linear **out,
                                 cl_error *err) {
  *out = NULL;
  cl_fe_ep_linear *s = calloc(1, sizeof *s);
  if (!s) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the linear solver");
  cholmod_l_start(&s->c);
  s->c.print = 0;
  s->n = n, s->rowptr = rowptr, s->col = col;
  *out = s;
  return CL_OK;
}

/* The matrix's copy and the fill-reducing ordering (AMD/METIS), once, at the first factorization: a
 * model that never factors on the host (multigrid or PCG, a GPU's cuSOLVER) does not pay for them (at
 * level 3, p = 2, most of its creation) */
static cl_status analyze(cl_fe_ep_linear *s, cl_error *err) {
  const size_t n = s->n;
  s->A = cholmod_l_allocate_sparse(n, n, s->rowptr[n], 1, 1, 1, CHOLMOD_REAL, &s->c);
  if (!s->A) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for a %zu x %zu sparse matrix", n, n);
  SuiteSparse_long *p = s->A->p, *i = s->A->i;
  for (size_t r = 0; r <= n; r++) p[r] = (SuiteSparse_long)s->rowptr[r];
  for (uint64_t k = 0; k < s->rowptr[n]; k++) i[k] = s->col[k];
  s->L = cholmod_l_analyze(s->A, &s->c);
  if (!s->L) {
    cholmod_l_free_sparse(&s->A, &s->c);
    return cl_error_set(err, CL_ERR_OOM, "fe: CHOLMOD's analysis failed (status %d)", s->c.status);
  }
  return CL_OK;
}

cl_status cl_fe_ep_linear_factor(cl_fe_ep_linear *s, const double *val, size_t *bad_row, cl_error *err) {
  if (!s->L) CL_TRY(analyze(s, err));
  memcpy(s->A->x, val, sizeof(double) * ((SuiteSparse_long *)s->A->p)[s->A->ncol]);
  cholmod_l_factorize(s->A, s->L, &s->c);
  if (s->c.status == CHOLMOD_NOT_POSDEF) {
    const size_t minor = s->L->minor; /* the permuted column where it failed */
    *bad_row = s->L->Perm ? (size_t)((SuiteSparse_long *)s->L->Perm)[minor] : minor;
    return cl_error_set(err, CL_ERR_ARG, "the matrix is not positive definite");
  }
  if (s->c.status < CHOLMOD_OK) return cl_error_set(err, CL_ERR_OOM, "fe: CHOLMOD's factorization failed (status %d)", s->c.status);
  return CL_OK;
}

cl_status cl_fe_ep_linear_solve(cl_fe_ep_linear *s, const double *b, double *x, cl_error *err) {
  const size_t n = s->A->nrow;
  cholmod_dense *B = cholmod_l_allocate_dense(n, 1, n, CHOLMOD_REAL, &s->c);
  if (!B) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for a right-hand side");
  memcpy(B->x, b, n * sizeof(double));
  cholmod_dense *X = cholmod_l_solve(CHOLMOD_A, s->L, B, &s->c);
  cholmod_l_free_dense(&B, &s->c);
  if (!X) return cl_error_set(err, CL_ERR_OOM, "fe: CHOLMOD's solve failed (status %d)", s->c.status);
  memcpy(x, X->x, n * sizeof(double));
  cholmod_l_free_dense(&X, &s->c);
  return CL_OK;
}

void cl_fe_ep_linear_free(cl_fe_ep_linear *s) {
  if (!s) return;
  cholmod_l_free_factor(&s->L, &s->c);
  cholmod_l_free_sparse(&s->A, &s->c);
  cholmod_l_finish(&s->c);
  free(s);
}

#else /* Jacobi-preconditioned conjugate gradients */

struct cl_fe_ep_linear {
  size_t n;
  const uint64_t *rowptr;
  const uint32_t *col;
  double *val, *work; /* work: diagonal inverse, r, z, p, q */
};

const char *cl_fe_ep_linear_name(void) { return "cg"; }

cl_status cl_fe_ep_linear_create(size_t n, const uint64_t *rowptr, const uint32_t *col, cl_fe_ep_linear **out,
                                 cl_error *err) {
  *out = NULL;
  cl_fe_ep_linear *s = calloc(1, sizeof *s);
  if (s) s->val = malloc(sizeof(double) * (rowptr[n] ? rowptr[n] : 1)), s->work = malloc(sizeof(double) * 5 * (n ? n : 1));
  if (!s || !s->val || !s->work) {
    cl_fe_ep_linear_free(s);
    return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the linear solver");
  }
  s->n = n, s->rowptr = rowptr, s->col = col;
  *out = s;
  return CL_OK;
}

cl_status cl_fe_ep_linear_factor(cl_fe_ep_linear *s, const double *val, size_t *bad_row, cl_error *err) {
  memcpy(s->val, val, sizeof(double) * s->rowptr[s->n]);
  for (size_t r = 0; r < s->n; r++) {
    double d = 0;
    for (uint64_t k = s->rowptr[r]; k < s->rowptr[r + 1]; k++)
      if (s->col[k] == r) d = val[k];
    if (!(d > 0)) {
      *bad_row = r;
      return cl_error_set(err, CL_ERR_ARG, "the matrix is not positive definite");
    }
    s->work[r] = 1 / d;
  }
  return CL_OK;
}

/* in parallel only for large systems, as the FE's cpu loops (fe_ep_cpu.c) */
static void spmv(const cl_fe_ep_linear *s, const double *x, double *y) {
#pragma omp parallel for schedule(static) if (s->n >= 65536)
  for (size_t r = 0; r < s->n; r++) {
    double v = 0;
    for (uint64_t k = s->rowptr[r]; k < s->rowptr[r + 1]; k++) v += s->val[k] * x[s->col[k]];
    y[r] = v;
  }
}

/* to 1e-12 relative: the solves feed a nonlinear iteration whose own tolerance is >= 1e-10 */
cl_status cl_fe_ep_linear_solve(cl_fe_ep_linear *s, const double *b, double *x, cl_error *err) {
  const size_t n = s->n;
  double *dinv = s->work, *r = dinv + n, *z = r + n, *p = z + n, *q = p + n, bb = 0, rz = 0;
  for (size_t i = 0; i < n; i++) x[i] = 0, r[i] = b[i], z[i] = dinv[i] * r[i], p[i] = z[i], bb += b[i] * b[i],
                                 rz += r[i] * z[i];
  for (size_t it = 0; it < 10 * n + 100; it++) {
    double rr = 0;
    for (size_t i = 0; i < n; i++) rr += r[i] * r[i];
    if (rr <= 1e-24 * bb) return CL_OK;
    spmv(s, p, q);
    double pq = 0;
    for (size_t i = 0; i < n; i++) pq += p[i] * q[i];
    if (!(pq > 0)) return cl_error_set(err, CL_ERR_ARG, "the matrix is not positive definite (CG)");
    const double alpha = rz / pq;
    double rz_new = 0;
    for (size_t i = 0; i < n; i++) x[i] += alpha * p[i], r[i] -= alpha * q[i], z[i] = dinv[i] * r[i], rz_new += r[i] * z[i];
    for (size_t i = 0; i < n; i++) p[i] = z[i] + rz_new / rz * p[i];
    rz = rz_new;
  }
  return cl_error_set(err, CL_ERR_ARG, "the matrix is singular or too ill-conditioned for CG");
}

void cl_fe_ep_linear_free(cl_fe_ep_linear *s) {
  if (!s) return;
  free(s->val), free(s->work), free(s);
}

#endif
