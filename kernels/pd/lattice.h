/* Peridynamic bonds of a body on a uniform grid, without a bond list.
 *
 * On a grid of spacing dx every point has the same family: the integer steps
 * s (s != 0, |s| dx < delta), the stencil. A point's neighbour along step k
 * is found through a map from grid cells to point indices (padded by the
 * stencil's reach on every side, so no bounds checks), and the state of its
 * bonds is one bit per stencil entry: ceil(K / 32) u32 words per point
 * (K = 28 in 2D at delta = 3.015 dx: one word). That is 4 B per point for
 * the bonds plus 8 for the map and cell, against 4 B per bond (112 B per
 * point) in a list, which is what lets the largest problems fit in memory
 * (paper 003 sec. 5: memory per point limits the problem size).
 *
 * Points keep any order (the body puts them in Morton order); the map is in
 * grid order. Neighbours are those with |s| < delta / dx computed in double
 * on the integer steps, the same rule as the bond list's |x_j - x_i| < delta. */
#ifndef CL_PD_LATTICE_H
#define CL_PD_LATTICE_H

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/device.h"
#include "../../runtime/dtype.h"
#include "pmb.h" /* CL_PD_ABSENT */


typedef struct cl_pd_lattice {
  int dim, words;        /* words: bond-state u32 words per point, ceil(nstencil / 32) */
  uint32_t nstencil;     /* steps in the stencil */
  int reach;             /* largest step component: the map's padding */
  size_t n, cells;       /* points; cells of the padded map */
  size_t dims[3];        /* padded map extent per axis (1 past dim) */
  size_t nbonds;         /* bond entries between points of the body (each bond at both ends) */
  double dx, origin[3];  /* grid spacing; coordinates of cell 0 (unpadded) */
  /* device arrays */
  uint32_t *map;         /* cells: point index or CL_PD_ABSENT */
  uint32_t *cell;        /* n: each point's map cell */
  uint32_t *broken;      /* words x n (SoA): bit k % 32 of word k / 32 set = bond k broken */
  int32_t *offset;       /* nstencil: map index step of each stencil entry */
  void *geometry;        /* nstencil x (dim + 2) (AoS): bond vector s dx, its length and inverse length,
                            in the coordinates' type */
  /* host copies of offset and geometry, for kernels that take the stencil as launch constants */
  int32_t *host_offset;
  void *host_geometry;
} cl_pd_lattice;

/* Builds the lattice of n points (host coordinates x, SoA, type real) on
 * spacing dx, horizon delta, with device arrays on d. Errors: points that
 * are not on a grid of spacing dx (off by more than dx / 4, or two in one
 * cell: give the list layout instead), a map of more than 2^31 - 1 cells,
 * allocation failures. */
cl_status cl_pd_build_lattice(cl_device *d, cl_dtype real, int dim, size_t n, const void *x, double dx,
                              double delta, cl_pd_lattice *out, cl_error *err);

void cl_pd_lattice_release(cl_device *d, cl_pd_lattice *l);

/* Device bytes the lattice holds. */
size_t cl_pd_lattice_bytes(const cl_pd_lattice *l);

#endif
