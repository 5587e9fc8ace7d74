/* Benchmark of the peridynamic neighbour search (kernels/pd/neighbors.h) on
 * a square (2D) or cubic (3D) lattice of about N points with the horizon
 * delta = 3.015 dx: Morton order (cells of side delta), gather of the
 * coordinates into that order, and the bond list of the reordered points.
 * Each phase: median of 5 timed runs after a warm-up (CUDA events on the
 * gpu; synchronize + CLOCK_MONOTONIC on the cpu). The bond count is checked
 * against the lattice formula; the exit status is 1 when it differs.
 *
 *   bench_pd_neighbors [cpu|cuda] [N] [2|3] [f32|f64]   (default: cpu 2000000 2 f64) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CLEAVE_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "../../kernels/pd/neighbors.h"

#define RUNS 5
#define HORIZON 3.015 /* in lattice spacings */

enum { PHASE_MORTON, PHASE_GATHER, PHASE_BONDS, PHASES };
static const char *PHASE_NAMES[PHASES] = {"morton order", "gather coordinates", "build bonds"};

typedef struct options {
  const char *device;
  size_t target_points;
  int dim;
  cl_dtype real;
} options;

typedef struct lattice {
  size_t side, n; /* side^dim points */
  double dx, delta;
  void *x; /* device coordinates, SoA */
} lattice;

static int fail(const char *what, const cl_error *err) {
  fprintf(stderr, "bench_pd_neighbors: %s: %s\n", what, err->msg);
  return 2;
}

static int parse_options(int argc, char **argv, options *o) {
  o->device = argc > 1 ? argv[1] : "cpu";
  o->target_points = argc > 2 ? (size_t)strtod(argv[2], NULL) : 2000000;
  o->dim = argc > 3 ? atoi(argv[3]) : 2;
  o->real = argc > 4 && strcmp(argv[4], "f32") == 0 ? CL_F32 : CL_F64;
  if ((strcmp(o->device, "cpu") && strcmp(o->device, "cuda")) || o->target_points < 8 ||
      (o->dim != 2 && o->dim != 3) || (argc > 4 && strcmp(argv[4], "f32") && strcmp(argv[4], "f64"))) {
    fprintf(stderr, "usage: bench_pd_neighbors [cpu|cuda] [N >= 8] [2|3] [f32|f64]\n");
    return 2;
  }
  return 0;
}

/* Bonds of a side^dim lattice: every integer offset shorter than the
 * horizon joins (side - |a|)(side - |b|)(side - |c|) ordered pairs. */
static double lattice_bonds(size_t side, int dim) {
  double total = 0;
  int reach = (int)HORIZON, zr = dim == 3 ? reach : 0;
  for (int c = -zr; c <= zr; c++)
    for (int b = -reach; b <= reach; b++)
      for (int a = -reach; a <= reach; a++) {
        int r2 = a * a + b * b + c * c;
        if (r2 == 0 || r2 >= HORIZON * HORIZON) continue;
        double pairs = (double)(side - (size_t)abs(a)) * (double)(side - (size_t)abs(b));
        if (dim == 3) pairs *= (double)(side - (size_t)abs(c));
        total += pairs;
      }
  return total;
}

/* Points in row-major order (x fastest), as a body generator makes them. */
static int make_lattice(cl_device *d, const options *o, lattice *l, cl_error *err) {
  l->side = (size_t)llround(pow((double)o->target_points, 1.0 / o->dim));
  l->n = o->dim == 3 ? l->side * l->side * l->side : l->side * l->side;
  l->dx = 1e-3;
  l->delta = HORIZON * l->dx;
  size_t elem = cl_dtype_size(o->real), bytes = (size_t)o->dim * l->n * elem;
  void *host = malloc(bytes);
  if (!host) return cl_error_set(err, CL_ERR_OOM, "cannot allocate %zu bytes of host memory", bytes);
  for (size_t p = 0; p < l->n; p++) {
    size_t i = p % l->side, j = p / l->side % l->side, k = p / (l->side * l->side);
    size_t coord[3] = {i, j, k};
    for (int c = 0; c < o->dim; c++) cl_dtype_put(o->real, host, c * l->n + p, coord[c] * l->dx);
  }
  cl_status s = d->alloc(d, &l->x, bytes, err);
  if (s == CL_OK) s = d->to_device(d, l->x, host, bytes, err);
  free(host);
  return s;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Marks between phases: CUDA events on the gpu, host clock after a
 * synchronisation on the cpu. */
typedef struct stopwatch {
  cl_device *d;
  double host_ms[PHASES + 1];
#ifdef CLEAVE_HAVE_CUDA
  cudaEvent_t events[PHASES + 1];
#endif
} stopwatch;

#ifdef CLEAVE_HAVE_CUDA
#define CUDA_CHECK(err, call)                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess)                                                                    \
      return cl_error_set(err, CL_ERR_DEVICE, "%s failed: %s", #call, cudaGetErrorString(e_)); \
  } while (0)
#endif

static cl_status stopwatch_open(stopwatch *w, cl_device *d, cl_error *err) {
  w->d = d;
#ifdef CLEAVE_HAVE_CUDA
  if (d->kind == CL_BACKEND_CUDA)
    for (int k = 0; k <= PHASES; k++) CUDA_CHECK(err, cudaEventCreate(&w->events[k]));
#endif
  (void)err;
  return CL_OK;
}

static void stopwatch_close(stopwatch *w) {
#ifdef CLEAVE_HAVE_CUDA
  if (w->d->kind == CL_BACKEND_CUDA)
    for (int k = 0; k <= PHASES; k++) cudaEventDestroy(w->events[k]);
#endif
  (void)w;
}

static cl_status stopwatch_mark(stopwatch *w, int k, cl_error *err) {
#ifdef CLEAVE_HAVE_CUDA
  if (w->d->kind == CL_BACKEND_CUDA) {
    CUDA_CHECK(err, cudaEventRecord(w->events[k], 0));
    return CL_OK;
  }
#endif
  CL_TRY(w->d->synchronize(w->d, err));
  w->host_ms[k] = now_ms();
  return CL_OK;
}

static cl_status stopwatch_read(stopwatch *w, double ms[PHASES], cl_error *err) {
#ifdef CLEAVE_HAVE_CUDA
  if (w->d->kind == CL_BACKEND_CUDA) {
    CUDA_CHECK(err, cudaEventSynchronize(w->events[PHASES]));
    for (int k = 0; k < PHASES; k++) {
      float f;
      CUDA_CHECK(err, cudaEventElapsedTime(&f, w->events[k], w->events[k + 1]));
      ms[k] = f;
    }
    return CL_OK;
  }
#endif
  (void)err;
  for (int k = 0; k < PHASES; k++) ms[k] = w->host_ms[k + 1] - w->host_ms[k];
  return CL_OK;
}

/* One run of the three phases; the bonds are left in *bonds. */
static cl_status run_once(cl_device *d, const options *o, const lattice *l, uint32_t *order,
                          void *sorted_x, stopwatch *w, double ms[PHASES], cl_pd_bonds *bonds,
                          cl_error *err) {
  CL_TRY(stopwatch_mark(w, 0, err));
  CL_TRY(cl_pd_morton_order(d, o->real, o->dim, l->n, l->x, l->delta, order, err));
  CL_TRY(stopwatch_mark(w, 1, err));
  CL_TRY(cl_pd_gather(d, o->real, l->n, o->dim, l->x, order, sorted_x, err));
  CL_TRY(stopwatch_mark(w, 2, err));
  CL_TRY(cl_pd_build_bonds(d, o->real, o->dim, l->n, sorted_x, l->delta, bonds, err));
  CL_TRY(stopwatch_mark(w, 3, err));
  return stopwatch_read(w, ms, err);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int count) {
  qsort(v, (size_t)count, sizeof *v, by_value);
  return v[count / 2];
}

/* Warm-up, then RUNS timed runs; per-phase medians into med, last bond count into *nbonds. */
static cl_status time_phases(cl_device *d, const options *o, const lattice *l, double med[PHASES],
                             size_t *nbonds, cl_error *err) {
  uint32_t *order = NULL;
  void *sorted_x = NULL;
  stopwatch w;
  double ms[RUNS + 1][PHASES], column[RUNS];
  cl_status s = d->alloc(d, (void **)&order, l->n * sizeof *order, err);
  if (s == CL_OK) s = d->alloc(d, &sorted_x, (size_t)o->dim * l->n * cl_dtype_size(o->real), err);
  int timing = 0;
  if (s == CL_OK) timing = (s = stopwatch_open(&w, d, err)) == CL_OK;
  for (int r = 0; s == CL_OK && r <= RUNS; r++) {
    cl_pd_bonds bonds = {0};
    s = run_once(d, o, l, order, sorted_x, &w, ms[r], &bonds, err);
    *nbonds = bonds.nbonds;
    d->release(d, bonds.offsets);
    d->release(d, bonds.neighbors);
  }
  if (timing) stopwatch_close(&w);
  if (s == CL_OK) {
    for (int p = 0; p < PHASES; p++) {
      for (int r = 0; r < RUNS; r++) column[r] = ms[r + 1][p]; /* run 0 is the warm-up */
      med[p] = median(column, RUNS);
    }
  }
  d->release(d, sorted_x);
  d->release(d, order);
  return s;
}

int main(int argc, char **argv) {
  options o;
  if (parse_options(argc, argv, &o)) return 2;
  cl_device d;
  cl_error err = {0};
  cl_device_info info;
  if (cl_device_open(&d, o.device, &err) != CL_OK) return fail("device", &err);
  if (d.info(&d, &info, &err) != CL_OK) return fail("device info", &err);
  lattice l;
  if (make_lattice(&d, &o, &l, &err) != CL_OK) return fail("lattice", &err);
  double med[PHASES], total = 0;
  size_t nbonds = 0;
  if (time_phases(&d, &o, &l, med, &nbonds, &err) != CL_OK) return fail("neighbour search", &err);
  double expected = lattice_bonds(l.side, o.dim);
  int ok = (double)nbonds == expected;
  printf("device: %s (%s)\n", d.name, info.name);
  printf("lattice: %zu^%d = %zu points, %s, delta = %.3f dx\n", l.side, o.dim, l.n,
         cl_dtype_name(o.real), HORIZON);
  printf("bonds: %zu (%.2f per point); lattice formula %.0f: %s\n", nbonds,
         (double)nbonds / (double)l.n, expected, ok ? "ok" : "MISMATCH");
  printf("median of %d runs after a warm-up:\n", RUNS);
  for (int p = 0; p < PHASES; p++) {
    printf("  %-20s %10.3f ms\n", PHASE_NAMES[p], med[p]);
    total += med[p];
  }
  printf("  %-20s %10.3f ms  (%.1f Mpoints/s)\n", "total", total, (double)l.n / total * 1e-3);
  d.release(&d, l.x);
  cl_device_close(&d);
  return ok ? 0 : 1;
}
