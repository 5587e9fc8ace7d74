/* The step kernel's CUDA bodies, templated on the dimension, the bond layout
 * and the lanes per point. Included by force_cuda.cu (built-in law) and by
 * run-time compiled laws (jit/), which wrap them in extern "C" kernels. */
#ifndef CL_PD_FORCE_KERNELS_CUH
#define CL_PD_FORCE_KERNELS_CUH

#include "../common/grid.h"
#include "point_force.h"

/* The bonds of point i: its CSR list or its lattice stencil. */
template <int DIM, bool LATTICE>
static __device__ __forceinline__ void cl_pd_device_row(const cl_pd_force_args *a, const cl_pd_pmb *m, size_t i,
                                                        uint32_t lane, uint32_t stride, cl_pd_partial *p) {
  if (LATTICE) cl_pd_lattice_row(a, m, DIM, i, lane, stride, p);
  else cl_pd_row(a, m, DIM, i, lane, stride, p);
}

/* One thread per point. */
template <int DIM, bool LATTICE>
static __device__ __forceinline__ void cl_pd_point_body(const cl_pd_force_args &a, const cl_pd_pmb &m) {
  CL_GRID_STRIDE(t, CL_PD_ROWS_END(&a) - a.row0) {
    const size_t i = a.row0 + t;
    cl_pd_partial p = {};
    cl_pd_device_row<DIM, LATTICE>(&a, &m, i, 0, 1, &p);
    cl_pd_finish(&a, &m, DIM, i, &p);
  }
}

/* GROUP lanes per point; a warp serves 32/GROUP points. */
template <int DIM, bool LATTICE, int GROUP>
static __device__ __forceinline__ void cl_pd_group_body(const cl_pd_force_args &a, const cl_pd_pmb &m) {
  const size_t thread = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const size_t i = a.row0 + thread / GROUP, end = CL_PD_ROWS_END(&a);
  const uint32_t lane = threadIdx.x % GROUP;
  cl_pd_partial p = {};
  if (i < end) cl_pd_device_row<DIM, LATTICE>(&a, &m, i, lane, GROUP, &p);
  for (int off = GROUP / 2; off > 0; off >>= 1) {
    for (int c = 0; c < DIM; c++) p.acc[c] += __shfl_down_sync(0xffffffffu, p.acc[c], off, GROUP);
    p.weight_all += __shfl_down_sync(0xffffffffu, p.weight_all, off, GROUP);
    p.weight_intact += __shfl_down_sync(0xffffffffu, p.weight_intact, off, GROUP);
    p.energy += __shfl_down_sync(0xffffffffu, p.energy, off, GROUP);
  }
  if (i < end && lane == 0) cl_pd_finish(&a, &m, DIM, i, &p);
}

#endif
