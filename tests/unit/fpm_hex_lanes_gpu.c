/* The GPU branch of kernels/fpm/hex.h compiled on the host: __CUDA_ARCH__ defined, each element's 8
 * lanes run as 8 threads, a shuffle is a write of the lanes' values, a barrier, a read and a
 * barrier, atomicAdd a locked add (for test_fpm_hex_lanes.c). */
#include <pthread.h>

#define __CUDA_ARCH__ 900
#define __device__
#define CL_RSQRT(x) (1 / sqrt(x))
#define __dmul_rn(x, y) ((x) * (y)) /* the device's product rounded on its own (real.h: cl_mul_rn) */
#include "fpm_hex_lanes.h"

static _Thread_local struct { unsigned x; } threadIdx;
static pthread_barrier_t barrier;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static double slots[8];

static double exchange(double v, int src) {
  slots[threadIdx.x % 8] = v;
  pthread_barrier_wait(&barrier);
  const double r = slots[src];
  pthread_barrier_wait(&barrier);
  return r;
}
static double __shfl_sync(unsigned mask, double v, int src, int width) {
  (void)mask, (void)width;
  return exchange(v, src);
}
static double __shfl_xor_sync(unsigned mask, double v, int m, int width) {
  (void)mask, (void)width;
  return exchange(v, (int)(threadIdx.x % 8) ^ m);
}
static void atomicAdd(double *p, double v) {
  pthread_mutex_lock(&lock);
  *p += v;
  pthread_mutex_unlock(&lock);
}

#include "../../kernels/fpm/hex.h"

typedef struct lane_job {
  const cl_fpm_hex_args *A;
  unsigned lane;
} lane_job;

static void *run_lane(void *arg) {
  const lane_job *job = arg;
  for (size_t e = 0; e < job->A->ne; e++) {
    threadIdx.x = 8 * (unsigned)(e % 4) + job->lane; /* the element's place in its warp */
    cl_fpm_hex_item(job->A, 8 * e + job->lane);
  }
  return NULL;
}

void fpm_hex_lanes_gpu(const struct cl_fpm_hex_args *A) {
  pthread_t threads[8];
  lane_job jobs[8];
  pthread_barrier_init(&barrier, NULL, 8);
  for (unsigned l = 0; l < 8; l++) {
    jobs[l] = (lane_job){A, l};
    pthread_create(&threads[l], NULL, run_lane, &jobs[l]);
  }
  for (unsigned l = 0; l < 8; l++) pthread_join(threads[l], NULL);
  pthread_barrier_destroy(&barrier);
}
