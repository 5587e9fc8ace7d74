/* cleave.comm: the ranks of the job (runtime/comm.h) seen from Lua. Under `mpirun -np N`
 * every rank runs the same script; these say which one it is and combine values over all. */
#include <stdlib.h>

#include "../runtime/comm.h"
#include "l_util.h"

/* cl.comm.rank() -> 0-based rank; cl.comm.size() -> number of ranks (1 without mpirun) */
static int comm_rank(lua_State *L) {
  lua_pushinteger(L, cl_comm_rank());
  return 1;
}

static int comm_size(lua_State *L) {
  lua_pushinteger(L, cl_comm_size());
  return 1;
}

/* cl.comm.local_rank(), cl.comm.local_size(): this rank among the ranks of its host, their number
 * (a rank takes GPU local_rank mod GPUs) */
static int comm_local_rank(lua_State *L) {
  lua_pushinteger(L, cl_comm_local_rank());
  return 1;
}

static int comm_local_size(lua_State *L) {
  lua_pushinteger(L, cl_comm_local_size());
  return 1;
}

static int comm_engine(lua_State *L) {
  lua_pushstring(L, cl_comm_engine());
  return 1;
}

/* cl.comm.barrier(): returns when every rank has called it */
static int comm_barrier(lua_State *L) {
  cl_error err;
  if (cl_comm_barrier(&err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

/* The numbers of argument 1 (a number, or an array of numbers) in a new buffer; *count of them. */
static double *numbers(lua_State *L, const char *fn, size_t *count) {
  *count = 1;
  if (lua_istable(L, 1)) *count = (size_t)luaL_len(L, 1);
  else if (lua_type(L, 1) != LUA_TNUMBER) luaL_error(L, "%s: give a number or an array of numbers (got %s)", fn, luaL_typename(L, 1));
  double *v = lua_newuserdatauv(L, (*count ? *count : 1) * sizeof *v, 0); /* freed with the stack */
  if (lua_type(L, 1) == LUA_TNUMBER) {
    v[0] = lua_tonumber(L, 1);
    return v;
  }
  for (size_t i = 0; i < *count; i++) {
    lua_rawgeti(L, 1, (lua_Integer)i + 1);
    if (!lua_isnumber(L, -1)) luaL_error(L, "%s: entry %d is not a number", fn, (int)i + 1);
    v[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  return v;
}

/* Pushes v[0..count) like argument 1 was given: a number, or an array. */
static void push_numbers(lua_State *L, const double *v, size_t count) {
  if (lua_type(L, 1) == LUA_TNUMBER) {
    lua_pushnumber(L, v[0]);
    return;
  }
  lua_createtable(L, (int)count, 0);
  for (size_t i = 0; i < count; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

static int reduce(lua_State *L, cl_comm_op op, const char *fn) {
  size_t count;
  double *v = numbers(L, fn, &count);
  cl_error err;
  if (cl_comm_allreduce(v, count, op, &err) != CL_OK) return cl_lua_fail(L, &err);
  push_numbers(L, v, count);
  return 1;
}

/* cl.comm.sum(x), min(x), max(x): x (a number or an array of numbers) combined over all ranks,
 * on every rank; every rank must call it, with as many numbers */
static int comm_sum(lua_State *L) { return reduce(L, CL_COMM_SUM, "cleave.comm.sum"); }
static int comm_min(lua_State *L) { return reduce(L, CL_COMM_MIN, "cleave.comm.min"); }
static int comm_max(lua_State *L) { return reduce(L, CL_COMM_MAX, "cleave.comm.max"); }

/* cl.comm.broadcast(x) -> rank 0's x (a number, or an array of as many numbers on every rank) */
static int comm_broadcast(lua_State *L) {
  size_t count;
  double *v = numbers(L, "cleave.comm.broadcast", &count);
  cl_error err;
  if (cl_comm_broadcast(v, count, 0, &err) != CL_OK) return cl_lua_fail(L, &err);
  push_numbers(L, v, count);
  return 1;
}

/* cl.comm.gather(x) -> on rank 0 an array with every rank's number x (rank r at r + 1); nil elsewhere */
static int comm_gather(lua_State *L) {
  double x = luaL_checknumber(L, 1);
  int size = cl_comm_size(), rank = cl_comm_rank();
  double *all = lua_newuserdatauv(L, (size_t)size * sizeof *all, 0);
  cl_error err;
  if (cl_comm_gather(&x, 1, all, 0, &err) != CL_OK) return cl_lua_fail(L, &err);
  if (rank != 0) return 0;
  lua_createtable(L, size, 0);
  for (int r = 0; r < size; r++) {
    lua_pushnumber(L, all[r]);
    lua_rawseti(L, -2, r + 1);
  }
  return 1;
}

void cl_lua_open_halo(lua_State *L); /* l_halo.c */

/* Registers cl.comm (and, through l_halo.c, cl.comm.partition and cl.stage.halo): after cl.stage. */
int cl_lua_open_comm(lua_State *L) {
  cl_error err;
  if (cl_comm_init(&err) != CL_OK) return cl_lua_fail(L, &err);
  const luaL_Reg comm[] = {{"rank", comm_rank}, {"size", comm_size}, {"local_rank", comm_local_rank},
                           {"local_size", comm_local_size}, {"engine", comm_engine},
                           {"barrier", comm_barrier}, {"sum", comm_sum}, {"min", comm_min},
                           {"max", comm_max}, {"gather", comm_gather}, {"broadcast", comm_broadcast}, {NULL, NULL}};
  luaL_newlib(L, comm);
  cl_lua_open_halo(L);
  lua_setfield(L, -2, "comm");
  return 0;
}
