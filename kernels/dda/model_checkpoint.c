/* The DDA model's checkpoints: save and restore (model.h), on the runtime's checkpoint file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/io/checkpoint.h"
#include "model_state.h"

/* A contact in a checkpoint: its blocks, vertex, edge, kind, state and bond; its anchor, joint
 * length, direction and forces (what the transfer carries and the contacts' readers show). */
enum { CK_INTS = 7, CK_REALS = 5 };

/* What must be the same in the model that restores a checkpoint, by name (the analysis last). */
#define IDENTITY_VALUES 5
static void identity_of(const cl_dda_model *m, cl_checkpoint_value v[IDENTITY_VALUES]) {
  v[0] = (cl_checkpoint_value){"blocks", (double)m->n};
  v[1] = (cl_checkpoint_value){"vertices", (double)m->nv};
  v[2] = (cl_checkpoint_value){"fixed_points", (double)m->nf};
  v[3] = (cl_checkpoint_value){"loading_points", (double)m->nl};
  v[4] = (cl_checkpoint_value){"dynamic", (double)m->p.dynamic};
}

/* The statistics that go on from step to step (the energies' sums, the last dt the prediction
 * reads), and the last step's figures, so that stats() reads the same after a restore. */
#define STAT_VALUES 12
static void stats_of(const cl_dda_stats *s, cl_checkpoint_value v[STAT_VALUES]) {
  const cl_checkpoint_value list[STAT_VALUES] = {
      {"steps", (double)s->steps}, {"t", s->t}, {"dt", s->dt}, {"kinetic", s->kinetic},
      {"gravity_work", s->gravity_work}, {"load_work", s->load_work}, {"friction_work", s->friction_work},
      {"closed", (double)s->closed}, {"open_close", s->open_close}, {"pcg", s->pcg},
      {"reductions", s->reductions}, {"warm_residual", s->warm_residual}};
  memcpy(v, list, sizeof list);
}

static int is_count(const char *name) {
  static const char *const counts[] = {"steps", "closed", "open_close", "pcg", "reductions"};
  for (size_t k = 0; k < sizeof counts / sizeof *counts; k++)
    if (strcmp(name, counts[k]) == 0) return 1;
  return 0;
}

/* The model's arrays a checkpoint holds (the contacts' packed in ints and reals, nc of them). */
#define STATE_ARRAYS 18
static void arrays_of(const cl_dda_model *m, size_t nc, const int32_t *ints, const double *reals,
                      cl_checkpoint_array a[STATE_ARRAYS]) {
  const size_t n = m->n, nv = m->nv, nf = m->nf, nl = m->nl;
  const cl_checkpoint_array list[STATE_ARRAYS] = {
      {"vstart", CL_I32, n + 1, 1, m->vstart}, {"material", CL_I32, n, 1, m->material},
      {"vx", CL_F64, nv, 1, m->vx}, {"vy", CL_F64, nv, 1, m->vy},
      {"stress", CL_F64, n, 3, m->stress}, {"velocity", CL_F64, n, 6, m->vel},
      {"rotation", CL_F64, n, 1, m->rotation}, {"D", CL_F64, n, 6, m->D},
      {"x_start", CL_F64, n, 1, m->x_start}, {"y_start", CL_F64, n, 1, m->y_start},
      {"fixed_x", CL_F64, nf, 1, m->fx}, {"fixed_y", CL_F64, nf, 1, m->fy},
      {"load_x", CL_F64, nl, 1, m->lx}, {"load_y", CL_F64, nl, 1, m->ly},
      {"load_fx", CL_F64, nl, 1, m->lpx}, {"load_fy", CL_F64, nl, 1, m->lpy},
      {"contact_ints", CL_I32, nc, CK_INTS, ints}, {"contact_reals", CL_F64, nc, CK_REALS, reals}};
  memcpy(a, list, sizeof list);
}

cl_status cl_dda_save(cl_dda_model *m, const char *path, cl_error *err) {
  CL_TRY(cl_dda_host_state(m, err));
  CL_TRY(cl_dda_host_contacts(m, err));
  /* D and the points the update moves stay on the device: their host copies only for this */
  const int down[] = {A_D, A_FX, A_FY, A_LX, A_LY};
  for (size_t k = 0; k < sizeof down / sizeof *down; k++) CL_TRY(cl_dda_model_to_host(m, down[k], err));
  const size_t nc = m->contacts.count;
  int32_t *ints = alloc_zero(CK_INTS * nc, sizeof *ints);
  double *reals = alloc_zero(CK_REALS * nc, sizeof *reals);
  if (!ints || !reals) return free(ints), free(reals), oom(err);
  for (size_t k = 0; k < nc; k++) {
    const cl_dda_contact *c = &m->contacts.c[k];
    const int32_t iv[CK_INTS] = {c->bi, c->vi, c->bj, c->ej, c->kind, c->state, c->bonded};
    const double rv[CK_REALS] = {c->t_ref, c->length, c->sgn, c->N, c->S};
    for (int q = 0; q < CK_INTS; q++) ints[(size_t)q * nc + k] = iv[q];
    for (int q = 0; q < CK_REALS; q++) reals[(size_t)q * nc + k] = rv[q];
  }
  cl_checkpoint_value values[IDENTITY_VALUES + STAT_VALUES];
  identity_of(m, values), stats_of(&m->stats, values + IDENTITY_VALUES);
  cl_checkpoint_array arrays[STATE_ARRAYS];
  arrays_of(m, nc, ints, reals, arrays);
  cl_status st = cl_checkpoint_write(path, IDENTITY_VALUES + STAT_VALUES, values, STATE_ARRAYS, arrays, err);
  free(ints), free(reals);
  return st;
}

static const cl_checkpoint_value *value_named(const cl_checkpoint *ck, const char *name) {
  for (size_t k = 0; k < ck->nvalues; k++)
    if (strcmp(ck->values[k].name, name) == 0) return &ck->values[k];
  return NULL;
}

static const cl_checkpoint_array *array_named(const cl_checkpoint *ck, const char *name) {
  for (size_t k = 0; k < ck->narrays; k++)
    if (strcmp(ck->arrays[k].name, name) == 0) return &ck->arrays[k];
  return NULL;
}

/* Element k of a checkpoint's array: its data lie unaligned in the file's buffer. */
static int32_t int_at(const void *data, size_t k) {
  int32_t v;
  memcpy(&v, (const unsigned char *)data + k * sizeof v, sizeof v);
  return v;
}

static double real_at(const void *data, size_t k) {
  double v;
  memcpy(&v, (const unsigned char *)data + k * sizeof v, sizeof v);
  return v;
}

static const char *const build_it = "build the model with the script that wrote the checkpoint";

/* The checkpoint against the model: the same blocks, vertices, materials, points and analysis, and
 * every array of the right type and size (nc contacts, their indices within the model). */
static cl_status check_checkpoint(const cl_dda_model *m, const char *path, const cl_checkpoint *ck, size_t *nc,
                                  cl_error *err) {
  cl_checkpoint_value mine[IDENTITY_VALUES + STAT_VALUES];
  identity_of(m, mine), stats_of(&m->stats, mine + IDENTITY_VALUES);
  for (int k = 0; k < IDENTITY_VALUES + STAT_VALUES; k++) {
    const cl_checkpoint_value *v = value_named(ck, mine[k].name);
    if (!v)
      return cl_error_set(err, CL_ERR_ARG, "checkpoint '%s' holds no '%s': it is not a DDA model's checkpoint", path,
                          mine[k].name);
    if (k == IDENTITY_VALUES - 1 && v->value != mine[k].value)
      return cl_error_set(err, CL_ERR_ARG, "checkpoint '%s' is of a %s analysis, this model's is %s; %s", path,
                          v->value != 0 ? "dynamic" : "static", m->p.dynamic ? "dynamic" : "static", build_it);
    if (k < IDENTITY_VALUES - 1 && v->value != mine[k].value)
      return cl_error_set(err, CL_ERR_ARG, "checkpoint '%s' has %.17g %s, this model %.17g; %s", path, v->value,
                          mine[k].name, mine[k].value, build_it);
    /* the counts become integers: whole numbers in range, the rest finite */
    const int count = k >= IDENTITY_VALUES && is_count(mine[k].name);
    if (!isfinite(v->value) || (count && !(v->value >= 0 && v->value <= INT32_MAX && v->value == floor(v->value))))
      return cl_error_set(err, CL_ERR_ARG, "checkpoint '%s' has %s = %g, not a %s; use another checkpoint", path,
                          mine[k].name, v->value, count ? "count" : "finite number");
  }
  const cl_checkpoint_array *contacts = array_named(ck, "contact_ints");
  *nc = contacts ? contacts->n : 0;
  cl_checkpoint_array want[STATE_ARRAYS];
  arrays_of(m, *nc, NULL, NULL, want);
  for (int k = 0; k < STATE_ARRAYS; k++) {
    const cl_checkpoint_array *a = array_named(ck, want[k].name);
    if (!a)
      return cl_error_set(err, CL_ERR_ARG, "checkpoint '%s' holds no array '%s': it is not a DDA model's checkpoint",
                          path, want[k].name);
    if (a->dtype != want[k].dtype || a->n != want[k].n || a->k != want[k].k)
      return cl_error_set(err, CL_ERR_ARG, "checkpoint '%s': array '%s' has %zu x %d values of type %d, this model "
                          "needs %zu x %d of type %d; %s", path, a->name, a->n, a->k, (int)a->dtype, want[k].n,
                          want[k].k, (int)want[k].dtype, build_it);
  }
  const void *vstart = array_named(ck, "vstart")->data, *material = array_named(ck, "material")->data;
  for (size_t i = 0; i < m->n; i++) {
    const int32_t nv = int_at(vstart, i + 1) - int_at(vstart, i);
    if (nv != m->vstart[i + 1] - m->vstart[i])
      return cl_error_set(err, CL_ERR_ARG, "checkpoint '%s': block %zu has %d vertices there, %d in this model; %s",
                          path, i + 1, nv, m->vstart[i + 1] - m->vstart[i], build_it);
    if (int_at(material, i) != m->material[i])
      return cl_error_set(err, CL_ERR_ARG, "checkpoint '%s': block %zu is of material %d there, %d in this model; %s",
                          path, i + 1, int_at(material, i) + 1, m->material[i] + 1, build_it);
  }
  const int32_t limit[CK_INTS] = {(int32_t)m->n, (int32_t)m->nv, (int32_t)m->n, (int32_t)m->nv, 3, 3, 2};
  for (size_t c = 0; c < *nc; c++)
    for (int q = 0; q < CK_INTS; q++)
      if (int_at(contacts->data, (size_t)q * *nc + c) < 0 || int_at(contacts->data, (size_t)q * *nc + c) >= limit[q])
        return cl_error_set(err, CL_ERR_ARG, "checkpoint '%s': contact %zu names a block, vertex, kind or state this "
                            "model has not; %s", path, c + 1, build_it);
  return CL_OK;
}

/* The restored contacts as the last accepted step's device list (the device transfer's). */
static cl_status contacts_to_list(cl_dda_model *m, cl_error *err) {
  const size_t count = m->contacts.count;
  CL_TRY(cl_dda_model_grow(m, &m->lists[m->last], &m->list_cap[m->last], count, LIST_BYTES, err));
  const size_t cap = m->list_cap[m->last];
  void *p = calloc(cap, LIST_BYTES);
  if (!p) return oom(err);
  const cl_dda_device_list l = cl_dda_model_list_view(p, cap);
  for (size_t k = 0; k < count; k++) {
    const cl_dda_contact *c = &m->contacts.c[k];
    l.key[k] = cl_dda_contact_key(c->vi, c->ej, m->nv);
    l.bi[k] = c->bi, l.bj[k] = c->bj, l.vi[k] = c->vi, l.ej[k] = c->ej, l.kind[k] = c->kind, l.state[k] = c->state;
    l.flips[k] = 0, l.bonded[k] = c->bonded;
    l.t_ref[k] = c->t_ref, l.length[k] = c->length, l.sgn[k] = c->sgn, l.N[k] = c->N, l.S[k] = c->S;
  }
  cl_status st = m->dev->to_device(m->dev, m->lists[m->last], p, cap * LIST_BYTES, err);
  free(p);
  m->list_count[m->last] = count;
  return st;
}

cl_status cl_dda_restore(cl_dda_model *m, const char *path, cl_error *err) {
  cl_checkpoint *ck;
  CL_TRY(cl_checkpoint_read(path, &ck, err));
  size_t nc = 0;
  cl_status st = check_checkpoint(m, path, ck, &nc, err);
  if (st == CL_OK && nc > m->contacts.cap) {
    cl_dda_contact *c = realloc(m->contacts.c, nc * sizeof *c);
    if (c) m->contacts.c = c, m->contacts.cap = nc;
    else st = oom(err);
  }
  if (st != CL_OK) {
    cl_checkpoint_free(ck);
    return st;
  }
  /* the arrays (all but vstart and material, compared above) into the model's host copies */
  cl_checkpoint_array into[STATE_ARRAYS];
  arrays_of(m, nc, NULL, NULL, into);
  for (int k = 2; k < STATE_ARRAYS - 2; k++) {
    const size_t bytes = into[k].n * (size_t)into[k].k * sizeof(double);
    if (bytes) memcpy((void *)into[k].data, array_named(ck, into[k].name)->data, bytes);
  }
  const void *ints = array_named(ck, "contact_ints")->data, *reals = array_named(ck, "contact_reals")->data;
  for (size_t k = 0; k < nc; k++) {
    cl_dda_contact *c = &m->contacts.c[k];
    c->bi = int_at(ints, k), c->vi = int_at(ints, nc + k), c->bj = int_at(ints, 2 * nc + k);
    c->ej = int_at(ints, 3 * nc + k), c->kind = int_at(ints, 4 * nc + k), c->state = int_at(ints, 5 * nc + k);
    c->bonded = int_at(ints, 6 * nc + k), c->flips = 0;
    c->t_ref = real_at(reals, k), c->length = real_at(reals, nc + k), c->sgn = real_at(reals, 2 * nc + k);
    c->N = real_at(reals, 3 * nc + k), c->S = real_at(reals, 4 * nc + k);
  }
  m->contacts.count = nc;
  cl_dda_stats *s = &m->stats;
  s->steps = (long)value_named(ck, "steps")->value, s->t = value_named(ck, "t")->value;
  s->dt = value_named(ck, "dt")->value, s->kinetic = value_named(ck, "kinetic")->value;
  s->gravity_work = value_named(ck, "gravity_work")->value, s->load_work = value_named(ck, "load_work")->value;
  s->friction_work = value_named(ck, "friction_work")->value, s->closed = (size_t)value_named(ck, "closed")->value;
  s->open_close = (int)value_named(ck, "open_close")->value, s->pcg = (int)value_named(ck, "pcg")->value;
  s->reductions = (int)value_named(ck, "reductions")->value;
  s->warm_residual = value_named(ck, "warm_residual")->value, s->contacts = nc;
  cl_checkpoint_free(ck);
  /* the host's copies are now the state: onto the device, where the step reads them */
  const int up[] = {A_VX, A_VY, A_STRESS, A_VEL, A_ROTATION, A_D, A_FX, A_FY, A_LX, A_LY, A_LPX, A_LPY};
  for (size_t k = 0; k < sizeof up / sizeof *up; k++) CL_TRY(cl_dda_model_to_device(m, up[k], err));
  m->host_stale = 0, m->loads_set = 0, m->contacts_stale = 0;
  /* the next step builds its pattern anew, as a fresh model's first does (keeping it would give the
   * same indices: the solver compares with what it built them from, not with the restored list) */
  cl_dda_solver_forget_pattern(&m->solver);
  return m->stats.device_pattern ? contacts_to_list(m, err) : CL_OK;
}
