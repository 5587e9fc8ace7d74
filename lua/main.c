/* The cleave command: run a script, evaluate code, describe the machine, or
 * start the REPL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "../runtime/comm.h"
#include "../runtime/pipeline.h"
#include "cleave_lua.h"
#include "repl.h"

static const char usage[] =
    "usage: cleave [--device auto|cpu|cuda] [command]\n"
    "\n"
    "commands:\n"
    "  run FILE.lua [args...]   run a script (it sees its arguments in `arg`)\n"
    "  -e CODE [args...]        run a string of Lua code (it sees its arguments in `arg`)\n"
    "  info                     version, backends, GPU, CUDA/NVRTC versions, JIT cache\n"
    "  --help, -h               this text\n"
    "  --version                the version\n"
    "  (none)                   interactive prompt (REPL); reads a script from stdin when\n"
    "                           stdin is not a terminal\n"
    "\n"
    "environment:\n"
    "  CLEAVE_DEVICE            default device when --device is not given (auto, cpu, cuda)\n"
    "  CLEAVE_CUDA_SYNC=1       wait after every kernel so a GPU fault names its kernel\n"
    "  CLEAVE_HISTORY           REPL history file (default ~/.cleave_history)\n"
    "  XDG_CACHE_HOME           parent of the JIT cache folder (default ~/.cache)\n";

/* Reports a script's error. In a job of several ranks it names the rank and ends every rank
 * (the others may be waiting for this one in a collective and would hang). */
static int report(const char *msg) {
  if (cl_comm_size() > 1 && cl_run_stopped_together()) { /* Ctrl-C: every rank stopped at one step, saved, ends */
    if (cl_comm_rank() == 0) fprintf(stderr, "cleave: %d ranks: %s\n", cl_comm_size(), msg);
    return 1;
  }
  if (cl_comm_size() > 1) {
    fprintf(stderr, "cleave: rank %d of %d: %s\n", cl_comm_rank(), cl_comm_size(), msg);
    fflush(stderr);
    cl_comm_abort(1);
  }
  fprintf(stderr, "cleave: %s\n", msg);
  return 1;
}

/* Runs the chunk on top of the stack; prints a trimmed traceback on error. */
static int run_chunk(lua_State *L, int nargs) {
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, cl_lua_traceback);
  lua_insert(L, base);
  cl_lua_interrupt_install(L);
  int rc = lua_pcall(L, nargs, 0, base);
  cl_lua_interrupt_remove();
  lua_remove(L, base);
  if (rc != LUA_OK) {
    report(lua_tostring(L, -1));
    lua_pop(L, 1);
    return 1;
  }
  return 0;
}

static int load_failed(lua_State *L) {
  report(lua_tostring(L, -1));
  lua_pop(L, 1);
  return 1;
}

static int run_file(lua_State *L, const char *path, int argc, char **argv) {
  if (cl_lua_load_script(L, path, argc, (const char *const *)argv) != LUA_OK) return load_failed(L);
  return run_chunk(L, argc);
}

/* `cleave -e CODE args...`: the code sees its arguments in `arg` (arg[0] = "-e") and as `...`. */
static int run_string(lua_State *L, const char *code, int argc, char **argv) {
  cl_lua_set_arg(L, "-e", argc, (const char *const *)argv);
  if (luaL_loadbufferx(L, code, strlen(code), "=(command line)", "t") != LUA_OK) return load_failed(L);
  for (int i = 0; i < argc; i++) lua_pushstring(L, argv[i]);
  return run_chunk(L, argc);
}

static int print_nothing(lua_State *L) {
  (void)L;
  return 0;
}

/* `cleave info` is written in Lua (lua/cleave/describe.lua) on top of cleave.info(). */
static int print_info(lua_State *L) {
  return run_string(L, "print(require 'cleave'.describe())", 0, NULL);
}

int main(int argc, char **argv) {
  const char *device = NULL;
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      device = argv[++i];
    } else if (strcmp(argv[i], "--device") == 0) {
      fprintf(stderr, "cleave: '--device' needs a value (auto, cpu or cuda)\n");
      return 2;
    } else if (strncmp(argv[i], "--device=", 9) == 0) {
      device = argv[i] + 9;
    } else if (strcmp(argv[i], "--help") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(argv[i], "--version") == 0) {
      printf("cleave %s\n", CLEAVE_VERSION);
      return 0;
    } else {
      fprintf(stderr, "cleave: unknown option '%s'\n\n%s", argv[i], usage);
      return 2;
    }
  }
  if (i < argc && strcmp(argv[i], "-h") == 0) {
    fputs(usage, stdout);
    return 0;
  }
  cl_error err;
  if (cl_comm_init(&err) != CL_OK) return report(err.msg);
  lua_State *L = cl_lua_new_state(device, &err);
  if (!L) return report(err.msg);
  /* cleave.warn's messages (Lua's warn) reach the user's terminal, and like print only from rank 0:
   * every rank runs the same script */
  lua_warning(L, cl_comm_rank() == 0 ? "@on" : "@off", 0);
  if (cl_comm_rank() > 0) {
    lua_pushcfunction(L, print_nothing);
    lua_setglobal(L, "print");
  }
  int rc;
  if (i == argc) {
    rc = isatty(STDIN_FILENO) ? cl_repl(L) : run_file(L, NULL, 0, NULL);
  } else if (strcmp(argv[i], "run") == 0) {
    if (i + 1 >= argc) {
      fprintf(stderr, "cleave: 'run' needs a script file\n\n%s", usage);
      rc = 2;
    } else {
      const char *path = strcmp(argv[i + 1], "-") == 0 ? NULL : argv[i + 1]; /* "-": stdin */
      rc = run_file(L, path, argc - i - 2, argv + i + 2);
    }
  } else if (strcmp(argv[i], "-e") == 0) {
    if (i + 1 >= argc) {
      fprintf(stderr, "cleave: '-e' needs code\n");
      rc = 2;
    } else {
      rc = run_string(L, argv[i + 1], argc - i - 2, argv + i + 2);
    }
  } else if (strcmp(argv[i], "info") == 0) {
    rc = print_info(L);
  } else {
    fprintf(stderr, "cleave: unknown command '%s'\n\n%s", argv[i], usage);
    rc = 2;
  }
  lua_close(L);
  return rc;
}
