/* The cpu backend of the peridynamic neighbour search (OpenMP): Morton
 * order, cell binning by a stable radix sort, the two passes over the cell
 * list, and the gather. The math is in neighbors_impl.h. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "neighbors_impl.h"

static int thread_limit(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* inside a parallel region: the team's size and this thread's rank */
static size_t team_size(void) {
#ifdef _OPENMP
  return (size_t)omp_get_num_threads();
#else
  return 1;
#endif
}

static size_t team_rank(void) {
#ifdef _OPENMP
  return (size_t)omp_get_thread_num();
#else
  return 0;
#endif
}

static cl_status out_of_memory(size_t bytes, const char *what, cl_error *err) {
  return cl_error_set(err, CL_ERR_OOM, "cpu: cannot allocate %zu bytes of host memory for %s",
                      bytes, what);
}

enum { DIGIT_BITS = 8, DIGITS = 1 << DIGIT_BITS };

/* Turns per-thread digit counts into scatter positions: digits in order,
 * and within a digit the threads in order, which keeps the sort stable. */
static void digit_offsets(size_t *hist, size_t threads) {
  size_t sum = 0;
  for (size_t d = 0; d < DIGITS; d++)
    for (size_t t = 0; t < threads; t++) {
      size_t count = hist[t * DIGITS + d];
      hist[t * DIGITS + d] = sum;
      sum += count;
    }
}

/* One counting-sort pass on the digit at `shift`: each thread counts and
 * then scatters its own contiguous block of the input, in order. */
static void radix_pass(const uint64_t *kin, const uint32_t *vin, uint64_t *kout, uint32_t *vout,
                       size_t n, int shift, size_t *hist) {
#pragma omp parallel
  {
    size_t threads = team_size(), t = team_rank();
    size_t lo = n * t / threads, hi = n * (t + 1) / threads;
    size_t *mine = hist + t * DIGITS;
    memset(mine, 0, DIGITS * sizeof *mine);
    for (size_t i = lo; i < hi; i++) mine[(kin[i] >> shift) & (DIGITS - 1)]++;
#pragma omp barrier
#pragma omp single
    digit_offsets(hist, threads);
    for (size_t i = lo; i < hi; i++) {
      size_t at = mine[(kin[i] >> shift) & (DIGITS - 1)]++;
      kout[at] = kin[i];
      vout[at] = vin[i];
    }
  }
}

/* Stable LSD radix sort of (key, value) pairs on the low key_bits bits of
 * the keys, one 8-bit digit per pass; the result is left in keys/values.
 * Scratch (second buffers, per-thread digit counts) is one allocation. */
static cl_status sort_pairs(uint64_t *keys, uint32_t *values, size_t n, int key_bits,
                            cl_error *err) {
  int passes = (key_bits + DIGIT_BITS - 1) / DIGIT_BITS;
  if (passes == 0 || n < 2) return CL_OK;
  size_t hist_count = (size_t)thread_limit() * DIGITS;
  size_t bytes = n * sizeof(uint64_t) + hist_count * sizeof(size_t) + n * sizeof(uint32_t);
  char *block = malloc(bytes);
  if (!block) return out_of_memory(bytes, "a radix sort", err);
  uint64_t *k[2] = {keys, (uint64_t *)block};
  size_t *hist = (size_t *)(block + n * sizeof(uint64_t));
  uint32_t *v[2] = {values, (uint32_t *)(hist + hist_count)};
  for (int p = 0; p < passes; p++)
    radix_pass(k[p & 1], v[p & 1], k[(p + 1) & 1], v[(p + 1) & 1], n, p * DIGIT_BITS, hist);
  if (passes & 1) {
    memcpy(keys, k[1], n * sizeof *keys);
    memcpy(values, v[1], n * sizeof *values);
  }
  free(block);
  return CL_OK;
}

/* Exclusive prefix sum in u32 arithmetic (the caller checks the total). */
static void exclusive_scan(const uint32_t *in, uint32_t *out, size_t m) {
  uint32_t sum = 0;
  for (size_t i = 0; i < m; i++) {
    uint32_t v = in[i];
    out[i] = sum;
    sum += v;
  }
}

cl_status CL_PREC(cl_pd_morton_order_cpu)(const cl_pd_grid *g, size_t n, const void *x_,
                                          int key_bits, uint32_t *order, cl_error *err) {
  const real *x = x_;
  if (n == 0) return CL_OK;
  uint64_t *codes = malloc(n * sizeof *codes);
  if (!codes) return out_of_memory(n * sizeof *codes, "Morton codes", err);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
    codes[i] = cl_pd_point_morton(g, x, n, i);
    order[i] = (uint32_t)i;
  }
  cl_status s = sort_pairs(codes, order, n, key_bits, err);
  free(codes);
  return s;
}

cl_status CL_PREC(cl_pd_bin_points_cpu)(const cl_pd_grid *g, size_t n, const void *x_,
                                        int key_bits, uint32_t *sorted, uint32_t *start,
                                        uint32_t *end, cl_error *err) {
  const real *x = x_;
  if (n == 0) return CL_OK;
  uint64_t *keys = malloc(n * sizeof *keys);
  if (!keys) return out_of_memory(n * sizeof *keys, "cell keys", err);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; i++) {
    keys[i] = cl_pd_point_cell_key(g, x, n, i);
    sorted[i] = (uint32_t)i;
  }
  cl_status s = sort_pairs(keys, sorted, n, key_bits, err);
  if (s == CL_OK) {
    size_t cells = cl_pd_grid_cells(g);
    memset(start, 0, cells * sizeof *start);
    memset(end, 0, cells * sizeof *end);
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++) cl_pd_mark_cell_run(keys, n, k, start, end);
  }
  free(keys);
  return s;
}

cl_status CL_PREC(cl_pd_count_bonds_cpu)(const cl_pd_cells *cells, size_t n, const void *x_,
                                         uint32_t *counts, uint32_t *offsets, cl_error *err) {
  (void)err;
  const real *x = x_;
#pragma omp parallel for schedule(dynamic, 256)
  for (size_t i = 0; i < n; i++) counts[i] = cl_pd_count_row(cells, x, n, i);
  counts[n] = 0;
  exclusive_scan(counts, offsets, n + 1);
  return CL_OK;
}

cl_status CL_PREC(cl_pd_write_bonds_cpu)(const cl_pd_cells *cells, size_t n, const void *x_,
                                         const uint32_t *offsets, uint32_t *neighbors,
                                         size_t nbonds, cl_error *err) {
  (void)nbonds; /* the cpu writes its rows in place */
  (void)err;
  const real *x = x_;
#pragma omp parallel for schedule(dynamic, 256)
  for (size_t i = 0; i < n; i++) cl_pd_write_row(cells, x, n, i, neighbors + offsets[i]);
  return CL_OK;
}

/* Element-type generic: one definition, in the f64 copy of this file. */
#ifndef CL_PRECISION_F32

#define GATHER_LOOP(T)                                                        \
  do {                                                                        \
    const T *s = src;                                                         \
    T *o = dst;                                                               \
    for (size_t c = 0; c < (size_t)k; c++) {                                  \
      _Pragma("omp parallel for schedule(static)")                            \
      for (size_t i = 0; i < n; i++) o[c * n + i] = s[c * n_src + order[i]]; \
    }                                                                         \
  } while (0)

cl_status cl_pd_gather_cpu(size_t elem_size, size_t n_src, size_t n, int k, const void *src,
                           const uint32_t *order, void *dst, cl_error *err) {
  switch (elem_size) {
    case 1: GATHER_LOOP(uint8_t); return CL_OK;
    case 4: GATHER_LOOP(uint32_t); return CL_OK;
    case 8: GATHER_LOOP(uint64_t); return CL_OK;
    default:
      return cl_error_set(err, CL_ERR_INTERNAL, "cl_pd_gather: no cpu gather for %zu-byte elements",
                          elem_size);
  }
}

#endif
