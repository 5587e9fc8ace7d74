/* The cohesive-FEM model: upload, step operations, insertion, energies (czm_model.h). */
#include "czm_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../jit/jit.h"
#include "../dispatch.h"
#include "czm_facet.h"
#include "czm_kernels.h"
#include "czm_strength.h"
#include "../fe/tri.h"
#include "../../runtime/mesh2d.h"
#include "../../runtime/progress.h"

static size_t nper_of(int order) { return order == 2 ? 6 : 3; }
static size_t ngauss_facet(int order) { return order == 2 ? 3 : 2; }

static cl_status check_material(const cl_czm_material *m, cl_error *err) {
  const char *bad = NULL, *fix = NULL;
  if (!(m->E > 0) || !isfinite(m->E)) bad = "E", fix = "Young's modulus must be a positive number (Pa)";
  else if (!(m->nu >= 0 && m->nu < 0.5)) bad = "nu", fix = "Poisson's ratio must lie in [0, 0.5)";
  else if (!(m->rho > 0) || !isfinite(m->rho)) bad = "rho", fix = "the density must be a positive number (kg/m^3)";
  else if (!(m->thickness > 0) || !isfinite(m->thickness)) bad = "thickness", fix = "the thickness must be positive (m)";
  else if (!(m->sigma_max > 0) || !isfinite(m->sigma_max)) bad = "sigma_max", fix = "the cohesive strength must be positive (Pa)";
  else if (!(m->tau_max > 0) || !isfinite(m->tau_max)) bad = "tau_max", fix = "the shear strength must be positive (Pa)";
  else if (!(m->contact >= 0) || !isfinite(m->contact)) bad = "contact", fix = "the contact penalty must be >= 0 (Pa/m)";
  else if (!(m->friction >= 0) || !isfinite(m->friction)) bad = "friction", fix = "the friction coefficient must be >= 0";
  else if (m->friction > 0 && !m->contact_after_breaking)
    bad = "friction", fix = "friction acts on broken faces in contact: set contact_after_breaking = true";
  if (bad) return cl_error_set(err, CL_ERR_ARG, "cohesive FEM: bad '%s': %s", bad, fix);
  return CL_OK;
}

static cl_status make_field(cl_czm_model *z, cl_device_ref *dev, cl_czm_field_id id, cl_dtype t, size_t n, int k,
                            cl_error *err) {
  CL_TRY(cl_field_create(dev, t, n ? n : 1, k, &z->f[id], err));
  return cl_field_fill(z->f[id], 0, err);
}

/* Elements sorted by colour (stable): order[new] = old, and the colour ranges. */
static cl_status colour_order(cl_czm_model *z, const cl_mesh2d *m, uint32_t **order_out, cl_error *err) {
  uint32_t *colour = malloc((m->nelems + 1) * sizeof *colour), *order = malloc((m->nelems + 1) * sizeof *order);
  if (!colour || !order) {
    free(colour), free(order);
    return cl_error_set(err, CL_ERR_OOM, "cohesive FEM: out of memory colouring %zu elements", m->nelems);
  }
  cl_status st = cl_mesh2d_colour(m, colour, &z->ncolours, err);
  if (st == CL_OK && z->ncolours > CL_CZM_MAX_COLOURS)
    st = cl_error_set(err, CL_ERR_ARG, "cohesive FEM: the mesh needs %u colours, more than the %d supported; "
                      "a node shared by that many elements is unusual, check the mesh", z->ncolours, CL_CZM_MAX_COLOURS);
  if (st == CL_OK) {
    size_t count[CL_CZM_MAX_COLOURS + 1] = {0};
    for (size_t e = 0; e < m->nelems; e++) count[colour[e] + 1]++;
    for (uint32_t j = 0; j < z->ncolours; j++) count[j + 1] += count[j];
    memcpy(z->colour_start, count, sizeof count);
    for (size_t e = 0; e < m->nelems; e++) order[count[colour[e]]++] = (uint32_t)e;
  }
  free(colour);
  if (st != CL_OK) free(order);
  else *order_out = order;
  return st;
}

/* Host tables in the device layout (czm_args.h), elements renumbered by colour. */
static cl_status upload_topology(cl_czm_model *z, const cl_mesh2d *m, const cl_cohesive_list *cracks,
                                 const uint32_t *order, cl_error *err) {
  const size_t ne = m->nelems, nper = nper_of(m->order), cc = z->A.coh_cap, cap = z->A.cap;
  uint32_t *pos = malloc(ne * sizeof *pos), *elem = malloc(ne * nper * sizeof *elem);
  int32_t *adj = malloc(3 * ne * sizeof *adj), *coh = calloc(4 * cc, sizeof *coh);
  double *x = calloc(2 * cap, sizeof *x);
  cl_status st = CL_OK;
  if (!pos || !elem || !adj || !coh || !x)
    st = cl_error_set(err, CL_ERR_OOM, "cohesive FEM: out of host memory for the tables of %zu elements", ne);
  if (st == CL_OK) {
    for (size_t r = 0; r < ne; r++) pos[order[r]] = (uint32_t)r;
    for (size_t r = 0; r < ne; r++) {
      const size_t e = order[r];
      for (size_t p = 0; p < nper; p++) elem[p * ne + r] = m->elem[e * nper + p];
      for (int k = 0; k < 3; k++) {
        const int32_t f = m->adj[3 * e + (size_t)k];
        adj[(size_t)k * ne + r] = f < 0 ? -1 : (int32_t)pos[f];
      }
    }
    for (size_t c = 0; cracks && c < cracks->n; c++) {
      const cl_cohesive *q = &cracks->v[c];
      const uint32_t e0 = pos[q->elem[0]], e1 = pos[q->elem[1]];
      coh[c] = (int32_t)e0, coh[cc + c] = q->edge[0] | CL_CZM_FREE, coh[2 * cc + c] = (int32_t)e1;
      coh[3 * cc + c] = q->edge[1];
      adj[(size_t)q->edge[0] * ne + e0] = adj[(size_t)q->edge[1] * ne + e1] = -2 - (int32_t)c;
    }
    for (size_t i = 0; i < m->nnodes; i++) x[i] = m->x[i], x[cap + i] = m->x[m->nnodes + i];
  }
  if (st == CL_OK) st = cl_field_upload(z->f[CL_CZM_ELEM], elem, err);
  if (st == CL_OK) st = cl_field_upload(z->f[CL_CZM_ADJ], adj, err);
  if (st == CL_OK) st = cl_field_upload(z->f[CL_CZM_COH], coh, err);
  if (st == CL_OK) {
    /* x in the model's precision */
    cl_field *xf = z->f[CL_CZM_X];
    if (xf->dtype == CL_F64) st = cl_field_upload(xf, x, err);
    else {
      float *xs = malloc(2 * cap * sizeof *xs);
      if (!xs) st = cl_error_set(err, CL_ERR_OOM, "cohesive FEM: out of host memory for %zu nodes", cap);
      else {
        for (size_t i = 0; i < 2 * cap; i++) xs[i] = (float)x[i];
        st = cl_field_upload(xf, xs, err);
        free(xs);
      }
    }
  }
  if (st == CL_OK) st = cl_field_upload(z->f[CL_CZM_ORIGIN], order, err);
  uint8_t *colour = st == CL_OK ? malloc(ne + 1) : NULL;
  if (st == CL_OK && !colour) st = cl_error_set(err, CL_ERR_OOM, "cohesive FEM: out of host memory");
  for (uint32_t j = 0; colour && j < z->ncolours; j++)
    memset(colour + z->colour_start[j], (int)j, z->colour_start[j + 1] - z->colour_start[j]);
  if (st == CL_OK) st = cl_field_upload(z->f[CL_CZM_COLOUR], colour, err);
  free(colour);
  free(pos), free(elem), free(adj), free(coh), free(x);
  return st;
}

static cl_status device_words(cl_czm_model *z, uint64_t **p, size_t n, cl_error *err) {
  CL_TRY(z->dev->alloc(z->dev, (void **)p, n * sizeof **p, err));
  return cl_k_fill(z->dev, CL_F64, *p, n, 0, err); /* all-zero bits */
}

static void point_args(cl_czm_model *z) {
  cl_czm_args *A = &z->A;
  A->x = z->f[CL_CZM_X]->data, A->u = z->f[CL_CZM_U]->data, A->v = z->f[CL_CZM_V]->data;
  A->a = z->f[CL_CZM_A]->data, A->mass = z->f[CL_CZM_MASS_F]->data, A->stress = z->f[CL_CZM_STRESS_F]->data;
  A->load = z->has_load ? z->f[CL_CZM_LOAD]->data : NULL;
  A->stiffness = z->f[CL_CZM_STIFF] ? z->f[CL_CZM_STIFF]->data : NULL;
  A->elem = z->f[CL_CZM_ELEM]->data, A->adj = z->f[CL_CZM_ADJ]->data, A->coh = z->f[CL_CZM_COH]->data;
  A->fixed = z->f[CL_CZM_FIXED]->data, A->colour = z->f[CL_CZM_COLOUR]->data;
  A->mask = z->f[CL_CZM_MASK]->data, A->split = z->f[CL_CZM_SPLIT]->data, A->coh_force = z->f[CL_CZM_COH_FORCE]->data, A->hist = z->f[CL_CZM_HIST]->data;
  A->strength = z->f[CL_CZM_STRENGTH] ? z->f[CL_CZM_STRENGTH]->data : NULL;
  A->facet_stress = z->f[CL_CZM_FACET_STRESS] ? z->f[CL_CZM_FACET_STRESS]->data : NULL;
  for (int s = 0; s < z->opt.nstate; s++) A->law.state[s] = z->state[s]->data;
  A->reaction = z->f[CL_CZM_REACTION] ? z->f[CL_CZM_REACTION]->data : NULL;
}

static cl_status allocate(cl_czm_model *z, cl_device_ref *dev, const cl_mesh2d *m, cl_error *err) {
  const cl_dtype t = z->opt.dtype;
  const size_t ne = m->nelems, cap = z->A.cap, cc = z->A.coh_cap, gs = cc * ngauss_facet(m->order);
  const int nd = 2 * cl_tri_nodes(m->order);
  CL_TRY(make_field(z, dev, CL_CZM_X, t, cap, 2, err));
  CL_TRY(make_field(z, dev, CL_CZM_U, t, cap, 2, err));
  CL_TRY(make_field(z, dev, CL_CZM_V, t, cap, 2, err));
  CL_TRY(make_field(z, dev, CL_CZM_A, t, cap, 2, err));
  CL_TRY(make_field(z, dev, CL_CZM_MASS_F, t, cap, 1, err));
  CL_TRY(make_field(z, dev, CL_CZM_STRESS_F, t, cap, 4, err));
  CL_TRY(make_field(z, dev, CL_CZM_LOAD, t, cap, 2, err));
  CL_TRY(make_field(z, dev, CL_CZM_ELEM, CL_U32, ne, (int)nper_of(m->order), err));
  CL_TRY(make_field(z, dev, CL_CZM_ADJ, CL_I32, ne, 3, err));
  CL_TRY(make_field(z, dev, CL_CZM_COH, CL_I32, cc, 4, err));
  CL_TRY(make_field(z, dev, CL_CZM_MASK, CL_U8, ne, 1, err));
  CL_TRY(make_field(z, dev, CL_CZM_SPLIT, CL_U8, ne, 1, err));
  CL_TRY(make_field(z, dev, CL_CZM_COH_FORCE, t, cc, 12, err));
  CL_TRY(make_field(z, dev, CL_CZM_HIST, t, gs, CL_CZM_HIST_COLUMNS, err));
  CL_TRY(make_field(z, dev, CL_CZM_SCRATCH, t, ne > cap ? ne : cap, 1, err));
  CL_TRY(make_field(z, dev, CL_CZM_ORIGIN, CL_U32, ne, 1, err));
  CL_TRY(make_field(z, dev, CL_CZM_FIXED, CL_U8, cap, 1, err));
  CL_TRY(make_field(z, dev, CL_CZM_COLOUR, CL_U8, ne, 1, err));
  if (z->opt.stored_stiffness) CL_TRY(make_field(z, dev, CL_CZM_STIFF, t, ne, nd * nd, err));
  if (z->opt.state_sn || z->opt.state_ss) CL_TRY(make_field(z, dev, CL_CZM_FACET_STRESS, t, ne, 6, err));
  for (int s = 0; s < z->opt.nstate; s++) {
    CL_TRY(cl_field_create(dev, t, gs ? gs : 1, 1, &z->state[s], err));
    CL_TRY(cl_field_fill(z->state[s], z->opt.state_init[s], err));
  }
  CL_TRY(device_words(z, &z->A.counts, ne ? ne : 1, err));
  CL_TRY(device_words(z, &z->A.offsets, ne ? ne : 1, err));
  CL_TRY(device_words(z, &z->A.block_sums, ne / 64 + 1, err)); /* czm_cuda.cu: blocks of 64 or more */
  /* counters[2] is the cohesive law's NaN flag, read back with the others at check steps */
  CL_TRY(device_words(z, &z->A.counters, CL_CZM_NCOUNTERS, err));
  z->A.nonfinite = z->A.counters + 2;
  z->A.negative_dissipation = z->A.counters + CL_CZM_NEGATIVE_DISSIPATION;
  uint64_t *range;
  CL_TRY(device_words(z, &range, z->ncolours + 1, err));
  z->A.colour_range = range, z->A.ncolours = (int)z->ncolours;
  uint64_t host[CL_CZM_MAX_COLOURS + 1];
  for (uint32_t j = 0; j <= z->ncolours; j++) host[j] = z->colour_start[j];
  return z->dev->to_device(z->dev, range, host, (z->ncolours + 1) * sizeof *host, err);
}

static cl_status run_op(cl_czm_model *z, cl_czm_op op, size_t first, size_t count, void *out, cl_error *err) {
  z->A.first = first, z->A.count = count;
  return cl_k_czm(z->dev, z->opt.dtype, &z->A, op, out, err);
}

/* op over the elements: colour by colour, or all at once when atomic (or when no scatter). */
static cl_status run_colours(cl_czm_model *z, cl_czm_op op, int scatter, cl_error *err) {
  if (!scatter || z->A.atomic) return run_op(z, op, 0, z->A.ne, NULL, err);
  for (uint32_t j = 0; j < z->ncolours; j++)
    CL_TRY(run_op(z, op, z->colour_start[j], z->colour_start[j + 1] - z->colour_start[j], NULL, err));
  return CL_OK;
}

static cl_status read_counters(cl_czm_model *z, uint64_t c[CL_CZM_NCOUNTERS], cl_error *err) {
  CL_TRY(z->dev->to_host(z->dev, c, z->A.counters, CL_CZM_NCOUNTERS * sizeof *c, err));
  z->A.nn = (size_t)c[0], z->A.ncoh = (size_t)c[1];
  return CL_OK;
}

static void touch_nodes(cl_czm_model *z) {
  for (int id = 0; id < CL_CZM_NFIELDS; id++)
    if (z->f[id]) cl_field_touch(z->f[id]);
  for (int s = 0; s < z->opt.nstate; s++) cl_field_touch(z->state[s]);
}

cl_status cl_czm_update_masses(cl_czm_model *z, cl_error *err) {
  CL_TRY(cl_field_fill(z->f[CL_CZM_MASS_F], 0, err));
  CL_TRY(run_colours(z, CL_CZM_MASS, 1, err));
  cl_field_touch(z->f[CL_CZM_MASS_F]);
  return CL_OK;
}

/* Shortest corner-to-corner edge of the mesh. */
static double shortest_edge(const cl_mesh2d *m) {
  const size_t nper = nper_of(m->order);
  double h = INFINITY;
  for (size_t e = 0; e < m->nelems; e++)
    for (int k = 0; k < 3; k++) {
      const uint32_t a = m->elem[e * nper + (size_t)k], b = m->elem[e * nper + (size_t)(k + 1) % 3];
      const double l = hypot(m->x[a] - m->x[b], m->x[m->nnodes + a] - m->x[m->nnodes + b]);
      if (l < h) h = l;
    }
  return h;
}

cl_status cl_czm_create(cl_device_ref *dev, const cl_mesh2d *m, const cl_cohesive_list *cracks,
                        const cl_czm_material *given, const cl_czm_options *opt, cl_czm_model **out, cl_error *err) {
  *out = NULL;
  cl_czm_material material = *given, *mat = &material;
  /* the penalty of a facet of length h then stiffens its nodes about as much as the elements do */
  if (mat->contact == CL_CZM_CONTACT_AUTO) mat->contact = mat->E / shortest_edge(m);
  CL_TRY(check_material(mat, err));
  if (opt->dtype != CL_F32 && opt->dtype != CL_F64)
    return cl_error_set(err, CL_ERR_ARG, "cohesive FEM: precision must be f32 or f64");
  if (opt->nstate < 0 || opt->nstate > CL_MP_STATE_MAX)
    return cl_error_set(err, CL_ERR_ARG, "cohesive FEM: at most %d law state variables", CL_MP_STATE_MAX);
  if (opt->state_sn < 0 || opt->state_sn > opt->nstate || opt->state_ss < 0 || opt->state_ss > opt->nstate)
    return cl_error_set(err, CL_ERR_ARG, "cohesive FEM: the insertion stress slots must be law state variables");
  CL_TRY(cl_mesh2d_check(m, err));
  cl_czm_model *z = calloc(1, sizeof *z);
  if (!z) return cl_error_set(err, CL_ERR_OOM, "cohesive FEM: out of memory");
  z->ref = cl_device_ref_retain(dev), z->dev = &dev->dev, z->mat = *mat, z->opt = *opt;
  size_t interior, boundary;
  cl_mesh2d_facets(m, &interior, &boundary);
  const size_t ncracks = cracks ? cracks->n : 0;
  cl_czm_args *A = &z->A;
  /* the cpu loops scatter by colour only (cl_czm_add has no host atomics) */
  A->order = m->order, A->plane_strain = mat->plane_strain, A->atomic = opt->atomic && dev->dev.kind != CL_BACKEND_CPU;
  A->block_counter = opt->block_counter;
  A->ne = m->nelems, A->cap = nper_of(m->order) * m->nelems, A->nn = m->nnodes;
  A->coh_cap = interior + ncracks, A->ncoh = ncracks;
  A->E = mat->E, A->nu = mat->nu, A->rho = mat->rho, A->thickness = mat->thickness;
  A->sigma_max = mat->sigma_max, A->tau_max = mat->tau_max, A->contact = mat->contact;
  A->contact_after_breaking = mat->contact_after_breaking, A->friction = mat->friction;
  /* a law's dissipation increment is the difference of terms rounded in the model's precision */
  A->dissipation_tol = opt->dtype == CL_F32 ? 1e-4 : 1e-10;
  A->nstate = opt->nstate, A->state_sn = opt->state_sn, A->state_ss = opt->state_ss;
  memcpy(A->state_init, opt->state_init, sizeof A->state_init);
  z->nn0 = m->nnodes, z->interior = interior;
  uint32_t *order = NULL;
  cl_status st = colour_order(z, m, &order, err);
  if (st == CL_OK) st = allocate(z, dev, m, err);
  if (st == CL_OK) st = upload_topology(z, m, cracks, order, err);
  free(order);
  if (st == CL_OK) {
    point_args(z);
    uint64_t counters[CL_CZM_NCOUNTERS] = {m->nnodes, ncracks};
    st = dev->dev.to_device(&dev->dev, A->counters, counters, sizeof counters, err);
  }
  cl_device_info info;
  if (st == CL_OK) st = dev->dev.info(&dev->dev, &info, err);
  /* four blocks per multiprocessor of cohesive Gauss points in the fused force launch */
  if (st == CL_OK) z->fused_cohesive_threads = (size_t)info.multiprocessors * 4 * CL_CZM_THREADS;
  if (st == CL_OK && opt->stored_stiffness) st = run_colours(z, CL_CZM_STIFFNESS, 0, err);
  if (st == CL_OK) st = cl_czm_update_masses(z, err);
  if (st != CL_OK) {
    cl_czm_destroy(z);
    return st;
  }
  touch_nodes(z);
  *out = z;
  return CL_OK;
}

static void release_graphs(cl_czm_model *z) {
  for (int k = 0; k < 4; k++) {
    if (z->graphs[k].graph) z->dev->graph_release(z->dev, z->graphs[k].graph);
    z->graphs[k] = (struct cl_czm_graph){0};
  }
}

void cl_czm_destroy(cl_czm_model *z) {
  if (!z) return;
  for (int id = 0; id < CL_CZM_NFIELDS && !z->fields_lent; id++) cl_field_destroy(z->f[id]);
  for (int s = 0; s < CL_MP_STATE_MAX && !z->fields_lent; s++) cl_field_destroy(z->state[s]);
  uint64_t *words[] = {z->A.counts, z->A.offsets, z->A.block_sums, z->A.counters, (uint64_t *)z->A.colour_range};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (words[i]) z->dev->release(z->dev, words[i]);
  release_graphs(z);
  cl_device_ref_release(z->ref);
  free(z);
}

/* The cohesive law's NaN flag and negative dissipation flag, as read with the counters. */
static cl_status check_law(const uint64_t *c, cl_error *err) {
  if (c[2])
    return cl_error_set(err, CL_ERR_SCRIPT, "cohesive FEM: the cohesive law gave a NaN or infinite traction on "
                        "cohesive element %llu: check it for divisions by zero, roots or logs of negative numbers",
                        (unsigned long long)c[2]);
  if (c[CL_CZM_NEGATIVE_DISSIPATION])
    return cl_error_set(err, CL_ERR_SCRIPT, "cohesive FEM: the cohesive law dissipated a negative energy on cohesive "
                        "element %llu (its work fell below the energy it stores, traction . opening / 2): a law must "
                        "unload towards the origin and never gain strength; check it, or the time step",
                        (unsigned long long)c[CL_CZM_NEGATIVE_DISSIPATION]);
  return CL_OK;
}

cl_status cl_czm_flush(cl_czm_model *z, cl_error *err) {
  uint64_t c[CL_CZM_NCOUNTERS];
  CL_TRY(read_counters(z, c, err));
  z->counts_stale = 0, z->steps_unchecked = 0;
  return check_law(c, err);
}

/* The host's counts brought up to date after graphs that may have inserted (every public
 * operation but the graph steps starts with it). */
static cl_status current(cl_czm_model *z, cl_error *err) { return z->counts_stale ? cl_czm_flush(z, err) : CL_OK; }

cl_status cl_czm_counts(cl_czm_model *z, size_t *nodes, size_t *cohesive, cl_error *err) {
  CL_TRY(cl_czm_flush(z, err));
  *nodes = z->A.nn, *cohesive = z->A.ncoh;
  return CL_OK;
}

void cl_czm_set_law(cl_czm_model *z, void *cohesive_entry, void *forces_entry) {
  release_graphs(z); /* they launch the old kernels */
  z->cohesive_entry = cohesive_entry, z->forces_entry = forces_entry;
}

static cl_status check_strength(const cl_czm_strength *s, cl_error *err) {
  const char *bad = NULL, *fix = NULL;
  if (s->distribution == CL_CZM_STRENGTH_UNIFORM && !(s->spread >= 0 && s->spread < 1))
    bad = "spread", fix = "the uniform factor lies in [1 - spread, 1 + spread]: give 0 <= spread < 1";
  else if (s->distribution == CL_CZM_STRENGTH_WEIBULL && !(s->modulus > 0 && isfinite(s->modulus)))
    bad = "modulus", fix = "the Weibull modulus m must be a positive number";
  else if (s->distribution == CL_CZM_STRENGTH_WEIBULL && !(s->area > 0 && isfinite(s->area)))
    bad = "area", fix = "the reference facet area A0 must be a positive number (m^2)";
  if (bad) return cl_error_set(err, CL_ERR_ARG, "cohesive FEM strength: bad '%s': %s", bad, fix);
  return CL_OK;
}

cl_status cl_czm_set_strength(cl_czm_model *z, const cl_czm_strength *s, const uint8_t *allowed, cl_error *err) {
  CL_TRY(check_strength(s, err));
  size_t nodes, cohesive;
  CL_TRY(cl_czm_counts(z, &nodes, &cohesive, err));
  /* facets are named by their nodes as given: a crack made since would rename some */
  if (nodes != z->nn0)
    return cl_error_set(err, CL_ERR_ARG, "cohesive FEM strength: set the facet strengths before the run inserts "
                        "cohesive elements");
  const size_t ne = z->A.ne, cap = z->A.cap;
  const void *elem, *x;
  CL_TRY(cl_field_host(z->f[CL_CZM_ELEM], &elem, err));
  CL_TRY(cl_field_host(z->f[CL_CZM_X], &x, err));
  const uint32_t *E = elem;
  const cl_dtype t = z->opt.dtype;
  double *factor = malloc(3 * ne * sizeof *factor);
  if (!factor) return cl_error_set(err, CL_ERR_OOM, "cohesive FEM strength: out of memory for %zu elements", ne);
  for (size_t e = 0; e < ne; e++)
    for (size_t k = 0; k < 3; k++) {
      const uint32_t a = E[k * ne + e], b = E[(k + 1) % 3 * ne + e];
      const double u = cl_czm_facet_uniform(s->seed, a, b);
      double f = 1;
      if (s->distribution == CL_CZM_STRENGTH_UNIFORM) f = 1 + s->spread * (2 * u - 1);
      else if (s->distribution == CL_CZM_STRENGTH_WEIBULL) {
        const double dx = cl_dtype_get(t, x, b) - cl_dtype_get(t, x, a);
        const double dy = cl_dtype_get(t, x, cap + b) - cl_dtype_get(t, x, cap + a);
        f = cl_czm_weibull_factor(u, s->modulus, hypot(dx, dy) * z->mat.thickness, s->area);
      }
      factor[k * ne + e] = allowed && !allowed[k * ne + e] ? INFINITY : f;
    }
  cl_status st = CL_OK;
  const int made = !z->f[CL_CZM_STRENGTH];
  if (made) st = make_field(z, z->ref, CL_CZM_STRENGTH, t, ne, 3, err);
  if (st == CL_OK && t == CL_F64) st = cl_field_upload(z->f[CL_CZM_STRENGTH], factor, err);
  else if (st == CL_OK) {
    float *f32 = malloc(3 * ne * sizeof *f32);
    if (!f32) st = cl_error_set(err, CL_ERR_OOM, "cohesive FEM strength: out of memory for %zu elements", ne);
    for (size_t i = 0; f32 && i < 3 * ne; i++) f32[i] = (float)factor[i];
    if (f32) st = cl_field_upload(z->f[CL_CZM_STRENGTH], f32, err);
    free(f32);
  }
  free(factor);
  if (st != CL_OK && made && z->f[CL_CZM_STRENGTH]) {
    /* a field made here and not filled: not lent to the caller yet, and left in place a later
     * point_args would check against its zeros */
    cl_field_destroy(z->f[CL_CZM_STRENGTH]);
    z->f[CL_CZM_STRENGTH] = NULL;
  }
  if (st != CL_OK) return st;
  point_args(z);
  release_graphs(z); /* they were recorded without the strengths */
  return CL_OK;
}

void cl_czm_use_load(cl_czm_model *z) {
  if (z->has_load) return;
  release_graphs(z); /* they were recorded without a load */
  z->has_load = 1, z->A.load = z->f[CL_CZM_LOAD]->data;
}

/* Cohesive forces, then element forces scattered into the accumulators; with atomic scatter and
 * a compiled fused kernel, both in one launch. A.ncoh bounds the cohesive elements launched. */
static cl_status element_forces(cl_czm_model *z, cl_error *err) {
  cl_field_touch(z->f[CL_CZM_A]);
  if (z->A.ncoh) cl_field_touch(z->f[CL_CZM_HIST]), cl_field_touch(z->f[CL_CZM_COH_FORCE]);
  for (int s = 0; s < z->opt.nstate && z->A.ncoh; s++) cl_field_touch(z->state[s]);
  if (z->A.atomic && z->forces_entry) {
    /* a grid for the elements and a bounded one for the cohesive Gauss points (the kernel's
     * grid-stride loop takes the rest): a graph covers the whole cohesive capacity, mostly
     * unused, and idle blocks cost time on a small mesh */
    const size_t points = z->A.ncoh * ngauss_facet(z->A.order), most = z->fused_cohesive_threads;
    return cl_jit_launch_threads(z->dev, z->forces_entry, &z->A, z->A.ne + (points < most ? points : most),
                                 CL_CZM_THREADS, "element and cohesive forces", err);
  }
  if (z->A.ncoh) CL_TRY(cl_jit_launch(z->dev, z->cohesive_entry, &z->A, z->A.ncoh, "cohesive law", err));
  return run_colours(z, CL_CZM_FORCE, 1, err);
}

static cl_status node_pass(cl_czm_model *z, cl_czm_op op, double dt, cl_error *err) {
  z->A.dt = dt;
  CL_TRY(run_op(z, op, 0, z->A.nn, NULL, err));
  cl_field_touch(z->f[CL_CZM_U]), cl_field_touch(z->f[CL_CZM_V]), cl_field_touch(z->f[CL_CZM_A]);
  if (z->f[CL_CZM_REACTION]) cl_field_touch(z->f[CL_CZM_REACTION]);
  return CL_OK;
}

cl_status cl_czm_forces(cl_czm_model *z, double load_scale, cl_error *err) {
  CL_TRY(current(z, err));
  z->A.load_scale = load_scale;
  CL_TRY(run_op(z, CL_CZM_FORCE_START, 0, z->A.nn, NULL, err));
  CL_TRY(element_forces(z, err));
  return node_pass(z, CL_CZM_FORCE_FINISH, z->A.dt, err);
}


cl_status cl_czm_step_begin(cl_czm_model *z, double dt, double load_scale, cl_error *err) {
  CL_TRY(current(z, err));
  z->A.load_scale = load_scale;
  return node_pass(z, CL_CZM_KICK_DRIFT_START, dt, err);
}

cl_status cl_czm_step_forces(cl_czm_model *z, cl_error *err) {
  CL_TRY(current(z, err));
  return element_forces(z, err);
}

cl_status cl_czm_step_end(cl_czm_model *z, double dt, cl_error *err) {
  CL_TRY(current(z, err));
  return node_pass(z, CL_CZM_FINISH_KICK, dt, err);
}

cl_status cl_czm_fix(cl_czm_model *z, const uint32_t *nodes, size_t count, int c, cl_error *err) {
  CL_TRY(current(z, err));
  if (!z->f[CL_CZM_REACTION]) { /* only models with prescribed nodes pay for it */
    CL_TRY(make_field(z, z->ref, CL_CZM_REACTION, z->opt.dtype, z->A.cap, 5, err));
    release_graphs(z); /* recorded without it */
    point_args(z);
  }
  cl_field *f = z->f[CL_CZM_FIXED];
  uint8_t *fixed = malloc(f->n);
  if (!fixed) return cl_error_set(err, CL_ERR_OOM, "cohesive FEM: out of memory");
  cl_status st = cl_field_download(f, fixed, err);
  for (size_t i = 0; i < count && st == CL_OK; i++) {
    if (nodes[i] >= z->A.nn) st = cl_error_set(err, CL_ERR_ARG, "cohesive FEM: node %u is not in use", nodes[i] + 1);
    else fixed[nodes[i]] |= (uint8_t)(1 << c);
  }
  if (st == CL_OK) st = cl_field_upload(f, fixed, err);
  free(fixed);
  return st;
}

/* Nodal stresses (zeroing them also clears the facet marks of the last check). */
static cl_status stresses(cl_czm_model *z, cl_error *err) {
  CL_TRY(run_op(z, CL_CZM_STRESS_ZERO, 0, z->A.nn, NULL, err));
  CL_TRY(run_colours(z, CL_CZM_STRESS, 1, err));
  cl_field_touch(z->f[CL_CZM_STRESS_F]);
  return CL_OK;
}

cl_status cl_czm_stresses(cl_czm_model *z, cl_error *err) {
  CL_TRY(current(z, err));
  return stresses(z, err);
}

/* Appendix A's insertion: a count and an apply launch (block-local counters) per colour marked
 * in the host's copy `marked` of the counters. */
static cl_status insert_blocks(cl_czm_model *z, const uint64_t *marked, cl_error *err) {
  touch_nodes(z);
  for (uint32_t j = 0; j < z->ncolours; j++) {
    if (!marked[j]) continue;
    const size_t first = z->colour_start[j], count = z->colour_start[j + 1] - first;
    CL_TRY(run_op(z, CL_CZM_COUNT, first, count, NULL, err));
    CL_TRY(run_op(z, CL_CZM_APPLY_BLOCK, first, count, NULL, err));
  }
  return CL_OK;
}

/* The ordered insertion as one CL_CZM_INSERT: [the nodal stresses (zeroed before) and the facet
 * check,] every colour with marks (the device reads them from the counters), [the masses]. */
static cl_status insert_ordered(cl_czm_model *z, int with_check, int masses, cl_error *err) {
  touch_nodes(z);
  size_t widest = 1;
  for (uint32_t j = 0; j < z->ncolours; j++)
    if (z->colour_start[j + 1] - z->colour_start[j] > widest) widest = z->colour_start[j + 1] - z->colour_start[j];
  z->A.insert_check = with_check, z->A.insert_masses = masses;
  return run_op(z, CL_CZM_INSERT, 0, widest, NULL, err);
}

static int block_counter(const cl_czm_model *z) { return z->A.block_counter && z->dev->kind != CL_BACKEND_CPU; }

cl_status cl_czm_insert_marked(cl_czm_model *z, cl_error *err) {
  CL_TRY(current(z, err));
  uint64_t c[CL_CZM_NCOUNTERS];
  CL_TRY(read_counters(z, c, err));
  for (uint32_t j = 0; j <= z->ncolours; j++) c[3 + j] = 1; /* any colour may hold marks */
  CL_TRY(z->dev->to_device(z->dev, z->A.counters, c, sizeof c, err));
  CL_TRY(block_counter(z) ? insert_blocks(z, c + 4, err) : insert_ordered(z, 0, 0, err));
  return read_counters(z, c, err);
}

/* One host round trip: the counters, facets marked and NaN flag come back together. */
cl_status cl_czm_check_and_insert(cl_czm_model *z, size_t *inserted, cl_error *err) {
  *inserted = 0;
  CL_TRY(current(z, err));
  const size_t before = z->A.ncoh;
  uint64_t c[CL_CZM_NCOUNTERS];
  if (block_counter(z)) { /* the marks per colour decide the launches */
    CL_TRY(stresses(z, err));
    CL_TRY(run_op(z, CL_CZM_CHECK, 0, z->A.ne, NULL, err));
    cl_field_touch(z->f[CL_CZM_MASK]);
    CL_TRY(read_counters(z, c, err));
    if (c[3]) {
      CL_TRY(insert_blocks(z, c + 4, err));
      CL_TRY(cl_czm_update_masses(z, err));
    }
  } else {
    CL_TRY(run_op(z, CL_CZM_STRESS_ZERO, 0, z->A.nn, NULL, err));
    CL_TRY(insert_ordered(z, 1, 1, err));
  }
  CL_TRY(read_counters(z, c, err));
  *inserted = z->A.ncoh - before;
  return check_law(c, err); /* the flags of the steps since the last check */
}

static cl_status reduce_sum(cl_czm_model *z, const void *data, size_t count, double *out, cl_error *err) {
  *out = 0;
  if (!count) return CL_OK;
  return cl_k_reduce(z->dev, z->opt.dtype, data, count, CL_REDUCE_SUM, out, err);
}

cl_status cl_czm_energies(cl_czm_model *z, double dt, cl_czm_energy *out, cl_error *err) {
  CL_TRY(current(z, err));
  void *scratch = z->f[CL_CZM_SCRATCH]->data;
  const size_t bytes = z->opt.dtype == CL_F64 ? 8 : 4, gs = z->A.coh_cap * ngauss_facet(z->A.order);
  const size_t used = z->A.ncoh * ngauss_facet(z->A.order);
  CL_TRY(run_op(z, CL_CZM_ENERGY, 0, z->A.ne, scratch, err));
  CL_TRY(reduce_sum(z, scratch, z->A.ne, &out->strain, err));
  CL_TRY(run_op(z, CL_CZM_KINETIC, 0, z->A.nn, scratch, err));
  CL_TRY(reduce_sum(z, scratch, z->A.nn, &out->kinetic, err));
  const double step_dt = z->A.dt;
  z->A.dt = dt;
  cl_status st = run_op(z, CL_CZM_KINETIC_STAGGERED, 0, z->A.nn, scratch, err);
  z->A.dt = step_dt;
  CL_TRY(st);
  CL_TRY(reduce_sum(z, scratch, z->A.nn, &out->kinetic_staggered, err));
  const char *hist = z->f[CL_CZM_HIST]->data;
  const struct { int column; double *sum; } terms[] = {{CL_CZM_H_LAW_WORK, &out->cohesive_work},
    {CL_CZM_H_LAW_STORED, &out->cohesive_stored}, {CL_CZM_H_CONTACT_WORK, &out->contact_work},
    {CL_CZM_H_CONTACT_STORED, &out->contact_stored}};
  for (size_t k = 0; k < sizeof terms / sizeof *terms; k++)
    CL_TRY(reduce_sum(z, hist + (size_t)terms[k].column * gs * bytes, used, terms[k].sum, err));
  cl_field_touch(z->f[CL_CZM_SCRATCH]);
  return CL_OK;
}

cl_status cl_czm_download(cl_czm_model *z, cl_mesh2d *m, cl_cohesive_list *c, cl_error *err) {
  const cl_czm_args *A = &z->A;
  const size_t ne = A->ne, nper = nper_of(A->order), cc = A->coh_cap;
  memset(c, 0, sizeof *c);
  CL_TRY(cl_czm_flush(z, err));
  CL_TRY(cl_mesh2d_alloc(A->order, A->nn, ne, m, err));
  const void *elem, *adj, *coh, *x;
  cl_status st = cl_field_host(z->f[CL_CZM_ELEM], &elem, err);
  if (st == CL_OK) st = cl_field_host(z->f[CL_CZM_ADJ], &adj, err);
  if (st == CL_OK) st = cl_field_host(z->f[CL_CZM_COH], &coh, err);
  if (st == CL_OK) st = cl_field_host(z->f[CL_CZM_X], &x, err);
  if (st == CL_OK && A->ncoh && !(c->v = malloc(A->ncoh * sizeof *c->v)))
    st = cl_error_set(err, CL_ERR_OOM, "cohesive FEM: out of memory for %zu cohesive elements", A->ncoh);
  if (st != CL_OK) {
    cl_mesh2d_free(m);
    return st;
  }
  const uint32_t *E = elem;
  const int32_t *J = adj, *C = coh;
  for (size_t e = 0; e < ne; e++) {
    for (size_t p = 0; p < nper; p++) m->elem[e * nper + p] = E[p * ne + e];
    for (int k = 0; k < 3; k++) m->adj[3 * e + (size_t)k] = J[(size_t)k * ne + e] < 0 ? -1 : J[(size_t)k * ne + e];
  }
  for (size_t i = 0; i < A->nn; i++)
    for (int d = 0; d < 2; d++) m->x[(size_t)d * A->nn + i] = cl_dtype_get(z->opt.dtype, x, (size_t)d * A->cap + i);
  for (size_t q = 0; q < A->ncoh; q++)
    c->v[q] = (cl_cohesive){{(uint32_t)C[q], (uint32_t)C[2 * cc + q]}, {(uint8_t)(C[cc + q] & 3), (uint8_t)C[3 * cc + q]}};
  c->n = c->cap = A->ncoh;
  return CL_OK;
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static cl_status profile_part(cl_czm_model *z, int part, cl_error *err) {
  switch (part) {
    case 0: return node_pass(z, CL_CZM_KICK_DRIFT_START, z->A.dt, err);
    case 1: return z->A.ncoh ? cl_jit_launch(z->dev, z->cohesive_entry, &z->A, z->A.ncoh, "cohesive law", err) : CL_OK;
    case 2: return run_colours(z, CL_CZM_FORCE, 1, err);
    case 3: return node_pass(z, CL_CZM_FINISH_KICK, z->A.dt, err);
    case 4: return stresses(z, err);
    default: return run_op(z, CL_CZM_CHECK, 0, z->A.ne, NULL, err);
  }
}

cl_status cl_czm_profile(cl_czm_model *z, int reps, double seconds[6], cl_error *err) {
  CL_TRY(current(z, err));
  double *t = malloc((size_t)(reps > 0 ? reps : 1) * sizeof *t);
  if (!t) return cl_error_set(err, CL_ERR_OOM, "cohesive FEM: out of memory");
  cl_status st = CL_OK;
  for (int part = 0; part < 6 && st == CL_OK; part++) {
    st = profile_part(z, part, err);
    for (int r = 0; r < reps && st == CL_OK; r++) {
      if ((st = z->dev->synchronize(z->dev, err)) != CL_OK) break;
      const double t0 = cl_monotonic_seconds();
      if ((st = profile_part(z, part, err)) == CL_OK) st = z->dev->synchronize(z->dev, err);
      t[r] = cl_monotonic_seconds() - t0;
    }
    if (st == CL_OK) {
      qsort(t, (size_t)reps, sizeof *t, compare_doubles);
      seconds[part] = t[reps / 2];
    }
  }
  free(t);
  return st;
}

cl_status cl_czm_set_counts(cl_czm_model *z, size_t nodes, size_t cohesive, cl_error *err) {
  if (nodes < z->nn0 || nodes > z->A.cap || cohesive > z->A.coh_cap)
    return cl_error_set(err, CL_ERR_ARG, "cohesive FEM: %zu nodes and %zu cohesive elements do not fit this model "
                        "(%zu to %zu nodes, at most %zu cohesive elements)", nodes, cohesive, z->nn0, z->A.cap, z->A.coh_cap);
  CL_TRY(current(z, err));
  uint64_t c[CL_CZM_NCOUNTERS];
  CL_TRY(read_counters(z, c, err));
  c[0] = nodes, c[1] = cohesive;
  CL_TRY(z->dev->to_device(z->dev, z->A.counters, c, sizeof c, err));
  z->A.nn = nodes, z->A.ncoh = cohesive;
  return CL_OK;
}

cl_status cl_czm_step(cl_czm_model *z, long step, int check_every, double dt, double load_scale, cl_error *err) {
  CL_TRY(cl_czm_step_begin(z, dt, load_scale, err));
  if (check_every > 0 && step % check_every == 0) {
    size_t inserted;
    CL_TRY(cl_czm_check_and_insert(z, &inserted, err));
  }
  CL_TRY(element_forces(z, err));
  return node_pass(z, CL_CZM_FINISH_KICK, dt, err);
}

/* What a graph of steps launches (z->graphs[z->next_graph] says which): begin (with a check, also
 * zeroing the nodal stresses, then one kernel for the nodal stresses, the facet check and the
 * insertion with its masses, all decided on the device); forces; then per further step the end
 * of the last and the begin of the next in one pass, and forces; end. Launches cover the
 * capacities: the counters on the device bound the work. */
static cl_status record_steps(void *data, cl_error *err) {
  cl_czm_model *z = data;
  const struct cl_czm_graph *g = &z->graphs[z->next_graph];
  z->A.load_scale = g->scale, z->A.dt = g->dt;
  CL_TRY(node_pass(z, g->check ? CL_CZM_KICK_DRIFT_ZERO : CL_CZM_KICK_DRIFT_START, g->dt, err));
  if (g->check) CL_TRY(insert_ordered(z, 1, 1, err));
  CL_TRY(element_forces(z, err));
  for (long k = 1; k < g->steps; k++) {
    CL_TRY(node_pass(z, CL_CZM_LEAPFROG, g->dt, err));
    CL_TRY(element_forces(z, err));
  }
  return node_pass(z, CL_CZM_FINISH_KICK, g->dt, err);
}

/* The graph of `steps` steps [starting with a check], recorded when no cached one fits; one
 * that the nodes in use have outgrown is recorded again in its own entry. */
static cl_status graph_of(cl_czm_model *z, long steps, int with_check, double dt, double scale, void **graph,
                          cl_error *err) {
  for (int k = 0; k < 4; k++) {
    const struct cl_czm_graph *g = &z->graphs[k];
    if (!g->graph || g->steps != steps || g->check != with_check || g->dt != dt || g->scale != scale) continue;
    if (z->A.nn > g->nn_early) {
      z->next_graph = k;
      break;
    }
    *graph = g->graph;
    return CL_OK;
  }
  struct cl_czm_graph *g = &z->graphs[z->next_graph];
  if (g->graph) z->dev->graph_release(z->dev, g->graph);
  const size_t nn = z->A.nn, ncoh = z->A.ncoh, room = nn + nn / 16 + 1024;
  *g = (struct cl_czm_graph){NULL, steps, with_check, dt, scale, room < z->A.cap ? room : z->A.cap};
  z->A.nn = z->A.cap, z->A.ncoh = z->A.coh_cap, z->A.nn_early = g->nn_early;
  cl_status st = z->dev->graph_capture(z->dev, record_steps, z, &g->graph, err);
  z->A.nn = nn, z->A.ncoh = ncoh, z->A.nn_early = 0;
  CL_TRY(st);
  *graph = g->graph;
  z->next_graph = (z->next_graph + 1) % 4;
  return CL_OK;
}

/* Steps per graph when there is no check to align with. */
#define CL_CZM_GRAPH_STEPS 16
/* Graph steps between reads of the counters (the NaN flag), at most. */
#define CL_CZM_UNCHECKED_STEPS 1024

cl_status cl_czm_advance(cl_czm_model *z, long step, long max, int check_every, double dt, double load_scale,
                         long *taken, cl_error *err) {
  *taken = 1;
  /* Appendix A's insertion reads the marks on the host */
  if (!z->dev->graph_capture || cl_cuda_sync_each_launch() || block_counter(z))
    return cl_czm_step(z, step, check_every, dt, load_scale, err);
  const int with_check = check_every > 0 && step % check_every == 0;
  long steps = check_every > 0 ? check_every - step % check_every : CL_CZM_GRAPH_STEPS;
  if (with_check) steps = check_every;
  if (steps > max) steps = max;
  void *graph;
  CL_TRY(graph_of(z, steps, with_check, dt, load_scale, &graph, err));
  CL_TRY(z->dev->graph_launch(z->dev, graph, err));
  touch_nodes(z);
  z->counts_stale |= with_check;
  z->steps_unchecked += steps;
  *taken = steps;
  return z->steps_unchecked >= CL_CZM_UNCHECKED_STEPS ? cl_czm_flush(z, err) : CL_OK;
}

/* Row sums of the contact penalty's stiffness on the nodes of element edge k (the facet it
 * becomes, side 0 coupled to side 1 with the same shape functions), added to rows (per local
 * node). The penalty acts along the facet normal n, which turns with the motion: a dof's row then
 * holds n_x^2 + |n_x n_y| <= (1 + sqrt 2) / 2 of it; with the friction's stick spring along the
 * tangent as well, (|n_x| + |n_y|)^2 <= 2. */
static void penalty_rows(const cl_czm_material *mat, int order, const double *xe, int k, double *rows) {
  const int np = order == 2 ? 3 : 2, next = (k + 1) % 3, local[3] = {k, next, 3 + k};
  const double orient = mat->friction > 0 ? 2 : (1 + sqrt(2)) / 2;
  for (int g = 0; g < np; g++) {
    double s, w, N[3], dN[3], R[2] = {0, 0}, sum = 0;
    cl_czm_facet_rule(order, g, &s, &w);
    cl_czm_facet_shape(order, s, N, dN);
    for (int p = 0; p < np; p++)
      for (int d = 0; d < 2; d++) R[d] += dN[p] * xe[2 * local[p] + d];
    for (int q = 0; q < np; q++) sum += fabs(N[q]);
    const double scale = w * hypot(R[0], R[1]) * mat->thickness * mat->contact * orient;
    for (int p = 0; p < np; p++) rows[local[p]] += 2 * fabs(N[p]) * sum * scale; /* both sides' nodes */
  }
}

/* Largest frequency squared of an element with the contact penalty on each of its edges (any
 * may become a cohesive facet), bounded by the row sums of M^-1 K (Gershgorin) with the
 * element's own lumped masses: a node's assembled mass and stiffness sum those of the elements
 * and facets around it, so their ratio is at most the largest element's. 2 / sqrt of it is a
 * safe central-difference step. From the host copies of the tables, on the first request only:
 * a model that never steps (an insertion test) does not pay for it. Insertion does not change it
 * (new nodes sit where their originals are, and each keeps a fan of the elements bounded here). */
cl_status cl_czm_stable_dt(cl_czm_model *z, double *dt, cl_error *err) {
  if (z->stable_dt > 0) {
    *dt = z->stable_dt;
    return CL_OK;
  }
  const void *elem, *x;
  CL_TRY(cl_field_host(z->f[CL_CZM_ELEM], &elem, err));
  CL_TRY(cl_field_host(z->f[CL_CZM_X], &x, err));
  const uint32_t *E = elem;
  const int order = z->A.order, nn = cl_tri_nodes(order), nd = 2 * nn;
  const size_t ne = z->A.ne, cap = z->A.cap;
  const cl_czm_material *mat = &z->mat;
  const cl_dtype t = z->opt.dtype;
  double D[9], w2max = 0;
  cl_tri_elasticity(mat->E, mat->nu, mat->plane_strain, D);
#pragma omp parallel for schedule(static) reduction(max : w2max)
  for (size_t e = 0; e < ne; e++) {
    double xe[CL_TRI_MAX_DOFS], K[CL_TRI_MAX_DOFS * CL_TRI_MAX_DOFS], me[CL_TRI_MAX_NODES];
    double penalty[CL_TRI_MAX_NODES] = {0};
    for (int p = 0; p < nn; p++) {
      const uint32_t i = E[(size_t)p * ne + e];
      xe[2 * p] = cl_dtype_get(t, x, i), xe[2 * p + 1] = cl_dtype_get(t, x, cap + i);
    }
    cl_tri_stiffness(order, xe, D, mat->thickness, K);
    cl_tri_lumped_mass(order, xe, mat->rho, mat->thickness, me);
    for (int k = 0; k < 3 && mat->contact > 0; k++) penalty_rows(mat, order, xe, k, penalty);
    for (int i = 0; i < nd; i++) {
      double row = penalty[i / 2];
      for (int j = 0; j < nd; j++) row += fabs(K[i * nd + j]);
      const double w2 = row / me[i / 2];
      if (w2 > w2max) w2max = w2;
    }
  }
  *dt = z->stable_dt = w2max > 0 ? 2 / sqrt(w2max) : INFINITY;
  return CL_OK;
}
