/* cleave.pd.bonds: a body's bonds as a CSR list (any points) or a lattice
 * (grid bodies, kernels/pd/lattice.h), with one interface: count, entries,
 * cut, broken, counts, stiffness, state, set_state. The host-side methods walk
 * a host copy of the bonds through one iterator, whatever the layout.
 * Counting: both layouts store a bond at each of its two ends (two entries,
 * broken together); count, cut and broken count bonds, each once. */
#include "l_pd_bonds.h"

#include <math.h>
#include <string.h>

#include "../kernels/pd/pmb.h"

#define BONDS_MT "cleave.pd.bonds"

cl_lua_bonds *cl_lua_check_bonds(lua_State *L, int idx) {
  cl_lua_bonds *b = luaL_checkudata(L, idx, BONDS_MT);
  if (!b->device) luaL_error(L, "bond list has been released");
  return b;
}

void cl_lua_bonds_args(const cl_lua_bonds *b, cl_pd_force_args *a) {
  if (b->lattice) {
    a->map = b->l.map, a->cell = b->l.cell, a->stencil = b->l.offset, a->stencil_geometry = b->l.geometry;
    a->stencil_host = b->l.host_offset, a->stencil_geometry_host = b->l.host_geometry;
    memcpy(a->map_dims, b->l.dims, sizeof a->map_dims);
    a->nstencil = b->l.nstencil, a->broken = b->l.broken;
  } else {
    a->offsets = b->b.offsets, a->neighbors = b->b.neighbors;
  }
}

void cl_lua_bonds_slots(const cl_lua_bonds *b, size_t *rows, int *k) {
  *rows = b->lattice ? b->n : b->b.nbonds;
  *k = b->lattice ? (int)b->l.nstencil : 1;
}

void cl_lua_check_points(lua_State *L, const char *fn, const char *key, cl_field *x) {
  if ((x->dtype != CL_F32 && x->dtype != CL_F64) || (x->k != 2 && x->k != 3))
    luaL_error(L, "%s: '%s' must be an f32 or f64 field of 2 or 3 components (got %s, k = %d)", fn, key,
               cl_dtype_name(x->dtype), x->k);
}

static size_t bond_entries(const cl_lua_bonds *b) { return b->lattice ? b->l.nbonds : b->b.nbonds; }

/* u32 words of bond state: the list's entries (index + broken flag), or the lattice's bits. */
static size_t state_words(const cl_lua_bonds *b) { return b->lattice ? (size_t)b->l.words * b->n : b->b.nbonds; }
static uint32_t *state_array(const cl_lua_bonds *b) { return b->lattice ? b->l.broken : b->b.neighbors; }

static int bonds_gc(lua_State *L) {
  cl_lua_bonds *b = luaL_checkudata(L, 1, BONDS_MT);
  if (b->device) {
    cl_device *d = &b->device->dev;
    if (b->lattice) {
      cl_pd_lattice_release(d, &b->l);
    } else {
      d->release(d, b->b.offsets);
      d->release(d, b->b.neighbors);
    }
    cl_device_ref_release(b->device);
    b->device = NULL;
  }
  return 0;
}

static const char *const bonds_args[] = {"x", "delta", "layout", "dx", NULL};

/* cleave.pd.bonds{ x = field (n x dim), delta = horizon, layout = "list" | "lattice", dx = grid
 * spacing (lattice) } -> bonds on x's device */
static int bonds_new(lua_State *L) {
  const char *fn = "cleave.pd.bonds";
  cl_lua_check_args(L, 1, fn, bonds_args);
  cl_field *x = cl_lua_req_field(L, 1, fn, "x");
  double delta = cl_lua_req_number(L, 1, fn, "delta");
  cl_lua_check_points(L, fn, "x", x);
  if (!(delta > 0)) return luaL_error(L, "%s: argument 'delta' (the horizon) must be positive", fn);
  const char *layout = cl_lua_opt_string(L, 1, fn, "layout", "list");
  int lattice = strcmp(layout, "lattice") == 0;
  if (!lattice && strcmp(layout, "list") != 0)
    return luaL_error(L, "%s: argument 'layout' must be \"list\" or \"lattice\" (got \"%s\")", fn, layout);
  double dx = lattice ? cl_lua_req_number(L, 1, fn, "dx") : 0;
  cl_lua_bonds *b = lua_newuserdatauv(L, sizeof *b, 1);
  memset(b, 0, sizeof *b);
  luaL_setmetatable(L, BONDS_MT);
  cl_error err;
  cl_device *d = &x->device->dev;
  if (lattice) {
    const void *xh;
    if (cl_field_host(x, &xh, &err) != CL_OK ||
        cl_pd_build_lattice(d, x->dtype, x->k, x->n, xh, dx, delta, &b->l, &err) != CL_OK)
      return cl_lua_fail(L, &err);
  } else if (cl_pd_build_bonds(d, x->dtype, x->k, x->n, x->data, delta, &b->b, &err) != CL_OK) {
    return cl_lua_fail(L, &err);
  }
  b->device = cl_device_ref_retain(x->device);
  b->n = x->n;
  b->delta = delta;
  b->lattice = lattice;
  lua_getfield(L, 1, "x");
  lua_setiuservalue(L, -2, 1); /* the coordinates the bonds were built on */
  return 1;
}

/* ---- a host copy of the bonds and its iterator ------------------------------ */

typedef struct bond_view {
  const cl_lua_bonds *b;
  uint32_t *offsets, *entries; /* list: rows and entries */
  uint32_t *map, *cell, *state; /* lattice: the map, each point's cell, the state bits */
  int32_t *step;                /* lattice: map offset of each stencil entry */
} bond_view;

static void *host_buffer(lua_State *L, size_t count, size_t size) { return lua_newuserdatauv(L, (count ? count : 1) * size, 0); }

static void download(lua_State *L, cl_device *d, void *dst, const void *src, size_t bytes) {
  cl_error err;
  if (bytes && d->to_host(d, dst, src, bytes, &err) != CL_OK) cl_lua_fail(L, &err);
}

/* Copies the bonds to the host (buffers are Lua userdata on the stack). */
static void view_open(lua_State *L, const cl_lua_bonds *b, bond_view *v) {
  cl_device *d = &b->device->dev;
  memset(v, 0, sizeof *v);
  v->b = b;
  if (!b->lattice) {
    v->offsets = host_buffer(L, b->n + 1, sizeof *v->offsets);
    v->entries = host_buffer(L, b->b.nbonds, sizeof *v->entries);
    download(L, d, v->offsets, b->b.offsets, (b->n + 1) * sizeof *v->offsets);
    download(L, d, v->entries, b->b.neighbors, b->b.nbonds * sizeof *v->entries);
    return;
  }
  const cl_pd_lattice *l = &b->l;
  v->map = host_buffer(L, l->cells, sizeof *v->map);
  v->cell = host_buffer(L, b->n, sizeof *v->cell);
  v->state = host_buffer(L, state_words(b), sizeof *v->state);
  v->step = host_buffer(L, l->nstencil, sizeof *v->step);
  download(L, d, v->map, l->map, l->cells * sizeof *v->map);
  download(L, d, v->cell, l->cell, b->n * sizeof *v->cell);
  download(L, d, v->state, l->broken, state_words(b) * sizeof *v->state);
  download(L, d, v->step, l->offset, l->nstencil * sizeof *v->step);
}

/* Called for each bond entry (i, j) of point i with whether it is broken;
 * returns 1 to break it. Runs in parallel over points: write only to i's data. */
typedef int (*bond_visit)(void *ctx, size_t i, size_t j, int broken);

/* Visits every bond entry (visit may be NULL); returns how many are broken after the visit. */
static size_t view_each(bond_view *v, bond_visit visit, void *ctx) {
  const cl_lua_bonds *b = v->b;
  size_t broken = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : broken)
  for (size_t i = 0; i < b->n; i++) {
    if (!b->lattice) {
      for (uint32_t k = v->offsets[i]; k < v->offsets[i + 1]; k++) {
        uint32_t entry = v->entries[k];
        int was = (entry & CL_PD_BROKEN) != 0;
        if (visit && visit(ctx, i, entry & CL_PD_INDEX, was) && !was) v->entries[k] = entry | CL_PD_BROKEN, was = 1;
        broken += (size_t)was;
      }
      continue;
    }
    for (uint32_t k = 0; k < b->l.nstencil; k++) {
      uint32_t j = v->map[(int64_t)v->cell[i] + v->step[k]];
      if (j == CL_PD_ABSENT) continue;
      uint32_t *word = &v->state[(size_t)(k / 32) * b->n + i], bit = 1u << (k % 32);
      int was = (*word & bit) != 0;
      if (visit && visit(ctx, i, j, was) && !was) *word |= bit, was = 1;
      broken += (size_t)was;
    }
  }
  return broken;
}

/* Puts the host copy's state back on the device. */
static void view_store(lua_State *L, bond_view *v) {
  cl_device *d = &v->b->device->dev;
  cl_error err;
  const void *src = v->b->lattice ? (const void *)v->state : (const void *)v->entries;
  if (d->to_device(d, state_array(v->b), src, state_words(v->b) * sizeof(uint32_t), &err) != CL_OK) cl_lua_fail(L, &err);
}

/* ---- methods ----------------------------------------------------------------- */

/* bonds:broken() -> number of broken bonds, each counted once (half the broken entries). A lattice
 * sets bits only for bonds between points, so it counts its state bits: 4 B per point to copy
 * instead of the whole view (this runs at every history row of a run).
 * bonds:broken(rows) -> the broken entries of the first `rows` points (a partitioned body's owned
 * points: every bond's entry of each end is counted, so a sum over the ranks counts each bond twice). */
static int bonds_broken(lua_State *L) {
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  int whole = lua_isnoneornil(L, 2);
  lua_Integer rows = whole ? (lua_Integer)b->n : luaL_checkinteger(L, 2);
  if (rows < 0 || (size_t)rows > b->n)
    return luaL_error(L, "bonds:broken: 'rows' must be between 0 and %I (the points), got %I", (LUAI_UACINT)b->n, (LUAI_UACINT)rows);
  size_t broken = 0;
  if (!b->lattice) {
    bond_view v;
    view_open(L, b, &v);
    if (whole) {
      broken = view_each(&v, NULL, NULL);
    } else {
      for (size_t k = 0; k < v.offsets[rows]; k++) broken += (v.entries[k] & CL_PD_BROKEN) != 0;
    }
  } else {
    size_t words = state_words(b);
    uint32_t *state = host_buffer(L, words, sizeof *state);
    download(L, &b->device->dev, state, b->l.broken, words * sizeof *state);
    /* word plane w holds bits w*32.. of every point: point i's word is state[w*n + i] */
#pragma omp parallel for reduction(+ : broken)
    for (size_t k = 0; k < words; k++) broken += (k % b->n < (size_t)rows) * (size_t)__builtin_popcount(state[k]);
  }
  lua_pushinteger(L, (lua_Integer)(whole ? broken / 2 : broken));
  return 1;
}

static int count_visit(void *ctx, size_t i, size_t j, int broken) {
  (void)j, (void)broken;
  ((uint32_t *)ctx)[i]++;
  return 0;
}

/* Uploads host values (n of type t) as a new field on the bonds' device, pushed. */
static void push_values(lua_State *L, const cl_lua_bonds *b, cl_dtype t, const void *values) {
  cl_field *f;
  cl_error err;
  if (cl_field_create(b->device, t, b->n, 1, &f, &err) != CL_OK) cl_lua_fail(L, &err);
  cl_lua_push_field(L, f);
  if (cl_field_upload(f, values, &err) != CL_OK) cl_lua_fail(L, &err);
}

/* bonds:counts() -> u32 field of the number of bonds of each point (broken ones included) */
static int bonds_counts(lua_State *L) {
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  bond_view v;
  view_open(L, b, &v);
  uint32_t *counts = host_buffer(L, b->n, sizeof *counts);
  memset(counts, 0, (b->n ? b->n : 1) * sizeof *counts);
  view_each(&v, count_visit, counts);
  push_values(L, b, CL_U32, counts);
  return 1;
}

/* bonds:state() -> u32 field copy of the bond state (list: entries with their broken flags;
 * lattice: the bits), for checkpoints; bonds:set_state(field) puts such a copy back (a lattice's
 * also as n x words-per-point). */
static int bonds_state(lua_State *L) {
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  cl_field *f;
  cl_error err;
  size_t words = state_words(b);
  if (cl_field_create(b->device, CL_U32, words, 1, &f, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, f);
  cl_device *d = &b->device->dev;
  if (words && d->copy(d, f->data, state_array(b), words * sizeof(uint32_t), &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_field_touch(f);
  return 1;
}

static int bonds_set_state(lua_State *L) {
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  cl_field *f = cl_lua_check_field(L, 2);
  size_t words = state_words(b);
  /* one column as bonds:state() gives it, or rows of the words of each point (a partitioned
   * body's checkpoint, cl.comm.gather_rows): the same entries in the same order */
  if (f->dtype != CL_U32 || f->n * (size_t)f->k != words || (f->k != 1 && !b->lattice))
    return luaL_error(L, "bonds:set_state: needs a u32 field of %I entries (got %s, %I x %d): was it saved "
                         "from this body?", (LUAI_UACINT)words, cl_dtype_name(f->dtype), (LUAI_UACINT)f->n, f->k);
  const void *h;
  cl_error err;
  if (cl_field_host(f, &h, &err) != CL_OK) return cl_lua_fail(L, &err);
  const uint32_t *saved = h;
  if (!b->lattice) {
    bond_view v;
    view_open(L, b, &v);
    for (size_t k = 0; k < words; k++)
      if ((saved[k] & CL_PD_INDEX) != (v.entries[k] & CL_PD_INDEX))
        return luaL_error(L, "bonds:set_state: entry %I names another neighbour: the state belongs to another body", (LUAI_UACINT)k);
  }
  cl_device *d = &b->device->dev;
  if (words && d->to_device(d, state_array(b), saved, words * sizeof(uint32_t), &err) != CL_OK) return cl_lua_fail(L, &err);
  return 0;
}

/* A list's bond state that does not depend on the rows' local order (a checkpoint of a body
 * partitioned over any number of ranks): the broken flags of each point's bonds in the order of
 * their neighbours' global indices, bit k of a point's flags in word plane k / 32 (as a lattice's
 * state: point i's word w at w*n + i). global: u32 field of each local row's global index (nil:
 * the rows are the global indices). */
typedef struct sorted_entry {
  uint32_t global, k; /* the neighbour's global index, the entry */
} sorted_entry;

static const uint32_t *global_indices(lua_State *L, const cl_lua_bonds *b, int idx, const char *fn) {
  if (lua_isnoneornil(L, idx)) return NULL;
  cl_field *g = cl_lua_check_field(L, idx);
  if (g->dtype != CL_U32 || g->n != b->n || g->k != 1)
    luaL_error(L, "%s: 'global' must be a u32 field of the %I points' global indices", fn, (LUAI_UACINT)b->n);
  const void *h;
  cl_error err;
  if (cl_field_host(g, &h, &err) != CL_OK) cl_lua_fail(L, &err);
  return h;
}

/* Row i's entries sorted by their neighbours' global index into e (insertion sort: a family is
 * tens of entries); returns their number. */
static uint32_t sorted_row(const bond_view *v, const uint32_t *global, size_t i, sorted_entry *e) {
  uint32_t count = 0;
  for (uint32_t k = v->offsets[i]; k < v->offsets[i + 1]; k++) {
    uint32_t j = v->entries[k] & CL_PD_INDEX, g = global ? global[j] : j, p = count++;
    for (; p > 0 && e[p - 1].global > g; p--) e[p] = e[p - 1];
    e[p] = (sorted_entry){g, k};
  }
  return count;
}

static uint32_t max_family(const bond_view *v, size_t n) {
  uint32_t most = 0;
  for (size_t i = 0; i < n; i++) most = v->offsets[i + 1] - v->offsets[i] > most ? v->offsets[i + 1] - v->offsets[i] : most;
  return most;
}

/* bonds:sorted_state(words [, global]) -> u32 field (words planes of n) of a list's state in global
 * neighbour order; words (at least the largest family / 32, the same on every rank) */
static int bonds_sorted_state(lua_State *L) {
  const char *fn = "bonds:sorted_state";
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  if (b->lattice) return luaL_error(L, "%s: for the list layout (a lattice's state is bonds:state())", fn);
  lua_Integer words = luaL_checkinteger(L, 2);
  const uint32_t *global = global_indices(L, b, 3, fn);
  bond_view v;
  view_open(L, b, &v);
  uint32_t most = max_family(&v, b->n);
  if (words < 1 || (lua_Integer)most > 32 * words)
    return luaL_error(L, "%s: 'words' (%I) holds fewer than the %d bonds of the largest family", fn, (LUAI_UACINT)words, (int)most);
  size_t nbits = (size_t)words * b->n;
  uint32_t *bits = host_buffer(L, nbits, sizeof *bits);
  sorted_entry *e = host_buffer(L, most, sizeof *e);
  if (nbits) memset(bits, 0, nbits * sizeof *bits);
  for (size_t i = 0; i < b->n; i++) {
    uint32_t count = sorted_row(&v, global, i, e);
    for (uint32_t p = 0; p < count; p++)
      if (v.entries[e[p].k] & CL_PD_BROKEN) bits[(size_t)(p / 32) * b->n + i] |= 1u << (p % 32);
  }
  cl_field *f;
  cl_error err;
  if (cl_field_create(b->device, CL_U32, nbits, 1, &f, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, f);
  if (cl_field_upload(f, bits, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

/* bonds:set_sorted_state(field, rows [, global]): the flags of the first `rows` points (a
 * partitioned body's own points, whose families are whole) from bonds:sorted_state's words of the
 * same global points (field: n x words or words planes of n); the other rows keep theirs. */
static int bonds_set_sorted_state(lua_State *L) {
  const char *fn = "bonds:set_sorted_state";
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  if (b->lattice) return luaL_error(L, "%s: for the list layout (a lattice's state is bonds:set_state())", fn);
  cl_field *f = cl_lua_check_field(L, 2);
  lua_Integer rows = luaL_checkinteger(L, 3);
  const uint32_t *global = global_indices(L, b, 4, fn);
  size_t total = f->n * (size_t)f->k, words = b->n ? total / b->n : 0;
  if (f->dtype != CL_U32 || rows < 0 || (size_t)rows > b->n || words * b->n != total)
    return luaL_error(L, "%s: needs a u32 field of words for each of the %I points and 'rows' up to %I: was it saved "
                         "from this body?", fn, (LUAI_UACINT)b->n, (LUAI_UACINT)b->n);
  const void *h;
  cl_error err;
  if (cl_field_host(f, &h, &err) != CL_OK) return cl_lua_fail(L, &err);
  const uint32_t *bits = h;
  bond_view v;
  view_open(L, b, &v);
  uint32_t most = max_family(&v, (size_t)rows);
  if (most > 32 * words)
    return luaL_error(L, "%s: a point has %d bonds, more than the state's %d flags: the state belongs to another body",
                      fn, (int)most, (int)(32 * words));
  sorted_entry *e = host_buffer(L, most, sizeof *e);
  for (size_t i = 0; i < (size_t)rows; i++) {
    uint32_t count = sorted_row(&v, global, i, e);
    for (uint32_t p = 0; p < count; p++) {
      int broken = (bits[(size_t)(p / 32) * b->n + i] >> (p % 32)) & 1u;
      v.entries[e[p].k] = (v.entries[e[p].k] & CL_PD_INDEX) | (broken ? CL_PD_BROKEN : 0);
    }
  }
  view_store(L, &v);
  return 0;
}

/* ---- pre-cracks ---------------------------------------------------------------- */

/* The crossing tests below decide configurations within CUT_TOLERANCE of the bond's length of
 * touching by a rule instead of by the coordinates' rounding: a bond end on the crack's line
 * (plane) counts as lying on its positive side (left of the segment from its first point to its
 * second; the side of edge1 x edge2), and a bond through the crack's end (edge) crosses it.
 * Both occur exactly on grids: a notch drawn between grid lines ends where bonds cross its line
 * (Kalthoff-Winkler's notch tips), one drawn on a grid line holds points. There the rounding
 * decided, so that an f32 body cut other bonds than the same body in f64 (889 against 891 at the
 * notches of the 1 mm plate), and mirror-image notches of one f64 body differed (3592 and 3591 at
 * 0.25 mm): other notch tips, other cracks. f32 coordinates are off by up to ~1e-4 dx on grids of
 * 10^4 points a side; 1e-3 of a bond is far below any geometry a user draws. */
#define CUT_TOLERANCE 1e-3

/* The side of a signed distance d (times a length): -1 beyond -tolerance, else +1 (on the line: positive). */
static int side_of(double d, double tolerance) { return d < -tolerance ? -1 : 1; }

/* -1, 0 or 1: whether d is below -tolerance, within it of 0, or above it. */
static int sign_within(double d, double tolerance) { return d > tolerance ? 1 : d < -tolerance ? -1 : 0; }

static double length_between(const double *p, const double *q, int dim) {
  double l2 = 0;
  for (int c = 0; c < dim; c++) l2 += (q[c] - p[c]) * (q[c] - p[c]);
  return sqrt(l2);
}

/* Whether segments p-q (a bond) and a-b cross (proper intersection or touching). */
static int segments_cross(const double p[2], const double q[2], const double a[2], const double b[2]) {
  double d1 = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
  double d2 = (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]);
  double d3 = (q[0] - p[0]) * (a[1] - p[1]) - (q[1] - p[1]) * (a[0] - p[0]);
  double d4 = (q[0] - p[0]) * (b[1] - p[1]) - (q[1] - p[1]) * (b[0] - p[0]);
  /* d1, d2: |b - a| times the distances of p, q from line ab; d3, d4: |q - p| times those of a, b from line pq */
  const double bond = length_between(p, q, 2), crack = length_between(a, b, 2);
  const double near_ab = CUT_TOLERANCE * bond * crack, near_pq = CUT_TOLERANCE * bond * bond;
  return side_of(d1, near_ab) != side_of(d2, near_ab) && sign_within(d3, near_pq) * sign_within(d4, near_pq) <= 0;
}

/* Whether segment p-q crosses the planar rectangle corner + s e1 + t e2 (s, t in [0, 1]). */
static int segment_crosses_rect(const double p[3], const double q[3], const double corner[3],
                                const double e1[3], const double e2[3]) {
  double nrm[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
  double dp = 0, dq = 0;
  for (int c = 0; c < 3; c++) dp += nrm[c] * (p[c] - corner[c]), dq += nrm[c] * (q[c] - corner[c]);
  const double zero[3] = {0, 0, 0}, bond = length_between(p, q, 3);
  const double near_plane = CUT_TOLERANCE * bond * length_between(zero, nrm, 3); /* dp = |nrm| distance */
  if (side_of(dp, near_plane) == side_of(dq, near_plane)) return 0;
  double t = dp / (dp - dq), hit[3], s1 = 0, s2 = 0, l1 = 0, l2 = 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t; /* an end within the tolerance of the plane */
  for (int c = 0; c < 3; c++) {
    hit[c] = p[c] + t * (q[c] - p[c]) - corner[c];
    s1 += hit[c] * e1[c], s2 += hit[c] * e2[c], l1 += e1[c] * e1[c], l2 += e2[c] * e2[c];
  }
  /* s1 = |e1| times the hit's coordinate along e1 */
  const double near1 = CUT_TOLERANCE * bond * sqrt(l1), near2 = CUT_TOLERANCE * bond * sqrt(l2);
  return s1 >= -near1 && s1 <= l1 + near1 && s2 >= -near2 && s2 <= l2 + near2;
}

static void read_point(lua_State *L, int idx, int i, int dim, double *out) {
  if (lua_rawgeti(L, idx, i) != LUA_TTABLE) luaL_error(L, "bonds:cut: point %d must be a table of %d numbers", i, dim);
  for (int c = 0; c < dim; c++) {
    lua_rawgeti(L, -1, c + 1);
    if (lua_type(L, -1) != LUA_TNUMBER) luaL_error(L, "bonds:cut: point %d needs %d numbers", i, dim);
    out[c] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* The coordinates of the points the bonds were built on, on the host. */
typedef struct coords {
  cl_dtype t;
  int dim;
  size_t n;
  const void *x;
} coords;

static coords host_coords(lua_State *L, int bonds_idx) {
  lua_getiuservalue(L, bonds_idx, 1);
  cl_field *x = cl_lua_check_field(L, -1);
  coords c = {x->dtype, x->k, x->n, NULL};
  cl_error err;
  if (cl_field_host(x, &c.x, &err) != CL_OK) cl_lua_fail(L, &err);
  lua_pop(L, 1); /* the bonds' user value keeps x alive */
  return c;
}

static void point_at(const coords *c, size_t i, double *p) {
  for (int a = 0; a < c->dim; a++) p[a] = cl_dtype_get(c->t, c->x, (size_t)a * c->n + i);
}

typedef struct cut_ctx {
  coords x;
  double g[3][3];
} cut_ctx;

static int cut_visit(void *ctx, size_t i, size_t j, int broken) {
  cut_ctx *c = ctx;
  if (broken) return 0;
  double p[3] = {0}, q[3] = {0};
  point_at(&c->x, i, p), point_at(&c->x, j, q);
  return c->x.dim == 2 ? segments_cross(p, q, c->g[0], c->g[1]) : segment_crosses_rect(p, q, c->g[0], c->g[1], c->g[2]);
}

/* bonds:cut{ {x1, y1}, {x2, y2} } (2D: every bond crossing the segment) or
 * bonds:cut{ corner, edge1, edge2 } (3D: every bond crossing the rectangle
 * corner + s edge1 + t edge2). Breaks them (at both ends); returns how many
 * bonds were newly broken, each counted once. */
static int bonds_cut(lua_State *L) {
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  cut_ctx c;
  memset(&c, 0, sizeof c);
  c.x = host_coords(L, 1);
  int dim = c.x.dim;
  if (luaL_len(L, 2) != (dim == 2 ? 2 : 3))
    return luaL_error(L, "bonds:cut: give %s", dim == 2 ? "a segment {{x1, y1}, {x2, y2}}" : "a rectangle {corner, edge1, edge2}");
  for (int i = 0; i < (dim == 2 ? 2 : 3); i++) read_point(L, 2, i + 1, dim, c.g[i]);
  bond_view v;
  view_open(L, b, &v);
  size_t before = view_each(&v, NULL, NULL);
  size_t after = view_each(&v, cut_visit, &c);
  view_store(L, &v);
  lua_pushinteger(L, (lua_Integer)((after - before) / 2));
  return 1;
}

typedef struct stiffness_ctx {
  coords x;
  cl_dtype vt;
  const void *volumes; /* or NULL: uniform */
  double uniform;
  double dx; /* > 0: bond vectors are whole steps of dx (an f32 lattice, bonds_stiffness) */
  double *sums;
} stiffness_ctx;

static int stiffness_visit(void *ctx, size_t i, size_t j, int broken) {
  stiffness_ctx *s = ctx;
  double p[3] = {0}, q[3] = {0}, r2 = 0;
  (void)broken;
  point_at(&s->x, i, p), point_at(&s->x, j, q);
  for (int a = 0; a < s->x.dim; a++) {
    const double d = s->dx > 0 ? nearbyint((q[a] - p[a]) / s->dx) * s->dx : q[a] - p[a];
    r2 += d * d;
  }
  s->sums[i] += (s->volumes ? cl_dtype_get(s->vt, s->volumes, j) : s->uniform) / sqrt(r2);
  return 0;
}

/* bonds:stiffness(volume) -> field (n, the precision of x) of sum_j V_j / |xi_ij| over every
 * bond of each point: the bond stiffness per unit micromodulus, from which the stable time
 * step (Silling & Askari 2005: dt = sqrt(2 rho / (c max_i S_i))) and the fictitious density of
 * dynamic relaxation follow. volume: a number (uniform) or a field of point volumes. */
static int bonds_stiffness(lua_State *L) {
  const char *fn = "bonds:stiffness";
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  stiffness_ctx s;
  memset(&s, 0, sizeof s);
  s.x = host_coords(L, 1);
  /* An f32 lattice's bond lengths from its whole steps, not from differences of f32 coordinates
   * (|xi| = dx off by up to ~4e-5 at 0.1 mm): the stable time step, and so the run, would differ
   * from f64's by a few 1e-6 (issue 19, h-pdf32). f64 keeps its coordinates' lengths, bit for bit. */
  s.dx = b->lattice && s.x.t == CL_F32 ? b->l.dx : 0;
  cl_error err;
  if (lua_type(L, 2) == LUA_TNUMBER) {
    s.uniform = lua_tonumber(L, 2);
  } else {
    cl_field *v = cl_lua_test_field(L, 2);
    if (!v || v->n != b->n || v->dtype != s.x.t)
      return luaL_error(L, "%s: the volume must be a number or a %s field of %I volumes", fn, cl_dtype_name(s.x.t), (LUAI_UACINT)b->n);
    if (cl_field_host(v, &s.volumes, &err) != CL_OK) return cl_lua_fail(L, &err);
    s.vt = v->dtype;
  }
  bond_view v;
  view_open(L, b, &v);
  s.sums = host_buffer(L, b->n, sizeof *s.sums);
  memset(s.sums, 0, (b->n ? b->n : 1) * sizeof *s.sums);
  view_each(&v, stiffness_visit, &s);
  void *values = host_buffer(L, b->n, cl_dtype_size(s.x.t));
  for (size_t i = 0; i < b->n; i++) cl_dtype_put(s.x.t, values, i, s.sums[i]);
  push_values(L, b, s.x.t, values);
  return 1;
}

/* bonds:point_max(values) -> field (n) of the largest of a per-bond quantity (one value per bond
 * slot: a lattice's n x stencil entries, a list's bond entries) over each point's bonds */
static int bonds_point_max(lua_State *L) {
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  cl_field *v = cl_lua_check_field(L, 2);
  size_t rows;
  int k;
  cl_lua_bonds_slots(b, &rows, &k);
  if ((v->dtype != CL_F32 && v->dtype != CL_F64) || v->n != rows || v->k != k ||
      !cl_device_same(&v->device->dev, &b->device->dev))
    return luaL_error(L, "bonds:point_max: needs an f32/f64 field of %I x %d on %s (one value per bond)",
                      (LUAI_UACINT)rows, k, b->device->dev.name);
  cl_field *out;
  cl_error err;
  if (cl_field_create(b->device, v->dtype, b->n, 1, &out, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, out);
  cl_pd_force_args a;
  memset(&a, 0, sizeof a);
  a.n = b->n;
  cl_lua_bonds_args(b, &a);
  if (cl_k_pd_bond_max(&b->device->dev, v->dtype, &a, v->data, out->data, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_field_touch(out);
  return 1;
}

static size_t bonds_bytes(const cl_lua_bonds *b) {
  return b->lattice ? cl_pd_lattice_bytes(&b->l) : (b->n + 1 + b->b.nbonds) * sizeof(uint32_t);
}

static int bonds_index(lua_State *L) {
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  const char *key = luaL_checkstring(L, 2);
  if (strcmp(key, "count") == 0) lua_pushinteger(L, (lua_Integer)(bond_entries(b) / 2));
  else if (strcmp(key, "entries") == 0) lua_pushinteger(L, (lua_Integer)bond_entries(b));
  else if (strcmp(key, "n") == 0) lua_pushinteger(L, (lua_Integer)b->n);
  else if (strcmp(key, "delta") == 0) lua_pushnumber(L, b->delta);
  else if (strcmp(key, "bytes") == 0) lua_pushinteger(L, (lua_Integer)bonds_bytes(b));
  else if (strcmp(key, "layout") == 0) lua_pushstring(L, b->lattice ? "lattice" : "list");
  else if (strcmp(key, "stencil") == 0) b->lattice ? lua_pushinteger(L, (lua_Integer)b->l.nstencil) : lua_pushnil(L);
  else if (strcmp(key, "words") == 0) b->lattice ? lua_pushinteger(L, (lua_Integer)b->l.words) : lua_pushnil(L);
  else {
    luaL_getmetatable(L, BONDS_MT);
    if (lua_getfield(L, -1, "methods") != LUA_TTABLE || lua_getfield(L, -1, key) == LUA_TNIL)
      return luaL_error(L, "bonds have no field '%s' (count, entries, n, delta, bytes, layout, stencil, words, cut, broken, counts, "
                           "stiffness, state, set_state, sorted_state, set_sorted_state, point_max)", key);
  }
  return 1;
}

static int bonds_tostring(lua_State *L) {
  cl_lua_bonds *b = cl_lua_check_bonds(L, 1);
  char text[200];
  size_t count = bond_entries(b);
  snprintf(text, sizeof text, "bonds<%s, %zu points, %zu bonds (%.2f per point), %.1f B per point, on %s>",
           b->lattice ? "lattice" : "list", b->n, count / 2, b->n ? (double)count / (double)b->n : 0.0,
           b->n ? (double)bonds_bytes(b) / (double)b->n : 0.0, b->device->dev.name);
  lua_pushstring(L, text);
  return 1;
}

void cl_lua_open_pd_bonds(lua_State *L) {
  luaL_newmetatable(L, BONDS_MT);
  const luaL_Reg meta[] = {{"__gc", bonds_gc}, {"__index", bonds_index}, {"__tostring", bonds_tostring}, {NULL, NULL}};
  luaL_setfuncs(L, meta, 0);
  const luaL_Reg methods[] = {{"cut", bonds_cut},     {"broken", bonds_broken},       {"counts", bonds_counts},
                              {"stiffness", bonds_stiffness}, {"state", bonds_state}, {"set_state", bonds_set_state},
                              {"point_max", bonds_point_max}, {"sorted_state", bonds_sorted_state},
                              {"set_sorted_state", bonds_set_sorted_state},
                              {NULL, NULL}};
  luaL_newlib(L, methods);
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
  lua_pushcfunction(L, bonds_new);
  lua_setfield(L, -2, "bonds");
}
