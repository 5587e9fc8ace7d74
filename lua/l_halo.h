/* The halo plan's Lua face (cleave.halo_plan), shared by the partition bindings (l_partition.c) and
 * the halo stage and row gathers (l_halo.c). */
#ifndef CL_LUA_HALO_H
#define CL_LUA_HALO_H

#include "../runtime/partition.h"
#include "l_util.h"

typedef struct cl_lua_plan {
  cl_halo_plan plan;
  cl_field *send_rows; /* plan.send_rows on the plan's device (the userdata's user value 1) */
} cl_lua_plan;

/* Pushes an empty plan userdata (its __gc frees the plan) for a partition to fill. */
cl_lua_plan *cl_lua_plan_new(lua_State *L);
/* Puts the filled plan's send rows on `device` (at idx on the stack). */
void cl_lua_plan_finish(lua_State *L, int idx, cl_device_ref *device);
/* cl.comm.partition, partition_grid, grid_counts, grid_locate, graph_available into the table on top. */
void cl_lua_open_partition(lua_State *L);

#endif
