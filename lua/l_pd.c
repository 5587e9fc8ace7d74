/* cleave.pd (C part): bond lists, the peridynamic step stage, pre-cracks and
 * point reordering. The body, materials and loads are in lua/cleave/pd.lua. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/pd/force.h"
#include "../kernels/pd/neighbors.h"
#include "../kernels/pd/pmb.h"
#include "../runtime/pipeline.h"
#include "l_util.h"

#define BONDS_MT "cleave.pd.bonds"
#define PD_STAGE_MT "cleave.pd.stage"
#define ADR_STAGE_MT "cleave.pd.adr"

typedef struct bonds_ud {
  cl_device_ref *device;
  size_t n;
  double delta;
  cl_pd_bonds b;
} bonds_ud;

static bonds_ud *check_bonds(lua_State *L, int idx) {
  bonds_ud *b = luaL_checkudata(L, idx, BONDS_MT);
  if (!b->device) luaL_error(L, "bond list has been released");
  return b;
}

static int bonds_gc(lua_State *L) {
  bonds_ud *b = luaL_checkudata(L, 1, BONDS_MT);
  if (b->device) {
    cl_device *d = &b->device->dev;
    d->release(d, b->b.offsets);
    d->release(d, b->b.neighbors);
    cl_device_ref_release(b->device);
    b->device = NULL;
  }
  return 0;
}

static void check_points(lua_State *L, const char *fn, const char *key, cl_field *x) {
  if ((x->dtype != CL_F32 && x->dtype != CL_F64) || (x->k != 2 && x->k != 3))
    luaL_error(L, "%s: '%s' must be an f32 or f64 field of 2 or 3 components (got %s, k = %d)", fn, key,
               cl_dtype_name(x->dtype), x->k);
}

static const char *const bonds_args[] = {"x", "delta", NULL};

/* cleave.pd.bonds{ x = field (n x dim), delta = horizon } -> bond list (CSR on x's device) */
static int bonds_new(lua_State *L) {
  const char *fn = "cleave.pd.bonds";
  cl_lua_check_args(L, 1, fn, bonds_args);
  cl_field *x = cl_lua_req_field(L, 1, fn, "x");
  double delta = cl_lua_req_number(L, 1, fn, "delta");
  check_points(L, fn, "x", x);
  if (!(delta > 0)) return luaL_error(L, "%s: argument 'delta' (the horizon) must be positive", fn);
  bonds_ud *b = lua_newuserdatauv(L, sizeof *b, 1);
  memset(b, 0, sizeof *b);
  luaL_setmetatable(L, BONDS_MT);
  cl_error err;
  if (cl_pd_build_bonds(&x->device->dev, x->dtype, x->k, x->n, x->data, delta, &b->b, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  b->device = cl_device_ref_retain(x->device);
  b->n = x->n;
  b->delta = delta;
  lua_getfield(L, 1, "x");
  lua_setiuservalue(L, -2, 1); /* the coordinates the bonds were built on */
  return 1;
}

/* Copies the bond list to the host (offsets, neighbours); caller frees. */
static void bonds_to_host(lua_State *L, bonds_ud *b, uint32_t **offsets, uint32_t **neighbors) {
  cl_device *d = &b->device->dev;
  cl_error err;
  *offsets = lua_newuserdatauv(L, (b->n + 1) * sizeof **offsets, 0);
  *neighbors = lua_newuserdatauv(L, (b->b.nbonds ? b->b.nbonds : 1) * sizeof **neighbors, 0);
  if (d->to_host(d, *offsets, b->b.offsets, (b->n + 1) * sizeof **offsets, &err) != CL_OK ||
      d->to_host(d, *neighbors, b->b.neighbors, b->b.nbonds * sizeof **neighbors, &err) != CL_OK)
    cl_lua_fail(L, &err);
}

/* bonds:broken() -> number of broken bond entries (each bond is listed at both ends) */
static int bonds_broken(lua_State *L) {
  bonds_ud *b = check_bonds(L, 1);
  uint32_t *offsets, *neighbors;
  bonds_to_host(L, b, &offsets, &neighbors);
  size_t broken = 0;
  for (size_t k = 0; k < b->b.nbonds; k++) broken += (neighbors[k] & CL_PD_BROKEN) != 0;
  lua_pushinteger(L, (lua_Integer)broken);
  return 1;
}

/* bonds:counts() -> u32 field of the number of bonds of each point (broken ones included) */
static int bonds_counts(lua_State *L) {
  bonds_ud *b = check_bonds(L, 1);
  uint32_t *offsets, *neighbors;
  bonds_to_host(L, b, &offsets, &neighbors);
  uint32_t *counts = lua_newuserdatauv(L, (b->n ? b->n : 1) * sizeof *counts, 0);
  for (size_t i = 0; i < b->n; i++) counts[i] = offsets[i + 1] - offsets[i];
  cl_field *f;
  cl_error err;
  if (cl_field_create(b->device, CL_U32, b->n, 1, &f, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, f);
  if (cl_field_upload(f, counts, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

/* bonds:state() -> u32 field copy of the bond entries (neighbour indices with the broken
 * flags), for checkpoints; bonds:set_state(field) puts such a copy back. */
static int bonds_state(lua_State *L) {
  bonds_ud *b = check_bonds(L, 1);
  cl_field *f;
  cl_error err;
  if (cl_field_create(b->device, CL_U32, b->b.nbonds, 1, &f, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, f);
  cl_device *d = &b->device->dev;
  if (d->copy(d, f->data, b->b.neighbors, b->b.nbonds * sizeof(uint32_t), &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_field_touch(f);
  return 1;
}

static int bonds_set_state(lua_State *L) {
  bonds_ud *b = check_bonds(L, 1);
  cl_field *f = cl_lua_check_field(L, 2);
  if (f->dtype != CL_U32 || f->k != 1 || f->n != b->b.nbonds)
    return luaL_error(L, "bonds:set_state: needs a u32 field of %I entries (got %s, %I x %d): was it saved "
                         "from this body?", (LUAI_UACINT)b->b.nbonds, cl_dtype_name(f->dtype), (LUAI_UACINT)f->n, f->k);
  const void *h;
  cl_error err;
  if (cl_field_host(f, &h, &err) != CL_OK) return cl_lua_fail(L, &err);
  uint32_t *offsets, *neighbors;
  bonds_to_host(L, b, &offsets, &neighbors);
  const uint32_t *saved = h;
  for (size_t k = 0; k < b->b.nbonds; k++)
    if ((saved[k] & CL_PD_INDEX) != (neighbors[k] & CL_PD_INDEX))
      return luaL_error(L, "bonds:set_state: entry %I names another neighbour: the state belongs to another body", (LUAI_UACINT)k);
  cl_device *d = &b->device->dev;
  if (d->to_device(d, b->b.neighbors, saved, b->b.nbonds * sizeof(uint32_t), &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

/* Whether segments p-q and a-b cross (proper intersection or touching). */
static int segments_cross(const double p[2], const double q[2], const double a[2], const double b[2]) {
  double d1 = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
  double d2 = (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]);
  double d3 = (q[0] - p[0]) * (a[1] - p[1]) - (q[1] - p[1]) * (a[0] - p[0]);
  double d4 = (q[0] - p[0]) * (b[1] - p[1]) - (q[1] - p[1]) * (b[0] - p[0]);
  return ((d1 <= 0 && d2 >= 0) || (d1 >= 0 && d2 <= 0)) && ((d3 <= 0 && d4 >= 0) || (d3 >= 0 && d4 <= 0));
}

/* Whether segment p-q crosses the planar rectangle corner + s e1 + t e2 (s, t in [0, 1]). */
static int segment_crosses_rect(const double p[3], const double q[3], const double corner[3],
                                const double e1[3], const double e2[3]) {
  double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
  double dp = 0, dq = 0;
  for (int c = 0; c < 3; c++) dp += nrm[c] * (p[c] - corner[c]), dq += nrm[c] * (q[c] - corner[c]);
  if ((dp > 0 && dq > 0) || (dp < 0 && dq < 0) || dp == dq) return 0;
  double t = dp / (dp - dq), hit[3], s1 = 0, s2 = 0, l1 = 0, l2 = 0;
  for (int c = 0; c < 3; c++) {
    hit[c] = p[c] + t * (q[c] - p[c]) - corner[c];
    s1 += hit[c] * e1[c], s2 += hit[c] * e2[c], l1 += e1[c] * e1[c], l2 += e2[c] * e2[c];
  }
  return s1 >= 0 && s1 <= l1 && s2 >= 0 && s2 <= l2;
}

static void read_point(lua_State *L, int idx, int i, int dim, double *out) {
  if (lua_rawgeti(L, idx, i) != LUA_TTABLE) luaL_error(L, "bonds:cut: point %d must be a table of %d numbers", i, dim);
  for (int c = 0; c < dim; c++) {
    lua_rawgeti(L, -1, c + 1);
    if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "bonds:cut: point %d needs %d numbers", i, dim);
    out[c] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* bonds:cut{ {x1, y1}, {x2, y2} } (2D: every bond crossing the segment) or
 * bonds:cut{ corner, edge1, edge2 } (3D: every bond crossing the rectangle
 * corner + s edge1 + t edge2). Breaks them; returns how many bond entries
 * were newly broken (each bond counts at both ends). */
static int bonds_cut(lua_State *L) {
  bonds_ud *b = check_bonds(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_getiuservalue(L, 1, 1);
  cl_field *x = cl_lua_check_field(L, -1);
  int dim = x->k;
  double g[3][3] = {{0}};
  if (luaL_len(L, 2) != (dim == 2 ? 2 : 3))
    return luaL_error(L, "bonds:cut: give %s", dim == 2 ? "a segment {{x1, y1}, {x2, y2}}" : "a rectangle {corner, edge1, edge2}");
  for (int i = 0; i < (dim == 2 ? 2 : 3); i++) read_point(L, 2, i + 1, dim, g[i]);
  const void *xh;
  cl_error err;
  if (cl_field_host(x, &xh, &err) != CL_OK) return cl_lua_fail(L, &err);
  uint32_t *offsets, *neighbors;
  bonds_to_host(L, b, &offsets, &neighbors);
  size_t cut = 0, n = b->n;
  for (size_t i = 0; i < n; i++) {
    double p[3] = {0}, q[3] = {0};
    for (int c = 0; c < dim; c++) p[c] = cl_dtype_get(x->dtype, xh, (size_t)c * n + i);
    for (uint32_t k = offsets[i]; k < offsets[i + 1]; k++) {
      if (neighbors[k] & CL_PD_BROKEN) continue;
      size_t j = neighbors[k] & CL_PD_INDEX;
      for (int c = 0; c < dim; c++) q[c] = cl_dtype_get(x->dtype, xh, (size_t)c * n + j);
      int crosses = dim == 2 ? segments_cross(p, q, g[0], g[1]) : segment_crosses_rect(p, q, g[0], g[1], g[2]);
      if (crosses) neighbors[k] |= CL_PD_BROKEN, cut++;
    }
  }
  cl_device *d = &b->device->dev;
  if (d->to_device(d, b->b.neighbors, neighbors, b->b.nbonds * sizeof *neighbors, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  lua_pushinteger(L, (lua_Integer)cut);
  return 1;
}

/* bonds:stiffness(volume) -> field (n, the precision of x) of sum_j V_j / |xi_ij| over every
 * bond of each point: the bond stiffness per unit micromodulus, from which the stable time
 * step (Silling & Askari 2005: dt = sqrt(2 rho / (c max_i S_i))) and the fictitious density of
 * dynamic relaxation follow. volume: a number (uniform) or a field of point volumes. */
static int bonds_stiffness(lua_State *L) {
  const char *fn = "bonds:stiffness";
  bonds_ud *b = check_bonds(L, 1);
  lua_getiuservalue(L, 1, 1);
  cl_field *x = cl_lua_check_field(L, -1);
  const void *xh, *vh = NULL;
  double uniform = 0;
  cl_error err;
  if (lua_type(L, 2) == LUA_TNUMBER) {
    uniform = lua_tonumber(L, 2);
  } else {
    cl_field *v = cl_lua_test_field(L, 2);
    if (!v || v->n != b->n || v->dtype != x->dtype)
      return luaL_error(L, "%s: the volume must be a number or a %s field of %I volumes", fn, cl_dtype_name(x->dtype), (LUAI_UACINT)b->n);
    if (cl_field_host(v, &vh, &err) != CL_OK) return cl_lua_fail(L, &err);
  }
  if (cl_field_host(x, &xh, &err) != CL_OK) return cl_lua_fail(L, &err);
  uint32_t *offsets, *neighbors;
  bonds_to_host(L, b, &offsets, &neighbors);
  size_t n = b->n;
  void *sums = lua_newuserdatauv(L, (n ? n : 1) * cl_dtype_size(x->dtype), 0);
  for (size_t i = 0; i < n; i++) {
    double sum = 0;
    for (uint32_t k = offsets[i]; k < offsets[i + 1]; k++) {
      size_t j = neighbors[k] & CL_PD_INDEX;
      double r2 = 0;
      for (int d = 0; d < x->k; d++) {
        double dd = cl_dtype_get(x->dtype, xh, (size_t)d * n + j) - cl_dtype_get(x->dtype, xh, (size_t)d * n + i);
        r2 += dd * dd;
      }
      sum += (vh ? cl_dtype_get(x->dtype, vh, j) : uniform) / sqrt(r2);
    }
    cl_dtype_put(x->dtype, sums, i, sum);
  }
  cl_field *f;
  if (cl_field_create(b->device, x->dtype, n, 1, &f, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, f);
  if (cl_field_upload(f, sums, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

static int bonds_index(lua_State *L) {
  bonds_ud *b = check_bonds(L, 1);
  const char *key = luaL_checkstring(L, 2);
  if (strcmp(key, "count") == 0) lua_pushinteger(L, (lua_Integer)b->b.nbonds);
  else if (strcmp(key, "n") == 0) lua_pushinteger(L, (lua_Integer)b->n);
  else if (strcmp(key, "delta") == 0) lua_pushnumber(L, b->delta);
  else if (strcmp(key, "bytes") == 0) lua_pushinteger(L, (lua_Integer)((b->n + 1 + b->b.nbonds) * sizeof(uint32_t)));
  else {
    luaL_getmetatable(L, BONDS_MT);
    if (lua_getfield(L, -1, "methods") != LUA_TTABLE || lua_getfield(L, -1, key) == LUA_TNIL)
      return luaL_error(L, "bond list has no field '%s' (count, n, delta, bytes, cut, broken, counts, stiffness, state, set_state)", key);
  }
  return 1;
}

static int bonds_tostring(lua_State *L) {
  bonds_ud *b = check_bonds(L, 1);
  char text[160];
  snprintf(text, sizeof text, "bonds<%zu points, %zu bonds (%.2f per point), on %s>", b->n, b->b.nbonds,
           b->n ? (double)b->b.nbonds / (double)b->n : 0.0, b->device->dev.name);
  lua_pushstring(L, text);
  return 1;
}

/* ---- the step stage ------------------------------------------------------ */

typedef struct pd_stage {
  cl_stage stage;
  cl_field *x, *u, *a, *volume, *body, *surface, *damage, *energy;
  bonds_ud *bonds;
  cl_pd_force_args args;
  cl_pd_kernel kernel;
} pd_stage;

static cl_status run_pd_force(void *data, long step, double t, cl_error *err) {
  pd_stage *s = data;
  (void)step, (void)t;
  cl_pd_force_args a = s->args;
  a.x = s->x->data, a.u = s->u->data, a.a = s->a->data;
  a.volume = s->volume ? s->volume->data : NULL;
  a.body = s->body ? s->body->data : NULL;
  a.surface = s->surface ? s->surface->data : NULL;
  a.damage = s->damage ? s->damage->data : NULL;
  a.energy = s->energy ? s->energy->data : NULL;
  a.offsets = s->bonds->b.offsets, a.neighbors = s->bonds->b.neighbors;
  CL_TRY(cl_k_pd_force(&s->u->device->dev, s->u->dtype, &a, s->kernel, err));
  cl_field_touch(s->a);
  if (s->damage) cl_field_touch(s->damage);
  if (s->energy) cl_field_touch(s->energy);
  return CL_OK;
}

static void check_same(lua_State *L, const char *fn, const char *key, cl_field *f, cl_field *x, int k) {
  if (!f) return;
  if (f->dtype != x->dtype || f->n != x->n || f->k != k || !cl_device_same(&f->device->dev, &x->device->dev))
    luaL_error(L, "%s: field '%s' must be %s, %I x %d, on %s like 'x' (got %s, %I x %d, on %s)", fn, key,
               cl_dtype_name(x->dtype), (LUAI_UACINT)x->n, k, x->device->dev.name, cl_dtype_name(f->dtype),
               (LUAI_UACINT)f->n, f->k, f->device->dev.name);
}

static const char *const force_args[] = {"x", "u", "a", "bonds", "c", "s0", "rho", "delta", "dx", "volume",
                                         "body", "surface", "damage", "energy", "kernel", NULL};

/* cleave.stage.pd_force{ x =, u =, a =, bonds =, c =, s0 = 0, rho =, delta =, dx = 0,
 *   volume = number or field, body =, surface =, damage =, energy =, kernel = "point" | "group" | ... }
 * "point" is the fastest on the H100 in both precisions (docs/benchmarks.md). */
static int stage_pd_force(lua_State *L) {
  const char *fn = "cleave.stage.pd_force";
  cl_lua_check_args(L, 1, fn, force_args);
  pd_stage *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, PD_STAGE_MT);
  s->x = cl_lua_req_field(L, 1, fn, "x");
  check_points(L, fn, "x", s->x);
  int dim = s->x->k;
  s->u = cl_lua_req_field(L, 1, fn, "u"), s->a = cl_lua_req_field(L, 1, fn, "a");
  s->body = cl_lua_opt_field(L, 1, fn, "body"), s->damage = cl_lua_opt_field(L, 1, fn, "damage");
  s->energy = cl_lua_opt_field(L, 1, fn, "energy");
  s->surface = cl_lua_opt_field(L, 1, fn, "surface");
  check_same(L, fn, "surface", s->surface, s->x, dim);
  check_same(L, fn, "u", s->u, s->x, dim), check_same(L, fn, "a", s->a, s->x, dim);
  check_same(L, fn, "body", s->body, s->x, dim), check_same(L, fn, "damage", s->damage, s->x, 1);
  check_same(L, fn, "energy", s->energy, s->x, 1);
  lua_getfield(L, 1, "bonds");
  s->bonds = check_bonds(L, -1);
  lua_pop(L, 1);
  if (s->bonds->n != s->x->n) luaL_error(L, "%s: the bond list is for %I points, 'x' has %I", fn, (LUAI_UACINT)s->bonds->n, (LUAI_UACINT)s->x->n);
  cl_pd_force_args *a = &s->args;
  a->n = s->x->n, a->dim = dim;
  a->c = cl_lua_req_number(L, 1, fn, "c");
  a->s0 = cl_lua_opt_number(L, 1, fn, "s0", 0);
  a->rho = cl_lua_req_number(L, 1, fn, "rho");
  a->delta = cl_lua_req_number(L, 1, fn, "delta");
  a->dx = cl_lua_opt_number(L, 1, fn, "dx", 0);
  if (!(a->c > 0) || !(a->rho > 0) || !(a->delta > 0))
    luaL_error(L, "%s: 'c', 'rho' and 'delta' must be positive", fn);
  if (lua_getfield(L, 1, "volume") == LUA_TNUMBER) {
    a->uniform_volume = lua_tonumber(L, -1);
    if (!(a->uniform_volume > 0)) luaL_error(L, "%s: 'volume' must be positive", fn);
  } else if ((s->volume = cl_lua_test_field(L, -1))) {
    check_same(L, fn, "volume", s->volume, s->x, 1);
  } else {
    luaL_error(L, "%s: 'volume' must be a number (uniform) or a field of point volumes", fn);
  }
  lua_pop(L, 1);
  const char *kernel = cl_lua_opt_string(L, 1, fn, "kernel", "point");
  static const struct { const char *name; cl_pd_kernel kernel; } kernels[] = {
      {"point", CL_PD_POINT}, {"group", CL_PD_GROUP4}, {"group4", CL_PD_GROUP4},
      {"group8", CL_PD_GROUP8}, {"group16", CL_PD_GROUP16}, {"group32", CL_PD_GROUP32}};
  int found = 0;
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0] && !found; k++)
    if (strcmp(kernel, kernels[k].name) == 0) s->kernel = kernels[k].kernel, found = 1;
  if (!found)
    luaL_error(L, "%s: 'kernel' must be \"point\", \"group\" (4 lanes per point) or \"group8\", \"group16\", "
                  "\"group32\" (got \"%s\")", fn, kernel);
  cl_lua_stage_init(L, &s->stage, "pd_force", run_pd_force, s, &s->x->device->dev);
  return 1;
}

static int pd_stage_tostring(lua_State *L) {
  pd_stage *s = luaL_checkudata(L, 1, PD_STAGE_MT);
  if (s->kernel == CL_PD_POINT) lua_pushstring(L, "stage<pd_force, point kernel>");
  else lua_pushfstring(L, "stage<pd_force, group kernel of %d lanes>", (int)s->kernel);
  return 1;
}

/* ---- dynamic relaxation --------------------------------------------------- */

typedef struct adr_stage {
  cl_stage stage;
  cl_field *u, *v, *f, *f_prev, *lambda;
  int first;
  double damping;
} adr_stage;

static cl_status run_adr(void *data, long step, double t, cl_error *err) {
  adr_stage *s = data;
  (void)step, (void)t;
  CL_TRY(cl_k_pd_adr(&s->u->device->dev, s->u->dtype, s->u->n, s->u->k, s->u->data, s->v->data, s->f->data,
                     s->f_prev->data, s->lambda->data, s->first, &s->damping, err));
  s->first = 0;
  cl_field_touch(s->u), cl_field_touch(s->v), cl_field_touch(s->f_prev);
  return CL_OK;
}

static const char *const adr_args[] = {"u", "v", "f", "f_prev", "lambda", NULL};

/* cleave.stage.pd_adr{ u =, v =, f = (force density of u), f_prev =, lambda = (per point) }:
 * one adaptive dynamic relaxation step (kernels/pd/adr.h); stage.damping is the last c_n. */
static int stage_pd_adr(lua_State *L) {
  const char *fn = "cleave.stage.pd_adr";
  cl_lua_check_args(L, 1, fn, adr_args);
  adr_stage *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, ADR_STAGE_MT);
  s->u = cl_lua_req_field(L, 1, fn, "u");
  check_points(L, fn, "u", s->u);
  s->v = cl_lua_req_field(L, 1, fn, "v"), s->f = cl_lua_req_field(L, 1, fn, "f");
  s->f_prev = cl_lua_req_field(L, 1, fn, "f_prev"), s->lambda = cl_lua_req_field(L, 1, fn, "lambda");
  check_same(L, fn, "v", s->v, s->u, s->u->k), check_same(L, fn, "f", s->f, s->u, s->u->k);
  check_same(L, fn, "f_prev", s->f_prev, s->u, s->u->k), check_same(L, fn, "lambda", s->lambda, s->u, 1);
  s->first = 1;
  cl_lua_stage_init(L, &s->stage, "pd_adr", run_adr, s, &s->u->device->dev);
  return 1;
}

static int adr_index(lua_State *L) {
  adr_stage *s = luaL_checkudata(L, 1, ADR_STAGE_MT);
  const char *key = luaL_checkstring(L, 2);
  if (strcmp(key, "damping") == 0) lua_pushnumber(L, s->damping);
  else if (strcmp(key, "run") == 0) lua_pushcfunction(L, cl_lua_stage_run);
  else return luaL_error(L, "dynamic relaxation stage has no field '%s' (damping, run)", key);
  return 1;
}

/* ---- reordering ---------------------------------------------------------- */

/* cleave.pd.morton_order(x, cell) -> u32 field: the permutation putting points in Z-order */
static int morton_order(lua_State *L) {
  cl_field *x = cl_lua_check_field(L, 1);
  double cell = luaL_checknumber(L, 2);
  check_points(L, "cleave.pd.morton_order", "x", x);
  if (!(cell > 0)) return luaL_error(L, "cleave.pd.morton_order: cell size must be positive");
  cl_field *order;
  cl_error err;
  if (cl_field_create(x->device, CL_U32, x->n, 1, &order, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, order);
  if (cl_pd_morton_order(&x->device->dev, x->dtype, x->k, x->n, x->data, cell, order->data, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  cl_field_touch(order);
  return 1;
}

/* cleave.pd.gather(field, order) -> new field with rows taken in `order` (0-based u32) */
static int gather(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1), *order = cl_lua_check_field(L, 2);
  if (order->dtype != CL_U32 || order->n != f->n || order->k != 1)
    return luaL_error(L, "cleave.pd.gather: the order must be a u32 field of %I rows", (LUAI_UACINT)f->n);
  cl_field *g;
  cl_error err;
  if (cl_field_create(f->device, f->dtype, f->n, f->k, &g, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, g);
  if (cl_pd_gather(&f->device->dev, f->dtype, f->n, f->k, f->data, order->data, g->data, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  cl_field_touch(g);
  return 1;
}

int cl_lua_open_pd(lua_State *L) {
  luaL_newmetatable(L, BONDS_MT);
  const luaL_Reg bonds_meta[] = {{"__gc", bonds_gc}, {"__index", bonds_index}, {"__tostring", bonds_tostring},
                                 {NULL, NULL}};
  luaL_setfuncs(L, bonds_meta, 0);
  const luaL_Reg bonds_methods[] = {{"cut", bonds_cut},       {"broken", bonds_broken},
                                    {"counts", bonds_counts}, {"stiffness", bonds_stiffness},
                                    {"state", bonds_state},   {"set_state", bonds_set_state},
                                    {NULL, NULL}};
  luaL_newlib(L, bonds_methods);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
  cl_lua_stage_metatable(L, PD_STAGE_MT);
  lua_pushcfunction(L, pd_stage_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  cl_lua_stage_metatable(L, ADR_STAGE_MT);
  lua_pushcfunction(L, adr_index); /* damping, and run */
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  const luaL_Reg pd[] = {{"bonds", bonds_new}, {"morton_order", morton_order}, {"gather", gather}, {NULL, NULL}};
  luaL_newlib(L, pd);
  lua_setfield(L, -2, "pd");
  lua_getfield(L, -1, "stage");
  lua_pushcfunction(L, stage_pd_force);
  lua_setfield(L, -2, "pd_force");
  lua_pushcfunction(L, stage_pd_adr);
  lua_setfield(L, -2, "pd_adr");
  lua_pop(L, 1);
  return 0;
}
