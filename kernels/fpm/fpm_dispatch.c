/* Dispatch of the finite particle method's kernels to the CPU loops or the CUDA launches. */
#include "fpm_dispatch.h"

#include "../../jit/jit.h"
#include "../dispatch.h"

static cl_status real_only(cl_dtype t, cl_error *err) {
  if (t == CL_F32 || t == CL_F64) return CL_OK;
  return cl_error_set(err, CL_ERR_ARG, "finite particle fields must be f32 or f64 (got %s)", cl_dtype_name(t));
}

cl_status cl_k_fpm_step(cl_device *d, cl_dtype t, const cl_fpm_particle_args *a, cl_error *err) {
  CL_TRY(real_only(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_fpm_step_cpu_f32 : cl_fpm_step_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_fpm_step_cuda_f32(a)) : CL_CUDA_CALL(cl_fpm_step_cuda_f64(a));
  return cl_k_check_launch(d, code, "fpm_step", err);
}

cl_status cl_k_fpm_beam(cl_device *d, cl_dtype t, const cl_fpm_beam_args *a, cl_error *err) {
  CL_TRY(real_only(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_fpm_beam_cpu_f32 : cl_fpm_beam_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_fpm_beam_cuda_f32(a)) : CL_CUDA_CALL(cl_fpm_beam_cuda_f64(a));
  return cl_k_check_launch(d, code, "fpm_beam", err);
}

const char *const cl_fpm_shell_variant_names[CL_FPM_SHELL_VARIANTS + 1] = {"default", "lb128x3", "lb128x4",
                                                                          "lb256x2", NULL};

cl_status cl_k_fpm_shell(cl_device *d, cl_dtype t, cl_fpm_shell_variant variant, const cl_fpm_shell_args *a,
                         cl_error *err) {
  CL_TRY(real_only(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_fpm_shell_cpu_f32 : cl_fpm_shell_cpu_f64)(a);
    return CL_OK;
  }
  (void)variant; /* read by the CUDA launch only (CL_CUDA_CALL drops it without CUDA) */
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_fpm_shell_cuda_f32(a, variant))
                         : CL_CUDA_CALL(cl_fpm_shell_cuda_f64(a, variant));
  return cl_k_check_launch(d, code, "fpm_shell", err);
}

cl_status cl_k_fpm_pressure(cl_device *d, cl_dtype t, const cl_fpm_pressure_args *a, cl_error *err) {
  CL_TRY(real_only(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_fpm_pressure_cpu_f32 : cl_fpm_pressure_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_fpm_pressure_cuda_f32(a)) : CL_CUDA_CALL(cl_fpm_pressure_cuda_f64(a));
  return cl_k_check_launch(d, code, "fpm_pressure", err);
}

cl_status cl_k_fpm_gather(cl_device *d, cl_dtype t, const cl_fpm_gather_args *a, cl_error *err) {
  CL_TRY(real_only(t, err));
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_fpm_gather_cpu_f32 : cl_fpm_gather_cpu_f64)(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_fpm_gather_cuda_f32(a)) : CL_CUDA_CALL(cl_fpm_gather_cuda_f64(a));
  return cl_k_check_launch(d, code, "fpm_gather", err);
}

cl_status cl_k_fpm_hex(cl_device *d, void *entry, cl_fpm_hex_args *a, int lanes, unsigned block, cl_error *err) {
  /* the GPU's threads: `lanes` per element, as the module was built (CL_FPM_HEX_GPU_LANES, or 1 with
   * CL_FPM_HEX_ONE_THREAD; the CPU's entry loops over elements whatever they are), in blocks of
   * `block` (at most the module's launch bounds). The default, blocks of 3 warps of 8-lane elements:
   * at the 136 registers a thread of the built-in laws take (ptxas, sm_90) an SM holds 15 warps,
   * 5 such blocks, where blocks of 256 threads would fit one (8 warps) */
  return a->ne ? cl_jit_launch_threads(d, entry, a, a->ne * (size_t)lanes, block, "fpm hexahedra (stress_update law)",
                                       err)
               : CL_OK;
}
