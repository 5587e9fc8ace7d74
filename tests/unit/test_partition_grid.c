/* Global indices of a box grid's partition (runtime/partition_grid.c) past 2^32, on virtual boxes of
 * 10^10 points that are never made: cl_grid_point_locate and cl_grid_part_counts against closed forms
 * and a brute-force Morton count written here, cl_halo_plan_grid refusing a rank of 2^32 local points
 * before allocating them, and, on small boxes, cl_grid_point_locate agreeing with every row of the
 * plans cl_halo_plan_grid enumerates. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/partition.h"

static cl_error err;

/* 10^5 x 10^5 points at dx = 1 from the origin: centres at u + 0.5 (exact in f32 and f64) */
static cl_grid_box big_box(size_t nx, size_t ny) {
  cl_grid_box g = {.dim = 2, .dx = 1, .lo = {0, 0, 0}, .first = {0, 0, 0}, .count = {nx, ny, 1}};
  return g;
}

static uint64_t locate(const cl_grid_box *g, double cell, int reach, int parts, size_t u, size_t v, int *owner,
                       int *ghost_of, int *nghost) {
  size_t p[3] = {u, v, 0};
  uint64_t global;
  int o, gh[64], ng;
  cl_status st = cl_grid_point_locate(g, CL_F64, cell, reach, parts, p, &global, owner ? owner : &o,
                                      ghost_of ? ghost_of : gh, nghost ? nghost : &ng, &err);
  cr_assert_eq(st, CL_OK, "%s", err.msg);
  return global;
}

/* Grid order (cell 0): the global index is v nx + u, past 2^32 for most of a 10^10-point box. */
Test(partition_grid, grid_order_past_2_32) {
  cl_grid_box g = big_box(100000, 100000);
  size_t samples[][2] = {{0, 0}, {99999, 0}, {12345, 67890}, {4294, 42950}, {99999, 99999}};
  for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
    size_t u = samples[k][0], v = samples[k][1];
    uint64_t want = (uint64_t)v * 100000 + u;
    cr_assert_eq(locate(&g, 0, 3, 8, u, v, NULL, NULL, NULL), want, "point (%zu, %zu)", u, v);
  }
  cr_assert_gt(locate(&g, 0, 3, 8, 99999, 99999, NULL, NULL, NULL), (uint64_t)UINT32_MAX);
}

/* Morton order over cells of 25000 points per axis: cells in code order (x the low bit) each hold
 * 25000^2 points, grid order inside a cell; on 100000 x 70001 points the last row of cells holds
 * 20001 rows, so the counts are summed cell by cell here, in code order. */
static uint64_t morton_want(size_t nx, size_t ny, size_t side, size_t u, size_t v) {
  size_t cx = u / side, cy = v / side, ncx = (nx + side - 1) / side, ncy = (ny + side - 1) / side;
  uint64_t code = 0, before = 0;
  for (int b = 0; b < 16; b++) code |= (uint64_t)((cx >> b) & 1) << (2 * b) | (uint64_t)((cy >> b) & 1) << (2 * b + 1);
  for (uint64_t c = 0; c < code; c++) {
    size_t x = 0, y = 0;
    for (int b = 0; b < 16; b++) x |= (size_t)((c >> (2 * b)) & 1) << b, y |= (size_t)((c >> (2 * b + 1)) & 1) << b;
    if (x >= ncx || y >= ncy) continue;
    size_t wx = x + 1 < ncx ? side : nx - x * side, wy = y + 1 < ncy ? side : ny - y * side;
    before += (uint64_t)wx * wy;
  }
  size_t wx = cx + 1 < ncx ? side : nx - cx * side;
  return before + (uint64_t)(v - cy * side) * wx + (u - cx * side);
}

Test(partition_grid, morton_order_past_2_32) {
  size_t sizes[][2] = {{100000, 100000}, {100000, 70001}};
  size_t samples[][2] = {{0, 0}, {24999, 24999}, {25000, 0}, {70000, 60000}, {99999, 50000}, {31415, 69999}, {99999, 70000}};
  for (int s = 0; s < 2; s++) {
    cl_grid_box g = big_box(sizes[s][0], sizes[s][1]);
    for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
      size_t u = samples[k][0], v = samples[k][1];
      if (v >= sizes[s][1]) continue;
      uint64_t want = morton_want(sizes[s][0], sizes[s][1], 25000, u, v);
      cr_assert_eq(locate(&g, 25000, 3, 8, u, v, NULL, NULL, NULL), want, "%zu x %zu, point (%zu, %zu): want %llu", sizes[s][0],
                   sizes[s][1], u, v, (unsigned long long)want);
    }
  }
  cl_grid_box g = big_box(100000, 100000);
  cr_assert_eq(locate(&g, 25000, 3, 8, 99999, 99999, NULL, NULL, NULL), 9999999999ull, "the last cell's last point");
}

/* The body's own cells (side 3.015 dx: 33168 per axis, 16-bit codes): consecutive codes' cells follow
 * each other, so the first point of the cell after cell c (in code order) comes right after c's points. */
Test(partition_grid, morton_cells_consecutive) {
  cl_grid_box g = big_box(100000, 100000);
  double cell = 3.015;
  uint32_t cells[][2] = {{0, 0}, {1, 0}, {21845, 10922}, {33166, 29999}, {16383, 16383}, {32767, 1}};
  for (size_t k = 0; k < sizeof cells / sizeof cells[0]; k++) {
    uint32_t cx = cells[k][0], cy = cells[k][1];
    /* the points of cell c along an axis: u with floor(u / cell) = c */
    size_t u0 = (size_t)ceil(cx * cell), u1 = (size_t)ceil((cx + 1) * cell), v0 = (size_t)ceil(cy * cell),
           v1 = (size_t)ceil((cy + 1) * cell);
    u1 = u1 > 100000 ? 100000 : u1, v1 = v1 > 100000 ? 100000 : v1;
    uint64_t first = locate(&g, cell, 3, 8, u0, v0, NULL, NULL, NULL), last = locate(&g, cell, 3, 8, u1 - 1, v1 - 1, NULL, NULL, NULL);
    cr_assert_eq(last - first + 1, (uint64_t)(u1 - u0) * (v1 - v0), "cell (%u, %u) holds its points consecutively", cx, cy);
    /* the next code: add 1 to the interleaved bits */
    uint64_t code = 0;
    for (int b = 0; b < 16; b++) code |= (uint64_t)((cx >> b) & 1) << (2 * b) | (uint64_t)((cy >> b) & 1) << (2 * b + 1);
    code++;
    uint32_t nx = 0, ny = 0;
    for (int b = 0; b < 16; b++) nx |= (uint32_t)((code >> (2 * b)) & 1) << b, ny |= (uint32_t)((code >> (2 * b + 1)) & 1) << b;
    if (nx > 33167 || ny > 33167) continue;
    uint64_t next = locate(&g, cell, 3, 8, (size_t)ceil(nx * cell), (size_t)ceil(ny * cell), NULL, NULL, NULL);
    cr_assert_eq(next, last + 1, "cell (%u, %u) follows cell (%u, %u)", nx, ny, cx, cy);
  }
}

/* 8 parts of 10^5 x 10^5: x cut at 50000, then y at 50000, then x at 25000 / 75000 (bisection across
 * the longest axis, x first among equal ones); ghosts within 3 grid steps of a part's box. */
Test(partition_grid, owners_and_ghosts_of_8_parts) {
  cl_grid_box g = big_box(100000, 100000);
  struct {
    size_t u, v;
    int owner, nghost, ghost_of[3];
  } samples[] = {
      {10, 10, 0, 0, {0}},           {24999, 10, 0, 1, {1}},      {49998, 49999, 1, 3, {3, 4, 6}},
      {50000, 50002, 6, 3, {1, 3, 4}}, {99999, 99999, 7, 0, {0}}, {75002, 20000, 5, 1, {4}},
  };
  for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
    int owner, ghost_of[8], nghost;
    uint64_t global = locate(&g, 3.015, 3, 8, samples[k].u, samples[k].v, &owner, ghost_of, &nghost);
    cr_assert_lt(global, 10000000000ull);
    cr_assert_eq(owner, samples[k].owner, "point (%zu, %zu) owned by %d", samples[k].u, samples[k].v, owner);
    cr_assert_eq(nghost, samples[k].nghost, "point (%zu, %zu): %d ghost ranks", samples[k].u, samples[k].v, nghost);
    for (int q = 0; q < nghost; q++) cr_assert_eq(ghost_of[q], samples[k].ghost_of[q]);
  }
  /* rank 0: 25000 x 50000 owned; ghosts 3 x 50000 (part 1), 25000 x 3 (part 2), 3 x 3 (part 3) */
  size_t owned, ghosts;
  cr_assert_eq(cl_grid_part_counts(&g, 3, 8, 0, &owned, &ghosts, &err), CL_OK, "%s", err.msg);
  cr_assert_eq(owned, 1250000000u);
  cr_assert_eq(ghosts, 150000u + 75000u + 9u);
}

/* A rank of 2^32 points or more is refused before its points are allocated. */
Test(partition_grid, refuses_a_rank_past_2_32) {
  cl_grid_box g = big_box(100000, 100000);
  cl_halo_plan plan;
  void *x = (void *)1;
  cr_assert_eq(cl_halo_plan_grid(&g, CL_F32, 3.015, 3, 2, 0, &plan, &x, &err), CL_ERR_ARG);
  cr_assert(strstr(err.msg, "at most 2^32 - 1") && strstr(err.msg, "use more ranks"), "%s", err.msg);
  cr_assert_null(x);
  cr_assert_null(plan.global);
  size_t p[3] = {100000, 0, 0};
  uint64_t global;
  int owner, ghost_of[2], nghost;
  cr_assert_eq(cl_grid_point_locate(&g, CL_F64, 0, 3, 2, p, &global, &owner, ghost_of, &nghost, &err), CL_ERR_ARG);
  cr_assert(strstr(err.msg, "outside the grid"), "%s", err.msg);
}

/* A real plan of one rank of the 10^10-point box cut into 100 x 100 parts (10^6 points each): its rows'
 * global indices, past 2^32 for the last parts, are v nx + u in grid order, and those cl_grid_point_locate
 * gives in Morton order (every 10007th row checked: each call makes the per-axis cell tables). */
Test(partition_grid, plan_of_one_rank_of_10e10_points) {
  cl_grid_box g = big_box(100000, 100000);
  int ranks[] = {9999, 5050};
  for (int order = 0; order < 2; order++)
    for (int r = 0; r < 2; r++) {
      double cell = order ? 3.015 : 0;
      cl_halo_plan plan;
      void *x;
      cr_assert_eq(cl_halo_plan_grid(&g, CL_F64, cell, 3, 10000, ranks[r], &plan, &x, &err), CL_OK, "%s", err.msg);
      cr_assert_eq(plan.points, 10000000000ull);
      cr_assert(plan.owned > 900000 && plan.owned < 1100000, "%zu owned", plan.owned); /* parts of 625: cuts rounded */
      const double *xs = x;
      uint64_t highest = 0;
      for (size_t row = 0; row < plan.local; row++) {
        size_t u = (size_t)(xs[row] - 0.5), v = (size_t)(xs[plan.local + row] - 0.5);
        if (plan.global[row] > highest) highest = plan.global[row];
        if (!order) cr_assert_eq(plan.global[row], (uint64_t)v * 100000 + u, "rank %d, row %zu", ranks[r], row);
        else if (row % 10007 == 0)
          cr_assert_eq(plan.global[row], locate(&g, cell, 3, 10000, u, v, NULL, NULL, NULL), "rank %d, row %zu", ranks[r], row);
      }
      if (ranks[r] == 9999) cr_assert_gt(highest, (uint64_t)UINT32_MAX);
      free(x);
      cl_halo_plan_free(&plan);
    }
}

/* On boxes small enough to enumerate, every row of every part's plan is where cl_grid_point_locate
 * puts its point: the same global index, owned rows owned by the part, ghost rows by another part and
 * kept by this one, and as many ghost rows as points that name the part among their ghost ranks. */
Test(partition_grid, locate_agrees_with_the_plans) {
  cl_grid_box boxes[] = {
      {.dim = 2, .dx = 0.5e-3, .lo = {0, 0, 0}, .first = {0, 0, 0}, .count = {37, 23, 1}},
      {.dim = 2, .dx = 0.37e-3, .lo = {-0.011, 0.002, 0}, .first = {3, 5, 0}, .count = {29, 31, 1}},
      {.dim = 3, .dx = 0.5e-3, .lo = {0, 0, 0}, .first = {0, 0, 0}, .count = {12, 8, 7}},
  };
  for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; b++) {
    const cl_grid_box *g = &boxes[b];
    double cell = 3.015 * g->dx;
    size_t n = g->count[0] * g->count[1] * (g->dim == 3 ? g->count[2] : 1);
    for (int parts = 1; parts <= 5; parts++)
      for (int rank = 0; rank < parts; rank++) {
        cl_halo_plan plan;
        void *x;
        cr_assert_eq(cl_halo_plan_grid(g, CL_F64, cell, 3, parts, rank, &plan, &x, &err), CL_OK, "%s", err.msg);
        const double *xs = x;
        for (size_t row = 0; row < plan.local; row++) {
          size_t u[3] = {0, 0, 0};
          for (int a = 0; a < g->dim; a++)
            u[a] = (size_t)llround((xs[(size_t)a * plan.local + row] - g->lo[a]) / g->dx - 0.5) - g->first[a];
          uint64_t global;
          int owner, ghost_of[5], nghost;
          cr_assert_eq(cl_grid_point_locate(g, CL_F64, cell, 3, parts, u, &global, &owner, ghost_of, &nghost, &err), CL_OK,
                       "%s", err.msg);
          cr_assert_eq(global, plan.global[row], "box %zu, %d parts, rank %d, row %zu", b, parts, rank, row);
          if (row < plan.owned) {
            cr_assert_eq(owner, rank);
          } else {
            int kept = 0;
            for (int q = 0; q < nghost; q++) kept |= ghost_of[q] == rank;
            cr_assert(owner != rank && kept, "box %zu, %d parts, rank %d: ghost row %zu", b, parts, rank, row);
          }
        }
        size_t kept = 0, owned, ghosts;
        for (size_t i = 0; i < n; i++) {
          size_t u[3] = {i % g->count[0], i / g->count[0] % g->count[1], i / g->count[0] / g->count[1]};
          uint64_t global;
          int owner, ghost_of[5], nghost;
          cr_assert_eq(cl_grid_point_locate(g, CL_F64, cell, 3, parts, u, &global, &owner, ghost_of, &nghost, &err), CL_OK);
          for (int q = 0; q < nghost; q++) kept += ghost_of[q] == rank;
        }
        cr_assert_eq(kept, plan.local - plan.owned, "box %zu, %d parts, rank %d", b, parts, rank);
        cr_assert_eq(cl_grid_part_counts(g, 3, parts, rank, &owned, &ghosts, &err), CL_OK);
        cr_assert_eq(owned, plan.owned);
        cr_assert_eq(ghosts, plan.local - plan.owned);
        free(x);
        cl_halo_plan_free(&plan);
      }
  }
}
