/* The narrow phase's count and write passes on cuda (narrow_kernels.h): a warp a pair, a lane a
 * task of it (narrow.h: cl_dda_pair_task, one vertex's loop over the other block's edges or
 * vertices). A thread a pair was one long serial chain of f64 work and loads (~15 vertex loops)
 * with one or two warps a scheduler to hide it: case 1's ~17 000 pairs took 128 us a pass on the
 * H100. The contacts keep the pairs' order and each pair's (the tasks' in task order): a lane's
 * count, then the warp's exclusive scan of the counts, gives where a lane writes its own. */
#include "../common/launch_cuda.cuh"
#include "narrow_kernels.h"

#define CL_DDA_NARROW_WARPS 8

__global__ void __launch_bounds__(32 * CL_DDA_NARROW_WARPS) dda_narrow_kernel(cl_dda_narrow_args a) {
  const int lane = (int)(threadIdx.x & 31);
  const size_t warps = (size_t)gridDim.x * CL_DDA_NARROW_WARPS;
  /* k is the warp's: every lane runs the same loops (the shuffles need all 32) */
  for (size_t k = (size_t)blockIdx.x * CL_DDA_NARROW_WARPS + (threadIdx.x >> 5); k < a.npairs; k += warps) {
    const int32_t i = a.pairs[2 * k], j = a.pairs[2 * k + 1];
    const cl_dda_box near_i = cl_dda_block_box(&a.g, i, 2 * a.d0), near_j = cl_dda_block_box(&a.g, j, 2 * a.d0);
    const int32_t tasks = cl_dda_pair_tasks(&a.g, i, j);
    const int64_t room = a.count ? 0 : a.offset[k + 1] - a.offset[k];
    int64_t done = 0; /* the contacts of the rounds before */
    for (int32_t first = 0; first < tasks; first += 32) {
      const int32_t task = first + lane;
      cl_dda_found_out counted = {NULL, 0, 0};
      if (task < tasks) cl_dda_pair_task(&a.g, i, j, task, near_i, near_j, a.d0, &counted);
      int before = counted.count; /* inclusive, then exclusive scan of the lanes' counts */
      for (int off = 1; off < 32; off <<= 1) {
        const int up = __shfl_up_sync(0xffffffffu, before, off);
        if (lane >= off) before += up;
      }
      const int round = __shfl_sync(0xffffffffu, before, 31);
      before -= counted.count;
      const int64_t at = done + before, cap = room - at < counted.count ? room - at : counted.count;
      if (!a.count && cap > 0) {
        cl_dda_found_out o = {a.out + a.offset[k] + at, (int)cap, 0};
        cl_dda_pair_task(&a.g, i, j, task, near_i, near_j, a.d0, &o);
      }
      done += round;
    }
    if (a.count && lane == 0) a.count[k] = done;
  }
}

extern "C" int cl_dda_narrow_cuda(const cl_dda_narrow_args *a) {
  if (a->npairs == 0) return 0;
  dda_narrow_kernel<<<cl_grid_blocks(a->npairs, CL_DDA_NARROW_WARPS), 32 * CL_DDA_NARROW_WARPS>>>(*a);
  return (int)cudaGetLastError();
}
