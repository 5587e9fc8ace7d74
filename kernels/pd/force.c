/* Dispatch of the peridynamic kernels (step, dynamic relaxation) to the cpu loops or cuda launches. */
#include "force.h"

#include <math.h>

#include "../dispatch.h"

#ifdef CLEAVE_HAVE_CUDA
#include <cuda_runtime_api.h>

/* A run-time compiled kernel (jit/) takes the arguments and the material constants by value, as
 * the built-in kernels do (computing the constants per thread instead cost registers: f64 ran
 * 25% slower). */
static int launch_compiled(void *kernel, cl_dtype t, const cl_pd_force_args *a, cl_pd_kernel shape) {
  dim3 grid = {cl_pd_blocks(CL_PD_ROWS_END(a) - a->row0, shape), 1, 1}, block = {CL_THREADS, 1, 1};
  unsigned char material[CL_PD_MATERIAL_BYTES];
  (t == CL_F32 ? cl_pd_material_of_f32 : cl_pd_material_of_f64)(a, material);
  void *args[] = {(void *)a, material};
  return CL_PD_ROWS_END(a) > a->row0 ? (int)cudaLaunchKernel(kernel, grid, block, args, 0, 0) : 0;
}
#endif

cl_status cl_k_pd_force(cl_device *d, cl_dtype t, const cl_pd_force_args *a, cl_pd_kernel kernel,
                        cl_error *err) {
  if (t != CL_F32 && t != CL_F64)
    return cl_error_set(err, CL_ERR_ARG, "peridynamic fields must be f32 or f64 (got %s)", cl_dtype_name(t));
  /* the half stencil's limits: it writes both ends of a bond, so it computes all rows or none */
  if (kernel == CL_PD_HALF && (!a->map || a->energy || a->rows || a->row0)) kernel = CL_PD_POINT;
  if (d->kind == CL_BACKEND_CPU) {
    if (kernel == CL_PD_HALF) (t == CL_F32 ? cl_pd_force_half_cpu_f32 : cl_pd_force_half_cpu_f64)(a);
    else if (t == CL_F32) cl_pd_force_cpu_f32(a);
    else cl_pd_force_cpu_f64(a);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_pd_force_cuda_f32(a, kernel))
                         : CL_CUDA_CALL(cl_pd_force_cuda_f64(a, kernel));
  return cl_k_check_launch(d, code,
                           kernel == CL_PD_POINT ? "pd_force (point)"
                           : kernel == CL_PD_HALF ? "pd_force (half)"
                           : kernel == CL_PD_WALK ? "pd_force (walk)"
                           : kernel == CL_PD_TILE ? "pd_force (tile)"
                           : kernel == CL_PD_TILE6 ? "pd_force (tile6)"
                                                  : "pd_force (group)", err);
}

cl_status cl_k_pd_force_compiled(cl_device *d, cl_dtype t, const cl_pd_force_args *a, cl_pd_kernel shape,
                                 void *entry, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
    void (*rows)(const cl_pd_force_args *);
    *(void **)&rows = entry;
    rows(a);
    return CL_OK;
  }
  (void)shape, (void)t;
  return cl_k_check_launch(d, CL_CUDA_CALL(launch_compiled(entry, t, a, shape)), "pd_force (run-time compiled law)",
                           err);
}

cl_status cl_k_pd_bond_max(cl_device *d, cl_dtype t, const cl_pd_force_args *a, const void *values, void *out,
                           cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_pd_bond_max_cpu_f32 : cl_pd_bond_max_cpu_f64)(a, values, out);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_pd_bond_max_cuda_f32(a, values, out))
                         : CL_CUDA_CALL(cl_pd_bond_max_cuda_f64(a, values, out));
  return cl_k_check_launch(d, code, "pd_bond_max", err);
}

cl_status cl_k_pd_advance(cl_device *d, cl_dtype t, size_t n, int dim, void *u, const void *u_prev, void *v,
                          const void *a, const uint8_t *held, double dt, int free_too, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) {
    (t == CL_F32 ? cl_pd_advance_cpu_f32 : cl_pd_advance_cpu_f64)(n, dim, u, u_prev, v, a, held, dt, free_too);
    return CL_OK;
  }
  int code = t == CL_F32 ? CL_CUDA_CALL(cl_pd_advance_cuda_f32(n, dim, u, u_prev, v, a, held, dt, free_too))
                         : CL_CUDA_CALL(cl_pd_advance_cuda_f64(n, dim, u, u_prev, v, a, held, dt, free_too));
  return cl_k_check_launch(d, code, "pd_advance", err);
}
