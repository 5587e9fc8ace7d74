/* cleave.io: VTU/PVD, CSV and PNG output from fields. A mesh is a table
 * { x = field (n x 2|3), triangles = field (m x 3, i32, 1-based) or
 *   cells = { types = u8 field, offsets = i32 field (m+1), connectivity = i32 field } }.
 * Point indices in Lua meshes are 1-based, as everywhere in the Lua API. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../runtime/comm.h"
#include "../runtime/io/checkpoint.h"
#include "../runtime/io/csv.h"
#include "../runtime/io/png.h"
#include "../runtime/io/vtu.h"
#include "l_util.h"

#define PVD_MT "cleave.io.pvd"
#define CSV_MT "cleave.io.csv"

static void *scratch(lua_State *L, size_t bytes) { return lua_newuserdatauv(L, bytes ? bytes : 1, 0); }

static const void *host_of(lua_State *L, cl_field *f) {
  const void *h;
  cl_error err;
  if (cl_field_host(f, &h, &err) != CL_OK) cl_lua_fail(L, &err);
  return h;
}

/* Field values as doubles (SoA), in a scratch userdata left on the stack. */
static double *as_doubles(lua_State *L, cl_field *f) {
  const void *h = host_of(L, f);
  size_t n = cl_field_count(f);
  double *d = scratch(L, n * sizeof *d);
  for (size_t i = 0; i < n; i++) d[i] = cl_dtype_get(f->dtype, h, i);
  return d;
}

/* 1-based i32 indices -> 0-based, in a scratch userdata; checks the range. */
static int32_t *as_indices(lua_State *L, const char *fn, const char *what, cl_field *f, size_t npoints) {
  if (f->dtype != CL_I32 && f->dtype != CL_U32)
    luaL_error(L, "%s: mesh '%s' must be an i32 or u32 field", fn, what);
  const void *h = host_of(L, f);
  size_t n = cl_field_count(f);
  int32_t *out = scratch(L, n * sizeof *out);
  for (size_t i = 0; i < n; i++) {
    double v = cl_dtype_get(f->dtype, h, i);
    if (v < 1 || v > (double)npoints)
      luaL_error(L, "%s: mesh '%s' entry %I is %f, outside 1..%I", fn, what, (LUAI_UACINT)(i + 1), v, (LUAI_UACINT)npoints);
    out[i] = (int32_t)v - 1;
  }
  return out;
}

/* Triangles (m x 3 SoA) -> VTK connectivity (AoS) */
static void triangle_cells(lua_State *L, cl_mesh_view *m, const int32_t *tri, size_t ntri) {
  uint8_t *types = scratch(L, ntri);
  int32_t *offsets = scratch(L, (ntri + 1) * sizeof *offsets);
  int32_t *conn = scratch(L, 3 * ntri * sizeof *conn);
  for (size_t e = 0; e < ntri; e++) {
    types[e] = CL_VTK_TRIANGLE;
    offsets[e] = (int32_t)(3 * e);
    for (int c = 0; c < 3; c++) conn[3 * e + c] = tri[(size_t)c * ntri + e];
  }
  offsets[ntri] = (int32_t)(3 * ntri);
  m->ncells = ntri, m->cell_types = types, m->cell_offsets = offsets, m->connectivity = conn;
}

static cl_field *mesh_field(lua_State *L, int mesh, const char *fn, const char *key) {
  cl_field *f = NULL;
  if (lua_getfield(L, mesh, key) != LUA_TNIL && !(f = cl_lua_test_field(L, -1)))
    luaL_error(L, "%s: mesh.%s must be a field, got %s", fn, key, luaL_typename(L, -1));
  lua_pop(L, 1);
  return f;
}

/* Reads the mesh table at idx into m; scratch buffers stay on the stack. */
static void read_mesh(lua_State *L, int idx, const char *fn, cl_mesh_view *m) {
  memset(m, 0, sizeof *m);
  if (lua_getfield(L, idx, "mesh") != LUA_TTABLE) luaL_error(L, "%s: missing argument 'mesh' (a table with x = field)", fn);
  int mesh = lua_gettop(L);
  cl_field *x = mesh_field(L, mesh, fn, "x");
  if (!x) luaL_error(L, "%s: mesh.x (point coordinates, n x 2 or n x 3) is missing", fn);
  if (x->k != 2 && x->k != 3) luaL_error(L, "%s: mesh.x must have 2 or 3 components (has %d)", fn, x->k);
  m->npoints = x->n, m->dim = x->k, m->x = as_doubles(L, x);
  cl_field *tri = mesh_field(L, mesh, fn, "triangles");
  if (tri) {
    if (tri->k != 3) luaL_error(L, "%s: mesh.triangles must have 3 components", fn);
    triangle_cells(L, m, as_indices(L, fn, "triangles", tri, m->npoints), tri->n);
  } else if (lua_getfield(L, mesh, "cells") == LUA_TTABLE) {
    int cells = lua_gettop(L);
    cl_field *types = mesh_field(L, cells, fn, "types"), *offsets = mesh_field(L, cells, fn, "offsets"),
             *conn = mesh_field(L, cells, fn, "connectivity");
    if (!types || !offsets || !conn || types->dtype != CL_U8 || offsets->dtype != CL_I32 || offsets->n != types->n + 1)
      luaL_error(L, "%s: mesh.cells needs types (u8, m), offsets (i32, m+1, 0-based) and connectivity (i32, 1-based)", fn);
    m->ncells = types->n;
    m->cell_types = host_of(L, types);
    m->cell_offsets = host_of(L, offsets);
    m->connectivity = as_indices(L, fn, "cells.connectivity", conn, m->npoints);
    if (m->cell_offsets[0] != 0 || (size_t)m->cell_offsets[m->ncells] != cl_field_count(conn))
      luaL_error(L, "%s: mesh.cells.offsets must start at 0 and end at #connectivity", fn);
  } else {
    lua_pop(L, 1);
  }
}

/* Reads { name = field, ... } at key into views of n rows. */
static size_t read_arrays(lua_State *L, int idx, const char *fn, const char *key, size_t n, cl_array_view **out) {
  *out = NULL;
  if (lua_getfield(L, idx, key) == LUA_TNIL) return 0;
  if (!lua_istable(L, -1)) luaL_error(L, "%s: argument '%s' must be a table of name = field", fn, key);
  int t = lua_gettop(L);
  size_t count = 0;
  for (lua_pushnil(L); lua_next(L, t); lua_pop(L, 1)) count++;
  cl_array_view *v = scratch(L, count * sizeof *v);
  size_t i = 0;
  for (lua_pushnil(L); lua_next(L, t); lua_pop(L, 1)) {
    cl_field *f = cl_lua_test_field(L, -1);
    if (lua_type(L, -2) != LUA_TSTRING || !f)
      luaL_error(L, "%s: entries of '%s' must be name = field", fn, key);
    if (f->n != n)
      luaL_error(L, "%s: %s.%s has %I rows, the mesh needs %I", fn, key, lua_tostring(L, -2),
                 (LUAI_UACINT)f->n, (LUAI_UACINT)n);
    v[i].name = lua_tostring(L, -2), v[i].dtype = f->dtype, v[i].ncomp = f->k, v[i].data = host_of(L, f);
    i++;
  }
  *out = v;
  return count;
}

static const char *const vtu_args[] = {"path", "mesh", "point_data", "cell_data", "encoding", NULL};

static void write_vtu(lua_State *L, int idx, const char *fn, const char *path) {
  cl_mesh_view m;
  read_mesh(L, idx, fn, &m);
  cl_array_view *pa, *ca;
  m.npoint_arrays = read_arrays(L, idx, fn, "point_data", m.npoints, &pa);
  m.point_arrays = pa;
  m.ncell_arrays = read_arrays(L, idx, fn, "cell_data", m.ncells, &ca);
  m.cell_arrays = ca;
  if (m.ncell_arrays && !m.ncells) luaL_error(L, "%s: 'cell_data' given but the mesh has no cells", fn);
  const char *enc = cl_lua_opt_string(L, idx, fn, "encoding", "base64");
  cl_vtu_encoding e = CL_VTU_BASE64;
  if (strcmp(enc, "raw") == 0) e = CL_VTU_RAW;
  else if (strcmp(enc, "base64") != 0) luaL_error(L, "%s: argument 'encoding' must be \"base64\" or \"raw\" (got \"%s\")", fn, enc);
  cl_error err;
  if (cl_vtu_write(path, &m, e, &err) != CL_OK) cl_lua_fail(L, &err);
}

static const char *required_path(lua_State *L, int idx, const char *fn) {
  const char *path = cl_lua_opt_string(L, idx, fn, "path", NULL);
  if (!path || !*path) luaL_error(L, "%s: missing argument 'path'", fn);
  return path;
}

/* cleave.io.vtu{ path = , mesh = , point_data = {..}, cell_data = {..}, encoding = "base64"|"raw" } */
static int io_vtu(lua_State *L) {
  const char *fn = "cleave.io.vtu";
  cl_lua_check_args(L, 1, fn, vtu_args);
  write_vtu(L, 1, fn, required_path(L, 1, fn));
  return 0;
}

typedef struct pvd_ud {
  cl_pvd *pvd;
  char base[1024]; /* path of the .pvd without the extension */
  long count;
  int follower;    /* a rank other than 0 of a job of several: rank 0 writes the .pvd */
} pvd_ud;

static pvd_ud *check_pvd(lua_State *L) {
  pvd_ud *p = luaL_checkudata(L, 1, PVD_MT);
  if (!p->pvd && !p->follower) luaL_error(L, "time series is closed");
  return p;
}

static const char *const pvd_args[] = {"keep_until", NULL};

/* cleave.io.pvd(path [, { keep_until = t }]) -> series; series:write{ time = , mesh = , point_data = , ... }.
 * keep_until continues an existing series (a run restored from a checkpoint): its frames up to
 * time t stay, later ones are dropped, and the next frame is numbered after the kept ones. */
static int io_pvd(lua_State *L) {
  const char *fn = "cleave.io.pvd";
  const char *path = luaL_checkstring(L, 1);
  size_t len = strlen(path);
  if (len < 5 || strcmp(path + len - 4, ".pvd") != 0 || len >= sizeof((pvd_ud *)0)->base)
    return luaL_error(L, "cleave.io.pvd: path must end in .pvd (got '%s')", path);
  int continues = !lua_isnoneornil(L, 2);
  double until = 0;
  if (continues) {
    cl_lua_check_args(L, 2, fn, pvd_args);
    until = cl_lua_req_number(L, 2, fn, "keep_until");
  }
  pvd_ud *p = lua_newuserdatauv(L, sizeof *p, 0);
  memset(p, 0, sizeof *p);
  luaL_setmetatable(L, PVD_MT);
  cl_error err;
  p->follower = cl_comm_rank() > 0;
  size_t kept = 0;
  cl_status s = CL_OK;
  if (!continues) s = p->follower ? CL_OK : cl_pvd_open(&p->pvd, path, &err);
  else if (p->follower) s = cl_pvd_kept(path, until, &kept, &err);
  else if ((s = cl_pvd_continue(&p->pvd, path, until, &err)) == CL_OK) kept = cl_pvd_count(p->pvd);
  if (s != CL_OK) return cl_lua_fail(L, &err);
  p->count = (long)kept;
  memcpy(p->base, path, len - 4);
  return 1;
}

static const char *const pvd_write_args[] = {"time", "mesh", "point_data", "cell_data", "encoding", "pieces", NULL};

/* series:write{ ..., pieces = true } in a job of several ranks: every rank writes its part of the
 * data set as <base>_<step>_<rank>.vtu; when all have, rank 0 writes <base>_<step>.pvtu naming
 * them and adds it to the series. Every rank must call it. */
static int pvd_write_pieces(lua_State *L, pvd_ud *p, const char *fn, double time) {
  int size = cl_comm_size(), rank = cl_comm_rank();
  char path[1100];
  snprintf(path, sizeof path, "%s_%06ld_%d.vtu", p->base, p->count, rank);
  write_vtu(L, 2, fn, path);
  cl_error err;
  if (cl_comm_barrier(&err) != CL_OK) return cl_lua_fail(L, &err); /* every piece is complete */
  snprintf(path, sizeof path, "%s_%06ld.pvtu", p->base, p->count);
  p->count++;
  lua_pushstring(L, path);
  if (rank != 0) return 1;
  const char *slash = strrchr(p->base, '/');
  const char *name = slash ? slash + 1 : p->base;
  char **pieces = scratch(L, (size_t)size * sizeof *pieces);
  for (int r = 0; r < size; r++) {
    size_t len = strlen(name) + 32;
    pieces[r] = scratch(L, len);
    snprintf(pieces[r], len, "%s_%06ld_%d.vtu", name, p->count - 1, r);
  }
  cl_mesh_view m;
  read_mesh(L, 2, fn, &m);
  cl_array_view *pa, *ca;
  m.npoint_arrays = read_arrays(L, 2, fn, "point_data", m.npoints, &pa), m.point_arrays = pa;
  m.ncell_arrays = read_arrays(L, 2, fn, "cell_data", m.ncells, &ca), m.cell_arrays = ca;
  if (cl_pvtu_write(path, &m, (const char *const *)pieces, size, &err) != CL_OK) return cl_lua_fail(L, &err);
  slash = strrchr(path, '/');
  if (cl_pvd_add(p->pvd, time, slash ? slash + 1 : path, &err) != CL_OK) return cl_lua_fail(L, &err);
  lua_pushstring(L, path);
  return 1;
}

/* series:write{ time =, mesh =, point_data =, cell_data =, encoding =, pieces = false }: in a job of
 * several ranks a whole data set is written by rank 0 only (the others return nil), a piece per
 * rank with pieces = true */
static int pvd_write(lua_State *L) {
  const char *fn = "series:write";
  pvd_ud *p = check_pvd(L);
  cl_lua_check_args(L, 2, fn, pvd_write_args);
  double time = cl_lua_req_number(L, 2, fn, "time");
  if (cl_lua_opt_boolean(L, 2, fn, "pieces", 0) && cl_comm_size() > 1) return pvd_write_pieces(L, p, fn, time);
  if (p->follower) return 0;
  char path[1100];
  snprintf(path, sizeof path, "%s_%06ld.vtu", p->base, p->count);
  write_vtu(L, 2, fn, path);
  const char *slash = strrchr(path, '/');
  cl_error err;
  if (cl_pvd_add(p->pvd, time, slash ? slash + 1 : path, &err) != CL_OK) return cl_lua_fail(L, &err);
  p->count++;
  lua_pushstring(L, path);
  return 1;
}

static int pvd_close(lua_State *L) {
  pvd_ud *p = luaL_checkudata(L, 1, PVD_MT);
  if (p->pvd) cl_pvd_close(p->pvd);
  p->pvd = NULL;
  return 0;
}

typedef struct csv_ud {
  cl_csv *csv;
  size_t ncols;
  int names; /* registry ref to the column names table */
} csv_ud;

static const char *const csv_args[] = {"path", "columns", "append", NULL};

/* cleave.io.csv{ path = , columns = { "step", "t", ... }, append = false } -> writer;
 * writer:row{...}; append: rows go after those the file has (a restored run's history) */
static int io_csv(lua_State *L) {
  const char *fn = "cleave.io.csv";
  cl_lua_check_args(L, 1, fn, csv_args);
  const char *path = required_path(L, 1, fn);
  if (lua_getfield(L, 1, "columns") != LUA_TTABLE || luaL_len(L, -1) == 0)
    return luaL_error(L, "%s: argument 'columns' must be a non-empty list of names", fn);
  int cols = lua_gettop(L);
  size_t n = (size_t)luaL_len(L, cols);
  const char **names = scratch(L, n * sizeof *names);
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, cols, (lua_Integer)i + 1);
    if (lua_type(L, -1) != LUA_TSTRING) return luaL_error(L, "%s: column %I is not a string", fn, (LUAI_UACINT)(i + 1));
    names[i] = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  int append = cl_lua_opt_boolean(L, 1, fn, "append", 0);
  csv_ud *w = lua_newuserdatauv(L, sizeof *w, 0);
  memset(w, 0, sizeof *w);
  w->names = LUA_NOREF;
  luaL_setmetatable(L, CSV_MT);
  cl_error err;
  if ((append ? cl_csv_append : cl_csv_open)(&w->csv, path, n, names, &err) != CL_OK) return cl_lua_fail(L, &err);
  w->ncols = n;
  lua_pushvalue(L, cols);
  w->names = luaL_ref(L, LUA_REGISTRYINDEX);
  return 1;
}

/* writer:row{ v1, v2, ... } or writer:row{ name = v, ... } */
static int csv_row(lua_State *L) {
  csv_ud *w = luaL_checkudata(L, 1, CSV_MT);
  if (!w->csv) return luaL_error(L, "csv writer is closed");
  luaL_checktype(L, 2, LUA_TTABLE);
  double *v = scratch(L, w->ncols * sizeof *v);
  lua_rawgeti(L, LUA_REGISTRYINDEX, w->names);
  int names = lua_gettop(L);
  for (size_t i = 0; i < w->ncols; i++) {
    if (lua_rawgeti(L, 2, (lua_Integer)i + 1) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_rawgeti(L, names, (lua_Integer)i + 1);
      lua_gettable(L, 2);
    }
    if (lua_type(L, -1) != LUA_TNUMBER) {
      lua_rawgeti(L, names, (lua_Integer)i + 1);
      return luaL_error(L, "csv row: column '%s' needs a number", lua_tostring(L, -1));
    }
    v[i] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  cl_error err;
  if (cl_csv_row(w->csv, v, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

static int csv_close(lua_State *L) {
  csv_ud *w = luaL_checkudata(L, 1, CSV_MT);
  if (w->csv) cl_csv_close(w->csv);
  w->csv = NULL;
  if (w->names != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, w->names);
  w->names = LUA_NOREF;
  return 0;
}

/* A picture's width or height in pixels: absent picks it; the writer clamps a given one. */
static int png_pixels(lua_State *L, const char *fn, const char *key) {
  lua_Integer v = cl_lua_opt_integer(L, 1, fn, key, 0);
  if (v < 0 || v > 1000000)
    luaL_error(L, "%s: argument '%s' must be a positive number of pixels (clamped to 200..8000), got %I", fn, key,
               (LUAI_UACINT)v);
  return (int)v;
}

static const char *const png_args[] = {"path", "mesh", "field", "component", "title", "range", "width", "height", "point_size", NULL};

/* cleave.io.png{ path = , mesh = , field = , component = 1 (or "magnitude"), title = ,
 *                range = {lo, hi}, width = , height = , point_size = } */
static int io_png(lua_State *L) {
  const char *fn = "cleave.io.png";
  cl_lua_check_args(L, 1, fn, png_args);
  const char *path = required_path(L, 1, fn);
  cl_mesh_view m;
  read_mesh(L, 1, fn, &m);
  cl_field *f = cl_lua_req_field(L, 1, fn, "field");
  if (f->n != m.npoints)
    return luaL_error(L, "%s: field has %I rows, the mesh has %I points", fn, (LUAI_UACINT)f->n, (LUAI_UACINT)m.npoints);
  double *all = as_doubles(L, f), *value = scratch(L, f->n * sizeof *value);
  int magnitude = lua_getfield(L, 1, "component") == LUA_TSTRING && strcmp(lua_tostring(L, -1), "magnitude") == 0;
  lua_pop(L, 1);
  lua_Integer comp = magnitude ? 1 : cl_lua_opt_integer(L, 1, fn, "component", 1);
  if (comp < 1 || comp > f->k) return luaL_error(L, "%s: 'component' must be 1..%d or \"magnitude\"", fn, f->k);
  for (size_t i = 0; i < f->n; i++) {
    double s = 0;
    for (int c = 0; c < f->k && magnitude; c++) s += all[(size_t)c * f->n + i] * all[(size_t)c * f->n + i];
    value[i] = magnitude ? sqrt(s) : all[(size_t)(comp - 1) * f->n + i];
  }
  cl_png_plot plot = {0};
  plot.npoints = m.npoints, plot.x = m.x, plot.y = m.x + m.npoints, plot.value = value;
  if (m.ncells) {
    for (size_t e = 0; e < m.ncells; e++)
      if (m.cell_types[e] != CL_VTK_TRIANGLE || m.cell_offsets[e + 1] - m.cell_offsets[e] != 3)
        return luaL_error(L, "%s: only triangle meshes (3 points per cell) or point clouds can be drawn", fn);
    plot.ntriangles = m.ncells, plot.tri = m.connectivity;
  }
  plot.title = cl_lua_opt_string(L, 1, fn, "title", NULL);
  plot.width = png_pixels(L, fn, "width");
  plot.height = png_pixels(L, fn, "height");
  plot.point_size = cl_lua_opt_number(L, 1, fn, "point_size", 0);
  if (lua_getfield(L, 1, "range") != LUA_TNIL) {
    if (!lua_istable(L, -1) || luaL_len(L, -1) != 2) return luaL_error(L, "%s: 'range' must be {lo, hi}", fn);
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    if (lua_type(L, -2) != LUA_TNUMBER || lua_type(L, -1) != LUA_TNUMBER)
      return luaL_error(L, "%s: 'range' must be two numbers {lo, hi}", fn);
    plot.vmin = lua_tonumber(L, -2), plot.vmax = lua_tonumber(L, -1);
    if (!(plot.vmin < plot.vmax)) return luaL_error(L, "%s: 'range' needs lo < hi", fn);
    plot.fixed_range = 1;
    lua_pop(L, 2);
  }
  lua_pop(L, 1);
  cl_error err;
  if (cl_png_write(path, &plot, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

static const char *const save_args[] = {"path", "fields", "values", NULL};

/* Checks { name = field } (or name = number) at key and leaves it on the stack; returns the count. */
static size_t count_named(lua_State *L, int idx, const char *fn, const char *key, int want_field) {
  if (lua_getfield(L, idx, key) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_newtable(L);
  }
  if (!lua_istable(L, -1)) luaL_error(L, "%s: argument '%s' must be a table of name = %s", fn, key, want_field ? "field" : "number");
  size_t n = 0;
  for (lua_pushnil(L); lua_next(L, -2); lua_pop(L, 1), n++) {
    int ok = lua_type(L, -2) == LUA_TSTRING &&
             (want_field ? cl_lua_test_field(L, -1) != NULL : lua_type(L, -1) == LUA_TNUMBER);
    if (!ok) luaL_error(L, "%s: entries of '%s' must be name = %s", fn, key, want_field ? "field" : "number");
  }
  return n;
}

/* cleave.io.save_checkpoint{ path = , fields = { name = field }, values = { name = number } } */
static int io_save_checkpoint(lua_State *L) {
  const char *fn = "cleave.io.save_checkpoint";
  cl_lua_check_args(L, 1, fn, save_args);
  const char *path = required_path(L, 1, fn);
  size_t nf = count_named(L, 1, fn, "fields", 1);
  int fields = lua_gettop(L);
  size_t nv = count_named(L, 1, fn, "values", 0);
  int values = lua_gettop(L);
  cl_checkpoint_array *arrays = scratch(L, nf * sizeof *arrays);
  cl_checkpoint_value *vals = scratch(L, nv * sizeof *vals);
  size_t i = 0;
  for (lua_pushnil(L); lua_next(L, fields); lua_pop(L, 1), i++) {
    cl_field *f = cl_lua_test_field(L, -1);
    arrays[i] = (cl_checkpoint_array){lua_tostring(L, -2), f->dtype, f->n, f->k, host_of(L, f)};
  }
  i = 0;
  for (lua_pushnil(L); lua_next(L, values); lua_pop(L, 1), i++)
    vals[i] = (cl_checkpoint_value){lua_tostring(L, -2), lua_tonumber(L, -1)};
  cl_error err;
  if (cl_checkpoint_write(path, nv, vals, nf, arrays, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

/* cleave.io.load_checkpoint(path) -> fields (on the current device), values */
static int io_load_checkpoint(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  cl_checkpoint *ck;
  cl_error err;
  if (cl_checkpoint_read(path, &ck, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_runtime *rt = cl_lua_runtime(L);
  lua_createtable(L, 0, (int)ck->narrays);
  for (size_t i = 0; i < ck->narrays; i++) {
    const cl_checkpoint_array *a = &ck->arrays[i];
    cl_field *f;
    cl_status s = cl_field_create(rt->device, a->dtype, a->n, a->k, &f, &err);
    if (s == CL_OK && (s = cl_field_upload(f, a->data, &err)) != CL_OK) cl_field_destroy(f);
    if (s != CL_OK) {
      cl_checkpoint_free(ck);
      return cl_lua_fail(L, &err);
    }
    cl_lua_push_field(L, f);
    lua_setfield(L, -2, a->name);
  }
  lua_createtable(L, 0, (int)ck->nvalues);
  for (size_t i = 0; i < ck->nvalues; i++) {
    lua_pushnumber(L, ck->values[i].value);
    lua_setfield(L, -2, ck->values[i].name);
  }
  cl_checkpoint_free(ck);
  return 2;
}

/* cleave.io.prepare_path(path [, what]): creates the folders of path that are missing and checks
 * that the file can be written, leaving an existing file as it is and no new one; errors
 * start with `what` (runs check their output paths with it before the first step). */
static int io_prepare_path(lua_State *L) {
  const char *path = luaL_checkstring(L, 1), *what = luaL_optstring(L, 2, "cleave.io.prepare_path");
  if (!*path) return luaL_error(L, "%s: the path is empty", what);
  char *folder = scratch(L, strlen(path) + 1);
  for (const char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    memcpy(folder, path, (size_t)(slash - path));
    folder[slash - path] = 0;
    if (mkdir(folder, 0777) != 0 && errno != EEXIST)
      return luaL_error(L, "%s: cannot create the folder '%s' for '%s': %s", what, folder, path, strerror(errno));
  }
  struct stat st;
  int existed = stat(path, &st) == 0;
  if (existed && S_ISDIR(st.st_mode)) return luaL_error(L, "%s: '%s' is a folder; give a file name", what, path);
  FILE *fp = fopen(path, "a");
  if (!fp) return luaL_error(L, "%s: cannot write '%s': %s (choose another path)", what, path, strerror(errno));
  fclose(fp);
  if (!existed) remove(path);
  return 0;
}

int cl_lua_open_io(lua_State *L) {
  luaL_newmetatable(L, PVD_MT);
  const luaL_Reg pvd_meta[] = {{"__gc", pvd_close}, {"__close", pvd_close}, {NULL, NULL}};
  luaL_setfuncs(L, pvd_meta, 0);
  const luaL_Reg pvd_methods[] = {{"write", pvd_write}, {"close", pvd_close}, {NULL, NULL}};
  luaL_newlib(L, pvd_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_newmetatable(L, CSV_MT);
  const luaL_Reg csv_meta[] = {{"__gc", csv_close}, {"__close", csv_close}, {NULL, NULL}};
  luaL_setfuncs(L, csv_meta, 0);
  const luaL_Reg csv_methods[] = {{"row", csv_row}, {"close", csv_close}, {NULL, NULL}};
  luaL_newlib(L, csv_methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  const luaL_Reg io[] = {{"vtu", io_vtu},
                         {"pvd", io_pvd},
                         {"csv", io_csv},
                         {"png", io_png},
                         {"save_checkpoint", io_save_checkpoint},
                         {"load_checkpoint", io_load_checkpoint},
                         {"prepare_path", io_prepare_path},
                         {NULL, NULL}};
  luaL_newlib(L, io);
  lua_setfield(L, -2, "io");
  return 0;
}
