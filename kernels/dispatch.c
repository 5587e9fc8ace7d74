#include "dispatch.h"

#include <stdlib.h>

#include "backend.h"


cl_status cl_k_check_launch(cl_device *d, int code, const char *kernel, cl_error *err) {
  if (code == 0 && cl_cuda_sync_each_launch()) {
    cl_error sync_err;
    if (d->synchronize(d, &sync_err) != CL_OK)
      return cl_error_set(err, CL_ERR_DEVICE, "cuda kernel '%s' failed: %s", kernel, sync_err.msg);
  }
  if (code == 0) return CL_OK;
  return cl_error_set(err, CL_ERR_DEVICE, "cuda kernel '%s' failed to launch: %s", kernel,
                      cl_cuda_error_text(code));
}

static cl_status require_real(cl_dtype t, const char *kernel, cl_error *err) {
  if (t == CL_F32 || t == CL_F64) return CL_OK;
  return cl_error_set(err, CL_ERR_ARG, "kernel '%s' needs f32 or f64 fields (got %s)", kernel,
                      cl_dtype_name(t));
}

/* Calls name_cpu_{f32,f64} or name_cuda_{f32,f64} with the argument list. */
#define DISPATCH_REAL(d, t, name, err, args)                                          \
  do {                                                                                \
    CL_TRY(require_real(t, #name, err));                                              \
    if ((d)->kind == CL_BACKEND_CPU) {                                                \
      if ((t) == CL_F32) cl_##name##_cpu_f32 args;                                    \
      else cl_##name##_cpu_f64 args;                                                  \
      return CL_OK;                                                                   \
    }                                                                                 \
    int code_ = (t) == CL_F32 ? CL_CUDA_CALL(cl_##name##_cuda_f32 args)                 \
                              : CL_CUDA_CALL(cl_##name##_cuda_f64 args);                 \
    return cl_k_check_launch(d, code_, #name, err);                                        \
  } while (0)

cl_status cl_k_reduce_scratch(cl_device *d, double **scratch, cl_error *err) {
  if (!d->scratch) CL_TRY(d->alloc(d, &d->scratch, CL_REDUCE_SCRATCH_DOUBLES * sizeof(double), err));
  *scratch = d->scratch;
  return CL_OK;
}

cl_status cl_k_fill(cl_device *d, cl_dtype t, void *data, size_t count, double value,
                    cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
    cl_fill_cpu(t, data, count, value);
    return CL_OK;
  }
  return cl_k_check_launch(d, CL_CUDA_CALL(cl_fill_cuda(t, data, count, value)), "fill", err);
}

cl_status cl_k_reduce(cl_device *d, cl_dtype t, const void *data, size_t count, int op,
                      double *out, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
    cl_reduce_cpu(t, data, count, op, out);
    return CL_OK;
  }
  double *scratch;
  CL_TRY(cl_k_reduce_scratch(d, &scratch, err));
  return cl_k_check_launch(d, CL_CUDA_CALL(cl_reduce_cuda(t, data, count, op, scratch, out)), "reduce", err);
}

cl_status cl_k_reduce_many(cl_device *d, int count, const double *const *data, const size_t *n, const int *op,
                           double *out, cl_error *err) {
  if (count < 0 || count > CL_REDUCE_MANY_MAX)
    return cl_error_set(err, CL_ERR_ARG, "reduce_many: %d reductions asked, at most %d", count, CL_REDUCE_MANY_MAX);
  if (d->kind == CL_BACKEND_CPU) {
    for (int k = 0; k < count; k++) cl_reduce_cpu(CL_F64, data[k], n[k], op[k], &out[k]);
    return CL_OK;
  }
  double *scratch;
  CL_TRY(cl_k_reduce_scratch(d, &scratch, err));
  return cl_k_check_launch(d, CL_CUDA_CALL(cl_reduce_many_cuda(count, data, n, op, scratch, out)), "reduce_many", err);
}

cl_status cl_k_axpy(cl_device *d, cl_dtype t, size_t count, double a, const void *x, void *y,
                    cl_error *err) {
  DISPATCH_REAL(d, t, axpy, err, (count, a, x, y));
}

cl_status cl_k_dot(cl_device *d, cl_dtype t, size_t count, const void *x, const void *y,
                   double *out, cl_error *err) {
  double *scratch = NULL;
  if (d->kind == CL_BACKEND_CUDA) CL_TRY(cl_k_reduce_scratch(d, &scratch, err));
  DISPATCH_REAL(d, t, dot, err, (count, x, y, scratch, out));
}

cl_status cl_k_verlet_kick_drift(cl_device *d, cl_dtype t, size_t count, void *u, void *v,
                                 const void *a, double dt, cl_error *err) {
  DISPATCH_REAL(d, t, verlet_kick_drift, err, (count, u, v, a, dt));
}

cl_status cl_k_verlet_kick(cl_device *d, cl_dtype t, size_t count, void *v, const void *a,
                           double dt, cl_error *err) {
  DISPATCH_REAL(d, t, verlet_kick, err, (count, v, a, dt));
}

cl_status cl_k_wave2d_accel(cl_device *d, cl_dtype t, size_t nx, size_t ny, const void *u,
                            void *a, double c2_over_dx2, cl_error *err) {
  DISPATCH_REAL(d, t, wave2d_accel, err, (nx, ny, u, a, c2_over_dx2));
}

cl_status cl_k_set_rows(cl_device *d, cl_dtype t, void *field, size_t n, int component,
                        const uint32_t *rows, size_t count, double value, int add, cl_error *err) {
  DISPATCH_REAL(d, t, set_rows, err, (field, n, component, rows, count, value, add));
}
