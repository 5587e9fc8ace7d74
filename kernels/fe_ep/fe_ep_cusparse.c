/* The CG's CSR product (the multigrid's row kernel, fe_ep_mg_kernels.h) against cuSPARSE's generic
 * SpMV (cusparseSpMV, f64, the same CSR arrays with 32-bit indices) on a model's elastic stiffness:
 * issue 14 asks for cuSPARSE "where it is the right tool", and bench_fe.lua decides with this.
 * cuSPARSE is loaded with dlopen on first use, as cuSOLVER is (fe_ep_cusolver.c), so that the binary
 * starts where it is absent. */
#include "fe_ep_cusparse.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "fe_ep.h"

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#ifdef CLEAVE_HAVE_CUDA
#include <cuda_runtime.h>
#include <cusparse.h>
#include <dlfcn.h>

typedef struct cusparse_api {
  __typeof__(&cusparseCreate) create;
  __typeof__(&cusparseDestroy) destroy;
  __typeof__(&cusparseSetStream) set_stream;
  __typeof__(&cusparseCreateCsr) create_csr;
  __typeof__(&cusparseDestroySpMat) destroy_mat;
  __typeof__(&cusparseCreateDnVec) create_vec;
  __typeof__(&cusparseDestroyDnVec) destroy_vec;
  __typeof__(&cusparseSpMV_bufferSize) buffer_size;
  __typeof__(&cusparseSpMV) spmv;
} cusparse_api;

/* libcusparse stays loaded once opened, as NVRTC does (runtime/device_cuda.c) */
static cl_status load(cusparse_api *f, cl_error *err) {
  static const char *const names[] = {"libcusparse.so.12", "libcusparse.so"};
  void *lib = NULL;
  for (size_t i = 0; !lib && i < 2; i++) lib = dlopen(names[i], RTLD_LAZY | RTLD_LOCAL);
  if (!lib) return cl_error_set(err, CL_ERR_UNAVAILABLE, "fe: cuSPARSE (libcusparse.so) is not installed");
  struct { void **slot; const char *name; } fns[] = {
      {(void **)&f->create, "cusparseCreate"}, {(void **)&f->destroy, "cusparseDestroy"},
      {(void **)&f->set_stream, "cusparseSetStream"}, {(void **)&f->create_csr, "cusparseCreateCsr"},
      {(void **)&f->destroy_mat, "cusparseDestroySpMat"}, {(void **)&f->create_vec, "cusparseCreateDnVec"},
      {(void **)&f->destroy_vec, "cusparseDestroyDnVec"}, {(void **)&f->buffer_size, "cusparseSpMV_bufferSize"},
      {(void **)&f->spmv, "cusparseSpMV"}};
  for (size_t k = 0; k < sizeof fns / sizeof *fns; k++)
    if (!(*fns[k].slot = dlsym(lib, fns[k].name)))
      return cl_error_set(err, CL_ERR_UNAVAILABLE, "fe: this cuSPARSE lacks %s", fns[k].name);
  return CL_OK;
}

static cl_status check(cusparseStatus_t status, const char *call, cl_error *err) {
  if (status == CUSPARSE_STATUS_SUCCESS) return CL_OK;
  return cl_error_set(err, status == CUSPARSE_STATUS_ALLOC_FAILED ? CL_ERR_OOM : CL_ERR_DEVICE,
                      "fe: cuSPARSE's %s failed (status %d)", call, (int)status);
}

/* seconds per cusparseSpMV y = K x over reps after a warm-up, on the model's arrays */
static cl_status time_cusparse(cl_fe_ep_model *m, const void *x, void *y, int reps, double *out, cl_error *err) {
  cusparse_api f;
  CL_TRY(load(&f, err));
  const cl_fe_ep_args *A = &m->A;
  cusparseHandle_t h = NULL;
  cusparseSpMatDescr_t mat = NULL;
  cusparseDnVecDescr_t vx = NULL, vy = NULL;
  cl_field *work = NULL;
  const double one = 1, zero = 0;
  size_t bytes = 0;
  cl_status st = check(f.create(&h), "cusparseCreate", err);
  if (st == CL_OK) st = check(f.set_stream(h, cudaStreamPerThread), "cusparseSetStream", err);
  if (st == CL_OK)
    st = check(f.create_csr(&mat, (int64_t)A->ndof, (int64_t)A->ndof, (int64_t)A->nnz, (void *)A->rowptr, (void *)A->col,
                            A->kval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F),
               "cusparseCreateCsr", err);
  if (st == CL_OK) st = check(f.create_vec(&vx, (int64_t)A->ndof, (void *)x, CUDA_R_64F), "cusparseCreateDnVec", err);
  if (st == CL_OK) st = check(f.create_vec(&vy, (int64_t)A->ndof, y, CUDA_R_64F), "cusparseCreateDnVec", err);
  if (st == CL_OK)
    st = check(f.buffer_size(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy, CUDA_R_64F,
                             CUSPARSE_SPMV_ALG_DEFAULT, &bytes), "cusparseSpMV_bufferSize", err);
  if (st == CL_OK) st = cl_field_create(m->ref, CL_U8, bytes ? bytes : 1, 1, &work, err);
  double t0 = 0;
  for (int r = 0; st == CL_OK && r <= reps; r++) {
    if (r == 1 && (st = m->dev->synchronize(m->dev, err)) == CL_OK) t0 = seconds();
    if (st == CL_OK)
      st = check(f.spmv(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy, CUDA_R_64F,
                        CUSPARSE_SPMV_ALG_DEFAULT, cl_field_component(work, 0)), "cusparseSpMV", err);
  }
  if (st == CL_OK && (st = m->dev->synchronize(m->dev, err)) == CL_OK) *out = (seconds() - t0) / reps;
  if (vy) f.destroy_vec(vy);
  if (vx) f.destroy_vec(vx);
  if (mat) f.destroy_mat(mat);
  if (h) f.destroy(h);
  cl_field_destroy(work);
  return st;
}
#endif

cl_status cl_fe_ep_spmv_compare(cl_fe_ep_model *m, int reps, double *own, double *cusparse, double *diff,
                                cl_error *err) {
  const size_t n = m->ndof;
  *cusparse = *diff = NAN;
  double *x = malloc(sizeof *x * n), *y = malloc(sizeof *y * n), *yc = malloc(sizeof *yc * n);
  cl_status st = x && y && yc ? CL_OK : cl_error_set(err, CL_ERR_OOM, "fe: out of memory");
  for (size_t i = 0; st == CL_OK && i < n; i++) x[i] = 1 + (double)(i % 7) / 7; /* not an eigenvector */
  if (st == CL_OK) st = cl_fe_ep_elastic_stiffness(m, err);
  if (st == CL_OK) st = cl_field_upload(m->f[CL_FE_EP_F_CG_P], x, err);
  const void *xd = cl_field_component(m->f[CL_FE_EP_F_CG_P], 0);
  void *yd = cl_field_component(m->f[CL_FE_EP_F_CG_Q], 0);
  const cl_fe_ep_mg_args P = {.n = n, .rowptr = m->A.rowptr, .col = m->A.col, .val = m->A.kval, .in = xd, .out = yd,
                              .alpha = 1, .beta = 0};
  double t0 = 0;
  for (int r = 0; st == CL_OK && r <= reps; r++) {
    if (r == 1 && (st = m->dev->synchronize(m->dev, err)) == CL_OK) t0 = seconds();
    if (st == CL_OK) st = cl_k_fe_ep_mg(m->dev, CL_F64, &P, CL_FE_EP_MG_CSR, err);
  }
  if (st == CL_OK && (st = m->dev->synchronize(m->dev, err)) == CL_OK) *own = (seconds() - t0) / reps;
  cl_field_touch(m->f[CL_FE_EP_F_CG_Q]);
  if (st == CL_OK) st = cl_field_download(m->f[CL_FE_EP_F_CG_Q], y, err);
#ifdef CLEAVE_HAVE_CUDA
  if (st == CL_OK && m->dev->kind != CL_BACKEND_CPU) {
    st = time_cusparse(m, xd, yd, reps, cusparse, err);
    cl_field_touch(m->f[CL_FE_EP_F_CG_Q]);
    if (st == CL_OK) st = cl_field_download(m->f[CL_FE_EP_F_CG_Q], yc, err);
    double dmax = 0, ymax = 0;
    for (size_t i = 0; st == CL_OK && i < n; i++) dmax = fmax(dmax, fabs(yc[i] - y[i])), ymax = fmax(ymax, fabs(y[i]));
    if (st == CL_OK) *diff = dmax / ymax;
  }
#endif
  free(x), free(y), free(yc);
  return st;
}
