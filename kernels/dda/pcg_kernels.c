/* Dispatch of the DDA solver's operations to the cpu loops or the cuda launchers. */
#include "pcg_kernels.h"

#include "../dispatch.h"

static cl_status check_type(cl_dtype t, cl_error *err) {
  if (t == CL_F32 || t == CL_F64) return CL_OK;
  return cl_error_set(err, CL_ERR_ARG, "DDA solver arrays must be f32 or f64 (got %s)", cl_dtype_name(t));
}

cl_status cl_k_dda_pcg(cl_device *d, cl_dtype t, const cl_dda_pcg_args *A, int op, cl_error *err) {
  CL_TRY(check_type(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_dda_pcg_cpu_f32 : cl_dda_pcg_cpu_f64)(A, op);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_dda_pcg_cuda_f32(A, op)) : CL_CUDA_CALL(cl_dda_pcg_cuda_f64(A, op));
  return cl_k_check_launch(d, code, "dda_pcg", err);
}

cl_status cl_k_dda_pcg_persistent(cl_device *d, cl_dtype t, const cl_dda_pcg_args *A, int kind, int rule, int *ran,
                                  cl_error *err) {
  *ran = 0;
  CL_TRY(check_type(t, err));
  if (d->kind == CL_BACKEND_CPU) return CL_OK;
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_dda_pcg_persistent_cuda_f32(A, kind, rule))
                         : CL_CUDA_CALL(cl_dda_pcg_persistent_cuda_f64(A, kind, rule));
  if (code == CL_DDA_NO_COOPERATIVE) return CL_OK;
  *ran = 1;
  return cl_k_check_launch(d, code, "dda_pcg_persistent", err);
}
