/* Timing for the C benchmark programs (scripts/bench/dda_*.c): the median of repeated calls after a
 * warm-up, by CUDA events on a cuda device and by the process's CPU time on the cpu (all threads
 * together, which a machine shared with other jobs does not inflate as it does the wall clock). */
#ifndef CL_BENCH_TIME_H
#define CL_BENCH_TIME_H

#include <stdlib.h>
#include <time.h>

#ifdef CLEAVE_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "../../runtime/device.h"

static inline double bench_cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static inline int bench_by_value(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

typedef cl_status (*bench_fn)(void *data, cl_error *err);

/* The median time (ms) of `runs` calls of f after one warm-up. */
static inline cl_status bench_time_median(cl_device *d, bench_fn f, void *data, int runs, double *ms, cl_error *err) {
  double *t = malloc((size_t)runs * sizeof *t);
  if (!t) return cl_error_set(err, CL_ERR_OOM, "out of memory");
  cl_status st = f(data, err);
  if (st == CL_OK) st = d->synchronize(d, err);
  for (int k = 0; k < runs && st == CL_OK; k++) {
#ifdef CLEAVE_HAVE_CUDA
    if (d->kind == CL_BACKEND_CUDA) {
      cudaEvent_t e0, e1;
      cudaEventCreate(&e0), cudaEventCreate(&e1);
      cudaEventRecord(e0, 0);
      st = f(data, err);
      cudaEventRecord(e1, 0);
      cudaEventSynchronize(e1);
      float f_ms = 0;
      cudaEventElapsedTime(&f_ms, e0, e1);
      cudaEventDestroy(e0), cudaEventDestroy(e1);
      t[k] = f_ms;
      continue;
    }
#endif
    double t0 = bench_cpu_ms();
    st = f(data, err);
    t[k] = bench_cpu_ms() - t0;
  }
  qsort(t, (size_t)runs, sizeof *t, bench_by_value);
  *ms = t[runs / 2];
  free(t);
  return st;
}

#endif
