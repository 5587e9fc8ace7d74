/* Peridynamic bond lists (neighbors.h): argument checks, the bounding box
 * and the cell grids, the buffers of the two-pass search, and the choice of
 * the cpu or cuda entry points (declared in neighbors_impl.h). */
#include "neighbors.h"

#include <math.h>
#include <string.h>

#include "../../runtime/field.h"
#include "../dispatch.h"
#include "neighbors_impl.h"

/* cuda entry points exist only in a CUDA build; a cuda device cannot be
 * opened otherwise, so that branch is then unreachable. */
#ifdef CLEAVE_HAVE_CUDA
#define CUDA_ENTRY(real, name, args) ((real) == CL_F32 ? name##_cuda_f32 args : name##_cuda_f64 args)
#else
#define CUDA_ENTRY(real, name, args) \
  cl_error_set(err, CL_ERR_UNAVAILABLE, "%s: this build has no cuda backend", #name)
#endif

/* Calls the entry point `name` of the device's backend for the precision `real`. */
#define BACKEND_CALL(d, real, name, args)                                                    \
  ((d)->kind == CL_BACKEND_CPU                                                               \
       ? ((real) == CL_F32 ? name##_cpu_f32 args : name##_cpu_f64 args)                      \
       : CUDA_ENTRY(real, name, args))

/* Bond cells are this much wider than delta, which absorbs the rounding of
 * floor((x - origin) / cell) (below 2e-6 cells at 2^32 cells per axis): two
 * points closer than delta are then never two cells apart. */
#define BOND_CELL_WIDENING (1.0 + 1.0 / 65536)

static const char AXIS[] = "xyz";

typedef struct box {
  double lo[3], hi[3];
} box;

static cl_status check_points(const char *fn, cl_dtype real, int dim, size_t n, const void *x,
                              cl_error *err) {
  if (real != CL_F32 && real != CL_F64)
    return cl_error_set(err, CL_ERR_ARG, "%s: coordinates must be f32 or f64 (got %s)", fn,
                        cl_dtype_name(real));
  if (dim != 2 && dim != 3)
    return cl_error_set(err, CL_ERR_ARG, "%s: dim must be 2 or 3 (got %d)", fn, dim);
  if (n > UINT32_MAX)
    return cl_error_set(err, CL_ERR_ARG,
                        "%s: %zu points; point indices are u32, so at most 4294967295", fn, n);
  if (n > 0 && !x) return cl_error_set(err, CL_ERR_ARG, "%s: the coordinates x are NULL", fn);
  return CL_OK;
}

/* Per axis: min and max, and a sum, whose NaN reveals a NaN coordinate (min
 * and max skip NaNs). */
static cl_status bounding_box(cl_device *d, const char *fn, cl_dtype real, int dim, size_t n,
                              const void *x, box *b, cl_error *err) {
  size_t axis_bytes = n * cl_dtype_size(real);
  memset(b, 0, sizeof *b);
  for (int a = 0; a < dim; a++) {
    const char *xa = (const char *)x + (size_t)a * axis_bytes;
    double sum;
    CL_TRY(cl_k_reduce(d, real, xa, n, CL_REDUCE_MIN, &b->lo[a], err));
    CL_TRY(cl_k_reduce(d, real, xa, n, CL_REDUCE_MAX, &b->hi[a], err));
    CL_TRY(cl_k_reduce(d, real, xa, n, CL_REDUCE_SUM, &sum, err));
    if (isnan(sum) || isinf(b->lo[a]) || isinf(b->hi[a]))
      return cl_error_set(err, CL_ERR_ARG, "%s: coordinate %c of some point is NaN or infinite",
                          fn, AXIS[a]);
  }
  return CL_OK;
}

/* Cells of side `cell` from the box's minimum. The highest cell coordinate
 * along an axis is computed exactly as the kernels compute a point's, at
 * the maximum; it must stay below `limit`. */
static cl_status grid_over_box(const char *fn, const box *b, int dim, double cell, double limit,
                               const char *fix, cl_pd_grid *g, cl_error *err) {
  memset(g, 0, sizeof *g);
  g->dim = dim;
  g->cell = cell;
  for (int a = 0; a < dim; a++) {
    double top = floor((b->hi[a] - b->lo[a]) / cell);
    if (!(top < limit))
      return cl_error_set(err, CL_ERR_ARG,
                          "%s: the points span %.4g cells of side %g along %c (from %g to %g), "
                          "more than the %.0f possible: %s",
                          fn, top + 1, cell, AXIS[a], b->lo[a], b->hi[a], limit, fix);
    g->origin[a] = b->lo[a];
    g->max_cell[a] = (uint32_t)top;
  }
  return CL_OK;
}

static int bit_width(uint64_t v) {
  int bits = 0;
  for (; v; v >>= 1) bits++;
  return bits;
}

/* ---- Morton order ------------------------------------------------------- */

cl_status cl_pd_morton_order(cl_device *d, cl_dtype real, int dim, size_t n, const void *x,
                             double cell_size, uint32_t *order, cl_error *err) {
  const char *fn = "cl_pd_morton_order";
  CL_TRY(check_points(fn, real, dim, n, x, err));
  if (!(cell_size > 0) || isinf(cell_size))
    return cl_error_set(err, CL_ERR_ARG, "%s: cell_size must be a positive finite length (got %g)",
                        fn, cell_size);
  if (n == 0) return CL_OK;
  if (!order) return cl_error_set(err, CL_ERR_ARG, "%s: the output order is NULL", fn);
  box b;
  cl_pd_grid g;
  CL_TRY(bounding_box(d, fn, real, dim, n, x, &b, err));
  /* Morton codes hold 21 bits per axis in 3D, 32 in 2D */
  double limit = dim == 3 ? 2097152.0 : 4294967296.0;
  CL_TRY(grid_over_box(fn, &b, dim, cell_size, limit, "use a larger cell_size", &g, err));
  int axis_bits = 0;
  for (int a = 0; a < dim; a++) {
    int bits = bit_width(g.max_cell[a]);
    if (bits > axis_bits) axis_bits = bits;
  }
  return BACKEND_CALL(d, real, cl_pd_morton_order, (&g, n, x, dim * axis_bits, order, err));
}

/* ---- gather ------------------------------------------------------------- */

/* The backend's gather, for arguments already checked. */
static cl_status gather_rows(cl_device *d, size_t elem, size_t n_src, size_t n, int k, const void *src,
                             const uint32_t *order, void *dst, cl_error *err) {
  if (d->kind == CL_BACKEND_CPU) return cl_pd_gather_cpu(elem, n_src, n, k, src, order, dst, err);
#ifdef CLEAVE_HAVE_CUDA
  return cl_pd_gather_cuda(elem, n_src, n, k, src, order, dst, err);
#else
  return cl_error_set(err, CL_ERR_UNAVAILABLE, "cl_pd_gather: this build has no cuda backend");
#endif
}

cl_status cl_pd_gather_rows(cl_device *d, cl_dtype t, size_t n_src, size_t n, int k, const void *src,
                            const uint32_t *order, void *dst, cl_error *err) {
  const char *fn = "cl_pd_gather";
  if ((unsigned)t >= CL_DTYPE_COUNT)
    return cl_error_set(err, CL_ERR_ARG, "%s: unknown element type %d", fn, (int)t);
  if (k < 1) return cl_error_set(err, CL_ERR_ARG, "%s: k (components) must be >= 1 (got %d)", fn, k);
  if (n > UINT32_MAX || n_src > UINT32_MAX)
    return cl_error_set(err, CL_ERR_ARG, "%s: %zu rows; order is u32, so at most 4294967295", fn, n > n_src ? n : n_src);
  if (n == 0) return CL_OK;
  if (!src || !dst || !order)
    return cl_error_set(err, CL_ERR_ARG, "%s: src, order and dst must not be NULL", fn);
  if (src == dst)
    return cl_error_set(err, CL_ERR_ARG, "%s: src and dst must be distinct arrays", fn);
  /* an index past the end would read outside src: one reduction rules it out */
  double top;
  CL_TRY(cl_k_reduce(d, CL_U32, order, n, CL_REDUCE_MAX, &top, err));
  if (top >= (double)n_src)
    return cl_error_set(err, CL_ERR_ARG, "%s: order holds the index %.0f, but there are %zu rows",
                        fn, top, n_src);
  return gather_rows(d, cl_dtype_size(t), n_src, n, k, src, order, dst, err);
}

cl_status cl_pd_gather_rows_trusted(cl_device *d, cl_dtype t, size_t n_src, size_t n, int k, const void *src,
                                    const uint32_t *order, void *dst, cl_error *err) {
  if (n == 0) return CL_OK;
  return gather_rows(d, cl_dtype_size(t), n_src, n, k, src, order, dst, err);
}

cl_status cl_pd_gather(cl_device *d, cl_dtype t, size_t n, int k, const void *src,
                       const uint32_t *order, void *dst, cl_error *err) {
  return cl_pd_gather_rows(d, t, n, n, k, src, order, dst, err);
}

/* ---- bonds --------------------------------------------------------------- */

/* The cell list's temporaries, carved from one device allocation. */
typedef struct cell_list {
  void *block;
  uint32_t *sorted, *start, *end, *counts;
  void *xs;
} cell_list;

static cl_status alloc_bytes(cl_device *d, void **p, size_t bytes, const char *what,
                             cl_error *err) {
  cl_error why = {0};
  *p = NULL;
  if (d->alloc(d, p, bytes, &why) == CL_OK) return CL_OK;
  return cl_error_set(err, why.code, "cl_pd_build_bonds: cannot allocate %zu bytes for %s (%s)",
                      bytes, what, why.msg);
}

static cl_status alloc_u32(cl_device *d, uint32_t **p, size_t count, const char *what,
                           cl_error *err) {
  void *block;
  CL_TRY(alloc_bytes(d, &block, count * sizeof **p, what, err));
  *p = block;
  return CL_OK;
}

/* The cell grid of the bond search: cells of side >= delta, and no more of
 * them than 16 per point (at least 2^20), since start/end hold every cell
 * of the box. */
static cl_status bond_grid(const box *b, int dim, size_t n, double delta, cl_pd_grid *g,
                           cl_error *err) {
  const char *fn = "cl_pd_build_bonds";
  double cell = delta * BOND_CELL_WIDENING;
  CL_TRY(grid_over_box(fn, b, dim, cell, (double)UINT32_MAX - 1,
                       "the points are too spread out for one cell grid", g, err));
  double cells = 1, limit = fmin(fmax(16.0 * (double)n, 1048576.0), (double)UINT32_MAX);
  for (int a = 0; a < dim; a++) cells *= (double)g->max_cell[a] + 1;
  if (cells > limit)
    return cl_error_set(err, CL_ERR_ARG,
                        "%s: a cell grid of side delta = %g over the points' bounding box needs "
                        "%.4g cells, more than the %.4g allowed for %zu points: the points are "
                        "too spread out for one grid (check for stray coordinates, or build the "
                        "bonds of distant bodies separately)",
                        fn, delta, cells, limit, n);
  return CL_OK;
}

static size_t padded(size_t bytes) { return (bytes + 255) / 256 * 256; }

static cl_status cell_list_alloc(cl_device *d, cell_list *w, size_t n, size_t cells,
                                 size_t xs_bytes, cl_error *err) {
  size_t sorted = padded(n * sizeof(uint32_t)), ends = padded(cells * sizeof(uint32_t)),
         counts = padded((n + 1) * sizeof(uint32_t));
  CL_TRY(alloc_bytes(d, &w->block, sorted + 2 * ends + counts + xs_bytes, "the cell list", err));
  char *at = w->block;
  w->sorted = (uint32_t *)at;
  w->start = (uint32_t *)(at += sorted);
  w->end = (uint32_t *)(at += ends);
  w->counts = (uint32_t *)(at += ends);
  w->xs = at + counts;
  return CL_OK;
}

/* Bins the points, counts each one's bonds, checks the total, then writes
 * the rows. */
static cl_status find_bonds(cl_device *d, cl_dtype real, int dim, size_t n, const void *x,
                            double delta, cell_list *w, cl_pd_bonds *out, cl_error *err) {
  box b;
  cl_pd_grid g;
  CL_TRY(bounding_box(d, "cl_pd_build_bonds", real, dim, n, x, &b, err));
  CL_TRY(bond_grid(&b, dim, n, delta, &g, err));
  size_t cells = cl_pd_grid_cells(&g);
  CL_TRY(cell_list_alloc(d, w, n, cells, (size_t)dim * n * cl_dtype_size(real), err));
  CL_TRY(BACKEND_CALL(d, real, cl_pd_bin_points,
                      (&g, n, x, bit_width(cells - 1), w->sorted, w->start, w->end, err)));
  CL_TRY(gather_rows(d, cl_dtype_size(real), n, n, dim, x, w->sorted, w->xs, err));
  cl_pd_cells list = {g, delta * delta, w->sorted, w->xs, w->start, w->end};
  CL_TRY(BACKEND_CALL(d, real, cl_pd_count_bonds, (&list, n, x, w->counts, out->offsets, err)));
  /* summed in double, exact far beyond 2^32: the u32 offsets may have wrapped */
  double total;
  CL_TRY(cl_k_reduce(d, CL_U32, w->counts, n, CL_REDUCE_SUM, &total, err));
  if (total > (double)UINT32_MAX)
    return cl_error_set(err, CL_ERR_ARG,
                        "cl_pd_build_bonds: the points have %.0f bonds, but the CSR bond list "
                        "(u32 offsets) supports at most 4294967295 (4.29e9): use a smaller delta "
                        "or fewer points",
                        total);
  out->nbonds = (size_t)total;
  if (out->nbonds == 0) return CL_OK; /* every row empty; neighbors stays NULL */
  CL_TRY(alloc_u32(d, &out->neighbors, out->nbonds, "the bond list", err));
  return BACKEND_CALL(d, real, cl_pd_write_bonds,
                      (&list, n, x, out->offsets, out->neighbors, out->nbonds, err));
}

cl_status cl_pd_build_bonds(cl_device *d, cl_dtype real, int dim, size_t n, const void *x,
                            double delta, cl_pd_bonds *out, cl_error *err) {
  const char *fn = "cl_pd_build_bonds";
  if (!out) return cl_error_set(err, CL_ERR_ARG, "%s: the output bonds are NULL", fn);
  memset(out, 0, sizeof *out);
  CL_TRY(check_points(fn, real, dim, n, x, err));
  if (!(delta > 0) || isinf(delta))
    return cl_error_set(err, CL_ERR_ARG,
                        "%s: delta (the horizon) must be a positive finite distance (got %g)", fn,
                        delta);
  CL_TRY(alloc_u32(d, &out->offsets, n + 1, "the row offsets", err));
  cl_status s;
  cell_list w = {0};
  if (n == 0) s = cl_k_fill(d, CL_U32, out->offsets, 1, 0.0, err);
  else s = find_bonds(d, real, dim, n, x, delta, &w, out, err);
  d->release(d, w.block);
  if (s != CL_OK) {
    d->release(d, out->neighbors);
    d->release(d, out->offsets);
    memset(out, 0, sizeof *out);
  }
  return s;
}
