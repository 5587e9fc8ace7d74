/* Shapes: membership, bounds and checks of each primitive and combinator;
 * grid points against exact counts, analytic areas and volumes, and a
 * serial scan of the grid; the errors for bad shapes and bad dx. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/geom.h"

#define PI 3.14159265358979323846
#define COUNT(a) (sizeof(a) / sizeof *(a))
#define SHAPE(nodes) ((cl_shape){COUNT(nodes), nodes, NULL, 0})
#define SHAPE_V(nodes, verts) ((cl_shape){COUNT(nodes), nodes, verts, COUNT(verts) / 2})

static cl_shape_node rect(double x0, double x1, double y0, double y1) {
  return (cl_shape_node){CL_SHAPE_BOX, {x0, x1, y0, y1, -INFINITY, INFINITY}};
}
static cl_shape_node box(double x0, double x1, double y0, double y1, double z0, double z1) {
  return (cl_shape_node){CL_SHAPE_BOX, {x0, x1, y0, y1, z0, z1}};
}
static cl_shape_node ball(double cx, double cy, double cz, double r) {
  return (cl_shape_node){CL_SHAPE_BALL, {cx, cy, cz, r}};
}
static cl_shape_node cylinder(double cx, double cy, double r, double z0, double z1) {
  return (cl_shape_node){CL_SHAPE_CYLINDER, {cx, cy, r, z0, z1}};
}
static cl_shape_node polygon(size_t first, size_t count, double z0, double z1) {
  return (cl_shape_node){CL_SHAPE_POLYGON, {(double)first, (double)count, z0, z1}};
}
static cl_shape_node op(cl_shape_op o) { return (cl_shape_node){o, {0}}; }

/* An L of area 3: the unit square at (1, 1) cut from [0, 2]^2. */
static const double l_shape[] = {0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2};

static size_t count_points(const cl_shape *s, int dim, double dx) {
  size_t n;
  double *x;
  cl_error err = {0};
  cr_assert_eq(cl_shape_points(s, dim, dx, 100000000, &n, &x, &err), CL_OK, "%s", err.msg);
  free(x);
  return n;
}

static void expect_near(double actual, double expected, double tol, const char *what) {
  cr_expect(fabs(actual - expected) <= tol, "%s: expected %.17g, got %.17g", what, expected, actual);
}

/* ---- points --------------------------------------------------------------- */

Test(points, rect_gives_the_exact_grid_in_row_major_order) {
  cl_shape_node nodes[] = {rect(0, 1, 0, 0.5)};
  cl_shape s = SHAPE(nodes);
  size_t n;
  double *x;
  cl_error err = {0};
  cr_assert_eq(cl_shape_points(&s, 2, 0.1, 1000, &n, &x, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(n, 50);
  const double *px = x, *py = x + n;
  expect_near(px[0], 0.05, 1e-12, "first x"), expect_near(py[0], 0.05, 1e-12, "first y");
  expect_near(px[1], 0.15, 1e-12, "x is fastest"), expect_near(py[1], 0.05, 1e-12, "same row");
  expect_near(px[10], 0.05, 1e-12, "second row x"), expect_near(py[10], 0.15, 1e-12, "second row y");
  expect_near(px[49], 0.95, 1e-12, "last x"), expect_near(py[49], 0.45, 1e-12, "last y");
  free(x);
}

Test(points, grid_starts_at_the_lower_bound) {
  cl_shape_node nodes[] = {rect(-1, -0.5, 2, 2.2)};
  cl_shape s = SHAPE(nodes);
  size_t n;
  double *x;
  cl_error err = {0};
  cr_assert_eq(cl_shape_points(&s, 2, 0.1, 1000, &n, &x, &err), CL_OK, "%s", err.msg);
  cr_expect_eq(n, 10);
  expect_near(x[0], -0.95, 1e-12, "first x");
  expect_near(x[n], 2.05, 1e-12, "first y");
  free(x);
}

Test(points, disk_count_matches_its_area) {
  cl_shape_node nodes[] = {cylinder(0.3, -0.2, 1, -INFINITY, INFINITY)};
  cl_shape s = SHAPE(nodes);
  double dx = 0.02, expected = PI / (dx * dx); /* r / dx = 50 */
  size_t n = count_points(&s, 2, dx);
  cr_expect(fabs((double)n - expected) <= 0.01 * expected, "%zu points, area says %.1f", n, expected);
}

Test(points, ball_in_2d_is_a_disk) {
  cl_shape_node nodes[] = {ball(0, 0, 123, 1)};
  cl_shape s = SHAPE(nodes);
  double dx = 0.02, expected = PI / (dx * dx);
  size_t n = count_points(&s, 2, dx);
  cr_expect(fabs((double)n - expected) <= 0.01 * expected, "%zu points, area says %.1f", n, expected);
}

Test(points, box_in_3d_runs_x_then_y_then_z) {
  cl_shape_node nodes[] = {box(0, 1, 0, 0.5, 0, 0.3)};
  cl_shape s = SHAPE(nodes);
  size_t n;
  double *x;
  cl_error err = {0};
  cr_assert_eq(cl_shape_points(&s, 3, 0.1, 1000, &n, &x, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(n, 150);
  expect_near(x[49], 0.95, 1e-12, "x of the last point of the first layer");
  expect_near(x[n + 49], 0.45, 1e-12, "y of the last point of the first layer");
  expect_near(x[2 * n + 49], 0.05, 1e-12, "z of the first layer");
  expect_near(x[50], 0.05, 1e-12, "x of the second layer");
  expect_near(x[2 * n + 50], 0.15, 1e-12, "z of the second layer");
  free(x);
}

Test(points, sphere_count_matches_its_volume) {
  cl_shape_node nodes[] = {ball(1, 2, 3, 1)};
  cl_shape s = SHAPE(nodes);
  double dx = 0.05, expected = 4.0 / 3.0 * PI / (dx * dx * dx); /* r / dx = 20 */
  size_t n = count_points(&s, 3, dx);
  cr_expect(fabs((double)n - expected) <= 0.01 * expected, "%zu points, volume says %.1f", n, expected);
}

Test(points, cylinder_count_matches_its_volume) {
  cl_shape_node nodes[] = {cylinder(0, 0, 1, 0, 1)};
  cl_shape s = SHAPE(nodes);
  double dx = 0.05, expected = PI / (dx * dx * dx);
  size_t n = count_points(&s, 3, dx);
  cr_expect(fabs((double)n - expected) <= 0.01 * expected, "%zu points, volume says %.1f", n, expected);
}

Test(points, l_shaped_polygon_has_exactly_its_area) {
  cl_shape_node nodes[] = {polygon(0, 6, -INFINITY, INFINITY)};
  cl_shape s = SHAPE_V(nodes, l_shape);
  cr_expect_eq(count_points(&s, 2, 0.1), 300);
}

Test(points, clockwise_polygon_is_the_same) {
  const double clockwise[] = {0, 2, 1, 2, 1, 1, 2, 1, 2, 0, 0, 0};
  cl_shape_node nodes[] = {polygon(0, 6, -INFINITY, INFINITY)};
  cl_shape s = SHAPE_V(nodes, clockwise);
  cr_expect_eq(count_points(&s, 2, 0.1), 300);
}

Test(points, extruded_polygon_stacks_layers) {
  cl_shape_node nodes[] = {polygon(0, 6, 0, 0.5)};
  cl_shape s = SHAPE_V(nodes, l_shape);
  cr_expect_eq(count_points(&s, 3, 0.1), 1500);
}

Test(points, rect_minus_disk_has_a_hole) {
  cl_shape_node nodes[] = {rect(0, 1, 0, 1), cylinder(0.5, 0.5, 0.25, -INFINITY, INFINITY), op(CL_SHAPE_DIFFERENCE)};
  cl_shape s = SHAPE(nodes);
  double dx = 0.01, expected = (1 - PI * 0.25 * 0.25) / (dx * dx);
  size_t n;
  double *x;
  cl_error err = {0};
  cr_assert_eq(cl_shape_points(&s, 2, dx, 1000000, &n, &x, &err), CL_OK, "%s", err.msg);
  cr_expect(fabs((double)n - expected) <= 0.01 * expected, "%zu points, area says %.1f", n, expected);
  for (size_t i = 0; i < n; i++) {
    double rx = x[i] - 0.5, ry = x[n + i] - 0.5;
    cr_assert(rx * rx + ry * ry > 0.25 * 0.25, "point %zu (%g, %g) is in the hole", i, x[i], x[n + i]);
  }
  free(x);
}

Test(points, union_and_intersection_of_overlapping_rects) {
  cl_shape_node u[] = {rect(0, 1, 0, 1), rect(0.5, 1.5, 0, 1), op(CL_SHAPE_UNION)};
  cl_shape_node i[] = {rect(0, 1, 0, 1), rect(0.5, 1.5, 0, 1), op(CL_SHAPE_INTERSECTION)};
  cl_shape su = SHAPE(u), si = SHAPE(i);
  cr_expect_eq(count_points(&su, 2, 0.1), 150);
  size_t n;
  double *x;
  cl_error err = {0};
  cr_assert_eq(cl_shape_points(&si, 2, 0.1, 1000, &n, &x, &err), CL_OK, "%s", err.msg);
  cr_expect_eq(n, 50);
  expect_near(x[0], 0.55, 1e-12, "intersection grid starts at its own lower bound");
  free(x);
}

/* The parallel count and fill passes give exactly a serial row-major scan. */
Test(points, equal_a_serial_scan_of_the_grid) {
  const double tri[] = {0, 0, 1.7, 0.2, 0.4, 1.3};
  cl_shape_node nodes[] = {cylinder(1, 1, 1, 0, 1),  box(0.9, 2.1, 0.8, 1.2, 0.3, 0.7), op(CL_SHAPE_DIFFERENCE),
                           polygon(0, 3, 0.2, 0.9), op(CL_SHAPE_UNION)};
  cl_shape s = SHAPE_V(nodes, tri);
  double dx = 0.03, lo[3], hi[3];
  size_t n;
  double *x;
  cl_error err = {0};
  cr_assert_eq(cl_shape_points(&s, 3, dx, 10000000, &n, &x, &err), CL_OK, "%s", err.msg);
  cl_shape_bounds(&s, 3, lo, hi);
  size_t cells[3], at = 0;
  for (int k = 0; k < 3; k++) cells[k] = (size_t)ceil((hi[k] - lo[k]) / dx);
  for (size_t k = 0; k < cells[2]; k++)
    for (size_t j = 0; j < cells[1]; j++)
      for (size_t i = 0; i < cells[0]; i++) {
        double p[3] = {lo[0] + (i + 0.5) * dx, lo[1] + (j + 0.5) * dx, lo[2] + (k + 0.5) * dx};
        if (!cl_shape_contains(&s, 3, p[0], p[1], p[2])) continue;
        cr_assert_lt(at, n, "the scan finds more points than cl_shape_points");
        for (int c = 0; c < 3; c++) cr_assert_eq(x[c * n + at], p[c], "point %zu component %d", at, c);
        at++;
      }
  cr_expect_eq(at, n);
  free(x);
}

/* ---- membership and bounds ------------------------------------------------ */

Test(contains, primitives) {
  cl_shape_node b[] = {box(0, 1, 0, 2, 0, 3)};
  cl_shape_node sph[] = {ball(0, 0, 0, 1)};
  cl_shape_node cyl[] = {cylinder(0, 0, 1, 0, 2)};
  cl_shape sb = SHAPE(b), ss = SHAPE(sph), sc = SHAPE(cyl);
  cr_expect(cl_shape_contains(&sb, 3, 0.5, 1.5, 2.5));
  cr_expect(!cl_shape_contains(&sb, 3, 0.5, 1.5, 3.5));
  cr_expect(cl_shape_contains(&sb, 2, 0.5, 1.5, 99), "2D ignores z");
  cr_expect(!cl_shape_contains(&sb, 2, 1.5, 1.5, 0));
  cr_expect(cl_shape_contains(&ss, 3, 0.5, 0.5, 0.5));
  cr_expect(!cl_shape_contains(&ss, 3, 0.6, 0.6, 0.6));
  cr_expect(cl_shape_contains(&ss, 2, 0.6, 0.6, 0.6), "2D: the disk through the centre");
  cr_expect(cl_shape_contains(&sc, 3, 0.7, 0.7, 1.9));
  cr_expect(!cl_shape_contains(&sc, 3, 0.7, 0.7, 2.1));
  cr_expect(!cl_shape_contains(&sc, 3, 0.8, 0.8, 1));
}

Test(contains, l_shaped_polygon) {
  cl_shape_node nodes[] = {polygon(0, 6, 0, 1)};
  cl_shape s = SHAPE_V(nodes, l_shape);
  cr_expect(cl_shape_contains(&s, 2, 0.5, 1.5, 0));
  cr_expect(cl_shape_contains(&s, 2, 1.5, 0.5, 0));
  cr_expect(!cl_shape_contains(&s, 2, 1.5, 1.5, 0), "the cut-out corner");
  cr_expect(!cl_shape_contains(&s, 2, -0.1, 0.5, 0));
  cr_expect(cl_shape_contains(&s, 3, 0.5, 0.5, 0.5));
  cr_expect(!cl_shape_contains(&s, 3, 0.5, 0.5, 1.5), "above the extrusion");
}

Test(contains, polygons_after_the_first_use_their_own_vertices) {
  const double two_triangles[] = {0, 0, 1, 0, 0, 1, 5, 5, 6, 5, 5, 6};
  cl_shape_node nodes[] = {polygon(0, 3, -INFINITY, INFINITY), polygon(3, 3, -INFINITY, INFINITY),
                           op(CL_SHAPE_UNION)};
  cl_shape s = SHAPE_V(nodes, two_triangles);
  cr_expect(cl_shape_contains(&s, 2, 0.2, 0.2, 0));
  cr_expect(cl_shape_contains(&s, 2, 5.2, 5.2, 0));
  cr_expect(!cl_shape_contains(&s, 2, 3, 3, 0));
}

Test(contains, combinators) {
  cl_shape_node nodes[] = {rect(0, 2, 0, 2), rect(1, 3, 1, 3), op(CL_SHAPE_INTERSECTION), rect(1.4, 1.6, 0, 5),
                           op(CL_SHAPE_DIFFERENCE), rect(10, 11, 10, 11), op(CL_SHAPE_UNION)};
  cl_shape s = SHAPE(nodes);
  cr_expect(cl_shape_contains(&s, 2, 1.2, 1.2, 0));
  cr_expect(!cl_shape_contains(&s, 2, 0.5, 0.5, 0), "outside the intersection");
  cr_expect(!cl_shape_contains(&s, 2, 1.5, 1.5, 0), "in the slot");
  cr_expect(cl_shape_contains(&s, 2, 10.5, 10.5, 0), "in the far rect");
}

Test(contains, malformed_shapes_contain_nothing) {
  cl_shape_node nodes[] = {rect(0, 1, 0, 1), op(CL_SHAPE_UNION)};
  cl_shape s = SHAPE(nodes);
  cr_expect(!cl_shape_contains(&s, 2, 0.5, 0.5, 0));
  double lo[3], hi[3];
  cl_shape_bounds(&s, 2, lo, hi);
  cr_expect(lo[0] == 0 && hi[0] == 0 && lo[1] == 0 && hi[1] == 0);
}

Test(bounds, primitives_and_combinators) {
  double lo[3], hi[3];
  cl_shape_node sph[] = {ball(1, 2, 3, 0.5)};
  cl_shape s = SHAPE(sph);
  cl_shape_bounds(&s, 3, lo, hi);
  cr_expect(lo[0] == 0.5 && hi[0] == 1.5 && lo[1] == 1.5 && hi[1] == 2.5 && lo[2] == 2.5 && hi[2] == 3.5);
  cl_shape_bounds(&s, 2, lo, hi);
  cr_expect(lo[2] == 0 && hi[2] == 0, "2D bounds have no z");

  cl_shape_node uni[] = {rect(0, 1, 0, 1), cylinder(3, 0, 1, 0, 2), op(CL_SHAPE_UNION)};
  s = SHAPE(uni);
  cl_shape_bounds(&s, 2, lo, hi);
  cr_expect(lo[0] == 0 && hi[0] == 4 && lo[1] == -1 && hi[1] == 1);
  cl_shape_bounds(&s, 3, lo, hi);
  cr_expect(isinf(lo[2]) && lo[2] < 0 && isinf(hi[2]) && hi[2] > 0, "a 2D rect is unbounded in z");

  cl_shape_node dif[] = {rect(0, 1, 0, 1), rect(0.5, 2, -1, 2), op(CL_SHAPE_DIFFERENCE)};
  s = SHAPE(dif);
  cl_shape_bounds(&s, 2, lo, hi);
  cr_expect(lo[0] == 0 && hi[0] == 1 && lo[1] == 0 && hi[1] == 1, "difference: the left operand's");

  cl_shape_node inter[] = {rect(0, 1, 0, 1), box(0.5, 2, -1, 2, 0, 3), op(CL_SHAPE_INTERSECTION)};
  s = SHAPE(inter);
  cl_shape_bounds(&s, 3, lo, hi);
  cr_expect(lo[0] == 0.5 && hi[0] == 1 && lo[1] == 0 && hi[1] == 1 && lo[2] == 0 && hi[2] == 3);

  cl_shape_node poly[] = {polygon(0, 6, -1, 1)};
  s = SHAPE_V(poly, l_shape);
  cl_shape_bounds(&s, 3, lo, hi);
  cr_expect(lo[0] == 0 && hi[0] == 2 && lo[1] == 0 && hi[1] == 2 && lo[2] == -1 && hi[2] == 1);
}

/* ---- checks and errors ---------------------------------------------------- */

static void expect_check_error(const cl_shape *s, const char *needle) {
  cl_error err = {0};
  cr_expect_eq(cl_shape_check(s, &err), CL_ERR_ARG, "expected an error mentioning '%s'", needle);
  cr_expect(strstr(err.msg, needle), "'%s' does not mention '%s'", err.msg, needle);
}

Test(check, well_formed_shapes_pass) {
  cl_shape_node nodes[] = {rect(0, 1, 0, 1), cylinder(0.5, 0.5, 0.1, -INFINITY, INFINITY), op(CL_SHAPE_DIFFERENCE),
                           polygon(0, 6, 0, 1), op(CL_SHAPE_UNION)};
  cl_shape s = SHAPE_V(nodes, l_shape);
  cl_error err = {0};
  cr_expect_eq(cl_shape_check(&s, &err), CL_OK, "%s", err.msg);
}

Test(check, structure) {
  cl_shape empty = {0, NULL, NULL, 0};
  expect_check_error(&empty, "shape has no nodes");
  cl_shape_node lone[] = {rect(0, 1, 0, 1), op(CL_SHAPE_DIFFERENCE)};
  cl_shape s = SHAPE(lone);
  expect_check_error(&s, "shape node 1 (difference) needs two operands");
  cl_shape_node two[] = {rect(0, 1, 0, 1), rect(2, 3, 0, 1)};
  s = SHAPE(two);
  expect_check_error(&s, "shape leaves 2 results");
  cl_shape_node unknown[] = {{(cl_shape_op)99, {0}}};
  s = SHAPE(unknown);
  expect_check_error(&s, "shape node 0 has an unknown kind (99)");
}

Test(check, primitives) {
  cl_shape_node flat[] = {rect(0, 1, 0, 1), box(0, 1, 0, 1, 1, 1), op(CL_SHAPE_UNION)};
  cl_shape s = SHAPE(flat);
  expect_check_error(&s, "shape node 1 (box): zmax (1) must be greater than zmin (1)");
  cl_shape_node backwards[] = {rect(1, 0, 0, 1)};
  s = SHAPE(backwards);
  expect_check_error(&s, "shape node 0 (box): xmax (0) must be greater than xmin (1)");
  cl_shape_node not_a_number[] = {rect(0, 1, NAN, 1)};
  s = SHAPE(not_a_number);
  expect_check_error(&s, "shape node 0 (box): ymax (1) must be greater than ymin (nan)");
  cl_shape_node no_radius[] = {ball(0, 0, 0, 0)};
  s = SHAPE(no_radius);
  expect_check_error(&s, "shape node 0 (ball): the radius must be positive and finite (got 0)");
  cl_shape_node cyl[] = {cylinder(0, INFINITY, 1, 0, 1)};
  s = SHAPE(cyl);
  expect_check_error(&s, "shape node 0 (cylinder): the centre must be finite");
}

Test(check, polygons) {
  cl_shape_node two_vertices[] = {polygon(0, 2, -INFINITY, INFINITY)};
  cl_shape s = SHAPE_V(two_vertices, l_shape);
  expect_check_error(&s, "shape node 0 (polygon): needs a whole number of at least 3 vertices (got 2)");
  cl_shape_node past_the_end[] = {polygon(4, 3, -INFINITY, INFINITY)};
  s = SHAPE_V(past_the_end, l_shape);
  expect_check_error(&s, "shape node 0 (polygon): vertices 4..6 are not in the vertex table (6 vertices)");
  s.vertices = NULL, s.nvertices = 0;
  expect_check_error(&s, "are not in the vertex table (0 vertices)");
  const double bad[] = {0, 0, 1, 0, NAN, 1};
  cl_shape_node nan_vertex[] = {polygon(0, 3, -INFINITY, INFINITY)};
  s = SHAPE_V(nan_vertex, bad);
  expect_check_error(&s, "shape node 0 (polygon): vertex 2 is not finite");
}

/* Right-nested unions leave one pending operand per level. */
static cl_shape right_nested(cl_shape_node *nodes, size_t levels) {
  for (size_t i = 0; i < levels; i++) nodes[i] = rect((double)i, i + 1.0, 0, 1);
  for (size_t i = 0; i + 1 < levels; i++) nodes[levels + i] = op(CL_SHAPE_UNION);
  return (cl_shape){2 * levels - 1, nodes, NULL, 0};
}

Test(check, stack_depth) {
  cl_shape_node nodes[2 * (CL_SHAPE_STACK_MAX + 1)];
  cl_shape s = right_nested(nodes, CL_SHAPE_STACK_MAX);
  cl_error err = {0};
  cr_expect_eq(cl_shape_check(&s, &err), CL_OK, "%s", err.msg);
  cr_expect(cl_shape_contains(&s, 2, CL_SHAPE_STACK_MAX - 0.5, 0.5, 0), "the deepest operand is reached");
  s = right_nested(nodes, CL_SHAPE_STACK_MAX + 1);
  expect_check_error(&s, "shape node 64 (box): more than 64 operands pending");
}

static void expect_points_error(const cl_shape *s, int dim, double dx, size_t max_points, cl_status code,
                                const char *needle) {
  size_t n = 7;
  double *x = (double *)&n;
  cl_error err = {0};
  cr_expect_eq(cl_shape_points(s, dim, dx, max_points, &n, &x, &err), code, "expected an error mentioning '%s'",
               needle);
  cr_expect(strstr(err.msg, needle), "'%s' does not mention '%s'", err.msg, needle);
  cr_expect(n == 0 && x == NULL, "no result on error");
}

Test(points_errors, bad_dx_and_dim) {
  cl_shape_node nodes[] = {rect(0, 1, 0, 1)};
  cl_shape s = SHAPE(nodes);
  expect_points_error(&s, 2, 0, 1000, CL_ERR_ARG, "dx must be positive and finite (got 0)");
  expect_points_error(&s, 2, -0.1, 1000, CL_ERR_ARG, "dx must be positive and finite (got -0.1)");
  expect_points_error(&s, 2, NAN, 1000, CL_ERR_ARG, "dx must be positive and finite (got nan)");
  expect_points_error(&s, 4, 0.1, 1000, CL_ERR_ARG, "points need dim 2 or 3 (got 4)");
}

Test(points_errors, dx_larger_than_the_shape) {
  cl_shape_node nodes[] = {rect(0, 1, 0, 1)};
  cl_shape s = SHAPE(nodes);
  expect_points_error(&s, 2, 5, 1000, CL_ERR_ARG,
                      "shape contains no points at dx = 5 (is dx larger than the shape?)");
  cl_shape_node disjoint[] = {rect(0, 1, 0, 1), rect(2, 3, 0, 1), op(CL_SHAPE_INTERSECTION)};
  s = SHAPE(disjoint);
  expect_points_error(&s, 2, 0.1, 1000, CL_ERR_ARG, "shape contains no points at dx = 0.1");
}

Test(points_errors, too_many_points) {
  cl_shape_node nodes[] = {rect(0, 1, 0, 1)};
  cl_shape s = SHAPE(nodes);
  expect_points_error(&s, 2, 0.001, 1000, CL_ERR_ARG,
                      "shape at dx = 0.001 spans 1000000 grid cells (1000 x 1000 over its bounds), more than the "
                      "limit of 1000 points");
  cl_shape_node cube[] = {box(0, 1, 0, 1, 0, 1)};
  s = SHAPE(cube);
  expect_points_error(&s, 3, 1.0 / 1024, 1000, CL_ERR_ARG, "spans 1073741824 grid cells (1024 x 1024 x 1024 over");
}

Test(points_errors, unbounded_and_malformed_shapes) {
  cl_shape_node nodes[] = {rect(0, 1, 0, 1)};
  cl_shape s = SHAPE(nodes);
  expect_points_error(&s, 3, 0.1, 1000, CL_ERR_ARG, "shape is unbounded in z (-inf to inf)");
  cl_shape_node lone[] = {rect(0, 1, 0, 1), op(CL_SHAPE_UNION)};
  s = SHAPE(lone);
  expect_points_error(&s, 2, 0.1, 1000, CL_ERR_ARG, "shape node 1 (union) needs two operands");
}
