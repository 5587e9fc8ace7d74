/* The cohesive-FEM operations as CUDA kernels (czm.h holds the physics): one thread per
 * element of the launch's range (a colour, or all) or per node. Launched on the per-thread
 * default stream, which the model's cuda graphs of steps record (kernels/czm/czm_model.c). */
#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "../common/launch_cuda.cuh"
#include "czm.h"
#include "czm_kernels.h"

/* One kernel per operation and order: a single kernel switching on the operation carried the
 * registers of the largest (insertion) into all of them. */
template <int ORDER, int OP>
__global__ void CL_PREC(czm_element_kernel)(cl_czm_args A, real *out) {
  CL_GRID_STRIDE(r, A.count) {
    const size_t e = A.first + r;
    if (OP == CL_CZM_FORCE) cl_czm_element_force(&A, ORDER, e);
    if (OP == CL_CZM_MASS) cl_czm_element_mass(&A, ORDER, e);
    if (OP == CL_CZM_STRESS) cl_czm_element_stress(&A, ORDER, e);
    if (OP == CL_CZM_STIFFNESS) cl_czm_store_stiffness(&A, ORDER, e, (real *)A.stiffness);
    if (OP == CL_CZM_ENERGY) out[e] = cl_czm_element_energy(&A, ORDER, e);
    if (OP == CL_CZM_CHECK) {
      const int marked = cl_czm_facet_check(&A, ORDER, e);
      if (marked) atomicAdd((unsigned long long *)&A.counters[3], (unsigned long long)marked);
    }
    if (OP == CL_CZM_COUNT) A.counts[e] = cl_czm_insert_count(&A, ORDER, e);
  }
}

/* Insertion with the block-local counter of paper 000, Appendix A (Table A.1): each thread adds
 * its element's counts to a counter in shared memory, one thread per block adds the block's
 * total to the global counters, and each element numbers from the block's base plus its own
 * offset. One launch per colour instead of the scan's three, but the numbering depends on the
 * order in which blocks and threads reach the atomics. */
template <int ORDER>
__global__ void CL_PREC(czm_apply_block_kernel)(cl_czm_args A) {
  __shared__ unsigned long long nodes, cohesive, node_base, coh_base;
  for (size_t r0 = (size_t)blockIdx.x * blockDim.x; r0 < A.count; r0 += (size_t)gridDim.x * blockDim.x) {
    const size_t r = r0 + threadIdx.x, e = A.first + r;
    const uint64_t mine = r < A.count ? A.counts[e] : 0;
    if (threadIdx.x == 0) nodes = cohesive = 0;
    __syncthreads();
    unsigned long long my_node = 0, my_coh = 0;
    if (mine) my_node = atomicAdd(&nodes, mine >> 32), my_coh = atomicAdd(&cohesive, mine & 0xffffffffu);
    __syncthreads();
    if (threadIdx.x == 0) {
      node_base = nodes ? atomicAdd((unsigned long long *)&A.counters[0], nodes) : 0;
      coh_base = cohesive ? atomicAdd((unsigned long long *)&A.counters[1], cohesive) : 0;
    }
    __syncthreads();
    if (mine) cl_czm_insert_apply_from(&A, ORDER, e, (uint32_t)(node_base + my_node), (size_t)(coh_base + my_coh));
    __syncthreads(); /* the shared counters are reused by the next round */
  }
}

/* Nodal stresses or masses scattered from every element inside a cooperative kernel: all at
 * once with atomics, or colour by colour with a grid-wide barrier after each. */
template <int ORDER, int OP>
__device__ void scatter_elements(const cl_czm_args *A, cooperative_groups::grid_group &grid) {
  for (int j = 0; j < (A->atomic ? 1 : A->ncolours); j++) {
    const size_t first = A->atomic ? 0 : A->colour_range[j], end = A->atomic ? A->ne : A->colour_range[j + 1];
    for (size_t e = first + grid.thread_rank(); e < end; e += grid.size()) {
      if (OP == CL_CZM_STRESS) cl_czm_element_stress(A, ORDER, e);
      else cl_czm_element_mass(A, ORDER, e);
    }
    grid.sync();
  }
}

/* This block's share [lo, hi) of n items split into one contiguous chunk per block. */
__device__ static inline void block_chunk(size_t n, size_t *lo, size_t *hi) {
  const size_t chunk = (n + gridDim.x - 1) / gridDim.x, b = blockIdx.x;
  *lo = b * chunk < n ? b * chunk : n;
  *hi = (b + 1) * chunk < n ? (b + 1) * chunk : n;
}

/* Block-wide scratch of the insertion kernel's scans: cub's storage and the block's share of a
 * grid-wide sum. */
template <int THREADS>
struct insert_scratch {
  typedef cub::BlockScan<unsigned long long, THREADS> scan_t;
  typedef cub::BlockReduce<unsigned long long, THREADS> reduce_t;
  union { typename scan_t::TempStorage scan; typename reduce_t::TempStorage reduce; } tmp;
  unsigned long long before, total;
};

/* Posts this block's sum of `mine`; after a grid-wide barrier every block reads all of them:
 * the sum over the blocks before it (returned) and over all (*total). */
template <int THREADS>
__device__ unsigned long long grid_prefix(insert_scratch<THREADS> &S, unsigned long long *block_sums,
                                          unsigned long long mine, unsigned long long *total,
                                          cooperative_groups::grid_group &grid) {
  typedef typename insert_scratch<THREADS>::reduce_t reduce_t;
  mine = reduce_t(S.tmp.reduce).Sum(mine);
  if (threadIdx.x == 0) block_sums[blockIdx.x] = mine;
  grid.sync();
  unsigned long long before = 0, all = 0;
  for (size_t k = threadIdx.x; k < gridDim.x; k += blockDim.x) {
    const unsigned long long v = block_sums[k];
    all += v, before += k < blockIdx.x ? v : 0;
  }
  before = reduce_t(S.tmp.reduce).Sum(before);
  if (threadIdx.x == 0) S.before = before;
  __syncthreads();
  all = reduce_t(S.tmp.reduce).Sum(all);
  if (threadIdx.x == 0) S.total = all;
  __syncthreads();
  *total = S.total;
  return S.before;
}

/* The exclusive scan of value(i) over this block's [lo, hi), tile by tile from `run`: put(i, its
 * prefix) for every i. */
template <int THREADS, class Value, class Put>
__device__ void block_scan(insert_scratch<THREADS> &S, size_t lo, size_t hi, unsigned long long run, Value value,
                           Put put) {
  typedef typename insert_scratch<THREADS>::scan_t scan_t;
  for (size_t t0 = lo; t0 < hi; t0 += blockDim.x) {
    const size_t i = t0 + threadIdx.x;
    unsigned long long offset, tile;
    scan_t(S.tmp.scan).ExclusiveSum(i < hi ? value(i) : 0, offset, tile);
    if (i < hi) put(i, run + offset);
    run += tile;
    __syncthreads(); /* the scan's storage is reused by the next tile */
  }
}

/* The check and insertion of every colour with marks in one cooperative launch (CL_CZM_INSERT),
 * so that a check needs no host round trip and adds no launch to a cuda graph. With CHECK
 * (A.insert_check): the nodal stresses (zeroed by the node pass before) and the facet check
 * (marks counted per colour), each phase ending at a grid-wide barrier. Then, when anything is
 * marked, per colour with marks, phases each ending at a grid-wide barrier:
 * 1. when the colour has more elements than the grid has threads, each block counts the marked
 *    elements of its contiguous chunk of the colour;
 * 2. and from the chunks before its own, each block lists its marked elements in order (offsets
 *    [first, first + marked) hold the list), so that the fan walks that follow are spread evenly
 *    over the threads instead of waiting on the threads with the most marked elements;
 * 3. each block counts the new nodes and cohesive elements of its share of the list, or of the
 *    colour's elements (counts);
 * 4. each block scans its share from the shares before its own (the counts become offsets) and
 *    cracks its elements. That is the exclusive scan of the colour's counts in element order,
 *    so the numbering is the ordered one of the cpu. The next colour waits for this one's
 *    relabelling.
 * Then, when anything was cracked and A.insert_masses is set, the masses are rebuilt (zeroed, a
 * barrier, scattered). Every block reads the counters before the first barrier; block 0 writes
 * them after the last. */
/* Threads per block: with the check, 64 (its element phases then spread over every
 * multiprocessor, as the element kernels'); without, 128 with at most 64 registers (8 blocks per
 * multiprocessor: the fan walks wait on memory and want many threads in flight). */
#define CL_CZM_INSERT_THREADS(check) ((check) ? 64 : 128)

template <int ORDER, bool CHECK>
__global__ void __launch_bounds__(CL_CZM_INSERT_THREADS(CHECK), CHECK ? 1 : 8) CL_PREC(czm_insert_kernel)(cl_czm_args A) {
  namespace cg = cooperative_groups;
  __shared__ insert_scratch<CL_CZM_INSERT_THREADS(CHECK)> S;
  cg::grid_group grid = cg::this_grid();
  unsigned long long *block_sums = (unsigned long long *)A.block_sums, *counts = (unsigned long long *)A.counts;
  uint64_t node_base = A.counters[0], coh_base = A.counters[1], inserted = 0;
  if (CHECK) {
    scatter_elements<ORDER, CL_CZM_STRESS>(&A, grid);
    for (size_t e = grid.thread_rank(); e < A.ne; e += grid.size())
      if (const int marked = cl_czm_facet_check(&A, ORDER, e))
        atomicAdd((unsigned long long *)&A.counters[3], (unsigned long long)marked);
    grid.sync();
  }
  if (!A.counters[3]) return; /* nothing marked: one read instead of one per colour */
  for (int j = 0; j < A.ncolours; j++) {
    if (!A.counters[4 + j]) continue; /* the same in every block: the marks are final here */
    const size_t first = A.colour_range[j], count = A.colour_range[j + 1] - first;
    const uint8_t *mask = A.mask + first;
    uint64_t *list = A.offsets + first;
    const bool listed = count > grid.size(); /* else each thread has one element at most */
    size_t lo, hi, n = count;
    unsigned long long mine = 0, total;
    if (listed) {
      block_chunk(count, &lo, &hi);
      for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) mine += mask[i] != 0;
      const unsigned long long before = grid_prefix(S, block_sums, mine, &total, grid);
      block_scan(S, lo, hi, before, [&](size_t i) { return (unsigned long long)(mask[i] != 0); },
                 [&](size_t i, unsigned long long at) { if (mask[i]) list[at] = first + i; });
      grid.sync();
      n = total, mine = 0;
    }
    block_chunk(n, &lo, &hi);
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) {
      const uint64_t c = cl_czm_insert_count(&A, ORDER, listed ? list[i] : first + i);
      counts[first + i] = c, mine += c;
    }
    const unsigned long long run = grid_prefix(S, block_sums, mine, &total, grid);
    block_scan(S, lo, hi, run, [&](size_t i) { return counts[first + i]; },
               [&](size_t i, unsigned long long at) { counts[first + i] = at; });
    for (size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) { /* the fan walks, each thread at its own pace */
      const uint64_t off = counts[first + i];
      cl_czm_insert_apply_from(&A, ORDER, listed ? list[i] : first + i, (uint32_t)(node_base + (off >> 32)),
                               (size_t)(coh_base + (off & 0xffffffffu)));
    }
    node_base += total >> 32, coh_base += total & 0xffffffffu, inserted += total;
    grid.sync();
  }
  if (!inserted) return;
  if (A.insert_masses) {
    for (size_t i = grid.thread_rank(); i < node_base; i += grid.size()) ((real *)A.mass)[i] = 0;
    grid.sync();
    scatter_elements<ORDER, CL_CZM_MASS>(&A, grid);
  }
  if (grid.thread_rank() == 0) A.counters[0] = node_base, A.counters[1] = coh_base;
}

/* The cooperative grid of the insertion kernel: as many blocks as fit at once (a grid-wide
 * barrier needs them all resident), no more than the check's elements or the widest colour
 * (A->count) need. A kernel without the check's code holds fewer registers, so more blocks. */
template <int ORDER, bool CHECK>
static int launch_insert_as(const cl_czm_args *A) {
  static int per_sm = 0, sms = 0;
  if (!per_sm) {
    int dev;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, CL_PREC(czm_insert_kernel)<ORDER, CHECK>,
                                                  CL_CZM_INSERT_THREADS(CHECK), 0);
    if (per_sm < 1) per_sm = 1;
  }
  const size_t threads = CL_CZM_INSERT_THREADS(CHECK), want = ((CHECK ? A->ne : A->count) + threads - 1) / threads;
  const unsigned blocks = (unsigned)(want < (size_t)per_sm * sms ? want : (size_t)per_sm * sms);
  cl_czm_args args = *A;
  void *params[] = {&args};
  return (int)cudaLaunchCooperativeKernel((const void *)CL_PREC(czm_insert_kernel)<ORDER, CHECK>, blocks,
                                          (unsigned)threads, params, 0, cudaStreamPerThread);
}

template <int ORDER>
static int launch_insert(const cl_czm_args *A) {
  return A->insert_check ? launch_insert_as<ORDER, true>(A) : launch_insert_as<ORDER, false>(A);
}

template <int ORDER>
static void launch_elements(const cl_czm_args *A, int op, real *out, unsigned blocks) {
  switch (op) {
    case CL_CZM_FORCE: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_FORCE><<<blocks, CL_CZM_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_MASS: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_MASS><<<blocks, CL_CZM_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_STRESS: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_STRESS><<<blocks, CL_CZM_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_STIFFNESS: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_STIFFNESS><<<blocks, CL_CZM_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_ENERGY: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_ENERGY><<<blocks, CL_CZM_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_CHECK: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_CHECK><<<blocks, CL_CZM_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_COUNT: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_COUNT><<<blocks, CL_CZM_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_APPLY_BLOCK: CL_PREC(czm_apply_block_kernel)<ORDER><<<blocks, CL_CZM_THREADS, 0, cudaStreamPerThread>>>(*A); break;
    default: break;
  }
}

__global__ void CL_PREC(czm_node_kernel)(cl_czm_args A, int op, real *out) {
  CL_GRID_STRIDE(r, A.count) cl_czm_node_op(&A, op, A.first + r, out);
}

extern "C" int CL_PREC(cl_czm_run_cuda)(const cl_czm_args *A, int op, void *out) {
  if (A->count == 0) return 0;
  const unsigned blocks = op < CL_CZM_FORCE ? cl_grid_1d(A->count) : cl_grid_blocks(A->count, CL_CZM_THREADS);
  if (op < CL_CZM_FORCE) {
    CL_PREC(czm_node_kernel)<<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, op, (real *)out);
    return (int)cudaGetLastError();
  }
  switch (op) {
    case CL_CZM_INSERT: return A->order == 2 ? launch_insert<2>(A) : launch_insert<1>(A);
    default:
      if (A->order == 2) launch_elements<2>(A, op, (real *)out, blocks);
      else launch_elements<1>(A, op, (real *)out, blocks);
  }
  return (int)cudaGetLastError();
}
