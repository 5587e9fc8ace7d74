/* The cohesive-FEM operations as CUDA kernels (czm.h holds the physics): one thread per
 * element of the launch's range (a colour, or all) or per node. Launched on the per-thread
 * default stream, which the model's cuda graph of a step records (runtime/czm_model.c). */
#include <cub/device/device_scan.cuh>

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
    if (OP == CL_CZM_APPLY) cl_czm_insert_apply(&A, ORDER, e);
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

template <int ORDER>
static void launch_elements(const cl_czm_args *A, int op, real *out, unsigned blocks) {
  switch (op) {
    case CL_CZM_FORCE: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_FORCE><<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_MASS: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_MASS><<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_STRESS: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_STRESS><<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_STIFFNESS: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_STIFFNESS><<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_ENERGY: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_ENERGY><<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_CHECK: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_CHECK><<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_COUNT: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_COUNT><<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_APPLY: CL_PREC(czm_element_kernel)<ORDER, CL_CZM_APPLY><<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, out); break;
    case CL_CZM_APPLY_BLOCK: CL_PREC(czm_apply_block_kernel)<ORDER><<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A); break;
    default: break;
  }
}

__global__ void CL_PREC(czm_node_kernel)(cl_czm_args A, int op, real *out) {
  CL_GRID_STRIDE(r, A.count) cl_czm_node_op(&A, op, A.first + r, out);
}

__global__ void CL_PREC(czm_advance_kernel)(cl_czm_args A) {
  const size_t last = A.first + A.count - 1;
  const uint64_t total = A.offsets[last] + A.counts[last];
  A.counters[0] += total >> 32, A.counters[1] += total & 0xffffffffu;
}

/* Exclusive scan of counts over the range with cub, in the model's temporary storage. */
static int scan(const cl_czm_args *A) {
  size_t bytes = A->scan_bytes;
  return (int)cub::DeviceScan::ExclusiveSum(A->scan_storage, bytes, A->counts + A->first, A->offsets + A->first,
                                            A->count, cudaStreamPerThread);
}

/* The temporary storage cub's scan needs for n entries (the model allocates it once). */
extern "C" size_t CL_PREC(cl_czm_scan_bytes_cuda)(size_t n) {
  size_t bytes = 0;
  cub::DeviceScan::ExclusiveSum(NULL, bytes, (const uint64_t *)NULL, (uint64_t *)NULL, n);
  return bytes;
}

extern "C" int CL_PREC(cl_czm_run_cuda)(const cl_czm_args *A, int op, void *out) {
  if (A->count == 0) return 0;
  const unsigned blocks = cl_grid_1d(A->count);
  if (op < CL_CZM_FORCE) {
    CL_PREC(czm_node_kernel)<<<blocks, CL_THREADS, 0, cudaStreamPerThread>>>(*A, op, (real *)out);
    return (int)cudaGetLastError();
  }
  switch (op) {
    case CL_CZM_SCAN: return scan(A);
    case CL_CZM_ADVANCE: CL_PREC(czm_advance_kernel)<<<1, 1, 0, cudaStreamPerThread>>>(*A); break;
    default:
      if (A->order == 2) launch_elements<2>(A, op, (real *)out, blocks);
      else launch_elements<1>(A, op, (real *)out, blocks);
  }
  return (int)cudaGetLastError();
}
