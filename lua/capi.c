/* The host C API (runtime/cleave.h), over a Lua state. */
#include <stdlib.h>
#include <string.h>

#include "../runtime/cleave.h"
#include "cleave_lua.h"
#include "l_util.h"

struct cl_context {
  lua_State *L;
  cl_error err;
  int exit_called; /* the script in progress called os.exit */
};

/* os.exit in a host's context: a script must not end its host's process,
 * so it raises an error that stops the script and the call returns CL_ERR_EXIT. */
static int refuse_exit(lua_State *L) {
  cl_context *ctx = lua_touserdata(L, lua_upvalueindex(1));
  int code = lua_isboolean(L, 1) ? (lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE)
                                 : (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
  ctx->exit_called = 1;
  return luaL_error(L, "os.exit(%d): the script stopped here; a script run through the C API does not end "
                    "its host's process", code);
}

cl_status cl_context_create(cl_context **out, const char *device, char *msg, size_t msglen) {
  cl_error reason;
  *out = NULL;
  cl_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    if (msg) snprintf(msg, msglen, "out of host memory");
    return CL_ERR_OOM;
  }
  ctx->L = cl_lua_new_state(device, &reason);
  if (!ctx->L) {
    if (msg) snprintf(msg, msglen, "%s", reason.msg);
    free(ctx);
    return reason.code;
  }
  lua_getglobal(ctx->L, "os");
  lua_pushlightuserdata(ctx->L, ctx);
  lua_pushcclosure(ctx->L, refuse_exit, 1);
  lua_setfield(ctx->L, -2, "exit");
  lua_pop(ctx->L, 1);
  *out = ctx;
  return CL_OK;
}

void cl_context_destroy(cl_context *ctx) {
  if (!ctx) return;
  lua_close(ctx->L);
  free(ctx);
}

const char *cl_last_error(const cl_context *ctx) { return ctx->err.msg; }

void cl_request_stop(void) { cl_interrupt_request(); }

/* Runs the function on top of the stack with nargs arguments under the traceback handler. */
static cl_status protected_call(cl_context *ctx, int nargs, int nresults) {
  lua_State *L = ctx->L;
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, cl_lua_traceback);
  lua_insert(L, base);
  unsigned long interrupts = cl_interrupt_count();
  int rc = lua_pcall(L, nargs, nresults, base);
  lua_remove(L, base);
  /* a request this call did not use (it ran no step loop after it) ends with the call */
  cl_interrupt_flag = 0;
  int exit_called = ctx->exit_called;
  ctx->exit_called = 0;
  if (rc == LUA_OK) {
    cl_error_clear(&ctx->err);
    return CL_OK;
  }
  const char *m = lua_tostring(L, -1);
  cl_status s = exit_called ? CL_ERR_EXIT
                : cl_interrupt_count() != interrupts ? CL_ERR_INTERRUPTED : CL_ERR_SCRIPT;
  cl_error_set(&ctx->err, s, "%s", m ? m : "(error object is not a string)");
  lua_pop(L, 1);
  return s;
}

cl_status cl_context_set_device(cl_context *ctx, const char *device) {
  cl_runtime *rt = cl_lua_runtime(ctx->L);
  if (cl_runtime_set_device(rt, device) != CL_OK) {
    ctx->err = rt->err;
    return rt->err.code;
  }
  return CL_OK;
}

const char *cl_context_device(cl_context *ctx) { return cl_lua_runtime(ctx->L)->device->dev.name; }

cl_status cl_run_file(cl_context *ctx, const char *path, int argc, const char *const *argv) {
  lua_State *L = ctx->L;
  if (cl_lua_load_script(L, path, argc, argv) != LUA_OK) {
    cl_status s = cl_error_set(&ctx->err, strstr(lua_tostring(L, -1), "cannot open") ? CL_ERR_IO : CL_ERR_SCRIPT,
                               "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return s;
  }
  return protected_call(ctx, argc, 0);
}

cl_status cl_run_string(cl_context *ctx, const char *code) {
  lua_State *L = ctx->L;
  if (luaL_loadbufferx(L, code, strlen(code), "=(string)", "t") != LUA_OK) {
    cl_error_set(&ctx->err, CL_ERR_SCRIPT, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return CL_ERR_SCRIPT;
  }
  return protected_call(ctx, 0, 0);
}

/* Evaluates "return <expr>" and leaves the field it names on the stack. */
static cl_status push_named_field(cl_context *ctx, const char *expr, cl_field **f) {
  lua_State *L = ctx->L;
  lua_pushfstring(L, "return %s", expr);
  int rc = luaL_loadbufferx(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=(field name)", "t");
  lua_remove(L, -2);
  if (rc != LUA_OK) {
    lua_pop(L, 1);
    return cl_error_set(&ctx->err, CL_ERR_ARG, "'%s' is not a valid field name", expr);
  }
  CL_TRY(protected_call(ctx, 0, 1));
  *f = cl_lua_test_field(L, -1);
  if (!*f) {
    const char *type = luaL_typename(L, -1);
    lua_pop(L, 1);
    return cl_error_set(&ctx->err, CL_ERR_ARG, "'%s' is %s, not a field", expr, type);
  }
  return CL_OK;
}

cl_status cl_field_shape(cl_context *ctx, const char *expr, size_t *rows, int *components, const char **dtype) {
  cl_field *f;
  CL_TRY(push_named_field(ctx, expr, &f));
  *rows = f->n;
  *components = f->k;
  *dtype = cl_dtype_name(f->dtype);
  lua_pop(ctx->L, 1);
  return CL_OK;
}

cl_status cl_field_read(cl_context *ctx, const char *expr, double *out, size_t capacity) {
  cl_field *f;
  CL_TRY(push_named_field(ctx, expr, &f));
  cl_status s = CL_OK;
  const void *h;
  if (cl_field_count(f) > capacity)
    s = cl_error_set(&ctx->err, CL_ERR_ARG, "field '%s' has %zu values but the buffer holds %zu", expr,
                     cl_field_count(f), capacity);
  else if ((s = cl_field_host(f, &h, &ctx->err)) == CL_OK)
    for (size_t i = 0; i < cl_field_count(f); i++) out[i] = cl_dtype_get(f->dtype, h, i);
  lua_pop(ctx->L, 1);
  return s;
}
