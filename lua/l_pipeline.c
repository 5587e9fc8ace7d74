/* Stages, pipelines and the run loop in Lua. A stage is a kernel launch
 * bound to its fields and constants; s:run() launches it once, and
 * cleave.run repeats a pipeline of stages in C without returning to Lua. */
#include <math.h>
#include <string.h>

#include "../kernels/common/expression.h"
#include "../kernels/dispatch.h"
#include "../runtime/pipeline.h"
#include "../runtime/progress.h"
#include "l_jit.h"
#include "l_util.h"

typedef struct stage_ud {
  cl_stage stage; /* first: the pipeline sees every stage userdata as a cl_stage */
  lua_State *L;    /* for callback stages */
  int callback;    /* registry ref, LUA_NOREF otherwise */
  cl_field *f[3];  /* fields the kernel reads and writes */
  double c[4];     /* constants */
  size_t nx, ny;
  const cl_lua_jit_module *expression; /* set_rows: a compiled value of t (cleave.expr) */
} stage_ud;

typedef struct pipeline_ud {
  cl_pipeline p;
  long last_step; /* number of the last step cleave.run completed, also when it stopped early */
  int interrupted; /* the last cleave.run stopped at a step boundary on Ctrl-C */
} pipeline_ud;

static cl_device *dev_of(cl_field *f) { return &f->device->dev; }

static cl_status run_axpy(void *d, long step, double t, cl_error *err) {
  stage_ud *s = d;
  (void)step, (void)t;
  CL_TRY(cl_k_axpy(dev_of(s->f[0]), s->f[0]->dtype, cl_field_count(s->f[0]), s->c[0],
                   s->f[1]->data, s->f[0]->data, err));
  cl_field_touch(s->f[0]);
  return CL_OK;
}

static cl_status run_copy(void *d, long step, double t, cl_error *err) {
  stage_ud *s = d;
  (void)step, (void)t;
  CL_TRY(dev_of(s->f[0])->copy(dev_of(s->f[0]), s->f[0]->data, s->f[1]->data, cl_field_bytes(s->f[0]), err));
  cl_field_touch(s->f[0]);
  return CL_OK;
}

/* set_rows: the value is c[0], or the Lua function `callback` of t + c[1]; c[3] != 0: add it */
static cl_status run_set_rows(void *d, long step, double t, cl_error *err) {
  stage_ud *s = d;
  double value = s->c[0];
  if (s->expression) {
    cl_rows_args a = {cl_field_component(s->f[0], 0), s->f[0]->n, (int)s->c[2], s->f[1]->data, s->f[1]->n,
                      t + s->c[1], s->c[3] != 0};
    CL_TRY(cl_jit_launch(dev_of(s->f[0]), s->expression->module->symbols[0], &a, a.count, "set_rows (expression)", err));
    cl_field_touch(s->f[0]);
    return CL_OK;
  }
  if (s->callback != LUA_NOREF) {
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->callback);
    lua_pushnumber(L, t + s->c[1]);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_isnumber(L, -1)) {
      cl_error_set(err, CL_ERR_SCRIPT, "value function at step %ld: %s", step,
                   lua_isstring(L, -1) ? lua_tostring(L, -1) : "did not return a number");
      lua_pop(L, 1);
      return CL_ERR_SCRIPT;
    }
    value = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  CL_TRY(cl_k_set_rows(dev_of(s->f[0]), s->f[0]->dtype, cl_field_component(s->f[0], 0), s->f[0]->n,
                       (int)s->c[2], s->f[1]->data, s->f[1]->n, value, s->c[3] != 0, err));
  cl_field_touch(s->f[0]);
  return CL_OK;
}

static cl_status run_kick_drift(void *d, long step, double t, cl_error *err) {
  stage_ud *s = d;
  (void)step, (void)t;
  CL_TRY(cl_k_verlet_kick_drift(dev_of(s->f[0]), s->f[0]->dtype, cl_field_count(s->f[0]),
                                s->f[0]->data, s->f[1]->data, s->f[2]->data, s->c[0], err));
  cl_field_touch(s->f[0]);
  cl_field_touch(s->f[1]);
  return CL_OK;
}

static cl_status run_kick(void *d, long step, double t, cl_error *err) {
  stage_ud *s = d;
  (void)step, (void)t;
  CL_TRY(cl_k_verlet_kick(dev_of(s->f[0]), s->f[0]->dtype, cl_field_count(s->f[0]),
                          s->f[0]->data, s->f[1]->data, s->c[0], err));
  cl_field_touch(s->f[0]);
  return CL_OK;
}

static cl_status run_wave2d_accel(void *d, long step, double t, cl_error *err) {
  stage_ud *s = d;
  (void)step, (void)t;
  CL_TRY(cl_k_wave2d_accel(dev_of(s->f[0]), s->f[0]->dtype, s->nx, s->ny, s->f[0]->data,
                           s->f[1]->data, s->c[0], err));
  cl_field_touch(s->f[1]);
  return CL_OK;
}

static cl_status run_callback(void *d, long step, double t, cl_error *err) {
  stage_ud *s = d;
  lua_State *L = s->L;
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->callback);
  lua_pushinteger(L, step);
  lua_pushnumber(L, t);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
    cl_error_set(err, CL_ERR_SCRIPT, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return CL_ERR_SCRIPT;
  }
  return CL_OK;
}

static int stage_gc(lua_State *L) {
  stage_ud *s = luaL_checkudata(L, 1, CL_STAGE_MT);
  if (s->callback != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->callback);
  s->callback = LUA_NOREF;
  return 0;
}

/* New stage userdata. Its user value is a private copy of the argument at
 * index 1 (a table is copied shallowly), so the fields it uses stay alive
 * whatever the script later does with its own table. */
static stage_ud *new_stage(lua_State *L, const char *name, cl_status (*run)(void *, long, double, cl_error *)) {
  stage_ud *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  s->callback = LUA_NOREF;
  luaL_setmetatable(L, CL_STAGE_MT);
  cl_lua_stage_init(L, &s->stage, name, run, s, NULL); /* the constructor sets the device */
  return s;
}

static void check_real(lua_State *L, const char *fname, const char *key, cl_field *f) {
  if (f->dtype != CL_F32 && f->dtype != CL_F64)
    luaL_error(L, "%s: field '%s' must be f32 or f64 (got %s)", fname, key, cl_dtype_name(f->dtype));
}

/* Checks that fields b (named bkey) matches a in dtype, shape and device. */
static void check_like(lua_State *L, const char *fname, const char *akey, cl_field *a, const char *bkey,
                       cl_field *b) {
  if (a->dtype != b->dtype)
    luaL_error(L, "%s: fields '%s' (%s) and '%s' (%s) differ in dtype", fname, akey,
               cl_dtype_name(a->dtype), bkey, cl_dtype_name(b->dtype));
  if (a->n != b->n || a->k != b->k)
    luaL_error(L, "%s: fields '%s' (%I x %d) and '%s' (%I x %d) differ in shape", fname, akey,
               (LUAI_UACINT)a->n, a->k, bkey, (LUAI_UACINT)b->n, b->k);
  if (!cl_device_same(&a->device->dev, &b->device->dev))
    luaL_error(L, "%s: fields '%s' (on %s) and '%s' (on %s) live on different devices; copy one "
               "with f:copy(\"%s\")", fname, akey, a->device->dev.name, bkey, b->device->dev.name,
               a->device->dev.name);
}

static const char *const axpy_args[] = {"y", "x", "a", NULL};

/* cleave.stage.axpy{ y = , x = , a = }: y <- a x + y */
static int stage_axpy(lua_State *L) {
  const char *fn = "cleave.stage.axpy";
  cl_lua_check_args(L, 1, fn, axpy_args);
  cl_field *y = cl_lua_req_field(L, 1, fn, "y"), *x = cl_lua_req_field(L, 1, fn, "x");
  double a = cl_lua_req_number(L, 1, fn, "a");
  check_real(L, fn, "y", y);
  check_like(L, fn, "y", y, "x", x);
  stage_ud *s = new_stage(L, "axpy", run_axpy);
  s->f[0] = y, s->f[1] = x, s->c[0] = a;
  s->stage.device = dev_of(y);
  return 1;
}

static const char *const copy_args[] = {"dst", "src", NULL};

/* cleave.stage.copy{ dst = , src = }: dst <- src on the device (any dtype) */
static int stage_copy(lua_State *L) {
  const char *fn = "cleave.stage.copy";
  cl_lua_check_args(L, 1, fn, copy_args);
  cl_field *dst = cl_lua_req_field(L, 1, fn, "dst"), *src = cl_lua_req_field(L, 1, fn, "src");
  check_like(L, fn, "dst", dst, "src", src);
  stage_ud *s = new_stage(L, "copy", run_copy);
  s->f[0] = dst, s->f[1] = src;
  s->stage.device = dev_of(dst);
  return 1;
}

static const char *const set_rows_args[] = {"field", "rows", "component", "value", "time_offset", "add", NULL};

/* cleave.stage.set_rows{ field = , rows = (u32 field of distinct 1-based row numbers), component = 1,
 *                        value = number, function(t) or compiled expression of t (cleave.jit.value),
 *                        time_offset = 0, add = false }
 * field[rows, component] <- value, or += value with add (a function is called once per step
 * with t + time_offset) */
static int stage_set_rows(lua_State *L) {
  const char *fn = "cleave.stage.set_rows";
  cl_lua_check_args(L, 1, fn, set_rows_args);
  cl_field *f = cl_lua_req_field(L, 1, fn, "field"), *rows = cl_lua_req_field(L, 1, fn, "rows");
  check_real(L, fn, "field", f);
  if (rows->dtype != CL_U32 || rows->k != 1)
    luaL_error(L, "%s: 'rows' must be a u32 field of row numbers (got %s, k = %d)", fn, cl_dtype_name(rows->dtype), rows->k);
  if (!cl_device_same(&rows->device->dev, &f->device->dev))
    luaL_error(L, "%s: 'rows' and 'field' live on different devices", fn);
  double lo = 0, hi = 0;
  cl_error err;
  if (rows->n && (cl_field_reduce(rows, CL_REDUCE_MIN, -1, &lo, &err) != CL_OK ||
                  cl_field_reduce(rows, CL_REDUCE_MAX, -1, &hi, &err) != CL_OK))
    cl_lua_fail(L, &err);
  if (rows->n && (lo < 1 || hi > (double)f->n))
    luaL_error(L, "%s: 'rows' holds row numbers %f..%f outside 1..%I", fn, lo, hi, (LUAI_UACINT)f->n);
  lua_Integer component = cl_lua_opt_integer(L, 1, fn, "component", 1);
  if (component < 1 || component > f->k) luaL_error(L, "%s: 'component' must be 1..%d", fn, f->k);
  stage_ud *s = new_stage(L, "set_rows", run_set_rows);
  s->f[0] = f, s->f[1] = rows, s->c[2] = (double)(component - 1);
  s->c[1] = cl_lua_opt_number(L, 1, fn, "time_offset", 0);
  s->c[3] = cl_lua_opt_boolean(L, 1, fn, "add", 0);
  s->stage.device = dev_of(f);
  int t = lua_getfield(L, 1, "value");
  if (t == LUA_TNUMBER) {
    s->c[0] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  } else if (t == LUA_TFUNCTION) {
    s->L = L;
    s->callback = luaL_ref(L, LUA_REGISTRYINDEX);
  } else if (t == LUA_TUSERDATA && luaL_testudata(L, -1, CL_LUA_JIT_MODULE_MT)) {
    s->expression = cl_lua_check_jit_module(L, -1);
    if (!cl_device_same(&s->expression->device->dev, dev_of(f)))
      luaL_error(L, "%s: the compiled 'value' is for %s, the field lives on %s", fn, s->expression->device->dev.name,
                 dev_of(f)->name);
    lua_pop(L, 1);
  } else {
    luaL_error(L, "%s: 'value' must be a number, a function(t) or a compiled expression", fn);
  }
  return 1;
}

static double check_dt(lua_State *L, const char *fn) {
  double dt = cl_lua_req_number(L, 1, fn, "dt");
  if (!(dt > 0) || !isfinite(dt)) luaL_error(L, "%s: argument 'dt' must be a positive number (got %f)", fn, dt);
  return dt;
}

static const char *const kick_drift_args[] = {"u", "v", "a", "dt", NULL};

/* cleave.stage.verlet_kick_drift{ u = , v = , a = , dt = }: v += dt/2 a; u += dt v */
static int stage_kick_drift(lua_State *L) {
  const char *fn = "cleave.stage.verlet_kick_drift";
  cl_lua_check_args(L, 1, fn, kick_drift_args);
  cl_field *u = cl_lua_req_field(L, 1, fn, "u"), *v = cl_lua_req_field(L, 1, fn, "v"),
           *a = cl_lua_req_field(L, 1, fn, "a");
  double dt = check_dt(L, fn);
  check_real(L, fn, "u", u);
  check_like(L, fn, "u", u, "v", v);
  check_like(L, fn, "u", u, "a", a);
  stage_ud *s = new_stage(L, "verlet_kick_drift", run_kick_drift);
  s->f[0] = u, s->f[1] = v, s->f[2] = a, s->c[0] = dt;
  s->stage.device = dev_of(u);
  return 1;
}

static const char *const kick_args[] = {"v", "a", "dt", NULL};

/* cleave.stage.verlet_kick{ v = , a = , dt = }: v += dt/2 a */
static int stage_kick(lua_State *L) {
  const char *fn = "cleave.stage.verlet_kick";
  cl_lua_check_args(L, 1, fn, kick_args);
  cl_field *v = cl_lua_req_field(L, 1, fn, "v"), *a = cl_lua_req_field(L, 1, fn, "a");
  double dt = check_dt(L, fn);
  check_real(L, fn, "v", v);
  check_like(L, fn, "v", v, "a", a);
  stage_ud *s = new_stage(L, "verlet_kick", run_kick);
  s->f[0] = v, s->f[1] = a, s->c[0] = dt;
  s->stage.device = dev_of(v);
  return 1;
}

static const char *const wave_args[] = {"u", "a", "nx", "ny", "c", "dx", NULL};

/* cleave.stage.wave2d_accel{ u = , a = , nx = , ny = , c = , dx = }: a = c^2 lap(u) */
static int stage_wave2d(lua_State *L) {
  const char *fn = "cleave.stage.wave2d_accel";
  cl_lua_check_args(L, 1, fn, wave_args);
  cl_field *u = cl_lua_req_field(L, 1, fn, "u"), *a = cl_lua_req_field(L, 1, fn, "a");
  lua_Integer nx = cl_lua_opt_integer(L, 1, fn, "nx", 0), ny = cl_lua_opt_integer(L, 1, fn, "ny", 0);
  double c = cl_lua_req_number(L, 1, fn, "c"), dx = cl_lua_req_number(L, 1, fn, "dx");
  check_real(L, fn, "u", u);
  check_like(L, fn, "u", u, "a", a);
  if (nx < 3 || ny < 3) luaL_error(L, "%s: arguments 'nx' and 'ny' must be >= 3", fn);
  if ((size_t)(nx * ny) != u->n || u->k != 1)
    luaL_error(L, "%s: field 'u' has %I x %d entries, expected nx*ny = %I x 1", fn, (LUAI_UACINT)u->n,
               u->k, (LUAI_UACINT)(nx * ny));
  if (!(c > 0)) luaL_error(L, "%s: argument 'c' (wave speed) must be positive (got %f)", fn, c);
  if (!(dx > 0)) luaL_error(L, "%s: argument 'dx' (grid spacing) must be positive (got %f)", fn, dx);
  stage_ud *s = new_stage(L, "wave2d_accel", run_wave2d_accel);
  s->f[0] = u, s->f[1] = a, s->c[0] = c * c / (dx * dx), s->nx = (size_t)nx, s->ny = (size_t)ny;
  s->stage.device = dev_of(u);
  return 1;
}

/* cleave.stage.call(function(step, t) ... end): a host callback stage */
static int stage_call(lua_State *L) {
  if (lua_type(L, 1) != LUA_TFUNCTION)
    return luaL_error(L, "cleave.stage.call expects a function(step, t), got %s", luaL_typename(L, 1));
  stage_ud *s = new_stage(L, "call", run_callback);
  s->L = L;
  lua_pushvalue(L, 1);
  s->callback = luaL_ref(L, LUA_REGISTRYINDEX);
  return 1;
}

static void check_status(lua_State *L, cl_status st, cl_error *err) {
  if (st != CL_OK) cl_lua_fail(L, err);
}

static int stage_tostring(lua_State *L) {
  stage_ud *s = luaL_checkudata(L, 1, CL_STAGE_MT);
  lua_pushfstring(L, "stage<%s>", s->stage.name);
  return 1;
}

static int pipeline_gc(lua_State *L) {
  pipeline_ud *p = luaL_checkudata(L, 1, CL_PIPELINE_MT);
  cl_pipeline_clear(&p->p); /* stage data belong to the stage userdata */
  return 0;
}

/* cleave.pipeline{ stage, stage, ... } */
static int pipeline_new(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Integer n = (lua_Integer)luaL_len(L, 1);
  pipeline_ud *p = lua_newuserdatauv(L, sizeof *p, 1);
  memset(p, 0, sizeof *p);
  luaL_setmetatable(L, CL_PIPELINE_MT);
  lua_createtable(L, (int)n, 0);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, 1, i);
    cl_stage *s = cl_lua_test_stage(L, -1);
    if (!s) return luaL_error(L, "cleave.pipeline: entry %I is %s, not a stage (make stages with cleave.stage.*)",
                              (LUAI_UACINT)i, luaL_typename(L, -1));
    cl_error err;
    cl_stage copy = *s;
    copy.destroy = NULL;
    check_status(L, cl_pipeline_add(&p->p, &copy, &err), &err);
    lua_rawseti(L, -2, i);
  }
  lua_setiuservalue(L, -2, 1);
  return 1;
}

static int pipeline_len(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)((pipeline_ud *)luaL_checkudata(L, 1, CL_PIPELINE_MT))->p.count);
  return 1;
}

/* p.step: the last step a cleave.run of this pipeline completed;
 * p.interrupted: whether that run stopped on Ctrl-C (state at a step boundary) */
static int pipeline_index(lua_State *L) {
  pipeline_ud *p = luaL_checkudata(L, 1, CL_PIPELINE_MT);
  const char *key = luaL_checkstring(L, 2);
  if (strcmp(key, "step") == 0) lua_pushinteger(L, p->last_step);
  else if (strcmp(key, "interrupted") == 0) lua_pushboolean(L, p->interrupted);
  else return luaL_error(L, "pipeline has no property '%s' (properties: step, interrupted)", key);
  return 1;
}

static int pipeline_tostring(lua_State *L) {
  pipeline_ud *p = luaL_checkudata(L, 1, CL_PIPELINE_MT);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "pipeline<");
  for (size_t i = 0; i < p->p.count; i++) {
    if (i) luaL_addstring(&b, " -> ");
    luaL_addstring(&b, p->p.stages[i].name);
  }
  luaL_addstring(&b, ">");
  luaL_pushresult(&b);
  return 1;
}

typedef struct output_cb {
  lua_State *L;
  int fn; /* stack index of on_output, 0 if none */
} output_cb;

static cl_status call_on_output(void *ud, long step, double t, cl_error *err) {
  output_cb *cb = ud;
  lua_pushvalue(cb->L, cb->fn);
  lua_pushinteger(cb->L, step);
  lua_pushnumber(cb->L, t);
  if (lua_pcall(cb->L, 2, 0, 0) != LUA_OK) {
    cl_error_set(err, CL_ERR_SCRIPT, "on_output at step %ld: %s", step, lua_tostring(cb->L, -1));
    lua_pop(cb->L, 1);
    return CL_ERR_SCRIPT;
  }
  return CL_OK;
}

/* Synchronises every device a stage runs on (each once). */
static cl_status synchronize_pipeline(cl_pipeline *p, cl_error *err) {
  cl_device *seen[8];
  int nseen = 0;
  for (size_t i = 0; i < p->count; i++) {
    cl_device *d = p->stages[i].device;
    int known = !d;
    for (int m = 0; m < nseen; m++) known |= seen[m] == d;
    if (known) continue;
    CL_TRY(d->synchronize(d, err));
    if (nseen < 8) seen[nseen++] = d;
  }
  return CL_OK;
}

static const char *const run_args[] = {"pipeline", "steps", "dt", "t0", "step0", "every", "on_output", "progress",
                                       "collective", NULL};

/* cleave.run{ pipeline = , steps = , dt = 0, t0 = 0, step0 = 0, every = 0,
 *             on_output = function(step, t) end, progress = true, collective = false }
 * collective: every rank runs it together (a partitioned model): Ctrl-C stops all at one step.
 * Returns { steps = , t = , seconds = , steps_per_second = }. */
static int run(lua_State *L) {
  const char *fn = "cleave.run";
  cl_lua_check_args(L, 1, fn, run_args);
  lua_getfield(L, 1, "pipeline");
  pipeline_ud *p = luaL_testudata(L, -1, CL_PIPELINE_MT);
  if (!p) return luaL_error(L, "%s: argument 'pipeline' must be a pipeline (cleave.pipeline{...}), got %s", fn, luaL_typename(L, -1));
  cl_run_options opt = {0};
  if (lua_getfield(L, 1, "steps") == LUA_TNIL) return luaL_error(L, "%s: missing argument 'steps'", fn);
  lua_pop(L, 1);
  opt.steps = (long)cl_lua_opt_integer(L, 1, fn, "steps", -1);
  if (opt.steps < 0) return luaL_error(L, "%s: argument 'steps' must be a non-negative integer", fn);
  opt.dt = cl_lua_opt_number(L, 1, fn, "dt", 0);
  opt.t0 = cl_lua_opt_number(L, 1, fn, "t0", 0);
  opt.step0 = (long)cl_lua_opt_integer(L, 1, fn, "step0", 0);
  opt.every = (long)cl_lua_opt_integer(L, 1, fn, "every", 0);
  opt.progress = cl_lua_opt_boolean(L, 1, fn, "progress", 1);
  opt.collective = cl_lua_opt_boolean(L, 1, fn, "collective", 0);
  output_cb cb = {L, 0};
  int t = lua_getfield(L, 1, "on_output");
  if (t != LUA_TNIL) {
    if (t != LUA_TFUNCTION) return luaL_error(L, "%s: argument 'on_output' must be a function", fn);
    if (opt.every <= 0) return luaL_error(L, "%s: 'on_output' needs 'every' (a positive step interval)", fn);
    cb.fn = lua_gettop(L);
    opt.on_every = call_on_output;
    opt.ud = &cb;
  }
  long done = 0;
  cl_error err;
  double t0 = cl_monotonic_seconds();
  cl_status st = cl_run(&p->p, &opt, &done, &err);
  p->last_step = opt.step0 + done;
  p->interrupted = st == CL_ERR_INTERRUPTED;
  /* wait for the devices so that the timing and any late fault belong to this call */
  if (st == CL_OK) st = synchronize_pipeline(&p->p, &err);
  double seconds = cl_monotonic_seconds() - t0;
  check_status(L, st, &err);
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, done);
  lua_setfield(L, -2, "steps");
  lua_pushnumber(L, opt.t0 + (double)done * opt.dt);
  lua_setfield(L, -2, "t");
  lua_pushnumber(L, seconds);
  lua_setfield(L, -2, "seconds");
  lua_pushnumber(L, seconds > 0 ? (double)done / seconds : 0);
  lua_setfield(L, -2, "steps_per_second");
  return 1;
}

/* cleave.clock(): monotonic wall-clock seconds, for timing from scripts */
static int clock_seconds(lua_State *L) {
  lua_pushnumber(L, cl_monotonic_seconds());
  return 1;
}

/* cleave.sync(): waits until the current device has finished all work */
static int sync_device(lua_State *L) {
  cl_device *d = &cl_lua_runtime(L)->device->dev;
  cl_error err;
  check_status(L, d->synchronize(d, &err), &err);
  return 0;
}

/* cleave.dot(x, y): sum of x_i y_i over all entries, on the device */
static int dot(lua_State *L) {
  cl_field *x = cl_lua_check_field(L, 1), *y = cl_lua_check_field(L, 2);
  check_real(L, "cleave.dot", "x", x);
  check_like(L, "cleave.dot", "x", x, "y", y);
  double out;
  cl_error err;
  check_status(L, cl_k_dot(dev_of(x), x->dtype, cl_field_count(x), x->data, y->data, &out, &err), &err);
  lua_pushnumber(L, out);
  return 1;
}

cl_stage *cl_lua_test_stage(lua_State *L, int idx) {
  if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return NULL;
  int marked = lua_getfield(L, -1, "__stage") == LUA_TBOOLEAN && lua_toboolean(L, -1);
  lua_pop(L, 2);
  return marked ? lua_touserdata(L, idx) : NULL;
}

int cl_lua_open_pipeline(lua_State *L) {
  cl_lua_stage_metatable(L, CL_STAGE_MT);
  const luaL_Reg stage_meta[] = {{"__gc", stage_gc}, {"__tostring", stage_tostring}, {NULL, NULL}};
  luaL_setfuncs(L, stage_meta, 0);
  lua_pop(L, 1);

  luaL_newmetatable(L, CL_PIPELINE_MT);
  const luaL_Reg pipe_meta[] = {{"__gc", pipeline_gc},
                                {"__len", pipeline_len},
                                {"__index", pipeline_index},
                                {"__tostring", pipeline_tostring},
                                {NULL, NULL}};
  luaL_setfuncs(L, pipe_meta, 0);
  lua_pop(L, 1);

  const luaL_Reg stages[] = {{"axpy", stage_axpy},
                             {"copy", stage_copy},
                             {"set_rows", stage_set_rows},
                             {"verlet_kick_drift", stage_kick_drift},
                             {"verlet_kick", stage_kick},
                             {"wave2d_accel", stage_wave2d},
                             {"call", stage_call},
                             {NULL, NULL}};
  luaL_newlib(L, stages);
  lua_setfield(L, -2, "stage");
  const luaL_Reg fns[] = {{"pipeline", pipeline_new}, {"run", run}, {"dot", dot},
                          {"clock", clock_seconds}, {"sync", sync_device}, {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
  return 0;
}
