/* The arguments of the peridynamic step kernel (force.h), in a header that
 * every kernel compiler takes, NVRTC included: run-time compiled bond laws
 * (jit/) launch the same kernels with the same arguments. */
#ifndef CL_PD_FORCE_ARGS_H
#define CL_PD_FORCE_ARGS_H

#include "../common/grid.h"
#include "../common/portable.h"

/* CL_PD_GROUPn: n lanes per point (CL_PD_GROUP4 is "group"; CL_PD_POINT is the fastest measured);
 * CL_PD_HALF: a thread per point, each lattice bond computed once (half_stencil.h; lattice only,
 * without energies: other cases run CL_PD_POINT). Variants of CL_PD_POINT for benchmarks, equal to
 * it on the CPU: CL_PD_WALK, the stencil walked from global memory (what CL_PD_POINT runs for
 * stencils without a launch-constant table, stencil_table.cuh); CL_PD_TILE, u of a block's tile of
 * grid cells and its halo in shared memory (stencil_tile.cuh; lattice at 3.015 dx, no energies:
 * other cases run CL_PD_POINT); CL_PD_TILE6, the same with 3D tiles 6 cells deep instead of 4
 * (8 x 8 x 6, blocks of 384 threads; 2D as CL_PD_TILE), for the 3D f64 step, whose 8 x 8 x 4 tile
 * (55 KB of shared memory and 52 registers a block of 256) lets 4 blocks, 32 warps, run on an H100
 * SM: 8 x 8 x 6 (64 KB, 384 threads) lets 3 blocks, 36 warps, and loads 6.1 halo cells a point
 * instead of 7.7. Not measured yet: not the default. */
typedef enum cl_pd_kernel {
  CL_PD_POINT = 0, CL_PD_HALF = 1, CL_PD_WALK = 2, CL_PD_TILE = 3, CL_PD_TILE6 = 5,
  CL_PD_GROUP4 = 4, CL_PD_GROUP8 = 8, CL_PD_GROUP16 = 16, CL_PD_GROUP32 = 32
} cl_pd_kernel;

#define CL_PD_LAW_STATE_MAX 4

/* Pointers are device arrays in the precision of the kernel called (f32/f64);
 * vectors are SoA with dim components. */
typedef struct cl_pd_force_args {
  size_t n;
  size_t row0, rows;        /* the rows computed: row0 .. row0 + rows - 1 (rows = 0: row0 .. n - 1), so that a
                               partitioned body's interior rows run while its halo is in flight; strides stay n */
  int dim;
  const void *x;            /* reference coordinates */
  const void *u;            /* displacements */
  void *a;                  /* out: accelerations */
  const void *volume;       /* per-point volumes, or NULL: uniform_volume */
  double uniform_volume;
  const void *body;         /* body force per volume (SoA), or NULL */
  const void *surface;      /* surface correction factors per point and axis (SoA), or NULL */
  /* bonds: a CSR list (offsets != NULL) or a grid body's lattice (kernels/pd/lattice.h) */
  const uint32_t *offsets;  /* CSR rows, n + 1 */
  uint32_t *neighbors;      /* bond targets; CL_PD_BROKEN marks broken bonds (updated here) */
  const uint32_t *map, *cell; /* lattice: cell -> point, point -> cell */
  const int32_t *stencil;   /* lattice: map offset of each step */
  const void *stencil_geometry; /* lattice: per step xi (dim), |xi|, 1 / |xi| (AoS, dim + 2 per step) */
  uint32_t nstencil;
  size_t map_dims[3];       /* lattice: padded map extent per axis (lattice.h: dims) */
  const int32_t *stencil_host;  /* lattice: host copies of stencil and stencil_geometry, for kernels that */
  const void *stencil_geometry_host; /* take the stencil as launch constants (stencil_table.cuh); or NULL */
  uint32_t *broken;         /* lattice: bond-state bits, ceil(nstencil / 32) words x n (updated here) */
  void *damage;             /* out per point, or NULL */
  void *energy;             /* out: strain energy density per point, or NULL */
  double c, s0, rho, delta, dx; /* s0 <= 0: no breaking; dx <= 0: no partial volumes */
  uint64_t *nonfinite;      /* or NULL; else receives 1 + the index of a point whose
                               acceleration came out NaN or infinite (stays 0 if none) */
  void *v;                  /* or NULL; else the closing Verlet kick is fused here: v += dt/2 a (cl_verlet_kick with
                               kick_dt) after a is written, except components whose bit c of kick_held[i] is set */
  double kick_dt;
  const uint8_t *kick_held; /* or NULL: per point, bit c set = component c is prescribed (its v is not kicked) */
  void *u_next;             /* or NULL; else (with v) the next step's opening kick-drift is fused here too: on entry v
                               holds v(n-1) and a a(n-1), which the kernel kicks to v(n-1/2) before it overwrites a, then
                               to v(n) (stored), and it writes u(n+1) = u(n) + dt (v(n) + dt/2 a(n)) to u_next; the
                               held components are left to the step's stages (advance.h) */
  void *law_state[CL_PD_LAW_STATE_MAX]; /* a run-time law's per-bond state variables (real): the
                               slot of bond entry b of a list is b; of stencil entry k of point i
                               on a lattice, k n + i */
} cl_pd_force_args;

/* One past the last row a launch computes. */
#define CL_PD_ROWS_END(a) ((a)->rows ? (a)->row0 + (a)->rows : (a)->n)

#ifndef __CUDACC_RTC__
/* Blocks of CL_THREADS threads for a launch of kernel shape `kernel` over n points. */
static inline unsigned cl_pd_blocks(size_t n, cl_pd_kernel kernel) {
  const int group = kernel == CL_PD_GROUP4 || kernel == CL_PD_GROUP8 || kernel == CL_PD_GROUP16 || kernel == CL_PD_GROUP32;
  if (!group) return cl_grid_1d(n); /* a thread per point */
  return (unsigned)((n * (size_t)kernel + CL_THREADS - 1) / CL_THREADS);
}
#endif

#endif
