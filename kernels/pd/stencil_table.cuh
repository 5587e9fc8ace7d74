/* The lattice step with the stencil as constants of the launch (the default "point" kernel on the
 * GPU for the stencils listed in force_cuda.cu). The generic walk (point_force.h,
 * cl_pd_lattice_row) reads each entry's map offset, xi, |xi| and 1 / |xi| from global memory and
 * counts k at run time: per bond five loads, their 64-bit address arithmetic and the loop control.
 * Here the count K is a template constant and the table a kernel parameter, so that the fully
 * unrolled loop finds each entry at a fixed address of the parameter bank (an operand of the
 * instruction that uses it), its bond-state bit as an immediate, and the neighbour's map cell at
 * the point's own cell plus a constant. The bond itself is cl_pd_lattice_bond, as on the CPU. */
#ifndef CL_PD_STENCIL_TABLE_CUH
#define CL_PD_STENCIL_TABLE_CUH

#include <string.h>

#include "point_force.h"

template <int DIM, int K>
struct cl_pd_stencil_table {
  int32_t offset[K];          /* map index step of each entry */
  real geometry[K][DIM + 2];  /* xi, |xi|, 1 / |xi| */
  real fraction[K];           /* partial-volume fraction (cl_pd_volume_fraction of |xi|), or with a
                                 uniform volume the bond's weight V beta (cl_pd_table_args) */
};

/* The table from the lattice's host copies (force_args.h: stencil_host, stencil_geometry_host) and
 * the material's horizon (the fractions: the same function in the same precision as the CPU's);
 * uniform: the body's volume is uniform and the fractions are multiplied by it here, in the
 * precision of the kernel as the CPU multiplies them, instead of in every bond. */
template <int DIM, int K>
static cl_pd_stencil_table<DIM, K> cl_pd_make_table(const cl_pd_force_args *a, const cl_pd_pmb &m, bool uniform) {
  cl_pd_stencil_table<DIM, K> t;
  memcpy(t.offset, a->stencil_host, sizeof t.offset);
  memcpy(t.geometry, a->stencil_geometry_host, sizeof t.geometry);
  for (int k = 0; k < K; k++)
    t.fraction[k] = (uniform ? (real)a->uniform_volume : (real)1) * cl_pd_volume_fraction(&m, t.geometry[k][DIM]);
  return t;
}

template <int DIM, int K>
static __device__ __forceinline__ void cl_pd_table_row(const cl_pd_force_args *a, const cl_pd_pmb *m,
                                                       const cl_pd_stencil_table<DIM, K> &t, size_t i,
                                                       cl_pd_partial *p) {
  const uint32_t home = a->cell[i]; /* map cells fit 31 bits (lattice.c): 32-bit sums, one wide multiply */
  real ui[3], gi[3];
  cl_pd_load_point(a, DIM, i, ui, gi);
#pragma unroll
  for (int w = 0; w < (K + 31) / 32; w++) {
    const uint32_t state = a->broken[w * a->n + i];
    uint32_t broken = 0;
#pragma unroll
    for (int k = 32 * w; k < K && k < 32 * w + 32; k++) {
      const uint32_t j = a->map[home + (uint32_t)t.offset[k]];
      if (j != CL_PD_ABSENT) cl_pd_lattice_bond(a, m, DIM, i, j, k, t.geometry[k], t.fraction[k], ui, gi, state, &broken, p);
    }
    cl_pd_store_broken(&a->broken[w * a->n + i], state, broken);
  }
}

/* The per-bond weights an unrolled instance serves (issue 19): the general one tests for per-point
 * volumes and the surface correction at every bond; PLAIN bodies (uniform volume, no correction:
 * the benchmarks') and SURFACE ones (uniform volume with the correction: the default for shapes)
 * have instances without the tests and the volume's conversion in the unrolled loop (2D f32 PLAIN:
 * ~85 instructions per bond without this, ~50 with it; pd_sass/count.sh). */
enum { CL_PD_WEIGHTS_ANY = 0, CL_PD_WEIGHTS_PLAIN = 1, CL_PD_WEIGHTS_SURFACE = 2 };

static inline int cl_pd_weights_of(const cl_pd_force_args *a) {
  return a->volume ? CL_PD_WEIGHTS_ANY : a->surface ? CL_PD_WEIGHTS_SURFACE : CL_PD_WEIGHTS_PLAIN;
}

/* Arguments as the kernels below see them: energies are never asked of them (force_cuda.cu); the
 * instances with a uniform volume have it in their table's fractions (cl_pd_make_table). */
template <int WEIGHTS>
static __device__ __forceinline__ void cl_pd_table_args(cl_pd_force_args *a) {
  a->energy = NULL;
  if (WEIGHTS != CL_PD_WEIGHTS_ANY) a->volume = NULL, a->uniform_volume = 1;
  if (WEIGHTS == CL_PD_WEIGHTS_PLAIN) a->surface = NULL;
  if (WEIGHTS == CL_PD_WEIGHTS_SURFACE) __builtin_assume(a->surface != NULL);
}

template <int DIM, int K, int WEIGHTS>
__global__ void CL_PREC(pd_table_kernel)(cl_pd_force_args a, cl_pd_pmb m, const cl_pd_stencil_table<DIM, K> t) {
  cl_pd_table_args<WEIGHTS>(&a);
  CL_GRID_STRIDE(r, CL_PD_ROWS_END(&a) - a.row0) { /* the rows asked for (a partitioned step's interior or rest) */
    const size_t i = a.row0 + r;
    cl_pd_partial p = {};
    cl_pd_table_row<DIM, K>(&a, &m, t, i, &p);
    cl_pd_finish(&a, &m, DIM, i, &p);
  }
}

#endif
