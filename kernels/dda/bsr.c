/* Block-sparse matrix and block-Jacobi PCG of the DDA step (bsr.h). */
#include "bsr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int pair_cmp(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  return *x < *y ? -1 : *x > *y;
}

cl_status cl_dda_bsr_pattern(cl_dda_bsr *a, size_t n, size_t npairs, const int32_t *pi, const int32_t *pj,
                             cl_error *err) {
  size_t nkeys = n + 2 * npairs;
  int64_t *keys = malloc((nkeys ? nkeys : 1) * sizeof *keys);
  if (!keys) return cl_error_set(err, CL_ERR_OOM, "DDA matrix: out of memory for %zu block entries", nkeys);
  for (size_t i = 0; i < n; i++) keys[i] = (int64_t)i * (int64_t)n + (int64_t)i;
  for (size_t k = 0; k < npairs; k++) {
    keys[n + 2 * k] = (int64_t)pi[k] * (int64_t)n + pj[k];
    keys[n + 2 * k + 1] = (int64_t)pj[k] * (int64_t)n + pi[k];
  }
  qsort(keys, nkeys, sizeof *keys, pair_cmp);
  size_t u = 0;
  for (size_t k = 0; k < nkeys; k++)
    if (u == 0 || keys[k] != keys[u - 1]) keys[u++] = keys[k];
  if (u > a->cap || !a->rowptr || a->n != n) {
    int32_t *rowptr = realloc(a->rowptr, (n + 1) * sizeof *rowptr);
    if (rowptr) a->rowptr = rowptr;
    size_t cap = u > a->cap ? u + u / 2 : a->cap;
    int32_t *col = realloc(a->col, cap * sizeof *col);
    if (col) a->col = col;
    double *val = realloc(a->val, cap * 36 * sizeof *val);
    if (val) a->val = val;
    if (!rowptr || !col || !val) {
      free(keys);
      return cl_error_set(err, CL_ERR_OOM, "DDA matrix: out of memory for %zu blocks", u);
    }
    a->cap = cap;
  }
  a->n = n, a->nnzb = u;
  memset(a->rowptr, 0, (n + 1) * sizeof *a->rowptr);
  for (size_t k = 0; k < u; k++) {
    a->rowptr[keys[k] / (int64_t)n + 1]++;
    a->col[k] = (int32_t)(keys[k] % (int64_t)n);
  }
  for (size_t i = 0; i < n; i++) a->rowptr[i + 1] += a->rowptr[i];
  memset(a->val, 0, u * 36 * sizeof *a->val);
  free(keys);
  return CL_OK;
}

double *cl_dda_bsr_block(const cl_dda_bsr *a, int32_t i, int32_t j) {
  int32_t lo = a->rowptr[i], hi = a->rowptr[i + 1];
  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    if (a->col[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < a->rowptr[i + 1] && a->col[lo] == j ? a->val + 36 * (size_t)lo : NULL;
}

void cl_dda_bsr_free(cl_dda_bsr *a) {
  free(a->rowptr), free(a->col), free(a->val);
  memset(a, 0, sizeof *a);
}

/* below this many blocks the threads cost more than they save */
#define PARALLEL_BLOCKS 512

static void spmv(const cl_dda_bsr *a, const double *x, double *y) {
#pragma omp parallel for schedule(static) if (a->n > PARALLEL_BLOCKS)
  for (size_t i = 0; i < a->n; i++) {
    double s[6] = {0};
    for (int32_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      const double *blk = a->val + 36 * (size_t)p, *xj = x + 6 * (size_t)a->col[p];
      for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) s[r] += blk[6 * r + c] * xj[c];
    }
    memcpy(y + 6 * i, s, sizeof s);
  }
}

static double dot(size_t m, const double *x, const double *y) {
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s) if (m > 6 * PARALLEL_BLOCKS)
  for (size_t k = 0; k < m; k++) s += x[k] * y[k];
  return s;
}

/* The Cholesky factor (lower, row-major) of a 6x6 block; 0 when not positive definite. */
static int cholesky6(const double *A, double *L) {
  memset(L, 0, 36 * sizeof *L);
  for (int j = 0; j < 6; j++) {
    double d = A[6 * j + j];
    for (int k = 0; k < j; k++) d -= L[6 * j + k] * L[6 * j + k];
    if (!(d > 0)) return 0;
    L[6 * j + j] = sqrt(d);
    for (int i = j + 1; i < 6; i++) {
      double s = A[6 * i + j];
      for (int k = 0; k < j; k++) s -= L[6 * i + k] * L[6 * j + k];
      L[6 * i + j] = s / L[6 * j + j];
    }
  }
  return 1;
}

/* z = (L L^T)^-1 r for one block. */
static void cholesky6_solve(const double *L, const double *r, double *z) {
  double y[6];
  for (int i = 0; i < 6; i++) {
    double s = r[i];
    for (int k = 0; k < i; k++) s -= L[6 * i + k] * y[k];
    y[i] = s / L[6 * i + i];
  }
  for (int i = 5; i >= 0; i--) {
    double s = y[i];
    for (int k = i + 1; k < 6; k++) s -= L[6 * k + i] * z[k];
    z[i] = s / L[6 * i + i];
  }
}

/* y = the strictly lower (lower = 1) or upper block triangle of a times x. */
static void spmv_triangle(const cl_dda_bsr *a, int lower, const double *x, double *y) {
#pragma omp parallel for schedule(static) if (a->n > PARALLEL_BLOCKS)
  for (size_t i = 0; i < a->n; i++) {
    double s[6] = {0};
    for (int32_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      size_t j = (size_t)a->col[p];
      if (lower ? j >= i : j <= i) continue;
      const double *blk = a->val + 36 * (size_t)p, *xj = x + 6 * j;
      for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) s[r] += blk[6 * r + c] * xj[c];
    }
    memcpy(y + 6 * i, s, sizeof s);
  }
}

/* z = M^-1 r. Block Jacobi: M = D. SSOR approximate inverse (Helfenstein & Koko, the paper's
 * SSOR-AI): with A = L + D + L^T, M^-1 = (I - D^-1 L^T) D^-1 (I - L D^-1), the first terms of
 * the Neumann series of SSOR's inverse; symmetric positive definite, and applied with two triangle
 * products and two diagonal solves (t: a work vector). */
static void precondition(const cl_dda_bsr *a, cl_dda_preconditioner kind, const double *Lc, const double *r,
                         double *z, double *t) {
  size_t n = a->n, m = 6 * n;
  if (kind == CL_DDA_BLOCK_JACOBI) {
    for (size_t i = 0; i < n; i++) cholesky6_solve(Lc + 36 * i, r + 6 * i, z + 6 * i);
    return;
  }
  for (size_t i = 0; i < n; i++) cholesky6_solve(Lc + 36 * i, r + 6 * i, t + 6 * i); /* t = D^-1 r */
  spmv_triangle(a, 1, t, z);                                                         /* z = L D^-1 r */
  for (size_t k = 0; k < m; k++) z[k] = r[k] - z[k];
  for (size_t i = 0; i < n; i++) cholesky6_solve(Lc + 36 * i, z + 6 * i, t + 6 * i); /* t = D^-1 (I - L D^-1) r */
  spmv_triangle(a, 0, t, z);                                                         /* z = L^T t */
  for (size_t i = 0; i < n; i++) {
    double u[6];
    cholesky6_solve(Lc + 36 * i, z + 6 * i, u);
    for (int k = 0; k < 6; k++) z[6 * i + k] = t[6 * i + k] - u[k];
  }
}

cl_status cl_dda_pcg(const cl_dda_bsr *a, const double *b, double *x, cl_dda_preconditioner kind, double tol,
                     int max_iterations, cl_dda_pcg_result *res, cl_error *err) {
  size_t n = a->n, m = 6 * n;
  res->iterations = 0, res->converged = 1, res->residual = 0;
  double *work = malloc((5 * m + 36 * n + 1) * sizeof *work);
  if (!work) return cl_error_set(err, CL_ERR_OOM, "DDA solver: out of memory for %zu unknowns", m);
  double *r = work, *z = r + m, *p = z + m, *q = p + m, *t = q + m, *L = t + m;
  cl_status st = CL_OK;
  for (size_t i = 0; i < n; i++)
    if (!cholesky6(cl_dda_bsr_block(a, (int32_t)i, (int32_t)i), L + 36 * i)) {
      st = cl_error_set(err, CL_ERR_ARG, "DDA solver: the diagonal submatrix of block %zu is not positive "
                        "definite (check its material: E > 0, 0 <= nu < 0.5, density > 0)", i + 1);
      goto done;
    }
  double bnorm = sqrt(dot(m, b, b));
  if (bnorm == 0) {
    memset(x, 0, m * sizeof *x);
    goto done;
  }
  spmv(a, x, q);
  for (size_t k = 0; k < m; k++) r[k] = b[k] - q[k];
  precondition(a, kind, L, r, z, t);
  memcpy(p, z, m * sizeof *p);
  double rz = dot(m, r, z), rnorm = sqrt(dot(m, r, r));
  int it = 0;
  while (rnorm > tol * bnorm && it < max_iterations) {
    spmv(a, p, q);
    double pq = dot(m, p, q);
    if (!(pq > 0)) break; /* not positive definite (or not finite): reported as not converged */
    double alpha = rz / pq;
    for (size_t k = 0; k < m; k++) x[k] += alpha * p[k], r[k] -= alpha * q[k];
    precondition(a, kind, L, r, z, t);
    double rz_new = dot(m, r, z), beta = rz_new / rz;
    rz = rz_new;
    for (size_t k = 0; k < m; k++) p[k] = z[k] + beta * p[k];
    rnorm = sqrt(dot(m, r, r));
    it++;
  }
  res->iterations = it;
  res->residual = rnorm / bnorm;
  res->converged = rnorm <= tol * bnorm;
done:
  free(work);
  return st;
}
