/* The quasi-static FE's sparse Cholesky on a CUDA device: cuSOLVER's low-level csrchol
 * (cusolverSp_LOWLEVEL_PREVIEW.h), loaded with dlopen on first use as NVRTC is, so that the binary
 * starts where libcusolver is absent. Steps, for the full symmetric CSR pattern of the model:
 *   once  symamd ordering P on the host (cusolverSpXcsrsymamdHost), the reordered pattern P A P^T
 *         and, per entry, its index in A (cusolverSpXcsrpermHost), uploaded; the symbolic
 *         analysis and the workspace on the device;
 *   each factorization   the constrained values gathered into the reordered order on the device
 *         (CL_FE_EP_PERMUTE), factored there; a zero pivot names the dof;
 *   each solve   b permuted on the host, solved on the device, x permuted back. */
#include "fe_ep_cusolver.h"

#include <stdlib.h>

#ifdef CLEAVE_HAVE_CUDA
#include <dlfcn.h>
#include <limits.h>

#include "fe_ep.h"
#include "fe_ep_pcg.h"

#include <cuda_runtime.h>
/* csrchol and the host reorderings are marked deprecated in favour of cuDSS, which the CUDA 13
 * toolkit cleave builds with does not ship; their declarations only give the types of the
 * functions looked up with dlsym below, so the warning is silenced for them alone. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <cusolverSp.h>
#include <cusolverSp_LOWLEVEL_PREVIEW.h>

typedef struct cusolver_api {
  __typeof__(&cusolverSpCreate) create;
  __typeof__(&cusolverSpDestroy) destroy;
  __typeof__(&cusolverSpSetStream) set_stream;
  __typeof__(&cusolverSpXcsrsymamdHost) symamd;
  __typeof__(&cusolverSpXcsrperm_bufferSizeHost) perm_size;
  __typeof__(&cusolverSpXcsrpermHost) perm;
  __typeof__(&cusolverSpCreateCsrcholInfo) create_info;
  __typeof__(&cusolverSpDestroyCsrcholInfo) destroy_info;
  __typeof__(&cusolverSpXcsrcholAnalysis) analysis;
  __typeof__(&cusolverSpDcsrcholBufferInfo) buffer_info;
  __typeof__(&cusolverSpDcsrcholFactor) factor;
  __typeof__(&cusolverSpDcsrcholZeroPivot) zero_pivot;
  __typeof__(&cusolverSpDcsrcholSolve) solve;
  __typeof__(&cusparseCreateMatDescr) create_descr;
  __typeof__(&cusparseDestroyMatDescr) destroy_descr;
} cusolver_api;
#pragma GCC diagnostic pop

struct cl_fe_ep_cusolver {
  cusolver_api f;
  cusolverSpHandle_t h;
  cusparseMatDescr_t descr; /* general, 0-based: the full symmetric matrix */
  csrcholInfo_t info;
  int n, nnz;
  int *perm;                /* host: row i of the reordered matrix is dof perm[i] */
  double *bh;               /* host: a permuted vector */
  cl_field *row, *col, *map, *val, *work, *b, *x; /* device: the reordered matrix, workspace, vectors */
};

/* libcusolver and libcusparse stay loaded once opened, as NVRTC does (runtime/device_cuda.c) */
static void *open_first(const char *const *names, size_t count) {
  void *lib = NULL;
  for (size_t i = 0; !lib && i < count; i++) lib = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
  return lib;
}

static cl_status load(cusolver_api *f, cl_error *err) {
  static const char *const solver_names[] = {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"};
  static const char *const sparse_names[] = {"libcusparse.so.12", "libcusparse.so"};
  void *solver = open_first(solver_names, 3), *sparse = open_first(sparse_names, 2);
  if (!solver || !sparse)
    return cl_error_set(err, CL_ERR_UNAVAILABLE, "fe: cuSOLVER (%s) is not installed: install the CUDA toolkit's "
                        "cuSOLVER and cuSPARSE, or solve with linear = \"pcg\"", solver ? "libcusparse.so" : "libcusolver.so");
  struct { void *lib; void **slot; const char *name; } fns[] = {
      {solver, (void **)&f->create, "cusolverSpCreate"}, {solver, (void **)&f->destroy, "cusolverSpDestroy"},
      {solver, (void **)&f->set_stream, "cusolverSpSetStream"},
      {solver, (void **)&f->symamd, "cusolverSpXcsrsymamdHost"},
      {solver, (void **)&f->perm_size, "cusolverSpXcsrperm_bufferSizeHost"},
      {solver, (void **)&f->perm, "cusolverSpXcsrpermHost"},
      {solver, (void **)&f->create_info, "cusolverSpCreateCsrcholInfo"},
      {solver, (void **)&f->destroy_info, "cusolverSpDestroyCsrcholInfo"},
      {solver, (void **)&f->analysis, "cusolverSpXcsrcholAnalysis"},
      {solver, (void **)&f->buffer_info, "cusolverSpDcsrcholBufferInfo"},
      {solver, (void **)&f->factor, "cusolverSpDcsrcholFactor"},
      {solver, (void **)&f->zero_pivot, "cusolverSpDcsrcholZeroPivot"},
      {solver, (void **)&f->solve, "cusolverSpDcsrcholSolve"},
      {sparse, (void **)&f->create_descr, "cusparseCreateMatDescr"},
      {sparse, (void **)&f->destroy_descr, "cusparseDestroyMatDescr"}};
  for (size_t k = 0; k < sizeof fns / sizeof *fns; k++)
    if (!(*fns[k].slot = dlsym(fns[k].lib, fns[k].name)))
      return cl_error_set(err, CL_ERR_UNAVAILABLE, "fe: this cuSOLVER lacks %s: solve with linear = \"pcg\"", fns[k].name);
  return CL_OK;
}

/* a cuSOLVER or cuSPARSE status (0: success) as a cleave status naming the call */
static cl_status check(int status, const char *call, cl_error *err) {
  if (status == 0) return CL_OK;
  return cl_error_set(err, status == CUSOLVER_STATUS_ALLOC_FAILED ? CL_ERR_OOM : CL_ERR_DEVICE,
                      "fe: cuSOLVER's %s failed (status %d)", call, status);
}

void cl_fe_ep_cusolver_free(cl_fe_ep_cusolver *s) {
  if (!s) return;
  if (s->info) s->f.destroy_info(s->info);
  if (s->descr) s->f.destroy_descr(s->descr);
  if (s->h) s->f.destroy(s->h);
  cl_field *fields[] = {s->row, s->col, s->map, s->val, s->work, s->b, s->x};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) cl_field_destroy(fields[i]);
  free(s->perm), free(s->bh);
  free(s);
}

/* each row's columns in increasing order (with their map entries), as csrchol reads them; csrperm
 * does not promise that */
static void sort_rows(int n, const int *row, int *col, int *map) {
  for (int r = 0; r < n; r++)
    for (int k = row[r] + 1; k < row[r + 1]; k++) {
      const int c = col[k], v = map[k];
      int j = k - 1;
      for (; j >= row[r] && col[j] > c; j--) col[j + 1] = col[j], map[j + 1] = map[j];
      col[j + 1] = c, map[j + 1] = v;
    }
}

/* The ordering, the reordered pattern on the device, the analysis and the workspace. */
static cl_status setup(cl_fe_ep_model *m, cl_fe_ep_cusolver *s, cl_error *err) {
  const size_t n = m->ndof, nnz = m->rowptr[n];
  if (nnz > INT_MAX)
    return cl_error_set(err, CL_ERR_ARG, "fe: %zu nonzeros exceed cuSOLVER's 32-bit indices: solve with linear = \"pcg\"",
                        nnz);
  s->n = (int)n, s->nnz = (int)nnz;
  CL_TRY(load(&s->f, err));
  CL_TRY(check(s->f.create(&s->h), "cusolverSpCreate", err));
  /* the element kernels run on the per-thread default stream: the factorization follows them there */
  CL_TRY(check(s->f.set_stream(s->h, cudaStreamPerThread), "cusolverSpSetStream", err));
  CL_TRY(check(s->f.create_descr(&s->descr), "cusparseCreateMatDescr", err));
  int *row = malloc(sizeof *row * (n + 1)), *col = malloc(sizeof *col * nnz), *map = malloc(sizeof *map * nnz);
  s->perm = malloc(sizeof *s->perm * n), s->bh = malloc(sizeof *s->bh * n);
  cl_status st = CL_OK;
  void *buf = NULL;
  if (!row || !col || !map || !s->perm || !s->bh) {
    st = cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the reordering");
    goto done;
  }
  for (size_t r = 0; r <= n; r++) row[r] = (int)m->rowptr[r];
  for (size_t k = 0; k < nnz; k++) col[k] = (int)m->col[k], map[k] = (int)k;
  if ((st = check(s->f.symamd(s->h, s->n, s->nnz, s->descr, row, col, s->perm), "cusolverSpXcsrsymamdHost", err)))
    goto done;
  size_t bytes = 0;
  if ((st = check(s->f.perm_size(s->h, s->n, s->n, s->nnz, s->descr, row, col, s->perm, s->perm, &bytes),
                  "cusolverSpXcsrperm_bufferSizeHost", err)))
    goto done;
  if (!(buf = malloc(bytes ? bytes : 1))) {
    st = cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the reordering");
    goto done;
  }
  if ((st = check(s->f.perm(s->h, s->n, s->n, s->nnz, s->descr, row, col, s->perm, s->perm, map, buf),
                  "cusolverSpXcsrpermHost", err)))
    goto done;
  sort_rows(s->n, row, col, map);
  const struct { cl_field **f; cl_dtype t; size_t len; const void *host; } fields[] = {
      {&s->row, CL_I32, n + 1, row}, {&s->col, CL_I32, nnz, col}, {&s->map, CL_I32, nnz, map},
      {&s->val, CL_F64, nnz, NULL}, {&s->b, CL_F64, n, NULL}, {&s->x, CL_F64, n, NULL}};
  for (size_t i = 0; i < sizeof fields / sizeof *fields && st == CL_OK; i++) {
    st = cl_field_create(m->ref, fields[i].t, fields[i].len, 1, fields[i].f, err);
    if (st == CL_OK && fields[i].host) st = cl_field_upload(*fields[i].f, fields[i].host, err);
  }
  if (st != CL_OK) goto done;
  const int *d_row = cl_field_component(s->row, 0), *d_col = cl_field_component(s->col, 0);
  if ((st = check(s->f.create_info(&s->info), "cusolverSpCreateCsrcholInfo", err))) goto done;
  if ((st = check(s->f.analysis(s->h, s->n, s->nnz, s->descr, d_row, d_col, s->info), "cusolverSpXcsrcholAnalysis",
                  err)))
    goto done;
  size_t internal = 0, work = 0;
  if ((st = check(s->f.buffer_info(s->h, s->n, s->nnz, s->descr, cl_field_component(s->val, 0), d_row, d_col, s->info,
                                   &internal, &work), "cusolverSpDcsrcholBufferInfo", err)))
    goto done;
  st = cl_field_create(m->ref, CL_U8, work ? work : 1, 1, &s->work, err);
done:
  free(row), free(col), free(map), free(buf);
  return st;
}

cl_status cl_fe_ep_cusolver_factor(cl_fe_ep_model *m, size_t *bad_row, cl_error *err) {
  if (!m->device_solver) {
    cl_fe_ep_cusolver *s = calloc(1, sizeof *s);
    if (!s) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the device factorization");
    cl_status st = setup(m, s, err);
    if (st != CL_OK) {
      cl_fe_ep_cusolver_free(s);
      return st;
    }
    m->device_solver = s;
  }
  cl_fe_ep_cusolver *s = m->device_solver;
  CL_TRY(cl_fe_ep_pcg_prepare(m, err)); /* constrained rows and columns of kval become the identity's */
  m->A.perm_map = cl_field_component(s->map, 0), m->A.perm_val = cl_field_component(s->val, 0);
  CL_TRY(cl_k_fe_ep(m->dev, CL_F64, &m->A, CL_FE_EP_PERMUTE, err));
  CL_TRY(check(s->f.factor(s->h, s->n, s->nnz, s->descr, cl_field_component(s->val, 0), cl_field_component(s->row, 0),
                           cl_field_component(s->col, 0), s->info, cl_field_component(s->work, 0)),
               "cusolverSpDcsrcholFactor", err));
  int position = -1; /* the first pivot that is not positive (tolerance 0: the stiffness's own scale is E) */
  CL_TRY(check(s->f.zero_pivot(s->h, s->info, 0, &position), "cusolverSpDcsrcholZeroPivot", err));
  if (position >= 0) {
    *bad_row = (size_t)s->perm[position];
    return cl_error_set(err, CL_ERR_ARG, "the matrix is not positive definite");
  }
  return CL_OK;
}

cl_status cl_fe_ep_cusolver_solve(cl_fe_ep_model *m, const double *b, double *x, cl_error *err) {
  cl_fe_ep_cusolver *s = m->device_solver;
  for (int i = 0; i < s->n; i++) s->bh[i] = b[s->perm[i]];
  CL_TRY(cl_field_upload(s->b, s->bh, err));
  CL_TRY(check(s->f.solve(s->h, s->n, cl_field_component(s->b, 0), cl_field_component(s->x, 0), s->info,
                          cl_field_component(s->work, 0)), "cusolverSpDcsrcholSolve", err));
  cl_field_touch(s->x);
  CL_TRY(cl_field_download(s->x, s->bh, err));
  for (int i = 0; i < s->n; i++) x[s->perm[i]] = s->bh[i];
  return CL_OK;
}

#else /* a build without CUDA has no CUDA device to factor on */

cl_status cl_fe_ep_cusolver_factor(cl_fe_ep_model *m, size_t *bad_row, cl_error *err) {
  (void)m, (void)bad_row;
  return cl_error_set(err, CL_ERR_UNAVAILABLE, "fe: this cleave was built without CUDA");
}

cl_status cl_fe_ep_cusolver_solve(cl_fe_ep_model *m, const double *b, double *x, cl_error *err) {
  (void)m, (void)b, (void)x;
  return cl_error_set(err, CL_ERR_UNAVAILABLE, "fe: this cleave was built without CUDA");
}

void cl_fe_ep_cusolver_free(cl_fe_ep_cusolver *s) { (void)s; }

#endif
