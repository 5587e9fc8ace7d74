#include "../common/launch_cuda.cuh"
#include "point_force.h"

/* The bonds of point i: its CSR list or its lattice stencil. */
template <int DIM, bool LATTICE>
static __device__ __forceinline__ void row(const cl_pd_force_args *a, const cl_pd_pmb *m, size_t i, uint32_t lane,
                                           uint32_t stride, cl_pd_partial *p) {
  if (LATTICE) cl_pd_lattice_row(a, m, DIM, i, lane, stride, p);
  else cl_pd_row(a, m, DIM, i, lane, stride, p);
}

template <int DIM, bool LATTICE>
__global__ void CL_PREC(pd_point_kernel)(cl_pd_force_args a, cl_pd_pmb m) {
  CL_GRID_STRIDE(i, a.n) {
    cl_pd_partial p = {};
    row<DIM, LATTICE>(&a, &m, i, 0, 1, &p);
    cl_pd_finish(&a, &m, DIM, i, &p);
  }
}

/* GROUP lanes per point; a warp serves 32/GROUP points. */
template <int DIM, bool LATTICE, int GROUP>
__global__ void CL_PREC(pd_group_kernel)(cl_pd_force_args a, cl_pd_pmb m) {
  const size_t thread = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const size_t i = thread / GROUP;
  const uint32_t lane = threadIdx.x % GROUP;
  cl_pd_partial p = {};
  if (i < a.n) row<DIM, LATTICE>(&a, &m, i, lane, GROUP, &p);
  for (int off = GROUP / 2; off > 0; off >>= 1) {
    for (int c = 0; c < DIM; c++) p.acc[c] += __shfl_down_sync(0xffffffffu, p.acc[c], off, GROUP);
    p.weight_all += __shfl_down_sync(0xffffffffu, p.weight_all, off, GROUP);
    p.weight_intact += __shfl_down_sync(0xffffffffu, p.weight_intact, off, GROUP);
    p.energy += __shfl_down_sync(0xffffffffu, p.energy, off, GROUP);
  }
  if (i < a.n && lane == 0) cl_pd_finish(&a, &m, DIM, i, &p);
}

template <int DIM, bool LATTICE>
static void launch(const cl_pd_force_args *a, const cl_pd_pmb &m, cl_pd_kernel kernel) {
  if (kernel == CL_PD_POINT) {
    CL_PREC(pd_point_kernel)<DIM, LATTICE><<<cl_grid_1d(a->n), CL_THREADS>>>(*a, m);
    return;
  }
  size_t threads = a->n * (size_t)kernel;
  unsigned blocks = (unsigned)((threads + CL_THREADS - 1) / CL_THREADS);
  switch (kernel) {
    case CL_PD_GROUP4: CL_PREC(pd_group_kernel)<DIM, LATTICE, 4><<<blocks, CL_THREADS>>>(*a, m); break;
    case CL_PD_GROUP16: CL_PREC(pd_group_kernel)<DIM, LATTICE, 16><<<blocks, CL_THREADS>>>(*a, m); break;
    case CL_PD_GROUP32: CL_PREC(pd_group_kernel)<DIM, LATTICE, 32><<<blocks, CL_THREADS>>>(*a, m); break;
    default: CL_PREC(pd_group_kernel)<DIM, LATTICE, 8><<<blocks, CL_THREADS>>>(*a, m); break;
  }
}

extern "C" int CL_PREC(cl_pd_force_cuda)(const cl_pd_force_args *a, cl_pd_kernel kernel) {
  if (a->n == 0) return 0;
  cl_pd_pmb m = cl_pd_material(a);
  const bool lattice = a->map != NULL;
  if (a->dim == 2) lattice ? launch<2, true>(a, m, kernel) : launch<2, false>(a, m, kernel);
  else lattice ? launch<3, true>(a, m, kernel) : launch<3, false>(a, m, kernel);
  return (int)cudaGetLastError();
}
