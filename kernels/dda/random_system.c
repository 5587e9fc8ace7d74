/* Random block systems for tests and benchmarks (random_system.h). */
#include "random_system.h"

#include <math.h>
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

/* the right, upper-left, upper and upper-right neighbours of a jointed mass's block */
static const long jointed_offsets[4][2] = {{1, 0}, {-1, 1}, {0, 1}, {1, 1}};

/* Block b's neighbour k on the grid (-1: none). */
static long jointed_neighbour(size_t b, int k, size_t n, size_t width) {
  long X = (long)(b % width) + jointed_offsets[k][0], Y = (long)(b / width) + jointed_offsets[k][1];
  if (X < 0 || X >= (long)width || (size_t)(Y * (long)width + X) >= n) return -1;
  return Y * (long)width + X;
}

cl_status cl_dda_random_jointed_pattern(cl_dda_bsr *a, size_t n, size_t width, size_t base, cl_error *err) {
  size_t np = 0;
  int32_t *pi = malloc((4 * n + base) * sizeof *pi), *pj = malloc((4 * n + base) * sizeof *pj);
  if (!pi || !pj) return free(pi), free(pj), cl_error_set(err, CL_ERR_OOM, "DDA jointed pattern: out of memory");
  for (size_t b = 0; b < n; b++)
    for (int k = 0; k < 4; k++) {
      long j = jointed_neighbour(b, k, n, width);
      if (j >= 0) pi[np] = (int32_t)b, pj[np++] = (int32_t)j;
    }
  for (size_t j = 1; j <= base; j++) pi[np] = 0, pj[np++] = (int32_t)j;
  cl_status st = cl_dda_bsr_pattern(a, n, np, pi, pj, err);
  free(pi), free(pj);
  return st;
}

/* e = n^T T(x, y) of a block centred at (cx, cy): the displacement along (nx, ny) at the point that
 * each of the block's six unknowns (u0, v0, r0, ex, ey, gxy) gives. */
static void jointed_row(double cx, double cy, double x, double y, double nx, double ny, double e[6]) {
  double dx = x - cx, dy = y - cy;
  e[0] = nx, e[1] = ny, e[2] = -nx * dy + ny * dx, e[3] = nx * dx, e[4] = ny * dy, e[5] = (nx * dy + ny * dx) / 2;
}

/* A spring k along (nx, ny) at (x, y) between blocks i and j (i == j: a fixed point of block i): the
 * energy k/2 (e_i d_i - e_j d_j)^2 adds k e_i e_i^T, k e_j e_j^T and -k e_i e_j^T (and its transpose). */
static void jointed_spring(cl_dda_bsr *a, size_t width, int32_t i, int32_t j, double x, double y, double nx, double ny,
                           double k) {
  double ei[6], ej[6];
  jointed_row((double)((size_t)i % width) + 0.5, (double)((size_t)i / width) + 0.5, x, y, nx, ny, ei);
  jointed_row((double)((size_t)j % width) + 0.5, (double)((size_t)j / width) + 0.5, x, y, nx, ny, ej);
  double *ii = cl_dda_bsr_block(a, i, i);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) ii[6 * r + c] += k * ei[r] * ei[c];
  if (i == j) return;
  double *jj = cl_dda_bsr_block(a, j, j), *ij = cl_dda_bsr_block(a, i, j), *ji = cl_dda_bsr_block(a, j, i);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 6; c++) {
      jj[6 * r + c] += k * ej[r] * ej[c];
      ij[6 * r + c] -= k * ei[r] * ej[c];
      ji[6 * c + r] -= k * ei[r] * ej[c];
    }
}

/* A locked contact point of blocks i and j at (x, y), normal (nx, ny) from i to j, unless open. */
static void jointed_contact(cl_dda_bsr *a, size_t width, int32_t i, int32_t j, double x, double y, double nx,
                            double ny, uint64_t *state) {
  if (cl_dda_random_uniform(state, 0, 1) < 0.1) return; /* open: no spring */
  jointed_spring(a, width, i, j, x, y, nx, ny, 1.0);
  jointed_spring(a, width, i, j, x, y, -ny, nx, 0.4);
}

/* Two contact points on the edge from (x0, y0) along (tx, ty) (length 1), normal (nx, ny). */
static void jointed_edge(cl_dda_bsr *a, size_t width, int32_t i, int32_t j, double x0, double y0, double tx,
                         double ty, double nx, double ny, uint64_t *state) {
  for (int side = -1; side <= 1; side += 2) {
    double s = 0.5 + side * cl_dda_random_uniform(state, 0.2, 0.45);
    jointed_contact(a, width, i, j, x0 + s * tx, y0 + s * ty, nx, ny, state);
  }
}

cl_status cl_dda_random_jointed_values(cl_dda_bsr *a, size_t width, size_t base, double inertia, uint64_t *state,
                                       cl_error *err) {
  CL_TRY(cl_dda_bsr_zero_values(a, err));
  const double moment[6] = {1, 1, 1.0 / 6, 1.0 / 12, 1.0 / 12, 1.0 / 24}, E = 0.05 / (1 - 0.25 * 0.25);
  for (size_t b = 0; b < a->n; b++) {
    double *d = cl_dda_bsr_block(a, (int32_t)b, (int32_t)b);
    for (int r = 0; r < 6; r++) d[7 * r] += inertia * moment[r];
    d[6 * 3 + 3] += E, d[6 * 4 + 4] += E, d[6 * 3 + 4] += 0.25 * E, d[6 * 4 + 3] += 0.25 * E;
    d[6 * 5 + 5] += E * (1 - 0.25) / 2;
    double X = (double)(b % width), Y = (double)(b / width);
    for (int k = 0; k < 4; k++) {
      long j = jointed_neighbour(b, k, a->n, width);
      if (j < 0) continue;
      int32_t i = (int32_t)b, jj = (int32_t)j;
      if (k == 0) {
        jointed_edge(a, width, i, jj, X + 1, Y, 0, 1, 1, 0, state);
      } else if (k == 2) {
        jointed_edge(a, width, i, jj, X, Y + 1, 1, 0, 0, 1, state);
      } else { /* a vertex-vertex contact at the shared corner */
        double ox = (double)jointed_offsets[k][0], angle = atan2(1, ox) + cl_dda_random_uniform(state, -0.52, 0.52);
        jointed_contact(a, width, i, jj, ox > 0 ? X + 1 : X, Y + 1, cos(angle), sin(angle), state);
      }
    }
  }
  /* block 0 is the fixed base: under blocks 1 .. base (along their lower edges) and held at three points */
  for (size_t j = 1; j <= base; j++)
    jointed_edge(a, width, 0, (int32_t)j, (double)(j % width), (double)(j / width), 1, 0, 0, 1, state);
  const double fixed[3][2] = {{0.1, 0.1}, {0.9, 0.1}, {0.5, 0.9}};
  for (int f = 0; f < 3; f++) {
    jointed_spring(a, width, 0, 0, fixed[f][0], fixed[f][1], 1, 0, 100);
    jointed_spring(a, width, 0, 0, fixed[f][0], fixed[f][1], 0, 1, 100);
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
