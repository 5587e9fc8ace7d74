/* DDA contact detection on a device (detect.h). */
#include "detect.h"

#include <string.h>

#include "../../runtime/field.h"
#include "../dispatch.h"
#include "contact_kernels.h"

void cl_dda_detect_init(cl_dda_detect *s, cl_device *d) {
  memset(s, 0, sizeof *s);
  s->d = d;
}

void cl_dda_detect_free(cl_dda_detect *s) {
  for (int k = 0; k < CL_DDA_DB_N; k++)
    if (s->buf[k]) s->d->release(s->d, s->buf[k]);
  if (s->scratch.p) s->d->release(s->d, s->scratch.p);
  memset(s, 0, sizeof *s);
}

/* Buffer k with room for bytes; a quarter more when it grows, so that a list growing by a few
 * items a step does not reallocate every step. Its contents are not kept. */
static cl_status room(cl_dda_detect *s, int k, size_t bytes, cl_error *err) {
  if (bytes <= s->cap[k] && s->buf[k]) return CL_OK;
  if (s->buf[k]) s->d->release(s->d, s->buf[k]);
  s->buf[k] = NULL, s->cap[k] = 0;
  size_t cap = bytes + bytes / 4;
  CL_TRY(s->d->alloc(s->d, &s->buf[k], cap ? cap : 8, err));
  s->cap[k] = cap;
  return CL_OK;
}

/* The union of the boxes and their median size (as the host's select_kth: the (n / 2)-th smallest),
 * the grid the host's broad phase would make of them: the sizes sorted, then the union's four
 * reductions and the median read back together, the median as a one-item min (a size key is the
 * bits of the size, so it reads as the size itself). */
static cl_status grid_of(cl_dda_detect *s, const cl_dda_broad_args *a, size_t n, cl_dda_cells *gr, cl_error *err) {
  cl_device *d = s->d;
  uint64_t *sorted = s->buf[CL_DDA_DB_SORTED_SIZES];
  CL_TRY(cl_k_dda_sort_keys(d, &s->scratch, a->size_keys, sorted, n, UINT64_MAX, err));
  double b[5];
  const int op[5] = {CL_REDUCE_MIN, CL_REDUCE_MIN, CL_REDUCE_MAX, CL_REDUCE_MAX, CL_REDUCE_MIN};
  const double *bounds = a->bounds;
  const double *terms[5] = {bounds, bounds + n, bounds + 2 * n, bounds + 3 * n, (const double *)(sorted + n / 2)};
  const size_t count[5] = {n, n, n, n, 1};
  CL_TRY(cl_k_reduce_many(d, 5, terms, count, op, b, err));
  cl_dda_box all = {b[0], b[1], b[2], b[3]};
  *gr = cl_dda_cells_over(all, b[4], n);
  return CL_OK;
}

/* The candidate pairs of boxes grown by `grow` (their bounds in box_buf) into pair_buf, *npairs of
 * them, as the host's cl_dda_broad_phase finds them. */
static cl_status build(cl_dda_detect *s, const cl_dda_geometry *g, double grow, int box_buf, int pair_buf,
                       size_t *npairs_out, cl_error *err) {
  cl_device *d = s->d;
  size_t n = g->n;
  CL_TRY(room(s, box_buf, n * sizeof(cl_dda_box), err));
  CL_TRY(room(s, CL_DDA_DB_BOUNDS, 4 * n * sizeof(double), err));
  CL_TRY(room(s, CL_DDA_DB_SIZES, n * sizeof(uint64_t), err));
  CL_TRY(room(s, CL_DDA_DB_SORTED_SIZES, n * sizeof(uint64_t), err));
  CL_TRY(room(s, CL_DDA_DB_COUNT, n * sizeof(int64_t), err));
  CL_TRY(room(s, CL_DDA_DB_OFFSET, (n + 1) * sizeof(int64_t), err));
  cl_dda_broad_args a = {.g = *g, .grow = grow, .boxes = s->buf[box_buf], .bounds = s->buf[CL_DDA_DB_BOUNDS],
                         .size_keys = s->buf[CL_DDA_DB_SIZES], .count = s->buf[CL_DDA_DB_COUNT],
                         .offset = s->buf[CL_DDA_DB_OFFSET]};
  CL_TRY(cl_k_dda_broad(d, &a, CL_DDA_BOXES, n, err));
  CL_TRY(grid_of(s, &a, n, &a.cells, err));
  /* the cells' entries: counted, offset, written as keys (cell, block) and sorted, so that each
   * cell's blocks come in ascending order, as the host's counting sort leaves them */
  size_t ncells = a.cells.nx * a.cells.ny;
  int64_t entries, npairs;
  CL_TRY(cl_k_dda_broad(d, &a, CL_DDA_CELL_COUNT, n, err));
  CL_TRY(cl_k_dda_offsets(d, &s->scratch, a.count, s->buf[CL_DDA_DB_OFFSET], n, &entries, err));
  CL_TRY(room(s, CL_DDA_DB_KEYS, (size_t)entries * sizeof(uint64_t), err));
  CL_TRY(room(s, CL_DDA_DB_SORTED, (size_t)entries * sizeof(uint64_t), err));
  CL_TRY(room(s, CL_DDA_DB_START, (ncells + 1) * sizeof(int64_t), err));
  CL_TRY(room(s, CL_DDA_DB_IN_CELL, (size_t)entries * sizeof(int32_t), err));
  a.keys = s->buf[CL_DDA_DB_KEYS], a.sorted = s->buf[CL_DDA_DB_SORTED];
  a.start = s->buf[CL_DDA_DB_START], a.in_cell = s->buf[CL_DDA_DB_IN_CELL], a.entries = (size_t)entries;
  CL_TRY(cl_k_dda_broad(d, &a, CL_DDA_CELL_WRITE, n, err));
  CL_TRY(cl_k_dda_sort_keys(d, &s->scratch, a.keys, s->buf[CL_DDA_DB_SORTED], (size_t)entries,
                            (uint64_t)ncells * n - 1, err));
  CL_TRY(cl_k_dda_broad(d, &a, CL_DDA_CELL_START, ncells + 1, err));
  CL_TRY(cl_k_dda_broad(d, &a, CL_DDA_CELL_SPLIT, (size_t)entries, err));
  a.cells.start = a.start, a.cells.in_cell = a.in_cell;
  /* each block's partners j > i: counted, offset, written as keys (i, j) and sorted */
  CL_TRY(cl_k_dda_broad(d, &a, CL_DDA_PAIR_COUNT, n, err));
  CL_TRY(cl_k_dda_offsets(d, &s->scratch, a.count, s->buf[CL_DDA_DB_OFFSET], n, &npairs, err));
  CL_TRY(room(s, CL_DDA_DB_KEYS, (size_t)npairs * sizeof(uint64_t), err));
  CL_TRY(room(s, CL_DDA_DB_SORTED, (size_t)npairs * sizeof(uint64_t), err));
  CL_TRY(room(s, pair_buf, 2 * (size_t)npairs * sizeof(int32_t), err));
  a.keys = s->buf[CL_DDA_DB_KEYS], a.sorted = s->buf[CL_DDA_DB_SORTED], a.pairs = s->buf[pair_buf];
  CL_TRY(cl_k_dda_broad(d, &a, CL_DDA_PAIR_WRITE, n, err));
  CL_TRY(cl_k_dda_sort_keys(d, &s->scratch, a.keys, s->buf[CL_DDA_DB_SORTED], (size_t)npairs,
                            (uint64_t)n * n - 1, err));
  CL_TRY(cl_k_dda_broad(d, &a, CL_DDA_PAIR_SPLIT, (size_t)npairs, err));
  *npairs_out = (size_t)npairs;
  return CL_OK;
}

/* The kept pairs whose boxes, grown by d0 / 2, overlap now, into the pairs buffer -- if every block's
 * box so grown lies inside its kept box (*kept = 1; else nothing is written). That suffices: two
 * boxes that overlap lie inside two kept boxes that overlap, and the kept list holds every pair of
 * those (the same comparisons of the same doubles, so it holds in floating point too). The kept
 * list is sorted, so is what passes: the list cl_dda_broad_phase would give, in its order. One
 * wait: the containment and the filter's count come back as one total (CL_DDA_KEPT_CHECK). */
static cl_status reuse(cl_dda_detect *s, const cl_dda_geometry *g, double d0, int *kept, cl_error *err) {
  const size_t n = g->n, nkept = s->nkept;
  CL_TRY(room(s, CL_DDA_DB_BOXES, n * sizeof(cl_dda_box), err));
  CL_TRY(room(s, CL_DDA_DB_COUNT, (nkept + n) * sizeof(int64_t), err));
  CL_TRY(room(s, CL_DDA_DB_OFFSET, (nkept + n + 1) * sizeof(int64_t), err));
  CL_TRY(room(s, CL_DDA_DB_PAIRS, 2 * nkept * sizeof(int32_t), err));
  cl_dda_broad_args a = {.g = *g, .grow = d0 / 2, .boxes = s->buf[CL_DDA_DB_BOXES], .count = s->buf[CL_DDA_DB_COUNT],
                         .offset = s->buf[CL_DDA_DB_OFFSET], .pairs = s->buf[CL_DDA_DB_PAIRS],
                         .kept = s->buf[CL_DDA_DB_KEPT], .kept_pairs = s->buf[CL_DDA_DB_KEPT_PAIRS], .nkept = nkept};
  int64_t total;
  CL_TRY(cl_k_dda_broad(s->d, &a, CL_DDA_KEPT_CHECK, n, err));
  CL_TRY(cl_k_dda_broad(s->d, &a, CL_DDA_KEPT_COUNT, nkept, err));
  CL_TRY(cl_k_dda_offsets(s->d, &s->scratch, a.count, s->buf[CL_DDA_DB_OFFSET], nkept + n, &total, err));
  *kept = (size_t)total <= nkept;
  if (!*kept) return CL_OK;
  CL_TRY(cl_k_dda_broad(s->d, &a, CL_DDA_KEPT_WRITE, nkept, err));
  s->npairs = (size_t)total;
  return CL_OK;
}

cl_status cl_dda_detect_pairs(cl_dda_detect *s, const cl_dda_geometry *g, double d0, cl_error *err) {
  const size_t n = g->n;
  int kept = 0;
  s->npairs = 0;
  if (n < 2) return CL_OK;
  if (s->skin > 0 && s->kept_n == n) CL_TRY(reuse(s, g, d0, &kept, err));
  if (kept) return CL_OK;
  s->builds++, s->kept_n = 0;
  if (s->skin > 0) {
    CL_TRY(build(s, g, d0 / 2 + s->skin / 2, CL_DDA_DB_KEPT, CL_DDA_DB_KEPT_PAIRS, &s->nkept, err));
    s->kept_n = n;
    /* each box lies inside itself grown further -- unless a coordinate is not finite (a step gone
     * wrong, which its checks refuse): then the list without reuse */
    CL_TRY(reuse(s, g, d0, &kept, err));
    if (kept) return CL_OK;
    s->kept_n = 0;
  }
  return build(s, g, d0 / 2, CL_DDA_DB_BOXES, CL_DDA_DB_PAIRS, &s->npairs, err);
}

cl_status cl_dda_detect_found(cl_dda_detect *s, const cl_dda_geometry *g, const int32_t *pairs, size_t npairs,
                              double d0, cl_error *err) {
  cl_device *d = s->d;
  if (pairs) {
    CL_TRY(room(s, CL_DDA_DB_PAIRS, 2 * npairs * sizeof *pairs, err));
    if (npairs) CL_TRY(d->to_device(d, s->buf[CL_DDA_DB_PAIRS], pairs, 2 * npairs * sizeof *pairs, err));
    s->npairs = npairs;
  }
  npairs = s->npairs;
  s->nfound = 0;
  if (npairs == 0) return CL_OK;
  /* the count buffer holds the pairs' counts, then the count pass's bits for the write pass */
  CL_TRY(room(s, CL_DDA_DB_COUNT, npairs * (sizeof(int64_t) + sizeof(uint64_t)), err));
  CL_TRY(room(s, CL_DDA_DB_OFFSET, (npairs + 1) * sizeof(int64_t), err));
  int64_t *count = s->buf[CL_DDA_DB_COUNT];
  cl_dda_narrow_args a = {*g, s->buf[CL_DDA_DB_PAIRS], npairs, d0, count, (uint64_t *)(count + npairs), NULL, NULL};
  int64_t total;
  CL_TRY(cl_k_dda_narrow(d, &a, err));
  CL_TRY(cl_k_dda_offsets(d, &s->scratch, a.count, s->buf[CL_DDA_DB_OFFSET], npairs, &total, err));
  CL_TRY(room(s, CL_DDA_DB_FOUND, (size_t)total * sizeof(cl_dda_found), err));
  a.count = NULL, a.offset = s->buf[CL_DDA_DB_OFFSET], a.out = s->buf[CL_DDA_DB_FOUND];
  if (total) CL_TRY(cl_k_dda_narrow(d, &a, err));
  s->nfound = (size_t)total;
  return CL_OK;
}

cl_status cl_dda_detect_pairs_to_host(cl_dda_detect *s, int32_t *pairs, cl_error *err) {
  if (s->npairs == 0) return CL_OK;
  return s->d->to_host(s->d, pairs, s->buf[CL_DDA_DB_PAIRS], 2 * s->npairs * sizeof *pairs, err);
}

cl_status cl_dda_detect_found_to_host(cl_dda_detect *s, cl_dda_found *found, cl_error *err) {
  if (s->nfound == 0) return CL_OK;
  return s->d->to_host(s->d, found, s->buf[CL_DDA_DB_FOUND], s->nfound * sizeof *found, err);
}

/* The keys found compared with the last transfer's (the same count), one pass and a reduction read
 * back: whether they are the same keys in the same order (*same). */
static cl_status same_keys(cl_dda_detect *s, cl_dda_transfer_args *a, int *same, cl_error *err) {
  double largest;
  a->last_keys = s->buf[CL_DDA_DB_LAST_KEYS];
  a->differ = (double *)a->keys + a->nfound; /* the sorted keys' room, free before the sort */
  CL_TRY(cl_k_dda_transfer(s->d, a, CL_DDA_TRANSFER_KEYS, err));
  CL_TRY(cl_k_reduce(s->d, CL_F64, a->differ, a->nfound, CL_REDUCE_MAX, &largest, err));
  *same = largest == 0;
  return CL_OK;
}

cl_status cl_dda_detect_transfer(cl_dda_detect *s, const cl_dda_geometry *g, size_t nv, const cl_dda_device_list *prev,
                                 size_t nprev, int first, const cl_dda_device_list *out, cl_error *err) {
  const size_t nfound = s->nfound, last = s->last_nfound;
  s->last_nfound = 0; /* until this transfer's keys and order are complete */
  if (nfound == 0) return CL_OK;
  CL_TRY(room(s, CL_DDA_DB_TKEYS, 2 * nfound * sizeof(uint64_t), err));
  uint64_t *keys = s->buf[CL_DDA_DB_TKEYS];
  cl_dda_transfer_args a = {.g = *g, .nv = nv, .nfound = nfound, .npairs = s->npairs, .nprev = nprev, .first = first,
                            .found = s->buf[CL_DDA_DB_FOUND], .pairs = s->buf[CL_DDA_DB_PAIRS],
                            .offset = s->buf[CL_DDA_DB_OFFSET], .keys = keys, .sorted = keys + nfound,
                            .prev = *prev, .out = *out};
  if (s->shortcut && last == nfound) CL_TRY(same_keys(s, &a, &a.shortcut, err));
  else CL_TRY(cl_k_dda_transfer(s->d, &a, CL_DDA_TRANSFER_KEYS, err));
  if (!a.shortcut) {
    CL_TRY(room(s, CL_DDA_DB_PERM, nfound * sizeof(int64_t), err));
    CL_TRY(cl_k_dda_sort_keys(s->d, &s->scratch, keys, keys + nfound, nfound,
                              (uint64_t)cl_dda_contact_key((int32_t)nv - 1, (int32_t)nv - 1, nv), err));
  }
  a.perm = s->buf[CL_DDA_DB_PERM];
  CL_TRY(cl_k_dda_transfer(s->d, &a, CL_DDA_TRANSFER_FILL, err));
  s->shortcuts += a.shortcut;
  /* this transfer's keys become the last (the buffers swap: the old ones are the next keys' room) */
  void *p = s->buf[CL_DDA_DB_TKEYS];
  const size_t cap = s->cap[CL_DDA_DB_TKEYS];
  s->buf[CL_DDA_DB_TKEYS] = s->buf[CL_DDA_DB_LAST_KEYS], s->cap[CL_DDA_DB_TKEYS] = s->cap[CL_DDA_DB_LAST_KEYS];
  s->buf[CL_DDA_DB_LAST_KEYS] = p, s->cap[CL_DDA_DB_LAST_KEYS] = cap;
  s->last_nfound = nfound;
  return CL_OK;
}
