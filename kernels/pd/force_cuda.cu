#include "../common/launch_cuda.cuh"
#include "force_kernels.cuh"
#include "half_stencil.h"

template <int DIM>
__global__ void CL_PREC(pd_half_kernel)(cl_pd_force_args a, cl_pd_pmb m) {
  CL_GRID_STRIDE(i, a.n) cl_pd_half_row(&a, &m, DIM, i);
}

template <int DIM>
__global__ void CL_PREC(pd_half_finish_kernel)(cl_pd_force_args a, cl_pd_pmb m) {
  CL_GRID_STRIDE(i, a.n) cl_pd_half_finish(&a, &m, DIM, i);
}

/* The half stencil's three passes (half_stencil.h). */
template <int DIM>
static void launch_half(const cl_pd_force_args *a, const cl_pd_pmb &m) {
  const unsigned blocks = cl_grid_1d(a->n);
  cudaMemsetAsync(a->a, 0, a->n * DIM * sizeof(real));
  CL_PREC(pd_half_kernel)<DIM><<<blocks, CL_THREADS>>>(*a, m);
  CL_PREC(pd_half_finish_kernel)<DIM><<<blocks, CL_THREADS>>>(*a, m);
}

template <int DIM, bool LATTICE>
__global__ void CL_PREC(pd_point_kernel)(cl_pd_force_args a, cl_pd_pmb m) {
  cl_pd_point_body<DIM, LATTICE>(a, m);
}

template <int DIM, bool LATTICE, int GROUP>
__global__ void CL_PREC(pd_group_kernel)(cl_pd_force_args a, cl_pd_pmb m) {
  cl_pd_group_body<DIM, LATTICE, GROUP>(a, m);
}

template <int DIM, bool LATTICE>
static void launch(const cl_pd_force_args *a, const cl_pd_pmb &m, cl_pd_kernel kernel) {
  unsigned blocks = cl_pd_blocks(CL_PD_ROWS_END(a) - a->row0, kernel);
  switch (kernel) {
    case CL_PD_POINT: CL_PREC(pd_point_kernel)<DIM, LATTICE><<<blocks, CL_THREADS>>>(*a, m); break;
    case CL_PD_GROUP4: CL_PREC(pd_group_kernel)<DIM, LATTICE, 4><<<blocks, CL_THREADS>>>(*a, m); break;
    case CL_PD_GROUP16: CL_PREC(pd_group_kernel)<DIM, LATTICE, 16><<<blocks, CL_THREADS>>>(*a, m); break;
    case CL_PD_GROUP32: CL_PREC(pd_group_kernel)<DIM, LATTICE, 32><<<blocks, CL_THREADS>>>(*a, m); break;
    default: CL_PREC(pd_group_kernel)<DIM, LATTICE, 8><<<blocks, CL_THREADS>>>(*a, m); break;
  }
}

extern "C" int CL_PREC(cl_pd_force_cuda)(const cl_pd_force_args *a, cl_pd_kernel kernel) {
  if (CL_PD_ROWS_END(a) <= a->row0) return 0;
  cl_pd_pmb m = cl_pd_material(a);
  const bool lattice = a->map != NULL;
  if (kernel == CL_PD_HALF) { /* cl_k_pd_force has sent the other cases to CL_PD_POINT */
    if (a->dim == 2) launch_half<2>(a, m);
    else launch_half<3>(a, m);
    return (int)cudaGetLastError();
  }
  if (a->dim == 2) lattice ? launch<2, true>(a, m, kernel) : launch<2, false>(a, m, kernel);
  else lattice ? launch<3, true>(a, m, kernel) : launch<3, false>(a, m, kernel);
  return (int)cudaGetLastError();
}
