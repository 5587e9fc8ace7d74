/* Dispatch of the per-contact DDA kernels outside the solve to the cpu loops or the cuda launchers. */
#include "contact_kernels.h"

#include "../dispatch.h"

static cl_status check_type(cl_dtype t, cl_error *err) {
  if (t == CL_F32 || t == CL_F64) return CL_OK;
  return cl_error_set(err, CL_ERR_ARG, "DDA contact arrays must be f32 or f64 (got %s)", cl_dtype_name(t));
}

cl_status cl_k_dda_contact_setup(cl_device *d, cl_dtype t, const cl_dda_setup_args *a, cl_error *err) {
  CL_TRY(check_type(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_dda_contact_setup_cpu_f32 : cl_dda_contact_setup_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_dda_contact_setup_cuda_f32(a)) : CL_CUDA_CALL(cl_dda_contact_setup_cuda_f64(a));
  return cl_k_check_launch(d, code, "dda_contact_setup", err);
}

cl_status cl_k_dda_account(cl_device *d, cl_dtype t, const cl_dda_account_args *a, cl_error *err) {
  CL_TRY(check_type(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_dda_account_cpu_f32 : cl_dda_account_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_dda_account_cuda_f32(a)) : CL_CUDA_CALL(cl_dda_account_cuda_f64(a));
  return cl_k_check_launch(d, code, "dda_account", err);
}

cl_status cl_k_dda_pattern(cl_device *d, const cl_dda_pattern_args *a, int pass, size_t items, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
    cl_dda_pattern_cpu_f64(a, pass, items);
    return CL_OK;
  }
  return cl_k_check_launch(d, CL_CUDA_CALL(cl_dda_pattern_cuda_f64(a, pass, items)), "dda_pattern", err);
}

cl_status cl_k_dda_transfer(cl_device *d, const cl_dda_transfer_args *a, int pass, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
    cl_dda_transfer_cpu_f64(a, pass);
    return CL_OK;
  }
  return cl_k_check_launch(d, CL_CUDA_CALL(cl_dda_transfer_cuda_f64(a, pass)), "dda_transfer", err);
}
