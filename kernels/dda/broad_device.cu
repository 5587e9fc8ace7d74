/* The broad phase's passes on cuda (broad_kernels.h): a thread an item (the pair passes: a warp a
 * block, a thread block a long box); the keys sorted and the counts summed by CUB, as the PD
 * neighbour lists do. */
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "../common/launch_cuda.cuh"
#include "broad_kernels.h"

__global__ void dda_broad_kernel(cl_dda_broad_args a, int pass, size_t items) {
  CL_GRID_STRIDE(k, items) cl_dda_broad_item(&a, pass, k);
}

/* A block's partners found by `lanes` threads, lane t taking its cells t, t + lanes, ... (cl_dda_partners_in):
 * the count pass writes their number, the write pass each thread's partners and keys after those of
 * the threads before it (`before`) in the block's range -- the keys are sorted afterwards, so the order
 * inside a range is not the pairs' (the same list as the cpu's thread a block). */
__device__ static void pairs_of(const cl_dda_broad_args *a, int pass, size_t k, size_t t, size_t lanes, int64_t mine,
                                int64_t before, int64_t total) {
  if (pass == CL_DDA_PAIR_COUNT) {
    if (t == lanes - 1) a->count[k] = total;
    return;
  }
  const int64_t at = a->offset[k] + before;
  cl_dda_partners_in(&a->cells, a->boxes, (int32_t)k, t, lanes, a->pairs + at);
  for (int64_t p = 0; p < mine; p++) a->keys[at + p] = (uint64_t)k * a->g.n + (uint64_t)a->pairs[at + p];
}

/* A box over more cells than a warp has lanes is searched by its whole thread block (CL_THREADS
 * threads, a cell or a few each) after the block's warps have done their other boxes: case 2's slope,
 * a box over the whole grid (~6 700 cells of 15 m), was one warp's 210 cells a lane, one after another,
 * 463 us a pass on the H100 while the rest of the grid had long finished; case 1's base (a row of
 * cells) 34.5 us. At most CL_DDA_LONG_BOXES a thread block; a warp searches the ones past that itself. */
#define CL_DDA_LONG_BOX_CELLS 32
#define CL_DDA_LONG_BOXES 32

/* CL_DDA_PAIR_COUNT and CL_DDA_PAIR_WRITE a warp a block (lane l takes the block's cells l, l + 32, ...),
 * or a thread block a long box. */
__global__ void __launch_bounds__(CL_THREADS) dda_broad_pairs_kernel(cl_dda_broad_args a, int pass) {
  typedef cub::BlockScan<int64_t, CL_THREADS> scan_t;
  __shared__ typename scan_t::TempStorage scan;
  __shared__ int32_t long_box[CL_DDA_LONG_BOXES];
  __shared__ int nlong;
  const unsigned full = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const size_t n = a.g.n, warps = (size_t)gridDim.x * (blockDim.x / 32);
  if (threadIdx.x == 0) nlong = 0;
  __syncthreads();
  for (size_t k = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; k < n; k += warps) {
    if (cl_dda_cell_count(&a.cells, a.boxes[k]) > CL_DDA_LONG_BOX_CELLS) {
      int slot = 0;
      if (lane == 0 && (slot = atomicAdd(&nlong, 1)) < CL_DDA_LONG_BOXES) long_box[slot] = (int32_t)k;
      if (__shfl_sync(full, slot, 0) < CL_DDA_LONG_BOXES) continue; /* the thread block's, below */
    }
    const int64_t mine = cl_dda_partners_in(&a.cells, a.boxes, (int32_t)k, (size_t)lane, 32, NULL);
    int64_t upto = mine; /* the lanes' inclusive sum */
    for (int off = 1; off < 32; off <<= 1) {
      const int64_t t = __shfl_up_sync(full, upto, off);
      if (lane >= off) upto += t;
    }
    pairs_of(&a, pass, k, (size_t)lane, 32, mine, upto - mine, upto);
  }
  __syncthreads();
  const int m = nlong < CL_DDA_LONG_BOXES ? nlong : CL_DDA_LONG_BOXES;
  for (int q = 0; q < m; q++) {
    const size_t k = (size_t)long_box[q];
    const int64_t mine = cl_dda_partners_in(&a.cells, a.boxes, (int32_t)k, threadIdx.x, CL_THREADS, NULL);
    int64_t before, total;
    scan_t(scan).ExclusiveSum(mine, before, total);
    pairs_of(&a, pass, k, threadIdx.x, CL_THREADS, mine, before, total);
    __syncthreads(); /* the scan's storage is reused */
  }
}

extern "C" int cl_dda_broad_cuda(const cl_dda_broad_args *a, int pass, size_t items) {
  if (items == 0) return 0;
  if (pass == CL_DDA_PAIR_COUNT || pass == CL_DDA_PAIR_WRITE)
    dda_broad_pairs_kernel<<<cl_grid_blocks(32 * items, CL_THREADS), CL_THREADS>>>(*a, pass);
  else
    dda_broad_kernel<<<cl_grid_1d(items), CL_THREADS>>>(*a, pass, items);
  return (int)cudaGetLastError();
}

extern "C" int cl_dda_sort_keys_cuda(void *temp, size_t *temp_bytes, const uint64_t *keys, uint64_t *sorted,
                                     size_t n, int end_bit) {
  return (int)cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, keys, sorted, n, 0, end_bit);
}

extern "C" int cl_dda_inclusive_sum_cuda(void *temp, size_t *temp_bytes, const int64_t *count, int64_t *sums,
                                         size_t n) {
  return (int)cub::DeviceScan::InclusiveSum(temp, *temp_bytes, count, sums, n);
}
