/* The finite particle method's kernels as runtime calls: the particle update (one pass), the
 * beam and shell forces and the gather assembly (precompiled, integrate.h, beam.h, shell.h, fpm.h) and the hexahedron forces (run-time compiled
 * around a stress_update law, hex.h). Each picks the CPU loop or the CUDA launch. */
#ifndef CL_FPM_DISPATCH_H
#define CL_FPM_DISPATCH_H

#include "fpm.h"

/* The shell kernel's GPU builds (fpm_cuda.cu): the unbounded one and three register budgets given by
 * __launch_bounds__(threads, blocks an SM); the CPU has one loop. cl_fpm_shell_variant_names: their
 * names in this order (cleave.fpm.kernel_variant). */
typedef enum cl_fpm_shell_variant {
  CL_FPM_SHELL_DEFAULT,
  CL_FPM_SHELL_LB128X3,
  CL_FPM_SHELL_LB128X4,
  CL_FPM_SHELL_LB256X2,
  CL_FPM_SHELL_VARIANTS
} cl_fpm_shell_variant;

#ifndef __CUDACC__
#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

/* the particle update (integrate.h) */
cl_status cl_k_fpm_step(cl_device *d, cl_dtype t, const cl_fpm_particle_args *a, cl_error *err);
cl_status cl_k_fpm_beam(cl_device *d, cl_dtype t, const cl_fpm_beam_args *a, cl_error *err);
extern const char *const cl_fpm_shell_variant_names[CL_FPM_SHELL_VARIANTS + 1];
cl_status cl_k_fpm_shell(cl_device *d, cl_dtype t, cl_fpm_shell_variant variant, const cl_fpm_shell_args *a,
                         cl_error *err);
cl_status cl_k_fpm_pressure(cl_device *d, cl_dtype t, const cl_fpm_pressure_args *a, cl_error *err);
cl_status cl_k_fpm_gather(cl_device *d, cl_dtype t, const cl_fpm_gather_args *a, cl_error *err);
/* entry: the hexahedron kernel of a compiled module (lua/cleave/jit.lua, law:fpm_hex_module), run on
 * a GPU as `lanes` threads per element (the module's build: 8, or 1) in blocks of `block` threads */
cl_status cl_k_fpm_hex(cl_device *d, void *entry, cl_fpm_hex_args *a, int lanes, unsigned block, cl_error *err);
#endif

#ifdef __cplusplus
extern "C" {
#endif
void cl_fpm_step_cpu_f32(const cl_fpm_particle_args *a);
void cl_fpm_step_cpu_f64(const cl_fpm_particle_args *a);
int cl_fpm_step_cuda_f32(const cl_fpm_particle_args *a);
int cl_fpm_step_cuda_f64(const cl_fpm_particle_args *a);
void cl_fpm_shell_cpu_f32(const cl_fpm_shell_args *a);
void cl_fpm_shell_cpu_f64(const cl_fpm_shell_args *a);
int cl_fpm_shell_cuda_f32(const cl_fpm_shell_args *a, int variant);
int cl_fpm_shell_cuda_f64(const cl_fpm_shell_args *a, int variant);
void cl_fpm_pressure_cpu_f32(const cl_fpm_pressure_args *a);
void cl_fpm_pressure_cpu_f64(const cl_fpm_pressure_args *a);
int cl_fpm_pressure_cuda_f32(const cl_fpm_pressure_args *a);
int cl_fpm_pressure_cuda_f64(const cl_fpm_pressure_args *a);
void cl_fpm_gather_cpu_f32(const cl_fpm_gather_args *a);
void cl_fpm_gather_cpu_f64(const cl_fpm_gather_args *a);
int cl_fpm_gather_cuda_f32(const cl_fpm_gather_args *a);
int cl_fpm_gather_cuda_f64(const cl_fpm_gather_args *a);
void cl_fpm_beam_cpu_f32(const cl_fpm_beam_args *a);
void cl_fpm_beam_cpu_f64(const cl_fpm_beam_args *a);
int cl_fpm_beam_cuda_f32(const cl_fpm_beam_args *a);
int cl_fpm_beam_cuda_f64(const cl_fpm_beam_args *a);
#ifdef __cplusplus
}
#endif

#endif
