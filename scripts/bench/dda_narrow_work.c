/* The DDA narrow phase's work, counted on the host, for a system of blocks written by
 * dda_blocks_dump.lua: the host's broad phase's candidate pairs, then per pair its tasks
 * (cl_dda_pair_tasks: one vertex's loop over the other block's edges or vertices), the loop iterations
 * they run (a task whose vertex is outside the other block's grown box runs none), the vertex-vertex
 * calls (cl_dda_vertex_vertex, the heaviest work: four angle checks, joint lengths and gaps), the tasks
 * that find contacts, and the contacts -- with their distributions and the worst pairs. Then what
 * cuda's passes run (narrow_device.cu: 8 lanes a pair, a lane a task a round): the rounds' chains (a
 * round lasts its longest lane's loop), and the tasks the write pass runs, before (every task counted
 * again, those that found contacts run again to write them) and now (those that found contacts,
 * plus those the count pass's bits do not cover: cl_dda_pair_task_count).
 *
 *   cleave run scripts/bench/dda_blocks_dump.lua case1.txt scripts/bench/dda_case1.lua
 *   dda_narrow_work case1.txt */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernels/dda/contacts.h"

#define LANES 8

static int long_cmp(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

static void distribution(const char *what, const long *v, size_t n) {
  long *s = malloc(n * sizeof *s);
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, long_cmp);
  printf("%-28s min %ld  median %ld  p90 %ld  p99 %ld  p99.9 %ld  max %ld\n", what, s[0], s[n / 2], s[n * 9 / 10],
         s[n * 99 / 100], s[n * 999 / 1000], s[n - 1]);
  free(s);
}

/* Block file: "n d0", then each block's vertex count and vertices. */
static int read_blocks(const char *path, cl_dda_geometry *g, double *d0) {
  FILE *f = fopen(path, "r");
  size_t n, cap = 1024;
  if (!f || fscanf(f, "%zu %lf", &n, d0) != 2) return 0;
  int32_t *vstart = malloc((n + 1) * sizeof *vstart);
  double *vx = malloc(cap * sizeof *vx), *vy = malloc(cap * sizeof *vy);
  vstart[0] = 0;
  for (size_t i = 0; i < n; i++) {
    int m;
    if (fscanf(f, "%d", &m) != 1 || m < 3) return 0;
    for (; (size_t)vstart[i] + (size_t)m > cap; cap *= 2) vx = realloc(vx, 2 * cap * sizeof *vx), vy = realloc(vy, 2 * cap * sizeof *vy);
    for (int k = 0; k < m; k++)
      if (fscanf(f, "%lf %lf", &vx[vstart[i] + k], &vy[vstart[i] + k]) != 2) return 0;
    vstart[i + 1] = vstart[i] + m;
  }
  fclose(f);
  *g = (cl_dda_geometry){n, vstart, vx, vy};
  return 1;
}

int main(int argc, char **argv) {
  cl_dda_geometry g;
  double d0;
  if (argc < 2 || !read_blocks(argv[1], &g, &d0)) {
    fprintf(stderr, "usage: dda_narrow_work BLOCKS.txt (written by dda_blocks_dump.lua)\n");
    return 2;
  }
  int32_t *pairs = NULL;
  size_t np = 0, cap = 0;
  cl_error err;
  if (cl_dda_broad_phase(&g, d0, &pairs, &np, &cap, &err) != CL_OK || np == 0) {
    fprintf(stderr, "%s\n", np ? err.msg : "no candidate pairs");
    return 1;
  }
  int maxv = 0;
  for (size_t i = 0; i < g.n; i++)
    if (g.vstart[i + 1] - g.vstart[i] > maxv) maxv = g.vstart[i + 1] - g.vstart[i];
  long *tasks = calloc(np, sizeof(long)), *iters = calloc(np, sizeof(long)), *chain = calloc(np, sizeof(long));
  long *found = calloc(np, sizeof(long));
  long all_tasks = 0, all_iters = 0, vv_calls = 0, finding = 0, contacts = 0;
  long write_tasks_before = 0, write_tasks_now = 0, write_iters_before = 0, write_iters_now = 0;
  for (size_t k = 0; k < np; k++) {
    const int32_t a = pairs[2 * k], b = pairs[2 * k + 1];
    const int32_t na = g.vstart[a + 1] - g.vstart[a], nb = g.vstart[b + 1] - g.vstart[b];
    const cl_dda_box near_a = cl_dda_block_box(&g, a, 2 * d0), near_b = cl_dda_block_box(&g, b, 2 * d0);
    tasks[k] = cl_dda_pair_tasks(&g, a, b);
    long round = 0;
    for (int32_t t = 0; t < tasks[k]; t++) {
      /* the task's vertex, the other block and its box (cl_dda_pair_task's three kinds) */
      const int vv = t >= na + nb;
      const int32_t v = t < na ? g.vstart[a] + t : vv ? g.vstart[a] + t - na - nb : g.vstart[b] + t - na;
      const int32_t other = t < na || vv ? b : a;
      const long it = cl_dda_in_box(&g, v, t < na || vv ? near_b : near_a) ? g.vstart[other + 1] - g.vstart[other] : 0;
      for (int32_t q = g.vstart[b]; vv && it && q < g.vstart[b + 1]; q++) /* cl_dda_vertex_near_vertices' test */
        vv_calls += cl_dda_in_box(&g, q, near_a) && hypot(g.vx[v] - g.vx[q], g.vy[v] - g.vy[q]) < d0;
      cl_dda_found_out o = {NULL, 0, 0};
      cl_dda_pair_task(&g, a, b, t, near_a, near_b, d0, &o);
      const int again = t >= CL_DDA_KNOWN_TASKS || o.count >= 15; /* counted again by the write pass */
      iters[k] += it, found[k] += o.count, finding += o.count > 0;
      write_tasks_before += 1 + (o.count > 0), write_iters_before += it * (1 + (o.count > 0));
      write_tasks_now += again + (o.count > 0), write_iters_now += it * (again + (o.count > 0));
      if (it > round) round = it;
      if (t % LANES == LANES - 1 || t == tasks[k] - 1) chain[k] += round, round = 0;
    }
    all_tasks += tasks[k], all_iters += iters[k], contacts += found[k];
  }
  printf("%zu blocks (at most %d vertices), d0 %g: %zu candidate pairs, %ld contacts\n", g.n, maxv, d0, np, contacts);
  printf("count pass: %ld tasks (%.2f a pair), %ld loop iterations (%.2f a pair), %ld vertex-vertex calls, "
         "%ld tasks find contacts\n",
         all_tasks, (double)all_tasks / np, all_iters, (double)all_iters / np, vv_calls, finding);
  printf("write pass before: %ld tasks, %ld loop iterations; now: %ld tasks, %ld loop iterations\n",
         write_tasks_before, write_iters_before, write_tasks_now, write_iters_now);
  distribution("tasks a pair:", tasks, np);
  distribution("loop iterations a pair:", iters, np);
  distribution("contacts a pair:", found, np);
  distribution("8-lane rounds' chain a pair:", chain, np);
  for (int r = 0; r < 3; r++) {
    size_t w = 0;
    for (size_t k = 1; k < np; k++)
      if (iters[k] > iters[w]) w = k;
    const int32_t a = pairs[2 * w], b = pairs[2 * w + 1];
    printf("worst pair %d: blocks %d and %d (%d and %d vertices), %ld tasks, %ld loop iterations, %ld contacts\n", r + 1,
           a, b, g.vstart[a + 1] - g.vstart[a], g.vstart[b + 1] - g.vstart[b], tasks[w], iters[w], found[w]);
    iters[w] = -1;
  }
  free(tasks), free(iters), free(chain), free(found), free(pairs);
  free((void *)g.vstart), free((void *)g.vx), free((void *)g.vy);
  return 0;
}
