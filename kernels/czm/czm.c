/* Dispatch of the cohesive-FEM operations to the cpu loops or cuda launches. */
#include "czm_kernels.h"

#include "../dispatch.h"

static const char *const op_names[] = {"czm_force_start", "czm_force_finish", "czm_kick_drift_start",
                                       "czm_finish_kick", "czm_leapfrog", "czm_stress_zero",  "czm_kinetic",
                                       "czm_force",       "czm_mass",         "czm_stress",
                                       "czm_stiffness",   "czm_energy",       "czm_check",
                                       "czm_insert_count", "czm_insert_apply_block", "czm_insert"};

cl_status cl_k_czm(cl_device *d, cl_dtype t, const cl_czm_args *A, cl_czm_op op, void *out, cl_error *err) {
  if (t != CL_F32 && t != CL_F64)
    return cl_error_set(err, CL_ERR_ARG, "cohesive FEM fields must be f32 or f64 (got %s)", cl_dtype_name(t));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_czm_run_cpu_f32 : cl_czm_run_cpu_f64)(A, (int)op, out);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_czm_run_cuda_f32(A, (int)op, out))
                         : CL_CUDA_CALL(cl_czm_run_cuda_f64(A, (int)op, out));
  return cl_k_check_launch(d, code, op_names[op], err);
}
