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

template <int DIM, int K, int WEIGHTS>
static void launch_table_as(const cl_pd_force_args *a, const cl_pd_pmb &m) {
  CL_PREC(pd_table_kernel)<DIM, K, WEIGHTS><<<cl_grid_1d(CL_PD_ROWS_END(a) - a->row0), CL_THREADS>>>(
      *a, m, cl_pd_make_table<DIM, K>(a, m, WEIGHTS != CL_PD_WEIGHTS_ANY));
}

/* The shared-memory tile kernel of one stencil (stencil_tile.cuh) with 3D tiles DEPTH cells deep;
 * its shared memory is dynamic, since the 3D f64 tile needs more than the 48 KB a launch gets
 * without asking. */
template <int DIM, int K, int WEIGHTS, int DEPTH>
static void launch_tile_as(const cl_pd_force_args *a, const cl_pd_pmb &m) {
  constexpr int R = 3; /* the reach of the stencils at 3.015 dx (cl_pd_tile_stencil_matches) */
  const size_t bytes = cl_pd_tile_halo<DIM, R, cl_pd_tile_holds_g<DIM, R, WEIGHTS, DEPTH>::value, DEPTH>::BYTES;
  if (bytes > 48 * 1024)
    cudaFuncSetAttribute(CL_PREC(pd_tile_kernel)<DIM, K, R, WEIGHTS, DEPTH>,
                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
  CL_PREC(pd_tile_kernel)<DIM, K, R, WEIGHTS, DEPTH>
      <<<cl_pd_tile_grid<DIM, DEPTH>(a), cl_pd_tile_shape<DIM, DEPTH>::THREADS, bytes>>>(
          *a, m, cl_pd_make_table<DIM, K>(a, m, WEIGHTS != CL_PD_WEIGHTS_ANY));
}

/* An unrolled kernel's instance for the body's per-bond weights (stencil_table.cuh): the table
 * kernel, or the tile kernel (with 3D tiles DEPTH cells deep). */
template <int DIM, int K, bool TILE, int DEPTH = CL_THREADS / 64>
static void launch_unrolled(const cl_pd_force_args *a, const cl_pd_pmb &m) {
  switch (cl_pd_weights_of(a)) {
    case CL_PD_WEIGHTS_PLAIN: TILE ? launch_tile_as<DIM, K, CL_PD_WEIGHTS_PLAIN, DEPTH>(a, m)
                                   : launch_table_as<DIM, K, CL_PD_WEIGHTS_PLAIN>(a, m); break;
    case CL_PD_WEIGHTS_SURFACE: TILE ? launch_tile_as<DIM, K, CL_PD_WEIGHTS_SURFACE, DEPTH>(a, m)
                                     : launch_table_as<DIM, K, CL_PD_WEIGHTS_SURFACE>(a, m); break;
    default: TILE ? launch_tile_as<DIM, K, CL_PD_WEIGHTS_ANY, DEPTH>(a, m) : launch_table_as<DIM, K, CL_PD_WEIGHTS_ANY>(a, m);
  }
}

/* The point kernel with the stencil as launch constants (tile = false), or the tile kernel, for the
 * stencils of the horizons the benchmarks and examples use (delta = 3.015 dx: 28 entries in 2D,
 * 122 in 3D, reach 3; the tile kernel on maps whose tiles fit the grid's limits); any rows (a
 * partitioned step's interior or rest). Returns false for other stencils and for energies (they
 * take the stencil walk). deep: 3D tiles 6 cells deep (CL_PD_TILE6). Another stencil is a line here. */
static bool launch_stencil(const cl_pd_force_args *a, const cl_pd_pmb &m, bool tile, bool deep) {
  if (!a->stencil_host || a->energy) return false;
  if (a->dim == 2 && a->nstencil == 28) {
    if (tile && cl_pd_tile_grid_fits<2>(a) && cl_pd_tile_stencil_matches<2, 28, 3>(a)) launch_unrolled<2, 28, true>(a, m);
    else launch_unrolled<2, 28, false>(a, m);
  } else if (a->dim == 3 && a->nstencil == 122) {
    if (tile && deep && cl_pd_tile_grid_fits<3, 6>(a) && cl_pd_tile_stencil_matches<3, 122, 3>(a))
      launch_unrolled<3, 122, true, 6>(a, m);
    else if (tile && cl_pd_tile_grid_fits<3>(a) && cl_pd_tile_stencil_matches<3, 122, 3>(a))
      launch_unrolled<3, 122, true>(a, m);
    else launch_unrolled<3, 122, false>(a, m);
  } else {
    return false;
  }
  return true;
}

/* Whether the default kernel ("point") runs the tile kernel where it can, per dimension (issue 19).
 * On: the H100 (bench_pd.lua, 10^7 points, 2026-11-25) ran the tile kernel faster than the unrolled
 * table kernel in 2D and 3D, f32 and f64 (0.720 / 0.792, 1.068 / 1.179, 3.014 / 3.627, 4.578 / 6.311 ms
 * a step), and over two row ranges, as a partitioned step runs it, within 5% of one launch. */
static const bool tile_default_2d = true, tile_default_3d = true;
/* Whether the default 3D tile is 6 cells deep (CL_PD_TILE6): on the H100 (bench_pd.lua 10e6 10e6 50,
 * 2026-11-25, fused kick-drift) 2.543 / 4.020 ms a 3D step in f32 / f64 against 2.726 / 4.147 with 4 */
static const bool tile_deep_default_3d = true;

extern "C" int CL_PREC(cl_pd_force_cuda)(const cl_pd_force_args *a, cl_pd_kernel kernel) {
  if (CL_PD_ROWS_END(a) <= a->row0) return 0;
  cl_pd_pmb m = cl_pd_material(a);
  const bool lattice = a->map != NULL;
  if (kernel == CL_PD_HALF) { /* cl_k_pd_force has sent the other cases to CL_PD_POINT */
    if (a->dim == 2) launch_half<2>(a, m);
    else launch_half<3>(a, m);
    return (int)cudaGetLastError();
  }
  const bool tile = kernel == CL_PD_TILE || kernel == CL_PD_TILE6 ||
                    (kernel == CL_PD_POINT && (a->dim == 2 ? tile_default_2d : tile_default_3d));
  const bool deep = kernel == CL_PD_TILE6 || (kernel == CL_PD_POINT && a->dim == 3 && tile_deep_default_3d);
  if (lattice && (kernel == CL_PD_POINT || tile) && launch_stencil(a, m, tile, deep))
    return (int)cudaGetLastError();
  if (kernel == CL_PD_WALK || tile) kernel = CL_PD_POINT; /* the stencil walk */
  if (a->dim == 2) lattice ? launch<2, true>(a, m, kernel) : launch<2, false>(a, m, kernel);
  else lattice ? launch<3, true>(a, m, kernel) : launch<3, false>(a, m, kernel);
  return (int)cudaGetLastError();
}
