/* Benchmark of DDA contact detection on the host (kernels/dda/contacts.c): the broad phase and the
 * narrow phase (with the transfer from the previous call's contacts) on a jittered grid of blocks
 * (cl_dda_random_grid: about 15 contacts a block, as the paper's case 1). Each phase: the minimum
 * and the median wall clock of `runs` calls after a warm-up, with the threads OpenMP gives
 * (OMP_NUM_THREADS); the minimum is the figure on a machine shared with other jobs. Prints the
 * pairs and contacts so that runs at different thread counts can be compared.
 *
 *   dda_detection [blocks] [runs]   (default 4400 20) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../kernels/dda/contacts.h"
#include "../../kernels/dda/random_system.h"

static int double_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
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
  cl_dda_contact_list_free(&lists[0]), cl_dda_contact_list_free(&lists[1]);
  free(pairs), free(broad), free(narrow), free(vstart), free(vx), free(vy);
  return status;
}
