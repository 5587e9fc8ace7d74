/* cleave.comm.partition and cleave.stage.halo: a partition of points over the ranks with each
 * rank's halo plan (runtime/partition.h), and the stage that refreshes a field's ghost rows
 * from their owners. The stage packs the rows each peer needs on the device (a gather), copies
 * them to host buffers, exchanges them through MPI (runtime/comm.h) and copies what arrives into
 * the ghost rows. Debian's Open MPI is not CUDA-aware, hence the host buffers; an exchange between
 * GPUs (NCCL) would replace the three middle steps of run_halo and nothing else. */
#include <stdlib.h>
#include <string.h>

#include "../kernels/pd/neighbors.h"
#include "../runtime/comm.h"
#include "../runtime/halo_nccl.h"
#include "../runtime/partition.h"
#include "../runtime/progress.h"
#include "l_pd_bonds.h"
#include "l_util.h"

#define PLAN_MT "cleave.halo_plan"
#define HALO_STAGE_MT "cleave.stage.halo"

typedef struct plan_ud {
  cl_halo_plan plan;
  cl_field *send_rows; /* plan.send_rows on the device of x (the plan's user value 1) */
} plan_ud;

static plan_ud *check_plan(lua_State *L, int idx) { return luaL_checkudata(L, idx, PLAN_MT); }

static int plan_gc(lua_State *L) {
  cl_halo_plan_free(&check_plan(L, 1)->plan);
  return 0;
}

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
  plan_ud *p = lua_newuserdatauv(L, sizeof *p, 1);
  memset(p, 0, sizeof *p);
  luaL_setmetatable(L, PLAN_MT);
  cl_status st = b ? cl_halo_plan_graph(x->n, offsets, neighbors, owner, parts, rank, &p->plan, &err)
                   : cl_halo_plan_make(x->n, x->k, xs, owner, parts, rank, reach, &p->plan, &err);
  if (st != CL_OK) cl_lua_fail(L, &err);
  if (cl_field_create(x->device, CL_U32, p->plan.nsend ? p->plan.nsend : 1, 1, &p->send_rows, &err) != CL_OK)
    cl_lua_fail(L, &err);
  cl_lua_push_field(L, p->send_rows);
  if (p->plan.nsend && cl_field_upload(p->send_rows, p->plan.send_rows, &err) != CL_OK) cl_lua_fail(L, &err);
  lua_setiuservalue(L, -2, 1);
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
  plan_ud *p = lua_newuserdatauv(L, sizeof *p, 1);
  memset(p, 0, sizeof *p);
  luaL_setmetatable(L, PLAN_MT);
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
  if (cl_field_create(rt->device, CL_U32, p->plan.nsend ? p->plan.nsend : 1, 1, &p->send_rows, &err) != CL_OK)
    cl_lua_fail(L, &err);
  cl_lua_push_field(L, p->send_rows);
  if (p->plan.nsend && cl_field_upload(p->send_rows, p->plan.send_rows, &err) != CL_OK) cl_lua_fail(L, &err);
  lua_setiuservalue(L, at, 1);
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

/* plan.owned, plan.interior (owned rows first that read no ghost), plan.n (owned + ghosts), plan.ghosts, plan.rank, plan.parts, plan.sent (rows sent per
 * exchange), plan.points (all ranks' points), plan.global (u32 field, new at each read; bodies below 2^32
 * points), plan.peers ({ rank, receive, send }...) */
static int plan_index(lua_State *L) {
  plan_ud *p = check_plan(L, 1);
  const cl_halo_plan *h = &p->plan;
  const char *key = luaL_checkstring(L, 2);
  if (strcmp(key, "owned") == 0) lua_pushinteger(L, (lua_Integer)h->owned);
  else if (strcmp(key, "n") == 0) lua_pushinteger(L, (lua_Integer)h->local);
  else if (strcmp(key, "interior") == 0) lua_pushinteger(L, (lua_Integer)h->interior);
  else if (strcmp(key, "ghosts") == 0) lua_pushinteger(L, (lua_Integer)(h->local - h->owned));
  else if (strcmp(key, "rank") == 0) lua_pushinteger(L, h->rank);
  else if (strcmp(key, "parts") == 0) lua_pushinteger(L, h->parts);
  else if (strcmp(key, "sent") == 0) lua_pushinteger(L, (lua_Integer)h->nsend);
  else if (strcmp(key, "points") == 0) lua_pushinteger(L, (lua_Integer)h->points);
  else if (strcmp(key, "global") == 0) {
    /* fields have no 64-bit integer type: u32 while the body's indices fit (cl.comm.take_rows and
     * gather_rows work with the plan's 64-bit indices at any size) */
    if (h->points > UINT32_MAX)
      return luaL_error(L, "plan.global: the body's %I points have global indices above 2^32 - 1, which a u32 field "
                        "cannot hold: use cl.comm.take_rows / gather_rows with the plan", (LUAI_UACINT)h->points);
    cl_field *f;
    cl_error err;
    if (cl_field_create(p->send_rows->device, CL_U32, h->local, 1, &f, &err) != CL_OK) return cl_lua_fail(L, &err);
    cl_lua_push_field(L, f);
    uint32_t *ids = lua_newuserdatauv(L, (h->local ? h->local : 1) * sizeof *ids, 0);
    for (size_t i = 0; i < h->local; i++) ids[i] = (uint32_t)h->global[i];
    if (h->local && cl_field_upload(f, ids, &err) != CL_OK) return cl_lua_fail(L, &err);
    lua_pop(L, 1);
  } else if (strcmp(key, "peers") == 0) {
    lua_createtable(L, h->npeers, 0);
    for (int k = 0; k < h->npeers; k++) {
      lua_createtable(L, 0, 3);
      lua_pushinteger(L, h->peers[k].rank), lua_setfield(L, -2, "rank");
      lua_pushinteger(L, (lua_Integer)h->peers[k].recv_count), lua_setfield(L, -2, "receive");
      lua_pushinteger(L, (lua_Integer)h->peers[k].send_count), lua_setfield(L, -2, "send");
      lua_rawseti(L, -2, k + 1);
    }
  } else return luaL_error(L, "halo plan has no field '%s' (owned, interior, n, ghosts, points, rank, parts, sent, global, peers)", key);
  return 1;
}

static int plan_tostring(lua_State *L) {
  const cl_halo_plan *h = &check_plan(L, 1)->plan;
  lua_pushfstring(L, "halo_plan<rank %d of %d: %I owned, %I ghosts, %d peers>", h->rank, h->parts,
                  (LUAI_UACINT)h->owned, (LUAI_UACINT)(h->local - h->owned), h->npeers);
  return 1;
}

/* ---- gathering a body's rows to rank 0 ---------------------------------------- */

/* cl.comm.gather_rows(field, plan [, k]) -> on rank 0 a new field of every point of the partition
 * (plan's global rows) x k, each row from the rank owning it; nil on the others. The field holds a
 * row per local point, read as local points x k entries (k defaults to its components: a state of
 * k words per point stored as one column is read as k per point). Every rank must call it. */
static int gather_rows(lua_State *L) {
  const char *fn = "cleave.comm.gather_rows";
  cl_field *f = cl_lua_check_field(L, 1);
  plan_ud *p = check_plan(L, 2);
  const cl_halo_plan *h = &p->plan;
  lua_Integer k = luaL_optinteger(L, 3, f->k);
  size_t entries = f->n * (size_t)f->k;
  if (k < 1 || entries % (size_t)k || entries / (size_t)k != h->local)
    return luaL_error(L, "%s: the field has %I entries, not %I local points x %I", fn, (LUAI_UACINT)entries,
                      (LUAI_UACINT)h->local, (LUAI_UACINT)k);
  size_t elem = cl_dtype_size(f->dtype), owned = h->owned, row = (size_t)k * elem;
  const char *host;
  cl_error err;
  if (cl_field_host(f, (const void **)&host, &err) != CL_OK) return cl_lua_fail(L, &err);
  char *send = lua_newuserdatauv(L, owned * row + 1, 0);
  for (lua_Integer c = 0; c < k; c++) memcpy(send + (size_t)c * owned * elem, host + (size_t)c * h->local * elem, owned * elem);
  int size = cl_comm_size(), rank = cl_comm_rank();
  double mine = (double)owned, *rows = lua_newuserdatauv(L, (size_t)size * sizeof *rows, 0);
  if (cl_comm_gather(&mine, 1, rows, 0, &err) != CL_OK) return cl_lua_fail(L, &err);
  size_t *id_bytes = NULL, *value_bytes = NULL;
  uint64_t *ids = NULL;
  char *values = NULL;
  if (rank == 0) {
    id_bytes = lua_newuserdatauv(L, 2 * (size_t)size * sizeof *id_bytes, 0), value_bytes = id_bytes + size;
    for (int r = 0; r < size; r++) id_bytes[r] = (size_t)rows[r] * sizeof *ids, value_bytes[r] = (size_t)rows[r] * row;
    ids = lua_newuserdatauv(L, h->points * sizeof *ids + 1, 0);
    values = lua_newuserdatauv(L, h->points * row + 1, 0);
  }
  if (cl_comm_gatherv(h->global, owned * sizeof *ids, ids, id_bytes, 0, &err) != CL_OK ||
      cl_comm_gatherv(send, owned * row, values, value_bytes, 0, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  if (rank != 0) return 0;
  char *out = lua_newuserdatauv(L, h->points * row + 1, 0);
  size_t at = 0; /* rows of the ranks before r */
  for (int r = 0; r < size; r++) {
    size_t n = (size_t)rows[r];
    const char *from = values + at * row;
    for (size_t i = 0; i < n; i++)
      for (lua_Integer c = 0; c < k; c++)
        memcpy(out + ((size_t)c * h->points + ids[at + i]) * elem, from + ((size_t)c * n + i) * elem, elem);
    at += n;
  }
  cl_field *g;
  if (cl_field_create(f->device, f->dtype, h->points, (int)k, &g, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, g);
  if (h->points && cl_field_upload(g, out, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

/* cl.comm.take_rows(field, plan [, k]) -> new field of the plan's local rows x k, local row i from row
 * global[i] of a field of the whole body (plan.points rows, read as points x k entries as
 * gather_rows writes them: a checkpoint's arrays). No communication: the reverse of gather_rows. */
static int take_rows(lua_State *L) {
  const char *fn = "cleave.comm.take_rows";
  cl_field *f = cl_lua_check_field(L, 1);
  const cl_halo_plan *h = &check_plan(L, 2)->plan;
  lua_Integer k = luaL_optinteger(L, 3, f->k);
  size_t entries = f->n * (size_t)f->k;
  if (k < 1 || entries % (size_t)k || entries / (size_t)k != h->points)
    return luaL_error(L, "%s: the field has %I entries, not the body's %I points x %I", fn, (LUAI_UACINT)entries,
                      (LUAI_UACINT)h->points, (LUAI_UACINT)k);
  size_t elem = cl_dtype_size(f->dtype);
  const char *host;
  cl_error err;
  if (cl_field_host(f, (const void **)&host, &err) != CL_OK) return cl_lua_fail(L, &err);
  char *out = lua_newuserdatauv(L, h->local * (size_t)k * elem + 1, 0);
  for (lua_Integer c = 0; c < k; c++)
    for (size_t i = 0; i < h->local; i++)
      memcpy(out + ((size_t)c * h->local + i) * elem, host + ((size_t)c * h->points + h->global[i]) * elem, elem);
  cl_field *g;
  if (cl_field_create(f->device, f->dtype, h->local, (int)k, &g, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, g);
  if (h->local && cl_field_upload(g, out, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

/* ---- the stage ------------------------------------------------------------- */

typedef struct halo_stage {
  cl_stage stage;
  cl_field *field;
  plan_ud *plan;
  cl_field *packed;          /* the rows to send, peer by peer, each peer's k components in turn */
  cl_field *arrived;         /* NCCL: the rows received, on the device (the layout of `in`) */
  int nccl;                  /* the exchange goes GPU to GPU through NCCL, else through MPI and `out`, `in` */
  unsigned char *out, *in;   /* host buffers of what is sent and received (same layout): pinned on cuda */
  void **send, **recv;       /* per peer: pointers into out and in */
  size_t *send_bytes, *recv_bytes;
  int *peers;
  cl_comm_pending *pending;  /* MPI: the exchange started and not yet finished */
} halo_stage;

/* The halo in two halves (halo_start, halo_finish), so that the rows that read no ghost can be
 * computed in between: the first gathers and sends (MPI: posts the messages and returns; NCCL:
 * queues the exchange on its own stream), the second waits (MPI: on the host; NCCL: the kernels'
 * stream waits for NCCL's) and fills the ghost rows. */
static cl_status halo_start(void *data, long step, double t, cl_error *err) {
  halo_stage *s = data;
  (void)step, (void)t;
  const cl_halo_plan *h = &s->plan->plan;
  cl_field *f = s->field;
  cl_device *d = &f->device->dev;
  size_t elem = cl_dtype_size(f->dtype), k = (size_t)f->k;
  char *packed = s->packed->data;
  const uint32_t *rows = s->plan->send_rows->data;
  for (int p = 0; p < h->npeers; p++) {
    const cl_halo_peer *peer = &h->peers[p];
    if (peer->send_count)
      CL_TRY(cl_pd_gather_rows_trusted(d, f->dtype, f->n, peer->send_count, f->k, f->data, rows + peer->send_offset,
                                       packed + peer->send_offset * k * elem, err)); /* rows < owned: the plan's */
  }
  if (s->nccl) return cl_nccl_exchange_start(h->npeers, s->peers, s->send, s->send_bytes, s->recv, s->recv_bytes, err);
  if (h->nsend) CL_TRY(d->to_host(d, s->out, packed, h->nsend * k * elem, err));
  if (s->pending) return cl_error_set(err, CL_ERR_ARG, "halo: started twice without halo_finish in between");
  return cl_comm_exchange_start(h->npeers, s->peers, s->send, s->send_bytes, s->recv, s->recv_bytes, &s->pending, err);
}

static cl_status halo_finish(void *data, long step, double t, cl_error *err) {
  halo_stage *s = data;
  (void)step, (void)t;
  const cl_halo_plan *h = &s->plan->plan;
  cl_field *f = s->field;
  cl_device *d = &f->device->dev;
  size_t elem = cl_dtype_size(f->dtype), k = (size_t)f->k;
  CL_TRY(s->nccl ? cl_nccl_exchange_finish(err) : cl_comm_exchange_finish(&s->pending, err));
  /* a peer's rows land in the ghost block it owns: rows owned + recv_offset.., per component */
  for (int p = 0; p < h->npeers; p++) {
    const cl_halo_peer *peer = &h->peers[p];
    for (size_t c = 0; c < k && peer->recv_count; c++) {
      char *dst = (char *)f->data + (c * f->n + h->owned + peer->recv_offset) * elem;
      size_t at = (peer->recv_offset * k + c * peer->recv_count) * elem, bytes = peer->recv_count * elem;
      if (s->nccl) CL_TRY(d->copy(d, dst, (char *)s->arrived->data + at, bytes, err));
      else CL_TRY(d->to_device(d, dst, s->in + at, bytes, err));
    }
  }
  cl_field_touch(f);
  return CL_OK;
}

static cl_status run_halo(void *data, long step, double t, cl_error *err) {
  CL_TRY(halo_start(data, step, t, err));
  return halo_finish(data, step, t, err);
}

static int halo_gc(lua_State *L) {
  halo_stage *s = luaL_checkudata(L, 1, HALO_STAGE_MT);
  cl_error ignored;
  cl_comm_exchange_finish(&s->pending, &ignored); /* no message left in flight into freed buffers */
  if (s->field) {
    cl_device *d = &s->field->device->dev; /* the field, kept by the stage's arguments, outlives it */
    d->host_release(d, s->out), d->host_release(d, s->in);
  }
  s->out = s->in = NULL;
  return 0;
}

static void *stage_buffer(lua_State *L, int stage, const char *name, size_t bytes) {
  void *b = lua_newuserdatauv(L, bytes ? bytes : 1, 0);
  lua_getiuservalue(L, stage, 1); /* the kept arguments: the buffer lives as long as the stage */
  lua_insert(L, -2);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
  return b;
}

static const char *const halo_args[] = {"field", "plan", "transport", NULL};

/* Whether the stage's exchange goes through NCCL (collective: every rank decides alike). "auto":
 * when the field is on a GPU and every rank has its own; "nccl": that or an error saying why. */
static int choose_nccl(lua_State *L, const char *fn, const char *transport, const cl_field *f) {
  int want = strcmp(transport, "nccl") == 0;
  if (!want && strcmp(transport, "auto") != 0) {
    if (strcmp(transport, "mpi") == 0) return 0;
    luaL_error(L, "%s: argument 'transport' must be \"auto\", \"mpi\" or \"nccl\", got \"%s\"", fn, transport);
  }
  if (want && f->device->dev.kind != CL_BACKEND_CUDA)
    luaL_error(L, "%s: transport = \"nccl\" moves GPU memory, but 'field' lives on %s: use cl.device \"cuda\" "
                  "or transport = \"mpi\"", fn, f->device->dev.name);
  if (cl_comm_size() == 1 || f->device->dev.kind != CL_BACKEND_CUDA) return 0; /* no exchange, or not on a GPU */
  cl_error why;
  if (cl_nccl_usable(cl_device_cuda_count(), &why)) return 1;
  if (want) luaL_error(L, "%s: transport = \"nccl\": %s", fn, why.msg);
  return 0;
}

/* cl.stage.halo{ field = f (a row per local point: plan.n rows), plan = cl.comm.partition{...},
 *   transport = "auto" | "mpi" | "nccl" }: copies each ghost row of f from the rank that owns the
 * point. Every rank runs it together. NCCL moves GPU memory directly ("auto": when the field is on
 * a GPU and every rank has its own); MPI goes through (pinned) host buffers. */
static int stage_halo(lua_State *L) {
  const char *fn = "cleave.stage.halo";
  cl_lua_check_args(L, 1, fn, halo_args);
  cl_field *f = cl_lua_req_field(L, 1, fn, "field");
  lua_getfield(L, 1, "plan");
  plan_ud *plan = check_plan(L, -1);
  lua_pop(L, 1);
  const cl_halo_plan *h = &plan->plan;
  if (f->n != h->local)
    luaL_error(L, "%s: 'field' has %I rows, the plan %I local points (owned + ghosts): give a field of the "
                  "partitioned body", fn, (LUAI_UACINT)f->n, (LUAI_UACINT)h->local);
  if (!cl_device_same(&f->device->dev, &plan->send_rows->device->dev))
    luaL_error(L, "%s: 'field' lives on %s, the plan on %s", fn, f->device->dev.name, plan->send_rows->device->dev.name);
  int nccl = choose_nccl(L, fn, cl_lua_opt_string(L, 1, fn, "transport", "auto"), f);
  halo_stage *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, HALO_STAGE_MT);
  int stage = lua_gettop(L);
  cl_lua_stage_init(L, &s->stage, "halo", run_halo, s, &f->device->dev);
  s->field = f, s->plan = plan;
  size_t row = cl_dtype_size(f->dtype) * (size_t)f->k, ghosts = h->local - h->owned;
  cl_error err;
  if (cl_field_create(f->device, CL_U8, h->nsend > 0 ? h->nsend * row : 1, 1, &s->packed, &err) != CL_OK)
    cl_lua_fail(L, &err);
  cl_lua_push_field(L, s->packed);
  lua_getiuservalue(L, stage, 1);
  lua_insert(L, -2);
  lua_setfield(L, -2, "packed");
  lua_pop(L, 1);
  cl_device *d = &f->device->dev;
  s->nccl = nccl;
  if (nccl) { /* received on the device, then copied into the ghost rows */
    if (cl_field_create(f->device, CL_U8, ghosts > 0 ? ghosts * row : 1, 1, &s->arrived, &err) != CL_OK) cl_lua_fail(L, &err);
    cl_lua_push_field(L, s->arrived);
    lua_getiuservalue(L, stage, 1);
    lua_insert(L, -2);
    lua_setfield(L, -2, "arrived");
    lua_pop(L, 1);
  } else if (d->host_alloc(d, (void **)&s->out, h->nsend * row, &err) != CL_OK ||
             d->host_alloc(d, (void **)&s->in, ghosts * row, &err) != CL_OK) {
    cl_lua_fail(L, &err); /* __gc releases what was allocated */
  }
  unsigned char *out = nccl ? (unsigned char *)s->packed->data : s->out;
  unsigned char *in = nccl ? (unsigned char *)s->arrived->data : s->in;
  int np = h->npeers ? h->npeers : 1;
  s->send = stage_buffer(L, stage, "send", np * sizeof *s->send);
  s->recv = stage_buffer(L, stage, "recv", np * sizeof *s->recv);
  s->send_bytes = stage_buffer(L, stage, "send_bytes", np * sizeof *s->send_bytes);
  s->recv_bytes = stage_buffer(L, stage, "recv_bytes", np * sizeof *s->recv_bytes);
  s->peers = stage_buffer(L, stage, "peers", np * sizeof *s->peers);
  for (int p = 0; p < h->npeers; p++) {
    const cl_halo_peer *peer = &h->peers[p];
    s->peers[p] = peer->rank;
    s->send[p] = out + peer->send_offset * row, s->send_bytes[p] = peer->send_count * row;
    s->recv[p] = in + peer->recv_offset * row, s->recv_bytes[p] = peer->recv_count * row;
  }
  lua_settop(L, stage);
  return 1;
}

static const char *const bandwidth_args[] = {"bytes", "repeats", "transport", NULL};

/* cl.comm.bandwidth{ bytes = 2^26, repeats = 10, transport = "auto" | "mpi" | "nccl" } -> { seconds =,
 *   bandwidth = , transport = , partner = }: ranks 2p and 2p + 1 send each other `bytes` at once,
 * `repeats` times (after one exchange of warm-up); seconds per exchange and bytes per second in each
 * direction, this rank's (a rank without a partner: nil). NCCL moves buffers of the current GPU
 * ("auto": when it is one and every rank has its own), MPI host buffers. Every rank calls it. */
static int bandwidth(lua_State *L) {
  const char *fn = "cleave.comm.bandwidth";
  cl_lua_check_args(L, 1, fn, bandwidth_args);
  size_t bytes = (size_t)cl_lua_opt_integer_min(L, 1, fn, "bytes", (lua_Integer)1 << 26, 1);
  int repeats = (int)cl_lua_opt_integer_min(L, 1, fn, "repeats", 10, 1);
  const char *transport = cl_lua_opt_string(L, 1, fn, "transport", "auto");
  cl_runtime *rt = cl_lua_runtime(L);
  cl_field *buffers;
  cl_error err;
  if (cl_field_create(rt->device, CL_U8, bytes, 2, &buffers, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, buffers); /* collected with the call's values */
  int nccl = choose_nccl(L, fn, transport, buffers);
  int rank = cl_comm_rank(), partner = rank ^ 1, has = partner < cl_comm_size();
  char *host = nccl ? NULL : lua_newuserdatauv(L, 2 * bytes, 0);
  char *base = nccl ? (char *)buffers->data : host;
  void *send = base, *recv = base + bytes;
  size_t count = bytes;
  double t0 = 0;
  for (int k = -1; k < repeats; k++) {
    if (k == 0) {
      if (cl_comm_barrier(&err) != CL_OK) return cl_lua_fail(L, &err);
      t0 = cl_monotonic_seconds();
    }
    cl_status st = nccl ? cl_nccl_exchange(has, &partner, &send, &count, &recv, &count, &err)
                        : cl_comm_exchange(has, &partner, &send, &count, &recv, &count, &err);
    if (st != CL_OK) return cl_lua_fail(L, &err);
  }
  double seconds = (cl_monotonic_seconds() - t0) / repeats;
  lua_createtable(L, 0, 4);
  lua_pushstring(L, nccl ? "nccl" : "mpi"), lua_setfield(L, -2, "transport");
  if (has) {
    lua_pushinteger(L, partner), lua_setfield(L, -2, "partner");
    lua_pushnumber(L, seconds), lua_setfield(L, -2, "seconds");
    lua_pushnumber(L, (double)bytes / seconds), lua_setfield(L, -2, "bandwidth");
  }
  return 1;
}

#define HALO_PART_MT "cleave.stage.halo_part"

static const char *const halo_part_args[] = {"halo", NULL};

static int halo_part(lua_State *L, const char *fn, const char *name, cl_status (*run)(void *, long, double, cl_error *)) {
  cl_lua_check_args(L, 1, fn, halo_part_args);
  lua_getfield(L, 1, "halo");
  halo_stage *h = luaL_testudata(L, -1, HALO_STAGE_MT);
  if (!h) luaL_error(L, "%s: 'halo' must be a stage of cl.stage.halo{...}", fn);
  lua_pop(L, 1);
  cl_stage *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, HALO_PART_MT);
  cl_lua_stage_init(L, s, name, run, h, h->stage.device); /* the kept arguments hold the halo stage */
  return 1;
}

/* cl.stage.halo_start{ halo = cl.stage.halo{...} } and cl.stage.halo_finish{ halo = }: the halo stage
 * in two halves, with work that reads no ghost row in between (MPI's messages travel meanwhile). Every
 * start is followed by its finish. */
static int stage_halo_start(lua_State *L) { return halo_part(L, "cleave.stage.halo_start", "halo_start", halo_start); }
static int stage_halo_finish(lua_State *L) { return halo_part(L, "cleave.stage.halo_finish", "halo_finish", halo_finish); }

/* Registers cl.comm.partition and cl.stage.halo; the stack holds the module, then cl.comm. */
void cl_lua_open_halo(lua_State *L) {
  luaL_newmetatable(L, PLAN_MT);
  lua_pushcfunction(L, plan_gc), lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, plan_index), lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, plan_tostring), lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  cl_lua_stage_metatable(L, HALO_STAGE_MT);
  lua_pushcfunction(L, halo_gc), lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  lua_pushcfunction(L, partition);
  lua_setfield(L, -2, "partition");
  lua_pushcfunction(L, partition_grid);
  lua_setfield(L, -2, "partition_grid");
  lua_pushcfunction(L, bandwidth);
  lua_setfield(L, -2, "bandwidth");
  lua_pushcfunction(L, gather_rows);
  lua_setfield(L, -2, "gather_rows");
  lua_pushcfunction(L, graph_available);
  lua_setfield(L, -2, "graph_available");
  lua_pushcfunction(L, take_rows);
  lua_setfield(L, -2, "take_rows");
  lua_pushcfunction(L, grid_counts);
  lua_setfield(L, -2, "grid_counts");
  lua_pushcfunction(L, grid_locate);
  lua_setfield(L, -2, "grid_locate");
  cl_lua_stage_metatable(L, HALO_PART_MT);
  lua_pop(L, 1);
  lua_getfield(L, -2, "stage");
  lua_pushcfunction(L, stage_halo);
  lua_setfield(L, -2, "halo");
  lua_pushcfunction(L, stage_halo_start);
  lua_setfield(L, -2, "halo_start");
  lua_pushcfunction(L, stage_halo_finish);
  lua_setfield(L, -2, "halo_finish");
  lua_pop(L, 1);
}
