/* The cuda backend of the peridynamic neighbour search: Morton order and
 * cell binning by CUB's radix sort, the two passes over the cell list (one
 * thread per point), the offsets by CUB's scan, and the gather. The math is
 * in neighbors_impl.h. Every CUDA call is checked and named in the error. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <stdlib.h>

#include "../../runtime/cuda_check.h"
#include "../../runtime/device.h"
#include "../common/launch_cuda.cuh"
#include "neighbors_impl.h"


static cl_status check_launch(const char *kernel, cl_error *err) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess && cl_cuda_sync_each_launch()) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return CL_OK;
  return cl_error_set(err, CL_ERR_DEVICE, "cuda kernel '%s' failed: %s (%s)", kernel,
                      cudaGetErrorString(e), cudaGetErrorName(e));
}

/* Frees a temporary allocation; a failure to free is reported only when
 * nothing failed before it. */
static cl_status release_after(void *block, cl_status status, cl_error *err) {
  cudaError_t e = cudaFree(block);
  if (status != CL_OK || e == cudaSuccess) return status;
  return cl_error_set(err, CL_ERR_DEVICE, "cuda: cudaFree(block) failed: %s (%s)",
                      cudaGetErrorString(e), cudaGetErrorName(e));
}

static size_t aligned_bytes(size_t bytes) { return (bytes + 255) / 256 * 256; }

/* ---- sorting points by a key ------------------------------------------ */

/* The buffers of a keyed sort of n points, carved from one allocation:
 * keys (filled by a kernel), the sorted keys, the identity permutation and
 * CUB's temporary storage. */
typedef struct sort_buffers {
  void *block;
  uint64_t *keys, *sorted_keys;
  uint32_t *identity;
  void *temp;
  size_t temp_bytes;
} sort_buffers;

static int sort_end_bit(int key_bits) { return key_bits > 0 ? key_bits : 1; }

static cl_status sort_buffers_alloc(sort_buffers *b, size_t n, int key_bits, cl_error *err) {
  b->block = NULL;
  b->temp_bytes = 0;
  CL_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(NULL, b->temp_bytes, (const uint64_t *)NULL,
                                                (uint64_t *)NULL, (const uint32_t *)NULL,
                                                (uint32_t *)NULL, n, 0, sort_end_bit(key_bits)));
  size_t keys_bytes = aligned_bytes(n * sizeof(uint64_t));
  size_t ids_bytes = aligned_bytes(n * sizeof(uint32_t));
  CL_CUDA_TRY(err, cudaMalloc(&b->block, 2 * keys_bytes + ids_bytes + b->temp_bytes));
  char *at = (char *)b->block;
  b->keys = (uint64_t *)at;
  b->sorted_keys = (uint64_t *)(at + keys_bytes);
  b->identity = (uint32_t *)(at + 2 * keys_bytes);
  b->temp = at + 2 * keys_bytes + ids_bytes;
  return CL_OK;
}

/* Stable sort of the identity permutation by b->keys into values. */
static cl_status sort_identity_by_keys(sort_buffers *b, size_t n, int key_bits, uint32_t *values,
                                       cl_error *err) {
  CL_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(b->temp, b->temp_bytes, b->keys, b->sorted_keys,
                                                b->identity, values, n, 0,
                                                sort_end_bit(key_bits)));
  return CL_OK;
}

/* ---- kernels -------------------------------------------------------------- */

static __global__ void morton_keys_kernel(cl_pd_grid g, size_t n, const real *x, uint64_t *keys,
                                          uint32_t *identity) {
  CL_GRID_STRIDE(i, n) {
    keys[i] = cl_pd_point_morton(&g, x, n, i);
    identity[i] = (uint32_t)i;
  }
}

static __global__ void cell_keys_kernel(cl_pd_grid g, size_t n, const real *x, uint64_t *keys,
                                        uint32_t *identity) {
  CL_GRID_STRIDE(i, n) {
    keys[i] = cl_pd_point_cell_key(&g, x, n, i);
    identity[i] = (uint32_t)i;
  }
}

static __global__ void mark_cells_kernel(const uint64_t *sorted_keys, size_t n, uint32_t *start,
                                         uint32_t *end) {
  CL_GRID_STRIDE(k, n) cl_pd_mark_cell_run(sorted_keys, n, k, start, end);
}

static __global__ void count_bonds_kernel(cl_pd_cells cells, size_t n, const real *x,
                                          uint32_t *counts) {
  CL_GRID_STRIDE(i, n) counts[i] = cl_pd_count_row(&cells, x, n, i);
}

/* One thread per row: it writes the row (sorting it in place if needed). */
static __global__ void write_bonds_kernel(cl_pd_cells cells, size_t n, const real *x,
                                          const uint32_t *offsets, uint32_t *neighbors) {
  CL_GRID_STRIDE(i, n) cl_pd_write_row(&cells, x, n, i, neighbors + offsets[i]);
}

/* Rows written one word per thread straight to global memory scatter each
 * store over 32 cache lines. For short rows a block instead writes its rows
 * (one contiguous segment of the list) into shared memory and copies the
 * segment out coalesced, when it fits (else that block writes in place). */
static __global__ void write_bonds_staged_kernel(cl_pd_cells cells, size_t n, const real *x,
                                                 const uint32_t *offsets, uint32_t *neighbors,
                                                 uint32_t capacity) {
  extern __shared__ uint32_t stage[];
  for (size_t base = (size_t)blockIdx.x * blockDim.x; base < n;
       base += (size_t)gridDim.x * blockDim.x) {
    size_t past = base + blockDim.x < n ? base + blockDim.x : n, i = base + threadIdx.x;
    uint32_t begin = offsets[base], len = offsets[past] - begin;
    bool staged = len <= capacity; /* the same in the whole block */
    if (i < n)
      cl_pd_write_row(&cells, x, n, i,
                      staged ? stage + (offsets[i] - begin) : neighbors + offsets[i]);
    if (staged) {
      __syncthreads();
      for (uint32_t k = threadIdx.x; k < len; k += blockDim.x) neighbors[begin + k] = stage[k];
      __syncthreads();
    }
  }
}

/* Rows are staged when a thread's share of shared memory, the mean row
 * length with a margin, stays within STAGE_MAX_WORDS (2D horizons of about
 * 3 dx); longer rows would leave too few threads per SM for the search. */
enum { STAGE_THREADS = 128, STAGE_MAX_WORDS = 64 };

static size_t stage_words_per_thread(size_t nbonds, size_t n) {
  size_t mean = nbonds / n;
  return mean + mean / 4 + 8;
}

/* ---- entry points ---------------------------------------------------------- */

static cl_status morton_order_with(sort_buffers *b, const cl_pd_grid *g, size_t n, const real *x,
                                   int key_bits, uint32_t *order, cl_error *err) {
  morton_keys_kernel<<<cl_grid_1d(n), CL_THREADS>>>(*g, n, x, b->keys, b->identity);
  CL_TRY(check_launch("pd_morton_keys", err));
  return sort_identity_by_keys(b, n, key_bits, order, err);
}

extern "C" cl_status CL_PREC(cl_pd_morton_order_cuda)(const cl_pd_grid *g, size_t n,
                                                     const void *x, int key_bits,
                                                     uint32_t *order, cl_error *err) {
  if (n == 0) return CL_OK;
  sort_buffers b;
  CL_TRY(sort_buffers_alloc(&b, n, key_bits, err));
  cl_status s = morton_order_with(&b, g, n, (const real *)x, key_bits, order, err);
  return release_after(b.block, s, err);
}

static cl_status bin_points_with(sort_buffers *b, const cl_pd_grid *g, size_t n, const real *x,
                                 int key_bits, uint32_t *sorted, uint32_t *start, uint32_t *end,
                                 cl_error *err) {
  size_t cells = cl_pd_grid_cells(g);
  cell_keys_kernel<<<cl_grid_1d(n), CL_THREADS>>>(*g, n, x, b->keys, b->identity);
  CL_TRY(check_launch("pd_cell_keys", err));
  CL_TRY(sort_identity_by_keys(b, n, key_bits, sorted, err));
  CL_CUDA_TRY(err, cudaMemsetAsync(start, 0, cells * sizeof *start));
  CL_CUDA_TRY(err, cudaMemsetAsync(end, 0, cells * sizeof *end));
  mark_cells_kernel<<<cl_grid_1d(n), CL_THREADS>>>(b->sorted_keys, n, start, end);
  return check_launch("pd_mark_cells", err);
}

extern "C" cl_status CL_PREC(cl_pd_bin_points_cuda)(const cl_pd_grid *g, size_t n, const void *x,
                                                   int key_bits, uint32_t *sorted,
                                                   uint32_t *start, uint32_t *end,
                                                   cl_error *err) {
  if (n == 0) return CL_OK;
  sort_buffers b;
  CL_TRY(sort_buffers_alloc(&b, n, key_bits, err));
  cl_status s = bin_points_with(&b, g, n, (const real *)x, key_bits, sorted, start, end, err);
  return release_after(b.block, s, err);
}

/* offsets[0..m) = exclusive prefix sum of counts[0..m), u32 arithmetic */
static cl_status exclusive_scan(const uint32_t *counts, uint32_t *offsets, size_t m,
                                cl_error *err) {
  size_t temp_bytes = 0;
  void *temp = NULL;
  CL_CUDA_TRY(err, cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, counts, offsets, m));
  CL_CUDA_TRY(err, cudaMalloc(&temp, temp_bytes));
  cl_status s = CL_OK;
  cudaError_t e = cub::DeviceScan::ExclusiveSum(temp, temp_bytes, counts, offsets, m);
  if (e != cudaSuccess)
    s = cl_error_set(err, CL_ERR_DEVICE, "cuda: cub::DeviceScan::ExclusiveSum failed: %s (%s)",
                     cudaGetErrorString(e), cudaGetErrorName(e));
  return release_after(temp, s, err);
}

extern "C" cl_status CL_PREC(cl_pd_count_bonds_cuda)(const cl_pd_cells *cells, size_t n,
                                                    const void *x, uint32_t *counts,
                                                    uint32_t *offsets, cl_error *err) {
  if (n > 0) {
    count_bonds_kernel<<<cl_grid_1d(n), CL_THREADS>>>(*cells, n, (const real *)x, counts);
    CL_TRY(check_launch("pd_count_bonds", err));
  }
  CL_CUDA_TRY(err, cudaMemsetAsync(counts + n, 0, sizeof *counts));
  return exclusive_scan(counts, offsets, n + 1, err);
}

extern "C" cl_status CL_PREC(cl_pd_write_bonds_cuda)(const cl_pd_cells *cells, size_t n,
                                                    const void *x, const uint32_t *offsets,
                                                    uint32_t *neighbors, size_t nbonds,
                                                    cl_error *err) {
  if (n == 0) return CL_OK;
  size_t words = stage_words_per_thread(nbonds, n);
  if (words <= STAGE_MAX_WORDS) {
    size_t blocks = (n + STAGE_THREADS - 1) / STAGE_THREADS, capacity = STAGE_THREADS * words;
    if (blocks > ((size_t)1 << 20)) blocks = (size_t)1 << 20; /* the loop covers the rest */
    write_bonds_staged_kernel<<<(unsigned)blocks, STAGE_THREADS, capacity * sizeof(uint32_t)>>>(
        *cells, n, (const real *)x, offsets, neighbors, (uint32_t)capacity);
    return check_launch("pd_write_bonds_staged", err);
  }
  write_bonds_kernel<<<cl_grid_1d(n), CL_THREADS>>>(*cells, n, (const real *)x, offsets,
                                                     neighbors);
  return check_launch("pd_write_bonds", err);
}

/* Element-type generic: one definition, in the f64 copy of this file. */
#ifndef CL_PRECISION_F32

template <typename T>
static __global__ void gather_kernel(size_t n_src, size_t n, size_t k, const T *src, const uint32_t *order,
                                     T *dst) {
  CL_GRID_STRIDE(e, n * k) {
    size_t c = e / n, i = e - c * n;
    dst[e] = src[c * n_src + order[i]];
  }
}

template <typename T>
static cl_status launch_gather(size_t n_src, size_t n, int k, const void *src, const uint32_t *order, void *dst,
                               cl_error *err) {
  if (n == 0 || k == 0) return CL_OK;
  gather_kernel<T><<<cl_grid_1d(n * k), CL_THREADS>>>(n_src, n, (size_t)k, (const T *)src, order,
                                                       (T *)dst);
  return check_launch("pd_gather", err);
}

extern "C" cl_status cl_pd_gather_cuda(size_t elem_size, size_t n_src, size_t n, int k, const void *src,
                                       const uint32_t *order, void *dst, cl_error *err) {
  switch (elem_size) {
    case 1: return launch_gather<uint8_t>(n_src, n, k, src, order, dst, err);
    case 4: return launch_gather<uint32_t>(n_src, n, k, src, order, dst, err);
    case 8: return launch_gather<uint64_t>(n_src, n, k, src, order, dst, err);
    default:
      return cl_error_set(err, CL_ERR_INTERNAL,
                          "cl_pd_gather: no cuda gather for %zu-byte elements", elem_size);
  }
}

#endif
