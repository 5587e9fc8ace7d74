/* The DDA model's queries and output: blocks, contacts, VTU and PNG (model.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/io/png.h"
#include "../../runtime/io/vtu.h"
#include "model_state.h"
#include "polygon.h"

const cl_dda_stats *cl_dda_stats_of(const cl_dda_model *m) { return &m->stats; }
size_t cl_dda_block_count(const cl_dda_model *m) { return m->n; }

void cl_dda_block_vertices(const cl_dda_model *m, size_t i, const double **x, const double **y, int *nv) {
  *x = m->vx + m->vstart[i], *y = m->vy + m->vstart[i], *nv = m->vstart[i + 1] - m->vstart[i];
}

void cl_dda_block_state_of(const cl_dda_model *m, size_t i, cl_dda_block_state *s) {
  size_t n = m->n;
  int32_t v = m->vstart[i];
  cl_dda_moments mo = cl_dda_polygon_moments(m->vx + v, m->vy + v, m->vstart[i + 1] - v);
  s->area = mo.S, s->x0 = mo.x0, s->y0 = mo.y0;
  for (int k = 0; k < 6; k++) s->velocity[k] = m->vel[k * n + i];
  for (int k = 0; k < 3; k++) s->stress[k] = m->stress[k * n + i];
  s->ux = mo.x0 - m->x_start[i], s->uy = mo.y0 - m->y_start[i], s->rotation = m->rotation[i];
}

size_t cl_dda_contact_count(const cl_dda_model *m) { return m->contacts.count; }

void cl_dda_contact_of(const cl_dda_model *m, size_t k, cl_dda_contact_info *o) {
  const cl_dda_contact *c = &m->contacts.c[k];
  o->block_vertex = c->bi, o->block_edge = c->bj, o->kind = c->kind, o->state = c->state;
  o->x = m->vx[c->vi], o->y = m->vy[c->vi], o->normal_force = c->N, o->shear_force = c->S;
}

cl_status cl_dda_write_vtu(cl_dda_model *m, const char *path, cl_error *err) {
  CL_TRY(cl_dda_host_state(m, err));
  size_t n = m->n, nv = m->nv;
  double *x = malloc(2 * nv * sizeof *x), *cells = malloc(9 * n * sizeof *cells);
  uint8_t *types = malloc(n);
  int32_t *offsets = malloc((n + 1) * sizeof *offsets), *conn = malloc(nv * sizeof *conn);
  cl_status st = CL_OK;
  if (!x || !cells || !types || !offsets || !conn) st = oom(err);
  if (st == CL_OK) {
    memcpy(x, m->vx, nv * sizeof *x), memcpy(x + nv, m->vy, nv * sizeof *x);
    for (size_t v = 0; v < nv; v++) conn[v] = (int32_t)v;
    for (size_t i = 0; i <= n; i++) offsets[i] = m->vstart[i];
    for (size_t i = 0; i < n; i++) {
      cl_dda_block_state s;
      cl_dda_block_state_of(m, i, &s);
      types[i] = CL_VTK_POLYGON;
      cells[i] = s.ux, cells[n + i] = s.uy;                                   /* displacement */
      cells[2 * n + i] = s.velocity[0], cells[3 * n + i] = s.velocity[1];     /* velocity */
      for (int k = 0; k < 3; k++) cells[(4 + k) * n + i] = s.stress[k];       /* stress */
      cells[7 * n + i] = s.rotation, cells[8 * n + i] = m->material[i] + 1;   /* rotation, material */
    }
    cl_array_view arrays[] = {{"displacement", CL_F64, 2, cells}, {"velocity", CL_F64, 2, cells + 2 * n},
                              {"stress", CL_F64, 3, cells + 4 * n}, {"rotation", CL_F64, 1, cells + 7 * n},
                              {"material", CL_F64, 1, cells + 8 * n}};
    cl_mesh_view view = {.npoints = nv, .dim = 2, .x = x, .ncells = n, .cell_types = types,
                         .cell_offsets = offsets, .connectivity = conn, .ncell_arrays = 5, .cell_arrays = arrays};
    st = cl_vtu_write(path, &view, CL_VTU_BASE64, err);
  }
  free(x), free(cells), free(types), free(offsets), free(conn);
  return st;
}

cl_status cl_dda_write_contacts_vtu(cl_dda_model *m, const char *path, cl_error *err) {
  CL_TRY(cl_dda_host_contacts(m, err));
  size_t nc = m->contacts.count;
  double *x = malloc((4 * nc + 1) * sizeof *x), *cells = malloc((4 * nc + 1) * sizeof *cells);
  uint8_t *types = malloc(nc + 1);
  int32_t *offsets = malloc((nc + 1) * sizeof *offsets), *conn = malloc((2 * nc + 1) * sizeof *conn);
  cl_status st = CL_OK;
  if (!x || !cells || !types || !offsets || !conn) st = oom(err);
  if (st == CL_OK) {
    offsets[0] = 0;
    for (size_t k = 0; k < nc; k++) {
      const cl_dda_contact *c = &m->contacts.c[k];
      int32_t e = c->ej, f = e + 1 == m->vstart[c->bj + 1] ? m->vstart[c->bj] : e + 1;
      x[2 * k] = m->vx[c->vi], x[2 * nc + 2 * k] = m->vy[c->vi];
      x[2 * k + 1] = m->vx[e] + c->t_ref * (m->vx[f] - m->vx[e]);
      x[2 * nc + 2 * k + 1] = m->vy[e] + c->t_ref * (m->vy[f] - m->vy[e]);
      conn[2 * k] = (int32_t)(2 * k), conn[2 * k + 1] = (int32_t)(2 * k + 1);
      offsets[k + 1] = (int32_t)(2 * k + 2);
      types[k] = CL_VTK_LINE;
      cells[k] = c->state, cells[nc + k] = c->kind, cells[2 * nc + k] = c->N, cells[3 * nc + k] = c->S;
    }
    cl_array_view arrays[] = {{"state", CL_F64, 1, cells}, {"kind", CL_F64, 1, cells + nc},
                              {"normal_force", CL_F64, 1, cells + 2 * nc}, {"shear_force", CL_F64, 1, cells + 3 * nc}};
    cl_mesh_view view = {.npoints = 2 * nc, .dim = 2, .x = x, .ncells = nc, .cell_types = types,
                         .cell_offsets = offsets, .connectivity = conn, .ncell_arrays = 4, .cell_arrays = arrays};
    st = cl_vtu_write(path, &view, CL_VTU_BASE64, err);
  }
  free(x), free(cells), free(types), free(offsets), free(conn);
  return st;
}

cl_status cl_dda_write_png(cl_dda_model *m, const char *path, cl_error *err) {
  CL_TRY(cl_dda_host_state(m, err));
  size_t n = m->n, nv = m->nv;
  double *value = malloc((nv + 1) * sizeof *value);
  int32_t *tri = malloc((3 * nv + 1) * sizeof *tri);
  if (!value || !tri) {
    free(value), free(tri);
    return oom(err);
  }
  size_t ntri = 0;
  for (size_t i = 0; i < n; i++) {
    cl_dda_block_state s;
    cl_dda_block_state_of(m, i, &s);
    int32_t v0 = m->vstart[i], nb = m->vstart[i + 1] - v0;
    for (int32_t v = v0; v < v0 + nb; v++) value[v] = hypot(s.ux, s.uy);
    int made = cl_dda_triangulate(m->vx + v0, m->vy + v0, nb, tri + 3 * ntri);
    for (int k = 0; k < 3 * made; k++) tri[3 * ntri + (size_t)k] += v0;
    ntri += (size_t)made;
  }
  cl_png_plot plot = {.npoints = nv, .x = m->vx, .y = m->vy, .value = value, .ntriangles = ntri, .tri = tri,
                      .title = "displacement"};
  cl_status st = cl_png_write(path, &plot, err);
  free(value), free(tri);
  return st;
}
