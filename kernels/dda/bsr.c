/* The host's block-sparse matrix of the DDA step (bsr.h). */
#include "bsr.h"

#include <stdlib.h>
#include <string.h>

static int pair_cmp(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  return *x < *y ? -1 : *x > *y;
}

cl_status cl_dda_bsr_pattern(cl_dda_bsr *a, size_t n, size_t npairs, const int32_t *pi, const int32_t *pj,
                             cl_error *err) {
  size_t nkeys = n + 2 * npairs;
  int64_t *keys = malloc((nkeys ? nkeys : 1) * sizeof *keys);
  if (!keys) return cl_error_set(err, CL_ERR_OOM, "DDA matrix: out of memory for %zu block entries", nkeys);
  for (size_t i = 0; i < n; i++) keys[i] = (int64_t)i * (int64_t)n + (int64_t)i;
  for (size_t k = 0; k < npairs; k++) {
    keys[n + 2 * k] = (int64_t)pi[k] * (int64_t)n + pj[k];
    keys[n + 2 * k + 1] = (int64_t)pj[k] * (int64_t)n + pi[k];
  }
  qsort(keys, nkeys, sizeof *keys, pair_cmp);
  size_t u = 0;
  for (size_t k = 0; k < nkeys; k++)
    if (u == 0 || keys[k] != keys[u - 1]) keys[u++] = keys[k];
  if (u > a->cap || !a->rowptr || a->n != n) {
    int32_t *rowptr = realloc(a->rowptr, (n + 1) * sizeof *rowptr);
    if (rowptr) a->rowptr = rowptr;
    size_t cap = u > a->cap ? u + u / 2 : a->cap;
    int32_t *col = realloc(a->col, cap * sizeof *col);
    if (col) a->col = col;
    if (!rowptr || !col) {
      free(keys);
      return cl_error_set(err, CL_ERR_OOM, "DDA matrix: out of memory for %zu blocks", u);
    }
    a->cap = cap;
  }
  a->n = n, a->nnzb = u;
  memset(a->rowptr, 0, (n + 1) * sizeof *a->rowptr);
  for (size_t k = 0; k < u; k++) {
    a->rowptr[keys[k] / (int64_t)n + 1]++;
    a->col[k] = (int32_t)(keys[k] % (int64_t)n);
  }
  for (size_t i = 0; i < n; i++) a->rowptr[i + 1] += a->rowptr[i];
  free(keys);
  return CL_OK;
}

cl_status cl_dda_bsr_zero_values(cl_dda_bsr *a, cl_error *err) {
  free(a->val);
  a->val = calloc(36 * (a->nnzb ? a->nnzb : 1), sizeof *a->val);
  return a->val ? CL_OK : cl_error_set(err, CL_ERR_OOM, "DDA matrix: out of memory for %zu blocks", a->nnzb);
}

int32_t cl_dda_bsr_position(const cl_dda_bsr *a, int32_t i, int32_t j) {
  int32_t lo = a->rowptr[i], hi = a->rowptr[i + 1];
  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    if (a->col[mid] < j) lo = mid + 1;
    else hi = mid;
  }
  return lo < a->rowptr[i + 1] && a->col[lo] == j ? lo : -1;
}

double *cl_dda_bsr_block(const cl_dda_bsr *a, int32_t i, int32_t j) {
  int32_t p = cl_dda_bsr_position(a, i, j);
  return p < 0 ? NULL : a->val + 36 * (size_t)p;
}

void cl_dda_bsr_free(cl_dda_bsr *a) {
  free(a->rowptr), free(a->col), free(a->val);
  memset(a, 0, sizeof *a);
}
