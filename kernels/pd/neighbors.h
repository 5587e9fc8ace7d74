/* Peridynamic bond lists: which points lie within the horizon of each point.
 *
 * Points are first put in Morton (Z-curve) order of a uniform cell grid so
 * that a point's neighbours sit close to it in memory; then a cell list on
 * the device finds, for every point, the points within distance delta in
 * O(P): one pass counts each point's neighbours, a prefix sum gives the row
 * offsets (no guessed maximum), a second pass writes them. Rows are sorted
 * by neighbour index, so the cpu and cuda backends produce identical lists.
 *
 * Coordinates are SoA (component c of point i at x[c*n + i]) in the real
 * type `real` (CL_F32 or CL_F64), dim 2 or 3. */
#ifndef CL_PD_NEIGHBORS_H
#define CL_PD_NEIGHBORS_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/device.h"
#include "../../runtime/dtype.h"

/* order[k] = index of the point that goes to position k (a permutation of
 * 0..n-1, u32 on the device) sorting the points by the Morton code of the
 * cell (side cell_size) that holds them; ties keep the original order. */
cl_status cl_pd_morton_order(cl_device *d, cl_dtype real, int dim, size_t n, const void *x,
                             double cell_size, uint32_t *order, cl_error *err);

/* Gathers rows in a new order: for each of k components, dst[c*n + i] = src[c*n + order[i]]
 * (any dtype; src and dst distinct device arrays of n rows). */
cl_status cl_pd_gather(cl_device *d, cl_dtype t, size_t n, int k, const void *src,
                       const uint32_t *order, void *dst, cl_error *err);
/* The same from a source of n_src rows into n rows: dst[c*n + i] = src[c*n_src + order[i]]
 * (a subset of the rows, or rows repeated; order's entries below n_src). */
cl_status cl_pd_gather_rows(cl_device *d, cl_dtype t, size_t n_src, size_t n, int k, const void *src,
                            const uint32_t *order, void *dst, cl_error *err);
/* The same without checking order's entries against n_src (one device reduction each call): for
 * orders checked once and used every step (a halo plan's rows). */
cl_status cl_pd_gather_rows_trusted(cl_device *d, cl_dtype t, size_t n_src, size_t n, int k, const void *src,
                                    const uint32_t *order, void *dst, cl_error *err);

/* Bond list in CSR form on the device: row i is neighbors[offsets[i] ..
 * offsets[i+1]) (u32, n+1 and nbonds entries), point i itself excluded,
 * |x_j - x_i| < delta. The arrays are allocated with d->alloc; the caller
 * frees them with d->release. Errors: delta <= 0, more than 2^32 - 1 bonds
 * (say how many), allocation failures (say how many bytes). */
typedef struct cl_pd_bonds {
  size_t nbonds;
  uint32_t *offsets;   /* n + 1 */
  uint32_t *neighbors; /* nbonds */
} cl_pd_bonds;

cl_status cl_pd_build_bonds(cl_device *d, cl_dtype real, int dim, size_t n, const void *x,
                            double delta, cl_pd_bonds *out, cl_error *err);

#endif
