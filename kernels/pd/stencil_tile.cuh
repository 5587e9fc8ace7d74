/* The 2D lattice step with u from shared memory (kernel = "tile", issue 19's shared-memory tiles).
 * A block of CL_THREADS threads takes a tile of 32 x (CL_THREADS / 32) cells of the padded map,
 * loads the points of the tile and of its halo of R cells (the stencil's reach) and their u into
 * shared memory, and each thread then runs the bonds of the point in its cell, finding each
 * neighbour at its own shared index plus a constant of the stencil: no map load and no gather of
 * u from global memory per bond, at the price of a block-wide load and synchronisation (a tile of
 * 32 x 8 cells reads (32 + 2R)(8 + 2R) cells, 2.1 times its own at R = 3). Cells without a point
 * (the map's padding, holes, and the halo outside the map) hold CL_PD_ABSENT. The stencil is the
 * launch-constant table of stencil_table.cuh; the bond is cl_pd_lattice_bond_to, as everywhere. */
#ifndef CL_PD_STENCIL_TILE_CUH
#define CL_PD_STENCIL_TILE_CUH

#include "stencil_table.cuh"

#define CL_PD_TILE_X 32
#define CL_PD_TILE_Y (CL_THREADS / CL_PD_TILE_X)

/* Each stencil entry's step as an offset in a shared tile of `width` cells per row. */
template <int K>
struct cl_pd_tile_steps {
  int32_t step[K];
};

template <int K>
static cl_pd_tile_steps<K> cl_pd_make_tile_steps(const cl_pd_force_args *a, int width) {
  cl_pd_tile_steps<K> s;
  const int64_t row = (int64_t)a->map_dims[0];
  for (int k = 0; k < K; k++) {
    const int64_t offset = a->stencil_host[k];
    /* offset = sx + row sy with |sx| < row / 2 (the map is padded by the reach on each side) */
    const int64_t sy = (offset + (offset >= 0 ? row / 2 : -(row / 2))) / row, sx = offset - sy * row;
    s.step[k] = (int32_t)(sx + width * sy);
  }
  return s;
}

/* Blocks of the tile kernel over the map's cells (interior and padding to the right and top). */
static inline dim3 cl_pd_tile_grid(const cl_pd_force_args *a) {
  return dim3((unsigned)((a->map_dims[0] + CL_PD_TILE_X - 1) / CL_PD_TILE_X),
              (unsigned)((a->map_dims[1] + CL_PD_TILE_Y - 1) / CL_PD_TILE_Y), 1);
}

template <int K, int R, bool PLAIN>
__global__ void __launch_bounds__(CL_THREADS)
CL_PREC(pd_tile_kernel)(cl_pd_force_args a, cl_pd_pmb m, const cl_pd_stencil_table<2, K> t,
                        const cl_pd_tile_steps<K> s) {
  constexpr int WIDTH = CL_PD_TILE_X + 2 * R, CELLS = WIDTH * (CL_PD_TILE_Y + 2 * R);
  __shared__ uint32_t point[CELLS];
  __shared__ real tile_u[2][CELLS];
  cl_pd_table_args<PLAIN>(&a);
  const real *u = (const real *)a.u;
  /* the tile's cells start at (x0, y0) of the map, its halo R cells before */
  const int64_t x0 = (int64_t)blockIdx.x * CL_PD_TILE_X, y0 = (int64_t)blockIdx.y * CL_PD_TILE_Y;
  for (int q = threadIdx.x; q < CELLS; q += blockDim.x) {
    const int64_t cx = x0 - R + q % WIDTH, cy = y0 - R + q / WIDTH;
    uint32_t j = CL_PD_ABSENT;
    if (cx >= 0 && cy >= 0 && cx < (int64_t)a.map_dims[0] && cy < (int64_t)a.map_dims[1])
      j = a.map[cx + (int64_t)a.map_dims[0] * cy];
    point[q] = j;
    if (j != CL_PD_ABSENT) tile_u[0][q] = u[j], tile_u[1][q] = u[a.n + j];
  }
  __syncthreads();
  const int home = (threadIdx.x / CL_PD_TILE_X + R) * WIDTH + threadIdx.x % CL_PD_TILE_X + R;
  const uint32_t i = point[home];
  if (i == CL_PD_ABSENT) return;
  real ui[3] = {tile_u[0][home], tile_u[1][home], 0}, gi[3], uj[3] = {0, 0, 0};
  if (a.surface)
    for (int c = 0; c < 2; c++) gi[c] = ((const real *)a.surface)[c * a.n + i];
  cl_pd_partial p = {};
  const uint32_t state = a.broken[i];
  uint32_t fresh = 0;
#pragma unroll
  for (int k = 0; k < K; k++) { /* K <= 32: one bond-state word */
    const int q = home + s.step[k];
    const uint32_t j = point[q];
    if (j == CL_PD_ABSENT) continue;
    uj[0] = tile_u[0][q], uj[1] = tile_u[1][q];
    cl_pd_lattice_bond_to(&a, &m, 2, i, j, k, t.geometry[k], t.fraction[k], uj, ui, gi, state, &fresh, &p);
  }
  if (fresh) cl_pd_mark_broken(&a.broken[i], fresh);
  cl_pd_finish(&a, &m, 2, i, &p);
}

#endif
