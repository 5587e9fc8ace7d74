/* The DDA solver's preconditioners against an incomplete Cholesky factorization (issue 16; the paper's
 * Table I: block Jacobi 275 iterations a step, SSOR-AI 141, cuSPARSE's ILU 93): one SPD block matrix
 * (6x6 blocks, f64) of a jointed mass (cl_dda_random_jointed_pattern: the grid of dda_spmv, with
 * `base` > 0 block 0 touching blocks 1 .. base as case 1's fixed base) with DDA-like values
 * (cl_dda_random_jointed_values: inertia, elasticity, locked contact springs, a fixed base block; not
 * diagonally dominant), solved from x0 = 0 to |b - A x| <= tol |b| for tol 1e-8 and 1e-12 by
 *  - cleave's PCG (cl_dda_pcg, BSR, the persistent solve where the device has one) with block Jacobi
 *    and with SSOR-AI;
 *  - the same PCG operations (cl_k_dda_pcg: the same product, vector updates, device scalars and
 *    stopping rule; the host looks every CL_DDA_PCG_CHECK_EVERY iterations) with z = (L L^T)^-1 r,
 *    L the block incomplete Cholesky factor with no fill (IC(0)) of A's pattern: computed here on
 *    the host ("IC(0) host": the reference, on either device; r comes down and z goes up each
 *    iteration), and on a cuda device by cuSPARSE ("IC(0) cuSPARSE": cusparseDbsric02 and two
 *    cusparseDbsrsv2_solve a preconditioning, L then L^T, on a copy of the BSR values; the vectors
 *    reordered from cleave's SoA to BSR's block-major and back by two small kernels,
 *    dda_precond_cuda.cu).
 * Both factors are IC(0) of the same pattern in the same order: the same L to round-off, so the
 * iteration counts agree but for round-off in the last iterations (checked: within 3 or 2%).
 * Per preconditioner: iterations, setup (block Jacobi and SSOR-AI: the diagonal blocks' inverses,
 * CL_DDA_OP_FACTOR; IC(0): the factorization, and cuSPARSE's analyses of it and of the two
 * triangular solves), the solve's time (with the uploads of b and x0 and the download of x) and
 * per iteration, and the final residual |b - A x| / |b| recomputed here by a plain host product.
 * Times: the median of `runs` after a warm-up (bench_time.h: CUDA events; the process's CPU time on
 * the cpu).
 *
 *   dda_precond [cpu|cuda] [blocks | dump] [runs] [base] [width] [inertia] [check]
 *   (default: cpu 4361 3 190, width ceil(sqrt(blocks)), inertia 1e-3)
 * or, given the path of a dump instead of a number of blocks, the model's own first system and
 * right-hand side as CLEAVE_DDA_DUMP=path wrote them (kernels/dda/model.c; e.g. case 1's:
 * `CLEAVE_DDA_DUMP=case1.bin CLEAVE_DDA_PCG=persistent cleave run scripts/bench/dda_case1.lua 1 0.72
 * block_jacobi bsr`).
 * Exit status 1 when a solve does not converge or its recomputed residual is above 10 tol (the
 * recurrence's residual drifts from the true one by round-off, ~1e-16 cond(A)), when the two IC(0)
 * counts differ by more than 3 iterations and 2%, or, with `check`, when IC(0) does not take fewer
 * iterations than block Jacobi, and on a chain (width = blocks, base 0: block tridiagonal, whose
 * IC(0) drops no fill and is the exact Cholesky factor, no shift) when it takes more than 1 iteration
 * (2 allowed for round-off) -- the CTest smoke tests (bench/dda_precond_*). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLEAVE_HAVE_CUDA
/* bsric02 and bsrsv2 are deprecated (CUDA 12-13) and the generic API has no incomplete factorization
 * of a BSR matrix to replace them */
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>
#endif

#include "../../kernels/dda/pcg.h"
#include "../../kernels/dda/pcg_kernels.h"
#include "../../kernels/dda/pcg_scalars.h"
#include "../../kernels/dda/random_system.h"
#include "bench_time.h"

#ifdef CLEAVE_HAVE_CUDA
/* dda_precond_cuda.cu: a vector of n blocks from SoA (entry c n + i) to block-major (6 i + c), and back */
int dda_precond_soa_to_blocks(size_t n, const double *soa, double *blocks);
int dda_precond_blocks_to_soa(size_t n, const double *blocks, double *soa);
#endif

enum { MAX_ITERATIONS = 20000 };

static uint64_t seed = 20261125;

static int fail(const char *what, const cl_error *err) {
  fprintf(stderr, "dda_precond: %s: %s\n", what, err->msg);
  return 2;
}

/* ---- the block incomplete Cholesky factor on the host ----------------------------------------- */

/* The position of row i's diagonal block (every row has one: cl_dda_bsr_pattern). */
static int32_t diagonal_position(const cl_dda_bsr *a, size_t i) {
  int32_t p = a->rowptr[i];
  while (a->col[p] < (int32_t)i) p++;
  return p;
}

/* c -= x y^T (6x6, row-major) */
static void subtract_product_t(double *c, const double *x, const double *y) {
  for (int r = 0; r < 6; r++)
    for (int q = 0; q < 6; q++) {
      double s = 0;
      for (int k = 0; k < 6; k++) s += x[6 * r + k] * y[6 * q + k];
      c[6 * r + q] -= s;
    }
}

/* IC(0) of a's pattern with the values val into L (36 nnzb): the lower blocks and the diagonal blocks' lower triangles
 * hold L with A ~ L L^T, L_ik = (A_ik - sum_{j<k} L_ij L_kj^T) L_kk^-T over the blocks j of both rows,
 * L_ii the Cholesky factor of A_ii - sum_{j<i} L_ij L_ij^T; the upper blocks are left as they are.
 * Returns -1, or the block row whose pivot block is not positive definite. */
static long ic0_factor(const cl_dda_bsr *a, const double *val, double *L) {
  memcpy(L, val, 36 * a->nnzb * sizeof *L);
  for (size_t i = 0; i < a->n; i++) {
    int32_t d = diagonal_position(a, i);
    for (int32_t p = a->rowptr[i]; p <= d; p++) {
      size_t k = (size_t)a->col[p];
      int32_t dk = p == d ? d : diagonal_position(a, k), q = a->rowptr[i], t = a->rowptr[k];
      while (q < p && t < dk) { /* the blocks j < k of rows i and k */
        if (a->col[q] < a->col[t]) q++;
        else if (a->col[q] > a->col[t]) t++;
        else subtract_product_t(L + 36 * (size_t)p, L + 36 * (size_t)q++, L + 36 * (size_t)t++);
      }
      double *c = L + 36 * (size_t)p;
      if (p < d) { /* c := c L_kk^-T: each row x of the result solves L_kk x^T = c's row */
        const double *lk = L + 36 * (size_t)dk;
        for (int r = 0; r < 6; r++)
          for (int j = 0; j < 6; j++) {
            double s = c[6 * r + j];
            for (int m = 0; m < j; m++) s -= lk[6 * j + m] * c[6 * r + m];
            c[6 * r + j] = s / lk[7 * j];
          }
        continue;
      }
      for (int j = 0; j < 6; j++) { /* Cholesky of the diagonal block, in its lower triangle */
        for (int r = j; r < 6; r++) {
          double s = c[6 * r + j];
          for (int m = 0; m < j; m++) s -= c[6 * r + m] * c[6 * j + m];
          if (r == j && !(s > 0)) return (long)i;
          c[6 * r + j] = r == j ? sqrt(s) : s / c[7 * j];
        }
      }
    }
  }
  return -1;
}

/* IC(0) breaks down on these matrices (a pivot block not positive definite: they are not M-matrices,
 * the rotations and strains couple through the dropped fill), as on DDA's: Manteuffel's shift, the
 * factor of A + alpha diag(A) (the diagonal blocks' diagonal entries times 1 + alpha) with the least
 * alpha of 0, 1e-3, 2e-3, 4e-3, ... that factors, into shifted and L. Returns alpha, or -1 past 1e3. */
static double ic0_shift(const cl_dda_bsr *a, double *shifted, double *L) {
  for (double alpha = 0; alpha <= 1e3; alpha = alpha > 0 ? 2 * alpha : 1e-3) {
    memcpy(shifted, a->val, 36 * a->nnzb * sizeof *shifted);
    for (size_t i = 0; i < a->n; i++)
      for (int r = 0; r < 6; r++) shifted[36 * (size_t)diagonal_position(a, i) + 7 * (size_t)r] *= 1 + alpha;
    if (ic0_factor(a, shifted, L) < 0) return alpha;
  }
  return -1;
}

/* z = (L L^T)^-1 r in place (block-major): L y = r forward by block rows, then L^T z = y backward by
 * block columns (row i's lower blocks L_ik take L_ik^T z_i from y_k). */
static void ic0_apply(const cl_dda_bsr *a, const double *L, double *v) {
  for (size_t i = 0; i < a->n; i++) {
    int32_t d = diagonal_position(a, i);
    double *vi = v + 6 * i;
    for (int32_t p = a->rowptr[i]; p < d; p++) {
      const double *l = L + 36 * (size_t)p, *vk = v + 6 * (size_t)a->col[p];
      for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) vi[r] -= l[6 * r + c] * vk[c];
    }
    const double *l = L + 36 * (size_t)d;
    for (int r = 0; r < 6; r++) {
      for (int c = 0; c < r; c++) vi[r] -= l[6 * r + c] * vi[c];
      vi[r] /= l[7 * r];
    }
  }
  for (size_t i = a->n; i-- > 0;) {
    int32_t d = diagonal_position(a, i);
    double *vi = v + 6 * i;
    const double *l = L + 36 * (size_t)d;
    for (int r = 5; r >= 0; r--) {
      for (int c = r + 1; c < 6; c++) vi[r] -= l[6 * c + r] * vi[c];
      vi[r] /= l[7 * r];
    }
    for (int32_t p = a->rowptr[i]; p < d; p++) {
      const double *lp = L + 36 * (size_t)p;
      double *vk = v + 6 * (size_t)a->col[p];
      for (int c = 0; c < 6; c++)
        for (int r = 0; r < 6; r++) vk[c] -= lp[6 * r + c] * vi[r];
    }
  }
}

/* ---- a system written by the DDA model (CLEAVE_DDA_DUMP, kernels/dda/model.c) ---------------- */

/* The matrix and right-hand side of the dump at path into a and *b (allocated here): "CLDDABSR",
 * int64 n, int64 nnzb, int32 rowptr[n + 1], int32 col[nnzb], f64 val[36 nnzb], f64 b[6 n]; the
 * pattern checked (rows ascending and in range, every diagonal block present). */
static cl_status read_dump(const char *path, cl_dda_bsr *a, double **b, cl_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return cl_error_set(err, CL_ERR_IO, "cannot open %s", path);
  char magic[8];
  int64_t n = 0, nnzb = 0;
  int ok = fread(magic, 1, 8, f) == 8 && memcmp(magic, "CLDDABSR", 8) == 0 && fread(&n, sizeof n, 1, f) == 1 &&
           fread(&nnzb, sizeof nnzb, 1, f) == 1 && n > 0 && nnzb >= n && nnzb < INT32_MAX && n < INT32_MAX / 6;
  if (ok) {
    a->n = (size_t)n, a->nnzb = a->cap = (size_t)nnzb;
    a->rowptr = malloc((size_t)(n + 1) * sizeof *a->rowptr), a->col = malloc((size_t)nnzb * sizeof *a->col);
    a->val = malloc((size_t)(36 * nnzb) * sizeof *a->val), *b = malloc((size_t)(6 * n) * sizeof **b);
    ok = a->rowptr && a->col && a->val && *b &&
         fread(a->rowptr, sizeof *a->rowptr, (size_t)n + 1, f) == (size_t)n + 1 &&
         fread(a->col, sizeof *a->col, (size_t)nnzb, f) == (size_t)nnzb &&
         fread(a->val, sizeof *a->val, (size_t)(36 * nnzb), f) == (size_t)(36 * nnzb) &&
         fread(*b, sizeof **b, (size_t)(6 * n), f) == (size_t)(6 * n) && a->rowptr[0] == 0 && a->rowptr[n] == nnzb;
    for (int64_t i = 0; ok && i < n; i++) {
      int diagonal = 0;
      ok = a->rowptr[i + 1] > a->rowptr[i];
      for (int32_t p = a->rowptr[i]; ok && p < a->rowptr[i + 1]; p++) {
        ok = a->col[p] >= 0 && a->col[p] < n && (p == a->rowptr[i] || a->col[p] > a->col[p - 1]);
        diagonal |= a->col[p] == i;
      }
      ok = ok && diagonal;
    }
  }
  fclose(f);
  if (ok) return CL_OK;
  cl_dda_bsr_free(a), free(*b), *b = NULL;
  return cl_error_set(err, CL_ERR_IO, "%s is not a DDA system written by CLEAVE_DDA_DUMP (or is cut short)", path);
}

/* ---- the comparison ----------------------------------------------------------------------------- */

typedef enum { PC_JACOBI, PC_SSOR, PC_IC_HOST, PC_IC_CUSPARSE, PC_COUNT } precond;
static const char *pc_names[PC_COUNT] = {"block Jacobi", "SSOR-AI", "IC(0) host", "IC(0) cuSPARSE"};

typedef struct bench {
  cl_device *dev;
  const cl_dda_bsr *a;
  cl_dda_solver s;        /* a loaded, BSR */
  size_t n, m;
  const double *b;        /* host, block-major */
  double *x, *zero, *soa; /* host: the solution (block-major), x0, a SoA staging vector */
  double *shifted, shift; /* A + shift diag(A), the matrix both IC(0) factor (ic0_shift) */
  double *L;              /* the host's IC(0) factor */
  long bad_pivot;
  precond pc;
  double tol;
  cl_dda_pcg_result res;
#ifdef CLEAVE_HAVE_CUDA
  cusparseHandle_t h;
  cusparseMatDescr_t descr_a, descr_l;
  bsric02Info_t info_ic;
  bsrsv2Info_t info_l, info_lt;
  void *buffer;
  double *d_val, *d_L, *d_w; /* the device's shifted values and factor, and a block-major work vector */
  const int *d_rowptr, *d_col;
  int zero_pivot;
#endif
} bench;

static cl_status op(bench *B, cl_dda_pcg_args *A, int which, cl_error *err) {
  return cl_k_dda_pcg(B->dev, CL_F64, A, which, err);
}

/* host block-major v to the device SoA vector dst, or back */
static cl_status vector_up(bench *B, void *dst, const double *v, cl_error *err) {
  for (size_t i = 0; i < B->n; i++)
    for (int c = 0; c < 6; c++) B->soa[c * B->n + i] = v[6 * i + c];
  return B->dev->to_device(B->dev, dst, B->soa, B->m * sizeof *v, err);
}

static cl_status vector_down(bench *B, const void *src, double *v, cl_error *err) {
  CL_TRY(B->dev->to_host(B->dev, B->soa, src, B->m * sizeof *v, err));
  for (size_t i = 0; i < B->n; i++)
    for (int c = 0; c < 6; c++) v[6 * i + c] = B->soa[c * B->n + i];
  return CL_OK;
}

#ifdef CLEAVE_HAVE_CUDA
static cl_status sparse_fail(const char *call, cusparseStatus_t st, cl_error *err) {
  return cl_error_set(err, CL_ERR_DEVICE, "%s: %s (%d)", call, cusparseGetErrorString(st), (int)st);
}
#define SPARSE_TRY(call, err)                                            \
  do {                                                                   \
    cusparseStatus_t st_ = (call);                                       \
    if (st_ != CUSPARSE_STATUS_SUCCESS) return sparse_fail(#call, st_, err); \
  } while (0)

static cl_status cuda_fail(const char *what, int e, cl_error *err) {
  return cl_error_set(err, CL_ERR_DEVICE, "%s: %s", what, cudaGetErrorString((cudaError_t)e));
}

/* A zero pivot found by cuSPARSE (*Xbsric02_zeroPivot / Xbsrsv2_zeroPivot) named as an error. */
static cl_status zero_pivot(const char *what, cusparseStatus_t st, int pivot, cl_error *err) {
  if (st == CUSPARSE_STATUS_ZERO_PIVOT)
    return cl_error_set(err, CL_ERR_ARG, "%s: zero pivot at block row %d (the matrix is not positive definite)",
                        what, pivot);
  return st == CUSPARSE_STATUS_SUCCESS ? CL_OK : sparse_fail(what, st, err);
}

/* cuSPARSE's factor: the shifted values copied, the factorization's analysis, the factorization, and the
 * analyses of the two triangular solves with it. */
static cl_status cusparse_setup(bench *B, cl_error *err) {
  const cl_dda_bsr *a = B->a;
  const int n = (int)a->n, nnzb = (int)a->nnzb;
  const cusparseDirection_t dir = CUSPARSE_DIRECTION_ROW;
  const cusparseSolvePolicy_t policy = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
  CL_TRY(B->dev->copy(B->dev, B->d_L, B->d_val, 36 * a->nnzb * sizeof(double), err));
  SPARSE_TRY(cusparseDbsric02_analysis(B->h, dir, n, nnzb, B->descr_a, B->d_L, B->d_rowptr, B->d_col, 6, B->info_ic,
                                       policy, B->buffer), err);
  int pivot;
  CL_TRY(zero_pivot("cusparseDbsric02_analysis", cusparseXbsric02_zeroPivot(B->h, B->info_ic, &pivot), pivot, err));
  SPARSE_TRY(cusparseDbsric02(B->h, dir, n, nnzb, B->descr_a, B->d_L, B->d_rowptr, B->d_col, 6, B->info_ic, policy,
                              B->buffer), err);
  CL_TRY(zero_pivot("cusparseDbsric02", cusparseXbsric02_zeroPivot(B->h, B->info_ic, &pivot), pivot, err));
  SPARSE_TRY(cusparseDbsrsv2_analysis(B->h, dir, CUSPARSE_OPERATION_NON_TRANSPOSE, n, nnzb, B->descr_l, B->d_L,
                                      B->d_rowptr, B->d_col, 6, B->info_l, policy, B->buffer), err);
  SPARSE_TRY(cusparseDbsrsv2_analysis(B->h, dir, CUSPARSE_OPERATION_TRANSPOSE, n, nnzb, B->descr_l, B->d_L,
                                      B->d_rowptr, B->d_col, 6, B->info_lt, policy, B->buffer), err);
  return CL_OK;
}

/* z = (L L^T)^-1 r by cuSPARSE: r to block-major w, L y = w into z's room (block-major), L^T w = y,
 * w back to SoA z. */
static cl_status cusparse_apply(bench *B, cl_dda_pcg_args *A, cl_error *err) {
  const cl_dda_bsr *a = B->a;
  const int n = (int)a->n, nnzb = (int)a->nnzb;
  const double one = 1;
  const cusparseSolvePolicy_t policy = CUSPARSE_SOLVE_POLICY_USE_LEVEL;
  double *y = A->z;
  int e = dda_precond_soa_to_blocks(a->n, A->r, B->d_w);
  if (e) return cuda_fail("SoA to blocks", e, err);
  SPARSE_TRY(cusparseDbsrsv2_solve(B->h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, n, nnzb, &one,
                                   B->descr_l, B->d_L, B->d_rowptr, B->d_col, 6, B->info_l, B->d_w, y, policy,
                                   B->buffer), err);
  SPARSE_TRY(cusparseDbsrsv2_solve(B->h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_TRANSPOSE, n, nnzb, &one,
                                   B->descr_l, B->d_L, B->d_rowptr, B->d_col, 6, B->info_lt, y, B->d_w, policy,
                                   B->buffer), err);
  e = dda_precond_blocks_to_soa(a->n, B->d_w, A->z);
  return e ? cuda_fail("blocks to SoA", e, err) : CL_OK;
}

static cl_status cusparse_open(bench *B, cl_error *err) {
  const cl_dda_bsr *a = B->a;
  cl_device *d = B->dev;
  SPARSE_TRY(cusparseCreate(&B->h), err);
  SPARSE_TRY(cusparseCreateMatDescr(&B->descr_a), err);
  SPARSE_TRY(cusparseCreateMatDescr(&B->descr_l), err);
  SPARSE_TRY(cusparseSetMatFillMode(B->descr_l, CUSPARSE_FILL_MODE_LOWER), err);
  SPARSE_TRY(cusparseSetMatDiagType(B->descr_l, CUSPARSE_DIAG_TYPE_NON_UNIT), err);
  SPARSE_TRY(cusparseCreateBsric02Info(&B->info_ic), err);
  SPARSE_TRY(cusparseCreateBsrsv2Info(&B->info_l), err);
  SPARSE_TRY(cusparseCreateBsrsv2Info(&B->info_lt), err);
  /* the solver's BSR structure is a's, on the device (cl_dda_pcg_args: cuSPARSE's row-major BSR) */
  B->d_rowptr = B->s.A.rowptr, B->d_col = B->s.A.col;
  void *v, *l, *w;
  CL_TRY(d->alloc(d, &v, 36 * a->nnzb * sizeof(double), err));
  B->d_val = v;
  CL_TRY(d->to_device(d, v, B->shifted, 36 * a->nnzb * sizeof(double), err));
  CL_TRY(d->alloc(d, &l, 36 * a->nnzb * sizeof(double), err));
  B->d_L = l;
  CL_TRY(d->alloc(d, &w, B->m * sizeof(double), err));
  B->d_w = w;
  const int n = (int)a->n, nnzb = (int)a->nnzb;
  int sizes[3];
  SPARSE_TRY(cusparseDbsric02_bufferSize(B->h, CUSPARSE_DIRECTION_ROW, n, nnzb, B->descr_a, B->d_L, B->d_rowptr,
                                         B->d_col, 6, B->info_ic, &sizes[0]), err);
  SPARSE_TRY(cusparseDbsrsv2_bufferSize(B->h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, n, nnzb,
                                        B->descr_l, B->d_L, B->d_rowptr, B->d_col, 6, B->info_l, &sizes[1]), err);
  SPARSE_TRY(cusparseDbsrsv2_bufferSize(B->h, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_TRANSPOSE, n, nnzb,
                                        B->descr_l, B->d_L, B->d_rowptr, B->d_col, 6, B->info_lt, &sizes[2]), err);
  int most = sizes[0] > sizes[1] ? sizes[0] : sizes[1];
  most = most > sizes[2] ? most : sizes[2];
  return d->alloc(d, &B->buffer, (size_t)most, err);
}

static void cusparse_close(bench *B) {
  cusparseDestroyBsrsv2Info(B->info_lt), cusparseDestroyBsrsv2Info(B->info_l);
  cusparseDestroyBsric02Info(B->info_ic);
  cusparseDestroyMatDescr(B->descr_l), cusparseDestroyMatDescr(B->descr_a);
  cusparseDestroy(B->h);
  B->dev->release(B->dev, B->buffer), B->dev->release(B->dev, B->d_w), B->dev->release(B->dev, B->d_L);
  B->dev->release(B->dev, B->d_val);
}
#endif

/* z = M^-1 r for the IC(0) preconditioners */
static cl_status ic_apply(bench *B, cl_dda_pcg_args *A, cl_error *err) {
#ifdef CLEAVE_HAVE_CUDA
  if (B->pc == PC_IC_CUSPARSE) return cusparse_apply(B, A, err);
#endif
  double *v = B->x; /* the host's work vector until the solve's end writes x */
  CL_TRY(vector_down(B, A->r, v, err));
  ic0_apply(B->a, B->L, v);
  return vector_up(B, A->z, v, err);
}

/* PCG with IC(0) by cleave's operations, as pcg.c's launches path runs them with its preconditioners:
 * the same start, iteration and device stopping rule, the host looking every CL_DDA_PCG_CHECK_EVERY. */
static cl_status ic_pcg(bench *B, cl_error *err) {
  cl_dda_pcg_args A = B->s.A;
  A.tol = B->tol, A.update_energy = 0, A.max_iterations = MAX_ITERATIONS;
  const size_t bytes = B->m * sizeof(double);
  CL_TRY(vector_up(B, A.b, B->b, err));
  CL_TRY(vector_up(B, A.x, B->zero, err));
  CL_TRY(op(B, &A, CL_DDA_OP_DOT_BB, err));
  A.parts = CL_DDA_WHOLE, A.in = A.x, A.out = A.q;
  CL_TRY(op(B, &A, CL_DDA_OP_SPMV, err));
  CL_TRY(op(B, &A, CL_DDA_OP_RESIDUAL, err)); /* r = b - A x */
  CL_TRY(ic_apply(B, &A, err));
  CL_TRY(B->dev->copy(B->dev, A.p, A.z, bytes, err));
  CL_TRY(op(B, &A, CL_DDA_OP_BEGIN, err));
  double sc[CL_DDA_SCALARS];
  for (;;) {
    CL_TRY(B->dev->to_host(B->dev, sc, A.scal, sizeof sc, err));
    if (!cl_dda_pcg_running(sc)) break;
    for (int k = 0; k < CL_DDA_PCG_CHECK_EVERY; k++) {
      A.in = A.p, A.out = A.q;
      CL_TRY(op(B, &A, CL_DDA_OP_SPMV, err)); /* q = A p */
      CL_TRY(op(B, &A, CL_DDA_OP_ALPHA, err));
      CL_TRY(op(B, &A, CL_DDA_OP_STEP, err)); /* x += alpha p, r -= alpha q */
      CL_TRY(ic_apply(B, &A, err));
      CL_TRY(op(B, &A, CL_DDA_OP_BETA, err));
      CL_TRY(op(B, &A, CL_DDA_OP_DIRECTION, err)); /* p = z + beta p */
    }
  }
  B->res.iterations = (int)sc[CL_DDA_S_ITERATIONS];
  B->res.converged = cl_dda_pcg_converged(sc);
  B->res.residual = sqrt(sc[CL_DDA_S_RR] / sc[CL_DDA_S_BB]);
  return vector_down(B, A.x, B->x, err);
}

static cl_status setup(void *data, cl_error *err) {
  bench *B = data;
  if (B->pc == PC_JACOBI || B->pc == PC_SSOR) return op(B, &B->s.A, CL_DDA_OP_FACTOR, err);
#ifdef CLEAVE_HAVE_CUDA
  if (B->pc == PC_IC_CUSPARSE) return cusparse_setup(B, err);
#endif
  B->bad_pivot = ic0_factor(B->a, B->shifted, B->L);
  return B->bad_pivot < 0 ? CL_OK
                          : cl_error_set(err, CL_ERR_ARG, "IC(0): the pivot block of row %ld is not positive "
                                         "definite", B->bad_pivot);
}

static cl_status solve(void *data, cl_error *err) {
  bench *B = data;
  if (B->pc == PC_JACOBI || B->pc == PC_SSOR)
    return cl_dda_pcg(&B->s, B->b, B->zero, B->x, B->pc == PC_JACOBI ? CL_DDA_BLOCK_JACOBI : CL_DDA_SSOR_AI, B->tol,
                      0, MAX_ITERATIONS, &B->res, err);
  return ic_pcg(B, err);
}

/* |b - A x| / |b| by a plain product of the host BSR */
static double true_residual(const cl_dda_bsr *a, const double *b, const double *x) {
  double rr = 0, bb = 0;
  for (size_t i = 0; i < a->n; i++)
    for (int r = 0; r < 6; r++) {
      double s = b[6 * i + r];
      for (int32_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++)
        for (int c = 0; c < 6; c++) s -= a->val[36 * (size_t)p + 6 * r + c] * x[6 * (size_t)a->col[p] + c];
      rr += s * s, bb += b[6 * i + r] * b[6 * i + r];
    }
  return sqrt(rr / bb);
}

int main(int argc, char **argv) {
  const char *devname = argc > 1 ? argv[1] : "cpu";
  /* a number of blocks, or the path of a dump (which then gives n; base, width and inertia unused) */
  const char *dump = argc > 2 && strspn(argv[2], "0123456789.e+") != strlen(argv[2]) ? argv[2] : NULL;
  size_t n = argc > 2 && !dump ? (size_t)strtod(argv[2], NULL) : 4361;
  int runs = argc > 3 ? atoi(argv[3]) : 3;
  long base = argc > 4 ? atol(argv[4]) : 190;
  size_t width = argc > 5 && atol(argv[5]) > 0 ? (size_t)atol(argv[5]) : (size_t)ceil(sqrt((double)n));
  double inertia = argc > 6 ? strtod(argv[6], NULL) : 1e-3;
  int check = argc > 7 && strcmp(argv[7], "check") == 0;
  int chain = width == n && base == 0; /* a block tridiagonal matrix: IC(0) drops no fill */
  if ((strcmp(devname, "cpu") && strcmp(devname, "cuda")) || n < 2 || runs < 1 || base < 0 || (size_t)base >= n ||
      width > n || !(inertia > 0) || (argc > 7 && !check)) {
    fprintf(stderr, "usage: dda_precond [cpu|cuda] [blocks >= 2 | dump file] [runs >= 1] [base: 0 .. blocks - 1] "
                    "[width: 1 .. blocks, 0: ceil(sqrt(blocks))] [inertia > 0] [check]\n");
    return 2;
  }
  cl_error err;
  cl_device dev;
  if (cl_device_open(&dev, devname, &err) != CL_OK) return fail("device", &err);
  cl_device_info info;
  if (dev.info(&dev, &info, &err) != CL_OK) return fail("device info", &err);
  cl_dda_bsr a = {0};
  double *b = NULL;
  if (dump) {
    if (read_dump(dump, &a, &b, &err) != CL_OK) return cl_device_close(&dev), fail("dump", &err);
    n = a.n, chain = 0;
  } else if (cl_dda_random_jointed_pattern(&a, n, width, (size_t)base, &err) != CL_OK ||
             cl_dda_random_jointed_values(&a, width, (size_t)base, inertia, &seed, &err) != CL_OK) {
    return fail("matrix", &err);
  }
  bench B = {.dev = &dev, .a = &a, .n = n, .m = 6 * n};
  if (!dump && (b = malloc(B.m * sizeof *b)))
    for (size_t k = 0; k < B.m; k++) b[k] = cl_dda_random_uniform(&seed, -1, 1);
  B.x = malloc(B.m * sizeof *B.x), B.zero = calloc(B.m, sizeof *B.zero), B.soa = malloc(B.m * sizeof *B.soa);
  B.L = malloc(36 * a.nnzb * sizeof *B.L), B.shifted = malloc(36 * a.nnzb * sizeof *B.shifted);
  if (!b || !B.x || !B.zero || !B.soa || !B.L || !B.shifted) return fprintf(stderr, "dda_precond: out of memory\n"), 2;
  if ((B.shift = ic0_shift(&a, B.shifted, B.L)) < 0)
    return fprintf(stderr, "dda_precond: IC(0) breaks down on A + alpha diag(A) for every alpha up to 1e3\n"), 2;
  B.b = b;
  cl_dda_solver_init(&B.s, &dev, CL_DDA_BSR);
  if (cl_dda_solver_load(&B.s, &a, &err) != CL_OK) return fail("load", &err);
  int npc = PC_IC_HOST + 1;
#ifdef CLEAVE_HAVE_CUDA
  if (dev.kind == CL_BACKEND_CUDA) {
    if (cusparse_open(&B, &err) != CL_OK) return fail("cuSPARSE", &err);
    npc = PC_COUNT;
  }
#endif
  int32_t longest = 0;
  for (size_t i = 0; i < n; i++)
    if (a.rowptr[i + 1] - a.rowptr[i] > longest) longest = a.rowptr[i + 1] - a.rowptr[i];
  if (dump)
    printf("DDA preconditioners on %s: %s (the model's system, CLEAVE_DDA_DUMP): %zu block rows", info.name, dump, n);
  else
    printf("DDA preconditioners on %s: %zu block rows (width %zu, inertia %g)", info.name, n, width, inertia);
  printf(", %zu upper blocks, the longest row %d blocks, f64, x0 = 0, median of %d; IC(0) of A + %g diag(A)\n",
         (a.nnzb - n) / 2, (int)longest, runs, B.shift);
  printf("%-15s %6s %10s %10s %12s %10s %12s\n", "preconditioner", "tol", "iterations", "setup ms", "ms/iteration",
         "solve ms", "|b-Ax|/|b|");
  int bad = 0;
  const double tols[2] = {1e-8, 1e-12};
  for (int t = 0; t < 2; t++) {
    int iterations[PC_COUNT] = {0};
    for (int pc = 0; pc < npc; pc++) {
      B.pc = (precond)pc, B.tol = tols[t];
      double setup_ms, solve_ms;
      if (bench_time_median(&dev, setup, &B, runs, &setup_ms, &err) != CL_OK) return fail(pc_names[pc], &err);
      if (bench_time_median(&dev, solve, &B, runs, &solve_ms, &err) != CL_OK) return fail(pc_names[pc], &err);
      double r = true_residual(&a, b, B.x);
      iterations[pc] = B.res.iterations;
      printf("%-15s %6.0e %10d %10.3f %12.4f %10.2f %12.3g\n", pc_names[pc], tols[t], B.res.iterations, setup_ms,
             solve_ms / (B.res.iterations > 0 ? B.res.iterations : 1), solve_ms, r);
      if (!B.res.converged || !(r <= 10 * tols[t])) {
        fprintf(stderr, "dda_precond: %s, tol %g: %s, residual %.3g\n", pc_names[pc], tols[t],
                B.res.converged ? "converged" : "did not converge", r);
        bad = 1;
      }
    }
    if (npc == PC_COUNT) {
      int d = abs(iterations[PC_IC_CUSPARSE] - iterations[PC_IC_HOST]);
      if (d > 3 && d > 0.02 * iterations[PC_IC_HOST]) {
        fprintf(stderr, "dda_precond: tol %g: IC(0) takes %d iterations by cuSPARSE, %d on the host\n", tols[t],
                iterations[PC_IC_CUSPARSE], iterations[PC_IC_HOST]);
        bad = 1;
      }
    }
    if (check && !(iterations[PC_IC_HOST] < iterations[PC_JACOBI])) {
      fprintf(stderr, "dda_precond: tol %g: IC(0) %d iterations, not fewer than block Jacobi's %d\n", tols[t],
              iterations[PC_IC_HOST], iterations[PC_JACOBI]);
      bad = 1;
    }
    if (check && chain && !(B.shift == 0 && iterations[PC_IC_HOST] <= 2)) {
      fprintf(stderr, "dda_precond: tol %g: IC(0) of a chain (shift %g) is its Cholesky factor, but PCG took %d "
              "iterations, not 1 (2 with round-off)\n", tols[t], B.shift, iterations[PC_IC_HOST]);
      bad = 1;
    }
  }
#ifdef CLEAVE_HAVE_CUDA
  if (dev.kind == CL_BACKEND_CUDA) cusparse_close(&B);
#endif
  cl_dda_solver_free(&B.s);
  free(b), free(B.x), free(B.zero), free(B.soa), free(B.L), free(B.shifted);
  cl_dda_bsr_free(&a);
  cl_device_close(&dev);
  return bad;
}
