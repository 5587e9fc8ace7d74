/* The DDA broad phase's grid of cells and its per-item passes, once for the host's loops
 * (contacts.c) and the device's kernels (broad_kernels.h): each block's box grown by d0 / 2, a
 * uniform grid of cells (each block in every cell its box covers, a cell's blocks in ascending
 * order), and each pair (i < j) of overlapping boxes found in the one cell that holds the lower-left
 * corner of their overlap. */
#ifndef CL_DDA_BROAD_H
#define CL_DDA_BROAD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "narrow.h"

/* The uniform grid: cell c = y nx + x holds in_cell[start[c] .. start[c + 1]). */
typedef struct cl_dda_cells {
  cl_dda_box all;
  double h;
  size_t nx, ny;
  const int64_t *start;
  const int32_t *in_cell;
} cl_dda_cells;

/* The cells box b covers: [*x0, *x1] x [*y0, *y1]. */
CL_HD static inline void cl_dda_cell_range(const cl_dda_cells *gr, cl_dda_box b, size_t *x0, size_t *x1, size_t *y0,
                                           size_t *y1) {
  double fx0 = (b.x0 - gr->all.x0) / gr->h, fx1 = (b.x1 - gr->all.x0) / gr->h;
  double fy0 = (b.y0 - gr->all.y0) / gr->h, fy1 = (b.y1 - gr->all.y0) / gr->h;
  size_t nx = gr->nx, ny = gr->ny;
  *x0 = (size_t)fx0 < nx ? (size_t)fx0 : nx - 1, *x1 = (size_t)fx1 < nx ? (size_t)fx1 : nx - 1;
  *y0 = (size_t)fy0 < ny ? (size_t)fy0 : ny - 1, *y1 = (size_t)fy1 < ny ? (size_t)fy1 : ny - 1;
}

/* How many cells box b covers. */
CL_HD static inline int64_t cl_dda_cell_count(const cl_dda_cells *gr, cl_dda_box b) {
  size_t x0, x1, y0, y1;
  cl_dda_cell_range(gr, b, &x0, &x1, &y0, &y1);
  return (int64_t)((x1 - x0 + 1) * (y1 - y0 + 1));
}

/* Boxes a and b overlap (touching counts): the broad phase's one test, the kept list's filter's too. */
CL_HD static inline int cl_dda_boxes_overlap(cl_dda_box a, cl_dda_box b) {
  return !(a.x0 > b.x1 || b.x0 > a.x1 || a.y0 > b.y1 || b.y0 > a.y1);
}

/* Box b lies inside box k (the reuse's containment check). */
CL_HD static inline int cl_dda_box_inside(cl_dda_box b, cl_dda_box k) {
  return b.x0 >= k.x0 && b.y0 >= k.y0 && b.x1 <= k.x1 && b.y1 <= k.y1;
}

/* The partners j > i of block i found in cells first, first + stride, ... of the cells its box
 * covers (counted row by row), each in the one cell that holds the lower-left corner of the two
 * boxes' overlap; written to out unless NULL; returns how many. A warp's lanes take a block's cells
 * in turn on cuda (broad_device.cu): a base as wide as the domain covers a row of cells, hundreds,
 * that one thread looped over while the grid waited. */
CL_HD static inline int64_t cl_dda_partners_in(const cl_dda_cells *gr, const cl_dda_box *boxes, int32_t i,
                                               size_t first, size_t stride, int32_t *out) {
  size_t x0, x1, y0, y1;
  int64_t count = 0;
  cl_dda_box a = boxes[i];
  cl_dda_cell_range(gr, a, &x0, &x1, &y0, &y1);
  const size_t w = x1 - x0 + 1, cells = w * (y1 - y0 + 1);
  for (size_t q = first; q < cells; q += stride) {
    size_t c = (y0 + q / w) * gr->nx + x0 + q % w;
    for (int64_t p = gr->start[c]; p < gr->start[c + 1]; p++) {
      int32_t j = gr->in_cell[p];
      if (j <= i) continue;
      cl_dda_box b = boxes[j];
      if (!cl_dda_boxes_overlap(a, b)) continue;
      cl_dda_box corner = {fmax(a.x0, b.x0), fmax(a.y0, b.y0), fmax(a.x0, b.x0), fmax(a.y0, b.y0)};
      size_t cx0, cx1, cy0, cy1;
      cl_dda_cell_range(gr, corner, &cx0, &cx1, &cy0, &cy1);
      if (cy0 * gr->nx + cx0 != c) continue;
      if (out) out[count] = j;
      count++;
    }
  }
  return count;
}

/* All the partners j > i of block i, cell by cell (cl_dda_partners_in). */
CL_HD static inline int64_t cl_dda_partners(const cl_dda_cells *gr, const cl_dda_box *boxes, int32_t i,
                                            int32_t *out) {
  return cl_dda_partners_in(gr, boxes, i, 0, 1, out);
}

/* ---- the passes of the device's broad phase (broad_kernels.h): one item each ---------------- */

typedef enum cl_dda_broad_pass {
  CL_DDA_BOXES,      /* block i: its box, the box's bounds (SoA) and its size as a sort key */
  CL_DDA_CELL_COUNT, /* block i: the cells its box covers */
  CL_DDA_CELL_WRITE, /* block i: a key cell n + i for each, at offset[i] */
  CL_DDA_CELL_START, /* cell c (0 .. ncells): where its entries start among the sorted keys */
  CL_DDA_CELL_SPLIT, /* entry e: its block */
  CL_DDA_PAIR_COUNT, /* block i: its partners */
  CL_DDA_PAIR_WRITE, /* block i: a key i n + j for each partner j, at offset[i] */
  CL_DDA_PAIR_SPLIT, /* pair k: (i, j) from the sorted keys */
  /* the reuse of a kept list (detect.h): */
  CL_DDA_KEPT_CHECK, /* block i: its box now, and at count[nkept + i] 0 if it lies inside its kept box, else nkept + 1 */
  CL_DDA_KEPT_COUNT, /* kept pair k: at count[k] 1 if the two boxes now overlap, else 0 */
  CL_DDA_KEPT_WRITE  /* kept pair k: to pairs at offset[k] if they do */
} cl_dda_broad_pass;

/* Pointers on the device. */
typedef struct cl_dda_broad_args {
  cl_dda_geometry g;
  double grow;           /* the boxes' margin, d0 / 2 */
  cl_dda_box *boxes;     /* n */
  double *bounds;        /* 4 n: the boxes' x0, y0, x1, y1 */
  uint64_t *size_keys;   /* n: a box's larger side, the bits of a double >= 0 (they sort as the sizes) */
  cl_dda_cells cells;    /* start (ncells + 1) and in_cell (entries) as written by the cell passes */
  int64_t *count;        /* n */
  const int64_t *offset; /* n + 1 */
  uint64_t *keys;        /* the cell entries' or pairs' keys, unsorted */
  const uint64_t *sorted;
  int64_t *start;
  int32_t *in_cell;
  int32_t *pairs;        /* 2 npairs; PAIR_WRITE keeps the partners there on the way to their keys */
  size_t entries;
  const cl_dda_box *kept;     /* n: the boxes the kept pairs were found with (KEPT_ passes) */
  const int32_t *kept_pairs;  /* 2 nkept */
  size_t nkept;
} cl_dda_broad_args;

CL_HD static inline void cl_dda_broad_item(const cl_dda_broad_args *a, int pass, size_t k) {
  size_t n = a->g.n, nx = a->cells.nx;
  switch (pass) {
  case CL_DDA_BOXES: {
    cl_dda_box b = a->boxes[k] = cl_dda_block_box(&a->g, (int32_t)k, a->grow);
    a->bounds[k] = b.x0, a->bounds[n + k] = b.y0, a->bounds[2 * n + k] = b.x1, a->bounds[3 * n + k] = b.y1;
    double size = fmax(b.x1 - b.x0, b.y1 - b.y0);
    uint64_t bits;
    memcpy(&bits, &size, sizeof bits);
    a->size_keys[k] = bits;
    break;
  }
  case CL_DDA_CELL_COUNT: a->count[k] = cl_dda_cell_count(&a->cells, a->boxes[k]); break;
  case CL_DDA_CELL_WRITE: {
    size_t x0, x1, y0, y1;
    uint64_t *out = a->keys + a->offset[k];
    cl_dda_cell_range(&a->cells, a->boxes[k], &x0, &x1, &y0, &y1);
    for (size_t y = y0; y <= y1; y++)
      for (size_t x = x0; x <= x1; x++) *out++ = (uint64_t)(y * nx + x) * n + k;
    break;
  }
  case CL_DDA_CELL_START: { /* the first sorted key >= k n */
    size_t lo = 0, hi = a->entries;
    uint64_t key = (uint64_t)k * n;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (a->sorted[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    a->start[k] = (int64_t)lo;
    break;
  }
  case CL_DDA_CELL_SPLIT: a->in_cell[k] = (int32_t)(a->sorted[k] % n); break;
  case CL_DDA_PAIR_COUNT: a->count[k] = cl_dda_partners(&a->cells, a->boxes, (int32_t)k, NULL); break;
  case CL_DDA_PAIR_WRITE: {
    int64_t at = a->offset[k], m = cl_dda_partners(&a->cells, a->boxes, (int32_t)k, a->pairs + at);
    for (int64_t p = 0; p < m; p++) a->keys[at + p] = (uint64_t)k * n + (uint64_t)a->pairs[at + p];
    break;
  }
  case CL_DDA_PAIR_SPLIT:
    a->pairs[2 * k] = (int32_t)(a->sorted[k] / n), a->pairs[2 * k + 1] = (int32_t)(a->sorted[k] % n);
    break;
  case CL_DDA_KEPT_CHECK: {
    /* nkept + 1 per block outside: the offsets' total then exceeds nkept exactly when one is */
    cl_dda_box b = a->boxes[k] = cl_dda_block_box(&a->g, (int32_t)k, a->grow);
    a->count[a->nkept + k] = cl_dda_box_inside(b, a->kept[k]) ? 0 : (int64_t)a->nkept + 1;
    break;
  }
  case CL_DDA_KEPT_COUNT:
    a->count[k] = cl_dda_boxes_overlap(a->boxes[a->kept_pairs[2 * k]], a->boxes[a->kept_pairs[2 * k + 1]]);
    break;
  case CL_DDA_KEPT_WRITE:
    if (a->offset[k + 1] > a->offset[k]) {
      const int64_t at = a->offset[k];
      a->pairs[2 * at] = a->kept_pairs[2 * k], a->pairs[2 * at + 1] = a->kept_pairs[2 * k + 1];
    }
    break;
  }
}

/* The grid over boxes whose union is `all` and whose median size is h: cells as wide as the median
 * box, so that a typical block covers at most four and a block as wide as the domain (a base)
 * covers a row of them instead of making every pair a candidate; never more cells than 4 n (memory
 * O(n)). The pointers are left to the caller. */
static inline cl_dda_cells cl_dda_cells_over(cl_dda_box all, double h, size_t n) {
  cl_dda_cells gr = {all, h, 1, 1, NULL, NULL};
  const double w = all.x1 - all.x0, t = all.y1 - all.y0;
  /* Non-finite coordinates (a step gone wrong, refused by its checks) or no blocks: one cell, where the
   * loop below would not end. */
  if (!(n > 0 && w >= 0 && t >= 0 && w + t < INFINITY && h > 0 && h < INFINITY)) return gr;
  for (;;) {
    const double fx = floor(w / gr.h) + 1, fy = floor(t / gr.h) + 1; /* no cast of a count that is too large */
    if (fx * fy <= 4.0 * (double)n) {
      gr.nx = (size_t)fx, gr.ny = (size_t)fy;
      return gr;
    }
    gr.h *= 1.5;
  }
}

#endif
