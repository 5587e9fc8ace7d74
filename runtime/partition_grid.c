/* Partition and halo plan of a box grid's points, built by each rank from the grid alone
 * (partition.h, cl_halo_plan_grid). A rank enumerates only its own points and its ghosts; the
 * global index of a point (its row on one rank) is counted from the grid: the points of a box of
 * grid indices that come before a point in Morton order are the sum, over the aligned blocks of
 * cells whose codes are below its cell's, of the points of each block (a product of per-axis
 * counts), plus the points of its own cell before it in grid order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "partition.h"

/* A box of point indices u (relative to the grid's first point): lo <= u < hi per axis. */
typedef struct ibox {
  size_t lo[3], hi[3];
} ibox;

/* The order of the points: Morton cells per axis (one cell over everything for grid order). */
typedef struct grid_order {
  int dim, bits;   /* bits per axis of the cell coordinates */
  size_t n[3];     /* points per axis */
  uint32_t cells[3];
  uint32_t *cell[3]; /* cell[a][u]: the cell coordinate of point index u along axis a */
  size_t *start[3];  /* start[a][c]: the first u of cell c; start[a][cells[a]] = n[a] */
} grid_order;

static size_t box_points(const ibox *b, int dim) {
  size_t count = 1;
  for (int a = 0; a < dim; a++) count *= b->hi[a] > b->lo[a] ? b->hi[a] - b->lo[a] : 0;
  return count;
}

static ibox intersect(const ibox *p, const ibox *q) {
  ibox r;
  for (int a = 0; a < 3; a++) {
    r.lo[a] = p->lo[a] > q->lo[a] ? p->lo[a] : q->lo[a];
    r.hi[a] = p->hi[a] < q->hi[a] ? p->hi[a] : q->hi[a];
    if (r.hi[a] < r.lo[a]) r.hi[a] = r.lo[a];
  }
  return r;
}

static double centre(const cl_grid_box *g, int a, size_t u) { /* as cl_shape_points places it */
  return g->lo[a] + ((double)(g->first[a] + u) + 0.5) * g->dx;
}

static double rounded(cl_dtype real, double v) { return real == CL_F32 ? (double)(float)v : v; }

static void order_free(grid_order *o) {
  for (int a = 0; a < 3; a++) free(o->cell[a]), free(o->start[a]);
}

/* Cell coordinates as cl_pd_morton_order computes them on one rank: floor((x - min x) / cell) of
 * the coordinates in the body's precision. */
static cl_status order_make(const cl_grid_box *g, cl_dtype real, double cell, grid_order *o, cl_error *err) {
  memset(o, 0, sizeof *o);
  o->dim = g->dim;
  for (int a = 0; a < 3; a++) {
    o->n[a] = a < g->dim ? g->count[a] : 1;
    o->cell[a] = malloc(o->n[a] * sizeof *o->cell[a]);
    o->start[a] = malloc((o->n[a] + 1) * sizeof *o->start[a]);
    if (!o->cell[a] || !o->start[a]) {
      order_free(o);
      return cl_error_set(err, CL_ERR_OOM, "cl_halo_plan_grid: no memory for %zu grid indices", o->n[a]);
    }
    double origin = rounded(real, centre(g, a, 0));
    for (size_t u = 0; u < o->n[a]; u++)
      o->cell[a][u] = cell > 0 && a < g->dim ? (uint32_t)floor((rounded(real, centre(g, a, u)) - origin) / cell) : 0;
    uint32_t c = 0;
    o->start[a][0] = 0;
    for (size_t u = 0; u < o->n[a]; u++)
      while (c < o->cell[a][u]) o->start[a][++c] = u;
    o->cells[a] = c + 1;
    o->start[a][o->cells[a]] = o->n[a];
    int bits = 0;
    while (bits < 32 && (uint64_t)c >> bits) bits++;
    if (bits > o->bits) o->bits = bits;
  }
  if (o->bits > (g->dim == 3 ? 21 : 32)) {
    order_free(o);
    return cl_error_set(err, CL_ERR_ARG, "cl_halo_plan_grid: more Morton cells along an axis than codes hold: use a larger cell");
  }
  return CL_OK;
}

/* Points of box r in the block of cells base[a] .. base[a] + size[a] - 1. */
static uint64_t block_points(const grid_order *o, const uint64_t base[3], const uint64_t size[3], const ibox *r) {
  uint64_t count = 1;
  for (int a = 0; a < o->dim; a++) {
    if (base[a] >= o->cells[a]) return 0;
    uint64_t top = base[a] + size[a] < o->cells[a] ? base[a] + size[a] : o->cells[a];
    size_t lo = o->start[a][base[a]], hi = o->start[a][top];
    lo = lo > r->lo[a] ? lo : r->lo[a], hi = hi < r->hi[a] ? hi : r->hi[a];
    if (hi <= lo) return 0;
    count *= hi - lo;
  }
  return count;
}

/* Points of box r in the cells whose Morton code (bits interleaved, x lowest) is below cell c's:
 * for each 1 bit of c's code, the block of cells sharing the bits above it and 0 there. */
static uint64_t points_before_cell(const grid_order *o, const uint32_t c[3], const ibox *r) {
  uint64_t count = 0;
  for (int b = o->bits - 1; b >= 0; b--)
    for (int a = o->dim - 1; a >= 0; a--) {
      if (!((c[a] >> b) & 1)) continue;
      uint64_t base[3], size[3];
      for (int e = 0; e < o->dim; e++) {
        int free_bits = e > a ? b : b + 1; /* bits of e's coordinate below this code bit */
        base[e] = (uint64_t)c[e] >> free_bits << free_bits;
        size[e] = (uint64_t)1 << free_bits;
      }
      base[a] = (uint64_t)c[a] >> (b + 1) << (b + 1), size[a] = (uint64_t)1 << b;
      count += block_points(o, base, size, r);
    }
  return count;
}

/* The points of cell c inside box r: their index ranges. */
static void cell_range(const grid_order *o, const uint32_t c[3], const ibox *r, ibox *out) {
  for (int a = 0; a < 3; a++) {
    size_t lo = a < o->dim ? o->start[a][c[a]] : 0, hi = a < o->dim ? o->start[a][c[a] + 1] : 1;
    out->lo[a] = lo > r->lo[a] ? lo : r->lo[a];
    out->hi[a] = hi < r->hi[a] ? hi : r->hi[a];
  }
}

/* Position of point u among the points of cell range `in` in grid order (z slowest, x fastest). */
static uint64_t grid_offset(const ibox *in, const size_t u[3]) {
  uint64_t off = 0;
  for (int a = 2; a >= 0; a--) off = off * (in->hi[a] - in->lo[a]) + (u[a] - in->lo[a]);
  return off;
}

typedef void put_fn(void *ctx, const size_t u[3], uint64_t rank1, uint64_t rank2);

/* Calls put for every point u of box b with its position among the points of box r1 and of box
 * r2 (each containing b) in the order of o. Points are visited cell by cell, in parallel: put
 * must write places of its own. */
static void visit_box(const grid_order *o, const ibox *b, const ibox *r1, const ibox *r2, put_fn *put, void *ctx) {
  if (!box_points(b, 3)) return;
  uint32_t c0[3], nc[3];
  for (int a = 0; a < 3; a++) {
    c0[a] = o->cell[a][b->lo[a]];
    nc[a] = o->cell[a][b->hi[a] - 1] - c0[a] + 1;
  }
  long cells = (long)nc[0] * nc[1] * nc[2];
#pragma omp parallel for schedule(dynamic, 64)
  for (long k = 0; k < cells; k++) {
    uint32_t c[3] = {c0[0] + (uint32_t)(k % nc[0]), c0[1] + (uint32_t)(k / nc[0] % nc[1]), c0[2] + (uint32_t)(k / nc[0] / nc[1])};
    ibox here, in1, in2;
    cell_range(o, c, b, &here);
    if (!box_points(&here, 3)) continue;
    cell_range(o, c, r1, &in1), cell_range(o, c, r2, &in2);
    uint64_t base1 = points_before_cell(o, c, r1), base2 = points_before_cell(o, c, r2);
    size_t u[3];
    for (u[2] = here.lo[2]; u[2] < here.hi[2]; u[2]++)
      for (u[1] = here.lo[1]; u[1] < here.hi[1]; u[1]++)
        for (u[0] = here.lo[0]; u[0] < here.hi[0]; u[0]++)
          put(ctx, u, base1 + grid_offset(&in1, u), base2 + grid_offset(&in2, u));
  }
}

/* Recursive bisection of the index box: across its longest axis (the lowest of equal ones), at
 * the point count of the parts on each side (a box's slabs hold equal counts). */
static cl_status bisect(const ibox *b, int dim, int first, int parts, size_t total, ibox *part, cl_error *err) {
  if (parts == 1) {
    part[first] = *b;
    return CL_OK;
  }
  int axis = 0;
  for (int a = 1; a < dim; a++)
    if (b->hi[a] - b->lo[a] > b->hi[axis] - b->lo[axis]) axis = a;
  size_t len = b->hi[axis] - b->lo[axis];
  int left = parts / 2;
  if (box_points(b, dim) < (size_t)parts || len < 2)
    return cl_error_set(err, CL_ERR_ARG, "%d ranks for %zu points: a rank would own no point; use fewer ranks "
                        "(mpirun -np) or a finer dx", parts, total);
  size_t cut = (size_t)llround((double)len * left / parts);
  cut = cut < 1 ? 1 : cut > len - 1 ? len - 1 : cut;
  ibox lo = *b, hi = *b;
  lo.hi[axis] = hi.lo[axis] = b->lo[axis] + cut;
  CL_TRY(bisect(&lo, dim, first, left, total, part, err));
  return bisect(&hi, dim, first + left, parts - left, total, part, err);
}

static ibox grown(const ibox *b, const ibox *all, size_t reach, int dim) {
  ibox r = *b;
  for (int a = 0; a < dim; a++) {
    r.lo[a] = b->lo[a] > all->lo[a] + reach ? b->lo[a] - reach : all->lo[a];
    r.hi[a] = b->hi[a] + reach < all->hi[a] ? b->hi[a] + reach : all->hi[a];
  }
  return r;
}

/* The partition of a grid: the index box of all its points and each part's box. */
typedef struct grid_parts {
  int dim;
  size_t reach;
  ibox all, *part;
} grid_parts;

static cl_status parts_make(const cl_grid_box *g, int reach, int parts, int rank, const char *who, grid_parts *gp,
                            cl_error *err) {
  memset(gp, 0, sizeof *gp);
  if ((g->dim != 2 && g->dim != 3) || parts < 1 || rank < 0 || rank >= parts || reach < 0)
    return cl_error_set(err, CL_ERR_ARG, "%s: rank %d of %d parts, %dD, reach %d", who, rank, parts, g->dim, reach);
  gp->dim = g->dim, gp->reach = (size_t)reach;
  gp->all = (ibox){{0, 0, 0}, {1, 1, 1}};
  for (int a = 0; a < g->dim; a++) gp->all.hi[a] = g->count[a];
  /* global indices are 64-bit; a count of points must stay exact in a double (the Lua side's sums) */
  double total = 1;
  for (int a = 0; a < g->dim; a++) total *= (double)g->count[a];
  if (total >= 9007199254740992.0)
    return cl_error_set(err, CL_ERR_ARG, "%s: a body of %.3g points: at most 2^53 points; use a larger dx", who, total);
  gp->part = malloc((size_t)parts * sizeof *gp->part);
  if (!gp->part) return cl_error_set(err, CL_ERR_OOM, "%s: no memory for %d parts", who, parts);
  cl_status st = bisect(&gp->all, g->dim, 0, parts, box_points(&gp->all, g->dim), gp->part, err);
  if (st != CL_OK) free(gp->part), gp->part = NULL;
  return st;
}

/* Between `rank` and part q: q's points that `rank` keeps as ghosts (*in) and `rank`'s points that q
 * keeps (*out). */
static void parts_halo(const grid_parts *gp, int rank, int q, ibox *in, ibox *out) {
  ibox around = grown(&gp->part[rank], &gp->all, gp->reach, gp->dim), theirs = grown(&gp->part[q], &gp->all, gp->reach, gp->dim);
  *in = intersect(&gp->part[q], &around), *out = intersect(&gp->part[rank], &theirs);
}

static int box_holds(const ibox *b, const size_t u[3]) {
  for (int a = 0; a < 3; a++)
    if (u[a] < b->lo[a] || u[a] >= b->hi[a]) return 0;
  return 1;
}

/* What the visits write: the plan's rows and the local coordinates. */
typedef struct fill {
  const cl_grid_box *g;
  cl_dtype real;
  cl_halo_plan *plan;
  void *x;
  size_t row0; /* the first local row (ghosts) or send entry of the visited box */
} fill;

static void put_point(fill *f, size_t row, const size_t u[3], uint64_t global) {
  f->plan->global[row] = global;
  for (int a = 0; a < f->g->dim; a++) {
    double v = centre(f->g, a, u[a]);
    if (f->real == CL_F32) ((float *)f->x)[(size_t)a * f->plan->local + row] = (float)v;
    else ((double *)f->x)[(size_t)a * f->plan->local + row] = v;
  }
}

/* a point of this rank's or a ghost: rank1 among the box's points, rank2 its global index */
static void put_local(void *ctx, const size_t u[3], uint64_t rank1, uint64_t rank2) {
  fill *f = ctx;
  put_point(f, f->row0 + rank1, u, rank2);
}

/* a point sent to a peer: rank1 among the points sent to it, rank2 its row among this rank's own */
static void put_send(void *ctx, const size_t u[3], uint64_t rank1, uint64_t rank2) {
  fill *f = ctx;
  (void)u;
  f->plan->send_rows[f->row0 + rank1] = (uint32_t)rank2;
}

/* The plan's interior rows first (cl_halo_plan_interior_first), the coordinates moved with them. */
static cl_status interior_first(cl_halo_plan *plan, cl_dtype real, int dim, void *x, cl_error *err) {
  uint32_t *to_new;
  CL_TRY(cl_halo_plan_interior_first(plan, &to_new, err));
  size_t elem = cl_dtype_size(real), owned = plan->owned;
  char *moved = malloc((owned ? owned : 1) * elem);
  if (!moved) {
    free(to_new);
    return cl_error_set(err, CL_ERR_OOM, "cl_halo_plan_grid: no memory for %zu coordinates", owned);
  }
  for (int a = 0; a < dim; a++) {
    char *axis = (char *)x + (size_t)a * plan->local * elem;
    for (size_t i = 0; i < owned; i++) memcpy(moved + (size_t)to_new[i] * elem, axis + i * elem, elem);
    memcpy(axis, moved, owned * elem);
  }
  free(moved), free(to_new);
  return CL_OK;
}

cl_status cl_halo_plan_grid(const cl_grid_box *g, cl_dtype real, double cell, int reach, int parts, int rank,
                            cl_halo_plan *plan, void **x, cl_error *err) {
  static const char who[] = "cl_halo_plan_grid";
  memset(plan, 0, sizeof *plan);
  *x = NULL;
  if (!(cell >= 0) || (real != CL_F32 && real != CL_F64))
    return cl_error_set(err, CL_ERR_ARG, "%s: cell %g, dtype %s", who, cell, cl_dtype_name(real));
  grid_parts gp;
  CL_TRY(parts_make(g, reach, parts, rank, who, &gp, err));
  size_t *recv = calloc((size_t)parts, sizeof *recv), *send = calloc((size_t)parts, sizeof *send);
  grid_order o;
  cl_status st = CL_OK;
  if (!recv || !send) st = cl_error_set(err, CL_ERR_OOM, "%s: no memory for %d parts", who, parts);
  if (st == CL_OK) st = order_make(g, real, cell, &o, err);
  if (st != CL_OK) {
    free(gp.part), free(recv), free(send);
    return st;
  }
  plan->rank = rank, plan->parts = parts, plan->points = box_points(&gp.all, g->dim);
  const ibox *mine = &gp.part[rank];
  plan->owned = box_points(mine, g->dim);
  for (int q = 0; q < parts; q++) {
    if (q == rank) continue;
    ibox in, out;
    parts_halo(&gp, rank, q, &in, &out);
    recv[q] = box_points(&in, g->dim), send[q] = box_points(&out, g->dim);
  }
  st = cl_halo_plan_peers(plan, parts, recv, send, who, err);
  if (st == CL_OK) {
    *x = malloc((size_t)g->dim * (plan->local ? plan->local : 1) * cl_dtype_size(real));
    if (!*x) st = cl_error_set(err, CL_ERR_OOM, "%s: no memory for %zu local points", who, plan->local);
  }
  if (st == CL_OK) {
    fill f = {g, real, plan, *x, 0};
    visit_box(&o, mine, mine, &gp.all, put_local, &f); /* own rows in global order */
    for (int k = 0; k < plan->npeers; k++) {
      const cl_halo_peer *peer = &plan->peers[k];
      ibox in, out;
      parts_halo(&gp, rank, peer->rank, &in, &out);
      f.row0 = plan->owned + peer->recv_offset; /* its points here, in global order */
      visit_box(&o, &in, &in, &gp.all, put_local, &f);
      f.row0 = peer->send_offset; /* the points it keeps of this rank, in global order, as rows of this rank */
      visit_box(&o, &out, &out, mine, put_send, &f);
    }
    st = interior_first(plan, real, g->dim, *x, err);
  }
  order_free(&o);
  free(gp.part), free(recv), free(send);
  if (st != CL_OK) {
    free(*x), *x = NULL;
    cl_halo_plan_free(plan);
  }
  return st;
}

cl_status cl_grid_part_counts(const cl_grid_box *g, int reach, int parts, int rank, size_t *owned, size_t *ghosts,
                              cl_error *err) {
  grid_parts gp;
  CL_TRY(parts_make(g, reach, parts, rank, "cl_grid_part_counts", &gp, err));
  *owned = box_points(&gp.part[rank], g->dim), *ghosts = 0;
  for (int q = 0; q < parts; q++) {
    if (q == rank) continue;
    ibox in, out;
    parts_halo(&gp, rank, q, &in, &out);
    *ghosts += box_points(&in, g->dim);
  }
  free(gp.part);
  return CL_OK;
}

cl_status cl_grid_point_locate(const cl_grid_box *g, cl_dtype real, double cell, int reach, int parts, const size_t u[3],
                               uint64_t *global, int *owner, int *ghost_of, int *nghost, cl_error *err) {
  static const char who[] = "cl_grid_point_locate";
  if (!(cell >= 0) || (real != CL_F32 && real != CL_F64))
    return cl_error_set(err, CL_ERR_ARG, "%s: cell %g, dtype %s", who, cell, cl_dtype_name(real));
  grid_parts gp;
  CL_TRY(parts_make(g, reach, parts, 0, who, &gp, err));
  if (!box_holds(&gp.all, u)) {
    free(gp.part);
    return cl_error_set(err, CL_ERR_ARG, "%s: point (%zu, %zu, %zu) lies outside the grid of %zu x %zu x %zu points", who,
                        u[0], u[1], u[2], gp.all.hi[0], gp.all.hi[1], gp.all.hi[2]);
  }
  grid_order o;
  cl_status st = order_make(g, real, cell, &o, err);
  if (st != CL_OK) {
    free(gp.part);
    return st;
  }
  /* as visit_box counts it: the points of the cells below its cell's, then its place in its cell */
  uint32_t c[3] = {o.cell[0][u[0]], o.cell[1][u[1]], o.cell[2][u[2]]};
  ibox in;
  cell_range(&o, c, &gp.all, &in);
  *global = points_before_cell(&o, c, &gp.all) + grid_offset(&in, u);
  *owner = 0, *nghost = 0;
  for (int q = 0; q < parts; q++)
    if (box_holds(&gp.part[q], u)) *owner = q;
  for (int q = 0; q < parts; q++) {
    ibox around = grown(&gp.part[q], &gp.all, gp.reach, g->dim);
    if (q != *owner && box_holds(&around, u)) ghost_of[(*nghost)++] = q;
  }
  order_free(&o);
  free(gp.part);
  return CL_OK;
}
