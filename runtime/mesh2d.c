/* 2D triangle meshes: allocation, adjacency by sorting edges, validity
 * checks, nodal perturbation, Welsh-Powell colouring and facet counts. */
#include "mesh2d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

cl_status cl_mesh2d_alloc(int order, size_t nnodes, size_t nelems, cl_mesh2d *out, cl_error *err) {
  memset(out, 0, sizeof *out);
  if (order != 1 && order != 2)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d: order must be 1 (T3) or 2 (T6), got %d", order);
  if (nnodes >= UINT32_MAX || nelems >= INT32_MAX)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d: %zu nodes / %zu elements exceed the 32-bit indices", nnodes,
                        nelems);
  out->order = order;
  out->nnodes = nnodes, out->nelems = nelems;
  out->x = malloc((2 * nnodes + 1) * sizeof *out->x);
  out->elem = malloc((cl_mesh2d_nper(out) * nelems + 1) * sizeof *out->elem);
  out->adj = malloc((3 * nelems + 1) * sizeof *out->adj);
  if (!out->x || !out->elem || !out->adj) {
    cl_mesh2d_free(out);
    return cl_error_set(err, CL_ERR_OOM, "mesh2d: out of memory for %zu nodes and %zu elements", nnodes, nelems);
  }
  for (size_t i = 0; i < 3 * nelems; i++) out->adj[i] = -1;
  return CL_OK;
}

void cl_mesh2d_free(cl_mesh2d *m) {
  if (!m) return;
  free(m->x), free(m->elem), free(m->adj);
  memset(m, 0, sizeof *m);
}

/* ---- adjacency ------------------------------------------------------------- */

typedef struct edge_rec {
  uint64_t key;  /* smaller corner << 32 | larger corner */
  size_t slot;   /* 3 * element + edge */
} edge_rec;

static int edge_cmp(const void *a, const void *b) {
  const edge_rec *p = a, *q = b;
  if (p->key != q->key) return p->key < q->key ? -1 : 1;
  return (p->slot > q->slot) - (p->slot < q->slot);
}

static uint64_t edge_key(uint32_t a, uint32_t b) {
  return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

cl_status cl_mesh2d_adjacency(cl_mesh2d *m, cl_error *err) {
  size_t ne = 3 * m->nelems, nper = cl_mesh2d_nper(m);
  edge_rec *r = malloc((ne + 1) * sizeof *r);
  if (!r) return cl_error_set(err, CL_ERR_OOM, "mesh2d adjacency: out of memory for %zu edges", ne);
  for (size_t s = 0; s < ne; s++) {
    const uint32_t *c = m->elem + s / 3 * nper;
    r[s] = (edge_rec){edge_key(c[s % 3], c[(s + 1) % 3]), s};
  }
  qsort(r, ne, sizeof *r, edge_cmp);
  for (size_t s = 0, t; s < ne; s = t) {
    for (t = s + 1; t < ne && r[t].key == r[s].key; t++) {}
    if (t - s > 2) {
      cl_error_set(err, CL_ERR_ARG,
                   "mesh2d adjacency: edge of nodes %u and %u is shared by %zu elements (%zu, %zu, %zu...)",
                   (uint32_t)(r[s].key >> 32), (uint32_t)r[s].key, t - s, r[s].slot / 3, r[s + 1].slot / 3,
                   r[s + 2].slot / 3);
      free(r);
      return CL_ERR_ARG;
    }
    m->adj[r[s].slot] = -1;
    if (t - s == 2) m->adj[r[s].slot] = (int32_t)(r[s + 1].slot / 3), m->adj[r[s + 1].slot] = (int32_t)(r[s].slot / 3);
  }
  free(r);
  return CL_OK;
}

/* ---- check ----------------------------------------------------------------- */

static double signed_area(const cl_mesh2d *m, const uint32_t *c) {
  const double *x = m->x, *y = m->x + m->nnodes;
  return 0.5 * ((x[c[1]] - x[c[0]]) * (y[c[2]] - y[c[0]]) - (x[c[2]] - x[c[0]]) * (y[c[1]] - y[c[0]]));
}

static double dist2(const cl_mesh2d *m, uint32_t a, uint32_t b) {
  double dx = m->x[b] - m->x[a], dy = m->x[m->nnodes + b] - m->x[m->nnodes + a];
  return dx * dx + dy * dy;
}

static cl_status check_indices(const cl_mesh2d *m, size_t e, cl_error *err) {
  for (size_t k = 0; k < cl_mesh2d_nper(m); k++)
    if (m->elem[e * cl_mesh2d_nper(m) + k] >= m->nnodes)
      return cl_error_set(err, CL_ERR_ARG, "mesh2d: element %zu node %zu is %u, not in 1..%zu (numbers from 1, in "
                          "file order)", e + 1, k + 1, m->elem[e * cl_mesh2d_nper(m) + k] + 1, m->nnodes);
  return CL_OK;
}

static cl_status check_area(const cl_mesh2d *m, size_t e, cl_error *err) {
  const uint32_t *c = m->elem + e * cl_mesh2d_nper(m);
  double l2 = fmax(dist2(m, c[0], c[1]), fmax(dist2(m, c[1], c[2]), dist2(m, c[2], c[0])));
  double a = signed_area(m, c);
  /* written so that NaN fails too */
  if (!(a > 1e-12 * l2))
    return cl_error_set(err, CL_ERR_ARG,
                        "mesh2d: element %zu (nodes %u %u %u; numbers from 1, in file order) is inverted or "
                        "degenerate: signed area %g; list its corners counter-clockwise", e + 1, c[0] + 1, c[1] + 1,
                        c[2] + 1, a);
  return CL_OK;
}

/* The mid-side node must sit in the middle half of its chord, near it. */
static cl_status check_midside(const cl_mesh2d *m, size_t e, int k, cl_error *err) {
  const uint32_t *c = m->elem + 6 * e;
  uint32_t a = c[k], b = c[(k + 1) % 3], mid = c[3 + k];
  const double *x = m->x, *y = m->x + m->nnodes;
  double ex = x[b] - x[a], ey = y[b] - y[a], px = x[mid] - x[a], py = y[mid] - y[a];
  double l2 = ex * ex + ey * ey, t = (px * ex + py * ey) / l2, d = fabs(px * ey - py * ex) / l2;
  if (!(t > 0.25 && t < 0.75 && d <= 0.25))
    return cl_error_set(err, CL_ERR_ARG,
                        "mesh2d: element %zu mid-side node %u is not between corners %u and %u (numbers from 1; "
                        "at %g along, %g off the chord, in chord lengths)",
                        e + 1, mid + 1, a + 1, b + 1, t, d);
  return CL_OK;
}

cl_status cl_mesh2d_check(const cl_mesh2d *m, cl_error *err) {
  if (m->order != 1 && m->order != 2)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d: order must be 1 (T3) or 2 (T6), got %d", m->order);
  for (size_t e = 0; e < m->nelems; e++) {
    CL_TRY(check_indices(m, e, err));
    CL_TRY(check_area(m, e, err));
    for (int k = 0; k < 3 && m->order == 2; k++) CL_TRY(check_midside(m, e, k, err));
  }
  return CL_OK;
}

/* ---- perturbation ---------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static double uniform01(uint64_t *s) { return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0); }

/* h[i]: shortest corner-to-corner edge at node i (INFINITY for non-corners);
 * h[i] = -1 marks nodes on a boundary edge, which must not move. */
static void local_sizes(const cl_mesh2d *m, double *h) {
  size_t nper = cl_mesh2d_nper(m);
  for (size_t i = 0; i < m->nnodes; i++) h[i] = INFINITY;
  for (size_t e = 0; e < m->nelems; e++)
    for (int k = 0; k < 3; k++) {
      uint32_t a = m->elem[e * nper + k], b = m->elem[e * nper + (k + 1) % 3];
      double l = sqrt(dist2(m, a, b));
      h[a] = fmin(h[a], l), h[b] = fmin(h[b], l);
    }
  for (size_t s = 0; s < 3 * m->nelems; s++)
    if (m->adj[s] < 0) h[m->elem[s / 3 * nper + s % 3]] = h[m->elem[s / 3 * nper + (s + 1) % 3]] = -1;
}

static void recentre_midsides(cl_mesh2d *m) {
  double *x = m->x, *y = m->x + m->nnodes;
  for (size_t e = 0; e < m->nelems; e++)
    for (int k = 0; k < 3; k++) {
      const uint32_t *c = m->elem + 6 * e;
      uint32_t a = c[k], b = c[(k + 1) % 3];
      x[c[3 + k]] = 0.5 * (x[a] + x[b]), y[c[3 + k]] = 0.5 * (y[a] + y[b]);
    }
}

cl_status cl_mesh2d_perturb(cl_mesh2d *m, double fraction, uint64_t seed, cl_error *err) {
  if (!(fraction >= 0 && fraction < 0.5))
    return cl_error_set(err, CL_ERR_ARG, "mesh2d perturb: fraction must be in [0, 0.5), got %g", fraction);
  if (!m->adj) return cl_error_set(err, CL_ERR_ARG, "mesh2d perturb: adj is missing (run cl_mesh2d_adjacency)");
  double *h = malloc((m->nnodes + 1) * sizeof *h);
  if (!h) return cl_error_set(err, CL_ERR_OOM, "mesh2d perturb: out of memory for %zu nodes", m->nnodes);
  local_sizes(m, h);
  uint64_t s = seed;
  for (size_t i = 0; i < m->nnodes; i++) {
    if (!(h[i] > 0) || isinf(h[i])) continue;
    /* uniform in the disk: radius by the square root of a uniform */
    double r = fraction * h[i] * sqrt(uniform01(&s)), th = 2 * PI * uniform01(&s);
    m->x[i] += r * cos(th), m->x[m->nnodes + i] += r * sin(th);
  }
  free(h);
  if (m->order == 2) recentre_midsides(m);
  return CL_OK;
}

/* ---- colouring ------------------------------------------------------------- */

/* Node-to-element lists in compressed rows: the elements of node i are
 * list[start[i] .. start[i + 1]). */
typedef struct node_elems {
  size_t *start;
  uint32_t *list;
} node_elems;

static cl_status node_elems_build(const cl_mesh2d *m, node_elems *ne, cl_error *err) {
  size_t nper = cl_mesh2d_nper(m), nent = nper * m->nelems;
  ne->start = calloc(m->nnodes + 2, sizeof *ne->start);
  ne->list = malloc((nent + 1) * sizeof *ne->list);
  if (!ne->start || !ne->list) {
    free(ne->start), free(ne->list);
    return cl_error_set(err, CL_ERR_OOM, "mesh2d colour: out of memory for the node-element lists");
  }
  for (size_t s = 0; s < nent; s++) ne->start[m->elem[s] + 2]++;
  for (size_t i = 2; i < m->nnodes + 2; i++) ne->start[i] += ne->start[i - 1];
  /* start[v + 1] serves as node v's fill cursor and ends at node v + 1's offset */
  for (size_t s = 0; s < nent; s++) ne->list[ne->start[m->elem[s] + 1]++] = (uint32_t)(s / nper);
  return CL_OK;
}

/* Visits each element that shares a node with e once (not e itself),
 * marking visits in seen[] with stamp e + 1. Returns how many. */
static size_t neighbours(const cl_mesh2d *m, const node_elems *ne, size_t e, size_t *seen, uint32_t *out) {
  size_t nper = cl_mesh2d_nper(m), n = 0;
  seen[e] = e + 1;
  for (size_t k = 0; k < nper; k++) {
    uint32_t v = m->elem[e * nper + k];
    for (size_t j = ne->start[v]; j < ne->start[v + 1]; j++)
      if (seen[ne->list[j]] != e + 1) seen[ne->list[j]] = e + 1, out[n++] = ne->list[j];
  }
  return n;
}

static int u64_cmp(const void *a, const void *b) {
  uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;
  return (p > q) - (p < q);
}

/* Welsh-Powell order: elements by decreasing degree, ties by index, from
 * sorting (UINT32_MAX - degree) << 32 | index ascending. */
static void degree_order(const cl_mesh2d *m, const node_elems *ne, size_t *seen, uint32_t *nb, uint64_t *key) {
  for (size_t e = 0; e < m->nelems; e++)
    key[e] = (uint64_t)(UINT32_MAX - neighbours(m, ne, e, seen, nb)) << 32 | e;
  qsort(key, m->nelems, sizeof *key, u64_cmp);
}

static void greedy(const cl_mesh2d *m, const node_elems *ne, const uint64_t *order, size_t *seen, uint32_t *nb,
                   size_t *used, uint32_t *colour, uint32_t *ncolours) {
  *ncolours = 0;
  for (size_t e = 0; e < m->nelems; e++) colour[e] = UINT32_MAX, seen[e] = 0, used[e] = 0;
  for (size_t i = 0; i < m->nelems; i++) {
    size_t e = (uint32_t)order[i], n = neighbours(m, ne, e, seen, nb);
    for (size_t j = 0; j < n; j++)
      if (colour[nb[j]] != UINT32_MAX) used[colour[nb[j]]] = e + 1;
    uint32_t c = 0;
    while (used[c] == e + 1) c++;
    colour[e] = c;
    if (c + 1 > *ncolours) *ncolours = c + 1;
  }
}

cl_status cl_mesh2d_colour(const cl_mesh2d *m, uint32_t *colour, uint32_t *ncolours, cl_error *err) {
  node_elems ne;
  CL_TRY(node_elems_build(m, &ne, err));
  size_t n = m->nelems;
  uint64_t *order = malloc((n + 1) * sizeof *order);
  uint32_t *nb = malloc((n + 1) * sizeof *nb);
  size_t *seen = calloc(n + 1, sizeof *seen), *used = malloc((n + 1) * sizeof *used);
  cl_status st = CL_OK;
  if (!order || !nb || !seen || !used) {
    st = cl_error_set(err, CL_ERR_OOM, "mesh2d colour: out of memory for %zu elements", n);
  } else {
    degree_order(m, &ne, seen, nb, order);
    greedy(m, &ne, order, seen, nb, used, colour, ncolours);
  }
  free(order), free(nb), free(seen), free(used), free(ne.start), free(ne.list);
  return st;
}

void cl_mesh2d_facets(const cl_mesh2d *m, size_t *interior, size_t *boundary) {
  size_t in = 0, bd = 0;
  for (size_t s = 0; s < 3 * m->nelems; s++) {
    if (m->adj[s] < 0) bd++;
    else if ((size_t)m->adj[s] > s / 3) in++;
  }
  *interior = in, *boundary = bd;
}
