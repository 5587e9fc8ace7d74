/* The step's matrix pattern and the assembly's indices built on the model's device (BSR format),
 * written once for both backends (contact_cpu.c, contact_cuda.cu; pcg.c's set-up drives the passes,
 * with the device sorts of broad_kernels.h between them): the same arrays as the host's
 * cl_dda_bsr_pattern and cl_dda_solver_set_contacts, from the contacts' blocks on the device.
 *   pairs:  each contact's two block entries (i, j), (j, i) and every diagonal (i, i) as 64-bit keys
 *           row n + column, sorted; the first of each run of equal keys flagged, the flags
 *           offset (a scan) and the unique keys scattered: the pattern's blocks by row, then column
 *           (the host's sorted unique columns a row);
 *   rows:   rowptr[i] = the first unique key of row i (a binary search), col and tdiag (the block's
 *           row where it is a diagonal block, else -1) from the unique keys;
 *   shares: each contact's four shares (Kii, Kjj, Kij, Kij^T) as target 4 nc + 4 k + role, sorted:
 *           gitem lists each matrix block's shares in contact order (the host's counting sort
 *           keeps the same order) and gstart[t] is the first of block t's (a binary search); the
 *           right-hand side's, block 2 nc + 2 k + side, likewise give ritem and rstart;
 *   same:   whether each contact's blocks (i, j) are those of the contacts the kept pattern was built
 *           from: all of the above is made of n, nc and the contacts' (i, j) alone, so where they are
 *           the same the step keeps the pattern and every index (cl_dda_solver_same_pattern).
 * Keys are packed as row x width + column (cl_dda_key), not row << 32 | column: the same order, and
 * the radix sorts look only at the bits the largest key has (for 4 333 blocks' pairs 25, not 45): two
 * passes fewer a sort. */
#ifndef CL_DDA_PATTERN_OPS_H
#define CL_DDA_PATTERN_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/portable.h"

typedef enum cl_dda_pattern_pass {
  CL_DDA_PATTERN_PAIR_KEYS,  /* 2 nc + n items: keys */
  CL_DDA_PATTERN_FLAGS,      /* m items: flags[p] = sorted[p] starts a run */
  CL_DDA_PATTERN_UNIQUE,     /* m items: unique[offset[p]] = sorted[p] where flagged */
  CL_DDA_PATTERN_ROWS,       /* n + 1 items: rowptr */
  CL_DDA_PATTERN_COLUMNS,    /* nnzb items: col, tdiag */
  CL_DDA_PATTERN_SHARE_KEYS, /* 4 nc items: keys of the matrix shares */
  CL_DDA_PATTERN_GSTART,     /* nnzb + 1 items: gstart */
  CL_DDA_PATTERN_GITEM,      /* 4 nc items: gitem */
  CL_DDA_PATTERN_ROW_KEYS,   /* 2 nc items: keys of the right-hand side's shares */
  CL_DDA_PATTERN_RSTART,     /* n + 1 items: rstart */
  CL_DDA_PATTERN_RITEM,      /* 2 nc items: ritem */
  CL_DDA_PATTERN_SAME        /* nc items: differ[k] = 1 where contact k's blocks are not the kept ones, else 0 */
} cl_dda_pattern_pass;

typedef struct cl_dda_pattern_args {
  size_t n, nc, m, nnzb;      /* blocks, contacts, keys of the pass sorted last, unique blocks */
  const int32_t *cbi, *cbj;   /* the contacts' blocks */
  const int32_t *kept_bi, *kept_bj; /* those the kept pattern was built from (CL_DDA_PATTERN_SAME) */
  double *differ;             /* nc: CL_DDA_PATTERN_SAME's, reduced by its largest */
  uint64_t *keys;             /* keys written by a pass (room for 4 nc and 2 nc + n) */
  const uint64_t *sorted;     /* the keys sorted */
  int64_t *flags;             /* m */
  const int64_t *offset;      /* m + 1: the flags' exclusive sums */
  uint64_t *unique;           /* the pattern's blocks as keys (nnzb) */
  int32_t *rowptr, *col, *tdiag, *gstart, *gitem, *rstart, *ritem;
} cl_dda_pattern_args;

/* The first position in s[0..m) whose key is >= key. */
CL_HD static inline size_t cl_dda_lower_bound(const uint64_t *s, size_t m, uint64_t key) {
  size_t lo = 0, hi = m;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (s[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The key of (row, col) with 0 <= col < width: ordered by row, then column. */
CL_HD static inline uint64_t cl_dda_key(int64_t row, int64_t col, size_t width) {
  return (uint64_t)row * (uint64_t)width + (uint64_t)col;
}

CL_HD static inline void cl_dda_pattern_item(const cl_dda_pattern_args *a, int pass, size_t k) {
  const size_t nc = a->nc;
  switch (pass) {
  case CL_DDA_PATTERN_PAIR_KEYS:
    if (k < 2 * nc) {
      const int32_t i = a->cbi[k / 2], j = a->cbj[k / 2];
      a->keys[k] = k % 2 ? cl_dda_key(j, i, a->n) : cl_dda_key(i, j, a->n);
    } else {
      a->keys[k] = cl_dda_key((int64_t)(k - 2 * nc), (int64_t)(k - 2 * nc), a->n);
    }
    break;
  case CL_DDA_PATTERN_FLAGS: a->flags[k] = k == 0 || a->sorted[k] != a->sorted[k - 1]; break;
  case CL_DDA_PATTERN_UNIQUE:
    if (k == 0 || a->sorted[k] != a->sorted[k - 1]) a->unique[a->offset[k]] = a->sorted[k];
    break;
  case CL_DDA_PATTERN_ROWS:
    a->rowptr[k] = (int32_t)cl_dda_lower_bound(a->unique, a->nnzb, cl_dda_key((int64_t)k, 0, a->n));
    break;
  case CL_DDA_PATTERN_COLUMNS: {
    const int64_t row = (int64_t)(a->unique[k] / a->n), col = (int64_t)(a->unique[k] % a->n);
    a->col[k] = (int32_t)col, a->tdiag[k] = row == col ? (int32_t)row : -1;
    break;
  }
  case CL_DDA_PATTERN_SHARE_KEYS: {
    const size_t c = k / 4;
    const int role = (int)(k % 4);
    const int64_t i = a->cbi[c], j = a->cbj[c];
    const int64_t row = role == 0 || role == 2 ? i : j, col = role == 0 ? i : role == 1 ? j : role == 2 ? j : i;
    const size_t t = cl_dda_lower_bound(a->unique, a->nnzb, cl_dda_key(row, col, a->n));
    a->keys[k] = cl_dda_key((int64_t)t, (int64_t)k, 4 * nc);
    break;
  }
  case CL_DDA_PATTERN_GSTART:
    a->gstart[k] = (int32_t)cl_dda_lower_bound(a->sorted, 4 * nc, cl_dda_key((int64_t)k, 0, 4 * nc));
    break;
  case CL_DDA_PATTERN_GITEM: a->gitem[k] = (int32_t)(a->sorted[k] % (4 * nc)); break;
  case CL_DDA_PATTERN_ROW_KEYS:
    a->keys[k] = cl_dda_key(k % 2 ? a->cbj[k / 2] : a->cbi[k / 2], (int64_t)k, 2 * nc);
    break;
  case CL_DDA_PATTERN_RSTART:
    a->rstart[k] = (int32_t)cl_dda_lower_bound(a->sorted, 2 * nc, cl_dda_key((int64_t)k, 0, 2 * nc));
    break;
  case CL_DDA_PATTERN_RITEM: a->ritem[k] = (int32_t)(a->sorted[k] % (2 * nc)); break;
  case CL_DDA_PATTERN_SAME: a->differ[k] = a->cbi[k] != a->kept_bi[k] || a->cbj[k] != a->kept_bj[k]; break;
  }
}

#endif
