/* Entry points for embedding the cleave Lua module. */
#ifndef CLEAVE_LUA_H
#define CLEAVE_LUA_H

#include <lua.h>

#include "../runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The module loader: require "cleave" calls it; hosts may luaL_requiref it. */
int luaopen_cleave(lua_State *L);

/* A fresh Lua state with the standard libraries, lpeg (when linked in) and
 * cleave loaded; device NULL means $CLEAVE_DEVICE or "auto". Returns NULL
 * and fills err (code and message) on failure. */
lua_State *cl_lua_new_state(const char *device, cl_error *err);

/* Sets the global `arg`: arg[0] = name, arg[1..argc] = argv. */
void cl_lua_set_arg(lua_State *L, const char *name, int argc, const char *const *argv);

/* Sets the global `arg` (arg[0] = path), loads the script (path NULL: stdin)
 * and pushes it followed by its argc arguments; on failure pushes the
 * error message instead. Returns the luaL_loadfilex status. */
int cl_lua_load_script(lua_State *L, const char *path, int argc, const char *const *argv);

/* Ctrl-C handling for front ends: the first SIGINT asks a running
 * cleave.run to stop at the next step boundary, or interrupts plain Lua
 * code with an "interrupted" error. */
void cl_lua_interrupt_install(lua_State *L);
void cl_lua_interrupt_remove(void);

/* A message handler for lua_pcall that appends a traceback trimmed to the
 * user's own chunks (no [C] or cleave-internal frames). */
int cl_lua_traceback(lua_State *L);

#ifdef __cplusplus
}
#endif

#endif
