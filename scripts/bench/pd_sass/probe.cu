/* SASS probe (count.sh): the lattice stencil walk with no per-point volume, no surface correction and no
 * energy (the benchmark's configuration), so that the instructions left are those every bond runs. */
#include "kernels/pd/force_kernels.cuh"

static __device__ __forceinline__ cl_pd_force_args plain(cl_pd_force_args a) {
  a.volume = NULL, a.surface = NULL, a.energy = NULL, a.body = NULL, a.nonfinite = NULL;
  return a;
}
template <int DIM>
__global__ void probe_walk(cl_pd_force_args a, cl_pd_pmb m) { cl_pd_point_body<DIM, true>(plain(a), m); }
template __global__ void probe_walk<2>(cl_pd_force_args, cl_pd_pmb);
template __global__ void probe_walk<3>(cl_pd_force_args, cl_pd_pmb);
