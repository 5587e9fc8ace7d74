/* DDA contact detection and transfer (contacts.h). Every pass runs in parallel on the host
 * (OpenMP) and writes its results in a fixed order: counts, a prefix sum, then each item's
 * results at its offset, so the lists are the same, bit for bit, whatever the threads. */
#include "contacts.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "broad.h"
#include "host_parallel.h"
#include "transfer_ops.h"

static int int32_cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

/* The k-th smallest of x[0..n) (x is reordered): selection by three-way partitions, O(n) on average. */
static double select_kth(double *x, size_t n, size_t k) {
  size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    double pivot = x[lo + (hi - lo) / 2], t;
    size_t lt = lo, i = lo, gt = hi; /* [lo, lt) < pivot, [lt, i) = pivot, [gt, hi) > pivot */
    while (i < gt) {
      if (x[i] < pivot) t = x[lt], x[lt++] = x[i], x[i++] = t;
      else if (x[i] > pivot) t = x[--gt], x[gt] = x[i], x[i] = t;
      else i++;
    }
    if (k < lt) hi = lt;
    else if (k >= gt) lo = gt;
    else return pivot;
  }
  return x[lo];
}

/* Exclusive prefix sum of c[0..n) in place; returns the total. */
static size_t prefix_sum(size_t *c, size_t n) {
  size_t total = 0;
  for (size_t k = 0; k < n; k++) {
    size_t t = c[k];
    c[k] = total, total += t;
  }
  return total;
}

/* Room in *pairs (capacity *cap pairs) for want pairs. */
static cl_status pairs_room(int32_t **pairs, size_t *cap, size_t want, cl_error *err) {
  if (want <= *cap) return CL_OK;
  int32_t *p = realloc(*pairs, 2 * want * sizeof *p);
  if (!p) return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu candidate pairs", want);
  *pairs = p, *cap = want;
  return CL_OK;
}

/* The candidate pairs of the n boxes (cl_dda_broad_phase's list, of any boxes). */
static cl_status pairs_of_boxes(const cl_dda_box *boxes, size_t n, int32_t **pairs, size_t *npairs, size_t *cap,
                                cl_error *err) {
  *npairs = 0;
  double *size = malloc(n * sizeof *size);
  size_t *count = malloc((n + 1) * sizeof *count);
  if (!size || !count) {
    free(size), free(count);
    return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu blocks", n);
  }
  double ax0 = INFINITY, ay0 = INFINITY, ax1 = -INFINITY, ay1 = -INFINITY;
#pragma omp parallel for schedule(static) reduction(min : ax0, ay0) reduction(max : ax1, ay1) \
    if (n >= CL_DDA_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) {
    const cl_dda_box b = boxes[i];
    ax0 = fmin(ax0, b.x0), ay0 = fmin(ay0, b.y0), ax1 = fmax(ax1, b.x1), ay1 = fmax(ay1, b.y1);
    size[i] = fmax(b.x1 - b.x0, b.y1 - b.y0);
  }
  cl_dda_box all = {ax0, ay0, ax1, ay1};
  cl_dda_cells gr = cl_dda_cells_over(all, select_kth(size, n, n / 2), n);
  free(size);
  size_t ncells = gr.nx * gr.ny;
  int64_t *start = calloc(ncells + 1, sizeof *start);
  int32_t *in_cell = NULL;
  if (!start) {
    free(count);
    return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu cells", ncells);
  }
  /* the blocks binned by a counting sort: each cell's blocks in ascending order */
  for (size_t i = 0; i < n; i++) {
    size_t x0, x1, y0, y1;
    cl_dda_cell_range(&gr, boxes[i], &x0, &x1, &y0, &y1);
    for (size_t y = y0; y <= y1; y++)
      for (size_t x = x0; x <= x1; x++) start[y * gr.nx + x + 1]++;
  }
  for (size_t c = 0; c < ncells; c++) start[c + 1] += start[c];
  size_t entries = (size_t)start[ncells];
  in_cell = malloc((entries ? entries : 1) * sizeof *in_cell);
  int64_t *fill = malloc((ncells ? ncells : 1) * sizeof *fill);
  if (!in_cell || !fill) {
    free(count), free(start), free(in_cell), free(fill);
    return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu cell entries", entries);
  }
  memcpy(fill, start, ncells * sizeof *fill);
  for (size_t i = 0; i < n; i++) {
    size_t x0, x1, y0, y1;
    cl_dda_cell_range(&gr, boxes[i], &x0, &x1, &y0, &y1);
    for (size_t y = y0; y <= y1; y++)
      for (size_t x = x0; x <= x1; x++) in_cell[fill[y * gr.nx + x]++] = (int32_t)i;
  }
  free(fill);
  gr.start = start, gr.in_cell = in_cell;
  /* each block's partners j > i counted, then written at the prefix sum's offsets and sorted: the
   * list in the order of the blocks, the same whatever the cells and the threads */
#pragma omp parallel for schedule(dynamic, 64) if (n >= CL_DDA_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) count[i] = (size_t)cl_dda_partners(&gr, boxes, (int32_t)i, NULL);
  size_t total = prefix_sum(count, n);
  count[n] = total;
  cl_status st = pairs_room(pairs, cap, total, err);
  if (st == CL_OK) {
    int32_t *out = *pairs;
#pragma omp parallel for schedule(dynamic, 64) if (n >= CL_DDA_PARALLEL_MIN)
    for (size_t i = 0; i < n; i++) {
      /* the partners go to the second half of this block's stretch, then out as (i, j) */
      size_t c = count[i], m = count[i + 1] - c;
      int32_t *j = out + 2 * c + m;
      cl_dda_partners(&gr, boxes, (int32_t)i, j);
      qsort(j, m, sizeof *j, int32_cmp);
      for (size_t k = 0; k < m; k++) out[2 * (c + k)] = (int32_t)i, out[2 * (c + k) + 1] = j[k];
    }
    *npairs = total;
  }
  free(count), free(start), free(in_cell);
  return st;
}

cl_status cl_dda_broad_phase(const cl_dda_geometry *g, double d0, int32_t **pairs, size_t *npairs, size_t *cap,
                             cl_error *err) {
  size_t n = g->n;
  *npairs = 0;
  if (n < 2) return CL_OK;
  cl_dda_box *boxes = malloc(n * sizeof *boxes);
  if (!boxes) return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu blocks", n);
#pragma omp parallel for schedule(static) if (n >= CL_DDA_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) boxes[i] = cl_dda_block_box(g, (int32_t)i, d0 / 2);
  cl_status st = pairs_of_boxes(boxes, n, pairs, npairs, cap, err);
  free(boxes);
  return st;
}

/* The kept pairs whose boxes now overlap, into *pairs, if every box (now) lies inside its kept box
 * (*kept = 1; see detect.c's reuse for why that suffices and gives cl_dda_broad_phase's list). */
static cl_status reuse_kept(const cl_dda_geometry *g, double d0, cl_dda_kept_pairs *k, int32_t **pairs,
                            size_t *npairs, size_t *cap, int *kept, cl_error *err) {
  const size_t n = g->n;
  int inside = 1;
#pragma omp parallel for schedule(static) reduction(&& : inside) if (n >= CL_DDA_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) {
    k->now[i] = cl_dda_block_box(g, (int32_t)i, d0 / 2);
    inside = inside && cl_dda_box_inside(k->now[i], k->kept[i]);
  }
  *kept = inside;
  if (!inside) return CL_OK;
  CL_TRY(pairs_room(pairs, cap, k->npairs, err));
  size_t m = 0;
  for (size_t p = 0; p < k->npairs; p++) {
    const int32_t i = k->pairs[2 * p], j = k->pairs[2 * p + 1];
    if (cl_dda_boxes_overlap(k->now[i], k->now[j])) (*pairs)[2 * m] = i, (*pairs)[2 * m + 1] = j, m++;
  }
  *npairs = m;
  return CL_OK;
}

cl_status cl_dda_broad_phase_kept(const cl_dda_geometry *g, double d0, cl_dda_kept_pairs *k, int32_t **pairs,
                                  size_t *npairs, size_t *cap, cl_error *err) {
  const size_t n = g->n;
  int kept = 0;
  *npairs = 0;
  if (n < 2) return CL_OK;
  if (k->skin > 0 && k->n == n) CL_TRY(reuse_kept(g, d0, k, pairs, npairs, cap, &kept, err));
  if (kept) return CL_OK;
  k->builds++, k->n = 0;
  if (!(k->skin > 0)) return cl_dda_broad_phase(g, d0, pairs, npairs, cap, err);
  cl_dda_box *kb = realloc(k->kept, n * sizeof *kb), *now = kb ? realloc(k->now, n * sizeof *now) : NULL;
  if (kb) k->kept = kb;
  if (now) k->now = now;
  if (!kb || !now) return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu blocks", n);
#pragma omp parallel for schedule(static) if (n >= CL_DDA_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) k->kept[i] = cl_dda_block_box(g, (int32_t)i, d0 / 2 + k->skin / 2);
  CL_TRY(pairs_of_boxes(k->kept, n, &k->pairs, &k->npairs, &k->cap, err));
  k->n = n;
  /* each box lies inside itself grown further -- unless a coordinate is not finite (a step gone
   * wrong, which its checks refuse): then the list without reuse */
  CL_TRY(reuse_kept(g, d0, k, pairs, npairs, cap, &kept, err));
  if (kept) return CL_OK;
  k->n = 0;
  return cl_dda_broad_phase(g, d0, pairs, npairs, cap, err);
}

void cl_dda_kept_pairs_free(cl_dda_kept_pairs *k) {
  free(k->kept), free(k->now), free(k->pairs);
  memset(k, 0, sizeof *k);
}

/* ---- narrow phase ------------------------------------------------------------ */

static int key_cmp(const void *x, const void *y) {
  const cl_dda_contact *a = x, *b = y;
  if (a->bi != b->bi) return a->bi < b->bi ? -1 : 1;
  if (a->vi != b->vi) return a->vi < b->vi ? -1 : 1;
  if (a->bj != b->bj) return a->bj < b->bj ? -1 : 1;
  if (a->ej != b->ej) return a->ej < b->ej ? -1 : 1;
  return 0;
}

/* The order of the found contacts by key (vertex block, vertex, edge block, edge), stable (equal
 * keys keep the detection's order): a vertex's index orders its block too, an edge's its block,
 * so a counting sort on the vertex, then each vertex's few contacts by insertion on the edge. */
static int key_order(const cl_dda_found *f, size_t m, size_t nv, size_t *order) {
  size_t *start = calloc(nv + 1, sizeof *start);
  if (!start) return 0;
  for (size_t k = 0; k < m; k++) start[f[k].vi + 1]++;
  for (size_t v = 0; v < nv; v++) start[v + 1] += start[v];
  for (size_t k = 0; k < m; k++) order[start[f[k].vi]++] = k; /* start[v] moves to v + 1's */
#pragma omp parallel for schedule(static) if (nv >= CL_DDA_PARALLEL_MIN)
  for (size_t v = 0; v < nv; v++) {
    size_t lo = v ? start[v - 1] : 0;
    for (size_t k = lo + 1; k < start[v]; k++) {
      size_t x = order[k], p = k;
      for (; p > lo && f[order[p - 1]].ej > f[x].ej; p--) order[p] = order[p - 1];
      order[p] = x;
    }
  }
  free(start);
  return 1;
}

/* The narrow phase's unit of parallel work: a fixed number of pairs, so that the list does not
 * depend on the threads; each chunk's contacts go to its own buffer, in the pairs' order. */
#define PAIRS_PER_CHUNK 256

typedef struct chunk {
  cl_dda_found *f;
  size_t n, cap;
} chunk;

/* The contacts of pairs [k0, k1) into c, its buffer grown (and a pair's search run again) when a
 * pair finds more than the room left; 0 when out of memory. */
static int chunk_contacts(const cl_dda_geometry *g, const int32_t *pairs, size_t k0, size_t k1, double d0, chunk *c) {
  c->n = 0;
  for (size_t k = k0; k < k1; k++)
    for (;;) {
      size_t room = c->cap - c->n;
      int got = cl_dda_pair_contacts(g, pairs[2 * k], pairs[2 * k + 1], d0, c->f ? c->f + c->n : NULL,
                                     room < INT_MAX ? (int)room : INT_MAX);
      if ((size_t)got <= room) {
        c->n += (size_t)got;
        break;
      }
      size_t cap = 2 * (c->n + (size_t)got) + 8 * (k1 - k);
      cl_dda_found *f = realloc(c->f, cap * sizeof *f);
      if (!f) return 0;
      c->f = f, c->cap = cap;
    }
  return 1;
}

/* The contacts of the pairs, in the pairs' order, into *found (m of them); 0 when out of memory. */
static int host_found(const cl_dda_geometry *g, const int32_t *pairs, size_t npairs, double d0, cl_dda_found **found,
                      size_t *m) {
  size_t nchunks = (npairs + PAIRS_PER_CHUNK - 1) / PAIRS_PER_CHUNK;
  chunk *chunks = calloc(nchunks ? nchunks : 1, sizeof *chunks);
  size_t *at = malloc((nchunks ? nchunks : 1) * sizeof *at);
  int ok = chunks && at;
  *found = NULL, *m = 0;
  if (ok) {
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(|| : failed) if (npairs >= CL_DDA_PARALLEL_MIN)
    for (size_t c = 0; c < nchunks; c++) {
      size_t k0 = c * PAIRS_PER_CHUNK, k1 = k0 + PAIRS_PER_CHUNK < npairs ? k0 + PAIRS_PER_CHUNK : npairs;
      failed = failed || !chunk_contacts(g, pairs, k0, k1, d0, &chunks[c]);
    }
    ok = !failed;
  }
  if (ok) { /* the chunks one after the other, at a prefix sum's offsets */
    for (size_t c = 0; c < nchunks; c++) at[c] = chunks[c].n;
    *m = prefix_sum(at, nchunks);
    ok = (*found = malloc((*m ? *m : 1) * sizeof **found)) != NULL;
  }
  if (ok) {
#pragma omp parallel for schedule(static) if (npairs >= CL_DDA_PARALLEL_MIN)
    for (size_t c = 0; c < nchunks; c++)
      if (chunks[c].n) memcpy(*found + at[c], chunks[c].f, chunks[c].n * sizeof **found);
  }
  for (size_t c = 0; chunks && c < nchunks; c++) free(chunks[c].f);
  free(chunks), free(at);
  return ok;
}

cl_status cl_dda_narrow_phase(const cl_dda_geometry *g, const int32_t *pairs, size_t npairs, double d0,
                              cl_dda_contact_list *prev, int first, cl_dda_contact_list *out, cl_error *err) {
  cl_dda_found *found;
  size_t m;
  out->count = 0;
  if (!host_found(g, pairs, npairs, d0, &found, &m)) {
    free(found);
    return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu candidate pairs' contacts",
                        npairs);
  }
  cl_status st = cl_dda_transfer(g, found, m, prev, first, out, err);
  free(found);
  return st;
}

cl_status cl_dda_transfer(const cl_dda_geometry *g, const cl_dda_found *found, size_t m, cl_dda_contact_list *prev,
                          int first, cl_dda_contact_list *out, cl_error *err) {
  out->count = 0;
  const size_t nv = (size_t)g->vstart[g->n];
  size_t *order = malloc((m ? m : 1) * sizeof *order);
  int64_t *prev_keys = malloc((prev->count ? prev->count : 1) * sizeof *prev_keys);
  int ok = order && prev_keys;
  if (ok && m > out->cap) {
    cl_dda_contact *c = realloc(out->c, m * sizeof *c);
    if (c) out->c = c, out->cap = m;
    else ok = 0;
  }
  if (ok) ok = key_order(found, m, nv, order);
  if (!ok) {
    free(prev_keys), free(order);
    return cl_error_set(err, CL_ERR_OOM, "DDA contact detection: out of memory for %zu contacts", m);
  }
  /* the previous step's list is this function's output, already in key order */
  int sorted = 1;
#pragma omp parallel for schedule(static) reduction(&& : sorted) if (prev->count >= CL_DDA_PARALLEL_MIN)
  for (size_t k = 0; k < prev->count; k++) {
    prev_keys[k] = cl_dda_contact_key(prev->c[k].vi, prev->c[k].ej, nv);
    sorted = sorted && (k == 0 || key_cmp(&prev->c[k - 1], &prev->c[k]) <= 0);
  }
  if (!sorted) {
    qsort(prev->c, prev->count, sizeof *prev->c, key_cmp);
    for (size_t k = 0; k < prev->count; k++) prev_keys[k] = cl_dda_contact_key(prev->c[k].vi, prev->c[k].ej, nv);
  }
#pragma omp parallel for schedule(static) if (m >= CL_DDA_PARALLEL_MIN)
  for (size_t k = 0; k < m; k++) {
    const cl_dda_found *f = &found[order[k]];
    cl_dda_contact *c = &out->c[k];
    memset(c, 0, sizeof *c);
    c->bi = f->bi, c->vi = f->vi, c->bj = f->bj, c->ej = f->ej, c->kind = f->kind, c->t_ref = f->t, c->sgn = 1;
    c->length = f->length;
    ptrdiff_t at = cl_dda_find_key(prev_keys, prev->count, cl_dda_contact_key(c->vi, c->ej, nv));
    if (at >= 0) {
      const cl_dda_contact *old = &prev->c[at];
      c->state = old->state, c->bonded = old->bonded, c->t_ref = old->t_ref, c->sgn = old->sgn;
      c->N = old->N, c->S = old->S;
    } else {
      double t;
      c->state = cl_dda_edge_gap(g, c->vi, c->bj, c->ej, &t) <= 0 ? CL_DDA_LOCK : CL_DDA_OPEN;
      c->bonded = first;
    }
  }
  out->count = m;
  free(order), free(prev_keys);
  return CL_OK;
}

void cl_dda_contact_list_free(cl_dda_contact_list *l) {
  free(l->c);
  memset(l, 0, sizeof *l);
}
