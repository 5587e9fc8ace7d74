/* Creating a Lua state with cleave ready, Ctrl-C, and trimmed tracebacks. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <lualib.h>

#include "../runtime/comm.h"
#include "../runtime/pipeline.h"
#include "cleave_lua.h"
#include "l_util.h"

/* lpeg, when the program links it in (the cleave executable and C hosts do;
 * a stock lua5.4 finds the system's lpeg through require instead). */
int luaopen_lpeg(lua_State *L) __attribute__((weak));

static int open_cleave_protected(lua_State *L) {
  const char *device = lua_touserdata(L, 1);
  cl_error *err = lua_touserdata(L, 2);
  if (cl_lua_runtime_install(L, device, err) != CL_OK) return 0;
  if (luaopen_lpeg) {
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_lpeg);
    lua_setfield(L, -2, "lpeg");
    lua_pop(L, 1);
  }
  luaL_requiref(L, "cleave", luaopen_cleave, 0);
  return 0;
}

lua_State *cl_lua_new_state(const char *device, cl_error *err) {
  lua_State *L = luaL_newstate();
  if (!L) {
    cl_error_set(err, CL_ERR_OOM, "cannot create a Lua state (out of host memory)");
    return NULL;
  }
  cl_error_clear(err);
  luaL_openlibs(L);
  lua_pushcfunction(L, open_cleave_protected);
  lua_pushlightuserdata(L, (void *)device);
  lua_pushlightuserdata(L, err);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) cl_error_set(err, CL_ERR_SCRIPT, "%s", lua_tostring(L, -1));
  if (err->code != CL_OK) {
    lua_close(L);
    return NULL;
  }
  return L;
}

void cl_lua_set_arg(lua_State *L, const char *name, int argc, const char *const *argv) {
  lua_createtable(L, argc, 1);
  lua_pushstring(L, name);
  lua_rawseti(L, -2, 0);
  for (int i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setglobal(L, "arg");
}

int cl_lua_load_script(lua_State *L, const char *path, int argc, const char *const *argv) {
  cl_lua_set_arg(L, path ? path : "-", argc, argv);
  int rc = luaL_loadfilex(L, path, "t");
  if (rc == LUA_OK)
    for (int i = 0; i < argc; i++) lua_pushstring(L, argv[i]);
  return rc;
}

static lua_State *interrupt_state;
static struct sigaction previous_sigint, previous_sigterm;
static int sigterm_taken;

static volatile sig_atomic_t interrupt_forced;

/* Runs in Lua code after Ctrl-C. Inside a cleave.run the loop stops by itself
 * at the next step boundary, so a Lua callback is left alone unless Ctrl-C
 * came twice (a callback that never returns). */
static void interrupt_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  if (cl_run_active() && !interrupt_forced) return;
  lua_sethook(L, NULL, 0, 0);
  int forced = interrupt_forced;
  interrupt_forced = 0;
  if (cl_interrupt_take() || forced) luaL_error(L, "interrupted");
}

static void on_sigint(int sig) {
  (void)sig;
  if (cl_interrupt_flag) interrupt_forced = 1;
  cl_interrupt_request();
  if (interrupt_state)
    lua_sethook(interrupt_state, interrupt_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* SIGTERM in a job of several ranks: a stop at a step boundary while a run steps (Ctrl-C of mpirun
 * reaches the ranks as SIGTERM, SIGKILL following after odls_base_sigkill_timeout), so that the
 * ranks stop at a step they agree on and save; anywhere else, or a second time, it ends the
 * process as usual (MPI_Abort of another rank sends it: this rank must not wait for SIGKILL). */
static void on_sigterm(int sig) {
  if (cl_run_active() && !cl_interrupt_flag) {
    on_sigint(sig);
    return;
  }
  sigaction(SIGTERM, &previous_sigterm, NULL);
  raise(sig); /* delivered when this handler returns */
}

void cl_lua_interrupt_install(lua_State *L) {
  interrupt_state = L;
  cl_interrupt_take();
  interrupt_forced = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &previous_sigint);
  sa.sa_handler = on_sigterm;
  sigterm_taken = cl_comm_size() > 1 && sigaction(SIGTERM, &sa, &previous_sigterm) == 0;
  cl_run_sigint_owned(1);
}

void cl_lua_interrupt_remove(void) {
  sigaction(SIGINT, &previous_sigint, NULL);
  if (sigterm_taken) sigaction(SIGTERM, &previous_sigterm, NULL);
  sigterm_taken = 0;
  cl_run_sigint_owned(0);
  if (interrupt_state) lua_sethook(interrupt_state, NULL, 0, 0);
  interrupt_state = NULL;
}

/* A frame belongs to the user unless it is C or one of cleave's own chunks. */
static int user_frame(const char *line) {
  return strstr(line, "[C]") == NULL && strstr(line, "[cleave]/") == NULL;
}

int cl_lua_traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = luaL_tolstring(L, 1, NULL);
  luaL_traceback(L, L, NULL, 1);
  const char *tb = lua_tostring(L, -1);
  luaL_Buffer frames;
  luaL_buffinit(L, &frames);
  int count = 0;
  char last[512] = "";
  for (const char *line = strchr(tb, '\n'); line; line = strchr(line, '\n')) {
    line++;
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    snprintf(last, sizeof last, "%.*s", (int)(len < sizeof last ? len : sizeof last - 1), line);
    if (user_frame(last) && strstr(last, "in ?") == NULL && strstr(last, "(...tail calls...)") == NULL) {
      luaL_addchar(&frames, '\n');
      luaL_addstring(&frames, last);
      count++;
    }
  }
  luaL_pushresult(&frames);
  /* one frame whose position the message already starts with adds nothing */
  const char *only = lua_tostring(L, -1) + 1;
  const char *colon = count == 1 ? strstr(only, ": in ") : NULL;
  int redundant = colon && strncmp(msg + strspn(msg, " \t"), only + strspn(only, " \t"),
                                   (size_t)(colon - only - strspn(only, " \t"))) == 0;
  if (count == 0 || redundant) lua_pushstring(L, msg);
  else lua_pushfstring(L, "%s\nstack traceback (your script):%s", msg, lua_tostring(L, -1));
  return 1;
}
