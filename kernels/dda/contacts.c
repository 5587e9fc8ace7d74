/* DDA contact detection and transfer (contacts.h). */
#include "contacts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "polygon.h"

/* how far (as the sine of the angle) a vertex's wedge may dip below a contact edge and still
 * touch it from outside: blocks rotate a little within a step */
#define ANGLE_TOLERANCE 0.01

typedef struct box {
  double x0, y0, x1, y1;
} box;

static box block_box(const cl_dda_geometry *g, size_t i, double grow) {
  box b = {INFINITY, INFINITY, -INFINITY, -INFINITY};
  for (int32_t v = g->vstart[i]; v < g->vstart[i + 1]; v++) {
    b.x0 = fmin(b.x0, g->vx[v]), b.y0 = fmin(b.y0, g->vy[v]);
    b.x1 = fmax(b.x1, g->vx[v]), b.y1 = fmax(b.y1, g->vy[v]);
  }
  b.x0 -= grow, b.y0 -= grow, b.x1 += grow, b.y1 += grow;
  return b;
}

static int push_pair(int32_t **pairs, size_t *npairs, size_t *cap, int32_t i, int32_t j) {
  if (*npairs == *cap) {
    size_t c = *cap ? 2 * *cap : 64;
    int32_t *p = realloc(*pairs, 2 * c * sizeof *p);
    if (!p) return 0;
    *pairs = p, *cap = c;
  }
  (*pairs)[2 * *npairs] = i, (*pairs)[2 * *npairs + 1] = j;
  (*npairs)++;
  return 1;
}

static int double_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int pair_cmp(const void *a, const void *b) {
  const int32_t *x = a, *y = b;
  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* The cells box b covers: [*x0, *x1] x [*y0, *y1]. */
static void cell_range(box b, box all, double h, size_t nx, size_t ny, size_t *x0, size_t *x1, size_t *y0,
                       size_t *y1) {
  double fx0 = (b.x0 - all.x0) / h, fx1 = (b.x1 - all.x0) / h, fy0 = (b.y0 - all.y0) / h, fy1 = (b.y1 - all.y0) / h;
  *x0 = (size_t)fx0 < nx ? (size_t)fx0 : nx - 1, *x1 = (size_t)fx1 < nx ? (size_t)fx1 : nx - 1;
  *y0 = (size_t)fy0 < ny ? (size_t)fy0 : ny - 1, *y1 = (size_t)fy1 < ny ? (size_t)fy1 : ny - 1;
}

cl_status cl_dda_broad_phase(const cl_dda_geometry *g, double d0, int32_t **pairs, size_t *npairs, size_t *cap,
                             cl_error *err) {
  size_t n = g->n;
  *npairs = 0;
  if (n < 2) return CL_OK;
  box *boxes = malloc(n * sizeof *boxes);
  double *size = malloc(n * sizeof *size);
  if (!boxes || !size) {
    free(boxes), free(size);
    return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu blocks", n);
  }
  box all = {INFINITY, INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < n; i++) {
    box b = boxes[i] = block_box(g, i, d0 / 2);
    all.x0 = fmin(all.x0, b.x0), all.y0 = fmin(all.y0, b.y0), all.x1 = fmax(all.x1, b.x1), all.y1 = fmax(all.y1, b.y1);
    size[i] = fmax(b.x1 - b.x0, b.y1 - b.y0);
  }
  /* cells as wide as the median box: a typical block covers at most four, and a block as wide as
   * the domain (a base) covers a row of them instead of making every pair a candidate; never more
   * cells than 4 n (memory O(n)) */
  qsort(size, n, sizeof *size, double_cmp);
  double h = size[n / 2];
  free(size);
  size_t nx, ny;
  for (;;) {
    nx = (size_t)((all.x1 - all.x0) / h) + 1, ny = (size_t)((all.y1 - all.y0) / h) + 1;
    if (nx * ny <= 4 * n) break;
    h *= 1.5;
  }
  size_t ncells = nx * ny, entries = 0;
  size_t *start = calloc(ncells + 1, sizeof *start);
  if (!start) {
    free(boxes);
    return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu cells", ncells);
  }
  for (size_t i = 0; i < n; i++) {
    size_t x0, x1, y0, y1;
    cell_range(boxes[i], all, h, nx, ny, &x0, &x1, &y0, &y1);
    for (size_t y = y0; y <= y1; y++)
      for (size_t x = x0; x <= x1; x++) start[y * nx + x + 1]++, entries++;
  }
  for (size_t c = 0; c < ncells; c++) start[c + 1] += start[c];
  int32_t *in_cell = malloc((entries ? entries : 1) * sizeof *in_cell);
  if (!in_cell) {
    free(boxes), free(start);
    return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu cell entries", entries);
  }
  for (size_t i = 0; i < n; i++) { /* counting sort; start shifts by one cell */
    size_t x0, x1, y0, y1;
    cell_range(boxes[i], all, h, nx, ny, &x0, &x1, &y0, &y1);
    for (size_t y = y0; y <= y1; y++)
      for (size_t x = x0; x <= x1; x++) in_cell[start[y * nx + x]++] = (int32_t)i;
  }
  memmove(start + 1, start, ncells * sizeof *start);
  start[0] = 0;
  /* a pair whose boxes overlap is reported by the one cell that holds the lower-left corner of
   * their overlap */
  cl_status st = CL_OK;
  for (size_t c = 0; c < ncells && st == CL_OK; c++)
    for (size_t p = start[c]; p < start[c + 1]; p++)
      for (size_t q = p + 1; q < start[c + 1]; q++) {
        int32_t i = in_cell[p], j = in_cell[q];
        box a = boxes[i], b = boxes[j];
        if (a.x0 > b.x1 || b.x0 > a.x1 || a.y0 > b.y1 || b.y0 > a.y1) continue;
        box corner = {fmax(a.x0, b.x0), fmax(a.y0, b.y0), fmax(a.x0, b.x0), fmax(a.y0, b.y0)};
        size_t x0, x1, y0, y1;
        cell_range(corner, all, h, nx, ny, &x0, &x1, &y0, &y1);
        if (y0 * nx + x0 != c) continue;
        if (!push_pair(pairs, npairs, cap, i < j ? i : j, i < j ? j : i))
          st = cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for the candidate pairs");
      }
  /* in the order of the blocks: the same list whatever the cells */
  if (st == CL_OK && *npairs) qsort(*pairs, *npairs, 2 * sizeof **pairs, pair_cmp);
  free(boxes), free(start), free(in_cell);
  return st;
}

/* ---- narrow phase ------------------------------------------------------------ */

static int32_t next_vertex(const cl_dda_geometry *g, int32_t b, int32_t v) {
  return v + 1 == g->vstart[b + 1] ? g->vstart[b] : v + 1;
}
static int32_t prev_vertex(const cl_dda_geometry *g, int32_t b, int32_t v) {
  return v == g->vstart[b] ? g->vstart[b + 1] - 1 : v - 1;
}

/* The angle check: vertex v of block bv can touch edge e -> e+1 of block be from outside only
 * if both of its edges leave it on the outer side of that edge (its wedge above the edge). */
static int angle_ok(const cl_dda_geometry *g, int32_t bv, int32_t v, int32_t be, int32_t e) {
  int32_t f = next_vertex(g, be, e), p = prev_vertex(g, bv, v), q = next_vertex(g, bv, v);
  double dx = g->vx[f] - g->vx[e], dy = g->vy[f] - g->vy[e], l = hypot(dx, dy);
  double nx = dy / l, ny = -dx / l;
  for (int k = 0; k < 2; k++) {
    int32_t w = k ? q : p;
    double ux = g->vx[w] - g->vx[v], uy = g->vy[w] - g->vy[v];
    if (nx * ux + ny * uy < -ANGLE_TOLERANCE * hypot(ux, uy)) return 0;
  }
  return 1;
}

/* The joint length a contact stands for: half of each edge at the vertex that lies along the
 * contact edge (a face against a face), none for a corner against a face; a VV1 pair makes two
 * contacts at the same corner, each standing for half of it. */
static double joint_length(const cl_dda_geometry *g, int32_t bv, int32_t v, int32_t be, int32_t e, int kind) {
  int32_t f = next_vertex(g, be, e);
  double dx = g->vx[f] - g->vx[e], dy = g->vy[f] - g->vy[e], l = hypot(dx, dy), sum = 0;
  int32_t ends[2][2] = {{prev_vertex(g, bv, v), v}, {v, next_vertex(g, bv, v)}};
  for (int k = 0; k < 2; k++) {
    double ux = g->vx[ends[k][1]] - g->vx[ends[k][0]], uy = g->vy[ends[k][1]] - g->vy[ends[k][0]];
    double lu = hypot(ux, uy);
    if (fabs(ux * dy - uy * dx) <= ANGLE_TOLERANCE * l * lu && ux * dx + uy * dy < 0) sum += lu / 2;
  }
  return kind == CL_DDA_VV1 ? sum / 2 : sum;
}

/* Whether one of the two edges at vertex v of block bv runs opposite to edge e of block be. */
static int parallel_edges(const cl_dda_geometry *g, int32_t bv, int32_t v, int32_t be, int32_t e) {
  return joint_length(g, bv, v, be, e, CL_DDA_VE) > 0;
}

static int push_contact(const cl_dda_geometry *g, cl_dda_contact_list *l, int32_t bi, int32_t vi, int32_t bj,
                        int32_t ej, int kind, double t) {
  if (l->count == l->cap) {
    size_t c = l->cap ? 2 * l->cap : 64;
    cl_dda_contact *p = realloc(l->c, c * sizeof *p);
    if (!p) return 0;
    l->c = p, l->cap = c;
  }
  cl_dda_contact *c = &l->c[l->count++];
  memset(c, 0, sizeof *c);
  c->bi = bi, c->vi = vi, c->bj = bj, c->ej = ej, c->kind = kind, c->t_ref = t, c->sgn = 1;
  c->length = joint_length(g, bi, vi, bj, ej, kind);
  return 1;
}

/* Signed distance of vertex v from the line of edge e (> 0 outside block be). */
static double edge_gap(const cl_dda_geometry *g, int32_t v, int32_t be, int32_t e, double *t) {
  int32_t f = next_vertex(g, be, e);
  double dx = g->vx[f] - g->vx[e], dy = g->vy[f] - g->vy[e], l = hypot(dx, dy);
  double px = g->vx[v] - g->vx[e], py = g->vy[v] - g->vy[e];
  *t = (px * dx + py * dy) / (l * l);
  return (px * dy - py * dx) / l;
}

/* The VE contacts of block a's vertices with block b's edges: the vertex within d0 of the edge's
 * interior (outside it, or less than d0 / 10 behind it) and farther than d0 from its ends (those
 * are vertex-vertex). */
static int vertex_edge(const cl_dda_geometry *g, int32_t a, int32_t b, double d0, cl_dda_contact_list *out) {
  for (int32_t v = g->vstart[a]; v < g->vstart[a + 1]; v++)
    for (int32_t e = g->vstart[b]; e < g->vstart[b + 1]; e++) {
      int32_t f = next_vertex(g, b, e);
      double t, gap = edge_gap(g, v, b, e, &t);
      /* a vertex deeper behind the edge than a tenth of d0 cannot have come through it in a step
       * (steps move less than d0 / 1.25): it lies across the other block, not in contact */
      if (gap >= d0 || gap <= -d0 / 10 || t <= 0 || t >= 1) continue;
      if (hypot(g->vx[v] - g->vx[e], g->vy[v] - g->vy[e]) < d0) continue;
      if (hypot(g->vx[v] - g->vx[f], g->vy[v] - g->vy[f]) < d0) continue;
      if (!angle_ok(g, a, v, b, e)) continue;
      if (!push_contact(g, out, a, v, b, e, CL_DDA_VE, t)) return 0;
    }
  return 1;
}

/* Vertex p of block a near vertex q of block b: the four (vertex, edge) combinations, each edge
 * one of the two at the other vertex. Parallel opposite edges (VV1) keep every combination that
 * passes the angle check; otherwise (VV2) the one edge the vertex penetrates least. The shear
 * anchor is the vertex's projection on the edge's line, even beyond the edge's end, so that a new
 * contact's shear spring starts unstretched. */
static int vertex_vertex(const cl_dda_geometry *g, int32_t a, int32_t p, int32_t b, int32_t q,
                         cl_dda_contact_list *out) {
  int32_t vb[4] = {a, a, b, b}, vv[4] = {p, p, q, q}, eb[4] = {b, b, a, a};
  int32_t ee[4] = {prev_vertex(g, b, q), q, prev_vertex(g, a, p), p};
  int ok[4], parallel = 0;
  for (int k = 0; k < 4; k++) {
    ok[k] = angle_ok(g, vb[k], vv[k], eb[k], ee[k]);
    if (ok[k] && parallel_edges(g, vb[k], vv[k], eb[k], ee[k])) parallel = 1;
  }
  int best = -1;
  double best_gap = -INFINITY;
  for (int k = 0; k < 4; k++) {
    if (!ok[k]) continue;
    double t, gap = edge_gap(g, vv[k], eb[k], ee[k], &t);
    if (parallel) {
      if (parallel_edges(g, vb[k], vv[k], eb[k], ee[k]) &&
          !push_contact(g, out, vb[k], vv[k], eb[k], ee[k], CL_DDA_VV1, t))
        return 0;
    } else if (gap > best_gap) {
      best = k, best_gap = gap;
    }
  }
  if (best >= 0) {
    double t;
    edge_gap(g, vv[best], eb[best], ee[best], &t);
    if (!push_contact(g, out, vb[best], vv[best], eb[best], ee[best], CL_DDA_VV2, t)) return 0;
  }
  return 1;
}

static int key_cmp(const void *x, const void *y) {
  const cl_dda_contact *a = x, *b = y;
  if (a->bi != b->bi) return a->bi < b->bi ? -1 : 1;
  if (a->vi != b->vi) return a->vi < b->vi ? -1 : 1;
  if (a->bj != b->bj) return a->bj < b->bj ? -1 : 1;
  if (a->ej != b->ej) return a->ej < b->ej ? -1 : 1;
  return 0;
}

cl_status cl_dda_narrow_phase(const cl_dda_geometry *g, const int32_t *pairs, size_t npairs, double d0,
                              cl_dda_contact_list *prev, int first, cl_dda_contact_list *out, cl_error *err) {
  out->count = 0;
  for (size_t k = 0; k < npairs; k++) {
    int32_t a = pairs[2 * k], b = pairs[2 * k + 1];
    int ok = vertex_edge(g, a, b, d0, out) && vertex_edge(g, b, a, d0, out);
    for (int32_t p = g->vstart[a]; ok && p < g->vstart[a + 1]; p++)
      for (int32_t q = g->vstart[b]; ok && q < g->vstart[b + 1]; q++)
        if (hypot(g->vx[p] - g->vx[q], g->vy[p] - g->vy[q]) < d0) ok = vertex_vertex(g, a, p, b, q, out);
    if (!ok) return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for the contacts");
  }
  /* a deterministic order whatever the detection's: by key */
  if (out->count) qsort(out->c, out->count, sizeof *out->c, key_cmp);
  if (prev->count) qsort(prev->c, prev->count, sizeof *prev->c, key_cmp);
  for (size_t k = 0; k < out->count; k++) {
    cl_dda_contact *c = &out->c[k];
    const cl_dda_contact *old = prev->count ? bsearch(c, prev->c, prev->count, sizeof *c, key_cmp) : NULL;
    if (old) {
      c->state = old->state, c->bonded = old->bonded, c->t_ref = old->t_ref, c->sgn = old->sgn;
      c->N = old->N, c->S = old->S;
    } else {
      double t;
      c->state = edge_gap(g, c->vi, c->bj, c->ej, &t) <= 0 ? CL_DDA_LOCK : CL_DDA_OPEN;
      c->bonded = first;
    }
  }
  return CL_OK;
}

void cl_dda_contact_list_free(cl_dda_contact_list *l) {
  free(l->c);
  memset(l, 0, sizeof *l);
}
