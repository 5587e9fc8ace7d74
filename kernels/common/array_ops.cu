/* Fill and reductions for every field dtype on the cuda backend. */
#include <stdint.h>

#include "../../runtime/dtype.h"
#include "../../runtime/field.h"
#include "../backend.h"
#include "reduce_cuda.cuh"

template <typename T>
__global__ void fill_kernel(T *p, size_t n, T v) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = v;
}

template <typename T>
static int launch_fill(void *data, size_t n, double value) {
  if (n == 0) return 0;
  int blocks = (int)((n + 255) / 256 > 65535 * 4 ? 65535 * 4 : (n + 255) / 256);
  fill_kernel<T><<<blocks, 256>>>((T *)data, n, (T)value);
  return (int)cudaGetLastError();
}

extern "C" int cl_fill_cuda(int t, void *data, size_t count, double value) {
  switch ((cl_dtype)t) {
    case CL_F32: return launch_fill<float>(data, count, value);
    case CL_F64: return launch_fill<double>(data, count, value);
    case CL_I32: return launch_fill<int32_t>(data, count, value);
    case CL_U32: return launch_fill<uint32_t>(data, count, value);
    case CL_U8: return launch_fill<uint8_t>(data, count, value);
    default: return (int)cudaErrorInvalidValue;
  }
}

/* How partials combine: the first non-finite index is the least of them. */
__host__ __device__ static inline int combine_of(int op) {
  return op == CL_REDUCE_MAX ? CL_COMBINE_MAX : op == CL_REDUCE_SUM || op == CL_REDUCE_NORM2 ? CL_COMBINE_SUM : CL_COMBINE_MIN;
}

template <typename T>
__global__ void reduce_kernel(const T *p, size_t n, int op, double *partials) {
  int how = combine_of(op);
  double acc = cl_combine_identity(how);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    double x = (double)p[i];
    acc = cl_combine(how, acc, op == CL_REDUCE_NORM2 ? x * x : op == CL_REDUCE_FIRST_NONFINITE ? cl_nonfinite_index(x, i) : x);
  }
  acc = cl_block_reduce(how, acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

__global__ void reduce_partials_kernel(int how, const double *partials, int nparts, double *result) {
  double acc = cl_combine_identity(how);
  for (int i = threadIdx.x; i < nparts; i += blockDim.x) acc = cl_combine(how, acc, partials[i]);
  acc = cl_block_reduce(how, acc);
  if (threadIdx.x == 0) *result = acc;
}

extern "C" int cl_cuda_reduce_finish(int how, double *scratch, int nparts, double *out) {
  reduce_partials_kernel<<<1, CL_REDUCE_THREADS>>>(how, scratch, nparts, scratch + CL_REDUCE_MAX_BLOCKS);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return (int)e;
  return (int)cudaMemcpy(out, scratch + CL_REDUCE_MAX_BLOCKS, sizeof(double), cudaMemcpyDeviceToHost);
}

template <typename T>
static int launch_reduce(const void *data, size_t n, int op, double *scratch, double *out) {
  int e;
  int blocks = cl_reduce_blocks(n);
  reduce_kernel<T><<<blocks, CL_REDUCE_THREADS>>>((const T *)data, n, op, scratch);
  if ((e = (int)cudaGetLastError())) return e;
  return cl_cuda_reduce_finish(combine_of(op), scratch, blocks, out);
}

/* count f64 reductions, each as cl_reduce_cuda's in its own slice of the scratch, their results side
 * by side after the slices and read back in one copy: one host wait for all. */
extern "C" int cl_reduce_many_cuda(int count, const double *const *data, const size_t *n, const int *op, double *scratch,
                                   double *out) {
  double *results = scratch + (size_t)CL_REDUCE_MANY_MAX * (CL_REDUCE_MAX_BLOCKS + 1);
  for (int k = 0; k < count; k++) {
    double *partials = scratch + (size_t)k * (CL_REDUCE_MAX_BLOCKS + 1);
    int blocks = cl_reduce_blocks(n[k]);
    reduce_kernel<double><<<blocks, CL_REDUCE_THREADS>>>(data[k], n[k], op[k], partials);
    reduce_partials_kernel<<<1, CL_REDUCE_THREADS>>>(combine_of(op[k]), partials, blocks, results + k);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return (int)e;
  }
  return count ? (int)cudaMemcpy(out, results, (size_t)count * sizeof(double), cudaMemcpyDeviceToHost) : 0;
}

extern "C" int cl_reduce_cuda(int t, const void *data, size_t count, int op, double *scratch, double *out) {
  switch ((cl_dtype)t) {
    case CL_F32: return launch_reduce<float>(data, count, op, scratch, out);
    case CL_F64: return launch_reduce<double>(data, count, op, scratch, out);
    case CL_I32: return launch_reduce<int32_t>(data, count, op, scratch, out);
    case CL_U32: return launch_reduce<uint32_t>(data, count, op, scratch, out);
    case CL_U8: return launch_reduce<uint8_t>(data, count, op, scratch, out);
    default: return (int)cudaErrorInvalidValue;
  }
}
