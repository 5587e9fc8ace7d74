/* CUDA launchers of the finite particle method's precompiled kernels (one thread per particle or
 * element; beams scatter with atomics). */
#include "../common/launch_cuda.cuh"
#include "beam.h"
#include "fpm_dispatch.h"
#include "integrate.h"
#include "shell.h"

__global__ void CL_PREC(fpm_predict_kernel)(cl_fpm_particle_args a) { CL_GRID_STRIDE(i, a.n) cl_fpm_predict(&a, i); }
__global__ void CL_PREC(fpm_apply_kernel)(cl_fpm_particle_args a) { CL_GRID_STRIDE(i, a.n) cl_fpm_apply_step(&a, i); }
__global__ void CL_PREC(fpm_step_kernel)(cl_fpm_particle_args a) { CL_GRID_STRIDE(i, a.n) cl_fpm_step_at(&a, i); }
__global__ void CL_PREC(fpm_gather_kernel)(cl_fpm_gather_args a) { CL_GRID_STRIDE(i, a.n) cl_fpm_gather_at(&a, i); }
__global__ void CL_PREC(fpm_shell_kernel)(cl_fpm_shell_args a) { CL_GRID_STRIDE(e, a.ne) cl_fpm_shell_at(&a, e); }
__global__ void CL_PREC(fpm_pressure_kernel)(cl_fpm_pressure_args a) {
  CL_GRID_STRIDE(r, a.count) cl_fpm_pressure_at(&a, r);
}
__global__ void CL_PREC(fpm_beam_kernel)(cl_fpm_beam_args a) { CL_GRID_STRIDE(e, a.ne) cl_fpm_beam_at(&a, e); }

extern "C" int CL_PREC(cl_fpm_predict_cuda)(const cl_fpm_particle_args *a) {
  if (a->n == 0) return 0;
  CL_PREC(fpm_predict_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_fpm_apply_cuda)(const cl_fpm_particle_args *a) {
  if (a->n == 0) return 0;
  CL_PREC(fpm_apply_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_fpm_step_cuda)(const cl_fpm_particle_args *a) {
  if (a->n == 0) return 0;
  CL_PREC(fpm_step_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_fpm_gather_cuda)(const cl_fpm_gather_args *a) {
  if (a->n == 0) return 0;
  CL_PREC(fpm_gather_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_fpm_shell_cuda)(const cl_fpm_shell_args *a) {
  if (a->ne == 0) return 0;
  CL_PREC(fpm_shell_kernel)<<<cl_grid_1d(a->ne), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_fpm_pressure_cuda)(const cl_fpm_pressure_args *a) {
  if (a->count == 0) return 0;
  CL_PREC(fpm_pressure_kernel)<<<cl_grid_1d(a->count), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_fpm_beam_cuda)(const cl_fpm_beam_args *a) {
  if (a->ne == 0) return 0;
  CL_PREC(fpm_beam_kernel)<<<cl_grid_1d(a->ne), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}
