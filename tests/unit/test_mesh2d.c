/* 2D triangle meshes: union-jack rectangles and rings against counting
 * formulas, exact areas and a brute-force adjacency search; the chequerboard
 * of diagonals; perturbation; colouring against node-to-element lists; and
 * the refusals of check and adjacency. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/mesh2d.h"

#define PI 3.14159265358979323846

static double nx_(const cl_mesh2d *m, uint32_t i) { return m->x[i]; }
static double ny_(const cl_mesh2d *m, uint32_t i) { return m->x[m->nnodes + i]; }
static const uint32_t *el(const cl_mesh2d *m, size_t e) { return m->elem + e * (m->order == 2 ? 6 : 3); }

static double area(const cl_mesh2d *m, size_t e) {
  const uint32_t *c = el(m, e);
  double s = 0;
  for (int k = 0; k < 3; k++) s += nx_(m, c[k]) * ny_(m, c[(k + 1) % 3]) - nx_(m, c[(k + 1) % 3]) * ny_(m, c[k]);
  return 0.5 * s;
}

static double total_area(const cl_mesh2d *m) {
  double a = 0;
  for (size_t e = 0; e < m->nelems; e++) {
    cr_expect(area(m, e) > 0, "element %zu is not counter-clockwise (area %g)", e, area(m, e));
    a += area(m, e);
  }
  return a;
}

/* Elements other than e with an edge on nodes a, b (either direction);
 * *f receives the last one. */
static int others_with_edge(const cl_mesh2d *m, size_t e, uint32_t a, uint32_t b, size_t *f) {
  int n = 0;
  for (size_t g = 0; g < m->nelems; g++)
    for (int k = 0; k < 3 && g != e; k++) {
      uint32_t p = el(m, g)[k], q = el(m, g)[(k + 1) % 3];
      if ((p == a && q == b) || (p == b && q == a)) n++, *f = g;
    }
  return n;
}

/* adj against a brute-force search, and symmetry with reversed corners. */
static void expect_adjacency(const cl_mesh2d *m) {
  for (size_t e = 0; e < m->nelems; e++)
    for (int k = 0; k < 3; k++) {
      uint32_t a = el(m, e)[k], b = el(m, e)[(k + 1) % 3];
      size_t f = 0;
      int n = others_with_edge(m, e, a, b, &f);
      cr_assert(n <= 1, "edge %u-%u in %d other elements", a, b, n);
      int32_t want = n ? (int32_t)f : -1;
      cr_assert_eq(m->adj[3 * e + k], want, "adj of element %zu edge %d", e, k);
      if (want < 0) continue;
      int found = 0;
      for (int j = 0; j < 3; j++)
        if (el(m, f)[j] == b && el(m, f)[(j + 1) % 3] == a && m->adj[3 * f + j] == (int32_t)e) found = 1;
      cr_assert(found, "element %zu does not see element %zu across the reversed edge %u-%u", f, e, b, a);
    }
}

static void expect_midsides_at_midpoints(const cl_mesh2d *m) {
  for (size_t e = 0; e < m->nelems && m->order == 2; e++)
    for (int k = 0; k < 3; k++) {
      const uint32_t *c = el(m, e);
      uint32_t a = c[k], b = c[(k + 1) % 3], mid = c[3 + k];
      cr_expect(fabs(nx_(m, mid) - 0.5 * (nx_(m, a) + nx_(m, b))) < 1e-14 &&
                    fabs(ny_(m, mid) - 0.5 * (ny_(m, a) + ny_(m, b))) < 1e-14,
                "element %zu mid-side %d is not at the midpoint", e, k);
    }
}

/* Every node used, no two at one position (no duplicates at shared edges or seams). */
static void expect_nodes_distinct_and_used(const cl_mesh2d *m) {
  char *used = calloc(m->nnodes, 1);
  size_t nper = m->order == 2 ? 6 : 3;
  for (size_t s = 0; s < nper * m->nelems; s++) used[m->elem[s]] = 1;
  for (size_t i = 0; i < m->nnodes; i++) {
    cr_expect(used[i], "node %zu unused", i);
    for (size_t j = i + 1; j < m->nnodes; j++)
      cr_expect(hypot(nx_(m, i) - nx_(m, j), ny_(m, i) - ny_(m, j)) > 1e-9, "nodes %zu and %zu coincide", i, j);
  }
  free(used);
}

static void expect_facets(const cl_mesh2d *m, size_t boundary) {
  size_t in, bd;
  cl_mesh2d_facets(m, &in, &bd);
  cr_expect_eq(bd, boundary, "boundary facets");
  cr_expect_eq(2 * in, 3 * m->nelems - bd, "interior facets: 3 nelems / 2 - boundary / 2");
}

/* ---- rectangle --------------------------------------------------------------- */

static void rect_case(size_t nx, size_t ny, int order) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect_union_jack(-1, 2, 0.5, 2.5, nx, ny, order, &m, &err), CL_OK, "%s", err.msg);
  size_t s = (size_t)order;
  cr_expect_eq(m.nnodes, (s * nx + 1) * (s * ny + 1), "nodes of %zux%zu order %d", nx, ny, order);
  cr_expect_eq(m.nelems, 2 * nx * ny);
  cr_expect(fabs(total_area(&m) - 6.0) <= 1e-12, "area %.17g", total_area(&m));
  expect_adjacency(&m);
  expect_facets(&m, 2 * (nx + ny));
  expect_midsides_at_midpoints(&m);
  expect_nodes_distinct_and_used(&m);
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_OK, "%s", err.msg);
  cl_mesh2d_free(&m);
}

Test(rect, t3_counts_area_orientation_and_adjacency) {
  rect_case(1, 1, 1), rect_case(3, 2, 1), rect_case(5, 7, 1);
}

Test(rect, t6_counts_area_orientation_and_adjacency) {
  rect_case(1, 1, 2), rect_case(3, 2, 2), rect_case(4, 5, 2);
}

/* Each square's diagonal, found from the elements' geometry, points along
 * (1, 1) when i + j is even and (1, -1) when odd. */
Test(rect, diagonals_alternate_like_a_chequerboard) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect_union_jack(0, 4, 0, 4, 4, 4, 1, &m, &err), CL_OK, "%s", err.msg);
  int seen[4][4] = {{0}};
  for (size_t e = 0; e < m.nelems; e++) {
    const uint32_t *c = el(&m, e);
    double cx = (nx_(&m, c[0]) + nx_(&m, c[1]) + nx_(&m, c[2])) / 3;
    double cy = (ny_(&m, c[0]) + ny_(&m, c[1]) + ny_(&m, c[2])) / 3;
    int i = (int)floor(cx), j = (int)floor(cy);
    for (int k = 0; k < 3; k++) {
      double dx = nx_(&m, c[(k + 1) % 3]) - nx_(&m, c[k]), dy = ny_(&m, c[(k + 1) % 3]) - ny_(&m, c[k]);
      if (fabs(dx) < 0.5 || fabs(dy) < 0.5) continue; /* a side, not the diagonal */
      int rising = dx * dy > 0;
      cr_expect_eq(rising, (i + j) % 2 == 0, "square (%d, %d): diagonal direction", i, j);
      seen[i][j]++;
    }
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) cr_expect_eq(seen[i][j], 2, "square (%d, %d) has two triangles on its diagonal", i, j);
  cl_mesh2d_free(&m);
}

/* ---- ring -------------------------------------------------------------------- */

static void ring_case(size_t nr, size_t nt, int order) {
  const double ri = 0.5, ro = 1.25;
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_ring(ri, ro, nr, nt, order, &m, &err), CL_OK, "%s", err.msg);
  size_t s = (size_t)order;
  cr_expect_eq(m.nnodes, (s * nr + 1) * s * nt, "nodes of ring %zux%zu order %d", nr, nt, order);
  cr_expect_eq(m.nelems, 2 * nr * nt);
  /* the inscribed polygons of nt sides */
  double exact = 0.5 * (double)nt * sin(2 * PI / (double)nt) * (ro * ro - ri * ri);
  cr_expect(fabs(total_area(&m) - exact) <= 1e-12, "area %.17g, polygon %.17g", total_area(&m), exact);
  cr_expect(fabs(exact - PI * (ro * ro - ri * ri)) < PI * (ro * ro - ri * ri) * 2 * PI * PI / (3.0 * nt * nt));
  expect_adjacency(&m);
  expect_facets(&m, 2 * nt);
  expect_midsides_at_midpoints(&m);
  expect_nodes_distinct_and_used(&m);
  for (size_t e = 0; e < m.nelems; e++)
    for (int k = 0; k < 3; k++) {
      if (m.adj[3 * e + k] >= 0) continue;
      uint32_t a = el(&m, e)[k], b = el(&m, e)[(k + 1) % 3];
      double ra = hypot(nx_(&m, a), ny_(&m, a)), rb = hypot(nx_(&m, b), ny_(&m, b));
      cr_expect(fabs(ra - rb) < 1e-12 && (fabs(ra - ri) < 1e-12 || fabs(ra - ro) < 1e-12),
                "boundary edge %u-%u at radii %g, %g", a, b, ra, rb);
    }
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_OK, "%s", err.msg);
  cl_mesh2d_free(&m);
}

Test(ring, t3_closed_counts_area_and_boundary_radii) { ring_case(1, 3, 1), ring_case(2, 8, 1), ring_case(3, 13, 1); }

Test(ring, t6_closed_counts_area_and_boundary_radii) { ring_case(1, 4, 2), ring_case(2, 9, 2), ring_case(3, 16, 2); }

/* ---- perturbation ------------------------------------------------------------ */

static void perturbed(int order, uint64_t seed, cl_mesh2d *m) {
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect_union_jack(0, 3, 0, 2, 6, 4, order, m, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_mesh2d_perturb(m, 0.3, seed, &err), CL_OK, "%s", err.msg);
}

Test(perturb, moves_interior_corners_within_bound_keeps_the_rest_valid) {
  for (int order = 1; order <= 2; order++) {
    cl_mesh2d ref, m;
    cl_error err = {0};
    cr_assert_eq(cl_mesh2d_rect_union_jack(0, 3, 0, 2, 6, 4, order, &ref, &err), CL_OK, "%s", err.msg);
    perturbed(order, 7, &m);
    size_t moved = 0;
    for (uint32_t i = 0; i < m.nnodes; i++) {
      double x = nx_(&ref, i), y = ny_(&ref, i), d = hypot(nx_(&m, i) - x, ny_(&m, i) - y);
      int boundary = x == 0 || fabs(x - 3) < 1e-12 || y == 0 || fabs(y - 2) < 1e-12;
      if (boundary) cr_expect_eq(d, 0.0, "boundary node %u moved by %g", i, d);
      /* the shortest edge at a corner is 0.5; a mid-side node moves by at most as much */
      cr_expect(d <= 0.3 * 0.5 + 1e-15, "node %u moved by %g", i, d);
      moved += d > 0;
    }
    cr_expect(moved > 0);
    expect_midsides_at_midpoints(&m);
    cr_expect_eq(cl_mesh2d_check(&m, &err), CL_OK, "%s", err.msg);
    cl_mesh2d_free(&ref), cl_mesh2d_free(&m);
  }
}

Test(perturb, same_seed_same_mesh_other_seed_other_mesh) {
  cl_mesh2d a, b, c;
  perturbed(2, 11, &a), perturbed(2, 11, &b), perturbed(2, 12, &c);
  cr_expect(memcmp(a.x, b.x, 2 * a.nnodes * sizeof *a.x) == 0);
  cr_expect(memcmp(a.x, c.x, 2 * a.nnodes * sizeof *a.x) != 0);
  cl_mesh2d_free(&a), cl_mesh2d_free(&b), cl_mesh2d_free(&c);
}

Test(perturb, refuses_a_fraction_out_of_range) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect_union_jack(0, 1, 0, 1, 2, 2, 1, &m, &err), CL_OK, "%s", err.msg);
  cr_expect_eq(cl_mesh2d_perturb(&m, 0.5, 1, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "fraction") != NULL, "%s", err.msg);
  cl_mesh2d_free(&m);
}

/* ---- colouring --------------------------------------------------------------- */

/* Checks every pair of elements around every node; returns the most elements at one node. */
static size_t expect_proper_colouring(const cl_mesh2d *m, const uint32_t *colour, uint32_t ncolours) {
  size_t nper = m->order == 2 ? 6 : 3, most = 0;
  size_t *count = calloc(m->nnodes, sizeof *count);
  for (size_t s = 0; s < nper * m->nelems; s++) count[m->elem[s]]++;
  size_t **around = malloc(m->nnodes * sizeof *around);
  for (size_t i = 0; i < m->nnodes; i++) around[i] = malloc(count[i] * sizeof **around), count[i] = 0;
  for (size_t s = 0; s < nper * m->nelems; s++) around[m->elem[s]][count[m->elem[s]]++] = s / nper;
  for (size_t i = 0; i < m->nnodes; i++) {
    most = count[i] > most ? count[i] : most;
    for (size_t p = 0; p < count[i]; p++)
      for (size_t q = p + 1; q < count[i]; q++)
        cr_expect_neq(colour[around[i][p]], colour[around[i][q]], "elements %zu and %zu share node %zu and a colour",
                      around[i][p], around[i][q], i);
    free(around[i]);
  }
  free(around), free(count);
  for (size_t e = 0; e < m->nelems; e++) cr_expect_lt(colour[e], ncolours);
  return most;
}

static uint32_t colour_case(cl_mesh2d *m) {
  cl_error err = {0};
  uint32_t *c1 = malloc(m->nelems * sizeof *c1), *c2 = malloc(m->nelems * sizeof *c2), n1, n2;
  cr_assert_eq(cl_mesh2d_colour(m, c1, &n1, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_mesh2d_colour(m, c2, &n2, &err), CL_OK, "%s", err.msg);
  cr_expect_eq(n1, n2);
  cr_expect(memcmp(c1, c2, m->nelems * sizeof *c1) == 0, "colouring is not deterministic");
  size_t lower = expect_proper_colouring(m, c1, n1);
  cr_expect_geq(n1, lower, "%u colours, but %zu elements share a node", n1, lower);
  free(c1), free(c2);
  cl_mesh2d_free(m);
  return n1;
}

Test(colour, union_jack_rectangles_need_few_colours) {
  size_t sizes[][2] = {{1, 1}, {4, 4}, {7, 5}, {16, 12}};
  for (int order = 1; order <= 2; order++)
    for (size_t s = 0; s < 4; s++) {
      cl_mesh2d m;
      cl_error err = {0};
      cr_assert_eq(cl_mesh2d_rect_union_jack(0, 1, 0, 1, sizes[s][0], sizes[s][1], order, &m, &err), CL_OK, "%s",
                   err.msg);
      uint32_t n = colour_case(&m);
      cr_expect_leq(n, 12, "%zux%zu order %d: %u colours", sizes[s][0], sizes[s][1], order, n);
    }
}

Test(colour, perturbed_ring_is_coloured_properly) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_ring(1, 2, 4, 21, 2, &m, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_mesh2d_perturb(&m, 0.2, 3, &err), CL_OK, "%s", err.msg);
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_OK, "%s", err.msg);
  colour_case(&m);
}

/* ---- refusals ---------------------------------------------------------------- */

Test(check, refuses_a_flipped_element_naming_it) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect_union_jack(0, 1, 0, 1, 3, 3, 1, &m, &err), CL_OK, "%s", err.msg);
  uint32_t t = m.elem[3 * 5 + 1];
  m.elem[3 * 5 + 1] = m.elem[3 * 5 + 2], m.elem[3 * 5 + 2] = t;
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "element 5 ") && strstr(err.msg, "area -0.0555556"), "%s", err.msg);
  cl_mesh2d_free(&m);
}

/* Three nodes on a line (T3), and a T6 mid-side node put on a corner. */
Test(check, refuses_degenerate_elements_and_misplaced_midsides) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_alloc(1, 3, 1, &m, &err), CL_OK, "%s", err.msg);
  const double x[] = {0, 1, 2, 0, 1, 2};
  memcpy(m.x, x, sizeof x);
  m.elem[0] = 0, m.elem[1] = 1, m.elem[2] = 2;
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "element 0 ") && strstr(err.msg, "degenerate"), "%s", err.msg);
  cl_mesh2d_free(&m);

  cr_assert_eq(cl_mesh2d_rect_union_jack(0, 1, 0, 1, 2, 2, 2, &m, &err), CL_OK, "%s", err.msg);
  uint32_t mid = m.elem[6 * 3 + 4], corner = m.elem[6 * 3 + 1];
  m.x[mid] = m.x[corner], m.x[m.nnodes + mid] = m.x[m.nnodes + corner];
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "mid-side") != NULL, "%s", err.msg);
  cl_mesh2d_free(&m);
}

Test(check, refuses_node_indices_out_of_range) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect_union_jack(0, 1, 0, 1, 1, 1, 1, &m, &err), CL_OK, "%s", err.msg);
  m.elem[4] = 4;
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "element 1 node 1") != NULL, "%s", err.msg);
  cl_mesh2d_free(&m);
}

/* A fan of three triangles on the edge 0-1. */
Test(adjacency, refuses_an_edge_shared_by_three_elements) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_alloc(1, 5, 3, &m, &err), CL_OK, "%s", err.msg);
  const double x[] = {0, 1, 0.5, 0.5, 0.5, 0, 0, 1, -1, 2};
  const uint32_t e[] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
  memcpy(m.x, x, sizeof x), memcpy(m.elem, e, sizeof e);
  cr_expect_eq(cl_mesh2d_adjacency(&m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "nodes 0 and 1") && strstr(err.msg, "3 elements"), "%s", err.msg);
  cl_mesh2d_free(&m);
}

Test(generators, refuse_bad_arguments) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_expect_eq(cl_mesh2d_rect_union_jack(0, 1, 0, 1, 2, 2, 3, &m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "order") != NULL, "%s", err.msg);
  cr_expect_eq(cl_mesh2d_rect_union_jack(0, 1, 0, 1, 0, 2, 1, &m, &err), CL_ERR_ARG);
  cr_expect_eq(cl_mesh2d_rect_union_jack(1, 1, 0, 1, 2, 2, 1, &m, &err), CL_ERR_ARG);
  cr_expect_eq(cl_mesh2d_ring(1, 2, 2, 2, 1, &m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "nt") != NULL, "%s", err.msg);
  cr_expect_eq(cl_mesh2d_ring(2, 1, 2, 8, 1, &m, &err), CL_ERR_ARG);
}
