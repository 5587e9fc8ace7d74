/* The DDA model: its creation and its step (model.h; the state in model_state.h). */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../runtime/field.h"
#include "../dispatch.h"
#include "block.h"
#include "block_kernels.h"
#include "contact_kernels.h"
#include "contacts.h"
#include "detect.h"
#include "host_parallel.h"
#include "model_state.h"
#include "pcg.h"
#include "polygon.h"

#define PI 3.14159265358979323846
/* a step shrinks its time step at most this many times (halving: to 1e-6 of the requested one)
 * before it gives up */
#define MAX_REDUCTIONS 20
/* state changes after which a contact is held in its state for the rest of the step's open-close
 * iteration (but for locking: see open_close_ops.h): it breaks the cycles between two states that are
 * both violated (open: penetrates; closed: in tension), where the answer is a contact at zero force */
#define FLIP_LIMIT 4
/* the open-close solves' tolerances while they change states, over pcg_tolerance and pcg_displacement
 * (the model's open_close_tolerance; cl_dda_step): on the H100, 10 takes case 1's step from 2.36 to
 * 1.99 ms and case 2's (200 steps) from 1.80 to 1.68 (docs/benchmarks.md, "Fewer PCG iterations a step") */
#define OPEN_CLOSE_LOOSE 10
/* the host's packing of a step's contacts for the solver (set_step_contacts), numbers a contact */
#define STEP_INTS 7
#define STEP_REALS 4

/* ---- creation ------------------------------------------------------------------ */

/* The block holding point (x, y), or -1. */
static int32_t block_at(const cl_dda_model *m, double x, double y, double tol) {
  for (size_t i = 0; i < m->n; i++) {
    int32_t v = m->vstart[i];
    if (cl_dda_point_in_polygon(x, y, m->vx + v, m->vy + v, m->vstart[i + 1] - v, tol)) return (int32_t)i;
  }
  return -1;
}

static int point_cmp(const void *x, const void *y) {
  const int32_t *a = x, *b = y;
  return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : a[1] > b[1]);
}

/* Points sorted by block: start (n + 1), coordinates into px, py; slot[k] is input point k's place. */
static cl_status place_points(cl_dda_model *m, const char *what, size_t np, const double *xy, double tol,
                              int32_t *start, double *px, double *py, int32_t *slot, cl_error *err) {
  int32_t *order = alloc_zero(2 * np, sizeof *order);
  if (!order) return oom(err);
  for (size_t k = 0; k < np; k++) {
    int32_t b = block_at(m, xy[2 * k], xy[2 * k + 1], tol);
    if (b < 0) {
      free(order);
      return cl_error_set(err, CL_ERR_ARG, "%s point %zu (%g, %g) lies outside every block: give a point inside "
                          "the block it belongs to", what, k + 1, xy[2 * k], xy[2 * k + 1]);
    }
    order[2 * k] = b, order[2 * k + 1] = (int32_t)k;
  }
  qsort(order, np, 2 * sizeof *order, point_cmp);
  for (size_t k = 0; k < np; k++) {
    int32_t b = order[2 * k], src = order[2 * k + 1];
    start[b + 1]++;
    px[k] = xy[2 * src], py[k] = xy[2 * src + 1];
    if (slot) slot[src] = (int32_t)k;
  }
  for (size_t i = 0; i < m->n; i++) start[i + 1] += start[i];
  free(order);
  return CL_OK;
}

static cl_status check_input(const cl_dda_input *in, cl_error *err) {
  if (in->nblocks == 0) return cl_error_set(err, CL_ERR_ARG, "blocks: no blocks given");
  for (size_t k = 0; k < in->nmaterials; k++) {
    const cl_dda_material *q = &in->materials[k];
    if (!(q->rho > 0) || !isfinite(q->rho))
      return cl_error_set(err, CL_ERR_ARG, "material %zu: density rho = %g must be > 0", k + 1, q->rho);
    if (!(q->E > 0) || !isfinite(q->E))
      return cl_error_set(err, CL_ERR_ARG, "material %zu: Young's modulus E = %g must be > 0", k + 1, q->E);
    if (!(q->nu >= 0 && q->nu < 0.5))
      return cl_error_set(err, CL_ERR_ARG, "material %zu: Poisson's ratio nu = %g must be in [0, 0.5)", k + 1, q->nu);
  }
  for (size_t i = 0; i < in->nblocks; i++)
    if (in->material[i] < 0 || (size_t)in->material[i] >= in->nmaterials)
      return cl_error_set(err, CL_ERR_ARG, "block %zu: material %d does not exist (there are %zu)", i + 1,
                          in->material[i] + 1, in->nmaterials);
  if (in->njoints == 0) return cl_error_set(err, CL_ERR_ARG, "joints: at least the default joint is needed");
  for (size_t k = 0; k < in->njoints; k++) {
    const cl_dda_joint *j = &in->joints[k];
    if (!(j->friction_angle >= 0 && j->friction_angle < 90))
      return cl_error_set(err, CL_ERR_ARG, "joint %zu: friction angle %g must be in [0, 90) degrees", k + 1,
                          j->friction_angle);
    if (!(j->cohesion >= 0) || !(j->tension >= 0))
      return cl_error_set(err, CL_ERR_ARG, "joint %zu: cohesion and tension must be >= 0", k + 1);
  }
  for (size_t k = 0; k < in->njoint_pairs; k++) {
    const int32_t *t = in->joint_pairs + 3 * k;
    if (t[0] < 0 || t[1] < 0 || (size_t)t[0] >= in->nblocks || (size_t)t[1] >= in->nblocks || t[0] == t[1] ||
        t[2] < 0 || (size_t)t[2] >= in->njoints)
      return cl_error_set(err, CL_ERR_ARG, "joint pair %zu names blocks %d, %d and joint %d: give two different "
                          "existing blocks and an existing joint", k + 1, t[0] + 1, t[1] + 1, t[2] + 1);
  }
  if (in->edge_joint)
    for (int32_t v = 0; v < in->vstart[in->nblocks]; v++)
      if (in->edge_joint[v] < -1 || in->edge_joint[v] >= (int32_t)in->njoints)
        return cl_error_set(err, CL_ERR_ARG, "edge joint %d of vertex %d does not exist (there are %zu joints)",
                            in->edge_joint[v] + 1, v + 1, in->njoints);
  const struct { const char *name; double v; } positive[] = {
      {"normal_stiffness", in->normal_stiffness}, {"shear_stiffness", in->shear_stiffness},
      {"fixed_stiffness", in->fixed_stiffness}, {"pcg_tolerance", in->pcg_tolerance}};
  for (size_t k = 0; k < sizeof positive / sizeof *positive; k++)
    if (!(positive[k].v > 0) || !isfinite(positive[k].v))
      return cl_error_set(err, CL_ERR_ARG, "%s = %g must be a number > 0", positive[k].name, positive[k].v);
  if (!(in->pcg_displacement >= 0) || !isfinite(in->pcg_displacement))
    return cl_error_set(err, CL_ERR_ARG, "pcg_displacement = %g must be a number >= 0 (0: off)", in->pcg_displacement);
  if (!(in->max_displacement >= 0) || !isfinite(in->max_displacement))
    return cl_error_set(err, CL_ERR_ARG, "max_displacement = %g must be a length > 0 (or 0: the default)",
                        in->max_displacement);
  if (in->preconditioner != CL_DDA_BLOCK_JACOBI && in->preconditioner != CL_DDA_SSOR_AI)
    return cl_error_set(err, CL_ERR_ARG, "preconditioner %d is not one of block Jacobi (0) and SSOR-AI (1)",
                        (int)in->preconditioner);
  if (in->spmv_format != CL_DDA_HSBCSR && in->spmv_format != CL_DDA_BSR)
    return cl_error_set(err, CL_ERR_ARG, "spmv_format %d is not one of HSBCSR (0) and BSR (1)", (int)in->spmv_format);
  if (in->pcg_blocks < 0) return cl_error_set(err, CL_ERR_ARG, "pcg_blocks must be >= 0 (0: as many as fit)");
  if (in->pcg_pipelined && in->preconditioner != CL_DDA_BLOCK_JACOBI)
    return cl_error_set(err, CL_ERR_ARG, "the pipelined PCG needs the block Jacobi preconditioner (SSOR-AI's M^-1 is "
                        "not local to a block row): use the standard PCG with SSOR-AI");
  if (in->detection != CL_DDA_DETECT_AUTO && in->detection != CL_DDA_DETECT_HOST &&
      in->detection != CL_DDA_DETECT_DEVICE)
    return cl_error_set(err, CL_ERR_ARG, "detection %d is not one of auto (0), host (1) and device (2)",
                        (int)in->detection);
  if (isnan(in->broad_skin) || isinf(in->broad_skin))
    return cl_error_set(err, CL_ERR_ARG, "broad_skin = %g must be a length >= 0 (0: the pairs found anew every "
                        "step) or < 0 for the default", in->broad_skin);
  if (!(in->dt_growth == 0 || (in->dt_growth >= 1 && isfinite(in->dt_growth))))
    return cl_error_set(err, CL_ERR_ARG, "dt_growth = %g must be 0 (each step tries the requested dt) or a "
                        "finite factor >= 1", in->dt_growth);
  if (in->pcg_max_iterations < 1 || in->open_close_max < 1)
    return cl_error_set(err, CL_ERR_ARG, "pcg_max_iterations and open_close_max must be >= 1");
  if (!isfinite(in->gx) || !isfinite(in->gy)) return cl_error_set(err, CL_ERR_ARG, "gravity must be finite");
  if (!(in->open_close_loose == 0 || in->open_close_loose >= 1) || !isfinite(in->open_close_loose))
    return cl_error_set(err, CL_ERR_ARG, "open_close_tolerance = %g must be a factor >= 1 (1: every open-close solve "
                        "to pcg_tolerance)", in->open_close_loose);
  return CL_OK;
}

/* Blocks: checked, made counter-clockwise, and no two overlapping. */
static cl_status load_blocks(cl_dda_model *m, const cl_dda_input *in, double *tol, cl_error *err) {
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (size_t v = 0; v < m->nv; v++) {
    x0 = fmin(x0, in->vx[v]), x1 = fmax(x1, in->vx[v]), y0 = fmin(y0, in->vy[v]), y1 = fmax(y1, in->vy[v]);
  }
  double size = fmax(x1 - x0, y1 - y0);
  *tol = 1e-9 * size;
  for (size_t i = 0; i < m->n; i++) {
    int32_t s = in->vstart[i], nv = in->vstart[i + 1] - s;
    char why[160];
    if (cl_dda_polygon_defect(in->vx + s, in->vy + s, nv, *tol, why, sizeof why))
      return cl_error_set(err, CL_ERR_ARG, "block %zu %s: give a simple polygon's vertices in order", i + 1, why);
    int ccw = cl_dda_polygon_area2(in->vx + s, in->vy + s, nv) > 0;
    for (int32_t k = 0; k < nv; k++) {
      int32_t src = ccw ? s + k : s + nv - 1 - k;
      m->vx[s + k] = in->vx[src], m->vy[s + k] = in->vy[src];
      /* reversed, the edge from vertex k runs along the input's edge from vertex nv - 2 - k */
      int32_t edge = ccw ? s + k : s + (2 * nv - 2 - k) % nv;
      m->edge_joint[s + k] = in->edge_joint ? in->edge_joint[edge] : -1;
    }
  }
  cl_dda_geometry g = {m->n, m->vstart, m->vx, m->vy};
  CL_TRY(cl_dda_broad_phase(&g, 0, &m->pairs, &m->ncand, &m->npairs_cap, err));
  for (size_t k = 0; k < m->ncand; k++) {
    int32_t a = m->pairs[2 * k], b = m->pairs[2 * k + 1];
    int32_t sa = m->vstart[a], sb = m->vstart[b];
    if (cl_dda_polygons_overlap(m->vx + sa, m->vy + sa, m->vstart[a + 1] - sa, m->vx + sb, m->vy + sb,
                                m->vstart[b + 1] - sb, *tol))
      return cl_error_set(err, CL_ERR_ARG, "blocks %d and %d overlap at the start: blocks may touch but not "
                          "overlap (check their vertices)", a + 1, b + 1);
  }
  if (m->p.max_displacement <= 0) m->p.max_displacement = 0.01 * size / 2;
  /* The default skin, d0 = 2.5 max_displacement (the step's contact distance): a block may move
   * d0 / 2 from where the list was built, at least 0.6 of an accepted step's largest move (2
   * max_displacement), hundreds of steps at the ~1% of it a block moves in a typical step; the kept
   * boxes grow from d0 / 2 to d0, a longer kept list to filter, the same pairs (docs/methods/dda.md). */
  if (m->p.broad_skin < 0) m->p.broad_skin = 2.5 * m->p.max_displacement;
  m->kept.skin = m->detect.skin = m->stats.broad_skin = m->p.broad_skin;
  return CL_OK;
}

static int64_t pair_key(const cl_dda_model *m, int32_t a, int32_t b) {
  return a < b ? (int64_t)a * (int64_t)m->n + b : (int64_t)b * (int64_t)m->n + a;
}

static int key_cmp(const void *x, const void *y) {
  const int64_t *a = x, *b = y;
  return *a < *b ? -1 : *a > *b;
}

static cl_status load_joints(cl_dda_model *m, const cl_dda_input *in, cl_error *err) {
  m->njoints = in->njoints, m->npairs = in->njoint_pairs;
  m->joints = alloc_zero(m->njoints, sizeof *m->joints);
  int64_t *keyed = alloc_zero(2 * m->npairs, sizeof *keyed);
  m->pair_keys = alloc_zero(m->npairs, sizeof *m->pair_keys);
  m->pair_joint = alloc_zero(m->npairs, sizeof *m->pair_joint);
  m->joint_law = alloc_zero(3 * m->njoints, sizeof *m->joint_law);
  if (!m->joints || !keyed || !m->pair_keys || !m->pair_joint || !m->joint_law) return free(keyed), oom(err);
  memcpy(m->joints, in->joints, m->njoints * sizeof *m->joints);
  for (size_t k = 0; k < m->njoints; k++) {
    const cl_dda_joint *j = &m->joints[k];
    m->joint_law[3 * k] = tan(j->friction_angle * PI / 180), m->joint_law[3 * k + 1] = j->cohesion;
    m->joint_law[3 * k + 2] = j->tension;
  }
  for (size_t k = 0; k < m->npairs; k++) {
    const int32_t *t = in->joint_pairs + 3 * k;
    keyed[2 * k] = pair_key(m, t[0], t[1]), keyed[2 * k + 1] = t[2];
  }
  qsort(keyed, m->npairs, 2 * sizeof *keyed, key_cmp);
  for (size_t k = 0; k < m->npairs; k++) m->pair_keys[k] = keyed[2 * k], m->pair_joint[k] = (int32_t)keyed[2 * k + 1];
  free(keyed);
  return CL_OK;
}

static void set_arrays(cl_dda_model *m) {
  size_t n = m->n;
  void *host[A_COUNT] = {m->vstart, m->fstart, m->lstart, m->vx, m->vy, m->rho, m->E, m->nu, m->stress,
                         m->vel, m->fx, m->fy, m->ftx, m->fty, m->lx, m->ly, m->lpx, m->lpy,
                         m->K, m->F, m->moments, m->D, m->trial_D, m->per_block, m->rotation};
  size_t count[A_COUNT] = {n + 1, n + 1, n + 1, m->nv, m->nv, n, n, n, 3 * n, 6 * n, m->nf, m->nf, m->nf,
                           m->nf, m->nl, m->nl, m->nl, m->nl, 36 * n, 6 * n, 6 * n, 6 * n, 6 * n, 3 * n, n};
  for (int k = 0; k < A_COUNT; k++) {
    m->host[k] = host[k];
    m->bytes[k] = count[k] * (k <= A_LSTART ? sizeof(int32_t) : sizeof(double));
  }
}

/* On a cuda device: every array copied there once; the device copies of the state are the
 * ones the kernels move, the host's are refreshed after each update. */
static cl_status mirror(cl_dda_model *m, void **dst, const void *src, size_t bytes, cl_error *err) {
  if (m->dev->kind == CL_BACKEND_CPU) {
    *dst = (void *)src;
    return CL_OK;
  }
  CL_TRY(m->dev->alloc(m->dev, dst, bytes ? bytes : 8, err));
  return bytes ? m->dev->to_device(m->dev, *dst, src, bytes, err) : CL_OK;
}

static cl_status mirror_on_device(cl_dda_model *m, cl_error *err) {
  for (int k = 0; k < A_COUNT; k++) CL_TRY(mirror(m, &m->device[k], m->host[k], m->bytes[k], err));
  CL_TRY(mirror(m, &m->d_edge_joint, m->edge_joint, m->nv * sizeof *m->edge_joint, err));
  CL_TRY(mirror(m, &m->d_pair_keys, m->pair_keys, m->npairs * sizeof *m->pair_keys, err));
  CL_TRY(mirror(m, &m->d_pair_joint, m->pair_joint, m->npairs * sizeof *m->pair_joint, err));
  return mirror(m, &m->d_joint_law, m->joint_law, 3 * m->njoints * sizeof *m->joint_law, err);
}

cl_status cl_dda_model_to_device(cl_dda_model *m, int k, cl_error *err) {
  if (m->dev->kind == CL_BACKEND_CPU || !m->bytes[k]) return CL_OK;
  return m->dev->to_device(m->dev, m->device[k], m->host[k], m->bytes[k], err);
}

cl_status cl_dda_model_to_host(cl_dda_model *m, int k, cl_error *err) {
  if (m->dev->kind == CL_BACKEND_CPU || !m->bytes[k]) return CL_OK;
  return m->dev->to_host(m->dev, m->host[k], m->device[k], m->bytes[k], err);
}

/* An on/off switch of the environment, read when a model is made: *on 1 (the default) or 0; another
 * value refused, naming the variable and what its values do. */
static cl_status env_switch(const char *name, const char *off, const char *on_means, int *on, cl_error *err) {
  const char *v = getenv(name);
  *on = !v || strcmp(v, "0");
  if (v && strcmp(v, "0") && strcmp(v, "1"))
    return cl_error_set(err, CL_ERR_ARG, "%s = '%s' must be 0 (%s) or 1 (%s; the default)", name, v, off, on_means);
  return CL_OK;
}

/* A factor >= 1 of the environment, read when a model is made: *factor the variable's value, or
 * fallback where it is unset; another value refused, naming the variable and what it does. */
static cl_status env_factor(const char *name, const char *means, double fallback, double *factor, cl_error *err) {
  const char *v = getenv(name);
  char *end = NULL;
  *factor = v ? strtod(v, &end) : fallback;
  if (v && (end == v || *end || !(*factor >= 1) || !isfinite(*factor)))
    return cl_error_set(err, CL_ERR_ARG, "%s = '%s' must be a number >= 1 (%s; 1: off)", name, v, means);
  return CL_OK;
}

cl_status cl_dda_model_create(cl_dda_model **out, cl_device *d, const cl_dda_input *in, cl_error *err) {
  *out = NULL;
  CL_TRY(check_input(in, err));
  double loose = in->open_close_loose;
  if (loose == 0)
    CL_TRY(env_factor("CLEAVE_DDA_OC_LOOSE", "the open-close solves that change states stop at this many times "
                      "the tolerances", OPEN_CLOSE_LOOSE, &loose, err));
  int reuse, shortcut; /* 0: the pattern built every step, the transfer sorted every step; for A/B timings */
  CL_TRY(env_switch("CLEAVE_DDA_PATTERN_REUSE", "build the matrix's pattern every step",
                    "keep it while the contacts' pairs of blocks stay", &reuse, err));
  CL_TRY(env_switch("CLEAVE_DDA_TRANSFER_SHORTCUT", "sort the contacts found every step",
                    "skip the sort where they are the last transfer's, in the same order", &shortcut, err));
  cl_dda_model *m = calloc(1, sizeof *m);
  if (!m) return oom(err);
  m->dev = d, m->p = *in;
  m->p.open_close_loose = loose;
  cl_dda_solver_init(&m->solver, d, in->spmv_format);
  m->solver.persistent = !in->pcg_launches, m->solver.persistent_blocks = in->pcg_blocks;
  m->solver.incremental = !in->full_assembly, m->solver.pipelined = in->pcg_pipelined != 0;
  m->solver.reuse_pattern = reuse;
  cl_dda_detect_init(&m->detect, d);
  m->detect.shortcut = shortcut;
  m->stats.device_detection = in->detection == CL_DDA_DETECT_DEVICE ||
                              (in->detection == CL_DDA_DETECT_AUTO && d->kind != CL_BACKEND_CPU);
  /* the pattern and the assembly's indices go with detection: on the device where it runs there */
  m->stats.device_pattern = m->stats.device_detection && in->spmv_format == CL_DDA_BSR;
  size_t n = m->n = in->nblocks;
  m->nv = (size_t)in->vstart[n], m->nf = in->nfixed, m->nl = in->nloads;
  m->vstart = alloc_zero(n + 1, sizeof(int32_t)), m->fstart = alloc_zero(n + 1, sizeof(int32_t));
  m->lstart = alloc_zero(n + 1, sizeof(int32_t)), m->load_slot = alloc_zero(m->nl, sizeof(int32_t));
  m->material = alloc_zero(n, sizeof(int32_t)), m->edge_joint = alloc_zero(m->nv, sizeof(int32_t));
  double **reals[] = {&m->vx, &m->vy, &m->rho, &m->E, &m->nu, &m->stress, &m->vel, &m->fx, &m->fy, &m->ftx,
                      &m->fty, &m->lx, &m->ly, &m->lpx, &m->lpy, &m->K, &m->F, &m->moments, &m->D,
                      &m->trial_D, &m->per_block, &m->x_start, &m->y_start, &m->rotation};
  size_t counts[] = {m->nv, m->nv, n, n, n, 3 * n, 6 * n, m->nf, m->nf, m->nf, m->nf, m->nl, m->nl, m->nl, m->nl,
                     36 * n, 6 * n, 6 * n, 6 * n, 6 * n, 3 * n, n, n, n};
  int ok = m->vstart && m->fstart && m->lstart && m->load_slot && m->material && m->edge_joint;
  for (size_t k = 0; k < sizeof reals / sizeof *reals; k++) ok = (*reals[k] = alloc_zero(counts[k], sizeof(double))) && ok;
  cl_status st = ok ? CL_OK : oom(err);
  double tol = 0;
  if (st == CL_OK) {
    memcpy(m->vstart, in->vstart, (n + 1) * sizeof *m->vstart);
    memcpy(m->material, in->material, n * sizeof *m->material);
    st = load_blocks(m, in, &tol, err);
  }
  if (st == CL_OK) st = load_joints(m, in, err);
  if (st == CL_OK) st = place_points(m, "fixed", m->nf, in->fixed, tol, m->fstart, m->fx, m->fy, NULL, err);
  if (st == CL_OK) st = place_points(m, "loading", m->nl, in->loads, tol, m->lstart, m->lx, m->ly, m->load_slot, err);
  if (st == CL_OK) {
    memcpy(m->ftx, m->fx, m->nf * sizeof *m->ftx), memcpy(m->fty, m->fy, m->nf * sizeof *m->fty);
    for (size_t i = 0; i < n; i++) {
      const cl_dda_material *q = &in->materials[m->material[i]];
      m->rho[i] = q->rho, m->E[i] = q->E, m->nu[i] = q->nu;
      for (int k = 0; k < 3; k++) m->stress[k * n + i] = q->stress[k];
      if (in->velocity)
        for (int k = 0; k < 3; k++) m->vel[k * n + i] = in->velocity[3 * i + k];
      int32_t s = m->vstart[i];
      cl_dda_moments mo = cl_dda_polygon_moments(m->vx + s, m->vy + s, m->vstart[i + 1] - s);
      m->x_start[i] = mo.x0, m->y_start[i] = mo.y0;
    }
    set_arrays(m);
    st = mirror_on_device(m, err);
  }
  if (st != CL_OK) {
    cl_dda_model_destroy(m);
    return st;
  }
  m->p.vx = m->p.vy = m->p.fixed = m->p.loads = m->p.velocity = NULL;
  m->p.vstart = m->p.material = m->p.joint_pairs = m->p.edge_joint = NULL;
  m->p.materials = NULL, m->p.joints = NULL;
  *out = m;
  return CL_OK;
}

void cl_dda_model_destroy(cl_dda_model *m) {
  if (!m) return;
  if (m->dev->kind != CL_BACKEND_CPU) {
    for (int k = 0; k < A_COUNT; k++)
      if (m->device[k]) m->dev->release(m->dev, m->device[k]);
    void *mirrored[] = {m->d_edge_joint, m->d_pair_keys, m->d_pair_joint, m->d_joint_law};
    for (size_t k = 0; k < sizeof mirrored / sizeof *mirrored; k++)
      if (mirrored[k]) m->dev->release(m->dev, mirrored[k]);
  }
  void *owned[] = {m->vstart, m->fstart, m->lstart, m->load_slot, m->material, m->edge_joint, m->vx, m->vy, m->rho, m->E,
                   m->nu, m->stress, m->vel, m->fx, m->fy, m->ftx, m->fty, m->lx, m->ly, m->lpx, m->lpy, m->K,
                   m->F, m->moments, m->D, m->trial_D, m->per_block, m->x_start, m->y_start, m->rotation, m->joints,
                   m->pair_keys, m->pair_joint, m->joint_law, m->pairs, m->step_ints, m->step_reals};
  for (size_t k = 0; k < sizeof owned / sizeof *owned; k++) free(owned[k]);
  cl_dda_contact_list_free(&m->contacts), cl_dda_contact_list_free(&m->start);
  cl_dda_kept_pairs_free(&m->kept);
  cl_dda_bsr_free(&m->a);
  for (int k = 0; k < 2; k++)
    if (m->lists[k]) m->dev->release(m->dev, m->lists[k]);
  cl_dda_detect_free(&m->detect);
  if (m->found) m->dev->host_release(m->dev, m->found);
  cl_dda_solver_free(&m->solver);
  free(m);
}

void cl_dda_set_load(cl_dda_model *m, size_t k, double fx, double fy) {
  int32_t s = m->load_slot[k];
  m->lpx[s] = fx, m->lpy[s] = fy;
  m->loads_set = 1;
}

/* ---- the step ---------------------------------------------------------------------- */

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Charges the time since *t to the host's part k (cl_dda_contact_part) and moves *t. Where no host
 * read ends a part's device work (the device path's transfer, pattern and set-up), nothing waits for
 * it: the time is charged where the host next waits (with CLEAVE_CUDA_SYNC=1 every launch waits,
 * and each part and module is charged its own device time). */
static void lap(cl_dda_model *m, int k, double *t) {
  double now = seconds_now();
  m->stats.contact_seconds[k] += now - *t;
  *t = now;
}

static cl_dda_block_args block_args(const cl_dda_model *m, double dt) {
  void *const *a = m->device;
  cl_dda_block_args b = {
      .n = m->n, .vstart = a[A_VSTART], .vx = a[A_VX], .vy = a[A_VY], .rho = a[A_RHO], .E = a[A_E],
      .nu = a[A_NU], .plane_strain = m->p.plane_strain, .stress = a[A_STRESS], .vel = a[A_VEL],
      .rotation = a[A_ROTATION], .dt = dt,
      .gx = m->p.gx, .gy = m->p.gy, .dynamic = m->p.dynamic, .fstart = a[A_FSTART], .fx = a[A_FX],
      .fy = a[A_FY], .ftx = a[A_FTX], .fty = a[A_FTY], .fixed_penalty = m->p.fixed_stiffness,
      .lstart = a[A_LSTART], .lx = a[A_LX], .ly = a[A_LY], .lpx = a[A_LPX], .lpy = a[A_LPY], .K = a[A_K],
      .F = a[A_F], .moments = a[A_MOMENTS], .D = a[A_D]};
  return b;
}

/* The diagonal kernel. differ (nc values, or NULL): the step's contacts compared with the kept
 * pattern's on the device (cl_dda_solver_compare_pattern), whose largest is read with the lightest
 * mass, one host wait for both. */
static cl_status diagonal(cl_dda_model *m, double dt, const double *differ, size_t nc, cl_error *err) {
  if (m->loads_set) { /* each upload waits for the device's queue: only when the loads changed */
    CL_TRY(cl_dda_model_to_device(m, A_LPX, err));
    CL_TRY(cl_dda_model_to_device(m, A_LPY, err));
    m->loads_set = 0;
  }
  cl_dda_block_args a = block_args(m, dt);
  a.mass = m->device[A_PER_BLOCK];
  CL_TRY(cl_k_dda_diagonal(m->dev, CL_F64, &a, err));
  /* the moments, K and F stay there; of the masses only the least comes to the host (one scalar,
   * not 6 n moments), for PCG's displacement criterion, where it is on */
  m->lightest = 0;
  const double *terms[2];
  size_t count[2];
  int op[2], nsums = 0;
  if (m->p.pcg_displacement > 0) terms[nsums] = a.mass, count[nsums] = m->n, op[nsums++] = CL_REDUCE_MIN;
  if (differ) terms[nsums] = differ, count[nsums] = nc, op[nsums++] = CL_REDUCE_MAX;
  double got[2];
  if (!nsums) return CL_OK;
  CL_TRY(cl_k_reduce_many(m->dev, nsums, terms, count, op, got, err));
  if (m->p.pcg_displacement > 0) m->lightest = got[0];
  if (differ) cl_dda_solver_pattern_compared(&m->solver, got[nsums - 1]);
  return CL_OK;
}

/* The accepted solution (the device's trial D, checked) becomes D: the update's, the next step's warm
 * start or prediction (predict). The update moves the blocks on the device, accumulates their
 * rotations and sums the work of gravity and of the loads and the kinetic energy there (those
 * that can be other than 0, read back together); the host takes the vertices back where
 * its transfer reads them (not with the pattern on the device, whose transfer and set-up read the
 * device's), and the stresses, velocities and rotations (and there the vertices) only when asked
 * (cl_dda_host_state): the step never brings the solution to the host. The points' host copies are
 * read by nothing after the start. */
static cl_status update(cl_dda_model *m, double dt, cl_error *err) {
  size_t n = m->n;
  CL_TRY(m->dev->copy(m->dev, m->device[A_D], m->device[A_TRIAL], m->bytes[A_D], err));
  cl_dda_block_args a = block_args(m, dt);
  a.energy = m->device[A_PER_BLOCK];
  CL_TRY(cl_k_dda_update(m->dev, CL_F64, &a, err));
  /* each sum a host wait: none where every term is 0 -- no gravity, no loading points, a static
   * analysis's velocities (zeroed by the update) */
  const double *energy = a.energy;
  const int nonzero[3] = {m->p.gx != 0 || m->p.gy != 0, m->nl > 0, m->p.dynamic};
  double sum[3] = {0, 0, 0}, got[3]; /* gravity's work, the loads', the kinetic energy */
  const double *terms[3];
  size_t count[3];
  int op[3], which[3], nsums = 0;
  for (int k = 0; k < 3; k++)
    if (nonzero[k]) terms[nsums] = energy + (size_t)k * n, count[nsums] = n, op[nsums] = CL_REDUCE_SUM, which[nsums++] = k;
  CL_TRY(cl_k_reduce_many(m->dev, nsums, terms, count, op, got, err));
  for (int q = 0; q < nsums; q++) sum[which[q]] = got[q];
  m->stats.gravity_work += sum[0], m->stats.load_work += sum[1], m->stats.kinetic = sum[2];
  if (!m->stats.device_pattern) {
    CL_TRY(cl_dda_model_to_host(m, A_VX, err));
    CL_TRY(cl_dda_model_to_host(m, A_VY, err));
  }
  m->host_stale = 1;
  return CL_OK;
}

cl_status cl_dda_host_state(cl_dda_model *m, cl_error *err) {
  if (!m->host_stale) return CL_OK;
  if (m->stats.device_pattern) {
    CL_TRY(cl_dda_model_to_host(m, A_VX, err));
    CL_TRY(cl_dda_model_to_host(m, A_VY, err));
  }
  CL_TRY(cl_dda_model_to_host(m, A_STRESS, err));
  CL_TRY(cl_dda_model_to_host(m, A_VEL, err));
  CL_TRY(cl_dda_model_to_host(m, A_ROTATION, err));
  m->host_stale = 0;
  return CL_OK;
}

/* Once per step, after detection: the pattern of every pair of blocks with a contact, open or
 * closed (sorted unique pairs, bsr.c), and the assembly's structure and indices over all the
 * contacts on the device (pcg.h), with their geometry, states, anchors and bonds at the step's
 * start. From there the states live on the device: each attempt restarts from the start's, the
 * open-close iteration changes them (assemble), the accepted step's bookkeeping is done there
 * (cl_dda_solver_account), and the host's list catches up only when read (cl_dda_host_contacts). */
/* A device list's arrays in its storage p of cap contacts (none where p is NULL). */
cl_dda_device_list cl_dda_model_list_view(void *p, size_t cap) {
  cl_dda_device_list l = {0};
  if (!p) return l;
  double *r = (double *)((int64_t *)p + cap);
  int32_t *i = (int32_t *)(r + 5 * cap);
  l.key = p, l.t_ref = r, l.length = r + cap, l.sgn = r + 2 * cap, l.N = r + 3 * cap, l.S = r + 4 * cap;
  l.bi = i, l.bj = i + cap, l.vi = i + 2 * cap, l.ej = i + 3 * cap, l.kind = i + 4 * cap, l.state = i + 5 * cap;
  l.flips = i + 6 * cap, l.bonded = i + 7 * cap;
  return l;
}

cl_status cl_dda_model_grow(cl_dda_model *m, void **p, size_t *cap, size_t want, size_t item, cl_error *err) {
  if (want <= *cap && *p) return CL_OK;
  if (*p) m->dev->release(m->dev, *p);
  *p = NULL, *cap = 0;
  size_t c = want + want / 4;
  CL_TRY(m->dev->alloc(m->dev, p, (c ? c : 1) * item, err));
  *cap = c;
  return CL_OK;
}

/* The step's contacts for the solver, but their arrays; with the pattern on the device, the arrays too:
 * the transfer's list, on the device. */
static cl_dda_step_contacts step_contacts(const cl_dda_model *m) {
  const double slip_floor = 1e-9 * m->p.max_displacement;
  cl_dda_step_contacts sc = {.kn = m->p.normal_stiffness, .ks = m->p.shear_stiffness, .slip_floor = slip_floor,
                             .force_floor = slip_floor * m->p.normal_stiffness, .flip_limit = FLIP_LIMIT};
  if (!m->stats.device_pattern) return sc;
  const int q = 1 - m->last;
  const cl_dda_device_list l = cl_dda_model_list_view(m->lists[q], m->list_cap[q]);
  sc.count = m->list_count[q], sc.bi = l.bi, sc.bj = l.bj, sc.state = l.state, sc.flips = l.flips, sc.sgn = l.sgn;
  sc.N = l.N, sc.t_ref = l.t_ref, sc.bonded = l.bonded, sc.vi = l.vi, sc.ej = l.ej, sc.length = l.length;
  sc.on_device = 1;
  return sc;
}

static cl_status set_step_contacts(cl_dda_model *m, cl_error *err) {
  cl_dda_step_contacts sc = step_contacts(m);
  double t = seconds_now();
  if (m->stats.device_pattern) {
    CL_TRY(cl_dda_solver_set_contacts_on_device(&m->solver, m->n, &sc, err));
    lap(m, CL_DDA_PART_PATTERN, &t);
    return CL_OK;
  }
  size_t count = m->start.count;
  if (count > m->step_cap || !m->step_ints) {
    size_t cap = count ? count : 1;
    int32_t *p = realloc(m->step_ints, STEP_INTS * cap * sizeof *p);
    if (p) m->step_ints = p;
    double *r = realloc(m->step_reals, STEP_REALS * cap * sizeof *r);
    if (r) m->step_reals = r;
    if (!p || !r) return oom(err);
    m->step_cap = cap;
  }
  int32_t *bi = m->step_ints, *bj = bi + count, *vi = bj + count, *ej = vi + count, *state = ej + count;
  int32_t *flips = state + count, *bonded = flips + count;
  double *sgn = m->step_reals, *N = sgn + count, *t_ref = N + count, *length = t_ref + count;
#pragma omp parallel for schedule(static) if (count >= CL_DDA_PARALLEL_MIN)
  for (size_t k = 0; k < count; k++) {
    const cl_dda_contact *c = &m->start.c[k];
    bi[k] = c->bi, bj[k] = c->bj, vi[k] = c->vi, ej[k] = c->ej, state[k] = c->state, flips[k] = c->flips;
    bonded[k] = c->bonded, sgn[k] = c->sgn, N[k] = c->N, t_ref[k] = c->t_ref, length[k] = c->length;
  }
  lap(m, CL_DDA_PART_PACKING, &t);
  sc.count = count, sc.bi = bi, sc.bj = bj, sc.state = state, sc.flips = flips, sc.sgn = sgn, sc.N = N;
  sc.t_ref = t_ref, sc.bonded = bonded, sc.vi = vi, sc.ej = ej, sc.length = length;
  int same; /* the host's pattern too is kept where the solver keeps its own (set_contacts takes the answer) */
  CL_TRY(cl_dda_solver_same_pattern(&m->solver, m->n, &sc, &same, err));
  if (!same) CL_TRY(cl_dda_bsr_pattern(&m->a, m->n, count, bi, bj, err));
  CL_TRY(cl_dda_solver_set_contacts(&m->solver, &m->a, &sc, err));
  lap(m, CL_DDA_PART_PATTERN, &t);
  return CL_OK;
}

/* The step's contacts' geometry at its start, joints' laws and start friction, on the device into the
 * solver's arrays (setup_ops.h), from the centroids of the diagonal kernel. */
static cl_status contact_setup(cl_dda_model *m, cl_error *err) {
  cl_dda_setup_args a = {.n = m->n, .vstart = m->device[A_VSTART], .vx = m->device[A_VX], .vy = m->device[A_VY],
                         .moments = m->device[A_MOMENTS], .edge_joint = m->d_edge_joint, .npairs = m->npairs,
                         .pair_keys = m->d_pair_keys, .pair_joint = m->d_pair_joint, .joint_law = m->d_joint_law};
  cl_dda_solver_setup_args(&m->solver, &a);
  return cl_k_dda_contact_setup(m->dev, CL_F64, &a, err);
}

/* The host's list of the last step's contacts brought up to date with the device's states, forces,
 * anchors and bonds, where the step left them there (the packing's arrays, free between steps, take
 * the download). */
/* The host's list from the last accepted step's device list (the device transfer's), in one download. */
static cl_status host_contacts_from_list(cl_dda_model *m, cl_error *err) {
  const size_t count = m->list_count[m->last], cap = m->list_cap[m->last];
  if (count > m->contacts.cap) {
    cl_dda_contact *c = realloc(m->contacts.c, count * sizeof *c);
    if (!c) return oom(err);
    m->contacts.c = c, m->contacts.cap = count;
  }
  m->contacts.count = count;
  if (!count) return CL_OK;
  void *p = malloc(cap * LIST_BYTES);
  if (!p) return oom(err);
  cl_status st = m->dev->to_host(m->dev, p, m->lists[m->last], cap * LIST_BYTES, err);
  const cl_dda_device_list l = cl_dda_model_list_view(p, cap);
#pragma omp parallel for schedule(static) if (count >= CL_DDA_PARALLEL_MIN)
  for (size_t k = 0; k < (st == CL_OK ? count : 0); k++) {
    cl_dda_contact *c = &m->contacts.c[k];
    c->bi = l.bi[k], c->vi = l.vi[k], c->bj = l.bj[k], c->ej = l.ej[k], c->kind = l.kind[k], c->state = l.state[k];
    c->bonded = l.bonded[k], c->flips = 0, c->t_ref = l.t_ref[k], c->length = l.length[k], c->sgn = l.sgn[k];
    c->N = l.N[k], c->S = l.S[k];
  }
  free(p);
  return st;
}

cl_status cl_dda_host_contacts(cl_dda_model *m, cl_error *err) {
  if (!m->contacts_stale) return CL_OK;
  if (m->stats.device_pattern) {
    CL_TRY(cl_dda_host_state(m, err)); /* the contacts' points: the vertices */
    CL_TRY(host_contacts_from_list(m, err));
    m->contacts_stale = 0;
    return CL_OK;
  }
  size_t count = m->contacts.count;
  int32_t *ints = m->step_ints;
  double *reals = m->step_reals;
  cl_dda_contact_fields f = {ints, ints + count, ints + 2 * count, reals, reals + count, reals + 2 * count,
                             reals + 3 * count};
  CL_TRY(cl_dda_solver_contacts_down(&m->solver, &f, err));
#pragma omp parallel for schedule(static) if (count >= CL_DDA_PARALLEL_MIN)
  for (size_t k = 0; k < count; k++) {
    cl_dda_contact *c = &m->contacts.c[k];
    c->state = f.state[k], c->flips = f.flips[k], c->bonded = f.bonded[k];
    c->sgn = f.sgn[k], c->N = f.N[k], c->S = f.S[k], c->t_ref = f.t_ref[k];
  }
  m->contacts_stale = 0;
  return CL_OK;
}

/* The checks of the attempt's solution on the device (cl_dda_check_block): the largest displacement of a
 * vertex, and the first block whose area it would change by more than a factor 2 (-1: none), two
 * reductions read back together. The solution stays there as the trial D. */
static cl_status check_solution(cl_dda_model *m, double dt, double *dmax, int32_t *collapsing, cl_error *err) {
  size_t n = m->n;
  double first = (double)n;
  *dmax = 0;
  CL_TRY(cl_dda_solver_solution_to(&m->solver, m->device[A_TRIAL], err));
  cl_dda_block_args a = block_args(m, dt);
  a.D = m->device[A_TRIAL], a.check = m->device[A_PER_BLOCK];
  CL_TRY(cl_k_dda_check(m->dev, CL_F64, &a, err));
  const double *check = m->device[A_PER_BLOCK], *terms[2] = {check, check + n};
  const size_t count[2] = {n, n};
  const int op[2] = {CL_REDUCE_MAX, CL_REDUCE_MIN};
  double got[2];
  CL_TRY(cl_k_reduce_many(m->dev, 2, terms, count, op, got, err));
  *dmax = got[0], first = got[1];
  *collapsing = first < (double)n ? (int32_t)first : -1;
  return CL_OK;
}

/* The contacts' friction work, shear forces, anchors and bonds (on the device: cl_dda_solver_account)
 * with the closed count, before the update moves the blocks (which sums the work of gravity and of
 * the loads, and accumulates the rotations). */
static cl_status account(cl_dda_model *m, cl_error *err) {
  double work;
  if (m->stats.device_pattern) { /* the same pass writes the step's device list (the next transfer's) */
    const int q = 1 - m->last;
    const cl_dda_device_list l = cl_dda_model_list_view(m->lists[q], m->list_cap[q]);
    const cl_dda_contact_fields into = {l.state, NULL, l.bonded, l.sgn, l.N, l.S, l.t_ref};
    CL_TRY(cl_dda_solver_account(&m->solver, &into, &work, &m->stats.closed, err));
  } else {
    CL_TRY(cl_dda_solver_account(&m->solver, NULL, &work, &m->stats.closed, err));
  }
  m->stats.friction_work += work;
  return CL_OK;
}

/* Charges the time since *mark to module k and moves the mark. Most modules end in a host read of
 * their results (or a dot's scalar); the device work that no read ends (the device path's transfer,
 * pattern and set-up; the diagonal kernel where the displacement criterion is off) is charged to the
 * module where the host next waits, unless CLEAVE_CUDA_SYNC=1 makes every launch wait. */
static void charge(cl_dda_model *m, int k, double *mark) {
  double now = seconds_now();
  m->stats.seconds[k] += now - *mark;
  *mark = now;
}

/* PCG's displacement criterion as an energy: A = inertia + elastic + springs, each positive
 * semi-definite, so an update dx of energy dx^T A dx = U moves block i's points, over its mass m_i,
 * by a root mean square of at most dt sqrt(U / (2 m_i)) (the inertia is 2 rho / dt^2 int T^T T).
 * The update must move the lightest block by less than pcg_displacement x max_displacement: the
 * open-close rule's decisions then rest on gaps known far better than the steps allowed to move
 * them, and CG's later updates, shrinking geometrically, add less than a few such updates. */
static double update_energy(const cl_dda_model *m, double dt) {
  double d = m->p.pcg_displacement * m->p.max_displacement;
  return 2 * m->lightest * d * d / (dt * dt);
}

/* A dynamic step's first solve starts from the displacement at the last step's acceleration
 * (cl_dda_predict_block), computed on the device into the trial D and copied into the solver's x,
 * so that neither the velocities nor D come to the host. On case 2's first 20 steps the first solve, 93% of the step's PCG iterations, falls
 * from ~41 to 4-7 iterations (150 steps: 51 a step against 74); where contact springs chatter (a
 * block sliding on an incline) the extrapolation carries their chatter and a solve can take a few
 * more (5 against 2 on test_dda's incline; docs/benchmarks.md). */
static cl_status predict(cl_dda_model *m, double dt, cl_error *err) {
  cl_dda_block_args a = block_args(m, dt);
  a.last_dt = m->stats.dt, a.predicted = m->device[A_TRIAL];
  CL_TRY(cl_k_dda_predict(m->dev, CL_F64, &a, err));
  return cl_dda_solver_start_from(&m->solver, m->device[A_TRIAL], err);
}

/* CLEAVE_DDA_DUMP=path: the process's first assembled system (BSR format) written to path for
 * scripts/bench/dda_precond.c (docs/methods/dda.md, "Solver"), little-endian binary: "CLDDABSR",
 * int64 n, int64 nnzb, int32 rowptr[n + 1], int32 col[nnzb], f64 val[36 nnzb] (row-major blocks),
 * f64 b[6 n] (block-major: entry 6 i + c). Once a process: later models and solves are not written. */
static cl_status dump_system(cl_dda_model *m, cl_error *err) {
  static int dumped;
  const char *path = getenv("CLEAVE_DDA_DUMP");
  if (!path || !*path || dumped) return CL_OK;
  dumped = 1;
  const cl_dda_pcg_args *A = &m->solver.A;
  if (A->format != CL_DDA_BSR)
    return cl_error_set(err, CL_ERR_ARG, "CLEAVE_DDA_DUMP writes the BSR matrix: run with spmv = \"bsr\"");
  const int64_t n = (int64_t)A->n;
  int32_t *rowptr = malloc((size_t)(n + 1) * sizeof *rowptr);
  if (!rowptr) return oom(err);
  cl_status st = m->dev->to_host(m->dev, rowptr, A->rowptr, (size_t)(n + 1) * sizeof *rowptr, err);
  const int64_t nnzb = st == CL_OK ? rowptr[n] : 0;
  int32_t *col = malloc((size_t)nnzb * sizeof *col + 1);
  double *val = malloc((size_t)(36 * nnzb + 12 * n) * sizeof *val + 1), *soa = val + 36 * nnzb, *b = soa + 6 * n;
  if (st == CL_OK && (!col || !val)) st = oom(err);
  if (st == CL_OK) st = m->dev->to_host(m->dev, col, A->col, (size_t)nnzb * sizeof *col, err);
  if (st == CL_OK) st = m->dev->to_host(m->dev, val, A->val, (size_t)(36 * nnzb) * sizeof *val, err);
  if (st == CL_OK) st = m->dev->to_host(m->dev, soa, A->b, (size_t)(6 * n) * sizeof *soa, err);
  if (st == CL_OK) {
    for (int64_t i = 0; i < n; i++)
      for (int c = 0; c < 6; c++) b[6 * i + c] = soa[c * n + i];
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite("CLDDABSR", 1, 8, f) == 8 && fwrite(&n, sizeof n, 1, f) == 1 &&
             fwrite(&nnzb, sizeof nnzb, 1, f) == 1 && fwrite(rowptr, sizeof *rowptr, (size_t)n + 1, f) == (size_t)n + 1 &&
             fwrite(col, sizeof *col, (size_t)nnzb, f) == (size_t)nnzb &&
             fwrite(val, sizeof *val, (size_t)(36 * nnzb), f) == (size_t)(36 * nnzb) &&
             fwrite(b, sizeof *b, (size_t)(6 * n), f) == (size_t)(6 * n);
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) st = cl_error_set(err, CL_ERR_IO, "CLEAVE_DDA_DUMP: could not write %s: give a writable path", path);
  }
  free(rowptr), free(col), free(val);
  return st;
}

/* An open-close iteration: the matrix of the contacts' current states, assembled on the device --
 * in full at the attempt's first iteration, then only where the rule changed a state (pcg.h) --
 * solved from the device's x, and the open-close rule on the
 * solution if it converged -- chained on the device, the host waiting once for the scalars where
 * the solve is one launch (cl_dda_solver_solve_open_close): the rule's time is then the solve's. */
static cl_status solve(cl_dda_model *m, double dt, int first, double loose, cl_dda_pcg_result *r, int *changed,
                       int *unsettled, double *mark, cl_error *err) {
  if (first) CL_TRY(cl_dda_solver_assemble(&m->solver, NULL, NULL, m->device[A_K], m->device[A_F], err));
  else CL_TRY(cl_dda_solver_assemble_changed(&m->solver, err));
  CL_TRY(dump_system(m, err));
  charge(m, CL_DDA_ASSEMBLY, mark);
  /* loosened, the residual's bound by loose and the update's displacement by loose: its energy by loose^2 */
  CL_TRY(cl_dda_solver_solve_open_close(&m->solver, NULL, m->p.preconditioner, loose * m->p.pcg_tolerance,
                                        loose * loose * update_energy(m, dt), m->p.pcg_max_iterations, r, changed,
                                        unsettled, err));
  charge(m, CL_DDA_SOLVE, mark);
  return CL_OK;
}

/* The transfer on the device (detect.h): the contacts found there into the next step's device list,
 * their states carried from the last accepted step's list. */
static cl_status transfer_on_device(cl_dda_model *m, const cl_dda_geometry *on, int first, cl_error *err) {
  const int q = 1 - m->last;
  double t = seconds_now();
  CL_TRY(cl_dda_model_grow(m, &m->lists[q], &m->list_cap[q], m->detect.nfound, LIST_BYTES, err));
  const cl_dda_device_list prev = cl_dda_model_list_view(m->lists[m->last], m->list_cap[m->last]);
  const cl_dda_device_list out = cl_dda_model_list_view(m->lists[q], m->list_cap[q]);
  CL_TRY(cl_dda_detect_transfer(&m->detect, on, m->nv, &prev, m->list_count[m->last], first, &out, err));
  m->list_count[q] = m->detect.nfound;
  lap(m, CL_DDA_PART_TRANSFER, &t);
  return CL_OK;
}

/* The step's contacts into m->start, their states carried from m->contacts: the broad and narrow
 * phases on the device (detect.h), the contacts found brought up for the transfer; or all on the host;
 * or, with the pattern on the device, the transfer there too (into the device list). */
static cl_status detect(cl_dda_model *m, double d0, cl_error *err) {
  cl_dda_geometry g = {m->n, m->vstart, m->vx, m->vy};
  int first = m->stats.steps == 0;
  double t = seconds_now();
  if (!m->stats.device_pattern) CL_TRY(cl_dda_host_contacts(m, err)); /* the host's transfer reads the last step's states */
  lap(m, CL_DDA_PART_STATES, &t);
  if (!m->stats.device_detection) {
    const cl_status st = cl_dda_broad_phase_kept(&g, d0, &m->kept, &m->pairs, &m->ncand, &m->npairs_cap, err);
    m->stats.broad_rebuilds = m->kept.builds;
    CL_TRY(st);
    return cl_dda_narrow_phase(&g, m->pairs, m->ncand, d0, &m->contacts, first, &m->start, err);
  }
  cl_dda_geometry on = {m->n, m->device[A_VSTART], m->device[A_VX], m->device[A_VY]};
  const cl_status st = cl_dda_detect_pairs(&m->detect, &on, d0, err);
  m->stats.broad_rebuilds = m->detect.builds;
  CL_TRY(st);
  CL_TRY(cl_dda_detect_found(&m->detect, &on, NULL, 0, d0, err));
  if (m->stats.device_pattern) return transfer_on_device(m, &on, first, err);
  size_t nfound = m->detect.nfound;
  if (nfound > m->found_cap) {
    if (m->found) m->dev->host_release(m->dev, m->found);
    m->found = NULL, m->found_cap = 0;
    size_t cap = nfound + nfound / 4; /* room for a few more contacts in the next steps */
    CL_TRY(m->dev->host_alloc(m->dev, (void **)&m->found, cap * sizeof *m->found, err));
    m->found_cap = cap;
  }
  t = seconds_now();
  CL_TRY(cl_dda_detect_found_to_host(&m->detect, m->found, err));
  lap(m, CL_DDA_PART_FOUND, &t);
  CL_TRY(cl_dda_transfer(&g, m->found, nfound, &m->contacts, first, &m->start, err));
  lap(m, CL_DDA_PART_TRANSFER, &t);
  return CL_OK;
}

cl_status cl_dda_step(cl_dda_model *m, double dt, cl_error *err) {
  if (!(dt > 0) || !isfinite(dt)) return cl_error_set(err, CL_ERR_ARG, "dt = %g must be a number > 0", dt);
  /* from the last accepted step's time step (a checkpoint's too), so a resumed run starts as a straight one */
  if (m->p.dt_growth > 0 && m->stats.steps > 0) dt = fmin(dt, m->p.dt_growth * m->stats.dt);
  double d0 = 2.5 * m->p.max_displacement, dt0 = dt, mark = seconds_now();
  const long launches0 = m->solver.launches, syncs0 = m->solver.syncs, incremental0 = m->solver.assemblies_changed;
  CL_TRY(detect(m, d0, err));
  charge(m, CL_DDA_DETECTION, &mark);
  int reductions = 0, pcg = 0, oc = 0;
  const char *why = NULL;
  char why_block[160];
  double last_residual = 0, last_disp = 0, warm_residual = 0;
  struct { int pcg[CL_DDA_TRACE], changed[CL_DDA_TRACE], unsettled[CL_DDA_TRACE]; } trace;
  for (;; reductions++) {
    if (reductions > MAX_REDUCTIONS)
      return cl_error_set(err, CL_ERR_ARG, "DDA step %ld cannot converge: the time step was reduced %d times "
                          "from %g to %g and the %s (PCG residual %.3g, largest displacement %.3g, allowed %g); "
                          "the state is that of step %ld. Lower dt, raise pcg_max_iterations or open_close_max, "
                          "or check the stiffnesses", m->stats.steps + 1, MAX_REDUCTIONS, dt0, dt, why,
                          last_residual, last_disp, 2 * m->p.max_displacement, m->stats.steps);
    /* with the pattern on the device, the step's contacts are compared with the kept pattern's there,
     * the answer read with the diagonal's lightest mass (no wait of its own) */
    const double *differ = NULL;
    const cl_dda_step_contacts sc = step_contacts(m);
    if (reductions == 0 && m->stats.device_pattern)
      CL_TRY(cl_dda_solver_compare_pattern(&m->solver, m->n, &sc, &differ, err));
    CL_TRY(diagonal(m, dt, differ, sc.count, err));
    charge(m, CL_DDA_DIAGONAL, &mark);
    if (reductions == 0) { /* the contacts' geometry needs the centroids, which the diagonal kernel gives */
      CL_TRY(set_step_contacts(m, err));
      charge(m, CL_DDA_ASSEMBLY, &mark);
      double t = mark;
      CL_TRY(contact_setup(m, err));
      lap(m, CL_DDA_PART_GEOMETRY, &t);
      charge(m, CL_DDA_DETECTION, &mark);
    }
    CL_TRY(cl_dda_solver_restart_states(&m->solver, err));
    /* PCG starts from the previous step's solution (on the device: D); a dynamic one from the step
     * predicted at the last step's acceleration */
    if (m->p.dynamic && m->stats.steps > 0) CL_TRY(predict(m, dt, err));
    else CL_TRY(cl_dda_solver_start_from(&m->solver, m->device[A_D], err));
    charge(m, CL_DDA_DETECTION, &mark);
    int settled = 0;
    pcg = 0;
    memset(&trace, 0, sizeof trace);
    /* While the solves change states, their solutions only decide the next states: they stop at
     * open_close_loose times the tolerances; one that changes none is confirmed at the full ones
     * (warm, from its x), and only a full solve the rule leaves unchanged and settled ends the step */
    double loose = m->p.open_close_loose;
    for (oc = 1; oc <= m->p.open_close_max; oc++) {
      cl_dda_pcg_result r;
      int changed, unsettled;
      CL_TRY(solve(m, dt, oc == 1, loose, &r, &changed, &unsettled, &mark, err));
      pcg += r.iterations, last_residual = r.residual;
      if (oc == 1) warm_residual = r.initial_residual;
      if (!r.converged) break;
      if (oc <= CL_DDA_TRACE)
        trace.pcg[oc - 1] = r.iterations, trace.changed[oc - 1] = changed, trace.unsettled[oc - 1] = unsettled;
      if (changed + unsettled == 0 && loose == 1) {
        settled = 1;
        break;
      }
      if (changed == 0) loose = 1;
    }
    if (!settled) {
      why = oc > m->p.open_close_max ? "open-close iteration did not settle" : "PCG did not converge";
      dt /= 2;
      continue;
    }
    int32_t collapsing;
    CL_TRY(check_solution(m, dt, &last_disp, &collapsing, err));
    charge(m, CL_DDA_OPEN_CLOSE, &mark);
    if (last_disp > 2 * m->p.max_displacement) {
      why = "blocks moved more than twice the allowed displacement";
      dt *= fmin(0.5, m->p.max_displacement / last_disp);
      continue;
    }
    if (collapsing >= 0) {
      snprintf(why_block, sizeof why_block, "area of block %d would change by more than a factor 2 in one step "
               "(a sliver crushed by stiffer contacts? remove it, or lower normal_stiffness)", collapsing + 1);
      why = why_block;
      dt /= 2;
      continue;
    }
    break;
  }
  double t = seconds_now();
  CL_TRY(account(m, err));
  lap(m, CL_DDA_PART_ACCOUNT, &t);
  CL_TRY(update(m, dt, err));
  /* the step's list becomes the contacts: on the device, its device list (into which the account
   * wrote the states, forces, anchors and bonds) becomes the last accepted; else by a swap of the
   * host lists (the old one's storage is the next detection's), their states the device's until a
   * reader asks */
  if (m->stats.device_pattern) {
    const int q = 1 - m->last;
    m->last = q, m->contacts.count = m->list_count[q];
  } else {
    cl_dda_contact_list accepted = m->start;
    m->start = m->contacts, m->contacts = accepted;
  }
  m->contacts_stale = 1;
  m->stats.steps++;
  m->stats.t += dt, m->stats.dt = dt;
  m->stats.open_close = oc, m->stats.pcg = pcg, m->stats.reductions = reductions;
  snprintf(m->stats.reduced_by, sizeof m->stats.reduced_by, "%s", reductions ? why : "");
  m->stats.launches = m->solver.launches - launches0, m->stats.syncs = m->solver.syncs - syncs0;
  m->stats.warm_residual = warm_residual;
  m->stats.incremental_assemblies = (int)(m->solver.assemblies_changed - incremental0);
  m->stats.pattern_reuses = m->solver.pattern_reuses;
  m->stats.transfer_shortcuts = m->detect.shortcuts;
  memcpy(m->stats.trace_pcg, trace.pcg, sizeof trace.pcg);
  memcpy(m->stats.trace_changed, trace.changed, sizeof trace.changed);
  memcpy(m->stats.trace_unsettled, trace.unsettled, sizeof trace.unsettled);
  m->stats.contacts = m->contacts.count;
  charge(m, CL_DDA_UPDATE, &mark);
  return CL_OK;
}
