/* The broad phase's passes on cuda (broad_kernels.h): a thread an item; the keys sorted and the
 * counts summed by CUB, as the PD neighbour lists do. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "../common/launch_cuda.cuh"
#include "broad_kernels.h"

__global__ void dda_broad_kernel(cl_dda_broad_args a, int pass, size_t items) {
  CL_GRID_STRIDE(k, items) cl_dda_broad_item(&a, pass, k);
}

extern "C" int cl_dda_broad_cuda(const cl_dda_broad_args *a, int pass, size_t items) {
  if (items == 0) return 0;
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
