/* luaopen_cleave: the cleave module for the executable, for a stock lua5.4
 * (require "cleave") and for C hosts. The pure-Lua parts (the files in lua/cleave/)
 * are compiled in, so the module needs no install path. */
#include "cleave_lua.h"
#include "embedded.h"
#include "l_jit.h"
#include "l_util.h"

/* Runs each embedded chunk with the module table as its argument. */
static void load_embedded(lua_State *L, int module) {
  for (const cl_embedded_file *e = cl_embedded_lua_files; e->name; e++) {
    if (luaL_loadbufferx(L, e->source, e->size, e->name, "t") != LUA_OK) lua_error(L);
    lua_pushvalue(L, module);
    lua_call(L, 1, 0);
  }
}

int luaopen_cleave(lua_State *L) {
  cl_error err;
  if (cl_lua_runtime_install(L, NULL, &err) != CL_OK) return cl_lua_fail(L, &err);
  lua_newtable(L);
  int module = lua_gettop(L);
  cl_lua_open_device(L);
  cl_lua_open_field(L);
  cl_lua_open_pipeline(L);
  cl_lua_open_comm(L);
  cl_lua_open_io(L);
  cl_lua_open_geom(L);
  cl_lua_open_pd(L);
  cl_lua_open_czm(L);
  cl_lua_open_dda(L);
  cl_lua_open_fpm(L);
  cl_lua_open_fe(L);
  cl_lua_open_jit(L);
  /* visible to the embedded chunks through require as well */
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushvalue(L, module);
  lua_setfield(L, -2, "cleave");
  lua_pop(L, 1);
  load_embedded(L, module);
  lua_settop(L, module);
  return 1;
}
