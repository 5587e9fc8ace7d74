#include "../common/launch_cuda.cuh"
#include "bond_max.h"
#include "force.h"

__global__ void CL_PREC(bond_max_kernel)(cl_pd_force_args a, const real *values, real *out) {
  CL_GRID_STRIDE(i, a.n) out[i] = cl_pd_bond_max(&a, values, i);
}

extern "C" int CL_PREC(cl_pd_bond_max_cuda)(const cl_pd_force_args *a, const void *values, void *out) {
  if (a->n == 0) return 0;
  CL_PREC(bond_max_kernel)<<<cl_grid_1d(a->n), CL_THREADS>>>(*a, (const real *)values, (real *)out);
  return (int)cudaGetLastError();
}
