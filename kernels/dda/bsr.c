/* The host's block-sparse matrix of the DDA step (bsr.h). */
#include "bsr.h"

#include <stdlib.h>
#include <string.h>

#include "host_parallel.h"

static int int32_cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

cl_status cl_dda_bsr_pattern(cl_dda_bsr *a, size_t n, size_t npairs, const int32_t *pi, const int32_t *pj,
                             cl_error *err) {
  /* the columns binned by row (a counting sort: the diagonal, then each pair's two entries), then
   * each row's few columns sorted and made unique in parallel: O(n + pairs) */
  size_t nentries = n + 2 * npairs;
  size_t *start = calloc(n + 1, sizeof *start);
  int32_t *cols = malloc((nentries ? nentries : 1) * sizeof *cols);
  size_t *unique = malloc((n + 1) * sizeof *unique);
  if (!start || !cols || !unique) {
    free(start), free(cols), free(unique);
    return cl_error_set(err, CL_ERR_OOM, "DDA matrix: out of memory for %zu block entries", nentries);
  }
  for (size_t k = 0; k < npairs; k++) start[pi[k] + 1]++, start[pj[k] + 1]++;
  for (size_t i = 0; i < n; i++) start[i + 1] += start[i] + 1;
  size_t *fill = unique; /* the rows' next free slot, before it holds the unique counts */
  for (size_t i = 0; i < n; i++) cols[start[i]] = (int32_t)i, fill[i] = start[i] + 1;
  for (size_t k = 0; k < npairs; k++) cols[fill[pi[k]]++] = pj[k], cols[fill[pj[k]]++] = pi[k];
#pragma omp parallel for schedule(dynamic, 256) if (n >= CL_DDA_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) {
    int32_t *c = cols + start[i];
    size_t len = start[i + 1] - start[i], u = 0;
    qsort(c, len, sizeof *c, int32_cmp);
    for (size_t k = 0; k < len; k++)
      if (u == 0 || c[k] != c[u - 1]) c[u++] = c[k];
    unique[i] = u;
  }
  size_t u = 0;
  for (size_t i = 0; i < n; i++) u += unique[i];
  if (u > a->cap || !a->rowptr || a->n != n) {
    int32_t *rowptr = realloc(a->rowptr, (n + 1) * sizeof *rowptr);
    if (rowptr) a->rowptr = rowptr;
    size_t cap = u > a->cap ? u + u / 2 : a->cap;
    int32_t *col = realloc(a->col, cap * sizeof *col);
    if (col) a->col = col;
    if (!rowptr || !col) {
      free(start), free(cols), free(unique);
      return cl_error_set(err, CL_ERR_OOM, "DDA matrix: out of memory for %zu blocks", u);
    }
    a->cap = cap;
  }
  a->n = n, a->nnzb = u;
  a->rowptr[0] = 0;
  for (size_t i = 0; i < n; i++) a->rowptr[i + 1] = a->rowptr[i] + (int32_t)unique[i];
#pragma omp parallel for schedule(static) if (n >= CL_DDA_PARALLEL_MIN)
  for (size_t i = 0; i < n; i++) memcpy(a->col + a->rowptr[i], cols + start[i], unique[i] * sizeof *cols);
  free(start), free(cols), free(unique);
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
