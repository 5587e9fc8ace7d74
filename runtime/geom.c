/* Shapes: checking, point membership and bounds by walking the post-order
 * node array with a fixed stack, and the grid points inside a shape. */
#include "geom.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static const char *op_name(cl_shape_op op) {
  switch (op) {
    case CL_SHAPE_BOX: return "box";
    case CL_SHAPE_BALL: return "ball";
    case CL_SHAPE_CYLINDER: return "cylinder";
    case CL_SHAPE_POLYGON: return "polygon";
    case CL_SHAPE_UNION: return "union";
    case CL_SHAPE_DIFFERENCE: return "difference";
    case CL_SHAPE_INTERSECTION: return "intersection";
  }
  return "unknown";
}

static int is_combinator(cl_shape_op op) {
  return op == CL_SHAPE_UNION || op == CL_SHAPE_DIFFERENCE || op == CL_SHAPE_INTERSECTION;
}

/* ---- checking ------------------------------------------------------------ */

static cl_status check_range(const char *axis, double lo, double hi, size_t i, const char *kind,
                             cl_error *err) {
  /* written so that NaN fails too */
  if (!(hi > lo))
    return cl_error_set(err, CL_ERR_ARG, "shape node %zu (%s): %smax (%g) must be greater than %smin (%g)", i,
                        kind, axis, hi, axis, lo);
  return CL_OK;
}

static cl_status check_round(const double *c, int ncentre, double r, size_t i, const char *kind, cl_error *err) {
  for (int a = 0; a < ncentre; a++)
    if (!isfinite(c[a]))
      return cl_error_set(err, CL_ERR_ARG, "shape node %zu (%s): the centre must be finite", i, kind);
  if (!(r > 0) || !isfinite(r))
    return cl_error_set(err, CL_ERR_ARG, "shape node %zu (%s): the radius must be positive and finite (got %g)", i,
                        kind, r);
  return CL_OK;
}

static cl_status check_polygon(const cl_shape *s, const cl_shape_node *nd, size_t i, cl_error *err) {
  double first = nd->p[0], count = nd->p[1];
  if (!(count >= 3) || count != floor(count))
    return cl_error_set(err, CL_ERR_ARG,
                        "shape node %zu (polygon): needs a whole number of at least 3 vertices (got %g)", i, count);
  if (!(first >= 0) || first != floor(first) || !s->vertices || first + count > (double)s->nvertices)
    return cl_error_set(err, CL_ERR_ARG,
                        "shape node %zu (polygon): vertices %g..%g are not in the vertex table (%zu vertices)", i,
                        first, first + count - 1, s->nvertices);
  const double *v = s->vertices + 2 * (size_t)first;
  for (size_t k = 0; k < 2 * (size_t)count; k++)
    if (!isfinite(v[k]))
      return cl_error_set(err, CL_ERR_ARG, "shape node %zu (polygon): vertex %zu is not finite", i,
                          (size_t)first + k / 2);
  return check_range("z", nd->p[2], nd->p[3], i, "polygon", err);
}

static cl_status check_primitive(const cl_shape *s, size_t i, cl_error *err) {
  const cl_shape_node *nd = &s->nodes[i];
  const double *p = nd->p;
  const char *kind = op_name(nd->op);
  switch (nd->op) {
    case CL_SHAPE_BOX:
      CL_TRY(check_range("x", p[0], p[1], i, kind, err));
      CL_TRY(check_range("y", p[2], p[3], i, kind, err));
      return check_range("z", p[4], p[5], i, kind, err);
    case CL_SHAPE_BALL: return check_round(p, 3, p[3], i, kind, err);
    case CL_SHAPE_CYLINDER:
      CL_TRY(check_round(p, 2, p[2], i, kind, err));
      return check_range("z", p[3], p[4], i, kind, err);
    case CL_SHAPE_POLYGON: return check_polygon(s, nd, i, err);
    default: return CL_OK;
  }
}

cl_status cl_shape_check(const cl_shape *s, cl_error *err) {
  if (!s || !s->count || !s->nodes) return cl_error_set(err, CL_ERR_ARG, "shape has no nodes");
  size_t depth = 0;
  for (size_t i = 0; i < s->count; i++) {
    cl_shape_op op = s->nodes[i].op;
    if ((unsigned)op > CL_SHAPE_INTERSECTION)
      return cl_error_set(err, CL_ERR_ARG, "shape node %zu has an unknown kind (%d)", i, (int)op);
    if (is_combinator(op)) {
      if (depth < 2) return cl_error_set(err, CL_ERR_ARG, "shape node %zu (%s) needs two operands", i, op_name(op));
      depth--;
      continue;
    }
    if (depth == CL_SHAPE_STACK_MAX)
      return cl_error_set(err, CL_ERR_ARG,
                          "shape node %zu (%s): more than %d operands pending (combine shapes as they come: "
                          "a b union c union ...)",
                          i, op_name(op), CL_SHAPE_STACK_MAX);
    CL_TRY(check_primitive(s, i, err));
    depth++;
  }
  if (depth != 1)
    return cl_error_set(err, CL_ERR_ARG, "shape leaves %zu results: it needs %zu more union, difference or "
                        "intersection nodes", depth, depth - 1);
  return CL_OK;
}

/* ---- membership ----------------------------------------------------------- */

/* Even-odd rule: count crossings of the ray from (x, y) towards +x. The
 * half-open test on y makes a vertex on the ray count once. */
static int polygon_contains(const double *v, size_t count, double x, double y) {
  int inside = 0;
  for (size_t i = 0, j = count - 1; i < count; j = i++) {
    double xi = v[2 * i], yi = v[2 * i + 1], xj = v[2 * j], yj = v[2 * j + 1];
    if ((yi > y) != (yj > y) && x < xi + (y - yi) * (xj - xi) / (yj - yi)) inside = !inside;
  }
  return inside;
}

static int in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

static int primitive_contains(const cl_shape *s, const cl_shape_node *nd, int dim, double x, double y, double z) {
  const double *p = nd->p;
  int flat = dim < 3;
  switch (nd->op) {
    case CL_SHAPE_BOX:
      return in_range(x, p[0], p[1]) && in_range(y, p[2], p[3]) && (flat || in_range(z, p[4], p[5]));
    case CL_SHAPE_BALL: {
      double dx = x - p[0], dy = y - p[1], dz = flat ? 0 : z - p[2];
      return dx * dx + dy * dy + dz * dz <= p[3] * p[3];
    }
    case CL_SHAPE_CYLINDER: {
      double dx = x - p[0], dy = y - p[1];
      return dx * dx + dy * dy <= p[2] * p[2] && (flat || in_range(z, p[3], p[4]));
    }
    case CL_SHAPE_POLYGON:
      return (flat || in_range(z, p[2], p[3])) &&
             polygon_contains(s->vertices + 2 * (size_t)p[0], (size_t)p[1], x, y);
    default: return 0;
  }
}

static unsigned char combine(cl_shape_op op, unsigned char a, unsigned char b) {
  switch (op) {
    case CL_SHAPE_UNION: return a || b;
    case CL_SHAPE_DIFFERENCE: return a && !b;
    default: return a && b;
  }
}

/* A malformed shape (one cl_shape_check rejects) contains nothing. */
int cl_shape_contains(const cl_shape *s, int dim, double x, double y, double z) {
  unsigned char stack[CL_SHAPE_STACK_MAX];
  size_t depth = 0;
  for (size_t i = 0; i < s->count; i++) {
    const cl_shape_node *nd = &s->nodes[i];
    if (is_combinator(nd->op)) {
      if (depth < 2) return 0;
      depth--;
      stack[depth - 1] = combine(nd->op, stack[depth - 1], stack[depth]);
    } else {
      if (depth == CL_SHAPE_STACK_MAX) return 0;
      stack[depth++] = (unsigned char)primitive_contains(s, nd, dim, x, y, z);
    }
  }
  return depth == 1 && stack[0];
}

/* ---- bounds --------------------------------------------------------------- */

typedef struct aabb {
  double lo[3], hi[3];
} aabb;

static aabb make_aabb(double x0, double x1, double y0, double y1, double z0, double z1) {
  return (aabb){{x0, y0, z0}, {x1, y1, z1}};
}

static aabb polygon_aabb(const cl_shape *s, const double *p) {
  const double *v = s->vertices + 2 * (size_t)p[0];
  aabb b = make_aabb(v[0], v[0], v[1], v[1], p[2], p[3]);
  for (size_t k = 1; k < (size_t)p[1]; k++) {
    b.lo[0] = fmin(b.lo[0], v[2 * k]), b.hi[0] = fmax(b.hi[0], v[2 * k]);
    b.lo[1] = fmin(b.lo[1], v[2 * k + 1]), b.hi[1] = fmax(b.hi[1], v[2 * k + 1]);
  }
  return b;
}

static aabb primitive_aabb(const cl_shape *s, const cl_shape_node *nd) {
  const double *p = nd->p;
  switch (nd->op) {
    case CL_SHAPE_BOX: return make_aabb(p[0], p[1], p[2], p[3], p[4], p[5]);
    case CL_SHAPE_BALL: return make_aabb(p[0] - p[3], p[0] + p[3], p[1] - p[3], p[1] + p[3], p[2] - p[3], p[2] + p[3]);
    case CL_SHAPE_CYLINDER: return make_aabb(p[0] - p[2], p[0] + p[2], p[1] - p[2], p[1] + p[2], p[3], p[4]);
    case CL_SHAPE_POLYGON: return polygon_aabb(s, p);
    default: return make_aabb(0, 0, 0, 0, 0, 0);
  }
}

static aabb combine_aabb(cl_shape_op op, aabb a, aabb b) {
  if (op == CL_SHAPE_DIFFERENCE) return a; /* a hole never enlarges it; shrinking is not worth the work */
  for (int k = 0; k < 3; k++) {
    if (op == CL_SHAPE_UNION) {
      a.lo[k] = fmin(a.lo[k], b.lo[k]), a.hi[k] = fmax(a.hi[k], b.hi[k]);
    } else {
      a.lo[k] = fmax(a.lo[k], b.lo[k]), a.hi[k] = fmin(a.hi[k], b.hi[k]);
    }
  }
  return a;
}

/* A malformed shape gets zero bounds. */
void cl_shape_bounds(const cl_shape *s, int dim, double lo[3], double hi[3]) {
  aabb stack[CL_SHAPE_STACK_MAX];
  size_t depth = 0;
  for (size_t i = 0; i < s->count; i++) {
    const cl_shape_node *nd = &s->nodes[i];
    if (is_combinator(nd->op) ? depth < 2 : depth == CL_SHAPE_STACK_MAX) {
      depth = 0;
      break;
    }
    if (is_combinator(nd->op)) {
      depth--;
      stack[depth - 1] = combine_aabb(nd->op, stack[depth - 1], stack[depth]);
    } else {
      stack[depth++] = primitive_aabb(s, nd);
    }
  }
  aabb b = depth == 1 ? stack[0] : make_aabb(0, 0, 0, 0, 0, 0);
  if (dim < 3) b.lo[2] = b.hi[2] = 0;
  for (int k = 0; k < 3; k++) lo[k] = b.lo[k], hi[k] = b.hi[k];
}

/* ---- grid points ---------------------------------------------------------- */

/* Cells of side dx from lo: n[k] along axis k (n[2] = 1 in 2D); a row is a
 * line of cells along x, numbered y fastest, then z. */
typedef struct grid {
  int dim;
  double dx, lo[3];
  size_t n[3];
} grid;

static double centre(const grid *g, int axis, size_t i) { return g->lo[axis] + ((double)i + 0.5) * g->dx; }

static void row_yz(const grid *g, size_t row, double *y, double *z) {
  *y = centre(g, 1, row % g->n[1]);
  *z = g->dim == 3 ? centre(g, 2, row / g->n[1]) : 0;
}

static size_t count_row(const cl_shape *s, const grid *g, size_t row) {
  double y, z;
  row_yz(g, row, &y, &z);
  size_t count = 0;
  for (size_t i = 0; i < g->n[0]; i++) count += (size_t)cl_shape_contains(s, g->dim, centre(g, 0, i), y, z);
  return count;
}

/* Writes the row's points from position at on, SoA with n points in all. */
static void fill_row(const cl_shape *s, const grid *g, size_t row, size_t at, size_t n, double *x) {
  double y, z;
  row_yz(g, row, &y, &z);
  for (size_t i = 0; i < g->n[0]; i++) {
    double xc = centre(g, 0, i);
    if (!cl_shape_contains(s, g->dim, xc, y, z)) continue;
    x[at] = xc;
    x[n + at] = y;
    if (g->dim == 3) x[2 * n + at] = z;
    at++;
  }
}

static const char axis_name[3] = {'x', 'y', 'z'};

/* Lays the grid over the shape's bounds; refuses unbounded shapes and grids
 * of more than max_points cells. */
static cl_status make_grid(const cl_shape *s, int dim, double dx, size_t max_points, grid *g, cl_error *err) {
  double lo[3], hi[3], cells[3] = {1, 1, 1};
  cl_shape_bounds(s, dim, lo, hi);
  g->dim = dim, g->dx = dx, g->lo[2] = 0;
  for (int k = 0; k < dim; k++) {
    if (!isfinite(lo[k]) || !isfinite(hi[k]))
      return cl_error_set(err, CL_ERR_ARG,
                          "shape is unbounded in %c (%g to %g): points need a shape bounded in every direction "
                          "(2D primitives extend without end in z: 3D points need boxes, spheres, cylinders or "
                          "polygons with a z range)",
                          axis_name[k], lo[k], hi[k]);
    g->lo[k] = lo[k];
    cells[k] = hi[k] > lo[k] ? ceil((hi[k] - lo[k]) / dx) : 0;
  }
  double total = cells[0] * cells[1] * cells[2];
  if (total > (double)max_points) {
    if (dim == 3)
      return cl_error_set(err, CL_ERR_ARG,
                          "shape at dx = %g spans %.0f grid cells (%.0f x %.0f x %.0f over its bounds), more than "
                          "the limit of %zu points: use a larger dx",
                          dx, total, cells[0], cells[1], cells[2], max_points);
    return cl_error_set(err, CL_ERR_ARG,
                        "shape at dx = %g spans %.0f grid cells (%.0f x %.0f over its bounds), more than the limit "
                        "of %zu points: use a larger dx",
                        dx, total, cells[0], cells[1], max_points);
  }
  for (int k = 0; k < 3; k++) g->n[k] = (size_t)cells[k];
  return CL_OK;
}

/* offsets[row] = first point of each row, offsets[nrows] = the total; the
 * count pass runs in parallel, the prefix sum serially. */
static void count_points(const cl_shape *s, const grid *g, size_t nrows, size_t *offsets) {
#pragma omp parallel for schedule(dynamic, 8)
  for (size_t row = 0; row < nrows; row++) offsets[row + 1] = count_row(s, g, row);
  offsets[0] = 0;
  for (size_t row = 0; row < nrows; row++) offsets[row + 1] += offsets[row];
}

cl_status cl_shape_points(const cl_shape *s, int dim, double dx, size_t max_points, size_t *n, double **x,
                          cl_error *err) {
  *n = 0, *x = NULL;
  if (dim != 2 && dim != 3) return cl_error_set(err, CL_ERR_ARG, "points need dim 2 or 3 (got %d)", dim);
  if (!(dx > 0) || !isfinite(dx)) return cl_error_set(err, CL_ERR_ARG, "dx must be positive and finite (got %g)", dx);
  CL_TRY(cl_shape_check(s, err));
  grid g;
  CL_TRY(make_grid(s, dim, dx, max_points, &g, err));
  size_t nrows = g.n[1] * g.n[2];
  size_t *offsets = malloc((nrows + 1) * sizeof *offsets);
  if (!offsets) return cl_error_set(err, CL_ERR_OOM, "out of memory for %zu grid rows", nrows);
  count_points(s, &g, nrows, offsets);
  size_t total = offsets[nrows];
  if (!total) {
    free(offsets);
    return cl_error_set(err, CL_ERR_ARG, "shape contains no points at dx = %g (is dx larger than the shape?)", dx);
  }
  double *out = malloc((size_t)dim * total * sizeof *out);
  if (!out) {
    free(offsets);
    return cl_error_set(err, CL_ERR_OOM, "out of memory for %zu points (%zu bytes)", total,
                        (size_t)dim * total * sizeof *out);
  }
#pragma omp parallel for schedule(dynamic, 8)
  for (size_t row = 0; row < nrows; row++) fill_row(s, &g, row, offsets[row], total, out);
  free(offsets);
  *n = total, *x = out;
  return CL_OK;
}

int cl_shape_grid_box(const cl_shape *s, int dim, double dx, double lo[3], size_t first[3], size_t count[3]) {
  cl_error err;
  grid g;
  if (s->count != 1 || s->nodes[0].op != CL_SHAPE_BOX || (dim != 2 && dim != 3) || !(dx > 0) || !isfinite(dx) ||
      cl_shape_check(s, &err) != CL_OK || make_grid(s, dim, dx, SIZE_MAX, &g, &err) != CL_OK)
    return 0;
  /* a box holds a grid point when each coordinate lies in its range: scan each axis through the
   * box's middle, with the test cl_shape_points makes */
  const double *p = s->nodes[0].p;
  for (int a = 0; a < 3; a++) {
    lo[a] = g.lo[a], first[a] = 0, count[a] = a < dim ? 0 : 1;
    for (size_t i = 0; a < dim && i < g.n[a]; i++) {
      double at[3] = {(p[0] + p[1]) / 2, (p[2] + p[3]) / 2, dim == 3 ? (p[4] + p[5]) / 2 : 0};
      at[a] = centre(&g, a, i);
      if (!cl_shape_contains(s, dim, at[0], at[1], at[2])) continue;
      if (!count[a]) first[a] = i;
      count[a]++;
    }
    if (!count[a]) return 0;
  }
  return 1;
}
