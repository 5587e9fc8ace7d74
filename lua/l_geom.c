/* cleave.geom: shapes built from primitives (rect, box, disk, sphere,
 * cylinder, polygon) and combinators (union +, difference -, intersection *),
 * their grid points as fields, and point clouds read from files.
 *
 * A shape userdata holds the flattened post-order node array that
 * runtime/geom.h evaluates, followed by its polygon vertices, in one block;
 * its user value is the description that tostring shows. 2D primitives get
 * the z range -inf..inf (see geom.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/geom.h"
#include "../runtime/io/point_file.h"
#include "l_util.h"

#define SHAPE_MT "cleave.shape"
/* about 2.4 GB of 3D coordinates; points{max_points = ...} raises it */
#define DEFAULT_MAX_POINTS 100000000
/* longer descriptions of combined shapes are abbreviated to "union(...)" */
#define DESCRIPTION_MAX 120

typedef struct shape_ud {
  size_t count, nvertices, nprimitives;
  int depth; /* most operands pending while it is evaluated */
  cl_shape_node nodes[]; /* count nodes, then 2 * nvertices doubles */
} shape_ud;

static double *vertices_of(shape_ud *u) { return (double *)(u->nodes + u->count); }

static cl_shape view_of(shape_ud *u) { return (cl_shape){u->count, u->nodes, vertices_of(u), u->nvertices}; }

/* Pushes a new shape with room for its nodes and vertices, and its description (popped from the top). */
static shape_ud *new_shape(lua_State *L, size_t count, size_t nvertices, size_t nprimitives, int depth) {
  shape_ud *u = lua_newuserdatauv(L, sizeof *u + count * sizeof(cl_shape_node) + 2 * nvertices * sizeof(double), 1);
  u->count = count, u->nvertices = nvertices, u->nprimitives = nprimitives, u->depth = depth;
  luaL_setmetatable(L, SHAPE_MT);
  lua_rotate(L, -2, 1);
  lua_setiuservalue(L, -2, 1);
  return u;
}

/* The metatable's __name for userdata ("cleave.field"), else the type name. */
static const char *kind_of(lua_State *L, int idx) {
  if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING) {
    const char *name = lua_tostring(L, -1); /* stays alive in the metatable */
    lua_pop(L, 1);
    return name;
  }
  return luaL_typename(L, idx);
}

static int fail(lua_State *L, const char *fname, const cl_error *err) {
  return luaL_error(L, "%s: %s", fname, err->msg);
}

/* ---- primitives ----------------------------------------------------------- */

typedef struct signature {
  const char *fname;
  const char *form; /* the table as the user writes it */
  int count;
  const char *names[6];
} signature;

static void check_table(lua_State *L, const char *fname, const char *form) {
  if (!lua_istable(L, 1)) luaL_error(L, "%s expects a table %s, got %s", fname, form, kind_of(L, 1));
}

/* Named keys other than those in allowed (NULL-terminated) are mistakes. */
static void check_keys(lua_State *L, const char *fname, const char *form, const char *const *allowed) {
  for (lua_pushnil(L); lua_next(L, 1); lua_pop(L, 1)) {
    if (lua_type(L, -2) != LUA_TSTRING) continue;
    const char *key = lua_tostring(L, -2);
    int ok = 0;
    for (const char *const *a = allowed; *a; a++) ok |= strcmp(*a, key) == 0;
    if (!ok) luaL_error(L, "%s: unknown argument '%s' (the form is %s)", fname, key, form);
  }
}

/* Entry i of the table at t, a finite number called what. */
static double table_number(lua_State *L, int t, lua_Integer i, const char *fname, const char *what) {
  lua_rawgeti(L, t, i);
  if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "%s: %s must be a number, got %s", fname, what, kind_of(L, -1));
  double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  if (!isfinite(v)) luaL_error(L, "%s: %s must be finite, got %f", fname, what, v);
  return v;
}

static void read_numbers(lua_State *L, const signature *sig, double *v) {
  static const char *const no_keys[] = {NULL};
  check_table(L, sig->fname, sig->form);
  check_keys(L, sig->fname, sig->form, no_keys);
  size_t len = lua_rawlen(L, 1);
  if (len != (size_t)sig->count)
    luaL_error(L, "%s expects %d numbers %s, got %d", sig->fname, sig->count, sig->form, (int)len);
  for (int k = 0; k < sig->count; k++) v[k] = table_number(L, 1, k + 1, sig->fname, sig->names[k]);
}

static void require_greater(lua_State *L, const signature *sig, const double *v, int hi, int lo) {
  if (!(v[hi] > v[lo]))
    luaL_error(L, "%s: %s (%f) must be greater than %s (%f)", sig->fname, sig->names[hi], v[hi], sig->names[lo],
               v[lo]);
}

static void require_positive(lua_State *L, const signature *sig, const double *v, int k) {
  if (!(v[k] > 0)) luaL_error(L, "%s: %s (%f) must be positive", sig->fname, sig->names[k], v[k]);
}

static int push_primitive(lua_State *L, const char *name, cl_shape_op op, const double p[6]) {
  lua_pushstring(L, name);
  shape_ud *u = new_shape(L, 1, 0, 1, 1);
  u->nodes[0].op = op;
  memcpy(u->nodes[0].p, p, sizeof u->nodes[0].p);
  return 1;
}

static int geom_rect(lua_State *L) {
  static const signature sig = {"cleave.geom.rect", "{x0, x1, y0, y1}", 4, {"x0", "x1", "y0", "y1"}};
  double v[4];
  read_numbers(L, &sig, v);
  require_greater(L, &sig, v, 1, 0);
  require_greater(L, &sig, v, 3, 2);
  return push_primitive(L, "rect", CL_SHAPE_BOX, (double[6]){v[0], v[1], v[2], v[3], -INFINITY, INFINITY});
}

static int geom_box(lua_State *L) {
  static const signature sig = {
      "cleave.geom.box", "{x0, x1, y0, y1, z0, z1}", 6, {"x0", "x1", "y0", "y1", "z0", "z1"}};
  double v[6];
  read_numbers(L, &sig, v);
  for (int k = 1; k < 6; k += 2) require_greater(L, &sig, v, k, k - 1);
  return push_primitive(L, "box", CL_SHAPE_BOX, v);
}

static int geom_disk(lua_State *L) {
  static const signature sig = {"cleave.geom.disk", "{cx, cy, r}", 3, {"cx", "cy", "r"}};
  double v[3];
  read_numbers(L, &sig, v);
  require_positive(L, &sig, v, 2);
  return push_primitive(L, "disk", CL_SHAPE_CYLINDER, (double[6]){v[0], v[1], v[2], -INFINITY, INFINITY, 0});
}

static int geom_sphere(lua_State *L) {
  static const signature sig = {"cleave.geom.sphere", "{cx, cy, cz, r}", 4, {"cx", "cy", "cz", "r"}};
  double v[4];
  read_numbers(L, &sig, v);
  require_positive(L, &sig, v, 3);
  return push_primitive(L, "sphere", CL_SHAPE_BALL, (double[6]){v[0], v[1], v[2], v[3], 0, 0});
}

static int geom_cylinder(lua_State *L) {
  static const signature sig = {"cleave.geom.cylinder", "{cx, cy, r, z0, z1}", 5, {"cx", "cy", "r", "z0", "z1"}};
  double v[5];
  read_numbers(L, &sig, v);
  require_positive(L, &sig, v, 2);
  require_greater(L, &sig, v, 4, 3);
  return push_primitive(L, "cylinder", CL_SHAPE_CYLINDER, (double[6]){v[0], v[1], v[2], v[3], v[4], 0});
}

/* ---- polygon -------------------------------------------------------------- */

static const char polygon_fname[] = "cleave.geom.polygon";
static const char polygon_form[] = "{{x, y}, {x, y}, {x, y}, ..., z0 = , z1 = }";

static void read_vertex(lua_State *L, lua_Integer i, double *xy) {
  lua_rawgeti(L, 1, i);
  int t = lua_gettop(L);
  if (!lua_istable(L, t))
    luaL_error(L, "%s: vertex %d must be a table {x, y}, got %s", polygon_fname, (int)i, kind_of(L, t));
  if (lua_rawlen(L, t) != 2)
    luaL_error(L, "%s: vertex %d must have 2 numbers {x, y}, got %d", polygon_fname, (int)i, (int)lua_rawlen(L, t));
  char what[40];
  for (int k = 0; k < 2; k++) {
    snprintf(what, sizeof what, "%c of vertex %d", "xy"[k], (int)i);
    xy[k] = table_number(L, t, k + 1, polygon_fname, what);
  }
  lua_pop(L, 1);
}

/* Twice the signed area (shoelace formula). */
static double twice_area(const double *v, size_t count) {
  double a = 0;
  for (size_t i = 0, j = count - 1; i < count; j = i++) a += v[2 * j] * v[2 * i + 1] - v[2 * i] * v[2 * j + 1];
  return a;
}

/* The optional thickness z0..z1: both or neither. */
static void read_z_range(lua_State *L, double *z0, double *z1) {
  *z0 = cl_lua_opt_number(L, 1, polygon_fname, "z0", NAN);
  *z1 = cl_lua_opt_number(L, 1, polygon_fname, "z1", NAN);
  if (isnan(*z0) && isnan(*z1)) {
    *z0 = -INFINITY, *z1 = INFINITY;
    return;
  }
  if (isnan(*z0) || isnan(*z1))
    luaL_error(L, "%s: give both z0 and z1 (the thickness for 3D), or neither", polygon_fname);
  if (!isfinite(*z0) || !isfinite(*z1)) luaL_error(L, "%s: z0 and z1 must be finite", polygon_fname);
  if (!(*z1 > *z0)) luaL_error(L, "%s: z1 (%f) must be greater than z0 (%f)", polygon_fname, *z1, *z0);
}

static int geom_polygon(lua_State *L) {
  static const char *const keys[] = {"z0", "z1", NULL};
  check_table(L, polygon_fname, polygon_form);
  check_keys(L, polygon_fname, polygon_form, keys);
  size_t count = lua_rawlen(L, 1);
  if (count < 3) luaL_error(L, "%s needs at least 3 vertices {x, y}, got %d", polygon_fname, (int)count);
  double z0, z1;
  read_z_range(L, &z0, &z1);
  lua_pushstring(L, "polygon");
  shape_ud *u = new_shape(L, 1, count, 1, 1);
  double *v = vertices_of(u);
  for (size_t i = 0; i < count; i++) read_vertex(L, (lua_Integer)i + 1, v + 2 * i);
  if (twice_area(v, count) == 0)
    luaL_error(L, "%s: the vertices enclose no area (are they all on one line?)", polygon_fname);
  u->nodes[0] = (cl_shape_node){CL_SHAPE_POLYGON, {0, (double)count, z0, z1, 0, 0}};
  return 1;
}

/* ---- combinators ---------------------------------------------------------- */

static shape_ud *check_operand(lua_State *L, int idx, const char *fname, const char *which) {
  shape_ud *u = luaL_testudata(L, idx, SHAPE_MT);
  if (!u) luaL_error(L, "%s: the %s operand must be a shape, got %s", fname, which, kind_of(L, idx));
  return u;
}

/* Description "op(a, b)" on the stack, abbreviated when long. */
static void push_combined_description(lua_State *L, const char *opname) {
  lua_getiuservalue(L, 1, 1);
  lua_getiuservalue(L, 2, 1);
  const char *a = lua_tostring(L, -2), *b = lua_tostring(L, -1);
  if (strlen(a) + strlen(b) + strlen(opname) + 4 <= DESCRIPTION_MAX) lua_pushfstring(L, "%s(%s, %s)", opname, a, b);
  else lua_pushfstring(L, "%s(...)", opname);
  lua_replace(L, -3);
  lua_pop(L, 1);
}

/* Nodes of a, then of b (its polygons shifted past a's vertices), then op. */
static int combine(lua_State *L, cl_shape_op op, const char *opname, const char *fname) {
  shape_ud *a = check_operand(L, 1, fname, "first"), *b = check_operand(L, 2, fname, "second");
  int depth = a->depth > b->depth + 1 ? a->depth : b->depth + 1;
  if (depth > CL_SHAPE_STACK_MAX)
    luaL_error(L, "%s: the shape nests more than %d levels deep on the right; combine left to right (a + b + c)",
               fname, CL_SHAPE_STACK_MAX);
  push_combined_description(L, opname);
  shape_ud *u = new_shape(L, a->count + b->count + 1, a->nvertices + b->nvertices, a->nprimitives + b->nprimitives,
                          depth);
  memcpy(u->nodes, a->nodes, a->count * sizeof *u->nodes);
  cl_shape_node *bn = u->nodes + a->count;
  memcpy(bn, b->nodes, b->count * sizeof *bn);
  for (size_t i = 0; i < b->count; i++)
    if (bn[i].op == CL_SHAPE_POLYGON) bn[i].p[0] += (double)a->nvertices;
  u->nodes[u->count - 1] = (cl_shape_node){op, {0}};
  double *v = vertices_of(u);
  memcpy(v, vertices_of(a), 2 * a->nvertices * sizeof *v);
  memcpy(v + 2 * a->nvertices, vertices_of(b), 2 * b->nvertices * sizeof *v);
  return 1;
}

static int shape_union(lua_State *L) { return combine(L, CL_SHAPE_UNION, "union", "cleave.shape:union"); }
static int shape_difference(lua_State *L) {
  return combine(L, CL_SHAPE_DIFFERENCE, "difference", "cleave.shape:difference");
}
static int shape_intersection(lua_State *L) {
  return combine(L, CL_SHAPE_INTERSECTION, "intersection", "cleave.shape:intersection");
}
static int shape_add(lua_State *L) { return combine(L, CL_SHAPE_UNION, "union", "cleave.shape + (union)"); }
static int shape_sub(lua_State *L) {
  return combine(L, CL_SHAPE_DIFFERENCE, "difference", "cleave.shape - (difference)");
}
static int shape_mul(lua_State *L) {
  return combine(L, CL_SHAPE_INTERSECTION, "intersection", "cleave.shape * (intersection)");
}

/* ---- queries -------------------------------------------------------------- */

static shape_ud *check_self(lua_State *L, const char *fname) {
  shape_ud *u = luaL_testudata(L, 1, SHAPE_MT);
  if (!u)
    luaL_error(L, "%s: called on %s, not a shape (call it with a colon: shape:method(...))", fname, kind_of(L, 1));
  return u;
}

static int shape_contains(lua_State *L) {
  shape_ud *u = check_self(L, "cleave.shape:contains");
  double x = luaL_checknumber(L, 2), y = luaL_checknumber(L, 3);
  int dim = lua_isnoneornil(L, 4) ? 2 : 3;
  double z = dim == 3 ? luaL_checknumber(L, 4) : 0;
  cl_shape s = view_of(u);
  lua_pushboolean(L, cl_shape_contains(&s, dim, x, y, z));
  return 1;
}

static int shape_bounds(lua_State *L) {
  static const char *const keys[2][3] = {{"xmin", "ymin", "zmin"}, {"xmax", "ymax", "zmax"}};
  shape_ud *u = check_self(L, "cleave.shape:bounds");
  cl_shape s = view_of(u);
  double lo[3], hi[3];
  cl_shape_bounds(&s, 3, lo, hi);
  lua_createtable(L, 0, 6);
  for (int k = 0; k < 3; k++) {
    lua_pushnumber(L, lo[k]);
    lua_setfield(L, -2, keys[0][k]);
    lua_pushnumber(L, hi[k]);
    lua_setfield(L, -2, keys[1][k]);
  }
  return 1;
}

/* The shape's dimension: 3 when it is bounded in z (a box, sphere, cylinder, a polygon with
 * z0/z1, or a combination bounded by one), 2 when it extends over every z (2D primitives). */
static int dimension_of(shape_ud *u) {
  cl_shape s = view_of(u);
  double lo[3], hi[3];
  cl_shape_bounds(&s, 3, lo, hi);
  return isfinite(lo[2]) && isfinite(hi[2]) ? 3 : 2;
}

static int shape_dim(lua_State *L) {
  lua_pushinteger(L, dimension_of(check_self(L, "cleave.shape:dim")));
  return 1;
}

static int shape_tostring(lua_State *L) {
  shape_ud *u = check_self(L, "cleave.shape:__tostring");
  lua_getiuservalue(L, 1, 1);
  lua_pushfstring(L, "shape<%s, %d primitive%s>", lua_tostring(L, -1), (int)u->nprimitives,
                  u->nprimitives == 1 ? "" : "s");
  return 1;
}

/* An n x k f64 field on the runtime's device holding data (SoA); NULL and err on failure. */
static cl_field *host_to_field(cl_runtime *rt, size_t n, int k, const double *data, cl_error *err) {
  cl_field *f;
  if (cl_field_create(rt->device, CL_F64, n, k, &f, err) != CL_OK) return NULL;
  if (cl_field_upload(f, data, err) != CL_OK) {
    cl_field_destroy(f);
    return NULL;
  }
  return f;
}

static int shape_points(lua_State *L) {
  static const char fname[] = "cleave.shape:points";
  static const char *const args[] = {"dx", "dim", "max_points", NULL};
  shape_ud *u = check_self(L, fname);
  cl_lua_check_args(L, 2, fname, args);
  double dx = cl_lua_req_number(L, 2, fname, "dx");
  lua_Integer dim = cl_lua_opt_integer(L, 2, fname, "dim", dimension_of(u));
  lua_Integer max_points = cl_lua_opt_integer(L, 2, fname, "max_points", DEFAULT_MAX_POINTS);
  if (dim != 2 && dim != 3) luaL_error(L, "%s: dim must be 2 or 3 (got %I)", fname, (LUAI_UACINT)dim);
  if (max_points < 1) luaL_error(L, "%s: max_points must be positive (got %I)", fname, (LUAI_UACINT)max_points);
  cl_runtime *rt = cl_lua_runtime(L);
  cl_shape s = view_of(u);
  size_t n;
  double *x;
  cl_error err;
  if (cl_shape_points(&s, (int)dim, dx, (size_t)max_points, &n, &x, &err) != CL_OK) return fail(L, fname, &err);
  cl_field *f = host_to_field(rt, n, (int)dim, x, &err);
  free(x);
  if (!f) return fail(L, fname, &err);
  cl_lua_push_field(L, f);
  return 1;
}

/* shape:grid_box{ dx =, dim = } -> { origin = {x, y, z}, first = {i, j, k}, count = {nx, ny, nz} }
 * when the shape is one box (its points fill a box of grid indices, 0-based from the grid's
 * origin: cl_shape_grid_box), else nil: a rank can then make its own points alone. */
static int shape_grid_box(lua_State *L) {
  static const char fname[] = "cleave.shape:grid_box";
  static const char *const args[] = {"dx", "dim", NULL};
  shape_ud *u = check_self(L, fname);
  cl_lua_check_args(L, 2, fname, args);
  double dx = cl_lua_req_number(L, 2, fname, "dx");
  lua_Integer dim = cl_lua_opt_integer(L, 2, fname, "dim", dimension_of(u));
  cl_shape s = view_of(u);
  double lo[3];
  size_t first[3], count[3];
  if (!cl_shape_grid_box(&s, (int)dim, dx, lo, first, count)) return 0;
  lua_createtable(L, 0, 3);
  const char *names[] = {"origin", "first", "count"};
  for (int t = 0; t < 3; t++) {
    lua_createtable(L, 3, 0);
    for (int a = 0; a < 3; a++) {
      if (t == 0) lua_pushnumber(L, lo[a]);
      else lua_pushinteger(L, (lua_Integer)(t == 1 ? first[a] : count[a]));
      lua_rawseti(L, -2, a + 1);
    }
    lua_setfield(L, -2, names[t]);
  }
  return 1;
}

/* ---- point files ---------------------------------------------------------- */

static int geom_read_points(lua_State *L) {
  static const char fname[] = "cleave.geom.read_points";
  if (lua_type(L, 1) != LUA_TSTRING) luaL_error(L, "%s expects a file path, got %s", fname, kind_of(L, 1));
  cl_runtime *rt = cl_lua_runtime(L);
  int dim;
  size_t n;
  double *x, *volume;
  cl_error err;
  if (cl_point_file_read(lua_tostring(L, 1), &dim, &n, &x, &volume, &err) != CL_OK) return fail(L, fname, &err);
  cl_field *fx = host_to_field(rt, n, dim, x, &err);
  cl_field *fv = fx ? host_to_field(rt, n, 1, volume, &err) : NULL;
  free(x);
  free(volume);
  if (!fv) {
    if (fx) cl_field_destroy(fx);
    return fail(L, fname, &err);
  }
  cl_lua_push_field(L, fx);
  cl_lua_push_field(L, fv);
  lua_pushinteger(L, dim);
  return 3;
}

int cl_lua_open_geom(lua_State *L) {
  luaL_newmetatable(L, SHAPE_MT);
  const luaL_Reg meta[] = {
      {"__add", shape_add}, {"__sub", shape_sub}, {"__mul", shape_mul}, {"__tostring", shape_tostring}, {NULL, NULL}};
  luaL_setfuncs(L, meta, 0);
  const luaL_Reg methods[] = {{"union", shape_union},       {"difference", shape_difference},
                              {"intersection", shape_intersection}, {"contains", shape_contains},
                              {"bounds", shape_bounds},     {"points", shape_points},     {"grid_box", shape_grid_box},
                              {"dim", shape_dim},
                              {NULL, NULL}};
  luaL_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  const luaL_Reg geom[] = {{"rect", geom_rect},         {"box", geom_box},           {"disk", geom_disk},
                           {"sphere", geom_sphere},     {"cylinder", geom_cylinder}, {"polygon", geom_polygon},
                           {"read_points", geom_read_points}, {NULL, NULL}};
  luaL_newlib(L, geom);
  lua_setfield(L, -2, "geom");
  return 0;
}
