/* 2D triangle meshes: rectangles and rings of both patterns (alternating
 * diagonals, crossed diagonals) against counting formulas, exact areas and
 * a brute-force adjacency search; the chequerboard of diagonals and the
 * cells of the cross pattern; the cross meshes of the paper's examples
 * (plate 192 x 48, rings 20 x 160 to 40 x 320); perturbation; colouring
 * against node-to-element lists; and the refusals of check, adjacency and
 * the generators. */
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

static void expect_facets(const cl_mesh2d *m, size_t boundary, size_t interior) {
  size_t in, bd;
  cl_mesh2d_facets(m, &in, &bd);
  cr_expect_eq(bd, boundary, "boundary facets");
  cr_expect_eq(in, interior, "interior facets");
  cr_expect_eq(2 * in, 3 * m->nelems - bd, "interior facets: 3 nelems / 2 - boundary / 2");
}

static const char *pattern_name(cl_mesh2d_pattern p) { return p == CL_MESH2D_CROSS ? "cross" : "alternate"; }

/* ---- rectangle --------------------------------------------------------------- */

/* Nodes of an nx x ny grid of cells (nt periodic rows when periodic).
 * Alternate: the grid refined order times. Cross: corners and centres, and
 * for T6 the mid-sides of the cell sides and of the 4 half-diagonals. */
static size_t grid_nodes(size_t nx, size_t ny, int periodic, int order, cl_mesh2d_pattern p) {
  size_t s = (size_t)order, rows = periodic ? 0 : 1;
  if (p == CL_MESH2D_ALTERNATE) return (s * nx + 1) * (s * ny + rows);
  size_t t3 = (nx + 1) * (ny + rows) + nx * ny;
  return order == 1 ? t3 : t3 + nx * (ny + rows) + (nx + 1) * ny + 4 * nx * ny;
}

/* Interior facets: the diagonals (1 alternate, 4 half-diagonals cross per
 * cell) and the cell sides between two cells. */
static size_t grid_interior_facets(size_t nx, size_t ny, int periodic, cl_mesh2d_pattern p) {
  size_t diag = (p == CL_MESH2D_CROSS ? 4 : 1) * nx * ny;
  return diag + (nx - 1) * ny + nx * (periodic ? ny : ny - 1);
}

static void rect_case(size_t nx, size_t ny, int order, cl_mesh2d_pattern p) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect(-1, 2, 0.5, 2.5, nx, ny, order, p, &m, &err), CL_OK, "%s", err.msg);
  cr_expect_eq(m.nnodes, grid_nodes(nx, ny, 0, order, p), "nodes of %s %zux%zu order %d", pattern_name(p), nx, ny,
               order);
  cr_expect_eq(m.nelems, (p == CL_MESH2D_CROSS ? 4 : 2) * nx * ny);
  cr_expect(fabs(total_area(&m) - 6.0) <= 1e-12, "area %.17g", total_area(&m));
  expect_adjacency(&m);
  expect_facets(&m, 2 * (nx + ny), grid_interior_facets(nx, ny, 0, p));
  expect_midsides_at_midpoints(&m);
  expect_nodes_distinct_and_used(&m);
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_OK, "%s", err.msg);
  cl_mesh2d_free(&m);
}

Test(rect, t3_counts_area_orientation_and_adjacency) {
  for (int p = CL_MESH2D_ALTERNATE; p <= CL_MESH2D_CROSS; p++)
    rect_case(1, 1, 1, p), rect_case(3, 2, 1, p), rect_case(5, 7, 1, p);
}

Test(rect, t6_counts_area_orientation_and_adjacency) {
  for (int p = CL_MESH2D_ALTERNATE; p <= CL_MESH2D_CROSS; p++)
    rect_case(1, 1, 2, p), rect_case(3, 2, 2, p), rect_case(4, 5, 2, p);
}

Test(rect, union_jack_is_the_alternate_pattern) {
  for (int order = 1; order <= 2; order++) {
    cl_mesh2d a, b;
    cl_error err = {0};
    cr_assert_eq(cl_mesh2d_rect_union_jack(0, 1, 0, 2, 3, 4, order, &a, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_mesh2d_rect(0, 1, 0, 2, 3, 4, order, CL_MESH2D_ALTERNATE, &b, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(a.nnodes, b.nnodes);
    cr_assert_eq(a.nelems, b.nelems);
    cr_expect(memcmp(a.x, b.x, 2 * a.nnodes * sizeof *a.x) == 0);
    cr_expect(memcmp(a.elem, b.elem, cl_mesh2d_nper(&a) * a.nelems * sizeof *a.elem) == 0);
    cl_mesh2d_free(&a), cl_mesh2d_free(&b);
    cr_assert_eq(cl_mesh2d_ring(1, 2, 3, 7, order, &a, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_mesh2d_ring_pattern(1, 2, 3, 7, order, CL_MESH2D_ALTERNATE, &b, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(a.nnodes, b.nnodes);
    cr_expect(memcmp(a.x, b.x, 2 * a.nnodes * sizeof *a.x) == 0);
    cr_expect(memcmp(a.elem, b.elem, cl_mesh2d_nper(&a) * a.nelems * sizeof *a.elem) == 0);
    cl_mesh2d_free(&a), cl_mesh2d_free(&b);
  }
}

/* Element 4c + q of cell c = (i, j) (i fastest) has as corners the cell's
 * corners q and q + 1 (counter-clockwise from (i, j)) and the centre, at
 * the mean of the four; the centre is one node per cell. */
Test(rect, cross_cells_have_four_triangles_around_their_centre) {
  const size_t nx = 3, ny = 4;
  const double x0 = -1, y0 = 0.5, hx = 0.75, hy = 0.5;
  for (int order = 1; order <= 2; order++) {
    cl_mesh2d m;
    cl_error err = {0};
    cr_assert_eq(cl_mesh2d_rect(x0, x0 + hx * nx, y0, y0 + hy * ny, nx, ny, order, CL_MESH2D_CROSS, &m, &err), CL_OK,
                 "%s", err.msg);
    const int di[4] = {0, 1, 1, 0}, dj[4] = {0, 0, 1, 1};
    uint32_t *centre = malloc(nx * ny * sizeof *centre);
    for (size_t e = 0; e < m.nelems; e++) {
      size_t c = e / 4, q = e % 4, i = c % nx, j = c / nx;
      const uint32_t *n = el(&m, e);
      for (int k = 0; k < 2; k++) {
        size_t v = (q + (size_t)k) % 4;
        cr_expect(fabs(nx_(&m, n[k]) - (x0 + hx * (double)(i + di[v]))) < 1e-14 &&
                      fabs(ny_(&m, n[k]) - (y0 + hy * (double)(j + dj[v]))) < 1e-14,
                  "element %zu corner %d is not corner %zu of cell (%zu, %zu)", e, k, v, i, j);
      }
      cr_expect(fabs(nx_(&m, n[2]) - (x0 + hx * ((double)i + 0.5))) < 1e-14 &&
                    fabs(ny_(&m, n[2]) - (y0 + hy * ((double)j + 0.5))) < 1e-14,
                "element %zu corner 2 is not the centre of cell (%zu, %zu)", e, i, j);
      if (q == 0) centre[c] = n[2];
      cr_expect_eq(n[2], centre[c], "element %zu: cell %zu has one centre node", e, c);
    }
    for (size_t c = 1; c < nx * ny; c++) cr_expect_neq(centre[c], centre[c - 1]);
    free(centre);
    cl_mesh2d_free(&m);
  }
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

static void ring_case(size_t nr, size_t nt, int order, cl_mesh2d_pattern p) {
  const double ri = 0.5, ro = 1.25;
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_ring_pattern(ri, ro, nr, nt, order, p, &m, &err), CL_OK, "%s", err.msg);
  cr_expect_eq(m.nnodes, grid_nodes(nr, nt, 1, order, p), "nodes of %s ring %zux%zu order %d", pattern_name(p), nr,
               nt, order);
  cr_expect_eq(m.nelems, (p == CL_MESH2D_CROSS ? 4 : 2) * nr * nt);
  /* the inscribed polygons of nt sides */
  double exact = 0.5 * (double)nt * sin(2 * PI / (double)nt) * (ro * ro - ri * ri);
  cr_expect(fabs(total_area(&m) - exact) <= 1e-12, "area %.17g, polygon %.17g", total_area(&m), exact);
  cr_expect(fabs(exact - PI * (ro * ro - ri * ri)) < PI * (ro * ro - ri * ri) * 2 * PI * PI / (3.0 * nt * nt));
  expect_adjacency(&m);
  expect_facets(&m, 2 * nt, grid_interior_facets(nr, nt, 1, p));
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
  /* cross centres: on the cell's mid-angle ray, cos(pi / nt) times its mid radius out */
  for (size_t e = 0; e < m.nelems && p == CL_MESH2D_CROSS; e++) {
    size_t i = e / 4 % nr, j = e / 4 / nr;
    uint32_t o = el(&m, e)[2];
    double rad = cos(PI / (double)nt) * (ri + (ro - ri) * ((double)i + 0.5) / (double)nr);
    double th = 2 * PI * ((double)j + 0.5) / (double)nt;
    cr_expect(fabs(nx_(&m, o) - rad * cos(th)) < 1e-12 && fabs(ny_(&m, o) - rad * sin(th)) < 1e-12,
              "element %zu: centre of cell (%zu, %zu) at (%g, %g)", e, i, j, nx_(&m, o), ny_(&m, o));
  }
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_OK, "%s", err.msg);
  cl_mesh2d_free(&m);
}

Test(ring, t3_closed_counts_area_and_boundary_radii) {
  for (int p = CL_MESH2D_ALTERNATE; p <= CL_MESH2D_CROSS; p++)
    ring_case(1, 3, 1, p), ring_case(2, 8, 1, p), ring_case(3, 13, 1, p);
}

Test(ring, t6_closed_counts_area_and_boundary_radii) {
  for (int p = CL_MESH2D_ALTERNATE; p <= CL_MESH2D_CROSS; p++)
    ring_case(1, 4, 2, p), ring_case(2, 9, 2, p), ring_case(3, 16, 2, p);
}

/* ---- the paper's cross meshes (Alhadeff et al., Tables VI and VIII) ---------- */

/* Counts, area, validity and facets; no O(n^2) searches at this size. */
static void expect_large(const cl_mesh2d *m, size_t nodes, size_t elems, double area_want, size_t boundary,
                         size_t interior) {
  cl_error err = {0};
  cr_expect_eq(m->nelems, elems, "elements");
  cr_expect_eq(m->nnodes, nodes, "nodes");
  cr_expect_eq(cl_mesh2d_check(m, &err), CL_OK, "%s", err.msg);
  double a = 0;
  for (size_t e = 0; e < m->nelems; e++) a += area(m, e);
  cr_expect(fabs(a - area_want) <= 1e-12 * area_want, "area %.17g, want %.17g", a, area_want);
  expect_facets(m, boundary, interior);
}

/* The plate of 16 mm x 4 mm: 4 x 192 x 48 = 36,864 T6 elements. The paper
 * has 74,257 nodes, 48 more than here: its 2 mm notch duplicates them. */
Test(paper, plate_192x48_cross_t6) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect(0, 16, 0, 4, 192, 48, 2, CL_MESH2D_CROSS, &m, &err), CL_OK, "%s", err.msg);
  expect_large(&m, 74209, 36864, 64, 2 * (192 + 48), grid_interior_facets(192, 48, 0, CL_MESH2D_CROSS));
  cl_mesh2d_free(&m);
}

/* Table VIII: 12,800 / 25,920, 28,800 / 58,080, 51,200 / 103,040. */
Test(paper, rings_cross_t6_match_table_viii) {
  const size_t sizes[3][4] = {{20, 160, 12800, 25920}, {30, 240, 28800, 58080}, {40, 320, 51200, 103040}};
  const double ri = 1, ro = 1.5;
  for (int k = 0; k < 3; k++) {
    cl_mesh2d m;
    cl_error err = {0};
    size_t nr = sizes[k][0], nt = sizes[k][1];
    cr_assert_eq(cl_mesh2d_ring_pattern(ri, ro, nr, nt, 2, CL_MESH2D_CROSS, &m, &err), CL_OK, "%s", err.msg);
    double polygon = 0.5 * (double)nt * sin(2 * PI / (double)nt) * (ro * ro - ri * ri);
    expect_large(&m, sizes[k][3], sizes[k][2], polygon, 2 * nt, grid_interior_facets(nr, nt, 1, CL_MESH2D_CROSS));
    cl_mesh2d_free(&m);
  }
}

/* ---- perturbation ------------------------------------------------------------ */

static void perturbed(int order, cl_mesh2d_pattern p, uint64_t seed, cl_mesh2d *m) {
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect(0, 3, 0, 2, 6, 4, order, p, m, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_mesh2d_perturb(m, 0.3, seed, &err), CL_OK, "%s", err.msg);
}

Test(perturb, moves_interior_corners_within_bound_keeps_the_rest_valid) {
  for (int k = 0; k < 4; k++) {
    cl_mesh2d_pattern p = k < 2 ? CL_MESH2D_ALTERNATE : CL_MESH2D_CROSS;
    int order = 1 + k % 2;
    cl_mesh2d ref, m;
    cl_error err = {0};
    cr_assert_eq(cl_mesh2d_rect(0, 3, 0, 2, 6, 4, order, p, &ref, &err), CL_OK, "%s", err.msg);
    perturbed(order, p, 7, &m);
    /* the shortest edge at a corner: the side, 0.5, or (cross) the half-diagonal */
    double hmin = p == CL_MESH2D_CROSS ? 0.5 * sqrt(0.5) : 0.5;
    size_t moved = 0;
    for (uint32_t i = 0; i < m.nnodes; i++) {
      double x = nx_(&ref, i), y = ny_(&ref, i), d = hypot(nx_(&m, i) - x, ny_(&m, i) - y);
      int boundary = x == 0 || fabs(x - 3) < 1e-12 || y == 0 || fabs(y - 2) < 1e-12;
      if (boundary) cr_expect_eq(d, 0.0, "boundary node %u moved by %g", i, d);
      /* a mid-side node moves by at most as much as its corners */
      cr_expect(d <= 0.3 * hmin + 1e-15, "%s order %d: node %u moved by %g", pattern_name(p), order, i, d);
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
  perturbed(2, CL_MESH2D_CROSS, 11, &a), perturbed(2, CL_MESH2D_CROSS, 11, &b), perturbed(2, CL_MESH2D_CROSS, 12, &c);
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

/* At least 8 colours wherever a grid vertex is interior (8 elements meet
 * there); measured: 8 on every rectangle, as the paper's pattern colouring. */
Test(colour, cross_rectangles_take_eight_colours) {
  size_t sizes[][2] = {{1, 1}, {2, 2}, {4, 4}, {7, 5}, {16, 12}};
  for (int order = 1; order <= 2; order++)
    for (size_t s = 0; s < 5; s++) {
      cl_mesh2d m;
      cl_error err = {0};
      cr_assert_eq(cl_mesh2d_rect(0, 1, 0, 1, sizes[s][0], sizes[s][1], order, CL_MESH2D_CROSS, &m, &err), CL_OK,
                   "%s", err.msg);
      uint32_t n = colour_case(&m);
      if (sizes[s][0] == 1) cr_expect_eq(n, 4, "one cell: its 4 triangles share the centre");
      else cr_expect_eq(n, 8, "%zux%zu order %d: %u colours", sizes[s][0], sizes[s][1], order, n);
    }
}

/* The paper: 8 colours for the plate (pattern colouring), 10 for the
 * rings (greedy). Welsh-Powell here: 8 and 10 as well. */
Test(colour, paper_cross_meshes_plate_8_ring_10) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect(0, 16, 0, 4, 192, 48, 2, CL_MESH2D_CROSS, &m, &err), CL_OK, "%s", err.msg);
  uint32_t plate = colour_case(&m);
  cr_expect_eq(plate, 8, "plate 192x48 cross T6: %u colours", plate);
  cr_assert_eq(cl_mesh2d_ring_pattern(1, 1.5, 20, 160, 2, CL_MESH2D_CROSS, &m, &err), CL_OK, "%s", err.msg);
  uint32_t ring = colour_case(&m);
  cr_expect(ring >= 8 && ring <= 10, "ring 20x160 cross T6: %u colours", ring);
  cr_log_info("Welsh-Powell colours, cross T6: plate 192x48 %u, ring 20x160 %u", plate, ring);
}

Test(colour, perturbed_ring_is_coloured_properly) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_ring(1, 2, 4, 21, 2, &m, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_mesh2d_perturb(&m, 0.2, 3, &err), CL_OK, "%s", err.msg);
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_OK, "%s", err.msg);
  colour_case(&m);
}

/* Cells of aspect ratio up to about 1.6: 0.2 is below the cross pattern's
 * worst case (mesh2d.h). */
Test(colour, perturbed_cross_ring_is_valid_and_coloured_properly) {
  for (uint64_t seed = 1; seed <= 4; seed++) {
    cl_mesh2d m;
    cl_error err = {0};
    cr_assert_eq(cl_mesh2d_ring_pattern(1, 2, 4, 32, 2, CL_MESH2D_CROSS, &m, &err), CL_OK, "%s", err.msg);
    cr_assert_eq(cl_mesh2d_perturb(&m, 0.2, seed, &err), CL_OK, "%s", err.msg);
    cr_expect_eq(cl_mesh2d_check(&m, &err), CL_OK, "seed %llu: %s", (unsigned long long)seed, err.msg);
    expect_adjacency(&m);
    uint32_t n = colour_case(&m);
    cr_expect(n >= 8 && n <= 12, "seed %llu: %u colours", (unsigned long long)seed, n);
  }
}

/* ---- refusals ---------------------------------------------------------------- */

Test(check, refuses_a_flipped_element_naming_it) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect_union_jack(0, 1, 0, 1, 3, 3, 1, &m, &err), CL_OK, "%s", err.msg);
  uint32_t t = m.elem[3 * 5 + 1];
  m.elem[3 * 5 + 1] = m.elem[3 * 5 + 2], m.elem[3 * 5 + 2] = t;
  cr_expect_eq(cl_mesh2d_check(&m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "element 6 ") && strstr(err.msg, "area -0.0555556"), "%s", err.msg); /* numbered from 1 */
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
  cr_expect(strstr(err.msg, "element 1 ") && strstr(err.msg, "degenerate"), "%s", err.msg);
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
  cr_expect(strstr(err.msg, "element 2 node 2") != NULL, "%s", err.msg);
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
  cr_expect_eq(cl_mesh2d_rect(0, 1, 0, 1, 2, 2, 1, (cl_mesh2d_pattern)2, &m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "pattern") != NULL, "%s", err.msg);
  cr_expect_eq(cl_mesh2d_ring_pattern(1, 2, 2, 8, 2, (cl_mesh2d_pattern)-1, &m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "pattern") != NULL, "%s", err.msg);
  cr_expect_eq(cl_mesh2d_ring_pattern(1, 2, 2, 2, 2, CL_MESH2D_CROSS, &m, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "nt") != NULL, "%s", err.msg);
}
