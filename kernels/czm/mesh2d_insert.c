/* Cohesive-element insertion with node duplication by traversal around
 * nodes through adj (Alhadeff et al., Fig. 4), and the topology checker. */
#include "mesh2d_insert.h"

#include <stdlib.h>
#include <string.h>

void cl_cohesive_list_free(cl_cohesive_list *c) {
  if (!c) return;
  free(c->v);
  memset(c, 0, sizeof *c);
}

static cl_status list_reserve(cl_cohesive_list *c, size_t extra, cl_error *err) {
  if (c->n + extra <= c->cap) return CL_OK;
  size_t cap = c->cap ? c->cap : 16;
  while (cap < c->n + extra) cap *= 2;
  cl_cohesive *v = realloc(c->v, cap * sizeof *v);
  if (!v) return cl_error_set(err, CL_ERR_OOM, "mesh2d insert: out of memory for %zu cohesive elements", cap);
  c->v = v, c->cap = cap;
  return CL_OK;
}

static const uint32_t *corners(const cl_mesh2d *m, size_t e) { return m->elem + e * cl_mesh2d_nper(m); }

/* Local edge of element f across which element e lies; -1 if none. */
static int back_edge(const cl_mesh2d *m, size_t f, size_t e) {
  for (int j = 0; j < 3; j++)
    if (m->adj[3 * f + j] == (int32_t)e) return j;
  return -1;
}

/* ---- validation (before anything changes) ---------------------------------- */

typedef struct facet_key {
  size_t slot;  /* the smaller of the facet's two slots 3 * element + edge */
  size_t i;     /* entry in the caller's list */
} facet_key;

static int facet_key_cmp(const void *a, const void *b) {
  const facet_key *p = a, *q = b;
  if (p->slot != q->slot) return p->slot < q->slot ? -1 : 1;
  return (p->i > q->i) - (p->i < q->i);
}

static cl_status validate_facet(const cl_mesh2d *m, const cl_cohesive_list *c, uint32_t e, uint8_t k,
                                facet_key *key, cl_error *err) {
  if (e >= m->nelems || k > 2)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d insert: element %u edge %u is out of range (%zu elements)", e,
                        (unsigned)k, m->nelems);
  int32_t f = m->adj[3 * e + k];
  if (f < 0) {
    for (size_t i = 0; i < c->n; i++)
      for (int s = 0; s < 2; s++)
        if (c->v[i].elem[s] == e && c->v[i].edge[s] == k)
          return cl_error_set(err, CL_ERR_ARG, "mesh2d insert: element %u edge %u is already cracked (cohesive %zu)",
                              e, (unsigned)k, i);
    return cl_error_set(err, CL_ERR_ARG, "mesh2d insert: element %u edge %u is a boundary facet", e, (unsigned)k);
  }
  int j = back_edge(m, (size_t)f, e);
  if (j < 0)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d insert: element %u edge %u: element %d does not see it back", e,
                        (unsigned)k, f);
  size_t a = 3 * (size_t)e + k, b = 3 * (size_t)f + (size_t)j;
  key->slot = a < b ? a : b;
  return CL_OK;
}

static cl_status validate(const cl_mesh2d *m, const cl_cohesive_list *c, const uint32_t *elems,
                          const uint8_t *edges, size_t count, cl_error *err) {
  facet_key *key = malloc(count * sizeof *key);
  if (!key) return cl_error_set(err, CL_ERR_OOM, "mesh2d insert: out of memory for %zu facets", count);
  cl_status st = CL_OK;
  for (size_t i = 0; i < count && st == CL_OK; i++) {
    key[i].i = i;
    st = validate_facet(m, c, elems[i], edges[i], &key[i], err);
  }
  if (st == CL_OK) qsort(key, count, sizeof *key, facet_key_cmp);
  for (size_t i = 1; i < count && st == CL_OK; i++)
    if (key[i].slot == key[i - 1].slot)
      st = cl_error_set(err, CL_ERR_ARG, "mesh2d insert: element %u edge %u names a facet twice (entries %zu, %zu)",
                        elems[key[i].i], (unsigned)edges[key[i].i], key[i - 1].i, key[i].i);
  free(key);
  return st;
}

/* ---- traversal around a node ----------------------------------------------- */

/* The element across an edge of g at its corner node v: dir 0 the edge
 * leaving v (counter-clockwise), 1 the edge arriving at v. Walking with a
 * fixed dir turns around v one way. */
static int32_t fan_next(const cl_mesh2d *m, uint32_t v, size_t g, int dir) {
  const uint32_t *c = corners(m, g);
  int p = c[0] == v ? 0 : c[1] == v ? 1 : 2;
  return m->adj[3 * g + (size_t)(dir ? (p + 2) % 3 : p)];
}

/* Whether element `to` is reached from `from` around v through uncracked edges. */
static int fan_reaches(const cl_mesh2d *m, uint32_t v, size_t from, size_t to) {
  for (int dir = 0; dir < 2; dir++)
    for (int32_t g = fan_next(m, v, from, dir); g >= 0 && (size_t)g != from; g = fan_next(m, v, (size_t)g, dir))
      if ((size_t)g == to) return 1;
  return 0;
}

static void set_corner(cl_mesh2d *m, size_t g, uint32_t v, uint32_t nv) {
  uint32_t *c = m->elem + g * cl_mesh2d_nper(m);
  for (int p = 0; p < 3; p++)
    if (c[p] == v) c[p] = nv;
}

/* Gives node nv instead of v to the group of elements around v connected
 * to `from`. The group is a path (the crack just made broke the fan), so
 * the two walks do not meet; each reads the next element before relabeling. */
static void fan_relabel(cl_mesh2d *m, uint32_t v, size_t from, uint32_t nv) {
  for (int dir = 0; dir < 2; dir++)
    for (int32_t g = fan_next(m, v, from, dir), h; g >= 0 && (size_t)g != from; g = h) {
      h = fan_next(m, v, (size_t)g, dir);
      set_corner(m, (size_t)g, v, nv);
    }
  set_corner(m, from, v, nv);
}

/* ---- insertion ---------------------------------------------------------- */

/* New nodes of one call: node n0 + i copies the coordinates of old node src[i]. */
typedef struct node_buf {
  size_t n0, added;
  uint32_t *src;
} node_buf;

static uint32_t new_node(node_buf *d, uint32_t v) {
  d->src[d->added] = v < d->n0 ? v : d->src[v - d->n0];
  return (uint32_t)(d->n0 + d->added++);
}

static void crack(cl_mesh2d *m, cl_cohesive_list *c, uint32_t e, uint8_t k, node_buf *d) {
  size_t nper = cl_mesh2d_nper(m);
  uint32_t f = (uint32_t)m->adj[3 * (size_t)e + k];
  int j = back_edge(m, f, e);
  c->v[c->n++] = (cl_cohesive){{e, f}, {k, (uint8_t)j}};
  m->adj[3 * (size_t)e + k] = m->adj[3 * (size_t)f + (size_t)j] = -1;
  /* a mid-side node belongs to the facet's two elements only */
  if (m->order == 2) m->elem[f * nper + 3 + (size_t)j] = new_node(d, m->elem[f * nper + 3 + (size_t)j]);
  for (int s = 0; s < 2; s++) {
    uint32_t v = m->elem[e * nper + (size_t)(k + s) % 3];
    if (!fan_reaches(m, v, e, f)) fan_relabel(m, v, f, new_node(d, v));
  }
}

/* Fills x (sized for n0 + 3 count nodes) with the old coordinates and the
 * copies, and makes it the mesh's array. */
static void place_nodes(cl_mesh2d *m, double *x, const node_buf *d) {
  size_t n0 = d->n0, n = n0 + d->added;
  memcpy(x, m->x, n0 * sizeof *x);
  memcpy(x + n, m->x + n0, n0 * sizeof *x);
  for (size_t i = 0; i < d->added; i++) x[n0 + i] = m->x[d->src[i]], x[n + n0 + i] = m->x[n0 + d->src[i]];
  free(m->x);
  double *shrunk = realloc(x, (2 * n + 1) * sizeof *x);
  m->x = shrunk ? shrunk : x;
  m->nnodes = n;
}

cl_status cl_mesh2d_insert(cl_mesh2d *m, cl_cohesive_list *c, const uint32_t *elems, const uint8_t *edges,
                           size_t count, cl_error *err) {
  if (count == 0) return CL_OK;
  CL_TRY(validate(m, c, elems, edges, count, err));
  /* at most two corners and a mid-side node per facet */
  size_t most = m->nnodes + 3 * count;
  if (most >= UINT32_MAX)
    return cl_error_set(err, CL_ERR_ARG, "mesh2d insert: up to %zu nodes exceed the 32-bit indices", most);
  CL_TRY(list_reserve(c, count, err));
  node_buf d = {m->nnodes, 0, malloc(3 * count * sizeof *d.src)};
  double *x = malloc((2 * most + 1) * sizeof *x);
  if (!d.src || !x) {
    free(d.src), free(x);
    return cl_error_set(err, CL_ERR_OOM, "mesh2d insert: out of memory for %zu nodes", most);
  }
  for (size_t i = 0; i < count; i++) crack(m, c, elems[i], edges[i], &d);
  place_nodes(m, x, &d);
  free(d.src);
  return CL_OK;
}

/* ---- topology check ------------------------------------------------------ */

static cl_status check_nodes(const cl_mesh2d *m, cl_error *err) {
  size_t nent = cl_mesh2d_nper(m) * m->nelems;
  char *used = calloc(m->nnodes + 1, 1);
  if (!used) return cl_error_set(err, CL_ERR_OOM, "mesh2d topology: out of memory for %zu nodes", m->nnodes);
  cl_status st = CL_OK;
  for (size_t s = 0; s < nent && st == CL_OK; s++)
    if (m->elem[s] >= m->nnodes)
      st = cl_error_set(err, CL_ERR_ARG, "mesh2d topology: element %zu uses node %u, not below nnodes (%zu)",
                        s / cl_mesh2d_nper(m), m->elem[s], m->nnodes);
    else
      used[m->elem[s]] = 1;
  for (size_t i = 0; i < m->nnodes && st == CL_OK; i++)
    if (!used[i]) st = cl_error_set(err, CL_ERR_ARG, "mesh2d topology: node %zu is used by no element", i);
  free(used);
  return st;
}

/* Uncracked facets: symmetric, with the same nodes on both sides. */
static cl_status check_adjacency(const cl_mesh2d *m, cl_error *err) {
  for (size_t s = 0; s < 3 * m->nelems; s++) {
    int32_t f = m->adj[s];
    if (f < 0) continue;
    size_t e = s / 3, k = s % 3;
    int j = (size_t)f < m->nelems ? back_edge(m, (size_t)f, e) : -1;
    const uint32_t *a = corners(m, e), *b = j < 0 ? NULL : corners(m, (size_t)f);
    if (j < 0 || a[k] != b[(j + 1) % 3] || a[(k + 1) % 3] != b[j] || (m->order == 2 && a[3 + k] != b[3 + j]))
      return cl_error_set(err, CL_ERR_ARG,
                          "mesh2d topology: element %zu edge %zu and element %d do not see each other "
                          "across the same nodes",
                          e, k, f);
  }
  return CL_OK;
}

static int same_point(const cl_mesh2d *m, uint32_t a, uint32_t b) {
  return m->x[a] == m->x[b] && m->x[m->nnodes + a] == m->x[m->nnodes + b];
}

static cl_status check_one_cohesive(const cl_mesh2d *m, const cl_cohesive *q, size_t i, char *cracked,
                                    cl_error *err) {
  for (int s = 0; s < 2; s++) {
    size_t slot = 3 * (size_t)q->elem[s] + q->edge[s];
    if (q->elem[s] >= m->nelems || q->edge[s] > 2 || m->adj[slot] != -1 || cracked[slot])
      return cl_error_set(err, CL_ERR_ARG,
                          "mesh2d topology: cohesive %zu side %d (element %u edge %u) is out of range, "
                          "not open, or cracked twice",
                          i, s, q->elem[s], (unsigned)q->edge[s]);
    cracked[slot] = 1;
  }
  const uint32_t *a = corners(m, q->elem[0]), *b = corners(m, q->elem[1]);
  int k = q->edge[0], j = q->edge[1];
  if (!same_point(m, a[k], b[(j + 1) % 3]) || !same_point(m, a[(k + 1) % 3], b[j]) ||
      (m->order == 2 && !same_point(m, a[3 + k], b[3 + j])))
    return cl_error_set(err, CL_ERR_ARG, "mesh2d topology: cohesive %zu: the two sides' nodes do not coincide", i);
  return CL_OK;
}

static cl_status check_cohesive(const cl_mesh2d *m, const cl_cohesive_list *c, cl_error *err) {
  char *cracked = calloc(3 * m->nelems + 1, 1);
  if (!cracked) return cl_error_set(err, CL_ERR_OOM, "mesh2d topology: out of memory for %zu elements", m->nelems);
  cl_status st = CL_OK;
  for (size_t i = 0; i < c->n && st == CL_OK; i++) st = check_one_cohesive(m, &c->v[i], i, cracked, err);
  free(cracked);
  return st;
}

static size_t uf_find(size_t *parent, size_t a) {
  while (parent[a] != a) a = parent[a] = parent[parent[a]];
  return a;
}

static void uf_union(size_t *parent, size_t a, size_t b) { parent[uf_find(parent, a)] = uf_find(parent, b); }

/* Union-find over the incidences (element, local node): across each
 * uncracked facet, the incidences of its shared nodes are joined. Every
 * node's incidences must then form one set: its elements are connected
 * through uncracked edges at the node. */
static cl_status check_fans(const cl_mesh2d *m, cl_error *err) {
  size_t nper = cl_mesh2d_nper(m), nent = nper * m->nelems;
  size_t *parent = malloc((nent + 1) * sizeof *parent), *first = malloc((m->nnodes + 1) * sizeof *first);
  cl_status st = CL_OK;
  if (!parent || !first) st = cl_error_set(err, CL_ERR_OOM, "mesh2d topology: out of memory for %zu incidences", nent);
  for (size_t t = 0; t < nent && st == CL_OK; t++) parent[t] = t;
  for (size_t s = 0; s < 3 * m->nelems && st == CL_OK; s++) {
    size_t e = s / 3, k = s % 3, f;
    if (m->adj[s] < 0 || (f = (size_t)m->adj[s]) < e) continue;
    size_t j = (size_t)back_edge(m, f, e);
    uf_union(parent, e * nper + k, f * nper + (j + 1) % 3);
    uf_union(parent, e * nper + (k + 1) % 3, f * nper + j);
    if (nper == 6) uf_union(parent, e * nper + 3 + k, f * nper + 3 + j);
  }
  for (size_t i = 0; i < m->nnodes && st == CL_OK; i++) first[i] = SIZE_MAX;
  for (size_t t = 0; t < nent && st == CL_OK; t++) {
    uint32_t v = m->elem[t];
    if (first[v] == SIZE_MAX) first[v] = t;
    else if (uf_find(parent, first[v]) != uf_find(parent, t))
      st = cl_error_set(err, CL_ERR_ARG,
                        "mesh2d topology: node %u is shared by elements %zu and %zu, not connected through "
                        "uncracked edges around it",
                        v, first[v] / nper, t / nper);
  }
  free(parent), free(first);
  return st;
}

cl_status cl_mesh2d_topology_check(const cl_mesh2d *m, const cl_cohesive_list *c, cl_error *err) {
  CL_TRY(check_nodes(m, err));
  CL_TRY(check_adjacency(m, err));
  CL_TRY(check_cohesive(m, c, err));
  return check_fans(m, err);
}
