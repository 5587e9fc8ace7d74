/* Grid bodies' bonds (lattice.h): the stencil, the cell map and the bond
 * state, built on the host once and uploaded. */
#include "lattice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../dispatch.h"

static const char FN[] = "cleave.pd.bonds (lattice)";

static double coordinate(cl_dtype real, const void *x, size_t at) {
  return real == CL_F32 ? ((const float *)x)[at] : ((const double *)x)[at];
}

typedef int8_t step[3]; /* a stencil entry's integer step along x, y, z */

/* The integer steps s != 0 with |s| < delta / dx, in lexicographic order (z, y, x), into a
 * malloc'ed *steps. */
static cl_status make_stencil(int dim, double ratio, cl_pd_lattice *l, step **steps, cl_error *err) {
  int reach = (int)floor(ratio);
  if (reach > 127)
    return cl_error_set(err, CL_ERR_ARG, "%s: the horizon is %.4g dx; the grid layout allows up to 127 dx "
                        "(use layout = \"list\")", FN, ratio);
  int side = 2 * reach + 1, zreach = dim == 3 ? reach : 0;
  *steps = malloc((size_t)side * side * (2 * zreach + 1) * sizeof **steps);
  if (!*steps) return cl_error_set(err, CL_ERR_OOM, "%s: out of host memory for the stencil", FN);
  uint32_t k = 0;
  for (int z = -zreach; z <= zreach; z++)
    for (int y = -reach; y <= reach; y++)
      for (int x = -reach; x <= reach; x++) {
        double r2 = (double)x * x + (double)y * y + (double)z * z;
        if (r2 == 0 || !(r2 < ratio * ratio)) continue;
        (*steps)[k][0] = (int8_t)x, (*steps)[k][1] = (int8_t)y, (*steps)[k][2] = (int8_t)z;
        k++;
      }
  l->nstencil = k;
  l->words = (int)((k + 31) / 32);
  l->reach = reach;
  return CL_OK;
}

/* How far (in cells) q lies from the nearest grid line. */
static double off_grid(double q) { return fabs(q - floor(q + 0.5)); }

/* Each point's cell coordinates (unpadded) from the box minimum; fails for
 * points more than dx / 4 off the grid. Fills l->origin and l->dims. */
static cl_status grid_cells(cl_dtype real, int dim, size_t n, const void *x, double dx, cl_pd_lattice *l,
                            uint32_t *cellc, cl_error *err) {
  for (int a = 0; a < dim; a++) {
    double lo = INFINITY, hi = -INFINITY;
#pragma omp parallel for reduction(min : lo) reduction(max : hi)
    for (size_t i = 0; i < n; i++) {
      double v = coordinate(real, x, (size_t)a * n + i);
      lo = v < lo ? v : lo, hi = v > hi ? v : hi;
    }
    if (!isfinite(lo) || !isfinite(hi))
      return cl_error_set(err, CL_ERR_ARG, "%s: coordinate %c of some point is NaN or infinite", FN, "xyz"[a]);
    double span = floor((hi - lo) / dx + 0.5) + 1 + 2.0 * l->reach;
    if (span > 2147483647.0)
      return cl_error_set(err, CL_ERR_ARG, "%s: the points span %.4g cells along %c", FN, span, "xyz"[a]);
    l->origin[a] = lo;
    l->dims[a] = (size_t)span;
    size_t bad = n;
#pragma omp parallel for reduction(min : bad)
    for (size_t i = 0; i < n; i++) {
      double q = (coordinate(real, x, (size_t)a * n + i) - lo) / dx;
      if (off_grid(q) > 0.25 && i < bad) bad = i;
      cellc[(size_t)a * n + i] = (uint32_t)floor(q + 0.5);
    }
    if (bad < n)
      return cl_error_set(err, CL_ERR_ARG, "%s: point %zu is not on a grid of spacing dx = %g (its %c lies %.3g dx "
                          "off); the grid layout needs grid points: use layout = \"list\"", FN, bad + 1, dx, "xyz"[a],
                          off_grid((coordinate(real, x, (size_t)a * n + bad) - lo) / dx));
  }
  if (dim == 2) l->dims[2] = 1;
  double cells = (double)l->dims[0] * (double)l->dims[1] * (double)l->dims[2];
  /* below 2^31 cells, every stencil offset and map index fits an i32 */
  if (cells > 2147483647.0)
    return cl_error_set(err, CL_ERR_ARG, "%s: the padded grid has %.4g cells, more than the 2^31 - 1 the map "
                        "indexes (use layout = \"list\", or a body with a smaller bounding box)", FN, cells);
  l->cells = (size_t)cells;
  return CL_OK;
}

/* The padded map on the host; each point's map cell into cell[]. */
static cl_status fill_map(int dim, size_t n, const uint32_t *cellc, cl_pd_lattice *l, uint32_t *map,
                          uint32_t *cell, cl_error *err) {
  memset(map, 0xff, l->cells * sizeof *map);
  size_t r = (size_t)l->reach;
  for (size_t i = 0; i < n; i++) {
    size_t at = (cellc[i] + r) + l->dims[0] * ((cellc[n + i] + r) + (dim == 3 ? l->dims[1] * (cellc[2 * n + i] + r) : 0));
    if (map[at] != CL_PD_ABSENT)
      return cl_error_set(err, CL_ERR_ARG, "%s: points %u and %zu lie in the same cell of the grid of spacing %g; "
                          "the grid layout needs one point per cell: use layout = \"list\"", FN, map[at] + 1, i + 1, l->dx);
    map[at] = (uint32_t)i;
    cell[i] = (uint32_t)at;
  }
  return CL_OK;
}

/* Each stencil entry's step in map indices (x fastest in the map), into a malloc'ed array. */
static int32_t *map_offsets(const cl_pd_lattice *l, const step *steps) {
  int32_t *offset = malloc((l->nstencil ? l->nstencil : 1) * sizeof *offset);
  for (uint32_t k = 0; offset && k < l->nstencil; k++)
    offset[k] = (int32_t)(steps[k][0] + (int64_t)l->dims[0] * (steps[k][1] + (int64_t)l->dims[1] * steps[k][2]));
  return offset;
}

static size_t count_bonds(const cl_pd_lattice *l, size_t n, const uint32_t *map, const uint32_t *cell,
                          const int32_t *offset) {
  size_t total = 0;
#pragma omp parallel for reduction(+ : total)
  for (size_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < l->nstencil; k++) total += map[(int64_t)cell[i] + offset[k]] != CL_PD_ABSENT;
  return total;
}

static cl_status alloc_upload(cl_device *d, void **dst, const void *src, size_t bytes, const char *what,
                              cl_error *err) {
  cl_error why = {0};
  *dst = NULL;
  if (d->alloc(d, dst, bytes ? bytes : 1, &why) != CL_OK)
    return cl_error_set(err, why.code, "%s: cannot allocate %zu bytes for %s (%s)", FN, bytes, what, why.msg);
  return src ? d->to_device(d, *dst, src, bytes, err) : CL_OK;
}

/* Stencil offsets and bond geometry on the device. */
static cl_status upload_stencil(cl_device *d, cl_dtype real, double dx, const step *steps, const int32_t *offset,
                                cl_pd_lattice *l, cl_error *err) {
  size_t k = l->nstencil, rs = cl_dtype_size(real);
  size_t stride = (size_t)l->dim + 2;
  char *geometry = malloc(k * stride * rs);
  cl_status st = CL_OK;
  if (!geometry) st = cl_error_set(err, CL_ERR_OOM, "%s: out of host memory for the stencil", FN);
  for (size_t s = 0; st == CL_OK && s < k; s++) {
    double r2 = 0;
    for (int c = 0; c < l->dim; c++) {
      double xi = steps[s][c] * dx;
      cl_dtype_put(real, geometry, s * stride + (size_t)c, xi);
      r2 += xi * xi;
    }
    cl_dtype_put(real, geometry, s * stride + (size_t)l->dim, sqrt(r2));
    cl_dtype_put(real, geometry, s * stride + (size_t)l->dim + 1, 1 / sqrt(r2));
  }
  if (st == CL_OK) st = alloc_upload(d, (void **)&l->offset, offset, k * sizeof *offset, "the stencil", err);
  if (st == CL_OK) st = alloc_upload(d, &l->geometry, geometry, k * stride * rs, "the stencil", err);
  if (st == CL_OK) l->host_geometry = geometry; /* kept: cl_pd_lattice_release frees it */
  else free(geometry);
  return st;
}

cl_status cl_pd_build_lattice(cl_device *d, cl_dtype real, int dim, size_t n, const void *x, double dx,
                              double delta, cl_pd_lattice *out, cl_error *err) {
  memset(out, 0, sizeof *out);
  if (real != CL_F32 && real != CL_F64)
    return cl_error_set(err, CL_ERR_ARG, "%s: coordinates must be f32 or f64 (got %s)", FN, cl_dtype_name(real));
  if (dim != 2 && dim != 3) return cl_error_set(err, CL_ERR_ARG, "%s: dim must be 2 or 3 (got %d)", FN, dim);
  if (!(dx > 0) || !(delta > dx))
    return cl_error_set(err, CL_ERR_ARG, "%s: needs dx > 0 and delta > dx (got dx = %g, delta = %g)", FN, dx, delta);
  if (n == 0 || n >= CL_PD_ABSENT)
    return cl_error_set(err, CL_ERR_ARG, "%s: %zu points (needs 1 to 2^32 - 2)", FN, n);
  out->dim = dim, out->n = n, out->dx = dx;
  uint32_t *cellc = NULL, *map = NULL, *cell = NULL;
  step *steps = NULL;
  int32_t *offset = NULL;
  cl_status st = make_stencil(dim, delta / dx, out, &steps, err);
  if (st == CL_OK && !(cellc = malloc((size_t)dim * n * sizeof *cellc)))
    st = cl_error_set(err, CL_ERR_OOM, "%s: out of host memory for %zu cell coordinates", FN, n);
  if (st == CL_OK) st = grid_cells(real, dim, n, x, dx, out, cellc, err);
  if (st == CL_OK && !(offset = map_offsets(out, steps)))
    st = cl_error_set(err, CL_ERR_OOM, "%s: out of host memory for the stencil", FN);
  if (st == CL_OK && (!(map = malloc(out->cells * sizeof *map)) || !(cell = malloc(n * sizeof *cell))))
    st = cl_error_set(err, CL_ERR_OOM, "%s: out of host memory for a map of %zu cells", FN, out->cells);
  if (st == CL_OK) st = fill_map(dim, n, cellc, out, map, cell, err);
  free(cellc);
  if (st == CL_OK) {
    out->nbonds = count_bonds(out, n, map, cell, offset);
    st = alloc_upload(d, (void **)&out->map, map, out->cells * sizeof *map, "the cell map", err);
  }
  if (st == CL_OK) st = alloc_upload(d, (void **)&out->cell, cell, n * sizeof *cell, "the point cells", err);
  size_t words = (size_t)out->words * n;
  if (st == CL_OK) st = alloc_upload(d, (void **)&out->broken, NULL, words * sizeof(uint32_t), "the bond states", err);
  if (st == CL_OK) st = cl_k_fill(d, CL_U32, out->broken, words, 0, err); /* every bond intact */
  if (st == CL_OK) st = upload_stencil(d, real, dx, steps, offset, out, err);
  if (st == CL_OK) out->host_offset = offset, offset = NULL; /* kept, as the geometry */
  free(map);
  free(cell);
  free(steps);
  free(offset);
  if (st != CL_OK) cl_pd_lattice_release(d, out);
  return st;
}

void cl_pd_lattice_release(cl_device *d, cl_pd_lattice *l) {
  void *device_arrays[] = {l->map, l->cell, l->broken, l->offset, l->geometry};
  for (size_t k = 0; k < sizeof device_arrays / sizeof *device_arrays; k++)
    if (device_arrays[k]) d->release(d, device_arrays[k]);
  free(l->host_offset);
  free(l->host_geometry);
  memset(l, 0, sizeof *l);
}

size_t cl_pd_lattice_bytes(const cl_pd_lattice *l) {
  return (l->cells + l->n * (1 + (size_t)l->words)) * sizeof(uint32_t) + l->nstencil * sizeof(int32_t);
}
