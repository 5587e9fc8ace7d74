/* Structured union-jack meshes of a rectangle and of an annulus.
 *
 * Both come from one builder over a logical grid of ni x nj quads, mapped
 * to the plane by a function of the corner's grid index. Nodes are the
 * points of a "fine" grid of step 1/order in grid units, so that a T6
 * mid-side node is the fine point halfway between its corners and
 * neighbours share it without any search. An annulus is the grid closed
 * in j: fine index b wraps modulo its period. */
#include "mesh2d.h"

#include <math.h>

#define PI 3.14159265358979323846

typedef struct grid {
  size_t ni, nj;   /* quads */
  int periodic_j;  /* j wraps (annulus) */
  int order;
  size_t fi, fj;   /* fine-grid node counts along i and j */
} grid;

static grid grid_make(size_t ni, size_t nj, int periodic_j, int order) {
  size_t s = (size_t)order;
  return (grid){ni, nj, periodic_j, order, s * ni + 1, s * nj + (periodic_j ? 0 : 1)};
}

static uint32_t fine_node(const grid *g, size_t a, size_t b) { return (uint32_t)((b % g->fj) * g->fi + a); }

/* Writes one triangle of corners p, q, r (fine-grid coordinates, counter-
 * clockwise in grid space) and, for T6, its mid-side nodes. */
static void put_triangle(const grid *g, uint32_t *el, const size_t p[2], const size_t q[2], const size_t r[2]) {
  const size_t *c[3] = {p, q, r};
  for (int k = 0; k < 3; k++) el[k] = fine_node(g, c[k][0], c[k][1]);
  for (int k = 0; k < 3 && g->order == 2; k++) {
    const size_t *u = c[k], *v = c[(k + 1) % 3];
    el[3 + k] = fine_node(g, (u[0] + v[0]) / 2, (u[1] + v[1]) / 2);
  }
}

/* The two triangles of quad (i, j), split along the chequerboard diagonal. */
static void put_quad(const grid *g, uint32_t *el, size_t i, size_t j) {
  size_t s = (size_t)g->order, nper = 3 * s;
  size_t a[2] = {s * i, s * j}, b[2] = {s * (i + 1), s * j};
  size_t c[2] = {s * (i + 1), s * (j + 1)}, d[2] = {s * i, s * (j + 1)};
  if ((i + j) % 2 == 0) {
    put_triangle(g, el, a, b, c);
    put_triangle(g, el + nper, a, c, d);
  } else {
    put_triangle(g, el, a, b, d);
    put_triangle(g, el + nper, b, c, d);
  }
}

typedef void (*grid_map)(const void *ctx, double u, double v, double *x, double *y);

/* Corner positions from the map; T6 mid-side nodes at their chord midpoints. */
static void place_nodes(const grid *g, cl_mesh2d *m, grid_map map, const void *ctx) {
  double *x = m->x, *y = m->x + m->nnodes, s = g->order;
  for (size_t b = 0; b < g->fj; b += (size_t)g->order)
    for (size_t a = 0; a < g->fi; a += (size_t)g->order) {
      uint32_t n = fine_node(g, a, b);
      map(ctx, (double)a / s / (double)g->ni, (double)b / s / (double)g->nj, &x[n], &y[n]);
    }
  for (size_t e = 0; e < m->nelems && g->order == 2; e++)
    for (int k = 0; k < 3; k++) {
      const uint32_t *c = m->elem + 6 * e;
      uint32_t p = c[k], q = c[(k + 1) % 3];
      x[c[3 + k]] = 0.5 * (x[p] + x[q]), y[c[3 + k]] = 0.5 * (y[p] + y[q]);
    }
}

static cl_status build(size_t ni, size_t nj, int periodic_j, int order, grid_map map, const void *ctx,
                       cl_mesh2d *out, cl_error *err) {
  /* keeps the products below from overflowing; cl_mesh2d_alloc checks the rest */
  if (ni > (1u << 20) || nj > (1u << 20))
    return cl_error_set(err, CL_ERR_ARG, "mesh2d: %zu x %zu divisions are too many", ni, nj);
  if (order != 1 && order != 2)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d: order must be 1 (T3) or 2 (T6), got %d", order);
  grid g = grid_make(ni, nj, periodic_j, order);
  CL_TRY(cl_mesh2d_alloc(order, g.fi * g.fj, 2 * ni * nj, out, err));
  for (size_t j = 0; j < nj; j++)
    for (size_t i = 0; i < ni; i++) put_quad(&g, out->elem + 2 * (j * ni + i) * (size_t)(3 * order), i, j);
  place_nodes(&g, out, map, ctx);
  cl_status st = cl_mesh2d_adjacency(out, err);
  if (st != CL_OK) cl_mesh2d_free(out);
  return st;
}

/* ---- rectangle ------------------------------------------------------------- */

static void rect_map(const void *ctx, double u, double v, double *x, double *y) {
  const double *r = ctx; /* x0, x1, y0, y1 */
  *x = r[0] + (r[1] - r[0]) * u, *y = r[2] + (r[3] - r[2]) * v;
}

cl_status cl_mesh2d_rect_union_jack(double x0, double x1, double y0, double y1, size_t nx, size_t ny,
                                    int order, cl_mesh2d *out, cl_error *err) {
  if (!(x1 > x0) || !(y1 > y0) || !isfinite(x1 - x0) || !isfinite(y1 - y0))
    return cl_error_set(err, CL_ERR_ARG, "mesh2d rect: need finite x0 < x1 and y0 < y1, got [%g, %g] x [%g, %g]",
                        x0, x1, y0, y1);
  if (nx == 0 || ny == 0)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d rect: nx and ny must be positive, got %zu x %zu", nx, ny);
  const double r[4] = {x0, x1, y0, y1};
  return build(nx, ny, 0, order, rect_map, r, out, err);
}

/* ---- annulus --------------------------------------------------------------- */

static void ring_map(const void *ctx, double u, double v, double *x, double *y) {
  const double *r = ctx; /* r_in, r_out */
  double rad = r[0] + (r[1] - r[0]) * u, th = 2 * PI * v;
  *x = rad * cos(th), *y = rad * sin(th);
}

cl_status cl_mesh2d_ring(double r_in, double r_out, size_t nr, size_t nt, int order, cl_mesh2d *out,
                         cl_error *err) {
  if (!(r_in > 0) || !(r_out > r_in) || !isfinite(r_out))
    return cl_error_set(err, CL_ERR_ARG, "mesh2d ring: need finite 0 < r_in < r_out, got r_in %g, r_out %g", r_in,
                        r_out);
  if (nr == 0 || nt < 3)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d ring: need nr >= 1 and nt >= 3, got nr %zu, nt %zu", nr, nt);
  const double r[2] = {r_in, r_out};
  return build(nr, nt, 1, order, ring_map, r, out, err);
}
