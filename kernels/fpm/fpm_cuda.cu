/* CUDA launchers of the finite particle method's precompiled kernels (one thread per particle or
 * element; beams scatter with atomics). */
#include "../common/launch_cuda.cuh"
#include "beam.h"
#include "fpm_dispatch.h"
#include "integrate.h"
#include "shell.h"

__global__ void CL_PREC(fpm_step_kernel)(cl_fpm_particle_args a) { CL_GRID_STRIDE(i, a.n) cl_fpm_step_at(&a, i, 0); }
__global__ void CL_PREC(fpm_step_rotating_kernel)(cl_fpm_particle_args a) {
  CL_GRID_STRIDE(i, a.n) cl_fpm_step_at(&a, i, 1);
}
__global__ void CL_PREC(fpm_gather_kernel)(cl_fpm_gather_args a) { CL_GRID_STRIDE(i, a.n) cl_fpm_gather_at(&a, i); }
/* The shell kernel under several register budgets (cl_fpm_shell_variant; docs/methods/finite-particle.md,
 * "Kernel variants"): unbounded, ptxas gives it 242-244 registers and a local frame, so an SM holds
 * 8 warps; __launch_bounds__(threads, blocks) caps it at 65536 / (threads x blocks) registers, spilling
 * the rest to local memory, for more warps in flight. Each is built for the elastic and for the J2
 * section (the elastic one without the J2 return's registers). Same operations, same results. */
#define CL_FPM_SHELL_KERNELS(name, bounds)                                                         \
  __global__ void bounds CL_PREC(name##_elastic)(cl_fpm_shell_args a) {                            \
    CL_GRID_STRIDE(e, a.ne) cl_fpm_shell_element(&a, 0, e);                                        \
  }                                                                                                \
  __global__ void bounds CL_PREC(name##_j2)(cl_fpm_shell_args a) {                                 \
    CL_GRID_STRIDE(e, a.ne) cl_fpm_shell_element(&a, 1, e);                                        \
  }                                                                                                \
  static void CL_PREC(name)(const cl_fpm_shell_args *a, unsigned threads) {                        \
    if (a->plastic)                                                                                \
      CL_PREC(name##_j2)<<<cl_grid_blocks(a->ne, threads), threads>>>(*a);                         \
    else                                                                                           \
      CL_PREC(name##_elastic)<<<cl_grid_blocks(a->ne, threads), threads>>>(*a);                    \
  }
CL_FPM_SHELL_KERNELS(fpm_shell, )
CL_FPM_SHELL_KERNELS(fpm_shell_lb128x3, __launch_bounds__(128, 3))
CL_FPM_SHELL_KERNELS(fpm_shell_lb128x4, __launch_bounds__(128, 4))
CL_FPM_SHELL_KERNELS(fpm_shell_lb256x2, __launch_bounds__(256, 2))
__global__ void CL_PREC(fpm_pressure_kernel)(cl_fpm_pressure_args a) {
  CL_GRID_STRIDE(r, a.count) cl_fpm_pressure_at(&a, r);
}
__global__ void CL_PREC(fpm_beam_kernel)(cl_fpm_beam_args a) { CL_GRID_STRIDE(e, a.ne) cl_fpm_beam_at(&a, e); }

/* Blocks of 128: at the pass's 72 registers (translations; 96 rotating) an SM holds 7 of them, 896
 * threads (of 256, 3 blocks, 768): the 116 000 particles of bench_fpm.lua's hexahedra in one wave. */
#define CL_FPM_STEP_THREADS 128

extern "C" int CL_PREC(cl_fpm_step_cuda)(const cl_fpm_particle_args *a) {
  if (a->n == 0) return 0;
  const unsigned blocks = cl_grid_blocks(a->n, CL_FPM_STEP_THREADS);
  if (a->q)
    CL_PREC(fpm_step_rotating_kernel)<<<blocks, CL_FPM_STEP_THREADS>>>(*a);
  else
    CL_PREC(fpm_step_kernel)<<<blocks, CL_FPM_STEP_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_fpm_gather_cuda)(const cl_fpm_gather_args *a) {
  if (a->n == 0) return 0;
  CL_PREC(fpm_gather_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a);
  return (int)cudaGetLastError();
}

extern "C" int CL_PREC(cl_fpm_shell_cuda)(const cl_fpm_shell_args *a, int variant) {
  if (a->ne == 0) return 0;
  switch (variant) {
  case CL_FPM_SHELL_LB128X3: CL_PREC(fpm_shell_lb128x3)(a, 128); break;
  case CL_FPM_SHELL_LB128X4: CL_PREC(fpm_shell_lb128x4)(a, 128); break;
  case CL_FPM_SHELL_LB256X2: CL_PREC(fpm_shell_lb256x2)(a, 256); break;
  default: CL_PREC(fpm_shell)(a, CL_THREADS);
  }
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
