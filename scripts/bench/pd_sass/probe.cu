/* SASS probe (count.sh): the lattice point kernels with no per-point volume, no surface correction and no
 * energy (the benchmark's configuration), so that the instructions left are those every bond runs. */
#include "kernels/pd/force_kernels.cuh"
#ifdef PROBE_TABLE
#include "kernels/pd/stencil_table.cuh"
#endif

static __device__ __forceinline__ cl_pd_force_args plain(cl_pd_force_args a) {
  a.volume = NULL, a.surface = NULL, a.energy = NULL, a.body = NULL, a.nonfinite = NULL;
  return a;
}
template <int DIM>
__global__ void probe_walk(cl_pd_force_args a, cl_pd_pmb m) { cl_pd_point_body<DIM, true>(plain(a), m); }
#ifdef PROBE_TABLE
template <int DIM, int K>
__global__ void probe_table(cl_pd_force_args a, cl_pd_pmb m, const cl_pd_stencil_table<DIM, K> t) {
  const cl_pd_force_args b = plain(a);
  CL_GRID_STRIDE(i, b.n) {
    cl_pd_partial p = {};
    cl_pd_table_row<DIM, K>(&b, &m, t, i, &p);
    cl_pd_finish(&b, &m, DIM, i, &p);
  }
}
#endif
template __global__ void probe_walk<2>(cl_pd_force_args, cl_pd_pmb);
template __global__ void probe_walk<3>(cl_pd_force_args, cl_pd_pmb);
#ifdef PROBE_TABLE
template __global__ void probe_table<2, 28>(cl_pd_force_args, cl_pd_pmb, const cl_pd_stencil_table<2, 28>);
template __global__ void probe_table<3, 122>(cl_pd_force_args, cl_pd_pmb, const cl_pd_stencil_table<3, 122>);
#endif
