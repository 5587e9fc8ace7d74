/* Random block systems for tests and benchmarks (random_system.h). */
#include "random_system.h"

#include <stdlib.h>

double cl_dda_random_uniform(uint64_t *state, double lo, double hi) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

cl_status cl_dda_random_spd(cl_dda_bsr *a, double diagonal, double jitter, uint64_t *state, cl_error *err) {
  CL_TRY(cl_dda_bsr_zero_values(a, err));
  for (size_t i = 0; i < a->n; i++)
    for (int32_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      size_t j = (size_t)a->col[p];
      if (j < i) continue;
      double *blk = a->val + 36 * (size_t)p, *sym = cl_dda_bsr_block(a, (int32_t)j, (int32_t)i);
      for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) {
          double v;
          if (j != i) v = cl_dda_random_uniform(state, -1, 1);
          else if (r == c) v = diagonal + (jitter > 0 ? cl_dda_random_uniform(state, 0, jitter) : 0);
          else v = r < c ? cl_dda_random_uniform(state, -1, 1) : blk[6 * c + r];
          blk[6 * r + c] = v;
          if (j != i) sym[6 * c + r] = v;
        }
    }
  return CL_OK;
}

cl_status cl_dda_random_grid(int nx, int ny, uint64_t *state, int32_t **vstart, double **vx, double **vy,
                             cl_error *err) {
  size_t n = (size_t)nx * (size_t)ny;
  *vstart = malloc((n + 1) * sizeof **vstart), *vx = malloc(5 * n * sizeof **vx), *vy = malloc(5 * n * sizeof **vy);
  if (!*vstart || !*vx || !*vy) {
    free(*vstart), free(*vx), free(*vy);
    return cl_error_set(err, CL_ERR_OOM, "DDA random grid: out of memory for %zu blocks", n);
  }
  int32_t v = 0;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      size_t b = (size_t)j * (size_t)nx + (size_t)i;
      double x0 = i + 0.01, y0 = j + 0.01, x1 = i + 0.99, y1 = j + 0.99, jit = 0.008;
      double X[4] = {x0, x1, x1, x0}, Y[4] = {y0, y0, y1, y1};
      (*vstart)[b] = v;
      for (int k = 0; k < 4; k++) {
        (*vx)[v] = X[k] + cl_dda_random_uniform(state, -jit, jit);
        (*vy)[v] = Y[k] + cl_dda_random_uniform(state, -jit, jit);
        v++;
        if (k == 1 && b % 3 == 0) (*vx)[v] = (*vx)[v - 1] + 0.002, (*vy)[v] = (*vy)[v - 1] + 0.03, v++;
      }
    }
  (*vstart)[n] = v;
  return CL_OK;
}
