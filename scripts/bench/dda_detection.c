/* Benchmark of DDA contact detection on the host (kernels/dda/contacts.c): the broad phase and the
 * narrow phase (with the transfer from the previous call's contacts) on a jittered grid of blocks
 * (cl_dda_random_grid: about 15 contacts a block, as the paper's case 1). Each phase: the minimum
 * and the median wall clock of `runs` calls after a warm-up, with the threads OpenMP gives
 * (OMP_NUM_THREADS); the minimum is the figure on a machine shared with other jobs. Prints the
 * pairs and contacts so that runs at different thread counts can be compared.
 *
 * Then the same on a device (detect.h, as the step runs it there): the broad phase's passes, and
 * the narrow phase's with the contacts found brought up and transferred on the host; on cuda when
 * there is one, else on the cpu device, or on the one named.
 *
 *   dda_detection [blocks] [runs] [cpu|cuda]   (default 4400 20, cuda when there is one) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../kernels/dda/contacts.h"
#include "../../kernels/dda/detect.h"
#include "../../kernels/dda/random_system.h"

static int double_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* g's arrays on device d (copies on cuda; freed by the caller with d->release unless on the cpu). */
static cl_status upload(cl_device *d, const cl_dda_geometry *g, cl_dda_geometry *on, cl_error *err) {
  *on = *g;
  if (d->kind == CL_BACKEND_CPU) return CL_OK;
  size_t n = g->n, nv = (size_t)g->vstart[n];
  void *p[3] = {NULL, NULL, NULL};
  const void *src[3] = {g->vstart, g->vx, g->vy};
  size_t bytes[3] = {(n + 1) * sizeof *g->vstart, nv * sizeof *g->vx, nv * sizeof *g->vy};
  for (int k = 0; k < 3; k++) {
    CL_TRY(d->alloc(d, &p[k], bytes[k], err));
    CL_TRY(d->to_device(d, p[k], src[k], bytes[k], err));
  }
  on->vstart = p[0], on->vx = p[1], on->vy = p[2];
  return CL_OK;
}

/* Detection on a device as the step runs it there: the broad phase (waited for), then the narrow
 * phase, the contacts found brought up and the transfer from the previous call's list. */
static int on_device(const char *name, const cl_dda_geometry *g, double d0, int runs, double *broad, double *narrow) {
  cl_device dev;
  cl_error err;
  if (!name) name = cl_device_cuda_count() > 0 ? "cuda" : "cpu";
  if (cl_device_open(&dev, name, &err) != CL_OK) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  cl_dda_geometry on;
  cl_dda_detect det;
  cl_dda_detect_init(&det, &dev);
  cl_dda_contact_list lists[2] = {{0}};
  cl_dda_found *found = NULL;
  cl_status st = upload(&dev, g, &on, &err);
  for (int r = -1; r < runs && st == CL_OK; r++) {
    cl_dda_contact_list *prev = &lists[(r + 2) % 2], *out = &lists[(r + 1) % 2];
    double t0 = omp_get_wtime();
    st = cl_dda_detect_pairs(&det, &on, d0, &err);
    if (st == CL_OK) st = dev.synchronize(&dev, &err);
    double t1 = omp_get_wtime();
    if (st == CL_OK) st = cl_dda_detect_found(&det, &on, NULL, 0, d0, &err);
    if (st == CL_OK) {
      free(found);
      found = malloc((det.nfound ? det.nfound : 1) * sizeof *found);
      st = found ? cl_dda_detect_found_to_host(&det, found, &err)
                 : cl_error_set(&err, CL_ERR_OOM, "out of memory for %zu contacts", det.nfound);
    }
    if (st == CL_OK) st = cl_dda_transfer(g, found, det.nfound, prev, r < 0, out, &err);
    double t2 = omp_get_wtime();
    if (r >= 0) broad[r] = t1 - t0, narrow[r] = t2 - t1;
  }
  if (st != CL_OK) {
    fprintf(stderr, "on %s: %s\n", name, err.msg);
  } else {
    printf("on the %s device: %zu candidate pairs, %zu contacts\n", name, det.npairs, lists[0].count);
    const char *what[2] = {"broad phase", "narrow phase + transfer"};
    double *t[2] = {broad, narrow};
    for (int k = 0; k < 2; k++) {
      qsort(t[k], (size_t)runs, sizeof *t[k], double_cmp);
      printf("%-24s min %8.3f ms   median %8.3f ms\n", what[k], 1e3 * t[k][0], 1e3 * t[k][runs / 2]);
    }
  }
  if (on.vx != g->vx)
    dev.release(&dev, (void *)on.vstart), dev.release(&dev, (void *)on.vx), dev.release(&dev, (void *)on.vy);
  cl_dda_detect_free(&det);
  cl_dda_contact_list_free(&lists[0]), cl_dda_contact_list_free(&lists[1]);
  free(found);
  cl_device_close(&dev);
  return st != CL_OK;
}

int main(int argc, char **argv) {
  int blocks = argc > 1 ? atoi(argv[1]) : 4400, runs = argc > 2 ? atoi(argv[2]) : 20;
  if (blocks < 4 || runs < 1) {
    fprintf(stderr, "usage: dda_detection [blocks >= 4] [runs >= 1]\n");
    return 2;
  }
  int nx = (int)ceil(sqrt((double)blocks)), ny = (blocks + nx - 1) / nx;
  uint64_t state = 1;
  int32_t *vstart;
  double *vx, *vy;
  cl_error err;
  if (cl_dda_random_grid(nx, ny, &state, &vstart, &vx, &vy, &err) != CL_OK) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  cl_dda_geometry g = {(size_t)nx * (size_t)ny, vstart, vx, vy};
  const double d0 = 0.05; /* the blocks are 0.02 apart: each touches its 8 neighbours */
  int32_t *pairs = NULL;
  size_t npairs = 0, cap = 0;
  cl_dda_contact_list lists[2] = {{0}};
  double *broad = malloc((size_t)runs * sizeof *broad), *narrow = malloc((size_t)runs * sizeof *narrow);
  int status = 0;
  for (int r = -1; r < runs && !status; r++) { /* r = -1: the warm-up, and the first list to carry over */
    cl_dda_contact_list *prev = &lists[(r + 2) % 2], *out = &lists[(r + 1) % 2];
    double t0 = omp_get_wtime();
    status = cl_dda_broad_phase(&g, d0, &pairs, &npairs, &cap, &err) != CL_OK;
    double t1 = omp_get_wtime();
    status = status || cl_dda_narrow_phase(&g, pairs, npairs, d0, prev, r < 0, out, &err) != CL_OK;
    double t2 = omp_get_wtime();
    if (r >= 0) broad[r] = t1 - t0, narrow[r] = t2 - t1;
  }
  if (status) {
    fprintf(stderr, "%s\n", err.msg);
  } else {
    printf("%zu blocks, %zu candidate pairs, %zu contacts, %d threads, %d runs\n", g.n, npairs, lists[0].count,
           omp_get_max_threads(), runs);
    const char *name[2] = {"broad phase", "narrow phase + transfer"};
    double *t[2] = {broad, narrow};
    for (int k = 0; k < 2; k++) {
      qsort(t[k], (size_t)runs, sizeof *t[k], double_cmp);
      printf("%-24s min %8.3f ms   median %8.3f ms\n", name[k], 1e3 * t[k][0], 1e3 * t[k][runs / 2]);
    }
  }
  if (!status) status = on_device(argc > 3 ? argv[3] : NULL, &g, d0, runs, broad, narrow);
  cl_dda_contact_list_free(&lists[0]), cl_dda_contact_list_free(&lists[1]);
  free(pairs), free(broad), free(narrow), free(vstart), free(vx), free(vy);
  return status;
}
