/* cleave.fe (C part): the quasi-static elastoplastic FE model on the device (kernels/fe_ep/):
 * construction from a mesh given as Lua arrays, constraints, pressures, initial stress, the
 * nonlinear solve and host copies of the results. lua/cleave/fe.lua builds the user-facing API
 * (generators, named arguments, output) on these. */
#include <stdlib.h>
#include <string.h>

#include "../kernels/fe/element.h"
#include "../kernels/fe_ep/fe_ep_cusparse.h"
#include "../kernels/fe_ep/fe_ep_model.h"
#include "../runtime/io/inp.h"
#include "../runtime/io/msh.h"
#include "l_jit.h"
#include "l_util.h"

#define MODEL_MT "cleave.fe.model"

typedef struct model_ud {
  cl_fe_ep_model *m;
} model_ud;

static cl_fe_ep_model *check_model(lua_State *L, int idx) {
  model_ud *u = luaL_checkudata(L, idx, MODEL_MT);
  if (!u->m) luaL_error(L, "fe model: already freed");
  return u->m;
}

static int model_gc(lua_State *L) {
  model_ud *u = luaL_checkudata(L, 1, MODEL_MT);
  cl_fe_ep_destroy(u->m);
  u->m = NULL;
  return 0;
}

/* the numbers of the array t[key] (checked to be a table) as a malloc'ed array, NULL when out of memory */
static double *number_array(lua_State *L, int t, const char *key, size_t *n) {
  lua_getfield(L, t, key);
  const size_t len = lua_rawlen(L, -1);
  double *a = malloc(sizeof *a * (len ? len : 1));
  for (size_t i = 0; a && i < len; i++) {
    lua_rawgeti(L, -1, (lua_Integer)i + 1);
    a[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  *n = len;
  return a;
}

/* cl.fe._model{ shape = "quad" | "tri", order, x = {x1, y1, ...}, elem = {1-based nodes},
 *   law = "elastic" | "mohr_coulomb" | "jit", E, nu, c, phi, plane_strain, thickness; for "jit":
 *   module = law:fe_module(field) on the current device, state0 = {initial values, the law's
 *   order}, ep_index = 1-based index of its state "ep" (0: none) } */
static int fe_model(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  cl_fe_ep_mesh mesh = {0};
  lua_getfield(L, 1, "shape");
  const char *shape = luaL_checkstring(L, -1);
  mesh.shape = strcmp(shape, "quad") == 0 ? CL_FE_QUAD : CL_FE_TRI;
  lua_pop(L, 1);
  lua_getfield(L, 1, "order");
  mesh.order = (int)luaL_checkinteger(L, -1);
  lua_pop(L, 1);
  cl_fe_ep_material mat = {0};
  lua_getfield(L, 1, "law");
  const char *law = luaL_checkstring(L, -1);
  mat.law = strcmp(law, "mohr_coulomb") == 0 ? CL_FE_EP_MOHR_COULOMB : strcmp(law, "jit") == 0 ? CL_FE_EP_JIT
                                                                                             : CL_FE_EP_ELASTIC;
  lua_pop(L, 1);
  if (mat.law == CL_FE_EP_JIT) {
    lua_getfield(L, 1, "module");
    const cl_lua_jit_module *jm = cl_lua_check_jit_module(L, -1);
    if (!cl_device_same(&jm->device->dev, &cl_lua_runtime(L)->device->dev))
      return luaL_error(L, "cleave.fe.model: the law was compiled for %s, the model is on %s", jm->device->dev.name,
                        cl_lua_runtime(L)->device->dev.name);
    mat.law_entry[0] = jm->module->symbols[0], mat.law_entry[1] = jm->module->symbols[1];
    lua_pop(L, 1);
    lua_getfield(L, 1, "state0");
    luaL_checktype(L, -1, LUA_TTABLE);
    mat.law_nstate = (int)lua_rawlen(L, -1);
    if (mat.law_nstate > CL_MP_STATE_MAX) return luaL_error(L, "cleave.fe.model: at most %d law state variables", CL_MP_STATE_MAX);
    for (int k = 0; k < mat.law_nstate; k++) {
      lua_rawgeti(L, -1, k + 1);
      mat.law_state0[k] = luaL_checknumber(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getfield(L, 1, "ep_index"); /* 1-based, 0: none */
    mat.law_ep = (int)luaL_optinteger(L, -1, 0) - 1;
    lua_pop(L, 1);
  }
  const char *keys[] = {"E", "nu", "c", "phi", "thickness"};
  double *vals[] = {&mat.E, &mat.nu, &mat.c, &mat.phi, &mat.thickness};
  for (int i = 0; i < 5; i++) {
    lua_getfield(L, 1, keys[i]);
    *vals[i] = luaL_optnumber(L, -1, 0);
    lua_pop(L, 1);
  }
  lua_getfield(L, 1, "plane_strain");
  mat.plane_strain = lua_toboolean(L, -1);
  lua_pop(L, 1);
  for (int i = 0; i < 2; i++) { /* both arrays checked before either is allocated: no leak on error */
    lua_getfield(L, 1, i ? "elem" : "x");
    if (!lua_istable(L, -1)) return luaL_error(L, "cleave.fe: '%s' must be an array of numbers", i ? "elem" : "x");
    lua_pop(L, 1);
  }
  size_t nx, ne;
  double *x = number_array(L, 1, "x", &nx);
  double *ed = number_array(L, 1, "elem", &ne);
  uint32_t *elem = malloc(sizeof *elem * (ne ? ne : 1));
  if (!x || !ed || !elem) {
    free(x), free(ed), free(elem);
    return luaL_error(L, "cleave.fe: out of memory");
  }
  for (size_t i = 0; i < ne; i++) elem[i] = (uint32_t)(ed[i] - 1);
  free(ed);
  const int nn = cl_fe_nodes(mesh.shape, mesh.order);
  mesh.nnodes = nx / 2, mesh.nelems = ne / (size_t)nn, mesh.x = x, mesh.elem = elem;
  model_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->m = NULL;
  luaL_setmetatable(L, MODEL_MT);
  cl_error err;
  cl_status st = cl_fe_ep_create(cl_lua_runtime(L)->device, &mesh, &mat, &u->m, &err);
  free(x), free(elem);
  if (st != CL_OK) return luaL_error(L, "cleave.fe.model: %s", err.msg);
  return 1;
}

/* m:_fix(node (1-based), component (0 x, 1 y), value) */
static int model_fix(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  cl_error err;
  if (cl_fe_ep_fix(m, (size_t)luaL_checkinteger(L, 2) - 1, (int)luaL_checkinteger(L, 3), luaL_checknumber(L, 4), &err))
    return luaL_error(L, "model:fix: %s", err.msg);
  return 0;
}

/* m:grid(ni, nj, wrap): the mesh's nodes are the structured grid node i + ni j (linear = "mg") */
static int model_grid(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  cl_error err;
  if (cl_fe_ep_set_grid(m, (size_t)luaL_checkinteger(L, 2), (size_t)luaL_checkinteger(L, 3), lua_toboolean(L, 4), &err))
    return luaL_error(L, "model:grid: %s", err.msg);
  return 0;
}

/* m:layout("element_minor" | "element_major"): the per-Gauss-point data in a GPU's or the CPU's order
 * (fe_ep_args.h), whatever the device; for tests of the GPU's order on the CPU */
static int model_layout(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  const char *const names[] = {"element_major", "element_minor", NULL};
  const int minor = luaL_checkoption(L, 2, NULL, names);
  cl_error err;
  if (cl_fe_ep_set_layout(m, minor, &err)) return luaL_error(L, "model:layout: %s", err.msg);
  return 0;
}

/* the residual kinds by their CL_FE_EP_STORED ... CL_FE_EP_SUM_FACTORIZED number */
static const char *const residual_names[] = {"stored", "matrix_free", "sum_factorized", NULL};

/* m:residual("stored" | "matrix_free" | "sum_factorized"[, threads]): the element kernels read B-bar
 * (built now) and W or recompute them (B-bar freed), per Gauss point or by sum factorization
 * (cl_fe_ep_set_matrix_free); threads: a GPU block of the sum-factorized kernel (cl_fe_ep_set_sum_threads,
 * default 0: 256) */
static int model_residual(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  const int kind = luaL_checkoption(L, 2, NULL, residual_names);
  const lua_Integer threads = luaL_optinteger(L, 3, 0);
  const int old_threads = m->A.sum_threads;
  cl_error err;
  if (threads < 0 || threads > 256)
    return luaL_error(L, "model:residual: threads must be 0 (the default) or a multiple of 32 up to 256");
  if (cl_fe_ep_set_sum_threads(m, (int)threads, &err)) return luaL_error(L, "model:residual: %s", err.msg);
  if (cl_fe_ep_set_matrix_free(m, kind, &err)) {
    m->A.sum_threads = old_threads; /* the model stays as it was */
    return luaL_error(L, "model:residual: %s", err.msg);
  }
  return 0;
}

/* m:_pressure({edge nodes, 1-based}, p) */
static int model_pressure(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  uint32_t nodes[4];
  const int k = m->A.order + 1;
  if ((int)lua_rawlen(L, 2) != k) return luaL_error(L, "model:pressure: an edge has %d nodes", k);
  for (int a = 0; a < k; a++) {
    lua_rawgeti(L, 2, a + 1);
    nodes[a] = (uint32_t)(lua_tointeger(L, -1) - 1);
    lua_pop(L, 1);
  }
  cl_error err;
  if (cl_fe_ep_edge_pressure(m, nodes, luaL_checknumber(L, 3), &err)) return luaL_error(L, "model:pressure: %s", err.msg);
  return 0;
}

/* m:body_force(bx, by) */
static int model_body_force(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  cl_error err;
  if (cl_fe_ep_body_force(m, luaL_checknumber(L, 2), luaL_checknumber(L, 3), &err))
    return luaL_error(L, "model:gravity: %s", err.msg);
  return 0;
}

static int model_clear_loads(lua_State *L) {
  cl_fe_ep_clear_loads(check_model(L, 1));
  return 0;
}

/* m:_initial_stress(xx, yy, zz, xy) */
static int model_initial_stress(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  const double s[4] = {luaL_checknumber(L, 2), luaL_checknumber(L, 3), luaL_checknumber(L, 4), luaL_checknumber(L, 5)};
  cl_error err;
  if (cl_fe_ep_initial_stress(m, s, &err)) return luaL_error(L, "model:initial_stress: %s", err.msg);
  return 0;
}

static void push_history(lua_State *L, const cl_fe_ep_model *m) {
  lua_createtable(L, (int)m->nhistory, 0);
  for (size_t i = 0; i < m->nhistory; i++) {
    const cl_fe_ep_record *r = &m->history[i];
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, r->increment), lua_setfield(L, -2, "increment");
    lua_pushinteger(L, r->iteration), lua_setfield(L, -2, "iteration");
    lua_pushnumber(L, r->lambda), lua_setfield(L, -2, "lambda");
    lua_pushnumber(L, r->residual), lua_setfield(L, -2, "residual");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

static cl_fe_ep_linear_kind linear_kind(const char *name) {
  return strcmp(name, "pcg") == 0 ? CL_FE_EP_LINEAR_PCG : strcmp(name, "mg") == 0 ? CL_FE_EP_LINEAR_MG
                                                                                   : CL_FE_EP_LINEAR_FACTOR;
}

/* m:_solve(method, increments, tol, max_iter, max_cutbacks, linear, linear_tol) -> report, history (or nil,
 * message, history when it did not converge) */
static int model_solve(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  const char *method = luaL_checkstring(L, 2);
  cl_fe_ep_solve_opts o = {.method = strcmp(method, "newton") == 0 ? CL_FE_EP_NEWTON
                                     : strcmp(method, "is") == 0   ? CL_FE_EP_IS
                                                                   : CL_FE_EP_MIS,
                           .increments = (int)luaL_checkinteger(L, 3), .tol = luaL_checknumber(L, 4),
                           .max_iter = (int)luaL_checkinteger(L, 5), .max_cutbacks = (int)luaL_checkinteger(L, 6),
                           .linear = linear_kind(luaL_optstring(L, 7, "factor")),
                           .linear_tol = luaL_optnumber(L, 8, 1e-12)};
  cl_fe_ep_report rep;
  cl_error err;
  cl_status st = cl_fe_ep_solve(m, &o, &rep, &err);
  if (st != CL_OK && st != CL_ERR_ARG) return luaL_error(L, "model:solve: %s", err.msg);
  if (st != CL_OK) {
    lua_pushnil(L);
    lua_pushstring(L, err.msg);
    push_history(L, m);
    return 3;
  }
  lua_createtable(L, 0, 12);
  const struct { const char *k; int v; } counts[] = {{"increments", rep.increments}, {"iterations", rep.iterations},
      {"residuals", rep.residuals}, {"factorizations", rep.factorizations}, {"cutbacks", rep.cutbacks},
      {"mg_levels", rep.mg_levels}};
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    lua_pushinteger(L, counts[i].v), lua_setfield(L, -2, counts[i].k);
  lua_pushinteger(L, rep.cg_iterations), lua_setfield(L, -2, "cg_iterations");
  const struct { const char *k; double v; } f[] = {{"residual", rep.residual}, {"t_residual", rep.t_residual},
      {"t_tangent", rep.t_tangent}, {"t_factor", rep.t_factor}, {"t_solve", rep.t_solve}};
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) lua_pushnumber(L, f[i].v), lua_setfield(L, -2, f[i].k);
  lua_pushstring(L, cl_fe_ep_solver_name(m, o.linear));
  lua_setfield(L, -2, "linear_solver");
  push_history(L, m);
  return 2;
}

/* m:_get(name) -> array: "u" (2 nnodes, x then y), "sig" (6 G, component-major), "ep" (G), "w" (G: Gauss
 * weight x det J x thickness), "xg" (2 G interleaved) */
static int model_get(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  const char *name = luaL_checkstring(L, 2);
  const size_t G = m->A.ne * m->A.ngp;
  size_t n;
  const double *src = NULL;
  cl_fe_ep_field_id id;
  if (strcmp(name, "u") == 0) id = CL_FE_EP_F_U_N, n = m->ndof;
  else if (strcmp(name, "sig") == 0) id = CL_FE_EP_F_SIG_N, n = 6 * G;
  else if (strcmp(name, "ep") == 0) id = CL_FE_EP_F_EP_N, n = G;
  else if (strcmp(name, "w") == 0) id = CL_FE_EP_F_WDET, n = G;
  else if (strcmp(name, "xg") == 0) src = m->xg, n = 2 * G, id = CL_FE_EP_NFIELDS;
  else return luaL_error(L, "model:get: no array '%s' (u, sig, ep, w, xg)", name);
  double *buf = NULL;
  if (!src) {
    buf = malloc(sizeof *buf * n);
    cl_error err;
    if (!buf) return luaL_error(L, "model:get: out of memory");
    if (cl_fe_ep_get(m, id, buf, &err)) { free(buf); return luaL_error(L, "model:get: %s", err.msg); }
    src = buf;
  }
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) lua_pushnumber(L, src[i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  free(buf);
  return 1;
}

/* m:profile(reps[, "residual"]) -> seconds per residual, seconds per tangent (not timed, nil, when
 * "residual" is asked for alone) */
static int model_profile(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  const lua_Integer reps = luaL_optinteger(L, 2, 10);
  const char *const what[] = {"both", "residual", NULL};
  const int residual_only = luaL_checkoption(L, 3, "both", what);
  if (reps < 1) return luaL_error(L, "model:profile: reps must be >= 1");
  double r, t;
  cl_error err;
  if (cl_fe_ep_profile(m, (int)reps, &r, residual_only ? NULL : &t, &err))
    return luaL_error(L, "model:profile: %s", err.msg);
  lua_pushnumber(L, r);
  if (residual_only) lua_pushnil(L);
  else lua_pushnumber(L, t);
  return 2;
}

/* m:spmv(reps) -> seconds per CSR product of the elastic stiffness: the CG's own, cuSPARSE's (nil on
 * the CPU), their largest relative difference (nil on the CPU) */
static int model_spmv(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  const lua_Integer reps = luaL_optinteger(L, 2, 10);
  if (reps < 1) return luaL_error(L, "model:spmv: reps must be >= 1");
  double own, cusparse, diff;
  cl_error err;
  if (cl_fe_ep_spmv_compare(m, (int)reps, &own, &cusparse, &diff, &err)) return luaL_error(L, "model:spmv: %s", err.msg);
  lua_pushnumber(L, own);
  if (cusparse == cusparse) lua_pushnumber(L, cusparse), lua_pushnumber(L, diff);
  else lua_pushnil(L), lua_pushnil(L);
  return 3;
}

static int model_info(lua_State *L) {
  cl_fe_ep_model *m = check_model(L, 1);
  lua_createtable(L, 0, 8);
  lua_pushinteger(L, (lua_Integer)m->A.nnodes), lua_setfield(L, -2, "nodes");
  lua_pushinteger(L, (lua_Integer)m->A.ne), lua_setfield(L, -2, "elements");
  lua_pushinteger(L, (lua_Integer)m->ndof), lua_setfield(L, -2, "dofs");
  lua_pushinteger(L, (lua_Integer)m->A.nnz), lua_setfield(L, -2, "nonzeros");
  lua_pushinteger(L, m->A.ngp), lua_setfield(L, -2, "gauss_per_element");
  lua_pushinteger(L, m->A.order), lua_setfield(L, -2, "order");
  lua_pushstring(L, m->A.shape == CL_FE_QUAD ? "quad" : "tri"), lua_setfield(L, -2, "shape");
  lua_pushstring(L, m->dev->name), lua_setfield(L, -2, "device");
  lua_pushstring(L, cl_fe_ep_solver_name(m, CL_FE_EP_LINEAR_FACTOR)), lua_setfield(L, -2, "linear_solver");
  lua_pushstring(L, residual_names[m->A.matrix_free]), lua_setfield(L, -2, "residual");
  /* the device memory of the stored B-bar: 0 while matrix-free */
  lua_pushinteger(L, m->f[CL_FE_EP_F_GRAD] ? (lua_Integer)(cl_field_count(m->f[CL_FE_EP_F_GRAD]) * sizeof(double)) : 0);
  lua_setfield(L, -2, "bbar_bytes");
  lua_pushinteger(L, (lua_Integer)(cl_field_count(m->f[CL_FE_EP_F_SIG]) / (m->A.ne * m->A.ngp)));
  lua_setfield(L, -2, "stress_components"); /* stored per Gauss point: xx yy zz xy */
  return 1;
}

/* Gmsh's quadrangle node order (4 corners counter-clockwise, the edge nodes of edges 01, 12, 23, 30,
 * then the interior as a smaller quadrangle) to kernels/fe/quad.h's lexicographic one: entry
 * i + (p + 1) j is the Gmsh index of the node at (i, j). */
static const uint8_t gmsh_q4[4] = {0, 1, 3, 2};
static const uint8_t gmsh_q9[9] = {0, 4, 1, 7, 8, 5, 3, 6, 2};
static const uint8_t gmsh_q16[16] = {0, 4, 5, 1, 11, 12, 13, 6, 10, 15, 14, 7, 3, 9, 8, 2};

/* cl.fe._read_msh(path) -> { shape = "tri" | "quad", order, x = {x1, y1, ...}, elem = {1-based, in
 * tri.h's or quad.h's node order}, edges = { group name = { {nodes along the edge}, ... } },
 * regions = { group name = {1-based elements} } }: a Gmsh mesh of triangles or quadrangles
 * (runtime/io/msh.h) with its grouped boundary lines as edge sets, its grouped cells as regions. */
static int fe_read_msh(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  cl_msh msh;
  cl_error err;
  if (cl_msh_read_cells(path, &msh, &err) != CL_OK) return luaL_error(L, "cleave.fe.read: %s", err.msg);
  const size_t p = (size_t)msh.order, nn = msh.quad ? (p + 1) * (p + 1) : p == 2 ? 6 : 3, ne_nodes = p + 1;
  const uint8_t *order = !msh.quad ? NULL : p == 1 ? gmsh_q4 : p == 2 ? gmsh_q9 : gmsh_q16;
  lua_createtable(L, 0, 6);
  lua_pushstring(L, msh.quad ? "quad" : "tri"), lua_setfield(L, -2, "shape");
  lua_pushinteger(L, msh.order), lua_setfield(L, -2, "order");
  lua_createtable(L, (int)(2 * msh.nnodes), 0);
  for (size_t i = 0; i < 2 * msh.nnodes; i++) lua_pushnumber(L, msh.x[i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_setfield(L, -2, "x");
  lua_createtable(L, (int)(nn * msh.nelems), 0);
  for (size_t e = 0; e < msh.nelems; e++)
    for (size_t a = 0; a < nn; a++)
      lua_pushinteger(L, msh.elem[e * nn + (order ? order[a] : a)] + 1), lua_rawseti(L, -2, (lua_Integer)(e * nn + a) + 1);
  lua_setfield(L, -2, "elem");
  lua_newtable(L); /* edges */
  lua_newtable(L); /* regions */
  for (size_t g = 0; g < msh.ngroups; g++) {
    const int dim = msh.groups[g].dim;
    if (dim != 1 && dim != 2) continue;
    lua_createtable(L, 0, 0);
    lua_Integer k = 0;
    if (dim == 2) {
      for (size_t e = 0; e < msh.nelems; e++)
        if (msh.elem_group[e] == msh.groups[g].tag) lua_pushinteger(L, (lua_Integer)e + 1), lua_rawseti(L, -2, ++k);
      lua_setfield(L, -2, msh.groups[g].name);
      continue;
    }
    for (size_t e = 0; e < msh.nedges; e++) {
      if (msh.edge_group[e] != msh.groups[g].tag) continue;
      const uint32_t *en = msh.edge + e * ne_nodes; /* Gmsh: the two ends, then the interior nodes in order */
      lua_createtable(L, (int)ne_nodes, 0);
      lua_pushinteger(L, en[0] + 1), lua_rawseti(L, -2, 1);
      for (size_t a = 2; a < ne_nodes; a++) lua_pushinteger(L, en[a] + 1), lua_rawseti(L, -2, (lua_Integer)a);
      lua_pushinteger(L, en[1] + 1), lua_rawseti(L, -2, (lua_Integer)ne_nodes);
      lua_rawseti(L, -2, ++k);
    }
    lua_setfield(L, -3, msh.groups[g].name);
  }
  lua_setfield(L, -3, "regions");
  lua_setfield(L, -2, "edges");
  cl_msh_free(&msh);
  return 1;
}

/* cl.fe._read_inp(path) -> { shape, order, x, elem (1-based, tri.h's or quad.h's order), node_sets =
 * { name = {1-based nodes} }, regions = { name = {1-based elements} }, type }: an Abaqus mesh
 * (runtime/io/inp.h). CPE8's serendipity quadrilaterals become 9-node Lagrange ones, the centre node
 * added (after the file's nodes) where the 8-node element maps the natural origin. */
static int fe_read_inp(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  cl_inp inp;
  cl_error err;
  if (cl_inp_read(path, &inp, &err) != CL_OK) return luaL_error(L, "cleave.fe.read: %s", err.msg);
  const int k = inp.nodes_per_elem, quad = k == 4 || k == 8, serendipity = k == 8;
  const int nn = serendipity ? 9 : k;
  const uint8_t *order = !quad ? NULL : k == 4 ? gmsh_q4 : gmsh_q9; /* Abaqus numbers quadrilaterals as Gmsh */
  lua_createtable(L, 0, 7);
  lua_pushstring(L, quad ? "quad" : "tri"), lua_setfield(L, -2, "shape");
  lua_pushinteger(L, k == 3 || k == 4 ? 1 : 2), lua_setfield(L, -2, "order");
  lua_pushstring(L, inp.type), lua_setfield(L, -2, "type");
  lua_createtable(L, (int)(2 * (inp.nnodes + (serendipity ? inp.nelems : 0))), 0);
  for (size_t i = 0; i < 2 * inp.nnodes; i++) lua_pushnumber(L, inp.x[i]), lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_Integer next = (lua_Integer)inp.nnodes; /* 0-based index of the next added centre node */
  for (size_t e = 0; serendipity && e < inp.nelems; e++)
    for (int c = 0; c < 2; c++) { /* the 8-node shape functions at the origin: -1/4 at corners, 1/2 mid-side */
      double v = 0;
      for (int a = 0; a < 8; a++) v += (a < 4 ? -0.25 : 0.5) * inp.x[2 * inp.elem[e * 8 + a] + c];
      lua_pushnumber(L, v), lua_rawseti(L, -2, 2 * (next + (lua_Integer)e) + c + 1);
    }
  lua_setfield(L, -2, "x");
  lua_createtable(L, (int)(nn * inp.nelems), 0);
  for (size_t e = 0; e < inp.nelems; e++)
    for (int a = 0; a < nn; a++) {
      const int src = order ? order[a] : a;
      const lua_Integer node = src < k ? (lua_Integer)inp.elem[e * (size_t)k + src] : next + (lua_Integer)e;
      lua_pushinteger(L, node + 1), lua_rawseti(L, -2, (lua_Integer)(e * (size_t)nn) + a + 1);
    }
  lua_setfield(L, -2, "elem");
  lua_newtable(L); /* node sets */
  lua_newtable(L); /* regions */
  for (size_t i = 0; i < inp.nsets; i++) {
    const cl_inp_set *set = &inp.sets[i];
    lua_createtable(L, (int)set->n, 0);
    for (size_t j = 0; j < set->n; j++) lua_pushinteger(L, set->items[j] + 1), lua_rawseti(L, -2, (lua_Integer)j + 1);
    lua_setfield(L, set->elements ? -2 : -3, set->name);
  }
  lua_setfield(L, -3, "regions");
  lua_setfield(L, -2, "node_sets");
  cl_inp_free(&inp);
  return 1;
}

int cl_lua_open_fe(lua_State *L) {
  luaL_newmetatable(L, MODEL_MT);
  const luaL_Reg meta[] = {{"__gc", model_gc}, {NULL, NULL}};
  luaL_setfuncs(L, meta, 0);
  const luaL_Reg methods[] = {{"fix", model_fix}, {"grid", model_grid}, {"layout", model_layout}, {"residual", model_residual}, {"pressure", model_pressure}, {"body_force", model_body_force},
                              {"clear_loads", model_clear_loads},
                              {"initial_stress", model_initial_stress}, {"solve", model_solve}, {"get", model_get},
                              {"info", model_info}, {"profile", model_profile}, {"spmv", model_spmv}, {NULL, NULL}};
  luaL_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_newtable(L);
  const luaL_Reg fns[] = {{"_model", fe_model}, {"_read_msh", fe_read_msh}, {"_read_inp", fe_read_inp},
                          {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
  lua_setfield(L, -2, "fe");
  return 0;
}
