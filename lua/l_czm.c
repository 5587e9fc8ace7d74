/* cleave.czm (C part): host meshes (generators, Gmsh files, pre-cracks), the device model
 * and its step stages; lua/cleave/czm.lua builds the user-facing API on these. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/dispatch.h"
#include "../kernels/czm/czm_model.h"
#include "../runtime/io/msh.h"
#include "../runtime/progress.h"
#include "l_jit.h"

#define MESH_MT "cleave.czm.mesh"
#define MODEL_MT "cleave.czm.model"
#define STAGE_MT "cleave.czm.stage"

/* ---- host meshes ------------------------------------------------------------- */

typedef struct mesh_ud {
  cl_mesh2d m;
  cl_cohesive_list cracks; /* pre-cracks (traction-free) made on the host */
  cl_msh groups;           /* physical groups of a Gmsh file (zeroed otherwise) */
} mesh_ud;

static mesh_ud *check_mesh(lua_State *L, int idx) { return luaL_checkudata(L, idx, MESH_MT); }

static mesh_ud *new_mesh(lua_State *L) {
  mesh_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, MESH_MT);
  return u;
}

static int mesh_gc(lua_State *L) {
  mesh_ud *u = check_mesh(L, 1);
  cl_mesh2d_free(&u->m);
  cl_cohesive_list_free(&u->cracks);
  cl_msh_free(&u->groups);
  return 0;
}

static size_t req_count(lua_State *L, const char *fn, const char *key) {
  lua_Integer v = cl_lua_opt_integer(L, 1, fn, key, 0);
  if (v < 1) luaL_error(L, "%s: argument '%s' must be a positive integer", fn, key);
  return (size_t)v;
}

static cl_mesh2d_pattern pattern_of(lua_State *L, const char *fn) {
  const char *p = cl_lua_opt_string(L, 1, fn, "pattern", "cross");
  if (strcmp(p, "cross") == 0) return CL_MESH2D_CROSS;
  if (strcmp(p, "alternate") == 0) return CL_MESH2D_ALTERNATE;
  return (cl_mesh2d_pattern)luaL_error(L, "%s: argument 'pattern' must be \"cross\" (4 triangles per cell, the "
                                          "paper's union-jack) or \"alternate\" (2, diagonals alternating)", fn);
}

static int order_of(lua_State *L, const char *fn) {
  lua_Integer order = cl_lua_opt_integer(L, 1, fn, "order", 2);
  if (order != 1 && order != 2) luaL_error(L, "%s: argument 'order' must be 1 (T3) or 2 (T6)", fn);
  return (int)order;
}

static const char *const rect_args[] = {"x0", "x1", "y0", "y1", "nx", "ny", "order", "pattern", NULL};

/* cl.czm.rect{ x0 =, x1 =, y0 =, y1 =, nx =, ny =, order = 2, pattern = "cross" } -> mesh */
static int czm_rect(lua_State *L) {
  const char *fn = "cleave.czm.rect";
  cl_lua_check_args(L, 1, fn, rect_args);
  double x0 = cl_lua_req_number(L, 1, fn, "x0"), x1 = cl_lua_req_number(L, 1, fn, "x1");
  double y0 = cl_lua_req_number(L, 1, fn, "y0"), y1 = cl_lua_req_number(L, 1, fn, "y1");
  if (!(x1 > x0) || !(y1 > y0)) return luaL_error(L, "%s: the rectangle needs x1 > x0 and y1 > y0", fn);
  size_t nx = req_count(L, fn, "nx"), ny = req_count(L, fn, "ny");
  int order = order_of(L, fn);
  cl_mesh2d_pattern pattern = pattern_of(L, fn);
  mesh_ud *u = new_mesh(L);
  cl_error err;
  if (cl_mesh2d_rect(x0, x1, y0, y1, nx, ny, order, pattern, &u->m, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

static const char *const ring_args[] = {"r_in", "r_out", "nr", "nt", "order", "pattern", NULL};

/* cl.czm.ring{ r_in =, r_out =, nr =, nt =, order = 2, pattern = "cross" } -> mesh */
static int czm_ring(lua_State *L) {
  const char *fn = "cleave.czm.ring";
  cl_lua_check_args(L, 1, fn, ring_args);
  double ri = cl_lua_req_number(L, 1, fn, "r_in"), ro = cl_lua_req_number(L, 1, fn, "r_out");
  if (!(ri > 0) || !(ro > ri)) return luaL_error(L, "%s: the ring needs 0 < r_in < r_out", fn);
  size_t nr = req_count(L, fn, "nr"), nt = req_count(L, fn, "nt");
  if (nt < 3) return luaL_error(L, "%s: argument 'nt' must be at least 3", fn);
  int order = order_of(L, fn);
  cl_mesh2d_pattern pattern = pattern_of(L, fn);
  mesh_ud *u = new_mesh(L);
  cl_error err;
  if (cl_mesh2d_ring_pattern(ri, ro, nr, nt, order, pattern, &u->m, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

/* cl.czm.read(path) -> mesh from a Gmsh .msh file (2.2 or 4.1 ASCII) with its physical groups */
static int czm_read(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  mesh_ud *u = new_mesh(L);
  cl_error err;
  if (cl_msh_read(path, &u->groups, &err) != CL_OK) return cl_lua_fail(L, &err);
  const cl_msh *g = &u->groups;
  const size_t nper = g->order == 2 ? 6 : 3;
  if (cl_mesh2d_alloc(g->order, g->nnodes, g->nelems, &u->m, &err) != CL_OK) return cl_lua_fail(L, &err);
  for (size_t i = 0; i < g->nnodes; i++) u->m.x[i] = g->x[2 * i], u->m.x[g->nnodes + i] = g->x[2 * i + 1];
  memcpy(u->m.elem, g->elem, g->nelems * nper * sizeof *g->elem);
  if (cl_mesh2d_adjacency(&u->m, &err) != CL_OK || cl_mesh2d_check(&u->m, &err) != CL_OK) {
    char msg[sizeof err.msg + 64];
    snprintf(msg, sizeof msg, "%s: %s", path, err.msg);
    return luaL_error(L, "%s", msg);
  }
  return 1;
}

/* mesh:info() -> { nodes, elements, order, interior_facets, boundary_facets, colours, cracks } */
static int mesh_info(lua_State *L) {
  mesh_ud *u = check_mesh(L, 1);
  size_t interior, boundary;
  cl_mesh2d_facets(&u->m, &interior, &boundary);
  uint32_t *colour = malloc((u->m.nelems + 1) * sizeof *colour), ncolours = 0;
  cl_error err;
  if (!colour) return luaL_error(L, "mesh:info: out of memory");
  cl_status st = cl_mesh2d_colour(&u->m, colour, &ncolours, &err);
  free(colour);
  if (st != CL_OK) return cl_lua_fail(L, &err);
  lua_createtable(L, 0, 7);
  lua_pushinteger(L, (lua_Integer)u->m.nnodes), lua_setfield(L, -2, "nodes");
  lua_pushinteger(L, (lua_Integer)u->m.nelems), lua_setfield(L, -2, "elements");
  lua_pushinteger(L, u->m.order), lua_setfield(L, -2, "order");
  lua_pushinteger(L, (lua_Integer)interior), lua_setfield(L, -2, "interior_facets");
  lua_pushinteger(L, (lua_Integer)(boundary - 2 * u->cracks.n)), lua_setfield(L, -2, "boundary_facets");
  lua_pushinteger(L, (lua_Integer)ncolours), lua_setfield(L, -2, "colours");
  lua_pushinteger(L, (lua_Integer)u->cracks.n), lua_setfield(L, -2, "cracks");
  return 1;
}

/* mesh:perturb{ fraction =, seed = 1 } */
static int mesh_perturb(lua_State *L) {
  mesh_ud *u = check_mesh(L, 1);
  const char *fn = "mesh:perturb";
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_remove(L, 1);
  static const char *const keys[] = {"fraction", "seed", NULL};
  cl_lua_check_args(L, 1, fn, keys);
  double fraction = cl_lua_req_number(L, 1, fn, "fraction");
  lua_Integer seed = cl_lua_opt_integer(L, 1, fn, "seed", 1);
  if (u->cracks.n) return luaL_error(L, "%s: perturb the mesh before making pre-cracks", fn);
  cl_error err;
  if (cl_mesh2d_perturb(&u->m, fraction, (uint64_t)seed, &err) != CL_OK ||
      cl_mesh2d_check(&u->m, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  return 0;
}

/* Distance of point p from the segment a-b. */
static double segment_distance(const double *p, const double *a, const double *b) {
  double dx = b[0] - a[0], dy = b[1] - a[1], len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  double ex = a[0] + t * dx - p[0], ey = a[1] + t * dy - p[1];
  return sqrt(ex * ex + ey * ey);
}

static void read_point(lua_State *L, int idx, const char *fn, const char *key, double *p) {
  if (lua_getfield(L, idx, key) != LUA_TTABLE) luaL_error(L, "%s: argument '%s' must be a point { x, y }", fn, key);
  for (int c = 0; c < 2; c++) {
    lua_rawgeti(L, -1, c + 1);
    if (!lua_isnumber(L, -1)) luaL_error(L, "%s: argument '%s' must be a point { x, y }", fn, key);
    p[c] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* mesh:precrack{ from = { x, y }, to = { x, y }, tolerance = 1e-9 (relative to the segment) } -> facets
 * cracked: every interior facet whose corners lie on the segment is opened (nodes duplicated)
 * and becomes a traction-free cohesive element: a notch. */
static int mesh_precrack(lua_State *L) {
  mesh_ud *u = check_mesh(L, 1);
  const char *fn = "mesh:precrack";
  luaL_checktype(L, 2, LUA_TTABLE);
  double a[2], b[2];
  read_point(L, 2, fn, "from", a);
  read_point(L, 2, fn, "to", b);
  double len = hypot(b[0] - a[0], b[1] - a[1]);
  lua_getfield(L, 2, "tolerance");
  double tol = luaL_optnumber(L, -1, 1e-9) * (len > 0 ? len : 1);
  lua_pop(L, 1);
  cl_mesh2d *m = &u->m;
  size_t cap = 16, count = 0, nper = cl_mesh2d_nper(m);
  uint32_t *elems = malloc(cap * sizeof *elems);
  uint8_t *edges = malloc(cap);
  for (size_t e = 0; e < m->nelems && elems && edges; e++)
    for (int k = 0; k < 3; k++) {
      int32_t f = m->adj[3 * e + (size_t)k];
      if (f < 0 || (size_t)f < e) continue;
      int on = 1;
      for (int s = 0; s < 2; s++) {
        uint32_t v = m->elem[e * nper + (size_t)(k + s) % 3];
        double p[2] = {m->x[v], m->x[m->nnodes + v]};
        on &= segment_distance(p, a, b) <= tol;
      }
      if (!on) continue;
      if (count == cap) {
        cap *= 2;
        uint32_t *e2 = realloc(elems, cap * sizeof *e2);
        uint8_t *k2 = realloc(edges, cap);
        if (e2) elems = e2;
        if (k2) edges = k2;
        if (!e2 || !k2) break;
      }
      elems[count] = (uint32_t)e, edges[count++] = (uint8_t)k;
    }
  cl_error err;
  cl_status st = elems && edges ? cl_mesh2d_insert(m, &u->cracks, elems, edges, count, &err)
                                : cl_error_set(&err, CL_ERR_OOM, "%s: out of memory", fn);
  free(elems), free(edges);
  if (st != CL_OK) return cl_lua_fail(L, &err);
  if (count == 0) return luaL_error(L, "%s: no interior facet lies on the segment (%f, %f)-(%f, %f); give its ends "
                                       "on element corners", fn, a[0], a[1], b[0], b[1]);
  lua_pushinteger(L, (lua_Integer)count);
  return 1;
}

/* mesh:group_nodes(name) -> list of the 1-based nodes of a Gmsh physical group (its lines' nodes
 * for a line group, its triangles' for a surface group) */
static int mesh_group_nodes(lua_State *L) {
  mesh_ud *u = check_mesh(L, 1);
  const char *name = luaL_checkstring(L, 2);
  const cl_msh *g = &u->groups;
  if (!g->nnodes) return luaL_error(L, "mesh:group_nodes: this mesh was not read from a Gmsh file");
  int dim, tag;
  cl_error err;
  if (cl_msh_group(g, name, &dim, &tag, &err) != CL_OK) return cl_lua_fail(L, &err);
  char *mark = calloc(g->nnodes + 1, 1);
  if (!mark) return luaL_error(L, "mesh:group_nodes: out of memory");
  size_t per_edge = (size_t)g->order + 1, per_elem = g->order == 2 ? 6 : 3;
  if (dim == 1)
    for (size_t i = 0; i < g->nedges; i++)
      for (size_t p = 0; p < per_edge && g->edge_group[i] == tag; p++) mark[g->edge[i * per_edge + p]] = 1;
  else
    for (size_t e = 0; e < g->nelems; e++)
      for (size_t p = 0; p < per_elem && g->elem_group[e] == tag; p++) mark[g->elem[e * per_elem + p]] = 1;
  lua_newtable(L);
  lua_Integer n = 0;
  for (size_t i = 0; i < g->nnodes; i++)
    if (mark[i]) lua_pushinteger(L, (lua_Integer)i + 1), lua_rawseti(L, -2, ++n);
  free(mark);
  return 1;
}

/* ---- the device model ---------------------------------------------------------- */

typedef struct model_ud {
  cl_czm_model *z;
  double load_scale; /* of the next force evaluation (set from a time function by the script) */
  int check_every;
} model_ud;

static model_ud *check_model(lua_State *L, int idx) {
  model_ud *u = luaL_checkudata(L, idx, MODEL_MT);
  if (!u->z) luaL_error(L, "cleave.czm: the model was released");
  return u;
}

static int model_gc(lua_State *L) {
  model_ud *u = luaL_checkudata(L, 1, MODEL_MT);
  cl_czm_destroy(u->z);
  u->z = NULL;
  return 0;
}

static const char *const field_names[CL_CZM_NFIELDS] = {
    "x", "u", "v", "a", "mass", "stress", "load", "elem", "adj", "coh", "mask", NULL, NULL, NULL, "coh_force",
    "hist", "stiffness", "scratch", "origin", "fixed", "colour", "split", "strength", "facet_stress", "reaction"};

static const char *const model_args[] = {"mesh", "E", "nu", "rho", "thickness", "plane", "sigma_max", "tau_max",
                                         "contact", "contact_after_breaking", "friction", "precision", "stiffness",
                                         "scatter", "law_state", "insertion", "insertion_state", NULL};

/* cl.czm.model{ mesh =, E =, nu =, rho =, thickness = 1, plane = "strain" | "stress", sigma_max =,
 *   tau_max =, contact = E / shortest edge, contact_after_breaking = false, friction = 0,
 *   precision = "f64", stiffness = "matrix_free" | "stored",
 *   scatter = "auto" | "colour" | "atomic", law_state = { initial values } } -> model. Its fields are
 *   in its user value: model:field(name). The cohesive kernel comes later (model:set_law). */
static int czm_model(lua_State *L) {
  const char *fn = "cleave.czm.model";
  cl_lua_check_args(L, 1, fn, model_args);
  if (lua_getfield(L, 1, "mesh") != LUA_TUSERDATA) return luaL_error(L, "%s: argument 'mesh' must be a mesh", fn);
  mesh_ud *mesh = check_mesh(L, -1);
  lua_pop(L, 1);
  cl_czm_material mat = {0};
  mat.E = cl_lua_req_number(L, 1, fn, "E");
  mat.nu = cl_lua_req_number(L, 1, fn, "nu");
  mat.rho = cl_lua_req_number(L, 1, fn, "rho");
  mat.thickness = cl_lua_opt_number(L, 1, fn, "thickness", 1);
  const char *plane = cl_lua_opt_string(L, 1, fn, "plane", "strain");
  if (strcmp(plane, "strain") && strcmp(plane, "stress"))
    return luaL_error(L, "%s: argument 'plane' must be \"strain\" or \"stress\"", fn);
  mat.plane_strain = strcmp(plane, "strain") == 0;
  mat.sigma_max = cl_lua_req_number(L, 1, fn, "sigma_max");
  mat.tau_max = cl_lua_opt_number(L, 1, fn, "tau_max", mat.sigma_max);
  mat.contact = cl_lua_opt_number(L, 1, fn, "contact", CL_CZM_CONTACT_AUTO);
  mat.contact_after_breaking = cl_lua_opt_boolean(L, 1, fn, "contact_after_breaking", 0);
  mat.friction = cl_lua_opt_number(L, 1, fn, "friction", 0);
  cl_czm_options opt = {0};
  const char *prec = cl_lua_opt_string(L, 1, fn, "precision", "f64");
  if (strcmp(prec, "f64") && strcmp(prec, "f32")) return luaL_error(L, "%s: argument 'precision' must be \"f32\" or \"f64\"", fn);
  opt.dtype = strcmp(prec, "f64") == 0 ? CL_F64 : CL_F32;
  const char *stiff = cl_lua_opt_string(L, 1, fn, "stiffness", "matrix_free");
  if (strcmp(stiff, "matrix_free") && strcmp(stiff, "stored"))
    return luaL_error(L, "%s: argument 'stiffness' must be \"matrix_free\" or \"stored\"", fn);
  opt.stored_stiffness = strcmp(stiff, "stored") == 0;
  /* auto: atomics on the GPU (faster there: docs/benchmarks.md), colours on the cpu */
  const char *scatter = cl_lua_opt_string(L, 1, fn, "scatter", "auto");
  if (strcmp(scatter, "colour") && strcmp(scatter, "atomic") && strcmp(scatter, "auto"))
    return luaL_error(L, "%s: argument 'scatter' must be \"auto\", \"colour\" or \"atomic\"", fn);
  opt.atomic = strcmp(scatter, "colour") != 0;
  const char *insertion = cl_lua_opt_string(L, 1, fn, "insertion", "ordered");
  if (strcmp(insertion, "ordered") && strcmp(insertion, "block_counter"))
    return luaL_error(L, "%s: argument 'insertion' must be \"ordered\" (deterministic numbering) or "
                         "\"block_counter\" (Appendix A; GPU)", fn);
  opt.block_counter = strcmp(insertion, "block_counter") == 0;
  if (lua_getfield(L, 1, "law_state") == LUA_TTABLE) {
    lua_Integer n = luaL_len(L, -1);
    if (n > CL_MP_STATE_MAX) return luaL_error(L, "%s: at most %d law state variables", fn, CL_MP_STATE_MAX);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, i);
      opt.state_init[i - 1] = luaL_checknumber(L, -1);
      lua_pop(L, 1);
    }
    opt.nstate = (int)n;
  }
  lua_pop(L, 1);
  /* insertion_state = { sn = k, ss = k }: the law's state variables (1-based) that insertion sets
   * to the facet's normal and shear stress */
  if (lua_getfield(L, 1, "insertion_state") == LUA_TTABLE) {
    opt.state_sn = (int)cl_lua_opt_integer(L, lua_gettop(L), fn, "sn", 0);
    opt.state_ss = (int)cl_lua_opt_integer(L, lua_gettop(L), fn, "ss", 0);
  }
  lua_pop(L, 1);
  model_ud *u = lua_newuserdatauv(L, sizeof *u, 1);
  memset(u, 0, sizeof *u);
  luaL_setmetatable(L, MODEL_MT);
  cl_error err;
  if (cl_czm_create(cl_lua_runtime(L)->device, &mesh->m, &mesh->cracks, &mat, &opt, &u->z, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  /* the fields become Lua fields, kept alive by the model's user value */
  u->z->fields_lent = 1;
  lua_newtable(L);
  for (int id = 0; id < CL_CZM_NFIELDS; id++) {
    cl_field *f = u->z->f[id];
    if (!f) continue;
    cl_lua_push_field(L, f);
    if (field_names[id]) lua_setfield(L, -2, field_names[id]);
    else luaL_ref(L, -2);
  }
  for (int s = 0; s < opt.nstate; s++) {
    cl_lua_push_field(L, u->z->state[s]);
    lua_rawseti(L, -2, -1 - s); /* law state k at index -1 - k */
  }
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* model:field(name) -> one of its fields (x u v a mass stress load elem adj coh mask coh_force hist
 * origin stiffness strength facet_stress), or model:field(k) the k-th law state variable (per cohesive
 * Gauss point) */
static int model_field(lua_State *L) {
  check_model(L, 1);
  lua_getiuservalue(L, 1, 1);
  if (lua_isinteger(L, 2)) lua_rawgeti(L, -1, -lua_tointeger(L, 2));
  else lua_getfield(L, -1, luaL_checkstring(L, 2));
  if (lua_isnil(L, -1)) return luaL_error(L, "model:field: no field '%s'", lua_tostring(L, 2));
  return 1;
}

/* model:set_law(module): the compiled cohesive kernel (cleave.jit, for this device and precision) */
static int model_set_law(lua_State *L) {
  model_ud *u = check_model(L, 1);
  const cl_lua_jit_module *m = cl_lua_check_jit_module(L, 2);
  if (!cl_device_same(&m->device->dev, u->z->dev))
    return luaL_error(L, "model:set_law: the module was built for %s, the model lives on %s", m->device->dev.name,
                      u->z->dev->name);
  cl_czm_set_law(u->z, m->module->symbols[0], m->module->symbols[1]);
  lua_getiuservalue(L, 1, 1); /* keep the module alive with the fields */
  lua_pushvalue(L, 2);
  lua_setfield(L, -2, "law_module");
  return 0;
}

/* model:info() -> { nodes, cohesive, elements, colours, node_capacity, cohesive_capacity, order,
 * initial_nodes } */
static int model_info(lua_State *L) {
  model_ud *u = check_model(L, 1);
  size_t nodes, coh;
  cl_error err;
  if (cl_czm_counts(u->z, &nodes, &coh, &err) != CL_OK) return cl_lua_fail(L, &err);
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, (lua_Integer)nodes), lua_setfield(L, -2, "nodes");
  lua_pushinteger(L, (lua_Integer)coh), lua_setfield(L, -2, "cohesive");
  lua_pushinteger(L, (lua_Integer)u->z->A.ne), lua_setfield(L, -2, "elements");
  lua_pushinteger(L, (lua_Integer)u->z->ncolours), lua_setfield(L, -2, "colours");
  lua_pushinteger(L, (lua_Integer)u->z->A.cap), lua_setfield(L, -2, "node_capacity");
  lua_pushinteger(L, (lua_Integer)u->z->A.coh_cap), lua_setfield(L, -2, "cohesive_capacity");
  lua_pushinteger(L, u->z->A.order), lua_setfield(L, -2, "order");
  lua_pushinteger(L, (lua_Integer)u->z->nn0), lua_setfield(L, -2, "initial_nodes");
  return 1;
}

static void fail_if(lua_State *L, cl_status st, cl_error *err) {
  if (st != CL_OK) cl_lua_fail(L, err);
}

static const char *const strength_args[] = {"distribution", "spread", "modulus", "area", "seed", "allowed", NULL};

/* model:set_strength{ distribution = "uniform" | "weibull" | "constant", spread =, modulus =,
 *   area =, seed = 1, allowed = u8 field ne x 3 (0: no insertion on that facet) }: the facets'
 *   strength factors (cl_czm_set_strength), in the field "strength" */
static int model_set_strength(lua_State *L) {
  const char *fn = "model:set_strength";
  model_ud *u = check_model(L, 1);
  cl_lua_check_args(L, 2, fn, strength_args);
  cl_czm_strength s = {0};
  const char *d = cl_lua_opt_string(L, 2, fn, "distribution", "constant");
  if (strcmp(d, "uniform") == 0) s.distribution = CL_CZM_STRENGTH_UNIFORM;
  else if (strcmp(d, "weibull") == 0) s.distribution = CL_CZM_STRENGTH_WEIBULL;
  else if (strcmp(d, "constant") == 0) s.distribution = CL_CZM_STRENGTH_CONSTANT;
  else return luaL_error(L, "%s: argument 'distribution' must be \"uniform\", \"weibull\" or \"constant\"", fn);
  s.spread = cl_lua_opt_number(L, 2, fn, "spread", 0);
  s.modulus = cl_lua_opt_number(L, 2, fn, "modulus", 0);
  s.area = cl_lua_opt_number(L, 2, fn, "area", 0);
  const lua_Integer seed = cl_lua_opt_integer(L, 2, fn, "seed", 1);
  s.seed = (uint64_t)seed;
  const uint8_t *allowed = NULL;
  cl_error err;
  if (lua_getfield(L, 2, "allowed") != LUA_TNIL) {
    cl_field *f = cl_lua_test_field(L, -1);
    if (!f || f->dtype != CL_U8 || f->n != u->z->A.ne || f->k != 3)
      return luaL_error(L, "%s: argument 'allowed' must be a u8 field of one row of 3 (the edges) per element", fn);
    const void *h;
    fail_if(L, cl_field_host(f, &h, &err), &err);
    allowed = h;
  }
  const int had = u->z->f[CL_CZM_STRENGTH] != NULL;
  fail_if(L, cl_czm_set_strength(u->z, &s, allowed, &err), &err);
  if (!had) { /* a new field: the model's user value keeps it, Lua frees it */
    lua_getiuservalue(L, 1, 1);
    cl_lua_push_field(L, u->z->f[CL_CZM_STRENGTH]);
    lua_setfield(L, -2, "strength");
  }
  return 0;
}

static void need_law(lua_State *L, model_ud *u, const char *fn) {
  if (!u->z->cohesive_entry) luaL_error(L, "%s: the model has no cohesive law yet (model:set_law)", fn);
}

/* model:stable_dt() -> the stable time step (computed on the first call) */
static int model_stable_dt(lua_State *L) {
  model_ud *u = check_model(L, 1);
  double dt;
  cl_error err;
  if (cl_czm_stable_dt(u->z, &dt, &err) != CL_OK) return cl_lua_fail(L, &err);
  lua_pushnumber(L, dt);
  return 1;
}

/* model:forces([load_scale]) */
static int model_forces(lua_State *L) {
  model_ud *u = check_model(L, 1);
  need_law(L, u, "model:forces");
  cl_error err;
  fail_if(L, cl_czm_forces(u->z, luaL_optnumber(L, 2, u->load_scale), &err), &err);
  return 0;
}

/* model:check() -> cohesive elements inserted by the stress check */
static int model_check(lua_State *L) {
  model_ud *u = check_model(L, 1);
  size_t inserted;
  cl_error err;
  fail_if(L, cl_czm_check_and_insert(u->z, &inserted, &err), &err);
  lua_pushinteger(L, (lua_Integer)inserted);
  return 1;
}

/* model:stresses(): averaged nodal stresses into field 'stress' (columns xx yy xy weight) */
static int model_stresses(lua_State *L) {
  model_ud *u = check_model(L, 1);
  cl_error err;
  fail_if(L, cl_czm_stresses(u->z, &err), &err);
  return 0;
}

/* model:insert_marked() -> seconds: cracks the facets marked in field 'mask' (topology only; then
 * model:update_masses()) */
static int model_insert_marked(lua_State *L) {
  model_ud *u = check_model(L, 1);
  cl_error err;
  fail_if(L, u->z->dev->synchronize(u->z->dev, &err), &err);
  double t0 = cl_monotonic_seconds();
  fail_if(L, cl_czm_insert_marked(u->z, &err), &err);
  fail_if(L, u->z->dev->synchronize(u->z->dev, &err), &err);
  lua_pushnumber(L, cl_monotonic_seconds() - t0);
  return 1;
}

/* model:update_masses(): lumped masses of the current topology */
static int model_update_masses(lua_State *L) {
  model_ud *u = check_model(L, 1);
  cl_error err;
  fail_if(L, cl_czm_update_masses(u->z, &err), &err);
  return 0;
}

/* model:energies([dt]) -> strain, kinetic, cohesive work, cohesive stored, contact work, contact
 * stored, kinetic staggered for step dt (cl_czm_energy; dt = 0: the kinetic energy) */
static int model_energies(lua_State *L) {
  model_ud *u = check_model(L, 1);
  const double dt = luaL_optnumber(L, 2, 0);
  cl_czm_energy e;
  cl_error err;
  fail_if(L, cl_czm_energies(u->z, dt, &e, &err), &err);
  const double w[] = {e.strain, e.kinetic, e.cohesive_work, e.cohesive_stored, e.contact_work, e.contact_stored,
                      e.kinetic_staggered};
  for (int i = 0; i < 7; i++) lua_pushnumber(L, w[i]);
  return 7;
}

/* model:topology_check() -> true, or false and the first violation (cl_mesh2d_topology_check on
 * the device's tables), and the counts { nodes, elements, cohesive } */
static int model_topology_check(lua_State *L) {
  model_ud *u = check_model(L, 1);
  cl_mesh2d m;
  cl_cohesive_list c;
  cl_error err;
  fail_if(L, cl_czm_download(u->z, &m, &c, &err), &err);
  cl_status st = cl_mesh2d_topology_check(&m, &c, &err);
  lua_pushboolean(L, st == CL_OK);
  if (st == CL_OK) lua_pushnil(L);
  else lua_pushstring(L, err.msg);
  cl_mesh2d_free(&m);
  cl_cohesive_list_free(&c);
  return 2;
}

/* model:set_load_scale(s): the factor of the load field in the next force evaluations */
static int model_set_load_scale(lua_State *L) {
  model_ud *u = check_model(L, 1);
  u->load_scale = luaL_checknumber(L, 2);
  cl_czm_use_load(u->z);
  return 0;
}

/* model:fix(rows, component): the nodes of rows (u32 field, 1-based) keep a zero acceleration in
 * component (1: x, 2: y); their reactions go to model:field("reaction") (made by the first call) */
static int model_fix(lua_State *L) {
  model_ud *u = check_model(L, 1);
  cl_field *rows = cl_lua_check_field(L, 2);
  lua_Integer c = luaL_checkinteger(L, 3);
  if (rows->dtype != CL_U32 || rows->k != 1) return luaL_error(L, "model:fix: rows must be a u32 field of one column");
  if (c != 1 && c != 2) return luaL_error(L, "model:fix: component must be 1 (x) or 2 (y)");
  const void *host;
  cl_error err;
  fail_if(L, cl_field_host(rows, &host, &err), &err);
  uint32_t *nodes = malloc(rows->n * sizeof *nodes + 1);
  if (!nodes) return luaL_error(L, "model:fix: out of memory");
  for (size_t i = 0; i < rows->n; i++) nodes[i] = ((const uint32_t *)host)[i] - 1;
  const int had_reaction = u->z->f[CL_CZM_REACTION] != NULL;
  cl_status st = cl_czm_fix(u->z, nodes, rows->n, (int)c - 1, &err);
  free(nodes);
  if (!had_reaction && u->z->f[CL_CZM_REACTION]) { /* made now: lent to Lua like the others */
    lua_getiuservalue(L, 1, 1);
    cl_lua_push_field(L, u->z->f[CL_CZM_REACTION]);
    lua_setfield(L, -2, "reaction");
    lua_pop(L, 1);
  }
  fail_if(L, st, &err);
  return 0;
}

/* model:profile(reps) -> { begin, cohesive, forces, ["end"], stress, check } seconds per call
 * (median; advances the state: for benchmarks) */
static int model_profile(lua_State *L) {
  model_ud *u = check_model(L, 1);
  int reps = (int)luaL_optinteger(L, 2, 20);
  if (reps < 1) return luaL_error(L, "model:profile: reps must be positive");
  double t[6];
  cl_error err;
  fail_if(L, cl_czm_profile(u->z, reps, t, &err), &err);
  static const char *const names[6] = {"begin", "cohesive", "forces", "end", "stress", "check"};
  lua_createtable(L, 0, 6);
  for (int i = 0; i < 6; i++) lua_pushnumber(L, t[i]), lua_setfield(L, -2, names[i]);
  return 1;
}

/* model:set_counts(nodes, cohesive): the nodes and cohesive elements in use (restoring a
 * checkpoint whose tables were copied back) */
static int model_set_counts(lua_State *L) {
  model_ud *u = check_model(L, 1);
  lua_Integer nodes = luaL_checkinteger(L, 2), coh = luaL_checkinteger(L, 3);
  cl_error err;
  fail_if(L, cl_czm_set_counts(u->z, (size_t)nodes, (size_t)coh, &err), &err);
  return 0;
}

/* model:set_check_every(n): the stress check runs at steps that are multiples of n (0: never) */
static int model_set_check_every(lua_State *L) {
  model_ud *u = check_model(L, 1);
  lua_Integer n = luaL_checkinteger(L, 2);
  if (n < 0) return luaL_error(L, "model:set_check_every: n must be >= 0");
  u->check_every = (int)n;
  return 0;
}

/* Whether boundary facet a-b (midpoint mx, my) is selected: where(mx, my) for a function, both
 * ends marked for a node mask (u8 field, one entry per node in use). */
static int facet_selected(lua_State *L, const uint8_t *nodes, uint32_t a, uint32_t b, double mx, double my) {
  if (nodes) return nodes[a] && nodes[b];
  lua_pushvalue(L, 2);
  lua_pushnumber(L, mx);
  lua_pushnumber(L, my);
  lua_call(L, 2, 1);
  const int inside = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return inside;
}

/* model:pressure_load(where) -> facets loaded: the load field becomes the nodal forces of a unit
 * pressure on the boundary facets (not crack faces) selected by where: a function(x, y) of the
 * facet's midpoint, or a u8 field marking nodes (a facet with both corners marked); it pushes
 * into the body, and model:set_load_scale(p) then applies pressure p. Reference geometry; straight
 * facets: T3 ends 1/2 each, T6 ends 1/6 and mid-side 2/3 of the facet force. */
static int model_pressure_load(lua_State *L) {
  model_ud *u = check_model(L, 1);
  const uint8_t *marked = NULL;
  if (lua_type(L, 2) != LUA_TFUNCTION) {
    cl_field *f = cl_lua_test_field(L, 2);
    size_t nodes, cohesive;
    cl_error e;
    fail_if(L, cl_czm_counts(u->z, &nodes, &cohesive, &e), &e);
    if (!f || f->dtype != CL_U8 || f->n < nodes)
      return luaL_error(L, "model:pressure_load: 'where' must be a function(x, y) or a u8 field over the nodes");
    const void *h;
    fail_if(L, cl_field_host(f, &h, &e), &e);
    marked = h;
  }
  cl_czm_model *z = u->z;
  const size_t ne = z->A.ne, cap = z->A.cap;
  const void *elem, *adj, *x;
  cl_error err;
  fail_if(L, cl_field_host(z->f[CL_CZM_ELEM], &elem, &err), &err);
  fail_if(L, cl_field_host(z->f[CL_CZM_ADJ], &adj, &err), &err);
  fail_if(L, cl_field_host(z->f[CL_CZM_X], &x, &err), &err);
  double *load = calloc(2 * cap, sizeof *load);
  if (!load) return luaL_error(L, "model:pressure_load: out of memory");
  const uint32_t *E = elem;
  const int32_t *J = adj;
  lua_Integer loaded = 0;
  for (size_t e = 0; e < ne; e++)
    for (int k = 0; k < 3; k++) {
      if (J[(size_t)k * ne + e] != -1) continue;
      const uint32_t a = E[(size_t)k * ne + e], b = E[(size_t)((k + 1) % 3) * ne + e];
      const double ax = cl_dtype_get(z->opt.dtype, x, a), ay = cl_dtype_get(z->opt.dtype, x, cap + a);
      const double bx = cl_dtype_get(z->opt.dtype, x, b), by = cl_dtype_get(z->opt.dtype, x, cap + b);
      if (!facet_selected(L, marked, a, b, (ax + bx) / 2, (ay + by) / 2)) continue;
      /* the element lies left of a -> b: inward normal (-(by - ay), bx - ax) / len; force = p len t n */
      const double fx = -(by - ay) * z->mat.thickness, fy = (bx - ax) * z->mat.thickness;
      const int t6 = z->A.order == 2;
      const uint32_t nodes[3] = {a, b, t6 ? E[(size_t)(3 + k) * ne + e] : a};
      const double share[3] = {t6 ? 1.0 / 6 : 0.5, t6 ? 1.0 / 6 : 0.5, t6 ? 2.0 / 3 : 0};
      for (int q = 0; q < 2 + t6; q++) load[nodes[q]] += share[q] * fx, load[cap + nodes[q]] += share[q] * fy;
      loaded++;
    }
  cl_status st = CL_OK;
  if (z->opt.dtype == CL_F64) st = cl_field_upload(z->f[CL_CZM_LOAD], load, &err);
  else {
    float *f = malloc(2 * cap * sizeof *f);
    if (!f) st = cl_error_set(&err, CL_ERR_OOM, "model:pressure_load: out of memory");
    for (size_t i = 0; f && i < 2 * cap; i++) f[i] = (float)load[i];
    if (f) st = cl_field_upload(z->f[CL_CZM_LOAD], f, &err);
    free(f);
  }
  free(load);
  fail_if(L, st, &err);
  lua_pushinteger(L, loaded);
  return 1;
}

/* ---- step stages ----------------------------------------------------------------- */

typedef struct czm_stage {
  cl_stage stage;
  model_ud *model;
  int kind; /* 0 begin, 1 forces (+ check), 2 end, 3 all of a step (cl_czm_step) */
  double dt;
} czm_stage;

static cl_status advance_czm_stage(void *data, long step, long max, double t, long *taken, cl_error *err) {
  czm_stage *s = data;
  (void)t;
  return cl_czm_advance(s->model->z, step, max, s->model->check_every, s->dt, s->model->load_scale, taken, err);
}

static cl_status flush_czm_stage(void *data, cl_error *err) { return cl_czm_flush(((czm_stage *)data)->model->z, err); }

static cl_status run_czm_stage(void *data, long step, double t, cl_error *err) {
  czm_stage *s = data;
  cl_czm_model *z = s->model->z;
  (void)t;
  if (s->kind == 0) return cl_czm_step_begin(z, s->dt, s->model->load_scale, err);
  if (s->kind == 2) return cl_czm_step_end(z, s->dt, err);
  if (s->kind == 3) return cl_czm_step(z, step, s->model->check_every, s->dt, s->model->load_scale, err);
  if (s->model->check_every > 0 && step % s->model->check_every == 0) {
    size_t inserted;
    CL_TRY(cl_czm_check_and_insert(z, &inserted, err));
  }
  return cl_czm_step_forces(z, err);
}

/* model:stage(kind, dt) -> a pipeline stage of the step (cl_czm_step_*): "begin" (v += dt/2 a;
 * u += dt v; force accumulators = the load), "forces" (the stress check and insertion every n
 * steps, then cohesive and element forces), "end" (a = f / m, 0 where prescribed; v += dt/2 a),
 * or "step": the three, and on the GPU a check interval at a time as one cuda graph (nothing may
 * run between its steps) */
static int model_stage(lua_State *L) {
  model_ud *u = check_model(L, 1);
  static const char *const kinds[] = {"begin", "forces", "end", "step", NULL};
  int kind = luaL_checkoption(L, 2, NULL, kinds);
  double dt = luaL_optnumber(L, 3, 0);
  if (kind == 1 || kind == 3) need_law(L, u, "model:stage");
  czm_stage *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, STAGE_MT);
  s->model = u, s->kind = kind, s->dt = dt;
  snprintf(s->stage.name, sizeof s->stage.name, "czm_%s", kinds[kind]);
  s->stage.run = run_czm_stage, s->stage.data = s, s->stage.device = u->z->dev;
  if (kind == 3) s->stage.advance = advance_czm_stage, s->stage.flush = flush_czm_stage;
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1); /* the stage keeps its model alive */
  return 1;
}

int cl_lua_open_czm(lua_State *L) {
  luaL_newmetatable(L, MESH_MT);
  const luaL_Reg mesh_meta[] = {{"__gc", mesh_gc}, {NULL, NULL}};
  luaL_setfuncs(L, mesh_meta, 0);
  const luaL_Reg mesh_methods[] = {{"info", mesh_info}, {"perturb", mesh_perturb}, {"precrack", mesh_precrack},
                                   {"group_nodes", mesh_group_nodes}, {NULL, NULL}};
  luaL_newlib(L, mesh_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_newmetatable(L, MODEL_MT);
  const luaL_Reg model_meta[] = {{"__gc", model_gc}, {NULL, NULL}};
  luaL_setfuncs(L, model_meta, 0);
  const luaL_Reg model_methods[] = {{"field", model_field}, {"set_law", model_set_law}, {"info", model_info}, {"stable_dt", model_stable_dt},
                                    {"forces", model_forces}, {"check", model_check}, {"stresses", model_stresses},
                                    {"insert_marked", model_insert_marked}, {"energies", model_energies},
                                    {"topology_check", model_topology_check}, {"set_load_scale", model_set_load_scale},
                                    {"set_check_every", model_set_check_every}, {"stage", model_stage},
                                    {"pressure_load", model_pressure_load}, {"update_masses", model_update_masses},
                                    {"fix", model_fix}, {"profile", model_profile},
                                    {"set_counts", model_set_counts}, {"set_strength", model_set_strength},
                                    {NULL, NULL}};
  luaL_newlib(L, model_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  cl_lua_stage_metatable(L, STAGE_MT);
  lua_pop(L, 1);
  lua_newtable(L);
  const luaL_Reg fns[] = {{"rect", czm_rect}, {"ring", czm_ring}, {"read", czm_read}, {"model", czm_model}, {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
  lua_setfield(L, -2, "czm");
  return 0;
}
