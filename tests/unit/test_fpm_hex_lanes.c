/* The hexahedron's GPU path (kernels/fpm/hex.h: 8 lanes an element, values passed by warp shuffles)
 * against its CPU path (the same lane functions in sequence), run here with the shuffles emulated
 * by threads (fpm_hex_lanes_gpu.c): a 3 x 3 x 3 block of distorted hexahedra turned by 1 rad about
 * a skew axis and strained past yield (J2), both assemblies, two evaluations (the second through
 * the stored strain); and with J2 in the plastic layout (the plastic strain kept, the stress written
 * as output), scatter. Forces, element buffer, stresses, strains, plastic strains and energies
 * agree to 1e-12 of their largest value: the lanes sum the centre terms and the energy in a
 * butterfly, the CPU in sequence, so they differ by round-off (measured 3e-14). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "fpm_hex_lanes.h"
#include "../../kernels/fpm/hex.h"
#include "lcg.h"

TestSuite(fpm_hex_lanes, .timeout = 60);

#define CELLS 3
#define SIDE (CELLS + 1)
#define N (SIDE * SIDE * SIDE)
#define NE (CELLS * CELLS * CELLS)

typedef struct body {
  uint32_t conn[8 * NE];
  double x0[3 * N], d[3 * N], f[3 * N], fe[24 * NE], sig[48 * NE], eps[48 * NE], plastic[48 * NE], energy[NE];
  double ep[8 * NE];
} body;

/* Corners displaced by up to 0.1 of a cell, turned by 1 rad about (0.48, 0.6, 0.64), stretched by
 * 0.3% and displaced by up to 0.01 at random (the strains reach several times sy/E = 1.25e-3). */
static void make(body *b) {
  static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const double axis[3] = {0.48, 0.6, 0.64}, c = cos(1.0), s = sin(1.0);
  lcg_seed(7);
  memset(b, 0, sizeof *b);
  for (int k = 0; k < SIDE; k++)
    for (int j = 0; j < SIDE; j++)
      for (int i = 0; i < SIDE; i++) {
        const int p = i + SIDE * (j + SIDE * k);
        const double X[3] = {i + lcg_uniform(-0.1, 0.1), j + lcg_uniform(-0.1, 0.1), k + lcg_uniform(-0.1, 0.1)};
        const double dot = axis[0] * X[0] + axis[1] * X[1] + axis[2] * X[2];
        const double cross[3] = {axis[1] * X[2] - axis[2] * X[1], axis[2] * X[0] - axis[0] * X[2],
                                 axis[0] * X[1] - axis[1] * X[0]};
        for (int q = 0; q < 3; q++) {
          b->x0[q * N + p] = X[q];
          const double turned = X[q] * c + cross[q] * s + axis[q] * dot * (1 - c);
          b->d[q * N + p] = turned - X[q] + 0.003 * X[q] + lcg_uniform(-0.01, 0.01);
        }
      }
  for (int k = 0; k < CELLS; k++)
    for (int j = 0; j < CELLS; j++)
      for (int i = 0; i < CELLS; i++) {
        const int e = i + CELLS * (j + CELLS * k);
        for (int a = 0; a < 8; a++)
          b->conn[a * NE + e] = (i + corner[a][0]) + SIDE * ((j + corner[a][1]) + SIDE * (k + corner[a][2]));
      }
}

/* plastic: the plastic layout (sig the stress written as output, eps unused) */
static cl_fpm_hex_args args_of(body *b, int gather, int plastic) {
  cl_fpm_hex_args a = {.ne = NE, .n = N, .conn = b->conn, .x0 = b->x0, .d = b->d, .f = b->f,
                       .fe = gather ? b->fe : NULL, .sig = b->sig, .eps = plastic ? NULL : b->eps,
                       .plastic = plastic ? b->plastic : NULL, .E = 2e11, .nu = 0.3, .energy = b->energy};
  a.law.n = 8 * NE;
  a.law.state[0] = b->ep;
  return a;
}

/* the largest difference over the largest |value| of one array of both bodies */
static double difference(const double *x, const double *y, size_t count) {
  double worst = 0, largest = 0;
  for (size_t i = 0; i < count; i++) worst = fmax(worst, fabs(x[i] - y[i])), largest = fmax(largest, fabs(x[i]));
  return largest > 0 ? worst / largest : worst;
}

static void compare(int gather, int plastic) {
  body *cpu = malloc(sizeof *cpu), *gpu = malloc(sizeof *gpu);
  cr_assert(cpu && gpu);
  make(cpu), make(gpu);
  for (int call = 0; call < 2; call++) {
    cl_fpm_hex_args a = args_of(cpu, gather, plastic), g = args_of(gpu, gather, plastic);
    if (plastic) {
      fpm_hex_lanes_cpu_plastic(&a);
      fpm_hex_lanes_gpu_plastic(&g);
    } else {
      for (size_t e = 0; e < NE; e++) cl_fpm_hex_item(&a, e);
      fpm_hex_lanes_gpu(&g);
    }
    const struct { const char *name; const double *x, *y; size_t count; } arrays[] = {
        {"f", cpu->f, gpu->f, 3 * N},           {"fe", cpu->fe, gpu->fe, 24 * NE},
        {"sig", cpu->sig, gpu->sig, 48 * NE},   {"eps", cpu->eps, gpu->eps, 48 * NE},
        {"plastic", cpu->plastic, gpu->plastic, 48 * NE},
        {"ep", cpu->ep, gpu->ep, 8 * NE},       {"energy", cpu->energy, gpu->energy, NE}};
    for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++) {
      const double diff = difference(arrays[k].x, arrays[k].y, arrays[k].count);
      cr_expect(diff <= 1e-12, "%s%s, evaluation %d: %s differs by %g of its largest value",
                gather ? "gather" : "scatter", plastic ? " (plastic layout)" : "", call + 1, arrays[k].name, diff);
    }
    int yielded = 0;
    for (size_t i = 0; i < 8 * NE; i++) yielded += cpu->ep[i] > 0;
    cr_expect(yielded > 4 * NE, "evaluation %d: %d of %d points yielded (the test wants most)", call + 1, yielded,
              8 * NE);
    for (size_t i = 0; i < 3 * N; i++) cpu->d[i] *= 1.3, gpu->d[i] *= 1.3;
  }
  free(cpu), free(gpu);
}

Test(fpm_hex_lanes, scatter_agrees_with_cpu) { compare(0, 0); }
Test(fpm_hex_lanes, gather_agrees_with_cpu) { compare(1, 0); }
Test(fpm_hex_lanes, plastic_layout_agrees_with_cpu) { compare(0, 1); }
