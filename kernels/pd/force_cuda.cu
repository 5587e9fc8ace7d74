#include "../common/launch_cuda.cuh"
#include "force_kernels.cuh"
#include "half_stencil.h"
#include "stencil_table.cuh"
#include "stencil_tile.cuh"

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

/* The point kernel with the stencil as launch constants, for the stencils of the horizons the
 * benchmarks and examples use (delta = 3.015 dx: 28 entries in 2D, 122 in 3D); returns false for
 * others and for energies (they take the stencil walk). Another stencil is one line here. */
static bool launch_table(const cl_pd_force_args *a, const cl_pd_pmb &m) {
  if (!a->stencil_host || a->energy) return false;
  const unsigned blocks = cl_grid_1d(CL_PD_ROWS_END(a) - a->row0);
  const bool plain = !a->volume && !a->surface;
  if (a->dim == 2 && a->nstencil == 28) {
    if (plain) CL_PREC(pd_table_kernel)<2, 28, true><<<blocks, CL_THREADS>>>(*a, m, cl_pd_make_table<2, 28>(a, m));
    else CL_PREC(pd_table_kernel)<2, 28, false><<<blocks, CL_THREADS>>>(*a, m, cl_pd_make_table<2, 28>(a, m));
  } else if (a->dim == 3 && a->nstencil == 122) {
    if (plain) CL_PREC(pd_table_kernel)<3, 122, true><<<blocks, CL_THREADS>>>(*a, m, cl_pd_make_table<3, 122>(a, m));
    else CL_PREC(pd_table_kernel)<3, 122, false><<<blocks, CL_THREADS>>>(*a, m, cl_pd_make_table<3, 122>(a, m));
  } else {
    return false;
  }
  return true;
}

/* The shared-memory tile kernel of one stencil (stencil_tile.cuh); its shared memory is dynamic,
 * since the 3D f64 tile needs more than the 48 KB a launch gets without asking. */
template <int DIM, int K, int R, bool PLAIN>
static void launch_tile_as(const cl_pd_force_args *a, const cl_pd_pmb &m) {
  const size_t bytes = cl_pd_tile_halo<DIM, R>::BYTES;
  if (bytes > 48 * 1024)
    cudaFuncSetAttribute(CL_PREC(pd_tile_kernel)<DIM, K, R, PLAIN>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                         (int)bytes);
  CL_PREC(pd_tile_kernel)<DIM, K, R, PLAIN><<<cl_pd_tile_grid<DIM>(a), CL_THREADS, bytes>>>(
      *a, m, cl_pd_make_table<DIM, K>(a, m), cl_pd_make_tile_steps<DIM, K, R>(a));
}

/* The tile kernel for the stencils at 3.015 dx (reach 3; 28 entries in 2D, 122 in 3D) on a map
 * whose tiles fit the grid's limits; any rows (a partitioned step's interior or rest); false
 * otherwise (no table, energies, other stencils). */
static bool launch_tile(const cl_pd_force_args *a, const cl_pd_pmb &m) {
  if (!a->stencil_host || a->energy) return false;
  const bool plain = !a->volume && !a->surface;
  if (a->dim == 2 && a->nstencil == 28 && cl_pd_tile_grid_fits<2>(a)) {
    if (plain) launch_tile_as<2, 28, 3, true>(a, m);
    else launch_tile_as<2, 28, 3, false>(a, m);
  } else if (a->dim == 3 && a->nstencil == 122 && cl_pd_tile_grid_fits<3>(a)) {
    if (plain) launch_tile_as<3, 122, 3, true>(a, m);
    else launch_tile_as<3, 122, 3, false>(a, m);
  } else {
    return false;
  }
  return true;
}

/* Whether the default kernel ("point") runs the tile kernel where it can, per dimension (issue 19: the
 * switch for when the H100's bench_pd.lua shows the tile kernel faster in f32 and f64 alike). */
static const bool tile_default_2d = false, tile_default_3d = false;

extern "C" int CL_PREC(cl_pd_force_cuda)(const cl_pd_force_args *a, cl_pd_kernel kernel) {
  if (CL_PD_ROWS_END(a) <= a->row0) return 0;
  cl_pd_pmb m = cl_pd_material(a);
  const bool lattice = a->map != NULL;
  if (kernel == CL_PD_HALF) { /* cl_k_pd_force has sent the other cases to CL_PD_POINT */
    if (a->dim == 2) launch_half<2>(a, m);
    else launch_half<3>(a, m);
    return (int)cudaGetLastError();
  }
  const bool tile = kernel == CL_PD_TILE || (kernel == CL_PD_POINT && (a->dim == 2 ? tile_default_2d : tile_default_3d));
  if (lattice && tile && launch_tile(a, m)) return (int)cudaGetLastError();
  if (lattice && (kernel == CL_PD_POINT || kernel == CL_PD_TILE) && launch_table(a, m)) return (int)cudaGetLastError();
  if (kernel == CL_PD_WALK || kernel == CL_PD_TILE) kernel = CL_PD_POINT; /* the stencil walk */
  if (a->dim == 2) lattice ? launch<2, true>(a, m, kernel) : launch<2, false>(a, m, kernel);
  else lattice ? launch<3, true>(a, m, kernel) : launch<3, false>(a, m, kernel);
  return (int)cudaGetLastError();
}
