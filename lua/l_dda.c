/* cleave.dda (C part): the DDA model (kernels/dda/model.h) as userdata. lua/cleave/dda.lua
 * checks the user's named arguments and gives cl.dda._model flat arrays (0-based indices). */
#include <stdlib.h>
#include <string.h>

#include "../kernels/dda/cutting.h"
#include "../kernels/dda/slivers.h"
#include "../kernels/dda/model.h"
#include "../runtime/io/msh.h"
#include "../runtime/io/vtu.h"
#include "l_util.h"

#define MODEL_MT "cleave.dda.model"

typedef struct model_ud {
  cl_dda_model *m;
  cl_device_ref *device;
  cl_pvd *series[2]; /* the VTU frames of the blocks and of the contacts, while a run writes them */
} model_ud;

static void close_series(model_ud *u) {
  for (int k = 0; k < 2; k++) cl_pvd_close(u->series[k]), u->series[k] = NULL;
}

static model_ud *check_model(lua_State *L) {
  model_ud *u = luaL_checkudata(L, 1, MODEL_MT);
  if (!u->m) luaL_error(L, "dda model: already released");
  return u;
}

static int model_gc(lua_State *L) {
  model_ud *u = luaL_checkudata(L, 1, MODEL_MT);
  close_series(u);
  cl_dda_model_destroy(u->m);
  if (u->device) cl_device_ref_release(u->device);
  u->m = NULL, u->device = NULL;
  return 0;
}

/* The array t[key] (a list of numbers; key NULL: t itself) as a new C array of doubles; *count
 * its length. The arrays come from dda.lua, which checked what the user gave. */
static double *numbers(lua_State *L, int t, const char *key, size_t *count) {
  if (key) lua_getfield(L, t, key);
  else lua_pushvalue(L, t);
  size_t n = lua_istable(L, -1) ? (size_t)luaL_len(L, -1) : 0;
  double *a = calloc(n ? n : 1, sizeof *a);
  if (!a) luaL_error(L, "dda: out of memory");
  for (size_t k = 0; k < n; k++) {
    lua_geti(L, -1, (lua_Integer)k + 1);
    a[k] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  *count = n;
  return a;
}

static int32_t *integers(lua_State *L, int t, const char *key, size_t *count) {
  double *d = numbers(L, t, key, count);
  int32_t *a = calloc(*count ? *count : 1, sizeof *a);
  if (!a) free(d), luaL_error(L, "dda: out of memory");
  for (size_t k = 0; k < *count; k++) a[k] = (int32_t)d[k];
  free(d);
  return a;
}

static double num(lua_State *L, int t, const char *key) {
  lua_getfield(L, t, key);
  double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

/* cl.dda._model(t) -> model */
static int dda_model(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  size_t nvs, nvx, nvy, nmat, nmatv, nvel, njv, njp, nfix, nload;
  int32_t *vstart = integers(L, 1, "vstart", &nvs), *material = integers(L, 1, "material", &nmat);
  int32_t *pairs = integers(L, 1, "joint_pairs", &njp);
  size_t nej;
  int32_t *edge_joint = integers(L, 1, "edge_joint", &nej);
  double *vx = numbers(L, 1, "vx", &nvx), *vy = numbers(L, 1, "vy", &nvy);
  double *matv = numbers(L, 1, "materials", &nmatv), *vel = numbers(L, 1, "velocity", &nvel);
  double *jv = numbers(L, 1, "joints", &njv), *fixed = numbers(L, 1, "fixed", &nfix);
  double *loads = numbers(L, 1, "loads", &nload);
  size_t nmaterials = nmatv / 6, njoints = njv / 3;
  cl_dda_material *mats = calloc(nmaterials ? nmaterials : 1, sizeof *mats);
  cl_dda_joint *joints = calloc(njoints ? njoints : 1, sizeof *joints);
  if (!mats || !joints) luaL_error(L, "dda: out of memory");
  for (size_t k = 0; k < nmaterials; k++) {
    const double *q = matv + 6 * k;
    mats[k] = (cl_dda_material){q[0], q[1], q[2], {q[3], q[4], q[5]}};
  }
  for (size_t k = 0; k < njoints; k++) joints[k] = (cl_dda_joint){jv[3 * k], jv[3 * k + 1], jv[3 * k + 2]};
  cl_dda_input in = {
      .nblocks = nvs ? nvs - 1 : 0, .vstart = vstart, .vx = vx, .vy = vy, .material = material,
      .nmaterials = nmaterials, .materials = mats, .velocity = nvel ? vel : NULL, .njoints = njoints,
      .joints = joints, .njoint_pairs = njp / 3, .joint_pairs = pairs, .edge_joint = nej ? edge_joint : NULL, .nfixed = nfix / 2, .fixed = fixed,
      .nloads = nload / 2, .loads = loads, .gx = num(L, 1, "gx"), .gy = num(L, 1, "gy"),
      .dynamic = (int)num(L, 1, "dynamic"), .plane_strain = (int)num(L, 1, "plane_strain"),
      .normal_stiffness = num(L, 1, "normal_stiffness"), .shear_stiffness = num(L, 1, "shear_stiffness"),
      .fixed_stiffness = num(L, 1, "fixed_stiffness"), .max_displacement = num(L, 1, "max_displacement"),
      .pcg_tolerance = num(L, 1, "pcg_tolerance"), .pcg_displacement = num(L, 1, "pcg_displacement"), .preconditioner = (cl_dda_preconditioner)num(L, 1, "ssor"),
      .spmv_format = (cl_dda_spmv_format)num(L, 1, "bsr"), .pcg_launches = (int)num(L, 1, "pcg_launches"),
      .pcg_blocks = (int)num(L, 1, "pcg_blocks"), .pcg_pipelined = (int)num(L, 1, "pcg_pipelined"),
      .pcg_max_iterations = (int)num(L, 1, "pcg_max_iterations"),
      .open_close_max = (int)num(L, 1, "open_close_max"), .detection = (cl_dda_detection)num(L, 1, "detection"),
      .full_assembly = (int)num(L, 1, "full_assembly"), .broad_skin = num(L, 1, "broad_skin"),
      .dt_growth = num(L, 1, "dt_growth"), .open_close_loose = num(L, 1, "open_close_loose")};
  model_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, MODEL_MT);
  cl_error err;
  cl_device_ref *ref = cl_lua_runtime(L)->device;
  cl_status st = cl_dda_model_create(&u->m, &ref->dev, &in, &err);
  if (st == CL_OK) u->device = cl_device_ref_retain(ref);
  free(vstart), free(material), free(pairs), free(edge_joint), free(vx), free(vy), free(matv), free(vel), free(jv), free(fixed);
  free(loads), free(mats), free(joints);
  if (st != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

/* model:_step(dt) */
static int model_step(lua_State *L) {
  model_ud *u = check_model(L);
  cl_error err;
  if (cl_dda_step(u->m, luaL_checknumber(L, 2), &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

/* model:_set_load(k, fx, fy), k 1-based */
static int model_set_load(lua_State *L) {
  model_ud *u = check_model(L);
  cl_dda_set_load(u->m, (size_t)luaL_checkinteger(L, 2) - 1, luaL_checknumber(L, 3), luaL_checknumber(L, 4));
  return 0;
}

static void set_number(lua_State *L, const char *key, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, key);
}

/* model:stats() -> {steps, t, dt, open_close, pcg, reductions, reduced_by, launches, syncs, contacts, closed, kinetic, ...,
 * warm_residual, incremental_assemblies, pattern_reuses, transfer_shortcuts, device_detection, device_pattern,
 * broad_rebuilds, broad_skin, iterations = {pcg = {...}, changed = {...}, unsettled = {...}} (the last step's
 * open-close iterations),
 * seconds = {detection, diagonal, assembly, solve, open_close, update},
 * contact_seconds = {found, transfer, geometry, packing, pattern, states, account} (cl_dda_contact_part)} */
static int model_stats(lua_State *L) {
  const cl_dda_stats *s = cl_dda_stats_of(check_model(L)->m);
  lua_createtable(L, 0, 15);
  lua_pushinteger(L, s->steps), lua_setfield(L, -2, "steps");
  set_number(L, "t", s->t), set_number(L, "dt", s->dt);
  lua_pushinteger(L, s->open_close), lua_setfield(L, -2, "open_close");
  lua_pushinteger(L, s->pcg), lua_setfield(L, -2, "pcg");
  lua_pushinteger(L, s->reductions), lua_setfield(L, -2, "reductions");
  lua_pushstring(L, s->reduced_by), lua_setfield(L, -2, "reduced_by");
  lua_pushinteger(L, s->launches), lua_setfield(L, -2, "launches");
  lua_pushinteger(L, s->syncs), lua_setfield(L, -2, "syncs");
  lua_pushinteger(L, (lua_Integer)s->contacts), lua_setfield(L, -2, "contacts");
  lua_pushinteger(L, (lua_Integer)s->closed), lua_setfield(L, -2, "closed");
  set_number(L, "kinetic", s->kinetic), set_number(L, "gravity_work", s->gravity_work);
  set_number(L, "load_work", s->load_work), set_number(L, "friction_work", s->friction_work);
  set_number(L, "warm_residual", s->warm_residual);
  lua_pushinteger(L, s->incremental_assemblies), lua_setfield(L, -2, "incremental_assemblies");
  lua_pushinteger(L, s->pattern_reuses), lua_setfield(L, -2, "pattern_reuses");
  lua_pushinteger(L, s->transfer_shortcuts), lua_setfield(L, -2, "transfer_shortcuts");
  lua_pushboolean(L, s->device_detection), lua_setfield(L, -2, "device_detection");
  lua_pushboolean(L, s->device_pattern), lua_setfield(L, -2, "device_pattern");
  lua_pushinteger(L, s->broad_rebuilds), lua_setfield(L, -2, "broad_rebuilds");
  set_number(L, "broad_skin", s->broad_skin);
  int traced = s->open_close < CL_DDA_TRACE ? s->open_close : CL_DDA_TRACE;
  const int *trace[] = {s->trace_pcg, s->trace_changed, s->trace_unsettled};
  static const char *const traces[] = {"pcg", "changed", "unsettled"};
  lua_createtable(L, 0, 3);
  for (int t = 0; t < 3; t++) {
    lua_createtable(L, traced, 0);
    for (int k = 0; k < traced; k++) lua_pushinteger(L, trace[t][k]), lua_rawseti(L, -2, k + 1);
    lua_setfield(L, -2, traces[t]);
  }
  lua_setfield(L, -2, "iterations");
  static const char *const modules[] = {"detection", "diagonal", "assembly", "solve", "open_close", "update"};
  lua_createtable(L, 0, 6);
  for (int k = 0; k < 6; k++) set_number(L, modules[k], s->seconds[k]);
  lua_setfield(L, -2, "seconds");
  static const char *const parts[] = {"found", "transfer", "geometry", "packing", "pattern", "states", "account"};
  lua_createtable(L, 0, 7);
  for (int k = 0; k < 7; k++) set_number(L, parts[k], s->contact_seconds[k]);
  lua_setfield(L, -2, "contact_seconds");
  return 1;
}

/* model:block(i) -> {area, x, y, ux, uy, rotation, velocity = {6}, stress = {3}, vertices = {x1, y1, ...}} */
static int model_block(lua_State *L) {
  model_ud *u = check_model(L);
  lua_Integer i = luaL_checkinteger(L, 2);
  size_t n = cl_dda_block_count(u->m);
  if (i < 1 || (size_t)i > n) return luaL_error(L, "dda model:block: block %d does not exist (1..%d)", (int)i, (int)n);
  cl_dda_block_state s;
  cl_error err;
  if (cl_dda_host_state(u->m, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_dda_block_state_of(u->m, (size_t)i - 1, &s);
  lua_createtable(L, 0, 9);
  set_number(L, "area", s.area), set_number(L, "x", s.x0), set_number(L, "y", s.y0);
  set_number(L, "ux", s.ux), set_number(L, "uy", s.uy), set_number(L, "rotation", s.rotation);
  lua_createtable(L, 6, 0);
  for (int k = 0; k < 6; k++) lua_pushnumber(L, s.velocity[k]), lua_rawseti(L, -2, k + 1);
  lua_setfield(L, -2, "velocity");
  lua_createtable(L, 3, 0);
  for (int k = 0; k < 3; k++) lua_pushnumber(L, s.stress[k]), lua_rawseti(L, -2, k + 1);
  lua_setfield(L, -2, "stress");
  const double *x, *y;
  int nv;
  cl_dda_block_vertices(u->m, (size_t)i - 1, &x, &y, &nv);
  lua_createtable(L, 2 * nv, 0);
  for (int k = 0; k < nv; k++) {
    lua_pushnumber(L, x[k]), lua_rawseti(L, -2, 2 * k + 1);
    lua_pushnumber(L, y[k]), lua_rawseti(L, -2, 2 * k + 2);
  }
  lua_setfield(L, -2, "vertices");
  return 1;
}

/* model:contacts() -> list of {vertex_block, edge_block, kind, state, x, y, normal_force, shear_force} */
static int model_contacts(lua_State *L) {
  model_ud *u = check_model(L);
  static const char *kinds[] = {"VE", "VV1", "VV2"}, *states[] = {"open", "slide", "lock"};
  cl_error err;
  if (cl_dda_host_contacts(u->m, &err) != CL_OK) return cl_lua_fail(L, &err);
  size_t nc = cl_dda_contact_count(u->m);
  lua_createtable(L, (int)nc, 0);
  for (size_t k = 0; k < nc; k++) {
    cl_dda_contact_info c;
    cl_dda_contact_of(u->m, k, &c);
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, c.block_vertex + 1), lua_setfield(L, -2, "vertex_block");
    lua_pushinteger(L, c.block_edge + 1), lua_setfield(L, -2, "edge_block");
    lua_pushstring(L, kinds[c.kind]), lua_setfield(L, -2, "kind");
    lua_pushstring(L, states[c.state]), lua_setfield(L, -2, "state");
    set_number(L, "x", c.x), set_number(L, "y", c.y);
    set_number(L, "normal_force", c.normal_force), set_number(L, "shear_force", c.shear_force);
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  return 1;
}

/* model:_series(blocks_pvd, contacts_pvd): starts the two .pvd collections the next _vtu calls add to. */
static int model_series(lua_State *L) {
  model_ud *u = check_model(L);
  const char *paths[2] = {luaL_checkstring(L, 2), luaL_checkstring(L, 3)};
  close_series(u);
  cl_error err;
  for (int k = 0; k < 2; k++)
    if (cl_pvd_open(&u->series[k], paths[k], &err) != CL_OK) {
      close_series(u);
      return cl_lua_fail(L, &err);
    }
  return 0;
}

/* The file name of path (what a .pvd beside it refers to). */
static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* model:_vtu(blocks_path, contacts_path, time): the two files, added to the series when one is open */
static int model_vtu(lua_State *L) {
  model_ud *u = check_model(L);
  const char *paths[2] = {luaL_checkstring(L, 2), luaL_checkstring(L, 3)};
  double time = luaL_checknumber(L, 4);
  cl_error err;
  if (cl_dda_write_vtu(u->m, paths[0], &err) != CL_OK || cl_dda_write_contacts_vtu(u->m, paths[1], &err) != CL_OK)
    return cl_lua_fail(L, &err);
  for (int k = 0; k < 2; k++)
    if (u->series[k] && cl_pvd_add(u->series[k], time, base_name(paths[k]), &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

/* model:_save(path), model:_restore(path): a checkpoint of the model (cl_dda_save, cl_dda_restore) */
static int model_save(lua_State *L) {
  model_ud *u = check_model(L);
  cl_error err;
  if (cl_dda_save(u->m, luaL_checkstring(L, 2), &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

static int model_restore(lua_State *L) {
  model_ud *u = check_model(L);
  cl_error err;
  if (cl_dda_restore(u->m, luaL_checkstring(L, 2), &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

/* model:_png(path) */
static int model_png(lua_State *L) {
  model_ud *u = check_model(L);
  cl_error err;
  if (cl_dda_write_png(u->m, luaL_checkstring(L, 2), &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

static int model_count(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)cl_dda_block_count(check_model(L)->m));
  return 1;
}

/* cl.dda._cut(polygons, edge_joints, segments, segment_joints, tol[, min_radius]) -> polygons,
 * edge_joints, merged, dropped: flat {x1, y1, ...} lists (edge_joints[k][v]: the joint of polygon
 * k's edge from vertex v, 0-based, -1 none) cut by the segments (a flat list of x1, y1, x2, y2),
 * each new edge with its segment's joint; then the pieces thinner than min_radius (2 area /
 * perimeter) merged into a neighbour or dropped, counted (slivers.h). dda.lua checked the
 * arguments. */
static int dda_cut(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TTABLE);
  double tol = luaL_checknumber(L, 5), min_radius = luaL_optnumber(L, 6, 0);
  cl_dda_polygons in = {0}, out = {0};
  cl_error err;
  cl_status st = CL_OK;
  lua_Integer np = luaL_len(L, 1);
  for (lua_Integer k = 1; k <= np && st == CL_OK; k++) {
    lua_geti(L, 1, k);
    int m = (int)(luaL_len(L, -1) / 2);
    lua_geti(L, 2, k);
    double *xy = calloc(2 * (size_t)m + 1, sizeof *xy);
    int32_t *tag = calloc((size_t)m + 1, sizeof *tag);
    if (!xy || !tag) {
      free(xy), free(tag);
      st = cl_error_set(&err, CL_ERR_OOM, "dda cut: out of memory");
      break;
    }
    for (int v = 0; v < m; v++) {
      lua_geti(L, -2, 2 * v + 1), lua_geti(L, -3, 2 * v + 2), lua_geti(L, -3, v + 1);
      xy[v] = lua_tonumber(L, -3), xy[m + v] = lua_tonumber(L, -2), tag[v] = (int32_t)lua_tointeger(L, -1);
      lua_pop(L, 3);
    }
    lua_pop(L, 2);
    st = cl_dda_polygons_add(&in, xy, xy + m, tag, m, &err);
    free(xy), free(tag);
  }
  size_t nseg = 0, ntag = 0;
  double *seg = numbers(L, 3, NULL, &nseg), *tags = numbers(L, 4, NULL, &ntag);
  int32_t *seg_tag = calloc(nseg / 4 + 1, sizeof *seg_tag);
  if (!seg_tag && st == CL_OK) st = cl_error_set(&err, CL_ERR_OOM, "dda cut: out of memory");
  for (size_t k = 0; seg_tag && k < nseg / 4; k++) seg_tag[k] = k < ntag ? (int32_t)tags[k] : -1;
  size_t merged = 0, dropped = 0;
  if (st == CL_OK) st = cl_dda_cut(&in, nseg / 4, seg, seg_tag, tol, &out, &err);
  if (st == CL_OK && min_radius > 0) st = cl_dda_merge_slivers(&out, min_radius, tol, &merged, &dropped, &err);
  free(seg), free(tags), free(seg_tag);
  cl_dda_polygons_free(&in);
  if (st != CL_OK) {
    cl_dda_polygons_free(&out);
    return cl_lua_fail(L, &err);
  }
  lua_createtable(L, (int)out.n, 0);
  lua_createtable(L, (int)out.n, 0);
  for (size_t k = 0; k < out.n; k++) {
    int32_t a = out.start[k], b = out.start[k + 1];
    lua_createtable(L, 2 * (b - a), 0);
    lua_createtable(L, b - a, 0);
    for (int32_t v = a; v < b; v++) {
      lua_pushnumber(L, out.x[v]), lua_rawseti(L, -3, 2 * (v - a) + 1);
      lua_pushnumber(L, out.y[v]), lua_rawseti(L, -3, 2 * (v - a) + 2);
      lua_pushinteger(L, out.tag[v]), lua_rawseti(L, -2, v - a + 1);
    }
    lua_rawseti(L, -3, (lua_Integer)k + 1);
    lua_rawseti(L, -3, (lua_Integer)k + 1);
  }
  cl_dda_polygons_free(&out);
  lua_pushinteger(L, (lua_Integer)merged);
  lua_pushinteger(L, (lua_Integer)dropped);
  return 4;
}

/* Pushes the integers v[0..n-1] + add as a list. */
static void push_integers(lua_State *L, const int32_t *v, size_t n, int32_t add) {
  lua_createtable(L, (int)n, 0);
  for (size_t k = 0; k < n; k++) lua_pushinteger(L, (lua_Integer)v[k] + add), lua_rawseti(L, -2, (lua_Integer)k + 1);
}

/* cl.dda._read_msh(path) -> { x = {x1, y1, ...}, tri = {1-based corners, 3 a triangle}, tri_group = {physical
 * tag or -1}, line = {1-based ends, 2 a segment}, line_group = {physical tag}, groups = { {dim =, tag =, name =},
 * ... } in $PhysicalNames order }: a Gmsh file read by runtime/io/msh.h. Blocks are straight-edged, so a
 * 6-node triangle gives its corners, and a 3-node line its two halves (end, midpoint, end). */
static int dda_read_msh(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  cl_msh g;
  cl_error err;
  if (cl_msh_read(path, &g, &err) != CL_OK) return cl_lua_fail(L, &err);
  const size_t per_tri = g.order == 2 ? 6 : 3, per_line = (size_t)g.order + 1;
  lua_createtable(L, 0, 6);
  lua_createtable(L, (int)(2 * g.nnodes), 0);
  for (size_t i = 0; i < 2 * g.nnodes; i++) lua_pushnumber(L, g.x[i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "x");
  lua_createtable(L, (int)(3 * g.nelems), 0);
  for (size_t e = 0; e < g.nelems; e++)
    for (size_t a = 0; a < 3; a++) lua_pushinteger(L, g.elem[e * per_tri + a] + 1), lua_rawseti(L, -2, (lua_Integer)(3 * e + a) + 1);
  lua_setfield(L, -2, "tri");
  push_integers(L, g.elem_group, g.nelems, 0), lua_setfield(L, -2, "tri_group");
  lua_newtable(L); /* line */
  lua_newtable(L); /* line_group */
  lua_Integer n = 0;
  for (size_t e = 0; e < g.nedges; e++) {
    const uint32_t *en = g.edge + e * per_line; /* the two ends, then the midpoint */
    const uint32_t path_nodes[3] = {en[0], per_line == 3 ? en[2] : en[1], en[1]};
    for (size_t s = 0; s + 1 < per_line; s++) {
      lua_pushinteger(L, path_nodes[s] + 1), lua_rawseti(L, -3, 2 * n + 1);
      lua_pushinteger(L, path_nodes[s + 1] + 1), lua_rawseti(L, -3, 2 * n + 2);
      lua_pushinteger(L, g.edge_group[e]), lua_rawseti(L, -2, ++n);
    }
  }
  lua_setfield(L, -3, "line_group");
  lua_setfield(L, -2, "line");
  lua_createtable(L, (int)g.ngroups, 0);
  for (size_t k = 0; k < g.ngroups; k++) {
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, g.groups[k].dim), lua_setfield(L, -2, "dim");
    lua_pushinteger(L, g.groups[k].tag), lua_setfield(L, -2, "tag");
    lua_pushstring(L, g.groups[k].name), lua_setfield(L, -2, "name");
    lua_rawseti(L, -2, (lua_Integer)k + 1);
  }
  lua_setfield(L, -2, "groups");
  cl_msh_free(&g);
  return 1;
}

int cl_lua_open_dda(lua_State *L) {
  luaL_newmetatable(L, MODEL_MT);
  const luaL_Reg meta[] = {{"__gc", model_gc}, {"__len", model_count}, {NULL, NULL}};
  luaL_setfuncs(L, meta, 0);
  const luaL_Reg methods[] = {{"_step", model_step}, {"_set_load", model_set_load}, {"stats", model_stats},
                              {"block", model_block}, {"contacts", model_contacts}, {"_vtu", model_vtu}, {"_series", model_series}, {"_png", model_png},
                              {"_save", model_save}, {"_restore", model_restore},
                              {NULL, NULL}};
  luaL_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_newtable(L);
  const luaL_Reg fns[] = {{"_model", dda_model}, {"_cut", dda_cut}, {"_read_msh", dda_read_msh}, {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
  lua_setfield(L, -2, "dda");
  return 0;
}
