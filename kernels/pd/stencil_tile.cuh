/* The lattice step with u from shared memory (kernel = "tile", issue 19's shared-memory tiles), in
 * 2D and 3D. A block of CL_THREADS threads takes a tile of cells of the padded map (2D 32 x 8,
 * 3D 8 x 8 x 4; kernel "tile6": 8 x 8 x 6, 384 threads), loads the points of the tile and of its
 * halo of R cells (the stencil's reach) and their u into shared memory, and each thread then runs
 * the bonds of the point in its cell, finding each neighbour at its own shared index plus a
 * constant of the stencil: no map load and
 * no gather of u from global memory per bond, at the price of a block-wide load and
 * synchronisation (at R = 3 a 2D tile reads (32 + 6)(8 + 6) cells, 2.1 times its own; a 3D tile
 * 14 x 14 x 10, 7.7 times its own, which is 0.06 cells per bond of its 122). Cells without a point
 * (the map's padding, holes, and the halo outside the map) hold CL_PD_ABSENT. The stencil is the
 * launch-constant table of stencil_table.cuh; the bond is cl_pd_lattice_bond_to, as everywhere.
 * Row ranges (a partitioned step's interior, then its rest): the blocks still cover the map, a
 * thread computes its point only if its row is asked for, and a tile without such a point leaves
 * before loading its halo (so the rest's launch costs one map load per cell for interior tiles). */
#ifndef CL_PD_STENCIL_TILE_CUH
#define CL_PD_STENCIL_TILE_CUH

#include "stencil_table.cuh"

/* A block's tile of map cells, a thread each: X x Y (x Z) = THREADS cells, CL_THREADS by default, the
 * 3D one as near a cube as CL_THREADS allows, since its halo grows with the surface. DEPTH: the 3D
 * tile's Z (CL_THREADS / 64 = 4 by default; 6 for kernel "tile6": force_args.h, CL_PD_TILE6). */
template <int DIM, int DEPTH = CL_THREADS / 64>
struct cl_pd_tile_shape {
  static constexpr int X = DIM == 2 ? 32 : 8, Y = DIM == 2 ? CL_THREADS / 32 : 8, Z = DIM == 2 ? 1 : DEPTH,
                       THREADS = X * Y * Z;
};

/* The tile with its halo of R cells on each side (none along z in 2D); G: with the points' surface
 * factors. */
template <int DIM, int R, bool G, int DEPTH = CL_THREADS / 64>
struct cl_pd_tile_halo {
  typedef cl_pd_tile_shape<DIM, DEPTH> S;
  static constexpr int X = S::X + 2 * R, Y = S::Y + 2 * R, Z = DIM == 2 ? 1 : S::Z + 2 * R, CELLS = X * Y * Z;
  /* shared memory: u (DIM components), the surface factors (DIM, if G), then the point of each cell */
  static constexpr size_t BYTES = CELLS * ((G ? 2 : 1) * DIM * sizeof(real) + sizeof(uint32_t));
};

/* Whether the tile holds the points' surface factors too (bodies that may have them), so that a bond
 * reads its neighbour's from shared memory instead of three global loads with their addresses
 * (3D f32 with the correction: 90.5 -> 84.6 instructions per bond, pd_sass/count.sh): where the
 * shared memory stays within a third of an SM's 227 KB, so that 3 blocks (24 warps) still fit —
 * not the 3D f64 tile, which would need 102 KB. */
template <int DIM, int R, int WEIGHTS, int DEPTH = CL_THREADS / 64>
struct cl_pd_tile_holds_g {
  static constexpr bool value =
      WEIGHTS != CL_PD_WEIGHTS_PLAIN && cl_pd_tile_halo<DIM, R, true, DEPTH>::BYTES <= 227 * 1024 / 3;
};

/* The stencil of a horizon between R and sqrt(R^2 + 1) cells (3.015 dx at R = 3: 28 steps in 2D,
 * 122 in 3D): the integer steps s != 0 with |s|^2 <= R^2, in the order of lattice.c (z, then y, then
 * x, each from -R up), as constants of the compilation, so that in the unrolled bond loop each
 * neighbour's shared index is an immediate offset from the point's own (2D f32 62.6 -> 59.1
 * instructions per bond with the point's share, 3D 60.3 -> 56.2: no step read from the launch's
 * parameters and added per bond; pd_sass/count.sh). The launch checks that the lattice's stencil is
 * this one (cl_pd_tile_stencil_matches). */
template <int K>
struct cl_pd_tile_stencil {
  int count;
  int step[K][3];
};

template <int DIM, int K, int R>
constexpr cl_pd_tile_stencil<K> cl_pd_make_tile_stencil() {
  cl_pd_tile_stencil<K> s{};
  for (int z = DIM == 3 ? -R : 0; z <= (DIM == 3 ? R : 0); z++)
    for (int y = -R; y <= R; y++)
      for (int x = -R; x <= R; x++) {
        const int r2 = x * x + y * y + z * z;
        if (r2 == 0 || r2 > R * R) continue;
        if (s.count < K) s.step[s.count][0] = x, s.step[s.count][1] = y, s.step[s.count][2] = z;
        s.count++;
      }
  return s;
}

template <int DIM, int K, int R>
__device__ constexpr cl_pd_tile_stencil<K> cl_pd_tile_stencil_of = cl_pd_make_tile_stencil<DIM, K, R>();

/* Whether the lattice's stencil (its map offsets, entry by entry) is the tile kernel's. */
template <int DIM, int K, int R>
static bool cl_pd_tile_stencil_matches(const cl_pd_force_args *a) {
  const cl_pd_tile_stencil<K> s = cl_pd_make_tile_stencil<DIM, K, R>();
  if (s.count != K || a->nstencil != (uint32_t)K) return false;
  for (int k = 0; k < K; k++) {
    const int *st = s.step[k];
    if (a->stencil_host[k] != st[0] + (int64_t)a->map_dims[0] * (st[1] + (int64_t)a->map_dims[1] * st[2])) return false;
  }
  return true;
}

/* Blocks of the tile kernel over the map's cells (interior and padding). */
template <int DIM, int DEPTH = CL_THREADS / 64>
static inline dim3 cl_pd_tile_grid(const cl_pd_force_args *a) {
  typedef cl_pd_tile_shape<DIM, DEPTH> S;
  return dim3((unsigned)((a->map_dims[0] + S::X - 1) / S::X), (unsigned)((a->map_dims[1] + S::Y - 1) / S::Y),
              DIM == 2 ? 1u : (unsigned)((a->map_dims[2] + S::Z - 1) / S::Z));
}

/* Whether a map of these extents fits the grid's limits on y and z blocks. */
template <int DIM, int DEPTH = CL_THREADS / 64>
static inline bool cl_pd_tile_grid_fits(const cl_pd_force_args *a) {
  const dim3 g = cl_pd_tile_grid<DIM, DEPTH>(a);
  return g.y <= 65535 && g.z <= 65535;
}

/* The point in map cell (cx, cy, cz), or CL_PD_ABSENT outside the map. */
template <int DIM>
static __device__ __forceinline__ uint32_t cl_pd_tile_point(const cl_pd_force_args &a, int64_t cx, int64_t cy,
                                                            int64_t cz) {
  if (cx < 0 || cy < 0 || cz < 0 || cx >= (int64_t)a.map_dims[0] || cy >= (int64_t)a.map_dims[1] ||
      (DIM == 3 && cz >= (int64_t)a.map_dims[2]))
    return CL_PD_ABSENT;
  return a.map[cx + (int64_t)a.map_dims[0] * (cy + (int64_t)a.map_dims[1] * cz)];
}

extern __shared__ __align__(16) unsigned char cl_pd_tile_memory[];

template <int DIM, int K, int R, int WEIGHTS, int DEPTH = CL_THREADS / 64>
__global__ void __launch_bounds__(cl_pd_tile_shape<DIM, DEPTH>::THREADS)
CL_PREC(pd_tile_kernel)(cl_pd_force_args a, cl_pd_pmb m, const cl_pd_stencil_table<DIM, K> t) {
  typedef cl_pd_tile_shape<DIM, DEPTH> S;
  constexpr bool G = cl_pd_tile_holds_g<DIM, R, WEIGHTS, DEPTH>::value;
  typedef cl_pd_tile_halo<DIM, R, G, DEPTH> H;
  constexpr int RZ = DIM == 3 ? R : 0;
  real *tile_u = (real *)cl_pd_tile_memory;                             /* [DIM][CELLS] */
  real *tile_g = tile_u + DIM * H::CELLS;                               /* [DIM][CELLS] if G */
  uint32_t *point = (uint32_t *)(tile_u + (G ? 2 : 1) * DIM * H::CELLS); /* [CELLS] */
  const real *g = (const real *)a.surface;
  cl_pd_table_args<WEIGHTS>(&a);
  const real *u = (const real *)a.u;
  const size_t rows = CL_PD_ROWS_END(&a) - a.row0;
  /* the tile's cells start at (x0, y0, z0) of the map, its halo R cells before */
  const int64_t x0 = (int64_t)blockIdx.x * S::X, y0 = (int64_t)blockIdx.y * S::Y, z0 = (int64_t)blockIdx.z * S::Z;
  const int tx = threadIdx.x % S::X, ty = threadIdx.x / S::X % S::Y, tz = threadIdx.x / (S::X * S::Y);
  const uint32_t own = cl_pd_tile_point<DIM>(a, x0 + tx, y0 + ty, z0 + tz);
  const bool asked = own != CL_PD_ABSENT && own - a.row0 < rows;
  if (!__syncthreads_or(asked)) return;
  for (int q = threadIdx.x; q < H::CELLS; q += blockDim.x) {
    const int qy = q / H::X; /* in 2D the row; in 3D row and plane */
    const uint32_t j = cl_pd_tile_point<DIM>(a, x0 - R + q % H::X, y0 - R + (DIM == 2 ? qy : qy % H::Y),
                                             DIM == 2 ? 0 : z0 - RZ + qy / H::Y);
    point[q] = j;
    if (j == CL_PD_ABSENT) continue;
    for (int c = 0; c < DIM; c++) tile_u[c * H::CELLS + q] = u[c * a.n + j];
    if (G && g)
      for (int c = 0; c < DIM; c++) tile_g[c * H::CELLS + q] = g[c * a.n + j];
  }
  __syncthreads();
  if (!asked) return;
  const uint32_t i = own;
  const int home = ((tz + RZ) * H::Y + ty + R) * H::X + tx + R;
  real ui[3] = {0, 0, 0}, gi[3] = {0, 0, 0}, uj[3] = {0, 0, 0}, gj[3] = {0, 0, 0};
  for (int c = 0; c < DIM; c++) ui[c] = tile_u[c * H::CELLS + home];
  if (g) /* the point's own factors: from the tile where it holds them, else from global memory */
    for (int c = 0; c < DIM; c++) gi[c] = G ? tile_g[c * H::CELLS + home] : g[c * a.n + i];
  cl_pd_partial p = {};
#pragma unroll
  for (int w = 0; w < (K + 31) / 32; w++) {
    const uint32_t state = a.broken[w * a.n + i];
    uint32_t broken = 0;
#pragma unroll
    for (int k = 32 * w; k < K && k < 32 * w + 32; k++) {
      const int *step = cl_pd_tile_stencil_of<DIM, K, R>.step[k];
      const int q = home + step[0] + H::X * (step[1] + H::Y * step[2]);
      const uint32_t j = point[q];
      if (j == CL_PD_ABSENT) continue;
      for (int c = 0; c < DIM; c++) uj[c] = tile_u[c * H::CELLS + q];
      if (G && g)
        for (int c = 0; c < DIM; c++) gj[c] = tile_g[c * H::CELLS + q];
      cl_pd_lattice_bond_to(&a, &m, DIM, i, j, k, t.geometry[k], t.fraction[k], uj, ui, gi, G ? gj : NULL, state,
                            &broken, &p);
    }
    cl_pd_store_broken(&a.broken[w * a.n + i], state, broken);
  }
  cl_pd_finish_from(&a, &m, DIM, i, &p, ui); /* the drift starts from the tile's copy of u(n) */
}

#endif
