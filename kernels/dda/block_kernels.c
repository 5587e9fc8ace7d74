/* Dispatch of the per-block DDA kernels to the cpu loops or the cuda launchers. */
#include "block_kernels.h"

#include "../dispatch.h"

static cl_status check_type(cl_dtype t, cl_error *err) {
  if (t == CL_F32 || t == CL_F64) return CL_OK;
  return cl_error_set(err, CL_ERR_ARG, "DDA block arrays must be f32 or f64 (got %s)", cl_dtype_name(t));
}

cl_status cl_k_dda_diagonal(cl_device *d, cl_dtype t, const cl_dda_block_args *a, cl_error *err) {
  CL_TRY(check_type(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_dda_diagonal_cpu_f32 : cl_dda_diagonal_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_dda_diagonal_cuda_f32(a)) : CL_CUDA_CALL(cl_dda_diagonal_cuda_f64(a));
  return cl_k_check_launch(d, code, "dda_diagonal", err);
}

cl_status cl_k_dda_update(cl_device *d, cl_dtype t, const cl_dda_block_args *a, cl_error *err) {
  CL_TRY(check_type(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_dda_update_cpu_f32 : cl_dda_update_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_dda_update_cuda_f32(a)) : CL_CUDA_CALL(cl_dda_update_cuda_f64(a));
  return cl_k_check_launch(d, code, "dda_update", err);
}

cl_status cl_k_dda_predict(cl_device *d, cl_dtype t, const cl_dda_block_args *a, cl_error *err) {
  CL_TRY(check_type(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_dda_predict_cpu_f32 : cl_dda_predict_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_dda_predict_cuda_f32(a)) : CL_CUDA_CALL(cl_dda_predict_cuda_f64(a));
  return cl_k_check_launch(d, code, "dda_predict", err);
}

cl_status cl_k_dda_check(cl_device *d, cl_dtype t, const cl_dda_block_args *a, cl_error *err) {
  CL_TRY(check_type(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_dda_check_cpu_f32 : cl_dda_check_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_dda_check_cuda_f32(a)) : CL_CUDA_CALL(cl_dda_check_cuda_f64(a));
  return cl_k_check_launch(d, code, "dda_check", err);
}
