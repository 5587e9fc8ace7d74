#include "../common/launch_cuda.cuh"
#include "force_kernels.cuh"

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
  unsigned blocks = cl_pd_blocks(a->n, kernel);
  switch (kernel) {
    case CL_PD_POINT: CL_PREC(pd_point_kernel)<DIM, LATTICE><<<blocks, CL_THREADS>>>(*a, m); break;
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
