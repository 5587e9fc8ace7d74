/* Cohesive-element insertion: the paper's topological test (all interior
 * facets in 20 random batches, Table V), single facets and straight cracks
 * against counting formulas, independence of the insertion order, the
 * refusals, and the checker catching a node wrongly left shared. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/czm/mesh2d_insert.h"
#include "lcg.h"

typedef struct facets {
  uint32_t *elem;
  uint8_t *edge;
  size_t n;
} facets;

static void facets_free(facets *f) { free(f->elem), free(f->edge); }

/* Interior facets named from the lower-numbered side, optionally only
 * those whose two corners satisfy keep(). */
static facets interior_facets(const cl_mesh2d *m, int (*keep)(const cl_mesh2d *, uint32_t, uint32_t)) {
  facets f = {malloc(3 * m->nelems * sizeof *f.elem), malloc(3 * m->nelems), 0};
  size_t nper = cl_mesh2d_nper(m);
  for (size_t s = 0; s < 3 * m->nelems; s++) {
    const uint32_t *c = m->elem + s / 3 * nper;
    if (m->adj[s] <= (int32_t)(s / 3)) continue;
    if (keep && !keep(m, c[s % 3], c[(s + 1) % 3])) continue;
    f.elem[f.n] = (uint32_t)(s / 3), f.edge[f.n++] = (uint8_t)(s % 3);
  }
  return f;
}

static void shuffle(facets *f) {
  for (size_t i = f->n; i > 1; i--) {
    size_t j = lcg_below(i);
    uint32_t e = f->elem[i - 1];
    uint8_t k = f->edge[i - 1];
    f->elem[i - 1] = f->elem[j], f->edge[i - 1] = f->edge[j];
    f->elem[j] = e, f->edge[j] = k;
  }
}

/* Naming a facet from its other side must not change anything. */
static void flip_some_sides(const cl_mesh2d *m, facets *f) {
  for (size_t i = 0; i < f->n; i++) {
    if (lcg_below(2)) continue;
    uint32_t e = f->elem[i], g = (uint32_t)m->adj[3 * e + f->edge[i]];
    for (uint8_t j = 0; j < 3; j++)
      if (m->adj[3 * g + j] == (int32_t)e) f->elem[i] = g, f->edge[i] = j;
  }
}

static void expect_topology(const cl_mesh2d *m, const cl_cohesive_list *c) {
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_topology_check(m, c, &err), CL_OK, "%s", err.msg);
}

/* Inserts f in batches (sizes drawn at random, or `batches` even ones). */
static void insert_in_batches(cl_mesh2d *m, cl_cohesive_list *c, const facets *f, size_t batches) {
  cl_error err = {0};
  for (size_t b = 0, at = 0; b < batches; b++) {
    size_t end = f->n * (b + 1) / batches;
    cr_assert_eq(cl_mesh2d_insert(m, c, f->elem + at, f->edge + at, end - at, &err), CL_OK, "%s", err.msg);
    expect_topology(m, c);
    at = end;
  }
}

static size_t uses_of_each_node_is_one(const cl_mesh2d *m) {
  size_t *uses = calloc(m->nnodes, sizeof *uses), bad = 0;
  for (size_t s = 0; s < cl_mesh2d_nper(m) * m->nelems; s++) uses[m->elem[s]]++;
  for (size_t i = 0; i < m->nnodes; i++) bad += uses[i] != 1;
  free(uses);
  return bad == 0;
}

/* Table V: every interior facet, 20 random batches of 5%. */
static void fragment_completely(cl_mesh2d *m, uint64_t seed) {
  size_t interior, boundary;
  cl_mesh2d_facets(m, &interior, &boundary);
  lcg_seed(seed);
  facets f = interior_facets(m, NULL);
  shuffle(&f);
  flip_some_sides(m, &f);
  cl_cohesive_list c = {0};
  insert_in_batches(m, &c, &f, 20);
  cr_expect_eq(c.n, interior);
  cr_expect_eq(m->nnodes, cl_mesh2d_nper(m) * m->nelems);
  cr_expect(uses_of_each_node_is_one(m), "a node is shared after full fragmentation");
  size_t in_after, bd_after;
  cl_mesh2d_facets(m, &in_after, &bd_after);
  cr_expect_eq(in_after, 0);
  cr_expect_eq(bd_after, boundary + 2 * interior);
  cl_error err = {0};
  cr_expect_eq(cl_mesh2d_check(m, &err), CL_OK, "%s", err.msg);
  facets_free(&f), cl_cohesive_list_free(&c), cl_mesh2d_free(m);
}

static cl_mesh2d rect(size_t nx, size_t ny, int order, double perturb) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_rect_union_jack(0, nx, 0, ny, nx, ny, order, &m, &err), CL_OK, "%s", err.msg);
  if (perturb > 0) cr_assert_eq(cl_mesh2d_perturb(&m, perturb, 7, &err), CL_OK, "%s", err.msg);
  return m;
}

static cl_mesh2d ring(size_t nr, size_t nt, int order) {
  cl_mesh2d m;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_ring(1, 2, nr, nt, order, &m, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_mesh2d_perturb(&m, 0.2, 11, &err), CL_OK, "%s", err.msg);
  return m;
}

Test(insert, table_v_fragments_t3_rectangles_and_rings_completely) {
  cl_mesh2d m = rect(8, 6, 1, 0);
  fragment_completely(&m, 1);
  m = rect(9, 7, 1, 0.25);
  fragment_completely(&m, 2);
  m = ring(3, 12, 1);
  fragment_completely(&m, 3);
  m = ring(2, 9, 1);
  fragment_completely(&m, 4);
}

Test(insert, table_v_fragments_t6_rectangles_and_rings_completely) {
  cl_mesh2d m = rect(8, 6, 2, 0.2);
  fragment_completely(&m, 5);
  m = ring(3, 13, 2);
  fragment_completely(&m, 6);
}

/* A facet whose two corners are away from the boundary. */
static int off_boundary(const cl_mesh2d *m, uint32_t a, uint32_t b) {
  double xa = m->x[a], ya = m->x[m->nnodes + a], xb = m->x[b], yb = m->x[m->nnodes + b];
  return xa > 0 && xa < 6 && ya > 0 && ya < 6 && xb > 0 && xb < 6 && yb > 0 && yb < 6;
}

Test(insert, a_single_interior_facet_duplicates_only_the_t6_midside) {
  for (int order = 1; order <= 2; order++) {
    cl_mesh2d m = rect(6, 6, order, 0);
    facets f = interior_facets(&m, off_boundary);
    cr_assert(f.n > 0);
    size_t n0 = m.nnodes;
    cl_cohesive_list c = {0};
    cl_error err = {0};
    cr_assert_eq(cl_mesh2d_insert(&m, &c, f.elem + f.n / 2, f.edge + f.n / 2, 1, &err), CL_OK, "%s", err.msg);
    cr_expect_eq(m.nnodes, n0 + (order == 2), "order %d", order);
    expect_topology(&m, &c);
    facets_free(&f), cl_cohesive_list_free(&c), cl_mesh2d_free(&m);
  }
}

static int on_line_y3(const cl_mesh2d *m, uint32_t a, uint32_t b) {
  return m->x[m->nnodes + a] == 3 && m->x[m->nnodes + b] == 3;
}

/* Elements reachable from element 0 through uncracked edges. */
static size_t component_of_first(const cl_mesh2d *m) {
  uint32_t *stack = malloc(m->nelems * sizeof *stack);
  char *seen = calloc(m->nelems, 1);
  size_t n = 0, top = 0;
  stack[top++] = 0, seen[0] = 1;
  while (top) {
    uint32_t e = stack[--top];
    n++;
    for (int k = 0; k < 3; k++) {
      int32_t g = m->adj[3 * e + k];
      if (g >= 0 && !seen[g]) seen[g] = 1, stack[top++] = (uint32_t)g;
    }
  }
  free(stack), free(seen);
  return n;
}

Test(insert, a_straight_crack_splits_the_rectangle_duplicating_the_line) {
  for (int order = 1; order <= 2; order++) {
    size_t nx = 5, ny = 6;
    cl_mesh2d m = rect(nx, ny, order, 0);
    lcg_seed(17);
    facets f = interior_facets(&m, on_line_y3);
    cr_assert_eq(f.n, nx);
    shuffle(&f);
    size_t n0 = m.nnodes;
    cl_cohesive_list c = {0};
    insert_in_batches(&m, &c, &f, 2);
    /* every corner on the line, ends included, and (T6) every mid-side */
    cr_expect_eq(m.nnodes, n0 + (order == 2 ? 2 * nx + 1 : nx + 1), "order %d", order);
    cr_expect_eq(component_of_first(&m), m.nelems / 2);
    facets_free(&f), cl_cohesive_list_free(&c), cl_mesh2d_free(&m);
  }
}

/* Two meshes with the same facets cracked in different orders: same node
 * count, same coordinates at every element slot, and node indices equal
 * up to a bijective renumbering. */
static void expect_same_up_to_renumbering(const cl_mesh2d *a, const cl_mesh2d *b) {
  cr_assert_eq(a->nnodes, b->nnodes);
  uint32_t *ab = malloc(a->nnodes * sizeof *ab), *ba = malloc(b->nnodes * sizeof *ba);
  memset(ab, 0xff, a->nnodes * sizeof *ab), memset(ba, 0xff, b->nnodes * sizeof *ba);
  for (size_t s = 0; s < cl_mesh2d_nper(a) * a->nelems; s++) {
    uint32_t p = a->elem[s], q = b->elem[s];
    cr_assert(a->x[p] == b->x[q] && a->x[a->nnodes + p] == b->x[b->nnodes + q], "slot %zu moved", s);
    if (ab[p] == UINT32_MAX) ab[p] = q;
    if (ba[q] == UINT32_MAX) ba[q] = p;
    cr_assert(ab[p] == q && ba[q] == p, "slot %zu: nodes %u and %u are not renumberings of each other", s, p, q);
  }
  for (size_t s = 0; s < 3 * a->nelems; s++) cr_assert_eq(a->adj[s], b->adj[s]);
  free(ab), free(ba);
}

static void order_case(int order, uint64_t seed) {
  cl_mesh2d a = rect(7, 5, order, 0.2), b = rect(7, 5, order, 0.2);
  lcg_seed(seed);
  facets all = interior_facets(&a, NULL);
  shuffle(&all);
  all.n = all.n * 2 / 5;  // a random 40% of the facets: cracks that meet, branch and end inside
  cl_cohesive_list ca = {0}, cb = {0};
  insert_in_batches(&a, &ca, &all, 1);
  shuffle(&all);
  flip_some_sides(&b, &all);
  insert_in_batches(&b, &cb, &all, 7);
  cr_expect_eq(ca.n, cb.n);
  expect_same_up_to_renumbering(&a, &b);
  facets_free(&all), cl_cohesive_list_free(&ca), cl_cohesive_list_free(&cb);
  cl_mesh2d_free(&a), cl_mesh2d_free(&b);
}

Test(insert, the_result_does_not_depend_on_the_order) {
  for (uint64_t seed = 1; seed <= 5; seed++) order_case(1, seed), order_case(2, 100 + seed);
}

static void expect_refused(cl_mesh2d *m, cl_cohesive_list *c, const uint32_t *e, const uint8_t *k, size_t n,
                           const char *want) {
  size_t n0 = m->nnodes, c0 = c->n;
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_insert(m, c, e, k, n, &err), CL_ERR_ARG, "no error for %s", want);
  cr_expect(strstr(err.msg, want) != NULL, "wanted \"%s\" in: %s", want, err.msg);
  cr_expect(m->nnodes == n0 && c->n == c0, "a refused call changed the mesh");
  expect_topology(m, c);
}

Test(insert, refuses_boundary_twice_named_and_cracked_facets) {
  cl_mesh2d m = rect(3, 3, 2, 0);
  cl_cohesive_list c = {0};
  uint32_t e[2];
  uint8_t k[2];
  /* element 0 is (0,0)-(1,0)-(1,1): edge 0 on y = 0, edge 1 to quad (1, 0) */
  e[0] = 0, k[0] = 0;
  expect_refused(&m, &c, e, k, 1, "element 0 edge 0 is a boundary facet");
  uint32_t g = (uint32_t)m.adj[1];
  e[0] = 0, k[0] = 1, e[1] = g;
  for (uint8_t j = 0; j < 3; j++)
    if (m.adj[3 * g + j] == 0) k[1] = j;
  expect_refused(&m, &c, e, k, 2, "names a facet twice");
  e[1] = 0, k[1] = 1;
  expect_refused(&m, &c, e, k, 2, "element 0 edge 1 names a facet twice");
  cl_error err = {0};
  cr_assert_eq(cl_mesh2d_insert(&m, &c, e, k, 1, &err), CL_OK, "%s", err.msg);
  expect_refused(&m, &c, e, k, 1, "element 0 edge 1 is already cracked");
  /* the same facet named from its other side */
  char want[64];
  snprintf(want, sizeof want, "element %u edge %u is already cracked", c.v[0].elem[1], (unsigned)c.v[0].edge[1]);
  expect_refused(&m, &c, &c.v[0].elem[1], &c.v[0].edge[1], 1, want);
  e[0] = 99, k[0] = 0;
  expect_refused(&m, &c, e, k, 1, "element 99 edge 0 is out of range");
  cl_cohesive_list_free(&c), cl_mesh2d_free(&m);
}

Test(topology_check, catches_a_node_left_shared_across_a_crack) {
  cl_mesh2d m = rect(5, 6, 1, 0);
  facets f = interior_facets(&m, on_line_y3);
  cl_cohesive_list c = {0};
  cl_error err = {0};
  /* crack by hand without duplicating: only adj and the list change */
  for (size_t i = 0; i < f.n; i++) {
    uint32_t e = f.elem[i], g = (uint32_t)m.adj[3 * f.elem[i] + f.edge[i]];
    uint8_t j = 0;
    while (m.adj[3 * g + j] != (int32_t)e) j++;
    c.v = realloc(c.v, (c.n + 1) * sizeof *c.v), c.cap = c.n + 1;
    c.v[c.n++] = (cl_cohesive){{e, g}, {f.edge[i], j}};
    m.adj[3 * e + f.edge[i]] = m.adj[3 * g + j] = -1;
  }
  cr_expect_eq(cl_mesh2d_topology_check(&m, &c, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "not connected through uncracked edges") != NULL, "%s", err.msg);
  m.adj[0] = 5;
  cr_expect_eq(cl_mesh2d_topology_check(&m, &c, &err), CL_ERR_ARG);
  cr_expect(strstr(err.msg, "do not see each other") != NULL, "%s", err.msg);
  facets_free(&f), cl_cohesive_list_free(&c), cl_mesh2d_free(&m);
}
