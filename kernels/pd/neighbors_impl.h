/* The peridynamic neighbour search behind kernels/pd/neighbors.h: the math
 * shared by the cpu loops and the cuda kernels (cell coordinates, Morton
 * codes, the bond test, the visit of a point's neighbouring cells, the row
 * sort), and the entry points of the two backends for neighbors.c.
 *
 * Every decision (which cell a point falls in, whether two points are
 * bonded) is made in double with one rounding per operation, so both
 * backends find exactly the same bonds. */
#ifndef CL_PD_NEIGHBORS_IMPL_H
#define CL_PD_NEIGHBORS_IMPL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/real.h"

#ifdef __cplusplus
extern "C" {
#endif
#include "../../runtime/status.h"
#ifdef __cplusplus
}
#endif

/* A uniform grid of cells over the points' bounding box. */
typedef struct cl_pd_grid {
  int dim;              /* 2 or 3 */
  double origin[3];     /* bounding-box minimum per axis (0 on unused axes) */
  double cell;          /* side of a cell */
  uint32_t max_cell[3]; /* highest cell coordinate per axis (0 on unused axes) */
} cl_pd_grid;

/* The cell list of the bond search, in the device's memory. */
typedef struct cl_pd_cells {
  cl_pd_grid grid;        /* cells of side >= delta: bonds only join adjacent cells */
  double delta2;          /* squared horizon */
  const uint32_t *sorted; /* point indices by cell, ascending within a cell */
  const void *xs;         /* the coordinates in that order (SoA, type real), read contiguously */
  const uint32_t *start;  /* per cell: its first position in sorted (0 when empty) */
  const uint32_t *end;    /* per cell: one past its last position (0 when empty) */
} cl_pd_cells;

/* The search loop is specialised per dimension: forced inline, so that dim
 * is a constant (2D drops the z axis) and the count pass drops the writes. */
#if defined(__CUDACC__)
#define CL_PD_ALWAYS_INLINE static __forceinline__
#elif defined(__GNUC__)
#define CL_PD_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define CL_PD_ALWAYS_INLINE static inline
#endif

/* Rows that do not come out sorted are sorted by insertion up to this length
 * (they arrive as a few ascending runs, one per cell) and by heapsort
 * beyond, so that a row of any length costs O(k log k) at worst. */
#define CL_PD_INSERTION_SORT_MAX 64

/* Coordinates of point i as doubles (SoA: component c at x[c*n + i]). */
CL_HD static inline void cl_pd_point(const real *x, size_t n, size_t i, int dim, double p[3]) {
  p[0] = (double)x[i];
  p[1] = (double)x[n + i];
  p[2] = dim == 3 ? (double)x[2 * n + i] : 0.0;
}

/* Squared distance, ((dx^2 + dy^2) + dz^2), each product rounded on its own
 * (cl_mul_rn) so that the cpu and the gpu decide bonds at |x_j - x_i| = delta
 * alike. Written without an axis loop, which -O2 would not unroll in the
 * search loop. */
CL_HD static inline double cl_pd_dist2(const double a[3], const double b[3], int dim) {
  double dx = b[0] - a[0], dy = b[1] - a[1];
  double s = cl_mul_rn(dx, dx);
  double t = cl_mul_rn(dy, dy);
  s = s + t;
  if (dim == 3) {
    double dz = b[2] - a[2];
    double u = cl_mul_rn(dz, dz);
    s = s + u;
  }
  return s;
}

/* Cell coordinate along one axis: floor((x - origin) / cell). The caller
 * has checked that it fits the grid (origin is the minimum, so it is >= 0). */
CL_HD static inline uint32_t cl_pd_cell_coord(double x, double origin, double cell) {
  return (uint32_t)floor((x - origin) / cell);
}

CL_HD static inline void cl_pd_cell_of(const cl_pd_grid *g, const double p[3], uint32_t c[3]) {
  for (int a = 0; a < 3; a++) c[a] = a < g->dim ? cl_pd_cell_coord(p[a], g->origin[a], g->cell) : 0;
}

/* Spreads the 32 bits of v so that bit k lands at bit 2k. */
CL_HD static inline uint64_t cl_pd_spread2(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

/* Spreads the low 21 bits of v so that bit k lands at bit 3k. */
CL_HD static inline uint64_t cl_pd_spread3(uint32_t v) {
  uint64_t x = v & 0x1FFFFFu;
  x = (x | (x << 32)) & 0x001F00000000FFFFull;
  x = (x | (x << 16)) & 0x001F0000FF0000FFull;
  x = (x | (x << 8)) & 0x100F00F00F00F00Full;
  x = (x | (x << 4)) & 0x10C30C30C30C30C3ull;
  x = (x | (x << 2)) & 0x1249249249249249ull;
  return x;
}

/* Morton code of a cell: the bits of its coordinates interleaved, x lowest
 * (32 bits per axis in 2D, 21 in 3D). */
CL_HD static inline uint64_t cl_pd_morton(int dim, const uint32_t c[3]) {
  if (dim == 2) return cl_pd_spread2(c[0]) | cl_pd_spread2(c[1]) << 1;
  return cl_pd_spread3(c[0]) | cl_pd_spread3(c[1]) << 1 | cl_pd_spread3(c[2]) << 2;
}

CL_HD static inline uint64_t cl_pd_point_morton(const cl_pd_grid *g, const real *x, size_t n,
                                                size_t i) {
  double p[3];
  uint32_t c[3];
  cl_pd_point(x, n, i, g->dim, p);
  cl_pd_cell_of(g, p, c);
  return cl_pd_morton(g->dim, c);
}

/* The number of cells of the grid. */
CL_HD static inline size_t cl_pd_grid_cells(const cl_pd_grid *g) {
  size_t cells = 1;
  for (int a = 0; a < g->dim; a++) cells *= (size_t)g->max_cell[a] + 1;
  return cells;
}

/* Row-major cell index, x fastest (the host keeps the cell count below 2^32). */
CL_HD static inline uint32_t cl_pd_cell_key(const cl_pd_grid *g, uint32_t cx, uint32_t cy,
                                            uint32_t cz) {
  uint64_t nx = (uint64_t)g->max_cell[0] + 1, ny = (uint64_t)g->max_cell[1] + 1;
  return (uint32_t)(((uint64_t)cz * ny + cy) * nx + cx);
}

CL_HD static inline uint32_t cl_pd_point_cell_key(const cl_pd_grid *g, const real *x, size_t n,
                                                  size_t i) {
  double p[3];
  uint32_t c[3];
  cl_pd_point(x, n, i, g->dim, p);
  cl_pd_cell_of(g, p, c);
  return cl_pd_cell_key(g, c[0], c[1], c[2]);
}

/* For position k of the cell-sorted keys: records where its cell's run
 * starts or ends (the arrays were zeroed; every cell is written once). */
CL_HD static inline void cl_pd_mark_cell_run(const uint64_t *keys, size_t n, size_t k,
                                             uint32_t *start, uint32_t *end) {
  uint64_t key = keys[k];
  if (k == 0 || keys[k - 1] != key) start[key] = (uint32_t)k;
  if (k + 1 == n || keys[k + 1] != key) end[key] = (uint32_t)(k + 1);
}

/* The non-empty cells of the block lo..hi as ranges [first, past) of the
 * cell-sorted order, ordered by the smallest point index in each (its
 * first point). When the points are in Morton order of the same cells,
 * each cell holds a block of consecutive indices, and visiting the cells in
 * this order yields rows that are already sorted. Returns the count (<= 27). */
CL_HD static inline int cl_pd_cells_by_index(const cl_pd_cells *cl, const uint32_t lo[3],
                                             const uint32_t hi[3], uint32_t first[27],
                                             uint32_t past[27]) {
  uint32_t lead[27];
  int m = 0;
  for (uint32_t cz = lo[2]; cz <= hi[2]; cz++)
    for (uint32_t cy = lo[1]; cy <= hi[1]; cy++)
      for (uint32_t cx = lo[0]; cx <= hi[0]; cx++) {
        uint32_t key = cl_pd_cell_key(&cl->grid, cx, cy, cz), e = cl->end[key];
        if (e == 0) continue;
        uint32_t s = cl->start[key], head = cl->sorted[s];
        int at = m++;
        for (; at > 0 && lead[at - 1] > head; at--) {
          lead[at] = lead[at - 1];
          first[at] = first[at - 1];
          past[at] = past[at - 1];
        }
        lead[at] = head;
        first[at] = s;
        past[at] = e;
      }
  return m;
}

/* Counts the points j != i with |x_j - x_i|^2 < delta^2 in the 3^dim cells
 * around point i; when row is not NULL, writes them there, in the order of
 * cl_pd_cells_by_index (ascending within each cell), and sets *ascending to
 * whether the whole row came out ascending. */
CL_HD CL_PD_ALWAYS_INLINE uint32_t cl_pd_find_bonds_dim(const cl_pd_cells *cl, const real *x,
                                                        size_t n, size_t i, uint32_t *row,
                                                        int *ascending, const int dim) {
  const cl_pd_grid *g = &cl->grid;
  const real *xs = (const real *)cl->xs;
  double p[3], q[3];
  uint32_t c[3], lo[3], hi[3], first[27], past[27], count = 0, last = 0;
  int rising = 1;
  cl_pd_point(x, n, i, dim, p);
  cl_pd_cell_of(g, p, c);
  for (int a = 0; a < 3; a++) {
    lo[a] = c[a] > 0 ? c[a] - 1 : 0;
    hi[a] = c[a] < g->max_cell[a] ? c[a] + 1 : c[a];
  }
  int cells = cl_pd_cells_by_index(cl, lo, hi, first, past);
  for (int b = 0; b < cells; b++)
    for (uint32_t k = first[b]; k < past[b]; k++) {
      uint32_t j = cl->sorted[k];
      if (j == i) continue;
      cl_pd_point(xs, n, k, dim, q);
      if (cl_pd_dist2(p, q, dim) < cl->delta2) {
        if (row) {
          row[count] = j;
          rising &= count == 0 || j > last;
          last = j;
        }
        count++;
      }
    }
  if (ascending) *ascending = rising;
  return count;
}

/* The number of bonds of point i. */
CL_HD CL_PD_ALWAYS_INLINE uint32_t cl_pd_count_row(const cl_pd_cells *cl, const real *x,
                                                   size_t n, size_t i) {
  if (cl->grid.dim == 2) return cl_pd_find_bonds_dim(cl, x, n, i, NULL, NULL, 2);
  return cl_pd_find_bonds_dim(cl, x, n, i, NULL, NULL, 3);
}

CL_HD static inline void cl_pd_insertion_sort(uint32_t *a, uint32_t len) {
  for (uint32_t k = 1; k < len; k++) {
    uint32_t v = a[k], at = k;
    for (; at > 0 && a[at - 1] > v; at--) a[at] = a[at - 1];
    a[at] = v;
  }
}

/* Restores the max-heap below root in a[0..len). */
CL_HD static inline void cl_pd_sift_down(uint32_t *a, uint32_t root, uint32_t len) {
  uint32_t v = a[root];
  for (;;) {
    uint32_t child = 2 * root + 1;
    if (child >= len) break;
    if (child + 1 < len && a[child + 1] > a[child]) child++;
    if (a[child] <= v) break;
    a[root] = a[child];
    root = child;
  }
  a[root] = v;
}

CL_HD static inline void cl_pd_heap_sort(uint32_t *a, uint32_t len) {
  for (uint32_t k = len / 2; k-- > 0;) cl_pd_sift_down(a, k, len);
  for (uint32_t last = len; last-- > 1;) {
    uint32_t top = a[0];
    a[0] = a[last];
    a[last] = top;
    cl_pd_sift_down(a, 0, last);
  }
}

CL_HD static inline void cl_pd_sort_row(uint32_t *row, uint32_t len) {
  if (len <= CL_PD_INSERTION_SORT_MAX) cl_pd_insertion_sort(row, len);
  else cl_pd_heap_sort(row, len);
}

/* Writes the bonds of point i into row, ascending. Rows usually come out of
 * the cells ascending (after a Morton order); only the others are sorted,
 * so the row is never read back in the usual case. */
CL_HD CL_PD_ALWAYS_INLINE void cl_pd_write_row(const cl_pd_cells *cl, const real *x, size_t n,
                                               size_t i, uint32_t *row) {
  int ascending;
  uint32_t len = cl->grid.dim == 2 ? cl_pd_find_bonds_dim(cl, x, n, i, row, &ascending, 2)
                                   : cl_pd_find_bonds_dim(cl, x, n, i, row, &ascending, 3);
  if (!ascending) cl_pd_sort_row(row, len);
}

/* ---- backend entry points (neighbors_cpu.c, neighbors_cuda.cu) ----------
 * The real-typed ones exist as _f32 and _f64 (each file is compiled once per
 * precision); x is SoA of that type. All pointers are in the device's memory
 * except the structs. They fail only on allocation or cuda errors. */
#ifdef __cplusplus
extern "C" {
#endif

#define CL_PD_BOTH_PRECISIONS(name, params) \
  cl_status name##_f32 params;              \
  cl_status name##_f64 params;

/* order = point indices stably sorted by the Morton code of their cell in
 * g (codes use the low key_bits bits); bin_points = point indices stably
 * sorted by row-major cell key, and each cell's run in them (start/end hold
 * one entry per cell of g); count_bonds = each point's bond count into
 * counts[0..n) (counts[n] = 0) and its exclusive prefix sum into offsets
 * (n + 1 entries, wrapping past 2^32 - 1: the caller checks the total);
 * write_bonds = each row of the CSR list, sorted ascending (nbonds, the
 * list's length, lets the cuda backend pick its kernel). */
#define CL_PD_BACKEND(sfx)                                                                   \
  CL_PD_BOTH_PRECISIONS(cl_pd_morton_order_##sfx,                                            \
                        (const cl_pd_grid *g, size_t n, const void *x, int key_bits,         \
                         uint32_t *order, cl_error *err))                                    \
  CL_PD_BOTH_PRECISIONS(cl_pd_bin_points_##sfx,                                              \
                        (const cl_pd_grid *g, size_t n, const void *x, int key_bits,         \
                         uint32_t *sorted, uint32_t *start, uint32_t *end, cl_error *err))   \
  CL_PD_BOTH_PRECISIONS(cl_pd_count_bonds_##sfx,                                             \
                        (const cl_pd_cells *cells, size_t n, const void *x, uint32_t *counts, \
                         uint32_t *offsets, cl_error *err))                                  \
  CL_PD_BOTH_PRECISIONS(cl_pd_write_bonds_##sfx,                                             \
                        (const cl_pd_cells *cells, size_t n, const void *x,                  \
                         const uint32_t *offsets, uint32_t *neighbors, size_t nbonds,      \
                         cl_error *err))

CL_PD_BACKEND(cpu)
CL_PD_BACKEND(cuda)

/* dst[c*n + i] = src[c*n_src + order[i]] for elements of elem_size bytes (1, 4
 * or 8); element-type generic, so built in the f64 copy of each file only. */
cl_status cl_pd_gather_cpu(size_t elem_size, size_t n_src, size_t n, int k, const void *src,
                           const uint32_t *order, void *dst, cl_error *err);
cl_status cl_pd_gather_cuda(size_t elem_size, size_t n_src, size_t n, int k, const void *src,
                            const uint32_t *order, void *dst, cl_error *err);

#ifdef __cplusplus
}
#endif

#endif
