/* cleave.jit (C part): compiling generated units for a device and the disk
 * cache. The snippet kinds and their templates are in lua/cleave/jit.lua. */
#include "l_jit.h"

#include <stdio.h>
#include <string.h>

#include "../kernels/common/expression.h"
#include "../kernels/common/material_point.h"
#include "../runtime/embedded.h"
#include "../runtime/progress.h"

#define MODULE_MT CL_LUA_JIT_MODULE_MT

static const char *const ORIGINS[] = {"compiled", "disk", "memory"};

const cl_lua_jit_module *cl_lua_check_jit_module(lua_State *L, int idx) {
  return luaL_checkudata(L, idx, MODULE_MT);
}

static const char *const compile_args[] = {"what", "source", "symbols", "fast_math", "field", NULL};

/* cleave.jit.compile{ what =, source =, symbols = { names }, fast_math = false, field = (its
 * device; default: the current device) } -> module (origin, seconds, symbols) */
static int jit_compile(lua_State *L) {
  const char *fn = "cleave.jit.compile";
  cl_lua_check_args(L, 1, fn, compile_args);
  cl_jit_unit u;
  memset(&u, 0, sizeof u);
  u.what = cl_lua_opt_string(L, 1, fn, "what", NULL);
  u.source = cl_lua_opt_string(L, 1, fn, "source", NULL);
  if (!u.what || !u.source) return luaL_error(L, "%s: give 'what' (a name) and 'source' (the unit)", fn);
  u.fast_math = cl_lua_opt_boolean(L, 1, fn, "fast_math", 0);
  const char *symbols[CL_JIT_MAX_SYMBOLS + 1] = {NULL};
  if (lua_getfield(L, 1, "symbols") != LUA_TTABLE) return luaL_error(L, "%s: 'symbols' must be a list of names", fn);
  lua_Integer count = luaL_len(L, -1);
  if (count < 1 || count > CL_JIT_MAX_SYMBOLS)
    return luaL_error(L, "%s: 'symbols' must list 1 to %d names", fn, CL_JIT_MAX_SYMBOLS);
  for (lua_Integer k = 1; k <= count; k++) {
    lua_rawgeti(L, -1, k);
    symbols[k - 1] = lua_tostring(L, -1);
    if (!symbols[k - 1]) return luaL_error(L, "%s: symbol %d is not a string", fn, (int)k);
    lua_pop(L, 1); /* the table keeps the string alive */
  }
  u.symbols = symbols;
  cl_field *f = cl_lua_opt_field(L, 1, fn, "field");
  cl_device_ref *device = f ? f->device : cl_lua_runtime(L)->device;
  cl_lua_jit_module *m = lua_newuserdatauv(L, sizeof *m, 0);
  memset(m, 0, sizeof *m);
  luaL_setmetatable(L, MODULE_MT);
  cl_error err;
  double t0 = cl_monotonic_seconds();
  if (cl_jit_build(&device->dev, &u, &m->module, &m->origin, &err) != CL_OK) return cl_lua_fail(L, &err);
  m->seconds = cl_monotonic_seconds() - t0;
  m->device = cl_device_ref_retain(device);
  m->nsymbols = (int)count;
  snprintf(m->what, sizeof m->what, "%s", u.what);
  return 1;
}

static int module_gc(lua_State *L) {
  cl_lua_jit_module *m = luaL_checkudata(L, 1, MODULE_MT);
  if (m->device) cl_device_ref_release(m->device);
  m->device = NULL;
  return 0;
}

static int module_index(lua_State *L) {
  const cl_lua_jit_module *m = cl_lua_check_jit_module(L, 1);
  const char *key = luaL_checkstring(L, 2);
  if (strcmp(key, "origin") == 0) lua_pushstring(L, ORIGINS[m->origin]);
  else if (strcmp(key, "seconds") == 0) lua_pushnumber(L, m->seconds);
  else if (strcmp(key, "device") == 0) lua_pushstring(L, m->device->dev.name);
  else if (strcmp(key, "key") == 0) lua_pushstring(L, m->module->key);
  else return luaL_error(L, "jit module has no field '%s' (origin, seconds, device, key)", key);
  return 1;
}

static int module_tostring(lua_State *L) {
  const cl_lua_jit_module *m = cl_lua_check_jit_module(L, 1);
  lua_pushfstring(L, "jit.module<%s, %d entry points, %s in %f s>", m->device->dev.name, m->nsymbols,
                  ORIGINS[m->origin], m->seconds);
  return 1;
}

/* cleave.jit.run_region(module, x, dx) -> u8 field, 1 where the compiled region test
 * (cleave.jit.region) holds at the points x (n x dim, the module's device and precision) */
static int jit_run_region(lua_State *L) {
  const cl_lua_jit_module *m = cl_lua_check_jit_module(L, 1);
  cl_field *x = cl_lua_check_field(L, 2);
  double dx = luaL_checknumber(L, 3);
  if (!cl_device_same(&m->device->dev, &x->device->dev))
    return luaL_error(L, "cleave.jit.run_region: the module is for %s, the points live on %s", m->device->dev.name,
                      x->device->dev.name);
  cl_field *inside;
  cl_error err;
  if (cl_field_create(x->device, CL_U8, x->n, 1, &inside, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, inside);
  cl_region_args a = {x->data, x->n, x->k, dx, inside->data};
  if (cl_jit_launch(&x->device->dev, m->module->symbols[0], &a, x->n, "region", &err) != CL_OK)
    return cl_lua_fail(L, &err);
  cl_field_touch(inside);
  return 1;
}

/* cleave.jit.run_points(module, { input =, output =, tangent =, state = { fields } }): one
 * evaluation of a material-point law (kernels/common/material_point.h) at every row of the
 * fields, on the module's device; the fields have the module's precision. */
static int jit_run_points(lua_State *L) {
  const char *fn = "cleave.jit.run_points";
  const cl_lua_jit_module *m = cl_lua_check_jit_module(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  cl_field *in = cl_lua_req_field(L, 2, fn, "input"), *out = cl_lua_req_field(L, 2, fn, "output");
  cl_field *tangent = cl_lua_opt_field(L, 2, fn, "tangent");
  cl_mp_args a;
  memset(&a, 0, sizeof a);
  a.n = in->n, a.in = in->data, a.out = out->data, a.tangent = tangent ? tangent->data : NULL;
  cl_field *all[3 + CL_MP_STATE_MAX] = {in, out, tangent};
  int count = 3;
  if (lua_getfield(L, 2, "state") == LUA_TTABLE) {
    lua_Integer k = luaL_len(L, -1);
    if (k > CL_MP_STATE_MAX) return luaL_error(L, "%s: at most %d state fields", fn, CL_MP_STATE_MAX);
    for (lua_Integer i = 1; i <= k; i++) {
      lua_rawgeti(L, -1, i);
      cl_field *s = cl_lua_check_field(L, -1);
      if (s->k != 1) return luaL_error(L, "%s: state field %d must have one component", fn, (int)i);
      a.state[i - 1] = s->data;
      all[count++] = s;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  for (int k = 0; k < count; k++)
    if (all[k] && (all[k]->n != in->n || all[k]->dtype != in->dtype || !cl_device_same(&all[k]->device->dev, &m->device->dev)))
      return luaL_error(L, "%s: every field must have %I rows of %s on %s like 'input'", fn, (LUAI_UACINT)in->n,
                        cl_dtype_name(in->dtype), m->device->dev.name);
  cl_error err;
  if (cl_jit_launch(&m->device->dev, m->module->symbols[0], &a, a.n, m->what, &err) != CL_OK) return cl_lua_fail(L, &err);
  for (int k = 1; k < count; k++)
    if (all[k]) cl_field_touch(all[k]);
  return 0;
}

/* cleave.jit.embedded(path) -> the text of a kernel header or built-in law compiled into cleave */
static int jit_embedded(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  for (const cl_embedded_file *e = cl_jit_headers; e->name; e++)
    if (strcmp(e->name, path) == 0) {
      lua_pushlstring(L, e->source, e->size);
      return 1;
    }
  return luaL_error(L, "cleave.jit.embedded: no file '%s' is compiled in", path);
}

/* cleave.jit.clear_cache(): empties the disk cache (modules already loaded stay usable) */
static int jit_clear_cache(lua_State *L) {
  cl_error err;
  if (cl_jit_clear_cache(&err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

int cl_lua_open_jit(lua_State *L) {
  luaL_newmetatable(L, MODULE_MT);
  const luaL_Reg meta[] = {{"__gc", module_gc}, {"__index", module_index}, {"__tostring", module_tostring}, {NULL, NULL}};
  luaL_setfuncs(L, meta, 0);
  lua_pop(L, 1);
  const luaL_Reg jit[] = {{"compile", jit_compile}, {"clear_cache", jit_clear_cache}, {"embedded", jit_embedded},
                           {"run_region", jit_run_region}, {"run_points", jit_run_points},
                           {NULL, NULL}};
  luaL_newlib(L, jit);
  lua_setfield(L, -2, "jit");
  return 0;
}
