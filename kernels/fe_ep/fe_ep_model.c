/* The quasi-static elastoplastic FE model: construction (W, gather tables, CSR sparsity; B-bar
 * when a stored residual is asked for), constraints and loads, host copies. The solvers are in
 * fe_ep_solve.c. */
#include "fe_ep_model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../jit/jit.h"
#include "../fe/element.h"
#include "fe_ep.h"
#include "fe_ep_cusolver.h"
#include "fe_ep_mg.h"

static cl_status check_material(const cl_fe_ep_material *m, cl_error *err) {
  if (!(m->E > 0)) return cl_error_set(err, CL_ERR_ARG, "E must be > 0 (got %g): give Young's modulus", m->E);
  if (!(m->nu > -1 && m->nu < 0.5))
    return cl_error_set(err, CL_ERR_ARG, "nu must lie in (-1, 0.5) (got %g): 0.5 is incompressible, which "
                        "displacement elements lock on", m->nu);
  if (!(m->thickness > 0)) return cl_error_set(err, CL_ERR_ARG, "thickness must be > 0 (got %g)", m->thickness);
  if (m->law == CL_FE_EP_JIT) {
    if (!m->plane_strain)
      return cl_error_set(err, CL_ERR_ARG, "a stress_update law needs plane strain (plane stress is elastic only here)");
    if (m->law_nstate < 0 || m->law_nstate > CL_MP_STATE_MAX || !m->law_entry[0] || !m->law_entry[1])
      return cl_error_set(err, CL_ERR_ARG, "the law's element kernels are missing or it has more than %d state "
                          "variables", CL_MP_STATE_MAX);
  }
  if (m->law == CL_FE_EP_MOHR_COULOMB) {
    if (!(m->c >= 0)) return cl_error_set(err, CL_ERR_ARG, "c (cohesion) must be >= 0 (got %g)", m->c);
    if (!(m->phi >= 0 && m->phi < 90))
      return cl_error_set(err, CL_ERR_ARG, "phi (friction angle, degrees) must lie in [0, 90) (got %g)", m->phi);
    if (m->c == 0 && m->phi == 0)
      return cl_error_set(err, CL_ERR_ARG, "c and phi are both 0: the material has no strength (give c > 0 or phi > 0)");
    if (!m->plane_strain)
      return cl_error_set(err, CL_ERR_ARG, "Mohr-Coulomb needs plane strain (plane stress is elastic only here)");
  }
  return CL_OK;
}

static cl_status new_field(cl_fe_ep_model *m, cl_fe_ep_field_id id, cl_dtype t, size_t n, cl_error *err) {
  return cl_field_create(m->ref, t, n ? n : 1, 1, &m->f[id], err);
}

static void *dptr(cl_fe_ep_model *m, cl_fe_ep_field_id id) { return cl_field_component(m->f[id], 0); }

/* W at every Gauss point, the Gauss points' coordinates and, unless grad is NULL (matrix-free),
 * B-bar (the gradients, element-major); an element whose Jacobian is not positive somewhere is named. */
static cl_status geometry(cl_fe_ep_model *m, const cl_fe_ep_mesh *mesh, double *grad, double *wdet, cl_error *err) {
  const int nn = m->A.nn, ngp = m->A.ngp;
  double grad_k[CL_FE_MAX_DOFS]; /* one Gauss point's, when B-bar is not kept */
  for (size_t e = 0; e < mesh->nelems; e++) {
    double xe[CL_FE_MAX_DOFS];
    for (int a = 0; a < nn; a++) {
      const uint32_t n = mesh->elem[e * nn + a];
      xe[2 * a] = mesh->x[2 * n], xe[2 * a + 1] = mesh->x[2 * n + 1];
    }
    for (int k = 0; k < ngp; k++) {
      const size_t g = e * ngp + k;
      double xi, eta, w, N[CL_FE_MAX_NODES], dN[CL_FE_MAX_DOFS];
      cl_fe_gauss(mesh->shape, mesh->order, k, &xi, &eta, &w);
      const double det = cl_fe_gradients(mesh->shape, mesh->order, xe, xi, eta, grad ? grad + g * 2 * nn : grad_k);
      if (!(det > 0))
        return cl_error_set(err, CL_ERR_ARG, "element %zu is inverted or degenerate (det J = %g at Gauss point %d; "
                            "its first node is %u at (%g, %g)): check its node order (counter-clockwise) and "
                            "coordinates", e + 1, det, k + 1, mesh->elem[e * nn] + 1, xe[0], xe[1]);
      wdet[g] = w * det * m->mat.thickness;
      cl_fe_shape(mesh->shape, mesh->order, xi, eta, N, dN);
      m->xg[2 * g] = m->xg[2 * g + 1] = 0;
      for (int a = 0; a < nn; a++) m->xg[2 * g] += N[a] * xe[2 * a], m->xg[2 * g + 1] += N[a] * xe[2 * a + 1];
    }
  }
  return CL_OK;
}

static int cmp_u32(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* Per node the element slots touching it (node_start, node_slot: host arrays), then the CSR
 * pattern over the dofs (2 x 2 blocks of the node graph) and, per nonzero, the element-matrix
 * entries that add into it. */
static cl_status tables(cl_fe_ep_model *m, const uint32_t *elem, uint32_t **node_start_out, uint32_t **node_slot_out,
                        uint32_t **csr_start_out, uint32_t **csr_slot_out, cl_error *err) {
  const size_t nnodes = m->A.nnodes, ne = m->A.ne, nn = m->A.nn, nd = 2 * nn, N = m->ndof;
  uint32_t *start = calloc(nnodes + 1, sizeof *start), *slot = malloc(sizeof *slot * ne * nn);
  uint32_t *cursor = malloc(sizeof *cursor * (nnodes ? nnodes : 1));
  if (!start || !slot || !cursor) goto oom;
  for (size_t s = 0; s < ne * nn; s++) start[elem[s] + 1]++;
  for (size_t n = 0; n < nnodes; n++) start[n + 1] += start[n];
  memcpy(cursor, start, sizeof *cursor * nnodes);
  for (size_t s = 0; s < ne * nn; s++) slot[cursor[elem[s]]++] = (uint32_t)s;
  /* node neighbours: sorted unique nodes of the elements of each node */
  uint64_t *nb_start = calloc(nnodes + 1, sizeof *nb_start);
  uint32_t *scratch = malloc(sizeof *scratch * (nn * 64 + 1));
  size_t scratch_cap = nn * 64 + 1;
  uint32_t *nb = NULL;
  size_t nb_cap = 0, nb_len = 0;
  if (!nb_start || !scratch) { free(nb_start), free(scratch); goto oom; }
  for (size_t n = 0; n < nnodes; n++) {
    const size_t cnt = (size_t)(start[n + 1] - start[n]) * nn;
    if (cnt > scratch_cap) {
      uint32_t *t = realloc(scratch, sizeof *scratch * cnt);
      if (!t) { free(nb_start), free(scratch), free(nb); goto oom; }
      scratch = t, scratch_cap = cnt;
    }
    size_t k = 0;
    for (uint32_t s = start[n]; s < start[n + 1]; s++)
      for (size_t a = 0; a < nn; a++) scratch[k++] = elem[(slot[s] / nn) * nn + a];
    qsort(scratch, k, sizeof *scratch, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
      if (u == 0 || scratch[i] != scratch[u - 1]) scratch[u++] = scratch[i];
    if (nb_len + u > nb_cap) {
      size_t cap = (nb_len + u) * 2;
      uint32_t *t = realloc(nb, sizeof *nb * cap);
      if (!t) { free(nb_start), free(scratch), free(nb); goto oom; }
      nb = t, nb_cap = cap;
    }
    memcpy(nb + nb_len, scratch, sizeof *nb * u);
    nb_len += u;
    nb_start[n + 1] = nb_len;
  }
  free(scratch);
  /* dof rows: row c nnodes + n has the columns d nnodes + j for d = 0, 1 and neighbours j */
  m->rowptr = malloc(sizeof *m->rowptr * (N + 1));
  m->col = malloc(sizeof *m->col * 4 * nb_len);
  if (!m->rowptr || !m->col) { free(nb_start), free(nb); goto oom; }
  m->rowptr[0] = 0;
  for (int c = 0; c < 2; c++)
    for (size_t n = 0; n < nnodes; n++) {
      const size_t row = c * nnodes + n;
      uint64_t k = m->rowptr[row];
      for (int d = 0; d < 2; d++)
        for (uint64_t q = nb_start[n]; q < nb_start[n + 1]; q++) m->col[k++] = (uint32_t)(d * nnodes + nb[q]);
      m->rowptr[row + 1] = k;
    }
  free(nb_start), free(nb);
  const uint64_t nnz = m->rowptr[N], nentries = (uint64_t)ne * nd * nd;
  if (nentries > UINT32_MAX || nnz > UINT32_MAX) {
    free(start), free(slot), free(cursor);
    return cl_error_set(err, CL_ERR_ARG, "fe: the mesh is too large for 32-bit assembly tables (%llu element-matrix "
                        "entries): use fewer or lower-order elements", (unsigned long long)nentries);
  }
  m->A.nnz = nnz;
  /* per element entry its nonzero, then the inverse map */
  uint32_t *target = malloc(sizeof *target * (nentries ? nentries : 1));
  uint32_t *cstart = calloc(nnz + 1, sizeof *cstart), *cslot = malloc(sizeof *cslot * (nentries ? nentries : 1));
  uint32_t *ccur = malloc(sizeof *ccur * (nnz ? nnz : 1));
  if (!target || !cstart || !cslot || !ccur) { free(target), free(cstart), free(cslot), free(ccur); goto oom; }
  for (size_t e = 0; e < ne; e++)
    for (size_t r = 0; r < nd; r++) {
      const size_t row = (r % 2) * nnodes + elem[e * nn + r / 2];
      for (size_t q = 0; q < nd; q++) {
        const uint32_t colv = (uint32_t)((q % 2) * nnodes + elem[e * nn + q / 2]);
        uint64_t lo = m->rowptr[row], hi = m->rowptr[row + 1];
        while (hi - lo > 1) { /* columns of a row: d = 0 block then d = 1, each sorted */
          const uint64_t mid = (lo + hi) / 2;
          if (m->col[mid] <= colv) lo = mid; else hi = mid;
        }
        target[(e * nd + r) * nd + q] = (uint32_t)lo;
        cstart[lo + 1]++;
      }
    }
  for (uint64_t j = 0; j < nnz; j++) cstart[j + 1] += cstart[j];
  memcpy(ccur, cstart, sizeof *ccur * nnz);
  for (uint64_t s = 0; s < nentries; s++) cslot[ccur[target[s]]++] = (uint32_t)s;
  free(target), free(ccur), free(cursor);
  *node_start_out = start, *node_slot_out = slot, *csr_start_out = cstart, *csr_slot_out = cslot;
  return CL_OK;
oom:
  free(start), free(slot), free(cursor);
  return cl_error_set(err, CL_ERR_OOM, "fe: out of memory for the assembly tables");
}

/* A run-time compiled law's state variables, now and converged, at their initial values. */
static cl_status law_state(cl_fe_ep_model *m, size_t G, cl_error *err) {
  cl_fe_ep_args *A = &m->A;
  double *init = malloc(sizeof *init * G);
  if (!init) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory");
  cl_status st = CL_OK;
  A->law_args.n = G, A->law_nstate = m->mat.law_nstate, A->law_ep = m->mat.law_ep;
  for (int k = 0; k < A->law_nstate && st == CL_OK; k++) {
    for (size_t g = 0; g < G; g++) init[g] = m->mat.law_state0[k];
    for (int c = 0; c < 2 && st == CL_OK; c++)
      if ((st = cl_field_create(m->ref, CL_F64, G, 1, &m->law_state[c][k], err)) == CL_OK)
        st = cl_field_upload(m->law_state[c][k], init, err);
    if (st == CL_OK)
      A->law_args.state[k] = cl_field_component(m->law_state[0][k], 0), A->law_state_n[k] = cl_field_component(m->law_state[1][k], 0);
  }
  free(init);
  return st;
}

/* The strides of the per-Gauss-point and per-element arrays (fe_ep_args.h says why each backend
 * has its own): element-major or element-minor */
static void strides(cl_fe_ep_args *A, int element_minor) {
  const size_t nd = 2 * (size_t)A->nn;
  if (!element_minor)
    A->gs_e = A->ngp, A->gs_k = 1, A->grad_e = nd * A->ngp, A->grad_i = 1, A->fe_e = nd, A->fe_i = 1;
  else
    A->gs_e = 1, A->gs_k = A->ne, A->grad_e = 1, A->grad_i = A->ne, A->fe_e = 1, A->fe_i = A->ne;
  /* The sum-factorized kernel's threads write one node's two forces each: element-major, a warp's pairs
   * of threads fill whole 32 B sectors, and the gather's reads of a node's neighbours in an element fall
   * side by side rather than 2 ne doubles apart (fe is scratch between the two: nothing to move) */
  if (A->matrix_free == CL_FE_EP_SUM_FACTORIZED) A->fe_e = nd, A->fe_i = 1;
}

/* whether strides() last set the element-minor layout (with one element the two coincide) */
static int element_minor_now(const cl_fe_ep_args *A) { return A->gs_e == 1 && A->gs_k == A->ne; }

/* per element n values, in the host's element-major order (e n + i), to and from the device's
 * (e stride_e + i stride_i); in and out are distinct arrays */
static void reorder(const cl_fe_ep_args *A, size_t n, size_t stride_e, size_t stride_i, int to_device,
                    const double *in, double *out) {
  for (size_t e = 0; e < A->ne; e++)
    for (size_t i = 0; i < n; i++) {
      const size_t h = e * n + i, d = e * stride_e + i * stride_i;
      if (to_device) out[d] = in[h];
      else out[h] = in[d];
    }
}

cl_status cl_fe_ep_create(cl_device_ref *dev, const cl_fe_ep_mesh *mesh, const cl_fe_ep_material *mat,
                          cl_fe_ep_model **out, cl_error *err) {
  *out = NULL;
  CL_TRY(check_material(mat, err));
  const int quad = mesh->shape == CL_FE_QUAD;
  if (quad ? mesh->order < 1 || mesh->order > 3 : mesh->order < 1 || mesh->order > 2)
    return cl_error_set(err, CL_ERR_ARG, "order %d is not supported for %s (give %s)", mesh->order,
                        quad ? "quadrilaterals" : "triangles", quad ? "1, 2 or 3" : "1 or 2");
  if (!mesh->nelems || !mesh->nnodes) return cl_error_set(err, CL_ERR_ARG, "the mesh has no elements");
  const int nn = cl_fe_nodes(mesh->shape, mesh->order);
  for (size_t s = 0; s < mesh->nelems * nn; s++)
    if (mesh->elem[s] >= mesh->nnodes)
      return cl_error_set(err, CL_ERR_ARG, "element %zu refers to node %u, beyond the %zu nodes", s / nn + 1,
                          mesh->elem[s] + 1, mesh->nnodes);
  cl_fe_ep_model *m = calloc(1, sizeof *m);
  if (!m) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory");
  m->ref = cl_device_ref_retain(dev), m->dev = &dev->dev, m->mat = *mat;
  cl_fe_ep_args *A = &m->A;
  A->shape = mesh->shape, A->order = mesh->order, A->nn = nn, A->ngp = cl_fe_ngauss(mesh->shape, mesh->order);
  A->law = mat->law, A->plane_strain = mat->plane_strain;
  A->E = mat->E, A->nu = mat->nu, A->c = mat->c, A->phi = mat->phi, A->thickness = mat->thickness;
  A->mc = cl_fe_mc_law_of(mat->E, mat->nu, mat->c, mat->phi);
  A->ne = mesh->nelems, A->nnodes = mesh->nnodes;
  m->ndof = 2 * mesh->nnodes;
  const size_t G = A->ne * A->ngp, nd = 2 * nn;
  double *wdet = malloc(sizeof *wdet * G);
  double *xsoa = malloc(sizeof *xsoa * 2 * mesh->nnodes); /* the coordinates as the device stores them */
  m->x = malloc(sizeof *m->x * 2 * mesh->nnodes), m->xg = malloc(sizeof *m->xg * 2 * G);
  m->fixed = calloc(m->ndof, 1), m->fixed_value = calloc(m->ndof, sizeof(double));
  m->f_ext = calloc(m->ndof, sizeof(double));
  uint32_t *ns = NULL, *nsl = NULL, *cs = NULL, *csl = NULL, *rp = NULL;
  cl_status st = CL_OK;
  if (!wdet || !xsoa || !m->x || !m->xg || !m->fixed || !m->fixed_value || !m->f_ext) {
    st = cl_error_set(err, CL_ERR_OOM, "fe: out of memory");
    goto done;
  }
  memcpy(m->x, mesh->x, sizeof *m->x * 2 * mesh->nnodes);
  for (size_t n = 0; n < mesh->nnodes; n++) xsoa[n] = mesh->x[2 * n], xsoa[mesh->nnodes + n] = mesh->x[2 * n + 1];
  /* matrix-free by default: B-bar is built only when a stored residual is asked for
   * (cl_fe_ep_set_matrix_free) */
  A->matrix_free = CL_FE_EP_MATRIX_FREE;
  if ((st = geometry(m, mesh, NULL, wdet, err)) != CL_OK) goto done;
  strides(A, 0); /* as geometry() wrote them; a GPU's below */
  if ((st = tables(m, mesh->elem, &ns, &nsl, &cs, &csl, err)) != CL_OK) goto done;
  /* the device's CSR rows in 32 bits (tables() checked nnz against it) */
  if (!(rp = malloc(sizeof *rp * (m->ndof + 1)))) {
    st = cl_error_set(err, CL_ERR_OOM, "fe: out of memory");
    goto done;
  }
  for (size_t r = 0; r <= m->ndof; r++) rp[r] = (uint32_t)m->rowptr[r];
  const struct { cl_fe_ep_field_id id; cl_dtype t; size_t n; const void *host; } fields[] = {
      {CL_FE_EP_F_ELEM, CL_U32, A->ne * nn, mesh->elem}, {CL_FE_EP_F_WDET, CL_F64, G, wdet},
      {CL_FE_EP_F_U, CL_F64, m->ndof, NULL},
      {CL_FE_EP_F_U_N, CL_F64, m->ndof, NULL}, {CL_FE_EP_F_SIG, CL_F64, CL_FE_EP_NSIG * G, NULL},
      {CL_FE_EP_F_SIG_N, CL_F64, CL_FE_EP_NSIG * G, NULL}, {CL_FE_EP_F_EP, CL_F64, G, NULL}, {CL_FE_EP_F_EP_N, CL_F64, G, NULL},
      {CL_FE_EP_F_FE, CL_F64, A->ne * nd, NULL}, {CL_FE_EP_F_KE, CL_F64, A->ne * nd * nd, NULL},
      {CL_FE_EP_F_R, CL_F64, m->ndof, NULL}, {CL_FE_EP_F_KVAL, CL_F64, A->nnz, NULL},
      {CL_FE_EP_F_NODE_START, CL_U32, A->nnodes + 1, ns}, {CL_FE_EP_F_NODE_SLOT, CL_U32, A->ne * nn, nsl},
      {CL_FE_EP_F_CSR_START, CL_U32, A->nnz + 1, cs}, {CL_FE_EP_F_CSR_SLOT, CL_U32, A->ne * nd * nd, csl},
      {CL_FE_EP_F_ROWPTR, CL_U32, m->ndof + 1, rp}, {CL_FE_EP_F_COL, CL_U32, A->nnz, m->col},
      {CL_FE_EP_F_FIXED, CL_U8, m->ndof, NULL}, {CL_FE_EP_F_CG_X, CL_F64, m->ndof, NULL},
      {CL_FE_EP_F_CG_R, CL_F64, m->ndof, NULL}, {CL_FE_EP_F_CG_Z, CL_F64, m->ndof, NULL},
      {CL_FE_EP_F_CG_P, CL_F64, m->ndof, NULL}, {CL_FE_EP_F_CG_Q, CL_F64, m->ndof, NULL},
      {CL_FE_EP_F_CG_DINV, CL_F64, m->ndof, NULL}, {CL_FE_EP_F_X, CL_F64, m->ndof, xsoa},
      {CL_FE_EP_F_DGP, CL_F64, m->dev->kind == CL_BACKEND_CPU ? 1 : 9 * G, NULL}};
  /* the state (u, sig, ep and their converged copies) starts at zero; the rest is written before it
   * is read. Zeros are uploaded from one host buffer rather than filled: a fill is a parallel loop,
   * and a few dozen of those per model cost more than the small models' whole solve on a loaded
   * machine (see fe_ep_cpu.c) */
  double *zeros = calloc(CL_FE_EP_NSIG * G > m->ndof ? CL_FE_EP_NSIG * G : m->ndof, sizeof *zeros);
  if (!zeros) {
    st = cl_error_set(err, CL_ERR_OOM, "fe: out of memory");
    goto done;
  }
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    const cl_fe_ep_field_id id = fields[i].id;
    const int state = id == CL_FE_EP_F_U || id == CL_FE_EP_F_U_N || id == CL_FE_EP_F_SIG || id == CL_FE_EP_F_SIG_N ||
                      id == CL_FE_EP_F_EP || id == CL_FE_EP_F_EP_N;
    if ((st = new_field(m, id, fields[i].t, fields[i].n, err)) != CL_OK) break;
    const void *host = fields[i].host ? fields[i].host : state ? zeros : NULL;
    if (host && (st = cl_field_upload(m->f[id], host, err)) != CL_OK) break;
  }
  free(zeros);
  if (st != CL_OK) goto done;
  A->x = dptr(m, CL_FE_EP_F_X), A->dgp = dptr(m, CL_FE_EP_F_DGP);
  A->elem = dptr(m, CL_FE_EP_F_ELEM), A->wdet = dptr(m, CL_FE_EP_F_WDET);
  A->u = dptr(m, CL_FE_EP_F_U), A->u_n = dptr(m, CL_FE_EP_F_U_N), A->sig = dptr(m, CL_FE_EP_F_SIG);
  A->sig_n = dptr(m, CL_FE_EP_F_SIG_N), A->ep = dptr(m, CL_FE_EP_F_EP), A->ep_n = dptr(m, CL_FE_EP_F_EP_N);
  A->fe = dptr(m, CL_FE_EP_F_FE), A->ke = dptr(m, CL_FE_EP_F_KE), A->R = dptr(m, CL_FE_EP_F_R);
  A->kval = dptr(m, CL_FE_EP_F_KVAL), A->node_start = dptr(m, CL_FE_EP_F_NODE_START);
  A->node_slot = dptr(m, CL_FE_EP_F_NODE_SLOT), A->csr_start = dptr(m, CL_FE_EP_F_CSR_START);
  A->csr_slot = dptr(m, CL_FE_EP_F_CSR_SLOT);
  A->ndof = m->ndof, A->rowptr = dptr(m, CL_FE_EP_F_ROWPTR), A->col = dptr(m, CL_FE_EP_F_COL);
  A->fixed = dptr(m, CL_FE_EP_F_FIXED);
  A->cg_x = dptr(m, CL_FE_EP_F_CG_X), A->cg_r = dptr(m, CL_FE_EP_F_CG_R), A->cg_z = dptr(m, CL_FE_EP_F_CG_Z);
  A->cg_p = dptr(m, CL_FE_EP_F_CG_P), A->cg_q = dptr(m, CL_FE_EP_F_CG_Q), A->cg_dinv = dptr(m, CL_FE_EP_F_CG_DINV);
  if (mat->law == CL_FE_EP_JIT && (st = law_state(m, G, err)) != CL_OK) goto done;
  if (m->dev->kind != CL_BACKEND_CPU && (st = cl_fe_ep_set_layout(m, 1, err)) != CL_OK) goto done;
  st = cl_fe_ep_linear_create(m->ndof, m->rowptr, m->col, &m->solver, err);
done:
  free(wdet), free(xsoa), free(ns), free(nsl), free(cs), free(csl), free(rp);
  if (st != CL_OK) {
    cl_fe_ep_destroy(m);
    return st;
  }
  *out = m;
  return CL_OK;
}

void cl_fe_ep_destroy(cl_fe_ep_model *m) {
  if (!m) return;
  for (int i = 0; i < CL_FE_EP_NFIELDS; i++) cl_field_destroy(m->f[i]);
  for (int k = 0; k < CL_MP_STATE_MAX; k++) cl_field_destroy(m->law_state[0][k]), cl_field_destroy(m->law_state[1][k]);
  cl_fe_ep_linear_free(m->solver);
  cl_fe_ep_cusolver_free(m->device_solver);
  cl_fe_ep_mg_free(m->mg);
  free(m->x), free(m->xg), free(m->rowptr), free(m->col), free(m->fixed), free(m->fixed_value), free(m->f_ext);
  free(m->history);
  if (m->ref) cl_device_ref_release(m->ref);
  free(m);
}

cl_status cl_fe_ep_fix(cl_fe_ep_model *m, size_t node, int c, double value, cl_error *err) {
  if (node >= m->A.nnodes) return cl_error_set(err, CL_ERR_ARG, "node %zu is beyond the %zu nodes", node + 1, m->A.nnodes);
  if (c < 0 || c > 1) return cl_error_set(err, CL_ERR_ARG, "component must be x or y");
  if (!isfinite(value)) return cl_error_set(err, CL_ERR_ARG, "the prescribed value must be finite");
  m->fixed[c * m->A.nnodes + node] = 1, m->fixed_value[c * m->A.nnodes + node] = value;
  return CL_OK;
}

void cl_fe_ep_clear_loads(cl_fe_ep_model *m) { memset(m->f_ext, 0, sizeof(double) * m->ndof); }

cl_status cl_fe_ep_edge_pressure(cl_fe_ep_model *m, const uint32_t *nodes, double p, cl_error *err) {
  const int order = m->A.order, nn = m->A.nn;
  for (int a = 0; a <= order; a++)
    if (nodes[a] >= m->A.nnodes) return cl_error_set(err, CL_ERR_ARG, "edge node %u is beyond the %zu nodes", nodes[a] + 1, m->A.nnodes);
  /* the element holding the edge's end nodes, and its centroid: the inner side */
  const void *hs, *hl, *he;
  CL_TRY(cl_field_host(m->f[CL_FE_EP_F_NODE_START], &hs, err));
  CL_TRY(cl_field_host(m->f[CL_FE_EP_F_NODE_SLOT], &hl, err));
  CL_TRY(cl_field_host(m->f[CL_FE_EP_F_ELEM], &he, err));
  const uint32_t *start = hs, *slot = hl, *elem = he;
  long owner = -1;
  for (uint32_t s = start[nodes[0]]; s < start[nodes[0] + 1] && owner < 0; s++) {
    const uint32_t e = slot[s] / nn;
    for (int a = 0; a < nn; a++)
      if (elem[(size_t)e * nn + a] == nodes[order]) owner = e;
  }
  if (owner < 0)
    return cl_error_set(err, CL_ERR_ARG, "nodes %u and %u are not the ends of an element edge", nodes[0] + 1,
                        nodes[order] + 1);
  double cx = 0, cy = 0;
  for (int a = 0; a < nn; a++) cx += m->x[2 * elem[owner * nn + a]] / nn, cy += m->x[2 * elem[owner * nn + a] + 1] / nn;
  /* side: the normal (dy, -dx) of the edge direction must point away from the centroid */
  const double *x0 = m->x + 2 * nodes[0], *x1 = m->x + 2 * nodes[order];
  const double mx = (x0[0] + x1[0]) / 2, my = (x0[1] + x1[1]) / 2;
  const double sign = ((x1[1] - x0[1]) * (mx - cx) - (x1[0] - x0[0]) * (my - cy)) > 0 ? 1 : -1;
  for (int q = 0; q <= order; q++) {
    double t, w, l[4], dl[4], dx = 0, dy = 0;
    cl_gauss_legendre(order + 1, q, &t, &w);
    cl_lagrange_1d(order, t, l, dl);
    for (int a = 0; a <= order; a++) dx += dl[a] * m->x[2 * nodes[a]], dy += dl[a] * m->x[2 * nodes[a] + 1];
    /* traction -p n, n ds = sign (dy, -dx) dt */
    for (int a = 0; a <= order; a++) {
      m->f_ext[nodes[a]] += -p * w * l[a] * sign * dy * m->mat.thickness;
      m->f_ext[m->A.nnodes + nodes[a]] += p * w * l[a] * sign * dx * m->mat.thickness;
    }
  }
  return CL_OK;
}

cl_status cl_fe_ep_body_force(cl_fe_ep_model *m, double bx, double by, cl_error *err) {
  if (!isfinite(bx) || !isfinite(by)) return cl_error_set(err, CL_ERR_ARG, "the body force must be finite");
  const void *he;
  CL_TRY(cl_field_host(m->f[CL_FE_EP_F_ELEM], &he, err));
  const uint32_t *elem = he;
  const int nn = m->A.nn, shape = m->A.shape, order = m->A.order;
  for (size_t e = 0; e < m->A.ne; e++) {
    double xe[CL_FE_MAX_DOFS];
    for (int a = 0; a < nn; a++) xe[2 * a] = m->x[2 * elem[e * nn + a]], xe[2 * a + 1] = m->x[2 * elem[e * nn + a] + 1];
    for (int k = 0; k < m->A.ngp; k++) {
      double xi, eta, w, N[CL_FE_MAX_NODES], dN[CL_FE_MAX_DOFS], grad[CL_FE_MAX_DOFS];
      cl_fe_gauss(shape, order, k, &xi, &eta, &w);
      const double dv = w * cl_fe_gradients(shape, order, xe, xi, eta, grad) * m->mat.thickness;
      cl_fe_shape(shape, order, xi, eta, N, dN);
      for (int a = 0; a < nn; a++) {
        m->f_ext[elem[e * nn + a]] += N[a] * bx * dv;
        m->f_ext[m->A.nnodes + elem[e * nn + a]] += N[a] * by * dv;
      }
    }
  }
  return CL_OK;
}

cl_status cl_fe_ep_initial_stress(cl_fe_ep_model *m, const double s[4], cl_error *err) {
  const size_t G = m->A.ne * m->A.ngp;
  double *sig = malloc(sizeof *sig * CL_FE_EP_NSIG * G);
  if (!sig) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory");
  for (int r = 0; r < CL_FE_EP_NSIG; r++) /* xx yy zz xy, as stored */
    for (size_t g = 0; g < G; g++) sig[r * G + g] = s[r];
  cl_status st = cl_field_upload(m->f[CL_FE_EP_F_SIG_N], sig, err);
  if (st == CL_OK) st = cl_field_upload(m->f[CL_FE_EP_F_SIG], sig, err);
  free(sig);
  return st;
}

cl_status cl_fe_ep_get(cl_fe_ep_model *m, cl_fe_ep_field_id id, double *out, cl_error *err) {
  const cl_fe_ep_args *A = &m->A;
  const int sig = id == CL_FE_EP_F_SIG || id == CL_FE_EP_F_SIG_N;
  const int per_gauss = sig || id == CL_FE_EP_F_EP || id == CL_FE_EP_F_EP_N || id == CL_FE_EP_F_WDET;
  if (!per_gauss || (A->gs_k == 1 && !sig)) return cl_field_download(m->f[id], out, err);
  const size_t G = A->ne * A->ngp, n = cl_field_count(m->f[id]);
  double *dev = malloc(sizeof *dev * n);
  if (!dev) return cl_error_set(err, CL_ERR_OOM, "fe: out of memory");
  cl_status st = cl_field_download(m->f[id], dev, err);
  /* the stress's stored xx yy zz xy to the host's six Voigt components, yz = xz = 0 */
  for (size_t c = 0; st == CL_OK && c < n / G; c++)
    reorder(A, (size_t)A->ngp, A->gs_e, A->gs_k, 0, dev + c * G, out + (sig && c == 3 ? 5 : c) * G);
  if (sig) memset(out + 3 * G, 0, sizeof *out * 2 * G);
  free(dev);
  return st;
}

/* An operation on the device: the element forces [and tangent] of a run-time compiled law through its
 * own kernels, everything else through the built-in ones. */
static cl_status run(cl_fe_ep_model *m, cl_fe_ep_op op, cl_error *err) {
  if (m->A.law == CL_FE_EP_JIT && (op == CL_FE_EP_FORCES || op == CL_FE_EP_FORCES_TANGENT)) {
    cl_status st = cl_jit_launch(m->dev, m->mat.law_entry[op == CL_FE_EP_FORCES_TANGENT], &m->A, m->A.ne,
                                 "fe elements (stress_update law)", err);
    for (int k = 0; k < m->A.law_nstate; k++) cl_field_touch(m->law_state[0][k]);
    return st;
  }
  return cl_k_fe_ep(m->dev, CL_F64, &m->A, op, err);
}

cl_status cl_fe_ep_internal_force(cl_fe_ep_model *m, int tangent, double *fint, cl_error *err) {
  CL_TRY(run(m, tangent ? CL_FE_EP_FORCES_TANGENT : CL_FE_EP_FORCES, err));
  cl_field_touch(m->f[CL_FE_EP_F_SIG]), cl_field_touch(m->f[CL_FE_EP_F_EP]);
  CL_TRY(run(m, CL_FE_EP_GATHER_FORCES, err));
  if (tangent) CL_TRY(run(m, CL_FE_EP_GATHER_TANGENT, err));
  cl_field_touch(m->f[CL_FE_EP_F_R]), cl_field_touch(m->f[CL_FE_EP_F_KVAL]);
  return cl_field_download(m->f[CL_FE_EP_F_R], fint, err);
}

cl_status cl_fe_ep_elastic_stiffness(cl_fe_ep_model *m, cl_error *err) {
  CL_TRY(cl_k_fe_ep(m->dev, CL_F64, &m->A, CL_FE_EP_ELASTIC_TANGENT, err));
  CL_TRY(cl_k_fe_ep(m->dev, CL_F64, &m->A, CL_FE_EP_GATHER_TANGENT, err));
  cl_field_touch(m->f[CL_FE_EP_F_KVAL]);
  return CL_OK;
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

cl_status cl_fe_ep_profile(cl_fe_ep_model *m, int reps, double *residual, double *tangent, cl_error *err) {
  const cl_fe_ep_op ops[2][2] = {{CL_FE_EP_FORCES, CL_FE_EP_GATHER_FORCES},
                                 {CL_FE_EP_FORCES_TANGENT, CL_FE_EP_GATHER_TANGENT}};
  double *out[2] = {residual, tangent};
  for (int k = 0; k < (tangent ? 2 : 1); k++) {
    double t0 = 0;
    for (int r = 0; r <= reps; r++) {
      if (r == 1) {
        CL_TRY(m->dev->synchronize(m->dev, err));
        t0 = seconds();
      }
      CL_TRY(run(m, ops[k][0], err));
      CL_TRY(run(m, ops[k][1], err));
    }
    CL_TRY(m->dev->synchronize(m->dev, err));
    *out[k] = (seconds() - t0) / reps;
  }
  cl_field_touch(m->f[CL_FE_EP_F_SIG]), cl_field_touch(m->f[CL_FE_EP_F_EP]), cl_field_touch(m->f[CL_FE_EP_F_R]);
  cl_field_touch(m->f[CL_FE_EP_F_KVAL]);
  return CL_OK;
}

/* B-bar computed on the host (element-major) and uploaded in the model's layout */
static cl_status build_bbar(cl_fe_ep_model *m, cl_error *err) {
  cl_fe_ep_args *A = &m->A;
  const size_t G = A->ne * A->ngp, nd = 2 * (size_t)A->nn;
  const void *he;
  CL_TRY(cl_field_host(m->f[CL_FE_EP_F_ELEM], &he, err));
  const cl_fe_ep_mesh mesh = {A->shape, A->order, A->nnodes, A->ne, m->x, he};
  double *grad = malloc(sizeof *grad * G * nd), *dev = malloc(sizeof *dev * G * nd);
  double *wdet = malloc(sizeof *wdet * G); /* the same W as at creation: not uploaded again */
  cl_status st = grad && dev && wdet ? CL_OK : cl_error_set(err, CL_ERR_OOM, "fe: out of memory for B-bar");
  if (st == CL_OK) st = geometry(m, &mesh, grad, wdet, err);
  if (st == CL_OK) {
    reorder(A, (size_t)A->ngp * nd, A->grad_e, A->grad_i, 1, grad, dev);
    st = new_field(m, CL_FE_EP_F_GRAD, CL_F64, G * nd, err);
  }
  if (st == CL_OK) st = cl_field_upload(m->f[CL_FE_EP_F_GRAD], dev, err);
  if (st == CL_OK) A->grad = dptr(m, CL_FE_EP_F_GRAD);
  else cl_field_destroy(m->f[CL_FE_EP_F_GRAD]), m->f[CL_FE_EP_F_GRAD] = NULL;
  free(grad), free(dev), free(wdet);
  return st;
}

cl_status cl_fe_ep_set_matrix_free(cl_fe_ep_model *m, int matrix_free, cl_error *err) {
  if (matrix_free < CL_FE_EP_STORED || matrix_free > CL_FE_EP_SUM_FACTORIZED)
    return cl_error_set(err, CL_ERR_ARG, "fe: unknown residual kind %d", matrix_free);
  if (matrix_free == CL_FE_EP_SUM_FACTORIZED && m->A.shape != CL_FE_QUAD)
    return cl_error_set(err, CL_ERR_ARG, "fe: residual \"sum_factorized\" needs tensor-product quadrilaterals; "
                                         "give \"matrix_free\" for triangles");
  if (matrix_free) { /* B-bar's memory (16 n B per Gauss point) goes back */
    cl_field_destroy(m->f[CL_FE_EP_F_GRAD]);
    m->f[CL_FE_EP_F_GRAD] = NULL, m->A.grad = NULL;
  } else if (!m->f[CL_FE_EP_F_GRAD]) {
    CL_TRY(build_bbar(m, err));
  }
  m->A.matrix_free = matrix_free;
  strides(&m->A, element_minor_now(&m->A));
  return CL_OK;
}

cl_status cl_fe_ep_set_sum_threads(cl_fe_ep_model *m, int threads, cl_error *err) {
  if (threads != 0 && (threads < m->A.ngp || threads > 256 || threads % 32))
    return cl_error_set(err, CL_ERR_ARG,
                        "fe: the sum-factorized kernel's block must be 0 (the default) or a multiple of 32 threads "
                        "from the element's %d Gauss points to 256 (got %d)", m->A.ngp, threads);
  m->A.sum_threads = threads;
  return CL_OK;
}

cl_status cl_fe_ep_set_grid(cl_fe_ep_model *m, size_t ni, size_t nj, int wrap, cl_error *err) {
  if (ni < 2 || nj < 2 || ni * nj != m->A.nnodes)
    return cl_error_set(err, CL_ERR_ARG, "fe: a node grid of %zu x %zu does not number the mesh's %zu nodes", ni, nj,
                        m->A.nnodes);
  m->grid_ni = ni, m->grid_nj = nj, m->grid_wrap = wrap;
  return CL_OK;
}

/* field f (count values per element, in one or more components) from the strides (oe, oi) to (ne, ni),
 * through the host's element-major order in host; tmp holds the whole field */
static cl_status relayout(cl_fe_ep_model *m, cl_field *f, size_t count, size_t oe, size_t oi, size_t ne, size_t ni,
                          double *tmp, double *host, cl_error *err) {
  const size_t total = m->A.ne * count;
  CL_TRY(cl_field_download(f, tmp, err));
  for (size_t c = 0; c < cl_field_count(f) / total; c++) {
    reorder(&m->A, count, oe, oi, 0, tmp + c * total, host);
    reorder(&m->A, count, ne, ni, 1, host, tmp + c * total);
  }
  return cl_field_upload(f, tmp, err);
}

cl_status cl_fe_ep_set_layout(cl_fe_ep_model *m, int element_minor, cl_error *err) {
  cl_fe_ep_args *A = &m->A;
  const cl_fe_ep_args old = *A; /* on an error some fields have moved and some not: the header says */
  strides(A, element_minor);
  if (A->gs_k == old.gs_k) return CL_OK;
  const size_t G = A->ne * A->ngp, nd = 2 * (size_t)A->nn;
  double *tmp = malloc(sizeof *tmp * G * (nd > 6 ? nd : 6)), *host = malloc(sizeof *host * G * nd);
  cl_status st = tmp && host ? CL_OK : cl_error_set(err, CL_ERR_OOM, "fe: out of memory");
  if (st == CL_OK && m->f[CL_FE_EP_F_GRAD]) /* B-bar, when stored */
    st = relayout(m, m->f[CL_FE_EP_F_GRAD], A->ngp * nd, old.grad_e, old.grad_i, A->grad_e, A->grad_i, tmp, host, err);
  const cl_fe_ep_field_id per_gauss[] = {CL_FE_EP_F_WDET, CL_FE_EP_F_SIG, CL_FE_EP_F_SIG_N, CL_FE_EP_F_EP, CL_FE_EP_F_EP_N};
  for (int i = 0; i < 5 + 2 * A->law_nstate && st == CL_OK; i++) { /* then a run-time compiled law's state */
    cl_field *f = i < 5 ? m->f[per_gauss[i]] : m->law_state[(i - 5) % 2][(i - 5) / 2];
    st = relayout(m, f, A->ngp, old.gs_e, old.gs_k, A->gs_e, A->gs_k, tmp, host, err);
  }
  free(tmp), free(host);
  return st;
}
