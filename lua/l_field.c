/* Fields in Lua: userdata with 1-based indexing, #, reductions on the
 * device, fill, copies and a readable tostring. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/dispatch.h"
#include "l_util.h"

cl_field *cl_lua_test_field(lua_State *L, int idx) {
  cl_field **p = luaL_testudata(L, idx, CL_FIELD_MT);
  return p ? *p : NULL;
}

cl_field *cl_lua_check_field(lua_State *L, int idx) {
  cl_field **p = luaL_checkudata(L, idx, CL_FIELD_MT);
  if (!*p) luaL_error(L, "field has been released");
  return *p;
}

void cl_lua_push_field(lua_State *L, cl_field *f) {
  cl_field **p = lua_newuserdatauv(L, sizeof *p, 0);
  *p = f;
  luaL_setmetatable(L, CL_FIELD_MT);
}

static void fail_if(lua_State *L, cl_status s, cl_error *err) {
  if (s != CL_OK) cl_lua_fail(L, err);
}

/* Index argument 1..n -> 0-based row. */
static size_t check_row(lua_State *L, cl_field *f, int idx) {
  int ok;
  lua_Integer i = lua_tointegerx(L, idx, &ok);
  if (!ok) luaL_error(L, "field index must be an integer, got %s", luaL_typename(L, idx));
  if (i < 1 || (size_t)i > f->n)
    luaL_error(L, "field index %I out of range (1..%I)", (LUAI_UACINT)i, (LUAI_UACINT)f->n);
  return (size_t)(i - 1);
}

static void check_fits(lua_State *L, cl_field *f, double v) {
  if (!cl_dtype_fits(f->dtype, v))
    luaL_error(L, "value %f does not fit in a %s field", v, cl_dtype_name(f->dtype));
}

static void push_row(lua_State *L, cl_field *f, size_t row) {
  double v[64];
  cl_error err;
  if (f->k > 64) luaL_error(L, "rows of more than 64 components cannot be read one by one");
  fail_if(L, cl_field_get(f, row, v, &err), &err);
  if (f->k == 1) {
    lua_pushnumber(L, v[0]);
    return;
  }
  lua_createtable(L, f->k, 0);
  for (int c = 0; c < f->k; c++) {
    lua_pushnumber(L, v[c]);
    lua_rawseti(L, -2, c + 1);
  }
}

/* Reads a number or a table of k numbers at idx into v. */
static void check_row_values(lua_State *L, cl_field *f, int idx, double *v) {
  if (f->k == 1 && lua_type(L, idx) == LUA_TNUMBER) {
    v[0] = lua_tonumber(L, idx);
    check_fits(L, f, v[0]);
    return;
  }
  if (!lua_istable(L, idx))
    luaL_error(L, "field row needs %s (got %s)", f->k == 1 ? "a number" : "a table of k numbers",
               luaL_typename(L, idx));
  if ((lua_Integer)luaL_len(L, idx) != f->k)
    luaL_error(L, "field row needs a table of k = %d numbers (got %I)", f->k, (LUAI_UACINT)luaL_len(L, idx));
  for (int c = 0; c < f->k; c++) {
    lua_rawgeti(L, idx, c + 1);
    if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "field row component %d is not a number", c + 1);
    v[c] = lua_tonumber(L, -1);
    check_fits(L, f, v[c]);
    lua_pop(L, 1);
  }
}

static int component_arg(lua_State *L, cl_field *f, int idx) {
  if (lua_isnoneornil(L, idx)) return -1;
  lua_Integer c = luaL_checkinteger(L, idx);
  if (c < 1 || c > f->k) luaL_error(L, "component %I out of range (1..%d)", (LUAI_UACINT)c, f->k);
  return (int)c - 1;
}

static int reduce(lua_State *L, cl_reduce_op op) {
  cl_field *f = cl_lua_check_field(L, 1);
  int c = component_arg(L, f, 2);
  double out;
  cl_error err;
  fail_if(L, cl_field_reduce(f, op, c, &out, &err), &err);
  lua_pushnumber(L, out);
  return 1;
}

static int field_min(lua_State *L) { return reduce(L, CL_REDUCE_MIN); }
static int field_max(lua_State *L) { return reduce(L, CL_REDUCE_MAX); }
static int field_sum(lua_State *L) { return reduce(L, CL_REDUCE_SUM); }
static int field_norm(lua_State *L) { return reduce(L, CL_REDUCE_NORM2); }

/* f:first_nonfinite() -> nil when every entry is finite, else the row and component (1-based)
 * of the first NaN or infinite one (a device reduction: the field is not copied). */
static int field_first_nonfinite(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1);
  int found, component;
  size_t row;
  cl_error err;
  fail_if(L, cl_field_first_nonfinite(f, &found, &row, &component, &err), &err);
  if (!found) return 0;
  lua_pushinteger(L, (lua_Integer)row + 1);
  lua_pushinteger(L, component + 1);
  return 2;
}

/* f:dot(g) -> the sum over every entry of f times g (same dtype f32/f64, shape and device) */
static int field_dot(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1), *g = cl_lua_check_field(L, 2);
  if ((f->dtype != CL_F32 && f->dtype != CL_F64) || f->dtype != g->dtype || f->n != g->n || f->k != g->k ||
      !cl_device_same(&f->device->dev, &g->device->dev))
    return luaL_error(L, "field:dot: the fields must be f32 or f64 of one dtype, shape and device");
  double out;
  cl_error err;
  fail_if(L, cl_k_dot(&f->device->dev, f->dtype, cl_field_count(f), f->data, g->data, &out, &err), &err);
  lua_pushnumber(L, out);
  return 1;
}

static int field_fill(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1);
  double v = luaL_checknumber(L, 2);
  check_fits(L, f, v);
  cl_error err;
  fail_if(L, cl_field_fill(f, v, &err), &err);
  lua_settop(L, 1);
  return 1;
}

/* f:assign(function(i) return v1, ..., vk end): sets every row from a Lua
 * function of the 1-based row index, in one upload (no table of n rows). */
static int field_assign(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  void *host = lua_newuserdatauv(L, cl_field_bytes(f) ? cl_field_bytes(f) : 1, 0);
  for (size_t i = 0; i < f->n; i++) {
    lua_pushvalue(L, 2);
    lua_pushinteger(L, (lua_Integer)i + 1);
    lua_call(L, 1, f->k);
    for (int c = 0; c < f->k; c++) {
      int idx = -f->k + c;
      if (lua_type(L, idx) != LUA_TNUMBER)
        return luaL_error(L, "assign: the function returned %s for row %I component %d (needs %d numbers)",
                          luaL_typename(L, idx), (LUAI_UACINT)(i + 1), c + 1, f->k);
      double v = lua_tonumber(L, idx);
      check_fits(L, f, v);
      cl_dtype_put(f->dtype, host, (size_t)c * f->n + i, v);
    }
    lua_pop(L, f->k);
  }
  cl_error err;
  fail_if(L, cl_field_upload(f, host, &err), &err);
  lua_settop(L, 1);
  return 1;
}

static int field_to_table(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1);
  const void *h;
  cl_error err;
  fail_if(L, cl_field_host(f, &h, &err), &err);
  lua_createtable(L, (int)f->n, 0);
  for (size_t i = 0; i < f->n; i++) {
    if (f->k == 1) {
      lua_pushnumber(L, cl_dtype_get(f->dtype, h, i));
    } else {
      lua_createtable(L, f->k, 0);
      for (int c = 0; c < f->k; c++) {
        lua_pushnumber(L, cl_dtype_get(f->dtype, h, (size_t)c * f->n + i));
        lua_rawseti(L, -2, c + 1);
      }
    }
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/* f:copy() on the same device; f:copy("cpu"|"cuda") onto another. */
static int field_copy(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1);
  cl_runtime *rt = cl_lua_runtime(L);
  cl_device_ref *target = f->device, *opened = NULL;
  cl_error err;
  if (!lua_isnoneornil(L, 2)) {
    const char *name = luaL_checkstring(L, 2);
    if (strcmp(name, rt->device->dev.name) == 0) {
      target = rt->device;
    } else {
      opened = calloc(1, sizeof *opened);
      if (!opened) return luaL_error(L, "out of host memory");
      if (cl_device_open(&opened->dev, name, &err) != CL_OK) {
        free(opened);
        return cl_lua_fail(L, &err);
      }
      opened->refs = 1;
      target = opened;
    }
  }
  cl_field *g;
  cl_status s = cl_field_clone(f, target, &g, &err);
  cl_device_ref_release(opened);
  fail_if(L, s, &err);
  cl_lua_push_field(L, g);
  return 1;
}

/* f:convert(dtype) -> a new field of that dtype on the same device (values converted on the host) */
static int field_convert(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1);
  const char *name = luaL_checkstring(L, 2);
  int t = cl_dtype_parse(name);
  if (t < 0) return luaL_error(L, "convert: unknown dtype '%s' (use f32, f64, i32, u32 or u8)", name);
  const void *h;
  cl_error err;
  fail_if(L, cl_field_host(f, &h, &err), &err);
  cl_field *g;
  fail_if(L, cl_field_create(f->device, (cl_dtype)t, f->n, f->k, &g, &err), &err);
  cl_lua_push_field(L, g);
  size_t count = cl_field_count(f);
  void *out = lua_newuserdatauv(L, cl_field_bytes(g) ? cl_field_bytes(g) : 1, 0);
  for (size_t i = 0; i < count; i++) {
    double v = cl_dtype_get(f->dtype, h, i);
    check_fits(L, g, v);
    cl_dtype_put(g->dtype, out, i, v);
  }
  fail_if(L, cl_field_upload(g, out, &err), &err);
  lua_pop(L, 1);
  return 1;
}

static void format_bytes(double bytes, char *buf, size_t len) {
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, u++;
  snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

static int field_tostring(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1);
  char mem[32];
  format_bytes((double)cl_field_bytes(f), mem, sizeof mem);
  lua_pushfstring(L, "field<%s, %I x %d, %s, %s>", cl_dtype_name(f->dtype), (LUAI_UACINT)f->n, f->k,
                  f->device->dev.name, mem);
  return 1;
}

static int field_len(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)cl_lua_check_field(L, 1)->n);
  return 1;
}

static int field_gc(lua_State *L) {
  cl_field **p = luaL_checkudata(L, 1, CL_FIELD_MT);
  cl_field_destroy(*p);
  *p = NULL;
  return 0;
}

static const luaL_Reg field_methods[] = {
    {"min", field_min},   {"max", field_max},           {"sum", field_sum},
    {"norm", field_norm}, {"first_nonfinite", field_first_nonfinite}, {"dot", field_dot},  {"fill", field_fill},         {"to_table", field_to_table},
    {"assign", field_assign},     {"convert", field_convert},
    {"copy", field_copy}, {NULL, NULL}};

static int field_index(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1);
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *key = lua_tostring(L, 2);
    if (strcmp(key, "n") == 0) lua_pushinteger(L, (lua_Integer)f->n);
    else if (strcmp(key, "k") == 0) lua_pushinteger(L, f->k);
    else if (strcmp(key, "dtype") == 0) lua_pushstring(L, cl_dtype_name(f->dtype));
    else if (strcmp(key, "device") == 0) lua_pushstring(L, f->device->dev.name);
    else if (strcmp(key, "bytes") == 0) lua_pushinteger(L, (lua_Integer)cl_field_bytes(f));
    else {
      luaL_getmetatable(L, CL_FIELD_MT);
      lua_getfield(L, -1, "methods");
      if (lua_getfield(L, -1, key) == LUA_TNIL)
        return luaL_error(L, "field has no method or property '%s' (methods: min, max, sum, norm, "
                             "first_nonfinite, fill, assign, convert, to_table, copy; properties: n, k, dtype, device, bytes)", key);
    }
    return 1;
  }
  push_row(L, f, check_row(L, f, 2));
  return 1;
}

static int field_newindex(lua_State *L) {
  cl_field *f = cl_lua_check_field(L, 1);
  if (lua_type(L, 2) == LUA_TSTRING) return luaL_error(L, "field property '%s' is read-only", lua_tostring(L, 2));
  size_t row = check_row(L, f, 2);
  double v[64];
  if (f->k > 64) return luaL_error(L, "rows of more than 64 components cannot be written one by one");
  check_row_values(L, f, 3, v);
  cl_error err;
  fail_if(L, cl_field_set(f, row, v, &err), &err);
  return 0;
}

static const char *const field_args[] = {"n", "k", "dtype", "value", "data", NULL};

/* cleave.field{ n = , k = 1, dtype = "f64", value = 0 } or { data = {...}, k =, dtype = } */
static int field_new(lua_State *L) {
  cl_lua_check_args(L, 1, "cleave.field", field_args);
  cl_runtime *rt = cl_lua_runtime(L);
  const char *dname = cl_lua_opt_string(L, 1, "cleave.field", "dtype", "f64");
  int t = cl_dtype_parse(dname);
  if (t < 0) return luaL_error(L, "cleave.field: unknown dtype '%s' (use f32, f64, i32, u32 or u8)", dname);
  lua_Integer k = cl_lua_opt_integer(L, 1, "cleave.field", "k", 1);
  if (k < 1 || k > 64) return luaL_error(L, "cleave.field: argument 'k' must be 1..64 (got %I)", (LUAI_UACINT)k);
  int has_data = lua_getfield(L, 1, "data") != LUA_TNIL;
  if (has_data && !lua_istable(L, -1))
    return luaL_error(L, "cleave.field: argument 'data' must be a table, got %s", luaL_typename(L, -1));
  lua_Integer n = has_data ? (lua_Integer)luaL_len(L, -1) : -1;
  lua_pop(L, 1);
  int has_n = lua_getfield(L, 1, "n") != LUA_TNIL;
  lua_pop(L, 1);
  if (!has_data && !has_n) return luaL_error(L, "cleave.field: missing argument 'n' (number of rows) or 'data'");
  lua_Integer n_arg = cl_lua_opt_integer_min(L, 1, "cleave.field", "n", n, 0);
  if (has_data && n_arg != n)
    return luaL_error(L, "cleave.field: 'n' is %I but 'data' has %I rows", (LUAI_UACINT)n_arg, (LUAI_UACINT)n);
  cl_field *f;
  cl_error err;
  if (cl_field_create(rt->device, (cl_dtype)t, (size_t)n_arg, (int)k, &f, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  cl_lua_push_field(L, f); /* owned by Lua from here: errors below free it via __gc */
  lua_Number value = cl_lua_opt_value(L, 1, "cleave.field", "value", 0); /* data: NaN and inf allowed */
  if (has_data && value != 0) return luaL_error(L, "cleave.field: give 'data' or 'value', not both");
  check_fits(L, f, value);
  if (value != 0) fail_if(L, cl_field_fill(f, value, &err), &err);
  if (has_data) {
    void *host = lua_newuserdatauv(L, cl_field_bytes(f) ? cl_field_bytes(f) : 1, 0);
    lua_getfield(L, 1, "data");
    double v[64];
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, i);
      check_row_values(L, f, lua_gettop(L), v);
      for (int c = 0; c < f->k; c++) cl_dtype_put(f->dtype, host, (size_t)c * f->n + (size_t)(i - 1), v[c]);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    fail_if(L, cl_field_upload(f, host, &err), &err);
    lua_pop(L, 1);
  }
  return 1;
}

int cl_lua_open_field(lua_State *L) {
  luaL_newmetatable(L, CL_FIELD_MT);
  luaL_newlib(L, field_methods);
  lua_setfield(L, -2, "methods");
  const luaL_Reg meta[] = {{"__index", field_index},     {"__newindex", field_newindex},
                           {"__len", field_len},         {"__tostring", field_tostring},
                           {"__gc", field_gc},
                           {NULL, NULL}};
  luaL_setfuncs(L, meta, 0);
  lua_pop(L, 1);
  lua_pushcfunction(L, field_new);
  lua_setfield(L, -2, "field");
  return 0;
}
