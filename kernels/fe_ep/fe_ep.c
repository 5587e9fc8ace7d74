/* Dispatch of the quasi-static FE operations to the cpu loops or cuda launches. */
#include "fe_ep.h"

#include "../dispatch.h"

static const char *const op_names[] = {"fe_ep_forces", "fe_ep_forces_tangent", "fe_ep_elastic_tangent",
                                       "fe_ep_gather_forces", "fe_ep_gather_tangent", "fe_ep_constrain",
                                       "fe_ep_cg_precondition", "fe_ep_cg_step", "fe_ep_cg_direction",
                                       "fe_ep_permute"};

cl_status cl_k_fe_ep(cl_device *d, cl_dtype t, const cl_fe_ep_args *A, cl_fe_ep_op op, cl_error *err) {
  if (t != CL_F32 && t != CL_F64)
    return cl_error_set(err, CL_ERR_ARG, "quasi-static FE fields must be f32 or f64 (got %s)", cl_dtype_name(t));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_fe_ep_run_cpu_f32 : cl_fe_ep_run_cpu_f64)(A, (int)op);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_fe_ep_run_cuda_f32(A, (int)op)) : CL_CUDA_CALL(cl_fe_ep_run_cuda_f64(A, (int)op));
  return cl_k_check_launch(d, code, op_names[op], err);
}

cl_status cl_k_fe_ep_mg(cl_device *d, cl_dtype t, const cl_fe_ep_mg_args *A, cl_fe_ep_mg_op op, cl_error *err) {
  if (t != CL_F32 && t != CL_F64)
    return cl_error_set(err, CL_ERR_ARG, "quasi-static FE fields must be f32 or f64 (got %s)", cl_dtype_name(t));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_fe_ep_mg_run_cpu_f32 : cl_fe_ep_mg_run_cpu_f64)(A, (int)op);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_fe_ep_mg_run_cuda_f32(A, (int)op)) : CL_CUDA_CALL(cl_fe_ep_mg_run_cuda_f64(A, (int)op));
  return cl_k_check_launch(d, code, op == CL_FE_EP_MG_CSR ? "fe_ep_mg_csr" : "fe_ep_mg_smooth", err);
}
