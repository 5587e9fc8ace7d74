/* Multigrid preconditioner of the quasi-static FE (fe_ep_mg.h).
 *
 * Hierarchy. The generated meshes number their nodes on a structured grid of ni x nj nodes
 * (node i + ni j; wrap: the full ring, j periodic), the Lagrange nodes of order p included, so
 * that one rule coarsens both the order (a p = 2 grid's every other node is the p = 1 grid of the
 * same elements) and the mesh: each coarser grid has about half the nodes per direction, and the
 * prolongation P interpolates bilinearly in grid index space (coarse index = fine index x
 * (nic - 1) / (ni - 1)). The Table 1 meshes (nr = 2^(l+5) - 2 elements) do not halve exactly,
 * which index-space interpolation does not need: with Galerkin coarse matrices A_c = P^T A P any
 * full-rank P gives a convergent, symmetric V-cycle, and bilinear interpolation represents the
 * smooth modes the smoother leaves. Constrained dofs have empty rows of P (the correction
 * keeps them at zero); a coarse dof that only reaches constrained ones gets an identity row.
 *
 * Smoother: Chebyshev polynomials of degree 2 in D^-1 A on [lmax / 10, 1.1 lmax], lmax from a
 * power iteration on the device (Rayleigh quotients in the A inner product, which approach lmax
 * from below; 1.1 covers the remainder). The same polynomial before and after the coarse
 * correction keeps the V-cycle symmetric. Coarsest level (at most COARSE_MAX dofs): its dense
 * inverse, applied as a full CSR matrix. */
#include "fe_ep_mg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../dispatch.h"
#include "fe_ep.h"
#include "fe_ep_mg_kernels.h"

#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_max_threads(void) { return 1; }
static int omp_get_thread_num(void) { return 0; }
#endif

#define COARSE_MAX 200 /* dofs of the coarsest level, inverted densely on the host (n^3 / 2 flops) */
#define MAX_LEVELS 24
#define SMOOTH_DEGREE 2 /* degree 3 or 4 saves CG iterations but not work (measured: docs/methods) */
#define POWER_ITERATIONS 12
#define PARALLEL_MIN 65536 /* rows of a host product worth a parallel region (fe_ep_cpu.c says why) */

typedef struct csr { /* host */
  size_t n, m;       /* rows, columns */
  uint64_t *rp;
  uint32_t *col;
  double *val;
} csr;

typedef struct level {
  size_t n, ni, nj;   /* dofs; node grid */
  const uint32_t *rowptr, *col;
  const double *val, *dinv;
  double *x, *b, *r, *d;                   /* device vectors of n */
  const uint32_t *p_rp, *p_col, *r_rp, *r_col; /* to the next coarser level: P (n rows), R = P^T */
  const double *p_val, *r_val;
  double theta, delta;                     /* Chebyshev: centre and half-width of the interval */
} level;

#define FIELDS_PER_LEVEL 14 /* device arrays a level owns: r, d, x, b, dinv, and P, R, the coarser matrix (3 each) */
struct cl_fe_ep_mg {
  int nlev;
  level lev[MAX_LEVELS];
  cl_field *own[MAX_LEVELS * FIELDS_PER_LEVEL];
  int nown;
};

int cl_fe_ep_mg_levels(const cl_fe_ep_mg *g) { return g ? g->nlev : 0; }

void cl_fe_ep_mg_free(cl_fe_ep_mg *g) {
  if (!g) return;
  for (int i = 0; i < g->nown; i++) cl_field_destroy(g->own[i]);
  free(g);
}

static void csr_free(csr *a) { free(a->rp), free(a->col), free(a->val), memset(a, 0, sizeof *a); }

/* ---- host sparse algebra ---- */

/* C = A B. Rows in parallel; each row's columns in the order its products first reach them, so the
 * result does not depend on the threads. */
static int spgemm(const csr *A, const csr *B, csr *C) {
  memset(C, 0, sizeof *C);
  C->n = A->n, C->m = B->m;
  const size_t nt = (size_t)omp_get_max_threads(), m = B->m ? B->m : 1;
  size_t *mark = malloc(sizeof *mark * nt * m); /* per thread: the row that last reached a column / its position */
  C->rp = calloc(A->n + 1, sizeof *C->rp);
  if (!mark || !C->rp) return free(mark), 0;
  for (size_t c = 0; c < nt * m; c++) mark[c] = SIZE_MAX;
#pragma omp parallel if (A->n >= PARALLEL_MIN)
  {
    size_t *seen = mark + (size_t)omp_get_thread_num() * m;
#pragma omp for schedule(static)
    for (size_t i = 0; i < A->n; i++) {
      uint64_t cnt = 0;
      for (uint64_t k = A->rp[i]; k < A->rp[i + 1]; k++)
        for (uint64_t l = B->rp[A->col[k]]; l < B->rp[A->col[k] + 1]; l++)
          if (seen[B->col[l]] != i) seen[B->col[l]] = i, cnt++;
      C->rp[i + 1] = cnt;
    }
  }
  for (size_t i = 0; i < A->n; i++) C->rp[i + 1] += C->rp[i];
  C->col = malloc(sizeof *C->col * (C->rp[A->n] ? C->rp[A->n] : 1));
  C->val = malloc(sizeof *C->val * (C->rp[A->n] ? C->rp[A->n] : 1));
  if (!C->col || !C->val) return free(mark), 0;
  for (size_t c = 0; c < nt * m; c++) mark[c] = SIZE_MAX;
#pragma omp parallel if (A->n >= PARALLEL_MIN)
  {
    size_t *pos = mark + (size_t)omp_get_thread_num() * m;
#pragma omp for schedule(static)
    for (size_t i = 0; i < A->n; i++) {
      const uint64_t start = C->rp[i];
      uint64_t end = start;
      for (uint64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
        const double a = A->val[k];
        for (uint64_t l = B->rp[A->col[k]]; l < B->rp[A->col[k] + 1]; l++) {
          const uint32_t c = B->col[l];
          const size_t p = pos[c];
          if (p != SIZE_MAX && p >= start && p < end && C->col[p] == c) C->val[p] += a * B->val[l];
          else pos[c] = end, C->col[end] = c, C->val[end++] = a * B->val[l];
        }
      }
    }
  }
  free(mark);
  return 1;
}

static int transpose(const csr *A, csr *T) {
  memset(T, 0, sizeof *T);
  T->n = A->m, T->m = A->n;
  T->rp = calloc(A->m + 1, sizeof *T->rp);
  T->col = malloc(sizeof *T->col * (A->rp[A->n] ? A->rp[A->n] : 1));
  T->val = malloc(sizeof *T->val * (A->rp[A->n] ? A->rp[A->n] : 1));
  if (!T->rp || !T->col || !T->val) return 0;
  for (uint64_t k = 0; k < A->rp[A->n]; k++) T->rp[A->col[k] + 1]++;
  for (size_t i = 0; i < A->m; i++) T->rp[i + 1] += T->rp[i];
  for (size_t i = 0; i < A->n; i++)
    for (uint64_t k = A->rp[i]; k < A->rp[i + 1]; k++) {
      const uint64_t p = T->rp[A->col[k]]++;
      T->col[p] = (uint32_t)i, T->val[p] = A->val[k];
    }
  for (size_t i = A->m; i > 0; i--) T->rp[i] = T->rp[i - 1];
  T->rp[0] = 0;
  return 1;
}

/* The coarse grid's nodes along one direction of n fine ones: about half */
static size_t coarse_count(size_t n, int wrap) { return wrap ? (n + 1) / 2 : n / 2 + 1; }

/* Fine index i of n onto the coarse line of nc: the lower coarse index and the weight of the
 * next one (exact integer division: nodes that coincide get weight 0) */
static void locate(size_t i, size_t n, size_t nc, int wrap, size_t *i0, double *t) {
  const size_t num = wrap ? i * nc : i * (nc - 1), den = wrap ? n : n - 1;
  *i0 = num / den, *t = (double)(num % den) / (double)den;
}

/* P from the grid ni x nj (dofs: component c of node k at c nnodes + k) to its coarse grid; rows
 * of the dofs in skip (may be NULL) left empty */
static int prolongation(size_t ni, size_t nj, int wrap, const uint8_t *skip, csr *P, size_t *nic, size_t *njc) {
  const size_t nn = ni * nj, ci = coarse_count(ni, 0), cj = coarse_count(nj, wrap), nnc = ci * cj;
  *nic = ci, *njc = cj;
  memset(P, 0, sizeof *P);
  P->n = 2 * nn, P->m = 2 * nnc;
  P->rp = malloc(sizeof *P->rp * (P->n + 1));
  P->col = malloc(sizeof *P->col * 4 * P->n);
  P->val = malloc(sizeof *P->val * 4 * P->n);
  if (!P->rp || !P->col || !P->val) return 0;
  uint64_t k = 0;
  P->rp[0] = 0;
  for (int c = 0; c < 2; c++)
    for (size_t j = 0; j < nj; j++)
      for (size_t i = 0; i < ni; i++) {
        const size_t row = c * nn + i + ni * j;
        if (!skip || !skip[row]) {
          size_t i0, j0;
          double s, t;
          locate(i, ni, ci, 0, &i0, &s);
          locate(j, nj, cj, wrap, &j0, &t);
          for (int b = 0; b < 2; b++)
            for (int a = 0; a < 2; a++) {
              const double w = (a ? s : 1 - s) * (b ? t : 1 - t);
              if (w == 0) continue;
              const size_t jj = wrap ? (j0 + b) % cj : j0 + b;
              P->col[k] = (uint32_t)(c * nnc + i0 + a + ci * jj), P->val[k++] = w;
            }
        }
        P->rp[row + 1] = k;
      }
  return 1;
}

/* Dense inverse of the n x n SPD matrix A (CSR) into inv (row-major) by Cholesky; 0 when A is not
 * positive definite */
static int dense_inverse(const csr *A, double *inv) {
  const size_t n = A->n;
  double *L = calloc(n * n, sizeof *L);
  if (!L) return -1;
  for (size_t i = 0; i < n; i++)
    for (uint64_t k = A->rp[i]; k < A->rp[i + 1]; k++) L[i * n + A->col[k]] += A->val[k];
  for (size_t j = 0; j < n; j++) { /* L in the lower triangle, by columns */
    double d = L[j * n + j];
    for (size_t k = 0; k < j; k++) d -= L[j * n + k] * L[j * n + k];
    if (!(d > 0)) {
      free(L);
      return 0;
    }
    d = sqrt(d);
    L[j * n + j] = d;
    for (size_t i = j + 1; i < n; i++) {
      double v = L[i * n + j];
      for (size_t k = 0; k < j; k++) v -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = v / d;
    }
  }
  for (size_t i = 0; i < n; i++) /* L^T into the upper triangle, so that both sweeps read rows */
    for (size_t k = i + 1; k < n; k++) L[i * n + k] = L[k * n + i];
  for (size_t c = 0; c < n; c++) { /* column c of A^-1: L y = e_c, L^T x = y */
    double *x = inv + c * n; /* A^-1 is symmetric: its column c is its row c */
    for (size_t i = 0; i < c; i++) x[i] = 0;
    for (size_t i = c; i < n; i++) {
      double v = i == c ? 1 : 0;
      for (size_t k = c; k < i; k++) v -= L[i * n + k] * x[k];
      x[i] = v / L[i * n + i];
    }
    for (size_t i = n; i-- > 0;) {
      double v = x[i];
      for (size_t k = i + 1; k < n; k++) v -= L[i * n + k] * x[k];
      x[i] = v / L[i * n + i];
    }
  }
  free(L);
  return 1;
}

/* ---- device data ---- */

static cl_status own(cl_fe_ep_model *m, cl_fe_ep_mg *g, cl_dtype t, size_t n, const void *host, void **dev,
                     cl_error *err) {
  cl_field *f;
  CL_TRY(cl_field_create(m->ref, t, n ? n : 1, 1, &f, err));
  g->own[g->nown++] = f;
  if (host) CL_TRY(cl_field_upload(f, host, err));
  *dev = cl_field_component(f, 0);
  return CL_OK;
}

/* a host CSR onto the device (32-bit row pointers: every level is smaller than the finest) */
static cl_status upload_csr(cl_fe_ep_model *m, cl_fe_ep_mg *g, const csr *a, const uint32_t **rp,
                            const uint32_t **col, const double **val, cl_error *err) {
  uint32_t *rp32 = malloc(sizeof *rp32 * (a->n + 1));
  if (!rp32) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the multigrid");
  for (size_t i = 0; i <= a->n; i++) rp32[i] = (uint32_t)a->rp[i];
  cl_status st = own(m, g, CL_U32, a->n + 1, rp32, (void **)rp, err);
  free(rp32);
  CL_TRY(st);
  CL_TRY(own(m, g, CL_U32, a->rp[a->n], a->col, (void **)col, err));
  return own(m, g, CL_F64, a->rp[a->n], a->val, (void **)val, err);
}

static cl_status csr_op(cl_fe_ep_model *m, size_t n, const uint32_t *rp, const uint32_t *col, const double *val,
                        const double *in, double *out, double alpha, double beta, cl_error *err) {
  const cl_fe_ep_mg_args A = {.n = n, .rowptr = rp, .col = col, .val = val, .in = in, .out = out, .alpha = alpha,
                              .beta = beta};
  return cl_k_fe_ep_mg(m->dev, CL_F64, &A, CL_FE_EP_MG_CSR, err);
}

static cl_status smooth_op(cl_fe_ep_model *m, const level *L, double a, double c, int first, cl_error *err) {
  const cl_fe_ep_mg_args A = {.n = L->n, .dinv = L->dinv, .r = L->r, .d = L->d, .x = L->x, .a = a, .c = c,
                              .first = first};
  return cl_k_fe_ep_mg(m->dev, CL_F64, &A, CL_FE_EP_MG_SMOOTH, err);
}

/* lmax of D^-1 A by power iteration from a fixed pseudo-random start (v = d, A v into r, scratch x),
 * the Rayleigh quotient of the last step only: unnormalised, v grows by at most lmax (a few units)
 * per step, and a dot product per step would cost a parallel reduction each on the CPU */
static cl_status estimate_lmax(cl_fe_ep_model *m, level *L, double *lmax, cl_error *err) {
  double *v = malloc(sizeof *v * L->n);
  if (!v) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the multigrid");
  uint64_t s = 88172645463325252ull;
  for (size_t i = 0; i < L->n; i++) s ^= s << 13, s ^= s >> 7, s ^= s << 17, v[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
  cl_status st = m->dev->to_device(m->dev, L->d, v, sizeof *v * L->n, err);
  free(v);
  CL_TRY(st);
  double vw = 0, wz = 0;
  for (int it = 0; it < POWER_ITERATIONS; it++) {
    const int last = it == POWER_ITERATIONS - 1;
    CL_TRY(csr_op(m, L->n, L->rowptr, L->col, L->val, L->d, L->r, 1, 0, err));
    if (last) CL_TRY(cl_k_dot(m->dev, CL_F64, L->n, L->d, L->r, &vw, err));
    CL_TRY(smooth_op(m, L, 0, 1, 1, err)); /* d = D^-1 A v */
    if (last) CL_TRY(cl_k_dot(m->dev, CL_F64, L->n, L->r, L->d, &wz, err));
  }
  if (!(vw > 0 && wz > 0 && isfinite(wz)))
    return cl_error_set(err, CL_ERR_ARG, "fe: multigrid: a level's matrix is not positive definite");
  *lmax = wz / vw;
  return CL_OK;
}

/* the level's inverse diagonal (an empty or non-positive diagonal: an identity row) */
static cl_status diagonal(cl_fe_ep_model *m, cl_fe_ep_mg *g, csr *a, level *L, cl_error *err) {
  double *dinv = malloc(sizeof *dinv * (a->n ? a->n : 1));
  if (!dinv) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the multigrid");
  for (size_t i = 0; i < a->n; i++) {
    double d = 0;
    for (uint64_t k = a->rp[i]; k < a->rp[i + 1]; k++)
      if (a->col[k] == i) d = a->val[k];
    dinv[i] = d > 0 ? 1 / d : 1;
  }
  cl_status st = own(m, g, CL_F64, a->n, dinv, (void **)&L->dinv, err);
  free(dinv);
  return st;
}

/* a coarse matrix's rows that nothing reaches (P's column empty) become the identity's */
static int identity_rows(csr *a) {
  size_t extra = 0;
  for (size_t i = 0; i < a->n; i++) extra += a->rp[i + 1] == a->rp[i];
  if (!extra) return 1;
  csr b = {a->n, a->m, malloc(sizeof(uint64_t) * (a->n + 1)), malloc(sizeof(uint32_t) * (a->rp[a->n] + extra)),
           malloc(sizeof(double) * (a->rp[a->n] + extra))};
  if (!b.rp || !b.col || !b.val) return csr_free(&b), 0;
  uint64_t k = 0;
  b.rp[0] = 0;
  for (size_t i = 0; i < a->n; i++) {
    if (a->rp[i + 1] == a->rp[i]) b.col[k] = (uint32_t)i, b.val[k++] = 1;
    for (uint64_t l = a->rp[i]; l < a->rp[i + 1]; l++) b.col[k] = a->col[l], b.val[k++] = a->val[l];
    b.rp[i + 1] = k;
  }
  csr_free(a);
  *a = b;
  return 1;
}

cl_status cl_fe_ep_mg_setup(cl_fe_ep_model *m, cl_error *err) {
  if (!m->grid_ni)
    return cl_error_set(err, CL_ERR_ARG, "linear = \"mg\" needs a mesh of cl.fe.wellbore or cl.fe.rect (a structured "
                        "node grid); use linear = \"factor\" or \"pcg\" for this mesh");
  cl_fe_ep_mg_free(m->mg);
  m->mg = calloc(1, sizeof *m->mg);
  if (!m->mg) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the multigrid");
  cl_fe_ep_mg *g = m->mg;
  const size_t n0 = m->ndof;
  csr A = {n0, n0, m->rowptr, m->col, malloc(sizeof(double) * m->rowptr[n0])}, P = {0}, R = {0}, AP = {0}, Ac = {0};
  int own_a = 0; /* level 0's pattern is the model's; coarser ones are ours */
  cl_status st = CL_OK;
  if (!A.val) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the multigrid");
  if ((st = cl_field_download(m->f[CL_FE_EP_F_KVAL], A.val, err)) != CL_OK) goto done;
  level *L = &g->lev[0];
  L->n = n0, L->ni = m->grid_ni, L->nj = m->grid_nj;
  L->rowptr = cl_field_component(m->f[CL_FE_EP_F_ROWPTR], 0), L->col = cl_field_component(m->f[CL_FE_EP_F_COL], 0);
  L->val = cl_field_component(m->f[CL_FE_EP_F_KVAL], 0), L->dinv = cl_field_component(m->f[CL_FE_EP_F_CG_DINV], 0);
  g->nlev = 1;
  for (;;) {
    L = &g->lev[g->nlev - 1];
    if ((st = own(m, g, CL_F64, L->n, NULL, (void **)&L->r, err)) != CL_OK) goto done;
    if ((st = own(m, g, CL_F64, L->n, NULL, (void **)&L->d, err)) != CL_OK) goto done;
    if (g->nlev > 1) {
      if ((st = own(m, g, CL_F64, L->n, NULL, (void **)&L->x, err)) != CL_OK) goto done;
      if ((st = own(m, g, CL_F64, L->n, NULL, (void **)&L->b, err)) != CL_OK) goto done;
      if ((st = diagonal(m, g, &A, L, err)) != CL_OK) goto done;
    } else {
      L->x = cl_field_component(m->f[CL_FE_EP_F_CG_X], 0); /* scratch for the power iteration only */
    }
    const int last = L->n <= COARSE_MAX || L->ni < 5 || L->nj < 5 || g->nlev == MAX_LEVELS;
    if (last) {
      if (L->n > 4 * COARSE_MAX) { /* its dense inverse would take tens of seconds */
        st = cl_error_set(err, CL_ERR_ARG, "linear = \"mg\": the node grid (%zu x %zu) cannot be coarsened below %zu "
                          "dofs; use linear = \"factor\" or \"pcg\" for this mesh", L->ni, L->nj, L->n);
        goto done;
      }
      csr inv = {L->n, L->n, malloc(sizeof(uint64_t) * (L->n + 1)), malloc(sizeof(uint32_t) * L->n * L->n),
                 malloc(sizeof(double) * L->n * L->n)};
      const int ok = inv.rp && inv.col && inv.val ? dense_inverse(&A, inv.val) : -1;
      if (ok == 1) {
        for (size_t i = 0; i <= L->n; i++) inv.rp[i] = i * L->n;
        for (size_t i = 0; i < L->n * L->n; i++) inv.col[i] = (uint32_t)(i % L->n);
        const uint32_t *rp, *col;
        const double *val;
        st = upload_csr(m, g, &inv, &rp, &col, &val, err);
        L->rowptr = rp, L->col = col, L->val = val;
      } else {
        st = ok == 0 ? cl_error_set(err, CL_ERR_ARG, "the stiffness matrix is singular (the multigrid's coarsest "
                                    "level is not positive definite): fix more displacements (model:fix{})")
                     : cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the multigrid");
      }
      csr_free(&inv);
      goto done;
    }
    double lmax = 0;
    if ((st = estimate_lmax(m, L, &lmax, err)) != CL_OK) goto done;
    const double hi = 1.1 * lmax, lo = lmax / 10;
    L->theta = (hi + lo) / 2, L->delta = (hi - lo) / 2;
    /* the next coarser level: P, R = P^T, A_c = R (A P) */
    size_t nic, njc;
    const int wrap = m->grid_wrap;
    if (!prolongation(L->ni, L->nj, wrap, g->nlev == 1 ? m->fixed : NULL, &P, &nic, &njc) || !transpose(&P, &R) ||
        !spgemm(&A, &P, &AP) || !spgemm(&R, &AP, &Ac) || !identity_rows(&Ac)) {
      st = cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the multigrid");
      goto done;
    }
    if ((st = upload_csr(m, g, &P, &L->p_rp, &L->p_col, &L->p_val, err)) != CL_OK) goto done;
    if ((st = upload_csr(m, g, &R, &L->r_rp, &L->r_col, &L->r_val, err)) != CL_OK) goto done;
    level *C = &g->lev[g->nlev++];
    C->n = Ac.n, C->ni = nic, C->nj = njc;
    if ((st = upload_csr(m, g, &Ac, &C->rowptr, &C->col, &C->val, err)) != CL_OK) goto done;
    if (own_a) csr_free(&A);
    else free(A.val);
    A = Ac, own_a = 1;
    memset(&Ac, 0, sizeof Ac);
    csr_free(&P), csr_free(&R), csr_free(&AP);
  }
done:
  if (own_a) csr_free(&A);
  else free(A.val);
  csr_free(&P), csr_free(&R), csr_free(&AP), csr_free(&Ac);
  if (st != CL_OK) cl_fe_ep_mg_free(m->mg), m->mg = NULL;
  return st;
}

/* Chebyshev smoothing of L->x towards L->b (first: from x = 0, whatever x holds), r = b - A x kept up
 * to date (but after the last step when update_last is 0) */
static cl_status chebyshev(cl_fe_ep_model *m, const level *L, int first, int update_last, cl_error *err) {
  const double sigma = L->theta / L->delta;
  double rho = 1 / sigma;
  for (int k = 0; k < SMOOTH_DEGREE; k++) {
    if (k == 0) CL_TRY(smooth_op(m, L, 0, 1 / L->theta, first, err));
    else {
      const double rho_new = 1 / (2 * sigma - rho);
      CL_TRY(smooth_op(m, L, rho_new * rho, 2 * rho_new / L->delta, 0, err));
      rho = rho_new;
    }
    if (k < SMOOTH_DEGREE - 1 || update_last) CL_TRY(csr_op(m, L->n, L->rowptr, L->col, L->val, L->d, L->r, -1, 1, err));
  }
  return CL_OK;
}

static cl_status vcycle(cl_fe_ep_model *m, int l, cl_error *err) {
  const level *L = &m->mg->lev[l];
  if (l == m->mg->nlev - 1) return csr_op(m, L->n, L->rowptr, L->col, L->val, L->b, L->x, 1, 0, err);
  CL_TRY(m->dev->copy(m->dev, L->r, L->b, L->n * sizeof(double), err));
  CL_TRY(chebyshev(m, L, 1, 1, err));
  const level *C = &m->mg->lev[l + 1];
  CL_TRY(csr_op(m, C->n, L->r_rp, L->r_col, L->r_val, L->r, C->b, 1, 0, err));
  CL_TRY(vcycle(m, l + 1, err));
  CL_TRY(csr_op(m, L->n, L->p_rp, L->p_col, L->p_val, C->x, L->d, 1, 0, err)); /* d = P x_c */
  CL_TRY(smooth_op(m, L, 1, 0, 0, err));                                       /* x += d */
  CL_TRY(csr_op(m, L->n, L->rowptr, L->col, L->val, L->d, L->r, -1, 1, err));
  return chebyshev(m, L, 0, 0, err);
}

cl_status cl_fe_ep_mg_apply(cl_fe_ep_model *m, const void *r, void *z, cl_error *err) {
  level *L = &m->mg->lev[0];
  L->b = (double *)r, L->x = z;
  return vcycle(m, 0, err);
}
