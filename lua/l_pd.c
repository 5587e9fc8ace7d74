/* cleave.pd (C part): the peridynamic step stage, dynamic relaxation and
 * point reordering; the bonds are in l_pd_bonds.c, the body, materials and
 * loads in lua/cleave/pd.lua. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/pipeline.h"
#include "../kernels/pd/relax.h"
#include "l_jit.h"
#include "l_pd_bonds.h"

#define PD_STAGE_MT "cleave.pd.stage"
#define ADVANCE_STAGE_MT "cleave.pd.advance"
#define ADR_STAGE_MT "cleave.pd.adr"

static void check_same(lua_State *L, const char *fn, const char *key, cl_field *f, cl_field *x, int k);

/* A u8 field of prescribed components per point (bit c - 1: component c), or NULL. */
static void check_held(lua_State *L, const char *fn, const char *key, cl_field *held, cl_field *x) {
  if (held && (held->dtype != CL_U8 || held->n != x->n || held->k != 1 || !cl_device_same(&held->device->dev, &x->device->dev)))
    luaL_error(L, "%s: '%s' must be u8, %I x 1, on %s like '%s' (bit c - 1 set: component c is prescribed)", fn, key,
               (LUAI_UACINT)x->n, x->device->dev.name, x->k == 1 ? "x" : "u");
}

/* ---- the opening kick-drift of a step whose force pass drifts the next ---- */

/* The force pass of step n writes u(n+1) to u_next (cl_pd_finish); this stage, at the start of step
 * n + 1, makes it the current u by swapping the two fields' data, so every stage holding u (the
 * halo, prescribed displacements, outputs) sees it. It trusts u_next only when the force pass of
 * the step just before wrote it (ready, for step ready_step): on the first step of a run, after a
 * restore or a change of the state (reset) it drifts the free components itself. */
typedef struct pd_advance {
  cl_stage stage;
  cl_field *u, *u_next, *v, *a, *held;
  double dt;
  int ready;
  long ready_step;
} pd_advance;

static cl_status run_pd_advance(void *data, long step, double t, cl_error *err) {
  pd_advance *s = data;
  (void)t;
  const int drifted = s->ready && s->ready_step == step;
  s->ready = 0;
  cl_field_swap_data(s->u, s->u_next);
  if (!drifted || s->held) {
    CL_TRY(cl_k_pd_advance(&s->u->device->dev, s->u->dtype, s->u->n, s->u->k, s->u->data, s->u_next->data,
                           s->v->data, s->a->data, s->held ? s->held->data : NULL, s->dt, !drifted, err));
    if (s->held) cl_field_touch(s->v);
  }
  cl_field_touch(s->u);
  return CL_OK;
}

static const char *const advance_args[] = {"u", "u_next", "v", "a", "dt", "held", NULL};

/* cleave.stage.pd_advance{ u =, u_next =, v =, a =, dt =, held = (u8 per point) }: the opening
 * kick-drift of a step whose force stage (pd_force{ advance = this }) drifts the next step's u into
 * u_next (kernels/pd/advance.h); stage:reset() after the state was changed outside the step. */
static int stage_pd_advance(lua_State *L) {
  const char *fn = "cleave.stage.pd_advance";
  cl_lua_check_args(L, 1, fn, advance_args);
  pd_advance *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, ADVANCE_STAGE_MT);
  s->u = cl_lua_req_field(L, 1, fn, "u");
  cl_lua_check_points(L, fn, "u", s->u);
  s->u_next = cl_lua_req_field(L, 1, fn, "u_next"), s->v = cl_lua_req_field(L, 1, fn, "v");
  s->a = cl_lua_req_field(L, 1, fn, "a"), s->held = cl_lua_opt_field(L, 1, fn, "held");
  check_same(L, fn, "u_next", s->u_next, s->u, s->u->k), check_same(L, fn, "v", s->v, s->u, s->u->k);
  check_same(L, fn, "a", s->a, s->u, s->u->k);
  if (s->u_next == s->u) luaL_error(L, "%s: 'u_next' must be a field other than 'u' (the second buffer)", fn);
  check_held(L, fn, "held", s->held, s->u);
  s->dt = cl_lua_req_number(L, 1, fn, "dt");
  if (!(s->dt > 0)) luaL_error(L, "%s: 'dt' must be positive (the step's dt)", fn);
  cl_lua_stage_init(L, &s->stage, "pd_advance", run_pd_advance, s, &s->u->device->dev);
  return 1;
}

static int advance_reset(lua_State *L) {
  ((pd_advance *)luaL_checkudata(L, 1, ADVANCE_STAGE_MT))->ready = 0;
  lua_settop(L, 1);
  return 1;
}

/* ---- the step stage ------------------------------------------------------ */

typedef struct pd_stage {
  cl_stage stage;
  cl_field *x, *u, *a, *volume, *body, *surface, *damage, *energy;
  cl_field *v, *kick_held;      /* the fused closing kick's velocities and prescribed components, or NULL */
  struct pd_advance *advance;   /* the next step's kick-drift fused too: its stage (u_next, ready), or NULL */
  cl_lua_bonds *bonds;
  cl_pd_force_args args;
  cl_pd_kernel kernel;
  const cl_lua_jit_module *law; /* a run-time compiled bond law, or NULL: PMB */
  cl_field *law_state[CL_PD_LAW_STATE_MAX]; /* the law's state variables, which it writes */
  int law_states;
  uint64_t *nonfinite;          /* device flag of the law's check (cl_pd_force_args) */
  int ranged;                   /* computes args.row0 .. + args.rows only (none when rows = 0) */
} pd_stage;

/* After a step with a run-time compiled law: the first point whose acceleration came out
 * NaN or infinite, named with its position. */
static cl_status check_finite(pd_stage *s, long step, cl_error *err) {
  cl_device *d = &s->u->device->dev;
  uint64_t flag = 0;
  CL_TRY(d->to_host(d, &flag, s->nonfinite, sizeof flag, err));
  if (!flag) return CL_OK;
  const void *x;
  CL_TRY(cl_field_host(s->x, &x, err));
  size_t i = (size_t)(flag - 1);
  double px = cl_dtype_get(s->x->dtype, x, i), py = cl_dtype_get(s->x->dtype, x, s->x->n + i);
  return cl_error_set(err, CL_ERR_SCRIPT, "%s: the law gave a NaN or infinite force at step %ld, point %zu "
                      "(x = %g, y = %g): check it for divisions by zero, roots or logs of negative numbers",
                      s->law->what, step, i + 1, px, py);
}

static cl_status run_pd_force(void *data, long step, double t, cl_error *err) {
  pd_stage *s = data;
  (void)t;
  if (s->ranged && !s->args.rows) return CL_OK;
  cl_pd_force_args a = s->args;
  a.x = s->x->data, a.u = s->u->data, a.a = s->a->data;
  a.volume = s->volume ? s->volume->data : NULL;
  a.body = s->body ? s->body->data : NULL;
  a.surface = s->surface ? s->surface->data : NULL;
  a.damage = s->damage ? s->damage->data : NULL;
  a.energy = s->energy ? s->energy->data : NULL;
  a.v = s->v ? s->v->data : NULL;
  a.kick_held = s->kick_held ? s->kick_held->data : NULL;
  a.u_next = s->advance ? s->advance->u_next->data : NULL;
  cl_lua_bonds_args(s->bonds, &a);
  if (s->law) {
    a.nonfinite = s->nonfinite;
    CL_TRY(cl_k_pd_force_compiled(&s->u->device->dev, s->u->dtype, &a, s->kernel, s->law->module->symbols[0], err));
    for (int k = 0; k < s->law_states; k++) cl_field_touch(s->law_state[k]);
    CL_TRY(check_finite(s, step, err));
  } else {
    CL_TRY(cl_k_pd_force(&s->u->device->dev, s->u->dtype, &a, s->kernel, err));
  }
  cl_field_touch(s->a);
  if (s->damage) cl_field_touch(s->damage);
  if (s->energy) cl_field_touch(s->energy);
  if (s->v) cl_field_touch(s->v);
  if (s->advance) { /* u(n + 1) of the rows computed is in u_next: the next step's advance stage swaps it in */
    cl_field_touch(s->advance->u_next);
    s->advance->ready = 1, s->advance->ready_step = step + 1;
  }
  return CL_OK;
}

static void check_same(lua_State *L, const char *fn, const char *key, cl_field *f, cl_field *x, int k) {
  if (!f) return;
  if (f->dtype != x->dtype || f->n != x->n || f->k != k || !cl_device_same(&f->device->dev, &x->device->dev))
    luaL_error(L, "%s: field '%s' must be %s, %I x %d, on %s like 'x' (got %s, %I x %d, on %s)", fn, key,
               cl_dtype_name(x->dtype), (LUAI_UACINT)x->n, k, x->device->dev.name, cl_dtype_name(f->dtype),
               (LUAI_UACINT)f->n, f->k, f->device->dev.name);
}

/* Stage options v =, kick_dt =, kick_held = (u8 per point): the closing Verlet kick, fused; or
 * advance = a pd_advance stage: the closing kick and the next step's kick-drift, fused (its v, dt
 * and held components). */
static void check_kick(lua_State *L, const char *fn, pd_stage *s, int dim) {
  if (lua_getfield(L, 1, "advance") != LUA_TNIL) {
    s->advance = luaL_testudata(L, -1, ADVANCE_STAGE_MT);
    if (!s->advance) luaL_error(L, "%s: 'advance' must be a cleave.stage.pd_advance stage", fn);
    if (s->advance->u != s->u)
      luaL_error(L, "%s: 'advance' drifts another field than 'u': build it with u = this stage's u", fn);
    lua_getfield(L, 1, "v"), lua_getfield(L, 1, "kick_dt"), lua_getfield(L, 1, "kick_held");
    if (!lua_isnil(L, -1) || !lua_isnil(L, -2) || !lua_isnil(L, -3))
      luaL_error(L, "%s: 'advance' carries the kick's v, dt and held components: leave out 'v', 'kick_dt' and "
                    "'kick_held'", fn);
    lua_pop(L, 4);
    s->v = s->advance->v, s->kick_held = s->advance->held, s->args.kick_dt = s->advance->dt;
    return;
  }
  lua_pop(L, 1);
  s->v = cl_lua_opt_field(L, 1, fn, "v");
  s->kick_held = cl_lua_opt_field(L, 1, fn, "kick_held");
  check_same(L, fn, "v", s->v, s->x, dim);
  lua_getfield(L, 1, "kick_dt");
  int has_dt = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (!s->v) {
    if (has_dt || s->kick_held) luaL_error(L, "%s: 'kick_dt' and 'kick_held' kick the velocities: give 'v' too", fn);
    return;
  }
  s->args.kick_dt = cl_lua_req_number(L, 1, fn, "kick_dt");
  if (!(s->args.kick_dt > 0)) luaL_error(L, "%s: 'kick_dt' must be positive (the step's dt)", fn);
  check_held(L, fn, "kick_held", s->kick_held, s->x);
}

/* Stage option law_state = { fields }: the law's per-bond state variables, in its order (real,
 * the precision of x; a lattice's: n x stencil entries, a list's: one per bond entry). */
static void attach_law_state(lua_State *L, const char *fn, pd_stage *s) {
  if (lua_getfield(L, 1, "law_state") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  luaL_checktype(L, -1, LUA_TTABLE);
  lua_Integer count = luaL_len(L, -1);
  if (count > CL_PD_LAW_STATE_MAX) luaL_error(L, "%s: at most %d law state fields", fn, CL_PD_LAW_STATE_MAX);
  size_t rows;
  int k;
  cl_lua_bonds_slots(s->bonds, &rows, &k);
  for (lua_Integer i = 1; i <= count; i++) {
    lua_rawgeti(L, -1, i);
    cl_field *f = cl_lua_check_field(L, -1);
    if (f->dtype != s->x->dtype || f->n != rows || f->k != k || !cl_device_same(&f->device->dev, &s->x->device->dev))
      luaL_error(L, "%s: law state field %d must be %s, %I x %d, on %s (one value per bond)", fn, (int)i,
                 cl_dtype_name(s->x->dtype), (LUAI_UACINT)rows, k, s->x->device->dev.name);
    s->args.law_state[i - 1] = f->data;
    s->law_state[i - 1] = f;
    lua_pop(L, 1);
  }
  s->law_states = (int)count;
  lua_pop(L, 1);
}

/* Stage option law = jit module (cleave.jit.bond_force, compiled for x's device and precision):
 * the stage launches it and checks its forces are finite (a u32 x 2 field as the flag, kept in
 * the stage's copy of its arguments). Stack: the stage at `stage`, the module on top. */
static void attach_law(lua_State *L, const char *fn, pd_stage *s, int stage) {
  s->law = cl_lua_check_jit_module(L, -1);
  if (!cl_device_same(&s->law->device->dev, &s->x->device->dev))
    luaL_error(L, "%s: 'law' was compiled for %s, the fields live on %s", fn, s->law->device->dev.name,
               s->x->device->dev.name);
  cl_field *flag;
  cl_error err;
  if (cl_field_create(s->x->device, CL_U32, 2, 1, &flag, &err) != CL_OK) cl_lua_fail(L, &err);
  cl_lua_push_field(L, flag);
  if (cl_field_fill(flag, 0, &err) != CL_OK) cl_lua_fail(L, &err);
  s->nonfinite = flag->data;
  lua_getiuservalue(L, stage, 1);
  lua_insert(L, -2);
  lua_setfield(L, -2, "nonfinite_flag");
  lua_pop(L, 1);
}

static const char *const force_args[] = {"x", "u", "a", "bonds", "c", "s0", "rho", "delta", "dx", "volume",
                                         "body", "surface", "damage", "energy", "kernel", "law", "law_state", "rows",
                                         "v", "kick_dt", "kick_held", "advance", NULL};

/* cleave.stage.pd_force{ x =, u =, a =, bonds =, c =, s0 = 0, rho =, delta =, dx = 0,
 *   volume = number or field, body =, surface =, damage =, energy =, kernel = "point" | "half" | "group" | ...,
 *   rows = { first, count } (0-based; all rows when absent; "half" then runs as "point"),
 *   v =, kick_dt =, kick_held = (the step's closing kick fused: v += kick_dt/2 a, except the
 *   components c whose bit c - 1 of the u8 field kick_held is set),
 *   advance = (a pd_advance stage: the closing kick and the next step's kick-drift fused, u(n + 1) into its
 *   u_next; not with kernel "half", which sums the forces in a) }
 * "point" is the fastest on the H100 in both precisions (docs/benchmarks.md). */
static int stage_pd_force(lua_State *L) {
  const char *fn = "cleave.stage.pd_force";
  cl_lua_check_args(L, 1, fn, force_args);
  pd_stage *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, PD_STAGE_MT);
  s->x = cl_lua_req_field(L, 1, fn, "x");
  cl_lua_check_points(L, fn, "x", s->x);
  int dim = s->x->k;
  s->u = cl_lua_req_field(L, 1, fn, "u"), s->a = cl_lua_req_field(L, 1, fn, "a");
  s->body = cl_lua_opt_field(L, 1, fn, "body"), s->damage = cl_lua_opt_field(L, 1, fn, "damage");
  s->energy = cl_lua_opt_field(L, 1, fn, "energy");
  s->surface = cl_lua_opt_field(L, 1, fn, "surface");
  check_same(L, fn, "surface", s->surface, s->x, dim);
  check_same(L, fn, "u", s->u, s->x, dim), check_same(L, fn, "a", s->a, s->x, dim);
  check_same(L, fn, "body", s->body, s->x, dim), check_same(L, fn, "damage", s->damage, s->x, 1);
  check_same(L, fn, "energy", s->energy, s->x, 1);
  check_kick(L, fn, s, dim);
  lua_getfield(L, 1, "bonds");
  s->bonds = cl_lua_check_bonds(L, -1);
  lua_pop(L, 1);
  if (s->bonds->n != s->x->n) luaL_error(L, "%s: the bond list is for %I points, 'x' has %I", fn, (LUAI_UACINT)s->bonds->n, (LUAI_UACINT)s->x->n);
  cl_pd_force_args *a = &s->args;
  a->n = s->x->n, a->dim = dim;
  if (lua_getfield(L, 1, "rows") != LUA_TNIL) { /* { first (0-based), count } */
    if (!lua_istable(L, -1) || lua_geti(L, -1, 1) != LUA_TNUMBER || lua_geti(L, -2, 2) != LUA_TNUMBER ||
        !lua_isinteger(L, -1) || !lua_isinteger(L, -2) || lua_tointeger(L, -2) < 0 || lua_tointeger(L, -1) < 0 ||
        (size_t)(lua_tointeger(L, -2) + lua_tointeger(L, -1)) > a->n)
      luaL_error(L, "%s: 'rows' must be { first, count }: integers from 0 with first + count <= %I (the points)", fn,
                 (LUAI_UACINT)a->n);
    a->row0 = (size_t)lua_tointeger(L, -2), a->rows = (size_t)lua_tointeger(L, -1), s->ranged = 1;
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
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
      {"point", CL_PD_POINT}, {"half", CL_PD_HALF}, {"walk", CL_PD_WALK}, {"tile", CL_PD_TILE},
      {"tile6", CL_PD_TILE6}, {"group", CL_PD_GROUP4}, {"group4", CL_PD_GROUP4},
      {"group8", CL_PD_GROUP8}, {"group16", CL_PD_GROUP16}, {"group32", CL_PD_GROUP32}};
  int found = 0;
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0] && !found; k++)
    if (strcmp(kernel, kernels[k].name) == 0) s->kernel = kernels[k].kernel, found = 1;
  if (!found)
    luaL_error(L, "%s: 'kernel' must be \"point\", \"half\" (each lattice bond once), \"walk\", \"tile\" or "
                  "\"tile6\" (benchmark variants of \"point\"), \"group\" (4 lanes per point) or \"group8\", \"group16\", "
                  "\"group32\" (got \"%s\")", fn, kernel);
  if (s->kernel == CL_PD_HALF && !s->bonds->lattice)
    luaL_error(L, "%s: kernel \"half\" needs the lattice layout (these bonds are a list): give layout = \"lattice\" "
                  "or another kernel", fn);
  if (s->kernel == CL_PD_HALF && lua_getfield(L, 1, "law") != LUA_TNIL)
    luaL_error(L, "%s: kernel \"half\" runs the built-in PMB law only (a run-time law keeps state at both ends of "
                  "a bond): give kernel = \"point\" with 'law'", fn);
  if (s->kernel == CL_PD_HALF) lua_pop(L, 1);
  if (s->kernel == CL_PD_HALF && s->advance)
    luaL_error(L, "%s: kernel \"half\" sums the forces in 'a', where 'advance' needs the last step's accelerations: "
                  "give kernel = \"point\" with 'advance', or 'v' and 'kick_dt'", fn);
  attach_law_state(L, fn, s);
  cl_lua_stage_init(L, &s->stage, "pd_force", run_pd_force, s, &s->x->device->dev);
  if (lua_getfield(L, 1, "law") != LUA_TNIL) attach_law(L, fn, s, lua_gettop(L) - 1);
  lua_pop(L, 1);
  return 1;
}

static int pd_stage_tostring(lua_State *L) {
  pd_stage *s = luaL_checkudata(L, 1, PD_STAGE_MT);
  if (s->kernel == CL_PD_POINT) lua_pushstring(L, "stage<pd_force, point kernel>");
  else if (s->kernel == CL_PD_HALF) lua_pushstring(L, "stage<pd_force, half-stencil kernel>");
  else if (s->kernel == CL_PD_WALK) lua_pushstring(L, "stage<pd_force, point kernel (stencil walk)>");
  else if (s->kernel == CL_PD_TILE) lua_pushstring(L, "stage<pd_force, point kernel (shared-memory tiles)>");
  else if (s->kernel == CL_PD_TILE6)
    lua_pushstring(L, "stage<pd_force, point kernel (shared-memory tiles, 3D 6 cells deep)>");
  else lua_pushfstring(L, "stage<pd_force, group kernel of %d lanes>", (int)s->kernel);
  return 1;
}

/* ---- dynamic relaxation --------------------------------------------------- */

typedef struct adr_stage {
  cl_stage stage;
  cl_field *u, *v, *f, *f_prev, *lambda;
  size_t owned;   /* the rows whose entries the damping sums: a partitioned body's own points */
  int over_ranks; /* the sums run over every rank's owned rows (a collective step) */
  int first;
  double damping;
} adr_stage;

static cl_status run_adr(void *data, long step, double t, cl_error *err) {
  adr_stage *s = data;
  (void)step, (void)t;
  CL_TRY(cl_k_pd_adr(&s->u->device->dev, s->u->dtype, s->u->n, s->owned, s->u->k, s->u->data, s->v->data,
                     s->f->data, s->f_prev->data, s->lambda->data, s->first, s->over_ranks, &s->damping, err));
  s->first = 0;
  cl_field_touch(s->u), cl_field_touch(s->v), cl_field_touch(s->f_prev);
  return CL_OK;
}

static const char *const adr_args[] = {"u", "v", "f", "f_prev", "lambda", "owned", "over_ranks", NULL};

/* cleave.stage.pd_adr{ u =, v =, f = (force density of u), f_prev =, lambda = (per point),
 *   owned = u.n, over_ranks = false }: one adaptive dynamic relaxation step (kernels/pd/adr.h,
 * relax.h); the damping sums the first `owned` rows, over every rank with over_ranks (then every
 * rank runs the stage together); stage.damping is the last c_n. */
static int stage_pd_adr(lua_State *L) {
  const char *fn = "cleave.stage.pd_adr";
  cl_lua_check_args(L, 1, fn, adr_args);
  adr_stage *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, ADR_STAGE_MT);
  s->u = cl_lua_req_field(L, 1, fn, "u");
  cl_lua_check_points(L, fn, "u", s->u);
  s->v = cl_lua_req_field(L, 1, fn, "v"), s->f = cl_lua_req_field(L, 1, fn, "f");
  s->f_prev = cl_lua_req_field(L, 1, fn, "f_prev"), s->lambda = cl_lua_req_field(L, 1, fn, "lambda");
  check_same(L, fn, "v", s->v, s->u, s->u->k), check_same(L, fn, "f", s->f, s->u, s->u->k);
  check_same(L, fn, "f_prev", s->f_prev, s->u, s->u->k), check_same(L, fn, "lambda", s->lambda, s->u, 1);
  lua_Integer owned = cl_lua_opt_integer(L, 1, fn, "owned", (lua_Integer)s->u->n);
  if (owned < 0 || (size_t)owned > s->u->n)
    return luaL_error(L, "%s: argument 'owned' must be a row count from 0 to u's %I rows, got %I", fn,
                      (LUAI_UACINT)s->u->n, (LUAI_UACINT)owned);
  s->owned = (size_t)owned;
  s->over_ranks = cl_lua_opt_boolean(L, 1, fn, "over_ranks", 0);
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
  cl_lua_check_points(L, "cleave.pd.morton_order", "x", x);
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

/* cleave.pd.gather(field, order [, k]) -> new field of #order rows x k, row i taken from row
 * order[i] of field (0-based u32: a permutation, or a subset such as a rank's points); with k the
 * field's entries are read as rows of k (a per-point state of k words stored as one column) */
static int gather(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1), *order = cl_lua_check_field(L, 2);
  lua_Integer k = luaL_optinteger(L, 3, f->k);
  size_t entries = f->n * (size_t)f->k;
  if (k < 1 || entries % (size_t)k) return luaL_error(L, "cleave.pd.gather: %I entries are not rows of %I", (LUAI_UACINT)entries, (LUAI_UACINT)k);
  size_t rows = entries / (size_t)k;
  if (order->dtype != CL_U32 || order->k != 1)
    return luaL_error(L, "cleave.pd.gather: the order must be a u32 field of row indices (0-based, below %I)", (LUAI_UACINT)rows);
  cl_field *g;
  cl_error err;
  if (cl_field_create(f->device, f->dtype, order->n, (int)k, &g, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, g);
  if (cl_pd_gather_rows(&f->device->dev, f->dtype, rows, order->n, (int)k, f->data, order->data, g->data, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  cl_field_touch(g);
  return 1;
}

int cl_lua_open_pd(lua_State *L) {
  cl_lua_stage_metatable(L, PD_STAGE_MT);
  lua_pushcfunction(L, pd_stage_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  cl_lua_stage_metatable(L, ADVANCE_STAGE_MT);
  lua_getfield(L, -1, "__index");
  lua_pushcfunction(L, advance_reset);
  lua_setfield(L, -2, "reset");
  lua_pop(L, 2);
  cl_lua_stage_metatable(L, ADR_STAGE_MT);
  lua_pushcfunction(L, adr_index); /* damping, and run */
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  const luaL_Reg pd[] = {{"morton_order", morton_order}, {"gather", gather}, {NULL, NULL}};
  luaL_newlib(L, pd);
  cl_lua_open_pd_bonds(L);
  lua_setfield(L, -2, "pd");
  lua_getfield(L, -1, "stage");
  lua_pushcfunction(L, stage_pd_force);
  lua_setfield(L, -2, "pd_force");
  lua_pushcfunction(L, stage_pd_adr);
  lua_setfield(L, -2, "pd_adr");
  lua_pushcfunction(L, stage_pd_advance);
  lua_setfield(L, -2, "pd_advance");
  lua_pop(L, 1);
  return 0;
}
