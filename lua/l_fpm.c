/* cleave.fpm (C part): the stages of the finite particle method's step (kernels/fpm/): the
 * particle update (one pass), the beam and shell forces, the
 * gather assembly and the
 * hexahedron forces of a compiled stress_update law. The bodies, loads and runs are in
 * lua/cleave/fpm.lua. */
#include <stdlib.h>
#include <string.h>

#include "../kernels/fpm/fpm_dispatch.h"
#include "../runtime/io/inp.h"
#include "../runtime/io/msh.h"
#include "l_jit.h"
#include "l_util.h"

#define FPM_STAGE_MT "cleave.fpm.stage"

/* Field `key` of the table at 1, which must have the dtype, rows and components given and live
 * on `device`; NULL when optional and absent. */
static cl_field *field_of(lua_State *L, const char *fn, const char *key, int required, cl_dtype dtype, size_t n,
                          int k, const cl_device *device) {
  cl_field *f = required ? cl_lua_req_field(L, 1, fn, key) : cl_lua_opt_field(L, 1, fn, key);
  if (f && (f->dtype != dtype || f->n != n || f->k != k || !cl_device_same(&f->device->dev, device)))
    luaL_error(L, "%s: field '%s' must be %s, %I x %d, on %s (got %s, %I x %d, on %s)", fn, key,
               cl_dtype_name(dtype), (LUAI_UACINT)n, k, device->name, cl_dtype_name(f->dtype), (LUAI_UACINT)f->n,
               f->k, f->device->dev.name);
  return f;
}

static void *data_of(cl_field *f) { return f ? f->data : NULL; }

/* A zeroed stage userdata of `size` bytes with the stages' metatable, on the stack. */
static void *new_stage(lua_State *L, size_t size) {
  void *s = lua_newuserdatauv(L, size, 1);
  memset(s, 0, size);
  luaL_setmetatable(L, FPM_STAGE_MT);
  return s;
}

/* The reference positions 'x0': f32 or f64, 3 components; they fix the device, size and precision. */
static cl_field *positions(lua_State *L, const char *fn) {
  cl_field *x0 = cl_lua_req_field(L, 1, fn, "x0");
  if ((x0->dtype != CL_F32 && x0->dtype != CL_F64) || x0->k != 3)
    luaL_error(L, "%s: 'x0' must be f32 or f64 positions of 3 components", fn);
  return x0;
}

/* ---- the particle update ---------------------------------------------------------------- */

typedef struct particle_stage {
  cl_stage stage;
  cl_fpm_particle_args a;
  cl_field *touched[5]; /* what the pass writes */
  cl_dtype dtype;
} particle_stage;

static cl_status run_particles(void *data, long step, double t, cl_error *err) {
  particle_stage *s = data;
  (void)step, (void)t;
  CL_TRY(cl_k_fpm_step(s->stage.device, s->dtype, &s->a, err));
  for (int k = 0; k < 5 && s->touched[k]; k++) cl_field_touch(s->touched[k]);
  return CL_OK;
}

static const char *const particle_args[] = {"dt", "xi", "mass", "inertia", "d", "dd", "dd_prescribed", "f", "fext",
                                            "q", "dth", "dth_prescribed", "m", "mext", "mask", "work", NULL};

/* cleave.stage.fpm_particles{ dt =, xi = 0, mass =, d =, dd =, f =, fext =, [ inertia =, q =, dth =, m =, mext = ]
 *   (rotations: all or none), mask = u32 per particle (the constrained DOFs), dd_prescribed = (with mask),
 *   dth_prescribed = (with mask and rotations): n x 3, the constrained DOFs' increments (zero: fixed),
 *   work = n x 5 (energies: kernels/fpm/fpm.h) }: the particle update, one pass (kernels/fpm/integrate.h) */
static int stage_particles(lua_State *L) {
  const char *fn = "cleave.stage.fpm_particles";
  cl_lua_check_args(L, 1, fn, particle_args);
  particle_stage *s = new_stage(L, sizeof *s);
  cl_field *mass = cl_lua_req_field(L, 1, fn, "mass");
  if (mass->dtype != CL_F32 && mass->dtype != CL_F64) return luaL_error(L, "%s: 'mass' must be f32 or f64", fn);
  const cl_device *dev = &mass->device->dev;
  const size_t n = mass->n;
  const cl_dtype t = s->dtype = mass->dtype;
  cl_fpm_particle_args *a = &s->a;
  a->n = n, a->mass = mass->data;
  a->dt = cl_lua_req_number(L, 1, fn, "dt");
  a->xi = cl_lua_opt_number(L, 1, fn, "xi", 0);
  if (!(a->dt > 0) || !(a->xi >= 0)) return luaL_error(L, "%s: 'dt' must be > 0 and 'xi' >= 0", fn);
  cl_field *d = field_of(L, fn, "d", 1, t, n, 3, dev), *dd = field_of(L, fn, "dd", 1, t, n, 3, dev);
  cl_field *f = field_of(L, fn, "f", 1, t, n, 3, dev), *fext = field_of(L, fn, "fext", 1, t, n, 3, dev);
  cl_field *inertia = field_of(L, fn, "inertia", 0, t, n, 1, dev), *q = field_of(L, fn, "q", 0, t, n, 4, dev);
  cl_field *dth = field_of(L, fn, "dth", 0, t, n, 3, dev);
  cl_field *m = field_of(L, fn, "m", 0, t, n, 3, dev), *mext = field_of(L, fn, "mext", 0, t, n, 3, dev);
  cl_field *mask = field_of(L, fn, "mask", 0, CL_U32, n, 1, dev), *work = field_of(L, fn, "work", 0, t, n, CL_FPM_W_COLUMNS, dev);
  int rotations = !!inertia + !!q + !!dth + !!m + !!mext;
  if (rotations != 0 && rotations != 5)
    return luaL_error(L, "%s: give all of 'inertia', 'q', 'dth', 'm', 'mext' (rotations) or none", fn);
  /* a constrained DOF's increment is read from these: with a mask they must be there */
  cl_field *dd_prescribed = field_of(L, fn, "dd_prescribed", !!mask, t, n, 3, dev);
  cl_field *dth_prescribed = field_of(L, fn, "dth_prescribed", mask && rotations, t, n, 3, dev);
  a->d = d->data, a->dd = dd->data, a->dd_prescribed = data_of(dd_prescribed), a->f = f->data, a->fext = fext->data;
  a->inertia = data_of(inertia), a->q = data_of(q), a->dth = data_of(dth), a->dth_prescribed = data_of(dth_prescribed);
  a->m = data_of(m), a->mext = data_of(mext), a->mask = data_of(mask), a->work = data_of(work);
  cl_field *const written[5] = {d, dd, q, dth, work};
  for (int k = 0, j = 0; k < 5; k++)
    if (written[k]) s->touched[j++] = written[k];
  cl_lua_stage_init(L, &s->stage, "fpm_step", run_particles, s, &mass->device->dev);
  return 1;
}

/* ---- beams and shells: the same inputs and outputs --------------------------------------------- */

/* What a beam or shell stage reads and writes: d, q of the particles; f, m (scatter) or fe, me per
 * element corner (gather); the elements' strain energy (optional). `writes` holds the fields the run
 * marks changed. */
typedef struct rotational_io {
  cl_field *d, *q, *f, *m, *fe, *me, *energy;
  cl_field *writes[4]; /* the fourth: a shell's plastic state, or NULL */
} rotational_io;

static void rotational_fields(lua_State *L, const char *fn, cl_dtype t, size_t n, size_t ne, int corners,
                              const cl_device *dev, rotational_io *io) {
  io->d = field_of(L, fn, "d", 1, t, n, 3, dev);
  io->q = field_of(L, fn, "q", 1, t, n, 4, dev);
  io->f = field_of(L, fn, "f", 1, t, n, 3, dev), io->m = field_of(L, fn, "m", 1, t, n, 3, dev);
  io->fe = field_of(L, fn, "fe", 0, t, corners * ne, 3, dev), io->me = field_of(L, fn, "me", 0, t, corners * ne, 3, dev);
  if (!io->fe != !io->me) luaL_error(L, "%s: give both 'fe' and 'me' (gather assembly) or neither", fn);
  io->energy = field_of(L, fn, "energy", 0, t, ne, 1, dev);
  io->writes[0] = io->fe ? io->fe : io->f, io->writes[1] = io->me ? io->me : io->m, io->writes[2] = io->energy;
  io->writes[3] = NULL;
}

static void rotational_touch(const rotational_io *io) {
  for (int k = 0; k < 4; k++)
    if (io->writes[k]) cl_field_touch(io->writes[k]);
}

/* ---- beams ------------------------------------------------------------------------------ */

typedef struct beam_stage {
  cl_stage stage;
  cl_fpm_beam_args a;
  rotational_io io;
  cl_dtype dtype;
} beam_stage;

static cl_status run_beams(void *data, long step, double t, cl_error *err) {
  beam_stage *s = data;
  (void)step, (void)t;
  CL_TRY(cl_k_fpm_beam(s->stage.device, s->dtype, &s->a, err));
  rotational_touch(&s->io);
  return CL_OK;
}

/* Connectivity `key`: u32, k particles per element, every entry below n. */
static cl_field *connectivity(lua_State *L, const char *fn, const char *key, int k, size_t n, const cl_device *dev) {
  cl_field *c = cl_lua_req_field(L, 1, fn, key);
  if (c->dtype != CL_U32 || c->k != k || !cl_device_same(&c->device->dev, dev))
    luaL_error(L, "%s: '%s' must be a u32 field of %d particle rows (0-based) per element on %s", fn, key, k,
               dev->name);
  double most;
  cl_error err;
  if (c->n && cl_field_reduce(c, CL_REDUCE_MAX, -1, &most, &err) != CL_OK) cl_lua_fail(L, &err);
  if (c->n && most >= (double)n)
    luaL_error(L, "%s: '%s' names particle row %d but there are %I particles", fn, key, (int)most, (LUAI_UACINT)n);
  return c;
}

static const char *const beam_args[] = {"conn", "orient", "EA", "EIy", "EIz", "GJ", "x0", "d", "q", "f", "m",
                                        "fe", "me", "energy", NULL};

/* cleave.stage.fpm_beam{ conn = u32 ne x 2, orient = ne x 3, EA =, EIy =, EIz =, GJ =, x0 =, d =, q =,
 *   f =, m =, energy = ne (optional), fe =, me = (2 ne x 3, gather assembly) }: subtracts the beams' internal
 *   forces and moments from f, m, or writes them per element end into fe, me */
static int stage_beam(lua_State *L) {
  const char *fn = "cleave.stage.fpm_beam";
  cl_lua_check_args(L, 1, fn, beam_args);
  beam_stage *s = new_stage(L, sizeof *s);
  cl_field *x0 = positions(L, fn);
  const cl_device *dev = &x0->device->dev;
  const size_t n = x0->n;
  const cl_dtype t = s->dtype = x0->dtype;
  cl_field *conn = connectivity(L, fn, "conn", 2, n, dev);
  cl_fpm_beam_args *a = &s->a;
  a->ne = conn->n, a->n = n, a->conn = conn->data, a->x0 = x0->data;
  a->orient = field_of(L, fn, "orient", 1, t, a->ne, 3, dev)->data;
  rotational_io *io = &s->io;
  rotational_fields(L, fn, t, n, a->ne, 2, dev, io);
  a->d = io->d->data, a->q = io->q->data, a->f = io->f->data, a->m = io->m->data;
  a->fe = data_of(io->fe), a->me = data_of(io->me), a->energy = data_of(io->energy);
  a->EA = cl_lua_req_number(L, 1, fn, "EA"), a->EIy = cl_lua_req_number(L, 1, fn, "EIy");
  a->EIz = cl_lua_req_number(L, 1, fn, "EIz"), a->GJ = cl_lua_req_number(L, 1, fn, "GJ");
  if (!(a->EA > 0 && a->EIy > 0 && a->EIz > 0 && a->GJ > 0))
    return luaL_error(L, "%s: 'EA', 'EIy', 'EIz' and 'GJ' must be positive", fn);
  cl_lua_stage_init(L, &s->stage, "fpm_beam", run_beams, s, &x0->device->dev);
  return 1;
}

/* ---- shells ----------------------------------------------------------------------------------- */

typedef struct shell_stage {
  cl_stage stage;
  cl_fpm_shell_args a;
  rotational_io io;
  cl_dtype dtype;
  cl_fpm_shell_variant variant;
} shell_stage;

static cl_status run_shells(void *data, long step, double t, cl_error *err) {
  shell_stage *s = data;
  (void)step, (void)t;
  CL_TRY(cl_k_fpm_shell(s->stage.device, s->dtype, s->variant, &s->a, err));
  rotational_touch(&s->io);
  return CL_OK;
}

static const char *const shell_args[] = {"conn", "thickness", "E", "nu", "x0", "d", "q", "f", "m", "fe", "me",
                                         "energy", "sy", "H", "layers", "plastic", "variant", NULL};

/* cleave.stage.fpm_shell{ conn = u32 ne x 3, thickness =, E =, nu =, x0 =, d =, q =, f =, m =, energy = ne
 *   (optional), fe =, me = (3 ne x 3, gather assembly), J2 plasticity: sy =, H = 0, layers = 5 (odd),
 *   plastic = 3 layers ne x 4, variant = "default" (the GPU kernel's build: cl_fpm_shell_variant_names) }: as
 *   fpm_beam, for triangular shells (shell.h) */
static int stage_shell(lua_State *L) {
  const char *fn = "cleave.stage.fpm_shell";
  cl_lua_check_args(L, 1, fn, shell_args);
  shell_stage *s = new_stage(L, sizeof *s);
  cl_field *x0 = positions(L, fn);
  const cl_device *dev = &x0->device->dev;
  const size_t n = x0->n;
  const cl_dtype t = s->dtype = x0->dtype;
  cl_field *conn = connectivity(L, fn, "conn", 3, n, dev);
  cl_fpm_shell_args *a = &s->a;
  a->ne = conn->n, a->n = n, a->conn = conn->data, a->x0 = x0->data;
  rotational_io *io = &s->io;
  rotational_fields(L, fn, t, n, a->ne, 3, dev, io);
  a->d = io->d->data, a->q = io->q->data, a->f = io->f->data, a->m = io->m->data;
  a->fe = data_of(io->fe), a->me = data_of(io->me), a->energy = data_of(io->energy);
  a->thickness = cl_lua_req_number(L, 1, fn, "thickness"), a->E = cl_lua_req_number(L, 1, fn, "E");
  a->nu = cl_lua_opt_number(L, 1, fn, "nu", 0);
  if (!(a->thickness > 0 && a->E > 0 && a->nu >= 0 && a->nu < 0.5))
    return luaL_error(L, "%s: 'thickness' and 'E' must be positive, 'nu' in [0, 0.5)", fn);
  a->layers = (int)cl_lua_opt_number(L, 1, fn, "layers", 5);
  if (!(a->layers >= 3 && a->layers % 2 == 1))
    return luaL_error(L, "%s: 'layers' (Simpson points through the thickness) must be odd and >= 3", fn);
  cl_field *plastic = field_of(L, fn, "plastic", 0, t, (size_t)3 * a->layers * a->ne, 4, dev);
  a->plastic = data_of(plastic), s->io.writes[3] = plastic;
  a->sy = cl_lua_opt_number(L, 1, fn, "sy", 0), a->H = cl_lua_opt_number(L, 1, fn, "H", 0);
  if (plastic && !(a->sy > 0 && a->H >= 0))
    return luaL_error(L, "%s: 'sy' (yield stress) must be positive and 'H' (hardening modulus) >= 0", fn);
  const char *variant = lua_getfield(L, 1, "variant") == LUA_TNIL ? "default" : lua_tostring(L, -1);
  int v = 0;
  while (v < CL_FPM_SHELL_VARIANTS && !(variant && strcmp(variant, cl_fpm_shell_variant_names[v]) == 0)) v++;
  if (v == CL_FPM_SHELL_VARIANTS)
    return luaL_error(L, "%s: 'variant' must be default, lb128x3, lb128x4 or lb256x2 (got %s)", fn,
                      variant ? variant : luaL_typename(L, -1));
  s->variant = (cl_fpm_shell_variant)v;
  lua_pop(L, 1);
  cl_lua_stage_init(L, &s->stage, "fpm_shell", run_shells, s, &x0->device->dev);
  return 1;
}

/* ---- pressure on shells ----------------------------------------------------------------------- */

typedef struct pressure_stage {
  cl_stage stage;
  cl_fpm_pressure_args a;
  cl_field *fext;
  cl_dtype dtype;
  lua_State *L;
  int callback; /* registry ref of p as a function of the stage's time, or LUA_NOREF (p a number) */
} pressure_stage;

#define FPM_PRESSURE_MT "cleave.fpm.pressure_stage"

static cl_status run_pressure(void *data, long step, double t, cl_error *err) {
  pressure_stage *s = data;
  if (s->callback != LUA_NOREF) {
    lua_State *L = s->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->callback);
    lua_pushnumber(L, t);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_isnumber(L, -1)) {
      cl_error_set(err, CL_ERR_SCRIPT, "pressure function at step %ld: %s", step,
                   lua_isstring(L, -1) ? lua_tostring(L, -1) : "did not return a number");
      lua_pop(L, 1);
      return CL_ERR_SCRIPT;
    }
    s->a.p = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  CL_TRY(cl_k_fpm_pressure(s->stage.device, s->dtype, &s->a, err));
  cl_field_touch(s->fext);
  return CL_OK;
}

static const char *const pressure_args[] = {"rows", "conn", "x0", "d", "p", "fext", NULL};

static int pressure_gc(lua_State *L) {
  pressure_stage *s = luaL_checkudata(L, 1, FPM_PRESSURE_MT);
  if (s->callback != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, s->callback);
  s->callback = LUA_NOREF;
  return 0;
}

/* cleave.stage.fpm_pressure{ rows = u32 (0-based triangles), conn = u32 ne x 3, x0 =, d = (follower; absent:
 *   the reference normal), p = number or function(t) of the stage's time, fext = }: adds -p A n / 3 to each
 *   corner of each listed triangle */
static int stage_pressure(lua_State *L) {
  const char *fn = "cleave.stage.fpm_pressure";
  cl_lua_check_args(L, 1, fn, pressure_args);
  pressure_stage *s = new_stage(L, sizeof *s);
  luaL_setmetatable(L, FPM_PRESSURE_MT);
  s->callback = LUA_NOREF;
  cl_field *x0 = positions(L, fn);
  const cl_device *dev = &x0->device->dev;
  const size_t n = x0->n;
  cl_field *conn = connectivity(L, fn, "conn", 3, n, dev);
  cl_field *rows = cl_lua_req_field(L, 1, fn, "rows");
  double most = -1;
  cl_error err;
  if (rows->dtype != CL_U32 || rows->k != 1 || !cl_device_same(&rows->device->dev, dev))
    return luaL_error(L, "%s: 'rows' must be a u32 field of triangles on %s", fn, dev->name);
  if (rows->n && cl_field_reduce(rows, CL_REDUCE_MAX, -1, &most, &err) != CL_OK) return cl_lua_fail(L, &err);
  if (most >= (double)conn->n) return luaL_error(L, "%s: 'rows' names triangle %d of %I", fn, (int)most, (LUAI_UACINT)conn->n);
  s->dtype = x0->dtype;
  s->fext = field_of(L, fn, "fext", 1, x0->dtype, n, 3, dev);
  cl_field *d = field_of(L, fn, "d", 0, x0->dtype, n, 3, dev);
  s->a = (cl_fpm_pressure_args){.count = rows->n, .ne = conn->n, .n = n, .rows = rows->data, .conn = conn->data,
                                .x0 = x0->data, .d = data_of(d), .fext = s->fext->data};
  lua_getfield(L, 1, "p");
  if (lua_isfunction(L, -1)) {
    s->L = L, s->callback = luaL_ref(L, LUA_REGISTRYINDEX);
  } else {
    lua_pop(L, 1);
    s->a.p = cl_lua_req_number(L, 1, fn, "p");
  }
  cl_lua_stage_init(L, &s->stage, "fpm_pressure", run_pressure, s, &x0->device->dev);
  return 1;
}

/* ---- hexahedra --------------------------------------------------------------------------- */

typedef struct hex_stage {
  cl_stage stage;
  cl_fpm_hex_args a;
  const cl_lua_jit_module *law;
  cl_field *touched[5 + CL_MP_STATE_MAX];
  int ntouched;
  int lanes;      /* GPU threads per element, as the module was built */
  unsigned block; /* GPU threads per block */
} hex_stage;

static cl_status run_hexes(void *data, long step, double t, cl_error *err) {
  hex_stage *s = data;
  (void)step, (void)t;
  CL_TRY(cl_k_fpm_hex(s->stage.device, s->law->module->symbols[0], &s->a, s->lanes, s->block, err));
  for (int k = 0; k < s->ntouched; k++) cl_field_touch(s->touched[k]);
  return CL_OK;
}

static const char *const hex_args[] = {"conn", "x0",     "d",   "f",         "fe",    "sig",   "eps", "plastic", "E",
                                       "nu",   "energy", "law", "law_state", "lanes", "block", "state", NULL};

/* cleave.stage.fpm_hex{ conn = u32 ne x 8, x0 =, d =, f =, state = "incremental" | "total" | "plastic"
 *   (what a Gauss point keeps, kernels/fpm/hex.h: as the module was built), sig = 8 ne x 6 (incremental:
 *   the stress, kept; otherwise optional: the stress written as output), eps = 8 ne x 6 (incremental:
 *   the strain), plastic = 8 ne x 6, E =, nu = (plastic: the plastic strain, the elastic constants),
 *   energy = ne (optional), fe = 8 ne x 3 (gather assembly: the forces per element corner, written
 *   instead of f), law = module (law:fpm_hex_module(x0, variant, state)), law_state = { fields of 8 ne,
 *   the law's order },
 *   lanes = 8 (GPU threads per element: 8, or 1 for a module built one thread an element),
 *   block = 96 (GPU threads per block: a multiple of 32, within the module's launch bounds) } */
static int stage_hex(lua_State *L) {
  const char *fn = "cleave.stage.fpm_hex";
  cl_lua_check_args(L, 1, fn, hex_args);
  hex_stage *s = new_stage(L, sizeof *s);
  cl_field *x0 = positions(L, fn);
  const cl_device *dev = &x0->device->dev;
  const size_t n = x0->n;
  const cl_dtype t = x0->dtype;
  cl_field *conn = connectivity(L, fn, "conn", 8, n, dev);
  cl_fpm_hex_args *a = &s->a;
  a->ne = conn->n, a->n = n, a->conn = conn->data, a->x0 = x0->data;
  a->d = field_of(L, fn, "d", 1, t, n, 3, dev)->data;
  cl_field *f = field_of(L, fn, "f", 1, t, n, 3, dev);
  static const char *const states[] = {"incremental", "total", "plastic", NULL};
  const char *state = cl_lua_opt_string(L, 1, fn, "state", "incremental");
  int layout = 0;
  while (states[layout] && strcmp(states[layout], state)) layout++;
  if (!states[layout])
    return luaL_error(L, "%s: 'state' must be \"incremental\", \"total\" or \"plastic\" (got \"%s\")", fn, state);
  const int incremental = layout == 0, plastic_layout = layout == 2;
  cl_field *sig = field_of(L, fn, "sig", incremental, t, 8 * a->ne, 6, dev);
  cl_field *eps = field_of(L, fn, "eps", incremental, t, 8 * a->ne, 6, dev);
  cl_field *plastic = field_of(L, fn, "plastic", plastic_layout, t, 8 * a->ne, 6, dev);
  if (!incremental && eps) return luaL_error(L, "%s: 'eps' is the state of state = \"incremental\" only", fn);
  if (!plastic_layout && plastic) return luaL_error(L, "%s: 'plastic' is the state of state = \"plastic\" only", fn);
  if (plastic_layout) {
    a->E = cl_lua_req_number(L, 1, fn, "E"), a->nu = cl_lua_req_number(L, 1, fn, "nu");
    if (!(a->E > 0) || !(a->nu >= 0 && a->nu < 0.5))
      return luaL_error(L, "%s: 'E' must be positive and 'nu' in [0, 0.5) (got %g, %g)", fn, a->E, a->nu);
  }
  cl_field *energy = field_of(L, fn, "energy", 0, t, a->ne, 1, dev);
  cl_field *fe = field_of(L, fn, "fe", 0, t, 8 * a->ne, 3, dev);
  a->f = f->data, a->fe = data_of(fe), a->sig = data_of(sig), a->eps = data_of(eps), a->plastic = data_of(plastic);
  a->energy = data_of(energy);
  cl_field *written[] = {fe ? fe : f, sig, eps, plastic, energy};
  for (size_t k = 0; k < sizeof written / sizeof *written; k++)
    if (written[k]) s->touched[s->ntouched++] = written[k];
  a->law.n = 8 * a->ne;
  if (lua_getfield(L, 1, "law_state") != LUA_TNIL) {
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_Integer count = luaL_len(L, -1);
    if (count > CL_MP_STATE_MAX) return luaL_error(L, "%s: at most %d law state fields", fn, CL_MP_STATE_MAX);
    for (lua_Integer k = 1; k <= count; k++) {
      lua_rawgeti(L, -1, k);
      cl_field *st = cl_lua_check_field(L, -1);
      if (st->dtype != t || st->n != 8 * a->ne || st->k != 1 || !cl_device_same(&st->device->dev, dev))
        return luaL_error(L, "%s: law state field %d must be %s, %I x 1 (one value per Gauss point) on %s", fn,
                          (int)k, cl_dtype_name(t), (LUAI_UACINT)(8 * a->ne), dev->name);
      a->law.state[k - 1] = st->data;
      s->touched[s->ntouched++] = st;
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  lua_getfield(L, 1, "law");
  s->law = cl_lua_check_jit_module(L, -1);
  if (!cl_device_same(&s->law->device->dev, dev))
    return luaL_error(L, "%s: 'law' was compiled for %s, the fields live on %s", fn, s->law->device->dev.name,
                      dev->name);
  lua_pop(L, 1);
  s->lanes = (int)cl_lua_opt_number(L, 1, fn, "lanes", CL_FPM_HEX_GPU_LANES);
  if (s->lanes != 1 && s->lanes != CL_FPM_HEX_GPU_LANES)
    return luaL_error(L, "%s: 'lanes' must be %d (the 8-lane module) or 1 (one thread an element)", fn,
                      CL_FPM_HEX_GPU_LANES);
  const double block = cl_lua_opt_number(L, 1, fn, "block", 96);
  if (!(block >= 32 && block <= 1024 && (int)block == block && (int)block % 32 == 0))
    return luaL_error(L, "%s: 'block' must be a multiple of 32 from 32 to 1024 (got %g)", fn, block);
  s->block = (unsigned)block;
  cl_lua_stage_init(L, &s->stage, "fpm_hex", run_hexes, s, &x0->device->dev);
  return 1;
}

/* ---- the gather assembly (paper Algorithm 1) ------------------------------------------------ */

typedef struct gather_stage {
  cl_stage stage;
  cl_fpm_gather_args a;
  cl_field *f;
  cl_dtype dtype;
} gather_stage;

static cl_status run_gather(void *data, long step, double t, cl_error *err) {
  gather_stage *s = data;
  (void)step, (void)t;
  CL_TRY(cl_k_fpm_gather(s->stage.device, s->dtype, &s->a, err));
  cl_field_touch(s->f);
  return CL_OK;
}

static const char *const gather_args[] = {"offsets", "slots", "fe", "f", NULL};

/* cleave.stage.fpm_gather{ offsets = u32 n + 1, slots = u32 (rows of fe), fe = rows x 3, f = n x 3 }:
 * f[i] -= the sum of fe's rows slots[offsets[i] .. offsets[i+1]) (0-based), one thread per particle */
static int stage_gather(lua_State *L) {
  const char *fn = "cleave.stage.fpm_gather";
  cl_lua_check_args(L, 1, fn, gather_args);
  gather_stage *s = new_stage(L, sizeof *s);
  cl_field *f = cl_lua_req_field(L, 1, fn, "f"), *fe = cl_lua_req_field(L, 1, fn, "fe");
  if ((f->dtype != CL_F32 && f->dtype != CL_F64) || f->k != 3) return luaL_error(L, "%s: 'f' must be f32 or f64, n x 3", fn);
  const cl_device *dev = &f->device->dev;
  field_of(L, fn, "fe", 1, f->dtype, fe->n, 3, dev);
  cl_field *offsets = field_of(L, fn, "offsets", 1, CL_U32, f->n + 1, 1, dev);
  cl_field *slots = cl_lua_req_field(L, 1, fn, "slots");
  if (slots->dtype != CL_U32 || slots->k != 1 || !cl_device_same(&slots->device->dev, dev))
    return luaL_error(L, "%s: 'slots' must be a u32 field on %s", fn, dev->name);
  double last, most = -1;
  cl_error err;
  if (cl_field_reduce(offsets, CL_REDUCE_MAX, -1, &last, &err) != CL_OK ||
      (slots->n && cl_field_reduce(slots, CL_REDUCE_MAX, -1, &most, &err) != CL_OK))
    return cl_lua_fail(L, &err);
  if (last != (double)slots->n || most >= (double)fe->n)
    return luaL_error(L, "%s: 'offsets' must end at #slots (%I) and 'slots' name rows of 'fe' (%I)", fn,
                      (LUAI_UACINT)slots->n, (LUAI_UACINT)fe->n);
  s->f = f, s->dtype = f->dtype;
  s->a = (cl_fpm_gather_args){.n = f->n, .rows = fe->n, .offsets = offsets->data, .slots = slots->data,
                              .fe = fe->data, .f = f->data};
  cl_lua_stage_init(L, &s->stage, "fpm_gather", run_gather, s, &f->device->dev);
  return 1;
}

/* ---- meshes from files ------------------------------------------------------------------ */

/* On the stack: { points = { {x, y, z}, ... }, cells = { {1-based nodes}, ... }, kind = "shells" | "hexes" }. */
static void push_mesh(lua_State *L, const double *x, size_t nnodes, const uint32_t *elem, size_t nelems, int hex) {
  const int nn = hex ? 8 : 3;
  lua_createtable(L, 0, 4);
  lua_createtable(L, (int)nnodes, 0);
  for (size_t i = 0; i < nnodes; i++) {
    lua_createtable(L, 3, 0);
    for (int c = 0; c < 3; c++) lua_pushnumber(L, x[3 * i + (size_t)c]), lua_rawseti(L, -2, c + 1);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "points");
  lua_createtable(L, (int)nelems, 0);
  for (size_t e = 0; e < nelems; e++) {
    lua_createtable(L, nn, 0);
    for (int a = 0; a < nn; a++) lua_pushinteger(L, elem[e * (size_t)nn + (size_t)a] + 1), lua_rawseti(L, -2, a + 1);
    lua_rawseti(L, -2, (lua_Integer)e + 1);
  }
  lua_setfield(L, -2, "cells");
  lua_pushstring(L, hex ? "hexes" : "shells");
  lua_setfield(L, -2, "kind");
}

/* Appends the 1-based node i to the list at the top once (seen: the nodes already in it). */
static void add_node(lua_State *L, uint8_t *seen, uint32_t i) {
  if (seen[i]) return;
  seen[i] = 1;
  lua_pushinteger(L, (lua_Integer)i + 1);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
}

/* cl.fpm._read_mesh(path, "msh" | "inp") -> the table of push_mesh and groups = { name = {1-based
 * nodes} }: a Gmsh file's named physical groups of any dimension (runtime/io/msh.h, cl_msh_read_3d), an
 * Abaqus file's *NSET and *ELSET (the nodes of its elements; runtime/io/inp.h, cl_inp_read_3d). */
static int fpm_read_mesh(lua_State *L) {
  const char *path = luaL_checkstring(L, 1), *format = luaL_checkstring(L, 2);
  cl_error err;
  uint8_t *seen = NULL;
  if (!strcmp(format, "msh")) {
    cl_msh m;
    if (cl_msh_read_3d(path, &m, &err) != CL_OK) return luaL_error(L, "cleave.fpm.read: %s", err.msg);
    push_mesh(L, m.x, m.nnodes, m.elem, m.nelems, m.hex);
    lua_newtable(L);
    if (!(seen = malloc(m.nnodes ? m.nnodes : 1)))
      return cl_msh_free(&m), luaL_error(L, "cleave.fpm.read: out of memory");
    for (size_t g = 0; g < m.ngroups; g++) {
      memset(seen, 0, m.nnodes);
      lua_newtable(L);
      for (size_t k = 0; k < m.ntagged; k++)
        if (m.tagged_group[k] == m.groups[g].tag && m.tagged_dim[k] == m.groups[g].dim)
          add_node(L, seen, m.tagged_node[k]);
      lua_setfield(L, -2, m.groups[g].name);
    }
    cl_msh_free(&m);
  } else {
    cl_inp m;
    if (cl_inp_read_3d(path, &m, &err) != CL_OK) return luaL_error(L, "cleave.fpm.read: %s", err.msg);
    push_mesh(L, m.x, m.nnodes, m.elem, m.nelems, m.nodes_per_elem == 8);
    lua_newtable(L);
    if (!(seen = malloc(m.nnodes ? m.nnodes : 1)))
      return cl_inp_free(&m), luaL_error(L, "cleave.fpm.read: out of memory");
    for (size_t i = 0; i < m.nsets; i++) {
      const cl_inp_set *set = &m.sets[i];
      memset(seen, 0, m.nnodes);
      /* an *NSET and an *ELSET of one name make one group: the nodes of both */
      if (lua_getfield(L, -1, set->name) == LUA_TTABLE) {
        for (lua_Integer k = 1; k <= (lua_Integer)lua_rawlen(L, -1); k++) {
          lua_rawgeti(L, -1, k);
          seen[lua_tointeger(L, -1) - 1] = 1;
          lua_pop(L, 1);
        }
      } else {
        lua_pop(L, 1);
        lua_newtable(L);
      }
      for (size_t j = 0; j < set->n; j++) {
        if (!set->elements) {
          add_node(L, seen, set->items[j]);
          continue;
        }
        const size_t nn = (size_t)m.nodes_per_elem;
        for (size_t a = 0; a < nn; a++) add_node(L, seen, m.elem[set->items[j] * nn + a]);
      }
      lua_setfield(L, -2, set->name);
    }
    cl_inp_free(&m);
  }
  free(seen);
  lua_setfield(L, -2, "groups");
  return 1;
}

/* "stage<name>" as cleave's other stages print (every stage struct here begins with its cl_stage): the
 * benchmarks' per-stage split names the stages so. */
static int stage_tostring(lua_State *L) {
  const cl_stage *s = lua_touserdata(L, 1);
  lua_pushfstring(L, "stage<%s>", s->name);
  return 1;
}

int cl_lua_open_fpm(lua_State *L) {
  cl_lua_stage_metatable(L, FPM_STAGE_MT);
  lua_pushcfunction(L, stage_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  cl_lua_stage_metatable(L, FPM_PRESSURE_MT);
  lua_pushcfunction(L, stage_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, pressure_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  lua_newtable(L);
  lua_pushcfunction(L, fpm_read_mesh);
  lua_setfield(L, -2, "_read_mesh");
  lua_newtable(L); /* the shell kernel's builds, for cleave.fpm.kernel_variant */
  for (int k = 0; k < CL_FPM_SHELL_VARIANTS; k++) {
    lua_pushstring(L, cl_fpm_shell_variant_names[k]);
    lua_rawseti(L, -2, k + 1);
  }
  lua_setfield(L, -2, "_shell_variants");
  lua_setfield(L, -2, "fpm");
  lua_getfield(L, -1, "stage");
  lua_pushcfunction(L, stage_particles);
  lua_setfield(L, -2, "fpm_particles");
  lua_pushcfunction(L, stage_beam);
  lua_setfield(L, -2, "fpm_beam");
  lua_pushcfunction(L, stage_hex);
  lua_setfield(L, -2, "fpm_hex");
  lua_pushcfunction(L, stage_shell);
  lua_setfield(L, -2, "fpm_shell");
  lua_pushcfunction(L, stage_pressure);
  lua_setfield(L, -2, "fpm_pressure");
  lua_pushcfunction(L, stage_gather);
  lua_setfield(L, -2, "fpm_gather");
  lua_pop(L, 1);
  return 0;
}
