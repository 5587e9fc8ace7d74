/* Structured meshes of a rectangle and of an annulus, in two patterns
 * (mesh2d.h): alternating diagonals (2 triangles per cell) and crossed
 * diagonals (4 triangles per cell around a centre node).
 *
 * Both come from one builder over a logical grid of ni x nj cells, mapped
 * to the plane by a function of the corner's grid coordinates. Every node
 * is a point of a lattice of 2 order steps per cell side, so that a T6
 * mid-side node is the lattice point halfway between its corners, a cross
 * cell's centre is the lattice point in its middle, and neighbours share
 * nodes without any search. The lattice points (a, b) with both coordinates
 * even are the "fine grid" of order steps per cell side (corners, and for
 * T6 the midpoints of the cell sides and the cell middle), numbered
 * b/2 * fi + a/2; the cross pattern also uses points with both coordinates
 * odd (T3: the cell centres; T6: the midpoints of the half-diagonals),
 * numbered after them, row by row. No used point has mixed parity. An
 * annulus is the grid closed in j: b wraps modulo its period. */
#include "mesh2d.h"

#include <math.h>

#define PI 3.14159265358979323846

typedef struct grid {
  size_t ni, nj;              /* cells */
  int periodic_j;             /* j wraps (annulus) */
  int order;
  cl_mesh2d_pattern pattern;
  size_t fi, fj;              /* even lattice points (fine grid) along i and j */
  size_t oi, oj;              /* odd lattice points along i and j (cross only, else 0) */
} grid;

static grid grid_make(size_t ni, size_t nj, int periodic_j, int order, cl_mesh2d_pattern pattern) {
  size_t s = (size_t)order, cross = pattern == CL_MESH2D_CROSS;
  return (grid){ni, nj, periodic_j, order, pattern, s * ni + 1, s * nj + (periodic_j ? 0 : 1), cross * s * ni,
                cross * s * nj};
}

static size_t grid_nodes(const grid *g) { return g->fi * g->fj + g->oi * g->oj; }

static size_t cell_elems(const grid *g) { return g->pattern == CL_MESH2D_CROSS ? 4 : 2; }

/* The node at lattice point (a, b); a and b have the same parity. */
static uint32_t lattice_node(const grid *g, size_t a, size_t b) {
  if (a % 2 == 0) return (uint32_t)((b / 2 % g->fj) * g->fi + a / 2);
  return (uint32_t)(g->fi * g->fj + (b - 1) / 2 * g->oi + (a - 1) / 2);
}

/* Writes one triangle of corners p, q, r (lattice coordinates, counter-
 * clockwise in grid space) and, for T6, its mid-side nodes. */
static void put_triangle(const grid *g, uint32_t *el, const size_t p[2], const size_t q[2], const size_t r[2]) {
  const size_t *c[3] = {p, q, r};
  for (int k = 0; k < 3; k++) el[k] = lattice_node(g, c[k][0], c[k][1]);
  for (int k = 0; k < 3 && g->order == 2; k++) {
    const size_t *u = c[k], *v = c[(k + 1) % 3];
    el[3 + k] = lattice_node(g, (u[0] + v[0]) / 2, (u[1] + v[1]) / 2);
  }
}

/* The triangles of cell (i, j) with corners a, b, c, d counter-clockwise
 * from (i, j). Alternate: split along the chequerboard diagonal. Cross:
 * around the centre o, from the side a-b on counter-clockwise, each
 * triangle with its cell side as edge 0. */
static void put_cell(const grid *g, uint32_t *el, size_t i, size_t j) {
  size_t h = (size_t)g->order, l = 2 * h, nper = 3 * h;
  size_t a[2] = {l * i, l * j}, b[2] = {l * (i + 1), l * j};
  size_t c[2] = {l * (i + 1), l * (j + 1)}, d[2] = {l * i, l * (j + 1)}, o[2] = {l * i + h, l * j + h};
  if (g->pattern == CL_MESH2D_CROSS) {
    put_triangle(g, el, a, b, o);
    put_triangle(g, el + nper, b, c, o);
    put_triangle(g, el + 2 * nper, c, d, o);
    put_triangle(g, el + 3 * nper, d, a, o);
  } else if ((i + j) % 2 == 0) {
    put_triangle(g, el, a, b, c);
    put_triangle(g, el + nper, a, c, d);
  } else {
    put_triangle(g, el, a, b, d);
    put_triangle(g, el + nper, b, c, d);
  }
}

typedef void (*grid_map)(const void *ctx, double u, double v, double *x, double *y);

/* Cell corners from the map; cross centres at the mean of their cell's
 * corners; T6 mid-side nodes at their chord midpoints. */
static void place_nodes(const grid *g, cl_mesh2d *m, grid_map map, const void *ctx) {
  double *x = m->x, *y = m->x + m->nnodes;
  size_t l = 2 * (size_t)g->order, nj_corners = g->nj + (g->periodic_j ? 0 : 1);
  for (size_t j = 0; j < nj_corners; j++)
    for (size_t i = 0; i <= g->ni; i++) {
      uint32_t n = lattice_node(g, l * i, l * j);
      map(ctx, (double)i / (double)g->ni, (double)j / (double)g->nj, &x[n], &y[n]);
    }
  for (size_t j = 0; j < g->nj && g->pattern == CL_MESH2D_CROSS; j++)
    for (size_t i = 0; i < g->ni; i++) {
      uint32_t o = lattice_node(g, l * i + l / 2, l * j + l / 2), c[4] = {
          lattice_node(g, l * i, l * j), lattice_node(g, l * (i + 1), l * j),
          lattice_node(g, l * (i + 1), l * (j + 1)), lattice_node(g, l * i, l * (j + 1))};
      x[o] = 0.25 * (x[c[0]] + x[c[1]] + x[c[2]] + x[c[3]]);
      y[o] = 0.25 * (y[c[0]] + y[c[1]] + y[c[2]] + y[c[3]]);
    }
  for (size_t e = 0; e < m->nelems && g->order == 2; e++)
    for (int k = 0; k < 3; k++) {
      const uint32_t *c = m->elem + 6 * e;
      uint32_t p = c[k], q = c[(k + 1) % 3];
      x[c[3 + k]] = 0.5 * (x[p] + x[q]), y[c[3 + k]] = 0.5 * (y[p] + y[q]);
    }
}

static cl_status build(size_t ni, size_t nj, int periodic_j, int order, cl_mesh2d_pattern pattern, grid_map map,
                       const void *ctx, cl_mesh2d *out, cl_error *err) {
  /* keeps the products below from overflowing; cl_mesh2d_alloc checks the rest */
  if (ni > (1u << 20) || nj > (1u << 20))
    return cl_error_set(err, CL_ERR_ARG, "mesh2d: %zu x %zu divisions are too many", ni, nj);
  if (order != 1 && order != 2)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d: order must be 1 (T3) or 2 (T6), got %d", order);
  if (pattern != CL_MESH2D_ALTERNATE && pattern != CL_MESH2D_CROSS)
    return cl_error_set(err, CL_ERR_ARG,
                        "mesh2d: pattern must be CL_MESH2D_ALTERNATE (0) or CL_MESH2D_CROSS (1), got %d",
                        (int)pattern);
  grid g = grid_make(ni, nj, periodic_j, order, pattern);
  size_t per = cell_elems(&g), nper = 3 * (size_t)order;
  CL_TRY(cl_mesh2d_alloc(order, grid_nodes(&g), per * ni * nj, out, err));
  for (size_t j = 0; j < nj; j++)
    for (size_t i = 0; i < ni; i++) put_cell(&g, out->elem + (j * ni + i) * per * nper, i, j);
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

cl_status cl_mesh2d_rect(double x0, double x1, double y0, double y1, size_t nx, size_t ny, int order,
                         cl_mesh2d_pattern pattern, cl_mesh2d *out, cl_error *err) {
  if (!(x1 > x0) || !(y1 > y0) || !isfinite(x1 - x0) || !isfinite(y1 - y0))
    return cl_error_set(err, CL_ERR_ARG, "mesh2d rect: need finite x0 < x1 and y0 < y1, got [%g, %g] x [%g, %g]",
                        x0, x1, y0, y1);
  if (nx == 0 || ny == 0)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d rect: nx and ny must be positive, got %zu x %zu", nx, ny);
  const double r[4] = {x0, x1, y0, y1};
  return build(nx, ny, 0, order, pattern, rect_map, r, out, err);
}

cl_status cl_mesh2d_rect_union_jack(double x0, double x1, double y0, double y1, size_t nx, size_t ny,
                                    int order, cl_mesh2d *out, cl_error *err) {
  return cl_mesh2d_rect(x0, x1, y0, y1, nx, ny, order, CL_MESH2D_ALTERNATE, out, err);
}

/* ---- annulus --------------------------------------------------------------- */

static void ring_map(const void *ctx, double u, double v, double *x, double *y) {
  const double *r = ctx; /* r_in, r_out */
  double rad = r[0] + (r[1] - r[0]) * u, th = 2 * PI * v;
  *x = rad * cos(th), *y = rad * sin(th);
}

cl_status cl_mesh2d_ring_pattern(double r_in, double r_out, size_t nr, size_t nt, int order,
                                 cl_mesh2d_pattern pattern, cl_mesh2d *out, cl_error *err) {
  if (!(r_in > 0) || !(r_out > r_in) || !isfinite(r_out))
    return cl_error_set(err, CL_ERR_ARG, "mesh2d ring: need finite 0 < r_in < r_out, got r_in %g, r_out %g", r_in,
                        r_out);
  if (nr == 0 || nt < 3)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d ring: need nr >= 1 and nt >= 3, got nr %zu, nt %zu", nr, nt);
  const double r[2] = {r_in, r_out};
  return build(nr, nt, 1, order, pattern, ring_map, r, out, err);
}

cl_status cl_mesh2d_ring(double r_in, double r_out, size_t nr, size_t nt, int order, cl_mesh2d *out,
                         cl_error *err) {
  return cl_mesh2d_ring_pattern(r_in, r_out, nr, nt, order, CL_MESH2D_ALTERNATE, out, err);
}
