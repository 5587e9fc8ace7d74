/* The narrow phase's count and write passes on cuda (narrow_kernels.h): CL_DDA_NARROW_LANES lanes
 * a pair, a lane a task of it at a time (narrow.h: cl_dda_pair_task, one vertex's loop over the
 * other block's edges or vertices). A thread a pair was one long serial chain of f64 work and
 * loads (both boxes, then ~12 vertex loops for case 1's blocks of 4 vertices) with one or two warps
 * a scheduler to hide it: case 1's ~17 000 pairs took 128 us a pass on the H100. Eight lanes: case
 * 1's pairs have 10 to 18 tasks, two or three rounds, and a warp holds four pairs. The contacts keep
 * the pairs' order and each pair's (the tasks' in task order): a lane's count, then the pair's
 * exclusive scan of the counts, gives where a lane writes its own. The write pass takes a task's
 * count from the count pass's bits (cl_dda_pair_task_count) and runs only the tasks that found
 * contacts: it ran them all to count them again. */
#include "../common/launch_cuda.cuh"
#include "narrow_kernels.h"

#define CL_DDA_NARROW_LANES 8
#define CL_DDA_NARROW_THREADS 256
#define CL_DDA_NARROW_PAIRS (CL_DDA_NARROW_THREADS / CL_DDA_NARROW_LANES) /* a thread block's */

/* Block b's box grown by grow, as cl_dda_block_box makes it: its vertices split over the pair's
 * lanes, their extremes combined across them (a min or a max is exact in any order). */
__device__ static cl_dda_box lanes_box(const cl_dda_geometry *g, int32_t b, double grow, int lane, unsigned mask) {
  cl_dda_box r = {INFINITY, INFINITY, -INFINITY, -INFINITY};
  for (int32_t v = g->vstart[b] + lane; v < g->vstart[b + 1]; v += CL_DDA_NARROW_LANES) {
    r.x0 = fmin(r.x0, g->vx[v]), r.y0 = fmin(r.y0, g->vy[v]);
    r.x1 = fmax(r.x1, g->vx[v]), r.y1 = fmax(r.y1, g->vy[v]);
  }
  for (int off = CL_DDA_NARROW_LANES / 2; off > 0; off >>= 1) {
    r.x0 = fmin(r.x0, __shfl_xor_sync(mask, r.x0, off, CL_DDA_NARROW_LANES));
    r.y0 = fmin(r.y0, __shfl_xor_sync(mask, r.y0, off, CL_DDA_NARROW_LANES));
    r.x1 = fmax(r.x1, __shfl_xor_sync(mask, r.x1, off, CL_DDA_NARROW_LANES));
    r.y1 = fmax(r.y1, __shfl_xor_sync(mask, r.y1, off, CL_DDA_NARROW_LANES));
  }
  r.x0 -= grow, r.y0 -= grow, r.x1 += grow, r.y1 += grow;
  return r;
}

__global__ void __launch_bounds__(CL_DDA_NARROW_THREADS) dda_narrow_kernel(cl_dda_narrow_args a) {
  const int lane = (int)(threadIdx.x % CL_DDA_NARROW_LANES);
  const unsigned mask = ((1u << CL_DDA_NARROW_LANES) - 1) << (threadIdx.x & 31 & ~(CL_DDA_NARROW_LANES - 1));
  const size_t pairs = (size_t)gridDim.x * CL_DDA_NARROW_PAIRS;
  /* k is the pair's lanes': they run the same loops (their shuffles need all of them) */
  for (size_t k = (size_t)blockIdx.x * CL_DDA_NARROW_PAIRS + threadIdx.x / CL_DDA_NARROW_LANES; k < a.npairs;
       k += pairs) {
    const int32_t i = a.pairs[2 * k], j = a.pairs[2 * k + 1];
    const cl_dda_box near_i = lanes_box(&a.g, i, 2 * a.d0, lane, mask), near_j = lanes_box(&a.g, j, 2 * a.d0, lane, mask);
    const int32_t tasks = cl_dda_pair_tasks(&a.g, i, j);
    const int64_t room = a.count ? 0 : a.offset[k + 1] - a.offset[k];
    /* the write pass takes the counts the count pass left (cl_dda_pair_task_count); the count
     * pass gathers them, each lane its own task's bits */
    uint64_t known = a.count ? 0 : a.known[k];
    int64_t done = 0; /* the contacts of the rounds before */
    for (int32_t first = 0; first < tasks; first += CL_DDA_NARROW_LANES) {
      const int32_t task = first + lane;
      int count = 0;
      if (task < tasks && a.count) {
        cl_dda_found_out counted = {NULL, 0, 0};
        cl_dda_pair_task(&a.g, i, j, task, near_i, near_j, a.d0, &counted);
        count = counted.count;
        known |= cl_dda_task_count_bits(task, count);
      } else if (task < tasks) {
        count = cl_dda_pair_task_count(&a.g, i, j, task, near_i, near_j, a.d0, known);
      }
      int before = count; /* inclusive, then exclusive scan of the lanes' counts */
      for (int off = 1; off < CL_DDA_NARROW_LANES; off <<= 1) {
        const int up = __shfl_up_sync(mask, before, off, CL_DDA_NARROW_LANES);
        if (lane >= off) before += up;
      }
      const int round = __shfl_sync(mask, before, CL_DDA_NARROW_LANES - 1, CL_DDA_NARROW_LANES);
      before -= count;
      const int64_t at = done + before, cap = room - at < count ? room - at : count;
      if (!a.count && cap > 0) {
        cl_dda_found_out o = {a.out + a.offset[k] + at, (int)cap, 0};
        cl_dda_pair_task(&a.g, i, j, task, near_i, near_j, a.d0, &o);
      }
      done += round;
    }
    if (a.count) { /* the lanes' bits into one word (an or, exact in any order) */
      for (int off = CL_DDA_NARROW_LANES / 2; off > 0; off >>= 1)
        known |= __shfl_xor_sync(mask, (unsigned long long)known, off, CL_DDA_NARROW_LANES);
      if (lane == 0) a.count[k] = done, a.known[k] = known;
    }
  }
}

extern "C" int cl_dda_narrow_cuda(const cl_dda_narrow_args *a) {
  if (a->npairs == 0) return 0;
  dda_narrow_kernel<<<cl_grid_blocks(a->npairs, CL_DDA_NARROW_PAIRS), CL_DDA_NARROW_THREADS>>>(*a);
  return (int)cudaGetLastError();
}
