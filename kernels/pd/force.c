/* Dispatch of the peridynamic kernels (step, dynamic relaxation) to the cpu loops or cuda launches. */
#include "force.h"

#include <math.h>

#include "../dispatch.h"

cl_status cl_k_pd_force(cl_device *d, cl_dtype t, const cl_pd_force_args *a, cl_pd_kernel kernel,
                        cl_error *err) {
  if (t != CL_F32 && t != CL_F64)
    return cl_error_set(err, CL_ERR_ARG, "peridynamic fields must be f32 or f64 (got %s)", cl_dtype_name(t));
  if (d->kind == CL_BACKEND_CPU) {
    if (t == CL_F32) cl_pd_force_cpu_f32(a);
    else cl_pd_force_cpu_f64(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_pd_force_cuda_f32(a, kernel))
                         : CL_CUDA_CALL(cl_pd_force_cuda_f64(a, kernel));
  return cl_k_check_launch(d, code, kernel == CL_PD_POINT ? "pd_force (point)" : "pd_force (group)", err);
}

/* Rayleigh's quotient of the local stiffness -> the damping coefficient c_n. */
static double adr_damping(double num, double den) { return num > 0 && den > 0 ? 2 * sqrt(num / den) : 0; }

cl_status cl_k_pd_adr(cl_device *d, cl_dtype t, size_t n, int dim, void *u, void *v, const void *f,
                      void *f_prev, const void *lambda, int first, double *damping, cl_error *err) {
  size_t count = n * (size_t)dim;
  double num = 0, den = 0;
  if (d->kind == CL_BACKEND_CPU) {
    if (!first) (t == CL_F32 ? cl_pd_adr_quotient_cpu_f32 : cl_pd_adr_quotient_cpu_f64)(count, n, u, v, f, f_prev, lambda, &num, &den);
    *damping = adr_damping(num, den);
    (t == CL_F32 ? cl_pd_adr_update_cpu_f32 : cl_pd_adr_update_cpu_f64)(count, n, u, v, f, f_prev, lambda, *damping, first);
    return CL_OK;
  }
  double *scratch;
  CL_TRY(cl_k_reduce_scratch(d, &scratch, err));
  if (!first) {
    int code = t == CL_F32 ? CL_CUDA_CALL(cl_pd_adr_quotient_cuda_f32(count, n, u, v, f, f_prev, lambda, scratch, &num, &den))
                           : CL_CUDA_CALL(cl_pd_adr_quotient_cuda_f64(count, n, u, v, f, f_prev, lambda, scratch, &num, &den));
    CL_TRY(cl_k_check_launch(d, code, "pd_adr_quotient", err));
  }
  *damping = adr_damping(num, den);
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_pd_adr_update_cuda_f32(count, n, u, v, f, f_prev, lambda, *damping, first))
                         : CL_CUDA_CALL(cl_pd_adr_update_cuda_f64(count, n, u, v, f, f_prev, lambda, *damping, first));
  return cl_k_check_launch(d, code, "pd_adr_update", err);
}
