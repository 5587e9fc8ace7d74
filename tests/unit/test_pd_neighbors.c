/* Peridynamic bond lists (kernels/pd/neighbors.h) on the cpu device, against
 * a brute-force O(P^2) search written here: random points in 2D and 3D, f32
 * and f64, with pairs at exactly delta (not bonded) and duplicated points;
 * lattices with their exact neighbour counts; Morton order; gather; errors.
 * Where a GPU is usable the cuda backend must give bitwise the same arrays
 * (and with CLEAVE_DEVICE=cuda it must be usable). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/pd/lattice.h"
#include "../../kernels/pd/neighbors.h"
#include "lcg.h"

static cl_device cpu;
static cl_error err;

static void setup(void) {
  memset(&err, 0, sizeof err);
  if (cl_device_cpu_open(&cpu, &err) != CL_OK) cr_assert_fail("cpu device: %s", err.msg);
}

static void teardown(void) { cl_device_close(&cpu); }

TestSuite(pd_neighbors, .init = setup, .fini = teardown);

/* ---- inputs ---------------------------------------------------------------- */


/* Host points, SoA in their real type (component c of point i at c*n + i). */
typedef struct points {
  cl_dtype real;
  int dim;
  size_t n;
  void *x;
} points;

static points points_new(cl_dtype real, int dim, size_t n) {
  points p = {real, dim, n, calloc((size_t)dim * n + 1, cl_dtype_size(real))};
  cr_assert_not_null(p.x);
  return p;
}

static double coord(const points *p, int c, size_t i) {
  return cl_dtype_get(p->real, p->x, (size_t)c * p->n + i);
}

static void set_coord(points *p, int c, size_t i, double v) {
  cl_dtype_put(p->real, p->x, (size_t)c * p->n + i, v);
}

/* With delta = 5/16: 60% uniform points in [-1, side - 1)^dim, 25% on the
 * grid of spacing 1/16 (exact in f32, so the offsets (5,0) and (3,4) lie at
 * exactly delta), 15% copies of earlier points. */
#define MIXED_DELTA (5.0 / 16)

static points mixed_points(cl_dtype real, int dim, size_t n, double side, uint64_t seed) {
  points p = points_new(real, dim, n);
  lcg_seed(seed);
  size_t grid_cells = (size_t)(side * 16);
  for (size_t i = 0; i < n; i++) {
    size_t kind = i < 10 ? 0 : lcg_below(20), from = lcg_below(i > 0 ? i : 1);
    for (int c = 0; c < dim; c++) {
      double v;
      if (kind < 12) v = lcg_uniform(-1, side - 1);
      else if (kind < 17) v = (double)lcg_below(grid_cells) / 16 - 1;
      else v = coord(&p, c, from);
      set_coord(&p, c, i, v);
    }
  }
  return p;
}

/* side[0] x side[1] (x side[2]) points at spacing dx from (-0.5, -0.5, -0.5), x fastest */
static points lattice_points(cl_dtype real, int dim, const size_t side[3], double dx) {
  size_t n = side[0] * side[1] * (dim == 3 ? side[2] : 1);
  points p = points_new(real, dim, n);
  for (size_t q = 0; q < n; q++) {
    size_t ijk[3] = {q % side[0], q / side[0] % side[1], q / (side[0] * side[1])};
    for (int c = 0; c < dim; c++) set_coord(&p, c, q, (double)ijk[c] * dx - 0.5);
  }
  return p;
}

static void shuffle_points(points *p, uint64_t seed) {
  lcg_seed(seed);
  for (size_t i = p->n; i-- > 1;) {
    size_t j = lcg_below(i + 1);
    for (int c = 0; c < p->dim; c++) {
      double a = coord(p, c, i), b = coord(p, c, j);
      set_coord(p, c, i, b);
      set_coord(p, c, j, a);
    }
  }
}

/* ---- bond lists on the host -------------------------------------------------- */

typedef struct csr {
  size_t n, nbonds;
  uint32_t *offsets, *neighbors;
} csr;

static void csr_free(csr *c) {
  free(c->offsets);
  free(c->neighbors);
}

/* The bond test as the library states it: |x_j - x_i|^2 < delta^2 in
 * double, one rounding per operation, summed x, y, z. */
static double dist2(const points *p, size_t i, size_t j) {
  double dx = coord(p, 0, j) - coord(p, 0, i), dy = coord(p, 1, j) - coord(p, 1, i);
  double s = dx * dx;
  double t = dy * dy;
  s = s + t;
  if (p->dim == 3) {
    double dz = coord(p, 2, j) - coord(p, 2, i);
    double u = dz * dz;
    s = s + u;
  }
  return s;
}

static csr brute_force(const points *p, double delta) {
  double delta2 = delta * delta;
  csr c = {p->n, 0, calloc(p->n + 1, sizeof(uint32_t)), NULL};
  cr_assert_not_null(c.offsets);
  for (size_t i = 0; i < p->n; i++) {
    c.offsets[i] = (uint32_t)c.nbonds;
    for (size_t j = 0; j < p->n; j++) c.nbonds += j != i && dist2(p, i, j) < delta2;
  }
  c.offsets[p->n] = (uint32_t)c.nbonds;
  c.neighbors = malloc((c.nbonds + 1) * sizeof(uint32_t));
  cr_assert_not_null(c.neighbors);
  size_t at = 0;
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = 0; j < p->n; j++)
      if (j != i && dist2(p, i, j) < delta2) c.neighbors[at++] = (uint32_t)j;
  return c;
}

static void *to_device(cl_device *d, const void *host, size_t bytes) {
  void *p = NULL;
  cr_assert_eq(d->alloc(d, &p, bytes, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(d->to_device(d, p, host, bytes, &err), CL_OK, "%s", err.msg);
  return p;
}

static void *to_host(cl_device *d, const void *dev, size_t bytes) {
  void *h = malloc(bytes + 1);
  cr_assert_not_null(h);
  cr_assert_eq(d->to_host(d, h, dev, bytes, &err), CL_OK, "%s", err.msg);
  return h;
}

static size_t coords_bytes(const points *p) {
  return (size_t)p->dim * p->n * cl_dtype_size(p->real);
}

static csr device_bonds(cl_device *d, const points *p, double delta) {
  void *x = to_device(d, p->x, coords_bytes(p));
  cl_pd_bonds b;
  cr_assert_eq(cl_pd_build_bonds(d, p->real, p->dim, p->n, x, delta, &b, &err), CL_OK,
               "%s bonds: %s", d->name, err.msg);
  csr c = {p->n, b.nbonds, to_host(d, b.offsets, (p->n + 1) * sizeof(uint32_t)),
           to_host(d, b.neighbors, b.nbonds * sizeof(uint32_t))};
  d->release(d, b.offsets);
  d->release(d, b.neighbors);
  d->release(d, x);
  return c;
}

static void assert_same_csr(const csr *got, const csr *want, const char *what) {
  cr_assert_eq(got->nbonds, want->nbonds, "%s: %zu bonds, expected %zu", what, got->nbonds,
               want->nbonds);
  for (size_t i = 0; i < want->n; i++) {
    cr_assert_eq(got->offsets[i + 1], want->offsets[i + 1], "%s: row %zu ends at %u, expected %u",
                 what, i, got->offsets[i + 1], want->offsets[i + 1]);
    for (uint32_t k = want->offsets[i]; k < want->offsets[i + 1]; k++)
      cr_assert_eq(got->neighbors[k], want->neighbors[k],
                   "%s: row %zu entry %u is %u, expected %u", what, i, k - want->offsets[i],
                   got->neighbors[k], want->neighbors[k]);
  }
}

static void assert_rows_sorted_without_self(const csr *c) {
  cr_assert_eq(c->offsets[0], 0);
  for (size_t i = 0; i < c->n; i++)
    for (uint32_t k = c->offsets[i]; k < c->offsets[i + 1]; k++) {
      cr_assert_neq(c->neighbors[k], i, "row %zu contains the point itself", i);
      cr_assert(k == c->offsets[i] || c->neighbors[k - 1] < c->neighbors[k],
                "row %zu is not strictly ascending at entry %u", i, k - c->offsets[i]);
    }
}

/* The cuda device when a GPU is usable; with CLEAVE_DEVICE=cuda it must be. */
static int open_cuda(cl_device *gpu) {
  cl_error why;
  if (cl_device_cuda_open(gpu, 0, &why) == CL_OK) return 1;
  const char *want = getenv("CLEAVE_DEVICE");
  cr_assert(!want || strcmp(want, "cuda") != 0, "CLEAVE_DEVICE=cuda, but: %s", why.msg);
  return 0;
}

static void assert_cuda_bonds_match(const points *p, double delta, const csr *want) {
  cl_device gpu;
  if (!open_cuda(&gpu)) return;
  csr got = device_bonds(&gpu, p, delta);
  assert_same_csr(&got, want, "cuda vs cpu");
  csr_free(&got);
  cl_device_close(&gpu);
}

/* The library's bonds equal the brute force's, rows sorted, on both backends. */
static void check_bonds(const points *p, double delta) {
  csr want = brute_force(p, delta), got = device_bonds(&cpu, p, delta);
  assert_same_csr(&got, &want, "cpu vs brute force");
  assert_rows_sorted_without_self(&got);
  assert_cuda_bonds_match(p, delta, &got);
  csr_free(&got);
  csr_free(&want);
}

/* ---- bonds ---------------------------------------------------------------- */

static size_t pairs_at_exactly(const points *p, double delta) {
  size_t count = 0;
  for (size_t i = 0; i < p->n; i++)
    for (size_t j = i + 1; j < p->n; j++) count += dist2(p, i, j) == delta * delta;
  return count;
}

static void check_mixed(cl_dtype real, int dim, size_t n, double side, uint64_t seed) {
  points p = mixed_points(real, dim, n, side, seed);
  cr_assert_gt(pairs_at_exactly(&p, MIXED_DELTA), 10, "the input must have pairs at exactly delta");
  check_bonds(&p, MIXED_DELTA);
  free(p.x);
}

Test(pd_neighbors, random_2d_f64_matches_brute_force) { check_mixed(CL_F64, 2, 1500, 4, 11); }
Test(pd_neighbors, random_2d_f32_matches_brute_force) { check_mixed(CL_F32, 2, 1500, 4, 12); }
Test(pd_neighbors, random_3d_f64_matches_brute_force) { check_mixed(CL_F64, 3, 2500, 2, 13); }
Test(pd_neighbors, random_3d_f32_matches_brute_force) { check_mixed(CL_F32, 3, 2500, 2, 14); }
Test(pd_neighbors, few_points_match_brute_force) { check_mixed(CL_F64, 3, 300, 1, 15); }

Test(pd_neighbors, pair_at_exactly_delta_is_not_a_bond) {
  points p = points_new(CL_F32, 2, 3);
  const double xy[3][2] = {{0, 0}, {3.0 / 16, 4.0 / 16}, {5.0 / 16 - 1.0 / 1024, 0}};
  for (int i = 0; i < 3; i++)
    for (int c = 0; c < 2; c++) set_coord(&p, c, (size_t)i, xy[i][c]);
  csr got = device_bonds(&cpu, &p, MIXED_DELTA);
  /* 0-1 at exactly delta; 0-2 just inside; 1-2 inside */
  const uint32_t offsets[4] = {0, 1, 2, 4}, neighbors[4] = {2, 2, 0, 1};
  cr_assert_eq(got.nbonds, 4);
  cr_assert_arr_eq(got.offsets, offsets, sizeof offsets);
  cr_assert_arr_eq(got.neighbors, neighbors, sizeof neighbors);
  csr_free(&got);
  free(p.x);
}

Test(pd_neighbors, duplicates_are_bonded_to_each_other) {
  points p = points_new(CL_F64, 3, 50);
  for (size_t i = 0; i < 50; i++)
    for (int c = 0; c < 3; c++) set_coord(&p, c, i, 0.25 * (c + 1));
  csr got = device_bonds(&cpu, &p, 0.1);
  cr_assert_eq(got.nbonds, 50 * 49);
  assert_rows_sorted_without_self(&got);
  csr_free(&got);
  check_bonds(&p, 0.1);
  free(p.x);
}

/* A dense cluster among sparse points: rows of ~200 bonds next to rows of
 * ~2 (on the gpu the cluster's blocks overflow the staging of short rows
 * and write in place, their neighbours' blocks are staged). */
Test(pd_neighbors, dense_cluster_among_sparse_points) {
  points p = points_new(CL_F64, 2, 1200);
  lcg_seed(81);
  for (size_t i = 0; i < p.n; i++) {
    int in_cluster = i >= 500 && i < 700;
    for (int c = 0; c < 2; c++)
      set_coord(&p, c, i, in_cluster ? 1 + lcg_uniform(0, 0.01) : lcg_uniform(0, 20));
  }
  check_bonds(&p, 0.5);
  free(p.x);
}

/* Bonds of a lattice: every integer offset shorter than the horizon h joins
 * prod (side_a - |offset_a|) ordered pairs; an interior point has one bond
 * per such offset. */
static size_t lattice_bond_count(int dim, const size_t side[3], double h, size_t *interior) {
  size_t total = 0;
  int r = (int)h, rz = dim == 3 ? r : 0;
  *interior = 0;
  for (int c = -rz; c <= rz; c++)
    for (int b = -r; b <= r; b++)
      for (int a = -r; a <= r; a++) {
        int r2 = a * a + b * b + c * c;
        if (r2 == 0 || r2 >= h * h) continue;
        size_t pairs = (side[0] - (size_t)abs(a)) * (side[1] - (size_t)abs(b));
        if (dim == 3) pairs *= side[2] - (size_t)abs(c);
        total += pairs;
        ++*interior;
      }
  return total;
}

static int is_interior(const size_t side[3], int dim, size_t q, int margin) {
  size_t ijk[3] = {q % side[0], q / side[0] % side[1], q / (side[0] * side[1])};
  for (int c = 0; c < dim; c++)
    if (ijk[c] < (size_t)margin || ijk[c] + (size_t)margin >= side[c]) return 0;
  return 1;
}

/* The grid layout (kernels/pd/lattice.h) of the same points: its stencil, its bond count, and
 * each point's neighbours through the map, which must be the CSR row's. On the cpu device
 * its arrays are host memory. */
static void check_grid_layout(const points *p, const csr *list, double dx, double delta, size_t stencil) {
  cl_pd_lattice l;
  cr_assert_eq(cl_pd_build_lattice(&cpu, p->real, p->dim, p->n, p->x, dx, delta, &l, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(l.nstencil, stencil);
  cr_assert_eq(l.nbonds, list->nbonds);
  cr_assert_eq(l.words, (int)((stencil + 31) / 32));
  for (size_t i = 0; i < p->n; i++) {
    uint32_t found = 0;
    for (uint32_t k = 0; k < l.nstencil; k++) {
      uint32_t j = l.map[(int64_t)l.cell[i] + l.offset[k]];
      if (j == CL_PD_ABSENT) continue;
      int listed = 0;
      for (uint32_t b = list->offsets[i]; b < list->offsets[i + 1]; b++) listed |= list->neighbors[b] == j;
      cr_assert(listed, "point %zu: lattice neighbour %u is not in its list row", i, j);
      found++;
    }
    cr_assert_eq(found, list->offsets[i + 1] - list->offsets[i], "point %zu", i);
    for (int w = 0; w < l.words; w++) cr_assert_eq(l.broken[(size_t)w * p->n + i], 0u);
  }
  cl_pd_lattice_release(&cpu, &l);
}

static void check_lattice(cl_dtype real, int dim, const size_t side[3]) {
  const double dx = 0.1, h = 3.015;
  size_t interior, total = lattice_bond_count(dim, side, h, &interior);
  cr_assert_eq(interior, dim == 2 ? 28u : 122u);
  points p = lattice_points(real, dim, side, dx);
  csr got = device_bonds(&cpu, &p, h * dx);
  cr_assert_eq(got.nbonds, total, "%zu bonds, the lattice formula says %zu", got.nbonds, total);
  for (size_t q = 0; q < p.n; q++)
    if (is_interior(side, dim, q, 3))
      cr_assert_eq(got.offsets[q + 1] - got.offsets[q], interior, "interior point %zu: %u bonds", q,
                   got.offsets[q + 1] - got.offsets[q]);
  check_grid_layout(&p, &got, dx, h * dx, interior);
  csr_free(&got);
  check_bonds(&p, h * dx);
  free(p.x);
}

Test(pd_neighbors, lattice_2d_has_28_bonds_inside) {
  const size_t side[3] = {40, 30, 1};
  check_lattice(CL_F64, 2, side);
  check_lattice(CL_F32, 2, side);
}

Test(pd_neighbors, lattice_3d_counts_match_the_formula) {
  const size_t side[3] = {14, 13, 12};
  check_lattice(CL_F64, 3, side);
  check_lattice(CL_F32, 3, side);
}

/* Shuffled, the rows come out of the cells unsorted (3D rows of 122 go
 * through the heapsort). */
Test(pd_neighbors, shuffled_lattice_rows_are_sorted) {
  const size_t side[3] = {12, 12, 12};
  points p = lattice_points(CL_F64, 3, side, 0.1);
  shuffle_points(&p, 21);
  check_bonds(&p, 0.3015);
  free(p.x);
}

Test(pd_neighbors, grid_layout_refuses_off_grid_and_doubled_points) {
  const size_t side[3] = {6, 5, 1};
  points p = lattice_points(CL_F64, 2, side, 0.1);
  cl_pd_lattice l;
  set_coord(&p, 0, 7, coord(&p, 0, 7) + 0.03);
  cr_assert_eq(cl_pd_build_lattice(&cpu, CL_F64, 2, p.n, p.x, 0.1, 0.3015, &l, &err), CL_ERR_ARG);
  cr_assert(strstr(err.msg, "point 8 is not on a grid"), "%s", err.msg);
  set_coord(&p, 0, 7, coord(&p, 0, 8));
  set_coord(&p, 1, 7, coord(&p, 1, 8));
  cr_assert_eq(cl_pd_build_lattice(&cpu, CL_F64, 2, p.n, p.x, 0.1, 0.3015, &l, &err), CL_ERR_ARG);
  cr_assert(strstr(err.msg, "same cell"), "%s", err.msg);
  cr_assert_eq(cl_pd_build_lattice(&cpu, CL_F64, 2, p.n, p.x, 0.1, 0.05, &l, &err), CL_ERR_ARG);
  cr_assert(strstr(err.msg, "delta > dx"), "%s", err.msg);
  free(p.x);
}

Test(pd_neighbors, no_points_and_one_point) {
  points p = points_new(CL_F64, 2, 1);
  csr one = device_bonds(&cpu, &p, 1.0);
  cr_assert_eq(one.nbonds, 0);
  cr_assert_eq(one.offsets[0], 0);
  cr_assert_eq(one.offsets[1], 0);
  csr_free(&one);
  cl_pd_bonds b;
  cr_assert_eq(cl_pd_build_bonds(&cpu, CL_F64, 2, 0, NULL, 1.0, &b, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(b.nbonds, 0);
  cr_assert_not_null(b.offsets);
  cr_assert_eq(b.offsets[0], 0);
  cpu.release(&cpu, b.offsets);
  free(p.x);
}

/* Every refusal is CL_ERR_ARG with a message naming what is wrong. */
static void expect_bonds_refused(cl_dtype real, int dim, const points *p, double delta,
                                 const char *words) {
  void *x = to_device(&cpu, p->x, coords_bytes(p));
  cl_pd_bonds b;
  cl_error e = {0};
  cr_assert_eq(cl_pd_build_bonds(&cpu, real, dim, p->n, x, delta, &b, &e), CL_ERR_ARG,
               "must be refused: %s", words);
  cr_assert_not_null(strstr(e.msg, words), "message '%s' should mention '%s'", e.msg, words);
  cr_assert_null(b.offsets);
  cr_assert_null(b.neighbors);
  cpu.release(&cpu, x);
}

Test(pd_neighbors, bad_arguments_are_refused) {
  points p = mixed_points(CL_F64, 2, 100, 2, 31);
  expect_bonds_refused(CL_F64, 2, &p, 0.0, "delta");
  expect_bonds_refused(CL_F64, 2, &p, -0.1, "delta");
  expect_bonds_refused(CL_F64, 2, &p, NAN, "delta");
  expect_bonds_refused(CL_F64, 2, &p, INFINITY, "delta");
  expect_bonds_refused(CL_F64, 4, &p, 0.1, "dim");
  expect_bonds_refused(CL_I32, 2, &p, 0.1, "f32 or f64");
  set_coord(&p, 1, 50, NAN);
  expect_bonds_refused(CL_F64, 2, &p, 0.1, "NaN");
  set_coord(&p, 1, 50, 0.5);
  set_coord(&p, 0, 7, 1e12); /* a stray point: ~1e25 cells */
  expect_bonds_refused(CL_F64, 2, &p, 0.1, "too spread out");
  free(p.x);
  cr_assert_eq(cl_pd_build_bonds(&cpu, CL_F64, 2, 0, NULL, 1.0, NULL, &err), CL_ERR_ARG);
}

/* ---- Morton order --------------------------------------------------------- */

/* The code computed bit by bit, as an independent check of the library's. */
static uint64_t morton_reference(const points *p, size_t i, const double lo[3], double cell) {
  uint64_t code = 0;
  int bits = p->dim == 2 ? 32 : 21;
  for (int c = 0; c < p->dim; c++) {
    uint64_t k = (uint64_t)floor((coord(p, c, i) - lo[c]) / cell);
    for (int b = 0; b < bits; b++) code |= ((k >> b) & 1) << (p->dim * b + c);
  }
  return code;
}

static uint32_t *device_morton(cl_device *d, const points *p, double cell) {
  void *x = to_device(d, p->x, coords_bytes(p));
  uint32_t *order = NULL;
  cr_assert_eq(d->alloc(d, (void **)&order, p->n * sizeof *order, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_pd_morton_order(d, p->real, p->dim, p->n, x, cell, order, &err), CL_OK,
               "%s morton: %s", d->name, err.msg);
  uint32_t *host = to_host(d, order, p->n * sizeof *order);
  d->release(d, order);
  d->release(d, x);
  return host;
}

static void check_morton(const points *p, double cell) {
  uint32_t *order = device_morton(&cpu, p, cell);
  double lo[3] = {0, 0, 0};
  for (int c = 0; c < p->dim; c++) {
    lo[c] = INFINITY;
    for (size_t i = 0; i < p->n; i++) lo[c] = fmin(lo[c], coord(p, c, i));
  }
  char *seen = calloc(p->n, 1);
  cr_assert_not_null(seen);
  for (size_t k = 0; k < p->n; k++) {
    cr_assert_lt(order[k], p->n, "order[%zu] = %u is out of range", k, order[k]);
    cr_assert_eq(seen[order[k]], 0, "point %u appears twice in the order", order[k]);
    seen[order[k]] = 1;
    if (k == 0) continue;
    uint64_t a = morton_reference(p, order[k - 1], lo, cell), b = morton_reference(p, order[k], lo, cell);
    /* ascending codes put each cell's points together; ties keep the input order */
    cr_assert(a < b || (a == b && order[k - 1] < order[k]),
              "positions %zu and %zu: codes %llu, %llu, points %u, %u", k - 1, k,
              (unsigned long long)a, (unsigned long long)b, order[k - 1], order[k]);
  }
  cl_device gpu;
  if (open_cuda(&gpu)) {
    uint32_t *cuda_order = device_morton(&gpu, p, cell);
    cr_assert_arr_eq(cuda_order, order, p->n * sizeof *order, "cuda and cpu Morton orders differ");
    free(cuda_order);
    cl_device_close(&gpu);
  }
  free(seen);
  free(order);
}

Test(pd_neighbors, morton_order_is_a_stable_permutation_by_cell) {
  for (int dim = 2; dim <= 3; dim++)
    for (int real = CL_F32; real <= CL_F64; real++) {
      points p = mixed_points((cl_dtype)real, dim, 3000, 3, 40 + (uint64_t)(dim * 2 + real));
      check_morton(&p, 0.2);
      check_morton(&p, 0.05);
      check_morton(&p, 100.0); /* one cell: the identity */
      free(p.x);
    }
}

Test(pd_neighbors, morton_bad_arguments_are_refused) {
  points p = mixed_points(CL_F64, 3, 100, 2, 51);
  void *x = to_device(&cpu, p.x, coords_bytes(&p));
  uint32_t order[100];
  cl_error e = {0};
  cr_assert_eq(cl_pd_morton_order(&cpu, CL_F64, 3, p.n, x, 0.0, order, &e), CL_ERR_ARG);
  cr_assert_not_null(strstr(e.msg, "cell_size"), "%s", e.msg);
  cr_assert_eq(cl_pd_morton_order(&cpu, CL_F64, 3, p.n, x, NAN, order, &e), CL_ERR_ARG);
  /* about 2 units in cells of 1e-7: more than the 2^21 per axis of 3D codes */
  cr_assert_eq(cl_pd_morton_order(&cpu, CL_F64, 3, p.n, x, 1e-7, order, &e), CL_ERR_ARG);
  cr_assert_not_null(strstr(e.msg, "larger cell_size"), "%s", e.msg);
  cr_assert_eq(cl_pd_morton_order(&cpu, CL_F64, 3, p.n, x, 1e-7 * 4096, order, &e), CL_OK, "%s",
               e.msg);
  cpu.release(&cpu, x);
  free(p.x);
}

/* Bonds of points reordered by Morton are the original bonds relabelled. */
Test(pd_neighbors, reordering_relabels_the_bonds) {
  points p = mixed_points(CL_F64, 2, 2000, 4, 61);
  uint32_t *order = device_morton(&cpu, &p, MIXED_DELTA);
  points q = points_new(CL_F64, 2, p.n);
  uint32_t *rank = malloc(p.n * sizeof *rank);
  cr_assert_not_null(rank);
  for (size_t k = 0; k < p.n; k++) {
    rank[order[k]] = (uint32_t)k;
    for (int c = 0; c < 2; c++) set_coord(&q, c, k, coord(&p, c, order[k]));
  }
  csr a = device_bonds(&cpu, &p, MIXED_DELTA), b = device_bonds(&cpu, &q, MIXED_DELTA);
  cr_assert_eq(a.nbonds, b.nbonds);
  for (size_t k = 0; k < p.n; k++) {
    uint32_t i = order[k];
    cr_assert_eq(b.offsets[k + 1] - b.offsets[k], a.offsets[i + 1] - a.offsets[i]);
    for (uint32_t e = a.offsets[i]; e < a.offsets[i + 1]; e++) {
      uint32_t want = rank[a.neighbors[e]];
      int found = 0;
      for (uint32_t f = b.offsets[k]; f < b.offsets[k + 1]; f++) found |= b.neighbors[f] == want;
      cr_assert(found, "bond %u-%u is missing after the reorder", i, a.neighbors[e]);
    }
  }
  csr_free(&a);
  csr_free(&b);
  free(rank);
  free(q.x);
  free(order);
  free(p.x);
}

/* ---- gather ----------------------------------------------------------------- */

static void *device_gather(cl_device *d, cl_dtype t, size_t n, int k, const void *src_host,
                           const uint32_t *order_host) {
  size_t bytes = (size_t)k * n * cl_dtype_size(t);
  void *src = to_device(d, src_host, bytes), *dst = NULL;
  uint32_t *order = to_device(d, order_host, n * sizeof *order);
  cr_assert_eq(d->alloc(d, &dst, bytes, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(cl_pd_gather(d, t, n, k, src, order, dst, &err), CL_OK, "%s gather: %s", d->name,
               err.msg);
  void *host = to_host(d, dst, bytes);
  d->release(d, dst);
  d->release(d, order);
  d->release(d, src);
  return host;
}

Test(pd_neighbors, gather_round_trip_every_dtype) {
  const size_t n = 1000;
  uint32_t order[1000], inverse[1000];
  lcg_seed(71);
  for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
  for (size_t i = n; i-- > 1;) {
    size_t j = lcg_below(i + 1);
    uint32_t t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t i = 0; i < n; i++) inverse[order[i]] = (uint32_t)i;
  cl_device gpu;
  int have_gpu = open_cuda(&gpu);
  for (int t = 0; t < CL_DTYPE_COUNT; t++)
    for (int k = 1; k <= 3; k += 2) {
      size_t elem = cl_dtype_size((cl_dtype)t), bytes = (size_t)k * n * elem;
      unsigned char *src = malloc(bytes);
      cr_assert_not_null(src);
      for (size_t b = 0; b < bytes; b++) src[b] = (unsigned char)lcg_next();
      unsigned char *dst = device_gather(&cpu, (cl_dtype)t, n, k, src, order);
      for (size_t c = 0; c < (size_t)k; c++)
        for (size_t i = 0; i < n; i++)
          cr_assert_arr_eq(dst + (c * n + i) * elem, src + (c * n + order[i]) * elem, elem,
                           "%s, k = %d: row %zu component %zu", cl_dtype_name((cl_dtype)t), k, i, c);
      unsigned char *back = device_gather(&cpu, (cl_dtype)t, n, k, dst, inverse);
      cr_assert_arr_eq(back, src, bytes, "%s: gathering by the inverse must restore the rows",
                       cl_dtype_name((cl_dtype)t));
      if (have_gpu) {
        unsigned char *cuda_dst = device_gather(&gpu, (cl_dtype)t, n, k, src, order);
        cr_assert_arr_eq(cuda_dst, dst, bytes, "cuda gather differs (%s)", cl_dtype_name((cl_dtype)t));
        free(cuda_dst);
      }
      free(back);
      free(dst);
      free(src);
    }
  if (have_gpu) cl_device_close(&gpu);
}

Test(pd_neighbors, gather_bad_arguments_are_refused) {
  float src[8] = {0}, dst[8];
  uint32_t order[4] = {0, 1, 4, 2};
  cl_error e = {0};
  cr_assert_eq(cl_pd_gather(&cpu, CL_F32, 4, 2, src, order, dst, &e), CL_ERR_ARG);
  cr_assert_not_null(strstr(e.msg, "index 4"), "%s", e.msg);
  order[2] = 3;
  cr_assert_eq(cl_pd_gather(&cpu, CL_F32, 4, 2, src, order, src, &e), CL_ERR_ARG);
  cr_assert_not_null(strstr(e.msg, "distinct"), "%s", e.msg);
  cr_assert_eq(cl_pd_gather(&cpu, CL_F32, 4, 0, src, order, dst, &e), CL_ERR_ARG);
  cr_assert_eq(cl_pd_gather(&cpu, CL_F32, 4, 2, src, order, dst, &e), CL_OK, "%s", e.msg);
}
