/* cleave.comm's partitions: cl.comm.partition (recursive coordinate bisection or METIS's graph
 * partition of any points, runtime/partition.c and partition_graph.c) and cl.comm.partition_grid,
 * grid_counts and grid_locate (a box grid's partition made by each rank from the grid alone,
 * runtime/partition_grid.c). Each makes a rank's halo plan (l_halo.h). */
#include <stdlib.h>
#include <string.h>

#include "../runtime/comm.h"
#include "l_halo.h"
#include "l_pd_bonds.h"

/* Host doubles of a field's entries (f32 or f64), in a userdata left on the stack. */
static double *host_doubles(lua_State *L, const char *fn, const char *key, cl_field *f) {
  const void *h;
  cl_error err;
  if (f->dtype != CL_F32 && f->dtype != CL_F64) luaL_error(L, "%s: '%s' must be an f32 or f64 field", fn, key);
  if (cl_field_host(f, &h, &err) != CL_OK) cl_lua_fail(L, &err);
  size_t count = f->n * (size_t)f->k;
  double *v = lua_newuserdatauv(L, (count ? count : 1) * sizeof *v, 0);
  for (size_t i = 0; i < count; i++) v[i] = cl_dtype_get(f->dtype, h, i);
  return v;
}

static const char *const partition_args[] = {"x", "weights", "reach", "parts", "rank", "method", "bonds", NULL};

/* The owners of a graph partition of a bond list's points: METIS on rank 0, broadcast (owner[] as
 * doubles, the first entry saying whether rank 0 succeeded), so that every rank holds the same. */
/* Host copies of a bond list's CSR arrays (userdata left on the stack). */
static void host_bonds(lua_State *L, const cl_lua_bonds *b, uint32_t **offsets, uint32_t **neighbors) {
  cl_device *d = &b->device->dev;
  *offsets = lua_newuserdatauv(L, (b->n + 1) * sizeof **offsets, 0);
  *neighbors = lua_newuserdatauv(L, (b->b.nbonds ? b->b.nbonds : 1) * sizeof **neighbors, 0);
  cl_error err;
  if (d->to_host(d, *offsets, b->b.offsets, (b->n + 1) * sizeof **offsets, &err) != CL_OK ||
      (b->b.nbonds && d->to_host(d, *neighbors, b->b.neighbors, b->b.nbonds * sizeof **neighbors, &err) != CL_OK))
    cl_lua_fail(L, &err);
}

static void graph_owners(lua_State *L, const char *fn, const cl_lua_bonds *b, int parts, int *owner, uint32_t **offsets,
                         uint32_t **neighbors) {
  size_t n = b->n;
  host_bonds(L, b, offsets, neighbors);
  cl_error err;
  double *shared = lua_newuserdatauv(L, (n + 1) * sizeof *shared, 0);
  cl_status st = CL_OK;
  if (cl_comm_rank() == 0) {
    st = cl_partition_graph(n, *offsets, *neighbors, parts, owner, &err);
    shared[0] = st == CL_OK;
    for (size_t i = 0; st == CL_OK && i < n; i++) shared[i + 1] = owner[i];
  }
  cl_error comm_err;
  if (cl_comm_broadcast(shared, n + 1, 0, &comm_err) != CL_OK) cl_lua_fail(L, &comm_err);
  if (st != CL_OK) cl_lua_fail(L, &err);
  if (shared[0] != 1) luaL_error(L, "%s: the graph partition failed on rank 0 (its message ends the job)", fn);
  for (size_t i = 0; i < n; i++) owner[i] = (int)shared[i + 1];
  lua_pop(L, 1);
}

/* cl.comm.graph_available() -> whether this cleave was built with METIS (method = "graph"). */
static int graph_available(lua_State *L) {
  lua_pushboolean(L, cl_partition_graph_available());
  return 1;
}

/* cl.comm.partition{ x = points (n x dim), weights = per-point field (optional), reach = number,
 *   parts = cl.comm.size(), rank = cl.comm.rank(), method = "rcb" | "graph", bonds = (graph) } -> plan:
 * the points this rank owns and the ghosts it keeps (plan.global: u32 field of their 0-based global
 * rows, owned first; plan.owned, plan.n, plan.peers). "rcb": recursive coordinate bisection by
 * weight; "graph": METIS on the bond graph of `bonds` (a list of the same points,
 * cleave.pd.bonds{ layout = "list" }), each point weighing its bonds. Ghosts: with `bonds` exactly
 * the bond neighbours of the rank's points, without (rcb only) the points within `reach` of the box
 * of the rank's points. Every rank must give the same. */
static int partition(lua_State *L) {
  const char *fn = "cleave.comm.partition";
  cl_lua_check_args(L, 1, fn, partition_args);
  cl_field *x = cl_lua_req_field(L, 1, fn, "x");
  cl_field *w = cl_lua_opt_field(L, 1, fn, "weights");
  double reach = cl_lua_req_number(L, 1, fn, "reach");
  int parts = (int)cl_lua_opt_integer_min(L, 1, fn, "parts", cl_comm_size(), 1);
  int rank = (int)cl_lua_opt_integer_min(L, 1, fn, "rank", cl_comm_rank(), 0);
  const char *method = cl_lua_opt_string(L, 1, fn, "method", "rcb");
  int graph = strcmp(method, "graph") == 0;
  if (!graph && strcmp(method, "rcb") != 0) luaL_error(L, "%s: 'method' must be \"rcb\" or \"graph\"", fn);
  if (rank >= parts) luaL_error(L, "%s: 'rank' %d must be below 'parts' (%d)", fn, rank, parts);
  if (!(reach >= 0)) luaL_error(L, "%s: 'reach' must be a distance >= 0", fn);
  if (x->k < 1 || x->k > 3) luaL_error(L, "%s: 'x' must hold 1 to 3 coordinates per row", fn);
  if (w && (w->n != x->n || w->k != 1)) luaL_error(L, "%s: 'weights' must be one value per point (%I rows)", fn, (LUAI_UACINT)x->n);
  const cl_lua_bonds *b = NULL;
  if (graph && w) luaL_error(L, "%s: 'weights' go with method = \"rcb\" (the graph weighs each point by its bonds)", fn);
  if (lua_getfield(L, 1, "bonds") != LUA_TNIL) {
    b = cl_lua_check_bonds(L, -1);
    if (b->lattice || b->n != x->n)
      luaL_error(L, "%s: 'bonds' must be a bond list (layout = \"list\") of the %I points of 'x'", fn, (LUAI_UACINT)x->n);
  } else if (graph) {
    luaL_error(L, "%s: method = \"graph\" needs 'bonds' (cleave.pd.bonds{ x =, delta =, layout = \"list\" })", fn);
  }
  const double *xs = host_doubles(L, fn, "x", x);
  const double *ws = w ? host_doubles(L, fn, "weights", w) : NULL;
  int *owner = lua_newuserdatauv(L, (x->n ? x->n : 1) * sizeof *owner, 0);
  uint32_t *offsets = NULL, *neighbors = NULL;
  cl_error err;
  if (graph) graph_owners(L, fn, b, parts, owner, &offsets, &neighbors);
  else if (cl_partition_rcb(x->n, x->k, xs, ws, parts, owner, &err) != CL_OK) cl_lua_fail(L, &err);
  else if (b) host_bonds(L, b, &offsets, &neighbors);
  cl_lua_plan *p = cl_lua_plan_new(L);
  cl_status st = b ? cl_halo_plan_graph(x->n, offsets, neighbors, owner, parts, rank, &p->plan, &err)
                   : cl_halo_plan_make(x->n, x->k, xs, owner, parts, rank, reach, &p->plan, &err);
  if (st != CL_OK) cl_lua_fail(L, &err);
  cl_lua_plan_finish(L, -1, x->device);
  return 1;
}

/* The i-th number (1-based) of the list t[key] of a grid box. */
static lua_Number table_number(lua_State *L, int t, const char *fn, const char *key, int i) {
  if (lua_getfield(L, t, key) != LUA_TTABLE) luaL_error(L, "%s: 'grid.%s' must be a list of 3 numbers (shape:grid_box{...} gives it)", fn, key);
  if (lua_geti(L, -1, i) != LUA_TNUMBER)
    luaL_error(L, "%s: 'grid.%s' must be a list of 3 numbers (shape:grid_box{...} gives it)", fn, key);
  lua_Number v = lua_tonumber(L, -1);
  lua_pop(L, 2);
  return v;
}

/* The grid box and partition arguments shared by cl.comm.partition_grid, grid_counts and grid_locate. */
typedef struct grid_args {
  cl_grid_box g;
  cl_dtype real;
  double cell;
  int reach, parts, rank;
} grid_args;

static void read_grid_args(lua_State *L, const char *fn, grid_args *a) {
  if (lua_getfield(L, 1, "grid") != LUA_TTABLE) luaL_error(L, "%s: 'grid' must be the table of shape:grid_box{...}", fn);
  int grid = lua_gettop(L);
  cl_grid_box *g = &a->g;
  g->dx = cl_lua_req_number(L, 1, fn, "dx");
  g->dim = (int)cl_lua_opt_integer_min(L, 1, fn, "dim", 2, 2);
  if (g->dim > 3) luaL_error(L, "%s: 'dim' must be 2 or 3", fn);
  for (int k = 0; k < 3; k++) {
    g->lo[k] = table_number(L, grid, fn, "origin", k + 1);
    lua_Number first = table_number(L, grid, fn, "first", k + 1), count = table_number(L, grid, fn, "count", k + 1);
    if (!(first >= 0) || !(count >= 1)) luaL_error(L, "%s: 'grid' holds no points along axis %d", fn, k + 1);
    g->first[k] = (size_t)first, g->count[k] = k < g->dim ? (size_t)count : 1;
  }
  lua_pop(L, 1);
  const char *precision = cl_lua_opt_string(L, 1, fn, "precision", "f64");
  if (strcmp(precision, "f32") != 0 && strcmp(precision, "f64") != 0)
    luaL_error(L, "%s: 'precision' must be \"f32\" or \"f64\"", fn);
  a->real = precision[1] == '3' ? CL_F32 : CL_F64;
  a->cell = cl_lua_opt_number(L, 1, fn, "cell", 0);
  a->reach = (int)cl_lua_opt_integer_min(L, 1, fn, "reach", 0, 0);
  a->parts = (int)cl_lua_opt_integer_min(L, 1, fn, "parts", cl_comm_size(), 1);
  a->rank = (int)cl_lua_opt_integer_min(L, 1, fn, "rank", cl_comm_rank(), 0);
  if (a->rank >= a->parts) luaL_error(L, "%s: 'rank' %d must be below 'parts' (%d)", fn, a->rank, a->parts);
  if (!(g->dx > 0) || !(a->cell >= 0)) luaL_error(L, "%s: 'dx' must be positive and 'cell' >= 0", fn);
}

static const char *const partition_grid_args[] = {"grid", "dx", "dim", "precision", "cell", "reach", "parts", "rank", NULL};

/* cl.comm.partition_grid{ grid = shape:grid_box{...}, dx =, dim =, precision = "f64", cell = Morton
 *   cell side (0: grid order), reach = ghost layers (grid steps), parts = cl.comm.size(), rank =
 *   cl.comm.rank() } -> plan, x: the partition of a box grid's points and this rank's plan, built
 * from the grid alone (no rank makes the global points), and the coordinates of the local rows
 * (precision) on the current device. Global indices are the one-rank rows (runtime/partition.h). */
static int partition_grid(lua_State *L) {
  const char *fn = "cleave.comm.partition_grid";
  cl_lua_check_args(L, 1, fn, partition_grid_args);
  grid_args a;
  read_grid_args(L, fn, &a);
  cl_runtime *rt = cl_lua_runtime(L);
  cl_lua_plan *p = cl_lua_plan_new(L);
  int at = lua_gettop(L);
  void *x;
  cl_error err;
  if (cl_halo_plan_grid(&a.g, a.real, a.cell, a.reach, a.parts, a.rank, &p->plan, &x, &err) != CL_OK) cl_lua_fail(L, &err);
  cl_field *fx;
  cl_status st = cl_field_create(rt->device, a.real, p->plan.local, a.g.dim, &fx, &err);
  if (st == CL_OK) {
    cl_lua_push_field(L, fx);
    if (p->plan.local) st = cl_field_upload(fx, x, &err);
  }
  free(x);
  if (st != CL_OK) cl_lua_fail(L, &err);
  cl_lua_plan_finish(L, at, rt->device);
  return 2;
}

static const char *const grid_counts_args[] = {"grid", "dx", "dim", "reach", "parts", "rank", NULL};

/* cl.comm.grid_counts{ grid =, dx =, dim =, reach =, parts =, rank = } -> owned, ghosts: the points
 * cl.comm.partition_grid would give the rank, from the grid alone (nothing allocated per point), so
 * that a body too large for its ranks is refused before it is made. */
static int grid_counts(lua_State *L) {
  const char *fn = "cleave.comm.grid_counts";
  cl_lua_check_args(L, 1, fn, grid_counts_args);
  grid_args a;
  read_grid_args(L, fn, &a);
  size_t owned, ghosts;
  cl_error err;
  if (cl_grid_part_counts(&a.g, a.reach, a.parts, a.rank, &owned, &ghosts, &err) != CL_OK) return cl_lua_fail(L, &err);
  lua_pushinteger(L, (lua_Integer)owned);
  lua_pushinteger(L, (lua_Integer)ghosts);
  return 2;
}

static const char *const grid_locate_args[] = {"grid", "dx", "dim", "precision", "cell", "reach", "parts", "index", NULL};

/* cl.comm.grid_locate{ grid =, dx =, dim =, precision =, cell =, reach =, parts =, index = { i, j [, k] } }
 *   -> global, owner, ghost_of: where the point of 0-based grid indices index (from grid.first) goes in
 * cl.comm.partition_grid's partition: its 0-based global index (an integer, 64-bit), the rank owning it
 * and the list of ranks keeping it as a ghost, from the grid alone (for boxes too large to make). */
static int grid_locate(lua_State *L) {
  const char *fn = "cleave.comm.grid_locate";
  cl_lua_check_args(L, 1, fn, grid_locate_args);
  grid_args a;
  read_grid_args(L, fn, &a);
  if (lua_getfield(L, 1, "index") != LUA_TTABLE) luaL_error(L, "%s: 'index' must be the point's grid indices { i, j [, k] }", fn);
  size_t u[3] = {0, 0, 0};
  for (int k = 0; k < a.g.dim; k++) {
    lua_geti(L, -1, k + 1);
    int exact;
    lua_Integer v = lua_tointegerx(L, -1, &exact);
    if (!exact || v < 0) luaL_error(L, "%s: 'index[%d]' must be an integer >= 0", fn, k + 1);
    u[k] = (size_t)v;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  int *ghost_of = lua_newuserdatauv(L, (size_t)a.parts * sizeof *ghost_of, 0), owner, nghost;
  uint64_t global;
  cl_error err;
  if (cl_grid_point_locate(&a.g, a.real, a.cell, a.reach, a.parts, u, &global, &owner, ghost_of, &nghost, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  lua_pushinteger(L, (lua_Integer)global);
  lua_pushinteger(L, owner);
  lua_createtable(L, nghost, 0);
  for (int k = 0; k < nghost; k++) lua_pushinteger(L, ghost_of[k]), lua_rawseti(L, -2, k + 1);
  return 3;
}

/* Adds the partitions to the table on top of the stack (cl.comm). */
void cl_lua_open_partition(lua_State *L) {
  const luaL_Reg fns[] = {{"partition", partition},     {"partition_grid", partition_grid}, {"grid_counts", grid_counts},
                          {"grid_locate", grid_locate}, {"graph_available", graph_available}, {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
}
