/* The broad phase's passes on cuda (broad_kernels.h): a thread an item (the pair passes: a warp a
 * block); the keys sorted and the counts summed by CUB, as the PD neighbour lists do. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "../common/launch_cuda.cuh"
#include "broad_kernels.h"

__global__ void dda_broad_kernel(cl_dda_broad_args a, int pass, size_t items) {
  CL_GRID_STRIDE(k, items) cl_dda_broad_item(&a, pass, k);
}

/* CL_DDA_PAIR_COUNT and CL_DDA_PAIR_WRITE a warp a block: lane l takes the block's cells l, l + 32,
 * ... (cl_dda_partners_in). The count is the lanes' sum; the write puts each lane's partners and
 * keys after the lower lanes' in the block's range: the keys are sorted afterwards, so the order
 * inside a range is not the pairs' (the same list as the cpu's thread a block). Case 1's fixed base
 * covers a row of cells: 246 us a pass on the H100 for its one thread, ~4 us for the other passes. */
__global__ void dda_broad_pairs_kernel(cl_dda_broad_args a, int pass) {
  const unsigned full = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const size_t n = a.g.n, warps = (size_t)gridDim.x * (blockDim.x / 32);
  for (size_t k = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; k < n; k += warps) {
    const int64_t mine = cl_dda_partners_in(&a.cells, a.boxes, (int32_t)k, (size_t)lane, 32, NULL);
    int64_t upto = mine; /* the lanes' inclusive sum */
    for (int off = 1; off < 32; off <<= 1) {
      const int64_t t = __shfl_up_sync(full, upto, off);
      if (lane >= off) upto += t;
    }
    if (pass == CL_DDA_PAIR_COUNT) {
      if (lane == 31) a.count[k] = upto;
      continue;
    }
    const int64_t at = a.offset[k] + upto - mine;
    cl_dda_partners_in(&a.cells, a.boxes, (int32_t)k, (size_t)lane, 32, a.pairs + at);
    for (int64_t p = 0; p < mine; p++) a.keys[at + p] = (uint64_t)k * n + (uint64_t)a.pairs[at + p];
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
