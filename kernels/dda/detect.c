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
  if (s->totals) s->d->host_release(s->d, s->totals);
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

/* The device's operations, counted as the solver counts its own (pcg.c): a pass, a fill, a sort or a
 * device copy one launch, a scan three (offset[0]'s fill, the scan, the copy of its total); a
 * transfer either way one host wait. */
static cl_status pass(cl_dda_detect *s, const cl_dda_broad_args *a, int p, size_t items, cl_error *err) {
  s->launches++;
  return cl_k_dda_broad(s->d, a, p, items, err);
}

static cl_status sort(cl_dda_detect *s, uint64_t *keys, uint64_t *sorted, size_t n, uint64_t max_key, cl_error *err) {
  s->launches++;
  return cl_k_dda_sort_keys(s->d, &s->scratch, keys, sorted, n, max_key, err);
}

/* The offsets of n counts, the total into list's slot of the device's totals. */
static cl_status scan(cl_dda_detect *s, const int64_t *count, int64_t *offset, size_t n, int list, cl_error *err) {
  s->launches += 3;
  return cl_k_dda_scan(s->d, &s->scratch, count, offset, n, (int64_t *)s->buf[CL_DDA_DB_TOTALS] + list, err);
}

/* keys[0 .. n) = CL_DDA_NO_KEY: the slots that a write pass leaves sort last. */
static cl_status no_keys(cl_dda_detect *s, uint64_t *keys, size_t n, cl_error *err) {
  s->launches++;
  return cl_k_fill(s->d, CL_U32, keys, 2 * n, (double)UINT32_MAX, err);
}

/* The broad phase of s->g queued: the cell entries and the pairs into their rooms, their lengths
 * left on the device (CL_DDA_DB_TOTALS). */
static cl_status queue_pairs(cl_dda_detect *s, cl_error *err) {
  size_t n = s->g.n;
  CL_TRY(room(s, CL_DDA_DB_BOXES, n * sizeof(cl_dda_box), err));
  CL_TRY(room(s, CL_DDA_DB_GRID, sizeof(cl_dda_cells), err));
  CL_TRY(room(s, CL_DDA_DB_SIZES, n * sizeof(uint64_t), err));
  CL_TRY(room(s, CL_DDA_DB_SORTED_SIZES, n * sizeof(uint64_t), err));
  CL_TRY(room(s, CL_DDA_DB_COUNT, n * sizeof(int64_t), err));
  CL_TRY(room(s, CL_DDA_DB_OFFSET, (n + 1) * sizeof(int64_t), err));
  cl_dda_broad_args a = {.g = s->g, .grow = s->d0 / 2, .boxes = s->buf[CL_DDA_DB_BOXES],
                         .size_keys = s->buf[CL_DDA_DB_SIZES], .sorted_sizes = s->buf[CL_DDA_DB_SORTED_SIZES],
                         .grid = s->buf[CL_DDA_DB_GRID], .count = s->buf[CL_DDA_DB_COUNT],
                         .offset = s->buf[CL_DDA_DB_OFFSET]};
  /* the boxes, their sizes sorted, the grid of their union and median size (the host's broad phase's)
   * written on the device: the host knows only that it has at most 4 n cells (cl_dda_cells_over), and
   * the passes over the cells run over that many */
  CL_TRY(pass(s, &a, CL_DDA_BOXES, n, err));
  CL_TRY(sort(s, a.size_keys, s->buf[CL_DDA_DB_SORTED_SIZES], n, UINT64_MAX, err));
  s->launches++;
  CL_TRY(cl_k_dda_grid(s->d, &a, err));
  const size_t ncells = 4 * n, entries = s->room[CL_DDA_LIST_ENTRIES];
  const size_t pairs = s->room[CL_DDA_LIST_PAIRS], keys = entries > pairs ? entries : pairs;
  CL_TRY(room(s, CL_DDA_DB_KEYS, keys * sizeof(uint64_t), err));
  CL_TRY(room(s, CL_DDA_DB_SORTED, keys * sizeof(uint64_t), err));
  CL_TRY(room(s, CL_DDA_DB_START, (ncells + 1) * sizeof(int64_t), err));
  CL_TRY(room(s, CL_DDA_DB_IN_CELL, entries * sizeof(int32_t), err));
  CL_TRY(room(s, CL_DDA_DB_PAIRS, 2 * pairs * sizeof(int32_t), err));
  a.keys = s->buf[CL_DDA_DB_KEYS], a.sorted = s->buf[CL_DDA_DB_SORTED], a.pairs = s->buf[CL_DDA_DB_PAIRS];
  a.start = s->buf[CL_DDA_DB_START], a.in_cell = s->buf[CL_DDA_DB_IN_CELL];
  /* the cells' entries: counted, offset, written as keys (cell, block) and sorted, so that each
   * cell's blocks come in ascending order, as the host's counting sort leaves them */
  CL_TRY(pass(s, &a, CL_DDA_CELL_COUNT, n, err));
  CL_TRY(scan(s, a.count, s->buf[CL_DDA_DB_OFFSET], n, CL_DDA_LIST_ENTRIES, err));
  a.room = entries;
  CL_TRY(no_keys(s, a.keys, entries, err));
  CL_TRY(pass(s, &a, CL_DDA_CELL_WRITE, n, err));
  CL_TRY(sort(s, a.keys, s->buf[CL_DDA_DB_SORTED], entries, (uint64_t)ncells * n - 1, err));
  CL_TRY(pass(s, &a, CL_DDA_CELL_START, ncells + 1, err));
  CL_TRY(pass(s, &a, CL_DDA_CELL_SPLIT, entries, err));
  /* each block's partners j > i: counted, offset, written as keys (i, j) and sorted */
  CL_TRY(pass(s, &a, CL_DDA_PAIR_COUNT, n, err));
  CL_TRY(scan(s, a.count, s->buf[CL_DDA_DB_OFFSET], n, CL_DDA_LIST_PAIRS, err));
  a.room = pairs;
  CL_TRY(no_keys(s, a.keys, pairs, err));
  CL_TRY(pass(s, &a, CL_DDA_PAIR_WRITE, n, err));
  CL_TRY(sort(s, a.keys, s->buf[CL_DDA_DB_SORTED], pairs, (uint64_t)n * n - 1, err));
  return pass(s, &a, CL_DDA_PAIR_SPLIT, pairs, err);
}

/* The narrow phase of the device's first items pairs queued (a pair (-1, -1) is none): the contacts
 * into their room, their number left on the device. */
static cl_status queue_found(cl_dda_detect *s, size_t items, cl_error *err) {
  const size_t found = s->room[CL_DDA_LIST_FOUND];
  CL_TRY(room(s, CL_DDA_DB_COUNT, items * sizeof(int64_t), err));
  CL_TRY(room(s, CL_DDA_DB_OFFSET, (items + 1) * sizeof(int64_t), err));
  CL_TRY(room(s, CL_DDA_DB_FOUND, found * sizeof(cl_dda_found), err));
  cl_dda_narrow_args a = {s->g, s->buf[CL_DDA_DB_PAIRS], items, s->d0, s->buf[CL_DDA_DB_COUNT], NULL, NULL, found};
  s->launches++;
  CL_TRY(cl_k_dda_narrow(s->d, &a, err));
  CL_TRY(scan(s, a.count, s->buf[CL_DDA_DB_OFFSET], items, CL_DDA_LIST_FOUND, err));
  a.count = NULL, a.offset = s->buf[CL_DDA_DB_OFFSET], a.out = s->buf[CL_DDA_DB_FOUND];
  s->launches++;
  return cl_k_dda_narrow(s->d, &a, err);
}

/* Each run gives the first list that did not fit its exact length (what comes before it fitted), so
 * at most CL_DDA_LISTS runs more. */
cl_status cl_dda_detect_settle(cl_dda_detect *s, cl_error *err) {
  const int first = s->queued == 3 ? CL_DDA_LIST_FOUND : CL_DDA_LIST_ENTRIES;
  const int last = s->queued == 1 ? CL_DDA_LIST_PAIRS : CL_DDA_LIST_FOUND;
  for (int run = 0; s->queued; run++) {
    s->syncs++;
    CL_TRY(s->d->to_host(s->d, s->totals, s->buf[CL_DDA_DB_TOTALS], CL_DDA_LISTS * sizeof *s->totals, err));
    int over = 0;
    for (int l = first; l <= last; l++) {
      const size_t total = (size_t)s->totals[l];
      if (total > s->room[l]) over = 1, s->room[l] = total + total / 4;
    }
    if (!over) {
      if (s->queued != 3) s->npairs = (size_t)s->totals[CL_DDA_LIST_PAIRS];
      if (s->queued != 1) s->nfound = (size_t)s->totals[CL_DDA_LIST_FOUND];
      s->queued = 0;
      return CL_OK;
    }
    if (run == CL_DDA_LISTS)
      return cl_error_set(err, CL_ERR_INTERNAL, "DDA contact detection: a list still past its room after %d runs",
                          run + 1);
    s->reruns++;
    if (s->queued != 3) CL_TRY(queue_pairs(s, err));
    if (s->queued != 1) CL_TRY(queue_found(s, s->queued == 3 ? s->npairs : s->room[CL_DDA_LIST_PAIRS], err));
  }
  return CL_OK;
}

/* The device's totals and the host's copy of them; the lists' first rooms, guesses (a block in up to
 * four cells, with up to four partners and four contacts a partner) that settle corrects. */
static cl_status prepare(cl_dda_detect *s, const cl_dda_geometry *g, double d0, cl_error *err) {
  CL_TRY(room(s, CL_DDA_DB_TOTALS, CL_DDA_LISTS * sizeof(int64_t), err));
  if (!s->totals) CL_TRY(s->d->host_alloc(s->d, (void **)&s->totals, CL_DDA_LISTS * sizeof *s->totals, err));
  const size_t guess[CL_DDA_LISTS] = {4 * g->n, 4 * g->n, 16 * g->n};
  for (int l = 0; l < CL_DDA_LISTS; l++)
    if (s->room[l] == 0) s->room[l] = guess[l] ? guess[l] : 1;
  s->g = *g, s->d0 = d0;
  return CL_OK;
}

cl_status cl_dda_detect_pairs(cl_dda_detect *s, const cl_dda_geometry *g, double d0, cl_error *err) {
  s->npairs = 0, s->queued = 0;
  if (g->n < 2) return CL_OK;
  CL_TRY(prepare(s, g, d0, err));
  CL_TRY(queue_pairs(s, err));
  s->queued = 1;
  return CL_OK;
}

cl_status cl_dda_detect_found(cl_dda_detect *s, const cl_dda_geometry *g, const int32_t *pairs, size_t npairs,
                              double d0, cl_error *err) {
  cl_device *d = s->d;
  CL_TRY(prepare(s, g, d0, err));
  if (pairs) {
    CL_TRY(room(s, CL_DDA_DB_PAIRS, 2 * npairs * sizeof *pairs, err));
    if (npairs) {
      s->syncs++;
      CL_TRY(d->to_device(d, s->buf[CL_DDA_DB_PAIRS], pairs, 2 * npairs * sizeof *pairs, err));
    }
    s->npairs = npairs, s->queued = 0;
  }
  s->nfound = 0;
  if (s->queued == 1) { /* the broad phase's pairs, their number not read yet: all its room */
    CL_TRY(queue_found(s, s->room[CL_DDA_LIST_PAIRS], err));
    s->queued = 2;
  } else {
    if (s->npairs == 0) return CL_OK;
    CL_TRY(queue_found(s, s->npairs, err));
    s->queued = 3;
  }
  return cl_dda_detect_settle(s, err);
}

cl_status cl_dda_detect_pairs_to_host(cl_dda_detect *s, int32_t *pairs, cl_error *err) {
  CL_TRY(cl_dda_detect_settle(s, err));
  if (s->npairs == 0) return CL_OK;
  s->syncs++;
  return s->d->to_host(s->d, pairs, s->buf[CL_DDA_DB_PAIRS], 2 * s->npairs * sizeof *pairs, err);
}

cl_status cl_dda_detect_found_to_host(cl_dda_detect *s, cl_dda_found *found, cl_error *err) {
  if (s->nfound == 0) return CL_OK;
  s->syncs++;
  return s->d->to_host(s->d, found, s->buf[CL_DDA_DB_FOUND], s->nfound * sizeof *found, err);
}

cl_status cl_dda_detect_transfer(cl_dda_detect *s, const cl_dda_geometry *g, size_t nv, const cl_dda_device_list *prev,
                                 size_t nprev, int first, const cl_dda_device_list *out, cl_error *err) {
  const size_t nfound = s->nfound;
  CL_TRY(room(s, CL_DDA_DB_TKEYS, 2 * nfound * sizeof(uint64_t), err));
  uint64_t *keys = s->buf[CL_DDA_DB_TKEYS];
  cl_dda_transfer_args a = {.g = *g, .nv = nv, .nfound = nfound, .npairs = s->npairs, .nprev = nprev, .first = first,
                            .found = s->buf[CL_DDA_DB_FOUND], .pairs = s->buf[CL_DDA_DB_PAIRS],
                            .offset = s->buf[CL_DDA_DB_OFFSET], .keys = keys, .sorted = keys + nfound,
                            .prev = *prev, .out = *out};
  s->launches += 2;
  CL_TRY(cl_k_dda_transfer(s->d, &a, CL_DDA_TRANSFER_KEYS, err));
  CL_TRY(sort(s, keys, keys + nfound, nfound, (uint64_t)cl_dda_contact_key((int32_t)nv - 1, (int32_t)nv - 1, nv), err));
  return cl_k_dda_transfer(s->d, &a, CL_DDA_TRANSFER_FILL, err);
}
