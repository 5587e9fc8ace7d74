#include "l_util.h"

#include <math.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

static const char runtime_key = 'r';

cl_runtime *cl_lua_runtime(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &runtime_key);
  cl_runtime *rt = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (!rt) luaL_error(L, "cleave is not initialised in this Lua state (require \"cleave\" first)");
  return rt;
}

static int runtime_gc(lua_State *L) {
  cl_runtime *rt = lua_touserdata(L, 1);
  if (rt->device) cl_runtime_release(rt);
  return 0;
}

/* Creates the runtime userdata in the registry unless it exists. */
cl_status cl_lua_runtime_install(lua_State *L, const char *device, cl_error *err) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &runtime_key);
  int present = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (present) return CL_OK;
  cl_runtime *rt = lua_newuserdatauv(L, sizeof *rt, 0);
  memset(rt, 0, sizeof *rt);
  lua_newtable(L);
  lua_pushcfunction(L, runtime_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  if (cl_runtime_init(rt, device) != CL_OK) {
    const char *env = getenv("CLEAVE_DEVICE");
    cl_error e = rt->err;
    lua_pop(L, 1);
    if (!device && env && *env) return cl_error_set(err, e.code, "CLEAVE_DEVICE=%s: %s", env, e.msg);
    *err = e;
    return e.code;
  }
  lua_rawsetp(L, LUA_REGISTRYINDEX, &runtime_key);
  return CL_OK;
}

int cl_lua_fail(lua_State *L, const cl_error *err) {
  return luaL_error(L, "%s", err->msg[0] ? err->msg : cl_status_name(err->code));
}

/* Raises the error of cleave.check_args (lua/cleave/mesh.lua: the valid names, the nearest one,
 * the script position) for the unknown string key on top of the stack. */
static void unknown_arg(lua_State *L, const char *fname, const char *const *valid) {
  int key = lua_gettop(L);
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, "cleave");
  if (!lua_istable(L, -1) || lua_getfield(L, -1, "check_args") != LUA_TFUNCTION)
    luaL_error(L, "%s: unknown argument '%s'", fname, lua_tostring(L, key));
  lua_pushstring(L, fname);
  lua_newtable(L); /* the unknown key alone: positional entries are the caller's to check */
  lua_pushvalue(L, key);
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
  lua_newtable(L);
  for (const char *const *v = valid; *v; v++) {
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, *v);
  }
  lua_pushinteger(L, 3); /* check_args, this C function, then its caller */
  lua_call(L, 4, 0);
}

void cl_lua_check_args(lua_State *L, int idx, const char *fname, const char *const *valid) {
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx))
    luaL_error(L, "%s expects a table of named arguments, got %s", fname, luaL_typename(L, idx));
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) continue; /* positional entries are checked by the caller */
    const char *key = lua_tostring(L, -1);
    int ok = 0;
    for (const char *const *v = valid; *v; v++) ok |= strcmp(*v, key) == 0;
    if (!ok) unknown_arg(L, fname, valid);
  }
}

static int get_key(lua_State *L, int idx, const char *key) {
  return lua_getfield(L, idx, key);
}

static void wrong_type(lua_State *L, const char *fname, const char *key, const char *want) {
  luaL_error(L, "%s: argument '%s' must be %s, got %s", fname, key, want, luaL_typename(L, -1));
}

/* A number argument; finite: one the user gives must be finite. */
static lua_Number number_arg(lua_State *L, int idx, const char *fname, const char *key, lua_Number def, int finite) {
  int t = get_key(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return def;
  }
  if (t != LUA_TNUMBER) wrong_type(L, fname, key, "a number");
  lua_Number v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  if (finite && !isfinite(v)) luaL_error(L, "%s: argument '%s' must be a finite number, got %f", fname, key, v);
  return v;
}

lua_Number cl_lua_opt_number(lua_State *L, int idx, const char *fname, const char *key, lua_Number def) {
  return number_arg(L, idx, fname, key, def, 1);
}

lua_Number cl_lua_opt_value(lua_State *L, int idx, const char *fname, const char *key, lua_Number def) {
  return number_arg(L, idx, fname, key, def, 0);
}

lua_Number cl_lua_req_number(lua_State *L, int idx, const char *fname, const char *key) {
  if (get_key(L, idx, key) == LUA_TNIL) luaL_error(L, "%s: missing argument '%s' (a number)", fname, key);
  lua_pop(L, 1);
  return cl_lua_opt_number(L, idx, fname, key, 0);
}

lua_Integer cl_lua_opt_integer(lua_State *L, int idx, const char *fname, const char *key, lua_Integer def) {
  int t = get_key(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return def;
  }
  int ok = 0;
  lua_Integer v = t == LUA_TNUMBER ? lua_tointegerx(L, -1, &ok) : 0;
  if (!ok) wrong_type(L, fname, key, "an integer");
  lua_pop(L, 1);
  return v;
}

lua_Integer cl_lua_opt_integer_min(lua_State *L, int idx, const char *fname, const char *key, lua_Integer def,
                                   lua_Integer min) {
  lua_Integer v = cl_lua_opt_integer(L, idx, fname, key, def);
  if (v < min)
    luaL_error(L, "%s: argument '%s' must be an integer >= %I, got %I", fname, key, (LUAI_UACINT)min, (LUAI_UACINT)v);
  return v;
}

const char *cl_lua_opt_string(lua_State *L, int idx, const char *fname, const char *key, const char *def) {
  int t = get_key(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return def;
  }
  if (t != LUA_TSTRING) wrong_type(L, fname, key, "a string");
  const char *s = lua_tostring(L, -1);
  lua_pop(L, 1); /* the table keeps the string alive */
  return s;
}

int cl_lua_opt_boolean(lua_State *L, int idx, const char *fname, const char *key, int def) {
  int t = get_key(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return def;
  }
  if (t != LUA_TBOOLEAN) wrong_type(L, fname, key, "a boolean");
  int v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

cl_field *cl_lua_opt_field(lua_State *L, int idx, const char *fname, const char *key) {
  if (get_key(L, idx, key) == LUA_TNIL) {
    lua_pop(L, 1);
    return NULL;
  }
  cl_field *f = cl_lua_test_field(L, -1);
  if (!f) wrong_type(L, fname, key, "a field");
  lua_pop(L, 1); /* the table keeps the field alive */
  return f;
}

cl_field *cl_lua_req_field(lua_State *L, int idx, const char *fname, const char *key) {
  cl_field *f = cl_lua_opt_field(L, idx, fname, key);
  if (!f) luaL_error(L, "%s: missing argument '%s' (a field)", fname, key);
  return f;
}

void cl_lua_keep_args(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  if (lua_istable(L, idx)) {
    lua_newtable(L);
    for (lua_pushnil(L); lua_next(L, idx);) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_settable(L, -4);
    }
  } else {
    lua_pushvalue(L, idx);
  }
  lua_setiuservalue(L, -2, 1);
}

void cl_lua_stage_init(lua_State *L, cl_stage *stage, const char *name,
                       cl_status (*run)(void *, long, double, cl_error *), void *data, cl_device *device) {
  snprintf(stage->name, sizeof stage->name, "%s", name);
  stage->run = run;
  stage->data = data;
  stage->device = device;
  cl_lua_keep_args(L, 1);
}

int cl_lua_stage_run(lua_State *L) {
  cl_stage *s = cl_lua_test_stage(L, 1);
  if (!s) return luaL_error(L, "run: not a stage");
  cl_error err;
  if (s->run(s->data, (long)luaL_optinteger(L, 2, 0), luaL_optnumber(L, 3, 0), &err) != CL_OK)
    return cl_lua_fail(L, &err);
  lua_settop(L, 1);
  return 1;
}

void cl_lua_stage_metatable(lua_State *L, const char *name) {
  luaL_newmetatable(L, name);
  lua_pushboolean(L, 1);
  lua_setfield(L, -2, "__stage");
  lua_newtable(L);
  lua_pushcfunction(L, cl_lua_stage_run);
  lua_setfield(L, -2, "run");
  lua_setfield(L, -2, "__index");
}
