/* The DDA solver on the model's device (pcg.h): buffers, the HSBCSR layout built from the host
 * BSR's pattern, the indices of the device assembly (assembly_ops.h), and the PCG iteration
 * driving the kernels of pcg_ops.h. */
#include "pcg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/field.h"
#include "../backend.h"
#include "../dispatch.h"
#include "contact_kernels.h"
#include "pcg_kernels.h"
#include "pcg_scalars.h"

enum { B_ROWPTR, B_COL, B_VAL, B_DIAG, B_UP, B_UPTR, B_UCOL, B_UROW, B_LPTR, B_LSLOT, B_DINV,
       B_B, B_X, B_R, B_Z, B_P, B_Q, B_T,
       B_CBI, B_CBJ, B_CSTATES, B_CGEO, B_CK, B_CF, B_GSTART, B_GITEM, B_TDIAG, B_RSTART, B_RITEM, B_DOTS, B_CLAW,
       B_CSTART, B_CKEYS, B_PATTERN, B_PACK, B_LONG, B_CLIST, B_CTARGET, B_TMARK,
       B_U, B_W, B_S, B_M, B_M2, /* the pipelined PCG's vectors */
       B_COUNT };
_Static_assert((int)B_COUNT == (int)CL_DDA_SOLVER_BUFFERS, "one device buffer per array");

/* the bytes of a contact's state on the device (B_CSTATES: state, flips (int32), sgn, N, friction
 * (double); B_CSTART: its copy at the step's start) */
#define STATE_BYTES 32
/* and of its bookkeeping, after the states in B_CSTATES (SoA) so that one download brings both up
 * (cl_dda_solver_contacts_down): anchor, shear force (double), bond (int32, its slice 8 bytes a
 * contact to keep the next aligned), edge length, friction work, closed */
#define MORE_BYTES 48

void cl_dda_solver_init(cl_dda_solver *s, cl_device *d, cl_dda_spmv_format format) {
  memset(s, 0, sizeof *s);
  s->dev = d, s->format = format, s->check_every = CL_DDA_PCG_CHECK_EVERY, s->persistent = 1;
  s->incremental = 1, s->listed = -1, s->reuse_pattern = 1;
}

void cl_dda_solver_free(cl_dda_solver *s) {
  for (int k = 0; k < B_COUNT; k++)
    if (s->buf[k]) s->dev->release(s->dev, s->buf[k]);
  if (s->scratch.p) s->dev->release(s->dev, s->scratch.p);
  free(s->stage), free(s->pack), free(s->kept_pairs);
  memset(s, 0, sizeof *s);
}

/* Device buffer k of at least `bytes`, grown by half again when too small. A buffer that moves may
 * be one the kept pattern's indices are in (or point into): the next set_contacts builds them. */
static cl_status ensure(cl_dda_solver *s, int k, size_t bytes, cl_error *err) {
  if (bytes <= s->cap[k] && s->buf[k]) return CL_OK;
  s->pattern_kept = CL_DDA_KEPT_NONE;
  if (s->buf[k]) s->dev->release(s->dev, s->buf[k]);
  s->buf[k] = NULL, s->cap[k] = 0;
  size_t want = bytes + bytes / 2 + 64;
  CL_TRY(s->dev->alloc(s->dev, &s->buf[k], want, err));
  s->cap[k] = want;
  return CL_OK;
}

/* The device's operations, counted (cl_dda_solver's launches and syncs). */
static cl_status to_device(cl_dda_solver *s, void *dst, const void *src, size_t bytes, cl_error *err) {
  s->syncs++;
  return s->dev->to_device(s->dev, dst, src, bytes, err);
}

static cl_status to_host(cl_dda_solver *s, void *dst, const void *src, size_t bytes, cl_error *err) {
  s->syncs++;
  return s->dev->to_host(s->dev, dst, src, bytes, err);
}

static cl_status copy(cl_dda_solver *s, void *dst, const void *src, size_t bytes, cl_error *err) {
  s->launches++;
  return s->dev->copy(s->dev, dst, src, bytes, err);
}

static cl_status run(cl_dda_solver *s, int op, cl_error *err) {
  s->launches += op >= CL_DDA_OP_DOT_BB ? 2 : 1; /* a dot operation: a reduction and its last pass */
  return cl_k_dda_pcg(s->dev, CL_F64, &s->A, op, err);
}

static cl_status oom(cl_error *err) { return cl_error_set(err, CL_ERR_OOM, "DDA solver: out of memory"); }

/* Buffer k's upload of a setup to its byte `offset`, kept in the host pack until send_uploads (8-byte
 * aligned). */
static cl_status upload_at(cl_dda_solver *s, int k, size_t offset, const void *src, size_t bytes, cl_error *err) {
  CL_TRY(ensure(s, k, offset + bytes, err));
  if (!bytes) return CL_OK;
  if (s->npending == CL_DDA_SOLVER_PENDING) return cl_error_set(err, CL_ERR_ARG, "DDA solver: too many uploads");
  size_t at = (s->pack_used + 7) & ~(size_t)7;
  if (at + bytes > s->pack_cap) {
    unsigned char *p = realloc(s->pack, at + bytes + (at + bytes) / 2);
    if (!p) return oom(err);
    s->pack = p, s->pack_cap = at + bytes + (at + bytes) / 2;
  }
  memcpy(s->pack + at, src, bytes);
  s->pending[s->npending].buf = k, s->pending[s->npending].at = at, s->pending[s->npending].bytes = bytes;
  s->pending[s->npending].offset = offset;
  s->npending++, s->pack_used = at + bytes;
  return CL_OK;
}

static cl_status upload(cl_dda_solver *s, int k, const void *src, size_t bytes, cl_error *err) {
  return upload_at(s, k, 0, src, bytes, err);
}

/* The setup's uploads in one transfer (one host wait), then device copies into their buffers. */
static cl_status send_uploads(cl_dda_solver *s, cl_error *err) {
  cl_status st = CL_OK;
  if (s->npending) st = ensure(s, B_PACK, s->pack_used, err);
  if (st == CL_OK && s->npending) st = to_device(s, s->buf[B_PACK], s->pack, s->pack_used, err);
  for (int k = 0; st == CL_OK && k < s->npending; k++)
    st = copy(s, (unsigned char *)s->buf[s->pending[k].buf] + s->pending[k].offset,
              (unsigned char *)s->buf[B_PACK] + s->pending[k].at, s->pending[k].bytes, err);
  s->npending = 0, s->pack_used = 0;
  return st;
}

static void *staging(cl_dda_solver *s, size_t bytes) {
  if (bytes > s->stage_cap) {
    void *p = realloc(s->stage, bytes + bytes / 2);
    if (!p) return NULL;
    s->stage = p, s->stage_cap = bytes + bytes / 2;
  }
  return s->stage;
}

/* The format's structure of pattern a on the device, and where each block of a goes: target[p]
 * is the matrix block of a's block p (BSR: p; HSBCSR: the diagonal block i, or n + the upper
 * block's index; -1 for a lower block, which HSBCSR keeps as its transpose). Returns the blocks. */
static cl_status load_structure(cl_dda_solver *s, const cl_dda_bsr *a, int32_t *target, size_t *ntarget,
                                cl_error *err) {
  size_t n = a->n, nup = 0;
  s->A.nup = 0;
  if (s->format == CL_DDA_BSR) {
    for (size_t p = 0; p < a->nnzb; p++) target[p] = (int32_t)p;
    *ntarget = a->nnzb;
    CL_TRY(upload(s, B_ROWPTR, a->rowptr, (n + 1) * sizeof(int32_t), err));
    return upload(s, B_COL, a->col, a->nnzb * sizeof(int32_t), err);
  }
  for (size_t i = 0; i < n; i++)
    for (int32_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) nup += (size_t)a->col[p] > i;
  int32_t *uptr = staging(s, (3 * (n + 1) + 3 * nup) * sizeof(int32_t));
  if (!uptr) return oom(err);
  int32_t *ucol = uptr + n + 1, *urow = ucol + nup, *lptr = urow + nup, *lslot = lptr + n + 1, *fill = lslot + nup;
  memset(lptr, 0, (n + 1) * sizeof *lptr);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    uptr[i] = (int32_t)k;
    for (int32_t p = a->rowptr[i]; p < a->rowptr[i + 1]; p++) {
      size_t j = (size_t)a->col[p];
      target[p] = j == i ? (int32_t)i : j > i ? (int32_t)(n + k) : -1;
      if (j <= i) continue;
      ucol[k] = (int32_t)j, urow[k] = (int32_t)i, lptr[j + 1]++;
      k++;
    }
  }
  uptr[n] = (int32_t)k;
  for (size_t i = 0; i < n; i++) lptr[i + 1] += lptr[i];
  /* the up blocks of each column, in the order of their rows (rows are visited in order) */
  memcpy(fill, lptr, (n + 1) * sizeof *fill);
  for (size_t q = 0; q < nup; q++) lslot[fill[ucol[q]]++] = (int32_t)q;
  CL_TRY(upload(s, B_UPTR, uptr, (n + 1) * sizeof(int32_t), err));
  CL_TRY(upload(s, B_UCOL, ucol, nup * sizeof(int32_t), err));
  CL_TRY(upload(s, B_UROW, urow, nup * sizeof(int32_t), err));
  CL_TRY(upload(s, B_LPTR, lptr, (n + 1) * sizeof(int32_t), err));
  CL_TRY(upload(s, B_LSLOT, lslot, nup * sizeof(int32_t), err));
  s->A.nup = nup;
  *ntarget = n + nup;
  return CL_OK;
}

/* The solve's x for n blocks: kept from solve to solve as the next one's start (x0 NULL), and zero
 * -- all its room -- where its buffer is new: the device leaves new memory undefined (on the cpu, a
 * freed buffer's old values), and a first solve would start from it. */
static cl_status ensure_x(cl_dda_solver *s, size_t n, cl_error *err) {
  const size_t bytes = 6 * n * sizeof(double);
  if (bytes <= s->cap[B_X] && s->buf[B_X]) return CL_OK;
  CL_TRY(ensure(s, B_X, bytes, err));
  s->launches++;
  return cl_k_fill(s->dev, CL_F64, s->buf[B_X], s->cap[B_X] / sizeof(double), 0, err);
}

/* The value buffers of the format and the vectors, and every pointer of s->A. */
static cl_status set_args(cl_dda_solver *s, size_t n, size_t ntarget, cl_error *err) {
  if (s->format == CL_DDA_BSR) {
    CL_TRY(ensure(s, B_VAL, 36 * ntarget * sizeof(double), err));
  } else {
    CL_TRY(ensure(s, B_DIAG, 36 * n * sizeof(double), err));
    CL_TRY(ensure(s, B_UP, 36 * (ntarget - n) * sizeof(double), err));
  }
  CL_TRY(ensure(s, B_DINV, 36 * n * sizeof(double), err));
  CL_TRY(ensure_x(s, n, err));
  for (int k = B_B; k <= B_T; k++)
    if (k != B_X) CL_TRY(ensure(s, k, 6 * n * sizeof(double), err));
  for (int k = B_U; k <= B_M2; k++) CL_TRY(ensure(s, k, 6 * n * sizeof(double), err));
  CL_TRY(ensure(s, B_DOTS, (CL_DDA_DOT_PARTIALS + CL_DDA_SCALARS) * sizeof(double), err));
  CL_TRY(ensure(s, B_LONG, (n + 1) * sizeof(int32_t), err));
  CL_TRY(ensure(s, B_TMARK, (ntarget + 1) * sizeof(int32_t), err));
  void **b = s->buf;
  cl_dda_pcg_args A = {.n = n, .format = s->format, .rowptr = b[B_ROWPTR], .col = b[B_COL], .val = b[B_VAL],
                       .long_rows = b[B_LONG],
                       .nup = s->A.nup, .diag = b[B_DIAG], .up = b[B_UP], .uptr = b[B_UPTR], .ucol = b[B_UCOL],
                       .urow = b[B_UROW], .lptr = b[B_LPTR], .lslot = b[B_LSLOT], .ntarget = ntarget,
                       .dinv = b[B_DINV], .b = b[B_B], .x = b[B_X], .r = b[B_R], .z = b[B_Z], .p = b[B_P],
                       .q = b[B_Q], .t = b[B_T], .u = b[B_U], .w = b[B_W], .s = b[B_S], .m = b[B_M],
                       .mnext = b[B_M], .partials = b[B_DOTS],
                       .scal = (double *)b[B_DOTS] + CL_DDA_DOT_PARTIALS};
  s->A = A;
  s->listed = -1, s->targets_ready = 0; /* a new structure: the rule's list is valid after its first assembly */
  return CL_OK;
}

/* The long rows of a BSR pattern that is on the device (CL_DDA_OP_LONG_ROWS). */
static cl_status find_long_rows(cl_dda_solver *s, cl_error *err) {
  return s->format == CL_DDA_BSR && s->A.n ? run(s, CL_DDA_OP_LONG_ROWS, err) : CL_OK;
}

static cl_status not_positive_definite(cl_dda_solver *s, cl_error *err) {
  size_t n = s->A.n, i = 0;
  double *first = staging(s, n * sizeof *first);
  if (!first) return oom(err);
  CL_TRY(to_host(s, first, s->buf[B_DINV], n * sizeof *first, err));
  while (i + 1 < n && isfinite(first[i])) i++;
  return cl_error_set(err, CL_ERR_ARG, "DDA solver: the diagonal submatrix of block %zu is not positive definite "
                      "(check its material: E > 0, 0 <= nu < 0.5, density > 0)", i + 1);
}

/* Whether every diagonal block was factored, on the device (pcg_scalars.h): a failed factorisation
 * leaves NaN in its block's first entry, and the sum of the first slices' squares is finite exactly
 * when every block was factored. The host looks at it in PCG's first scalar read (now, with
 * `check`); only on a failure is the slice looked at on the host. */
static cl_status check_factors(cl_dda_solver *s, int check, cl_error *err) {
  CL_TRY(run(s, CL_DDA_OP_FACTOR_CHECK, err));
  if (!check) return CL_OK;
  double sc[CL_DDA_SCALARS];
  CL_TRY(to_host(s, sc, s->A.scal, sizeof sc, err));
  return isfinite(sc[CL_DDA_S_FACTORED]) ? CL_OK : not_positive_definite(s, err);
}

cl_status cl_dda_solver_load(cl_dda_solver *s, const cl_dda_bsr *a, cl_error *err) {
  size_t n = a->n, ntarget;
  s->npending = 0, s->pack_used = 0; /* nothing left from a setup that failed */
  s->pattern_kept = CL_DDA_KEPT_NONE; /* a structure of no contacts' */
  int32_t *target = malloc((a->nnzb + 1) * sizeof *target);
  if (!target) return oom(err);
  cl_status st = load_structure(s, a, target, &ntarget, err);
  if (st == CL_OK) st = set_args(s, n, ntarget, err);
  if (st == CL_OK && s->format == CL_DDA_BSR) {
    st = upload(s, B_VAL, a->val, 36 * a->nnzb * sizeof(double), err);
  } else if (st == CL_OK) {
    size_t nup = ntarget - n;
    double *d = staging(s, 36 * ntarget * sizeof *d), *up = d ? d + 36 * n : NULL;
    if (!d) st = oom(err);
    for (size_t p = 0; st == CL_OK && p < a->nnzb; p++)
      for (int e = 0; e < 36 && target[p] >= 0; e++) {
        size_t t = (size_t)target[p];
        if (t < n) d[e * n + t] = a->val[36 * p + (size_t)e];
        else up[e * nup + t - n] = a->val[36 * p + (size_t)e];
      }
    if (st == CL_OK) st = upload(s, B_DIAG, d, 36 * n * sizeof *d, err);
    if (st == CL_OK) st = upload(s, B_UP, up, 36 * nup * sizeof *d, err);
  }
  free(target);
  if (st == CL_OK) st = send_uploads(s, err);
  if (st == CL_OK) st = find_long_rows(s, err);
  if (st == CL_OK) st = run(s, CL_DDA_OP_FACTOR, err);
  s->check_pending = 0;
  return st == CL_OK ? check_factors(s, 1, err) : st;
}

/* A contact array of a setup into buffer k at its byte `offset`: uploaded with the setup's others, or
 * copied on the device where the caller's arrays are there (c->on_device; k is already big enough). */
static cl_status give(cl_dda_solver *s, const cl_dda_step_contacts *c, int k, size_t offset, const void *src,
                      size_t bytes, cl_error *err) {
  if (!c->on_device) return upload_at(s, k, offset, src, bytes, err);
  CL_TRY(ensure(s, k, offset + bytes, err));
  return bytes ? copy(s, (unsigned char *)s->buf[k] + offset, src, bytes, err) : CL_OK;
}

/* The step's start states into B_CSTART (laid out as B_CSTATES) and the bookkeeping's anchors, bonds and
 * edge lengths after B_CSTATES' states, with the setup's other uploads. */
static cl_status upload_start(cl_dda_solver *s, const cl_dda_step_contacts *c, cl_error *err) {
  const size_t nc = c->count, more = STATE_BYTES * nc;
  CL_TRY(ensure(s, B_CSTART, STATE_BYTES * nc, err)); /* whole: the set-up kernel may write its friction */
  CL_TRY(give(s, c, B_CSTART, 0, c->state, 4 * nc, err));
  CL_TRY(give(s, c, B_CSTART, 4 * nc, c->flips, 4 * nc, err));
  CL_TRY(give(s, c, B_CSTART, 8 * nc, c->sgn, 8 * nc, err));
  CL_TRY(give(s, c, B_CSTART, 16 * nc, c->N, 8 * nc, err));
  if (c->friction) CL_TRY(give(s, c, B_CSTART, 24 * nc, c->friction, 8 * nc, err));
  CL_TRY(give(s, c, B_CSTATES, more, c->t_ref, 8 * nc, err));
  CL_TRY(give(s, c, B_CSTATES, more + 16 * nc, c->bonded, 4 * nc, err));
  if (c->len) return give(s, c, B_CSTATES, more + 24 * nc, c->len, 8 * nc, err);
  /* set up on the device: its inputs, vertex, edge and joint length (B_CKEYS) */
  CL_TRY(ensure(s, B_CKEYS, 16 * nc, err));
  CL_TRY(give(s, c, B_CKEYS, 0, c->vi, 4 * nc, err));
  CL_TRY(give(s, c, B_CKEYS, 4 * nc, c->ej, 4 * nc, err));
  return give(s, c, B_CKEYS, 8 * nc, c->length, 8 * nc, err);
}

/* Counting sort of (key, item) pairs into CSR: start (nkeys + 1) and items in the order given. */
static void bucket(size_t nkeys, size_t nitems, const int32_t *key, const int32_t *item, int32_t *start,
                   int32_t *out) {
  memset(start, 0, (nkeys + 1) * sizeof *start);
  for (size_t q = 0; q < nitems; q++) start[key[q] + 1]++;
  for (size_t t = 0; t < nkeys; t++) start[t + 1] += start[t];
  for (size_t q = 0; q < nitems; q++) out[start[key[q]]++] = item[q];
  for (size_t t = nkeys; t > 0; t--) start[t] = start[t - 1];
  start[0] = 0;
}

/* The contacts' own uploads of a setup (blocks, geometry and laws where given, start states) and the
 * room of their device arrays; the blocks not where the device's are c's already (a kept pattern). */
static cl_status upload_contacts(cl_dda_solver *s, const cl_dda_step_contacts *c, int blocks_there, cl_error *err) {
  const size_t nc = c->count;
  if (!blocks_there) CL_TRY(give(s, c, B_CBI, 0, c->bi, nc * sizeof(int32_t), err));
  if (!blocks_there) CL_TRY(give(s, c, B_CBJ, 0, c->bj, nc * sizeof(int32_t), err));
  CL_TRY(c->geo ? upload(s, B_CGEO, c->geo, 26 * nc * sizeof(double), err)
                : ensure(s, B_CGEO, 26 * nc * sizeof(double), err));
  CL_TRY(ensure(s, B_CSTATES, (STATE_BYTES + MORE_BYTES) * nc, err));
  if (c->law) CL_TRY(upload(s, B_CLAW, c->law, 3 * nc * sizeof(double), err));
  if (!c->geo) CL_TRY(ensure(s, B_CLAW, 3 * nc * sizeof(double), err));
  CL_TRY(ensure(s, B_CK, 108 * nc * sizeof(double), err));
  CL_TRY(ensure(s, B_CF, 12 * nc * sizeof(double), err));
  CL_TRY(ensure(s, B_CLIST, (nc + 1) * sizeof(int32_t), err));
  CL_TRY(ensure(s, B_CTARGET, 4 * nc * sizeof(int32_t), err));
  s->start_kept = c->state != NULL;
  return s->start_kept ? upload_start(s, c, err) : CL_OK;
}

/* The contacts' arrays and parameters in s->A, once their uploads are sent. */
static void point_contacts(cl_dda_solver *s, const cl_dda_step_contacts *c) {
  const size_t nc = c->count;
  void **b = s->buf;
  char *states = b[B_CSTATES]; /* state, flips (int32), sgn, N, friction (double): one transfer each way */
  s->A.nc = nc, s->A.cbi = b[B_CBI], s->A.cbj = b[B_CBJ], s->A.cgeo = b[B_CGEO];
  s->A.cstate = (int32_t *)states, s->A.cflips = (int32_t *)(states + 4 * nc), s->A.csgn = states + 8 * nc;
  s->A.cN = states + 16 * nc, s->A.cfric = states + 24 * nc;
  s->A.kn = c->kn, s->A.ks = c->ks, s->A.cK = b[B_CK], s->A.cF = b[B_CF];
  s->A.gstart = b[B_GSTART], s->A.gitem = b[B_GITEM], s->A.tdiag = b[B_TDIAG], s->A.rstart = b[B_RSTART];
  s->A.ritem = b[B_RITEM];
  s->A.claw = b[B_CLAW];
  s->A.clist = b[B_CLIST], s->A.ctarget = b[B_CTARGET], s->A.tmark = b[B_TMARK];
  s->A.slip_floor = c->slip_floor, s->A.force_floor = c->force_floor, s->A.flip_limit = c->flip_limit;
}

static cl_status pattern_pass(cl_dda_solver *s, const cl_dda_pattern_args *a, int pass, size_t items, cl_error *err) {
  s->launches++;
  return cl_k_dda_pattern(s->dev, a, pass, items, err);
}

void cl_dda_solver_forget_pattern(cl_dda_solver *s) { s->pattern_kept = CL_DDA_KEPT_NONE; }

cl_status cl_dda_solver_compare_pattern(cl_dda_solver *s, size_t n, const cl_dda_step_contacts *c,
                                        const double **differ, cl_error *err) {
  const size_t nc = c->count;
  *differ = NULL;
  s->compared = 1, s->compared_same = 0, s->compared_nc = nc;
  if (c->on_device && nc) CL_TRY(ensure(s, B_PATTERN, nc * sizeof(double), err)); /* the values' room (may forget) */
  const int kept = c->on_device ? CL_DDA_KEPT_DEVICE : CL_DDA_KEPT_HOST;
  if (!s->reuse_pattern || (int)s->pattern_kept != kept || n != s->kept_n || nc != s->kept_nc) return CL_OK;
  if (!nc || !c->on_device) {
    s->compared_same = !nc || (!memcmp(s->kept_pairs, c->bi, nc * sizeof *c->bi) &&
                               !memcmp(s->kept_pairs + nc, c->bj, nc * sizeof *c->bj));
    return CL_OK;
  }
  /* the kept contacts' blocks are the device's B_CBI, B_CBJ until set_contacts sends other ones */
  cl_dda_pattern_args a = {.nc = nc, .cbi = c->bi, .cbj = c->bj, .kept_bi = s->buf[B_CBI], .kept_bj = s->buf[B_CBJ],
                           .differ = s->buf[B_PATTERN]};
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_SAME, nc, err));
  *differ = a.differ;
  return CL_OK;
}

void cl_dda_solver_pattern_compared(cl_dda_solver *s, double largest) { s->compared_same = largest == 0; }

cl_status cl_dda_solver_same_pattern(cl_dda_solver *s, size_t n, const cl_dda_step_contacts *c, int *same,
                                     cl_error *err) {
  const double *differ;
  CL_TRY(cl_dda_solver_compare_pattern(s, n, c, &differ, err));
  if (differ) {
    double largest;
    s->launches += 2, s->syncs++; /* a reduction's two passes, read back */
    CL_TRY(cl_k_reduce(s->dev, CL_F64, differ, c->count, CL_REDUCE_MAX, &largest, err));
    cl_dda_solver_pattern_compared(s, largest);
  }
  *same = s->compared_same;
  return CL_OK;
}

/* set_contacts' answer for c: the one compared for it (pending, for as many contacts), else compared
 * now; taken once. A buffer moved since (ensure) leaves no pattern to keep. */
static cl_status same_for(cl_dda_solver *s, size_t n, const cl_dda_step_contacts *c, int *same, cl_error *err) {
  if (!s->compared || s->compared_nc != c->count) CL_TRY(cl_dda_solver_same_pattern(s, n, c, same, err));
  *same = s->compared_same && (int)s->pattern_kept == (c->on_device ? CL_DDA_KEPT_DEVICE : CL_DDA_KEPT_HOST);
  s->compared = 0;
  return CL_OK;
}

/* The step's contacts c on the pattern and indices kept from the last set_contacts (same_pattern):
 * only the contacts' own arrays go up, but their blocks, which are the device's already. The rule's
 * list starts again (as set_args); the share targets (ctarget, tmark) are the pattern's and stay. */
static cl_status keep_pattern(cl_dda_solver *s, const cl_dda_step_contacts *c, cl_error *err) {
  /* the same count: none of the structure's buffers moves; the same blocks: they stay */
  CL_TRY(upload_contacts(s, c, 1, err));
  CL_TRY(send_uploads(s, err));
  point_contacts(s, c);
  s->listed = -1, s->pattern_reuses++;
  return CL_OK;
}

/* After a build of the pattern and indices for contacts c over n blocks: what same_pattern compares. */
static cl_status kept_for(cl_dda_solver *s, size_t n, const cl_dda_step_contacts *c, cl_error *err) {
  const size_t nc = c->count;
  if (!c->on_device && 2 * nc > s->kept_pairs_cap) {
    int32_t *p = realloc(s->kept_pairs, 2 * nc * sizeof *p);
    if (!p) return oom(err);
    s->kept_pairs = p, s->kept_pairs_cap = 2 * nc;
  }
  if (!c->on_device && nc)
    memcpy(s->kept_pairs, c->bi, nc * sizeof *c->bi), memcpy(s->kept_pairs + nc, c->bj, nc * sizeof *c->bj);
  s->kept_n = n, s->kept_nc = nc, s->pattern_kept = c->on_device ? CL_DDA_KEPT_DEVICE : CL_DDA_KEPT_HOST;
  return CL_OK;
}

cl_status cl_dda_solver_set_contacts(cl_dda_solver *s, const cl_dda_bsr *a, const cl_dda_step_contacts *c,
                                     cl_error *err) {
  size_t n = a->n, nc = c->count, ntarget, nitems = 0;
  s->npending = 0, s->pack_used = 0; /* nothing left from a setup that failed */
  int same;
  CL_TRY(same_for(s, n, c, &same, err));
  if (same) return keep_pattern(s, c, err);
  s->pattern_kept = CL_DDA_KEPT_NONE;
  size_t ints = a->nnzb + 1 + 2 * (4 * nc) + 2 * (2 * nc) + 2 * (a->nnzb + n + 2) + n;
  int32_t *target = malloc(ints * sizeof *target);
  if (!target) return oom(err);
  int32_t *gkey = target + a->nnzb + 1, *gval = gkey + 4 * nc, *rkey = gval + 4 * nc, *rval = rkey + 2 * nc;
  int32_t *tdiag = rval + 2 * nc, *gstart = tdiag + a->nnzb + n, *rstart = gstart + a->nnzb + n + 2;
  cl_status st = load_structure(s, a, target, &ntarget, err);
  if (st == CL_OK) st = set_args(s, n, ntarget, err);
  if (st != CL_OK) return free(target), st;
  for (size_t t = 0; t < ntarget; t++) tdiag[t] = -1;
  for (size_t i = 0; i < n; i++) tdiag[target[cl_dda_bsr_position(a, (int32_t)i, (int32_t)i)]] = (int32_t)i;
  /* each contact's four shares, in contact order; HSBCSR drops the lower one (its transpose is kept) */
  for (size_t k = 0; k < nc; k++) {
    const int32_t i = c->bi[k], j = c->bj[k];
    const int32_t pos[4] = {cl_dda_bsr_position(a, i, i), cl_dda_bsr_position(a, j, j), cl_dda_bsr_position(a, i, j),
                            cl_dda_bsr_position(a, j, i)};
    for (int role = 0; role < 4; role++) {
      if (pos[role] < 0) {
        free(target);
        return cl_error_set(err, CL_ERR_ARG, "DDA assembly: blocks %d and %d are not in the matrix's pattern",
                            i + 1, j + 1);
      }
      if (target[pos[role]] < 0) continue;
      gkey[nitems] = target[pos[role]], gval[nitems++] = (int32_t)(4 * k) + role;
    }
    rkey[2 * k] = i, rval[2 * k] = (int32_t)(2 * k);
    rkey[2 * k + 1] = j, rval[2 * k + 1] = (int32_t)(2 * k + 1);
  }
  int32_t *sorted = malloc((nitems + 2 * nc + 1) * sizeof *sorted);
  if (!sorted) return free(target), oom(err);
  bucket(ntarget, nitems, gkey, gval, gstart, sorted);
  bucket(n, 2 * nc, rkey, rval, rstart, sorted + nitems);
  st = upload(s, B_GSTART, gstart, (ntarget + 1) * sizeof(int32_t), err);
  if (st == CL_OK) st = upload(s, B_GITEM, sorted, nitems * sizeof(int32_t), err);
  if (st == CL_OK) st = upload(s, B_TDIAG, tdiag, ntarget * sizeof(int32_t), err);
  if (st == CL_OK) st = upload(s, B_RSTART, rstart, (n + 1) * sizeof(int32_t), err);
  if (st == CL_OK) st = upload(s, B_RITEM, sorted + nitems, 2 * nc * sizeof(int32_t), err);
  if (st == CL_OK) st = upload_contacts(s, c, 0, err);
  free(target), free(sorted);
  if (st == CL_OK) st = send_uploads(s, err);
  if (st == CL_OK) st = find_long_rows(s, err);
  if (st != CL_OK) return st;
  point_contacts(s, c);
  return kept_for(s, n, c, err);
}

static cl_status sort_keys(cl_dda_solver *s, cl_dda_pattern_args *a, size_t m, uint64_t max_key, cl_error *err) {
  s->launches++;
  a->m = m;
  return cl_k_dda_sort_keys(s->dev, &s->scratch, a->keys, (uint64_t *)a->sorted, m, max_key, err);
}

cl_status cl_dda_solver_set_contacts_on_device(cl_dda_solver *s, size_t n, const cl_dda_step_contacts *c,
                                               cl_error *err) {
  const size_t nc = c->count, m1 = 2 * nc + n, big = m1 > 4 * nc ? m1 : 4 * nc;
  s->npending = 0, s->pack_used = 0; /* nothing left from a setup that failed */
  if (s->format != CL_DDA_BSR)
    return cl_error_set(err, CL_ERR_ARG, "DDA solver: the pattern is built on the device in BSR only (spmv = \"bsr\")");
  int same;
  CL_TRY(same_for(s, n, c, &same, err));
  if (same) return keep_pattern(s, c, err);
  s->pattern_kept = CL_DDA_KEPT_NONE;
  CL_TRY(upload_contacts(s, c, 0, err));
  CL_TRY(send_uploads(s, err));
  /* room: keys, sorted keys, flags, their offsets, the unique keys */
  CL_TRY(ensure(s, B_PATTERN, 8 * (5 * big + 1), err));
  uint64_t *room = s->buf[B_PATTERN];
  cl_dda_pattern_args a = {.n = n, .nc = nc, .cbi = s->buf[B_CBI], .cbj = s->buf[B_CBJ], .keys = room,
                           .sorted = room + big, .flags = (int64_t *)(room + 2 * big),
                           .offset = (int64_t *)(room + 3 * big), .unique = room + 4 * big + 1};
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_PAIR_KEYS, m1, err));
  CL_TRY(sort_keys(s, &a, m1, cl_dda_key((int64_t)n - 1, (int64_t)n - 1, n), err));
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_FLAGS, m1, err));
  int64_t nnzb;
  s->launches++, s->syncs++;
  CL_TRY(cl_k_dda_offsets(s->dev, &s->scratch, a.flags, (int64_t *)a.offset, m1, &nnzb, err));
  a.nnzb = (size_t)nnzb;
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_UNIQUE, m1, err));
  CL_TRY(ensure(s, B_ROWPTR, (n + 1) * sizeof(int32_t), err));
  CL_TRY(ensure(s, B_COL, a.nnzb * sizeof(int32_t), err));
  CL_TRY(ensure(s, B_TDIAG, a.nnzb * sizeof(int32_t), err));
  CL_TRY(ensure(s, B_GSTART, (a.nnzb + 1) * sizeof(int32_t), err));
  CL_TRY(ensure(s, B_GITEM, 4 * nc * sizeof(int32_t), err));
  CL_TRY(ensure(s, B_RSTART, (n + 1) * sizeof(int32_t), err));
  CL_TRY(ensure(s, B_RITEM, 2 * nc * sizeof(int32_t), err));
  a.rowptr = s->buf[B_ROWPTR], a.col = s->buf[B_COL], a.tdiag = s->buf[B_TDIAG], a.gstart = s->buf[B_GSTART];
  a.gitem = s->buf[B_GITEM], a.rstart = s->buf[B_RSTART], a.ritem = s->buf[B_RITEM];
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_ROWS, n + 1, err));
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_COLUMNS, a.nnzb, err));
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_SHARE_KEYS, 4 * nc, err));
  CL_TRY(sort_keys(s, &a, 4 * nc, cl_dda_key((int64_t)a.nnzb - 1, (int64_t)(4 * nc) - 1, 4 * nc), err));
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_GSTART, a.nnzb + 1, err));
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_GITEM, 4 * nc, err));
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_ROW_KEYS, 2 * nc, err));
  CL_TRY(sort_keys(s, &a, 2 * nc, cl_dda_key((int64_t)n - 1, (int64_t)(2 * nc) - 1, 2 * nc), err));
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_RSTART, n + 1, err));
  CL_TRY(pattern_pass(s, &a, CL_DDA_PATTERN_RITEM, 2 * nc, err));
  s->A.nup = 0;
  CL_TRY(set_args(s, n, a.nnzb, err));
  CL_TRY(find_long_rows(s, err));
  point_contacts(s, c);
  return kept_for(s, n, c, err);
}

/* The contacts' states packed as on the device (set_contacts): state, flips, sgn, N, friction. */
static void *pack_states(cl_dda_solver *s, const cl_dda_contact_states *c) {
  const size_t nc = s->A.nc;
  char *p = staging(s, STATE_BYTES * nc);
  if (!p) return NULL;
  memcpy(p, c->state, 4 * nc), memcpy(p + 4 * nc, c->flips, 4 * nc), memcpy(p + 8 * nc, c->sgn, 8 * nc);
  memcpy(p + 16 * nc, c->N, 8 * nc), memcpy(p + 24 * nc, c->friction, 8 * nc);
  return p;
}

cl_status cl_dda_solver_set_states(cl_dda_solver *s, const cl_dda_contact_states *c, cl_error *err) {
  s->listed = -1; /* states the rule did not list: the next assembly is a full one */
  if (!s->A.nc) return CL_OK;
  void *p = pack_states(s, c);
  return p ? to_device(s, s->buf[B_CSTATES], p, STATE_BYTES * s->A.nc, err) : oom(err);
}

cl_status cl_dda_solver_get_states(cl_dda_solver *s, cl_dda_contact_states *c, cl_error *err) {
  const size_t nc = s->A.nc;
  if (!nc) return CL_OK;
  char *p = staging(s, STATE_BYTES * nc);
  if (!p) return oom(err);
  CL_TRY(to_host(s, p, s->buf[B_CSTATES], 24 * nc, err)); /* all but the friction */
  memcpy(c->state, p, 4 * nc), memcpy(c->flips, p + 4 * nc, 4 * nc), memcpy(c->sgn, p + 8 * nc, 8 * nc);
  memcpy(c->N, p + 16 * nc, 8 * nc);
  return CL_OK;
}

void cl_dda_solver_setup_args(cl_dda_solver *s, cl_dda_setup_args *a) {
  const size_t nc = s->A.nc;
  char *start = s->buf[B_CSTART], *more = (char *)s->buf[B_CSTATES] + STATE_BYTES * nc, *keys = s->buf[B_CKEYS];
  a->nc = nc, a->cbi = s->A.cbi, a->cbj = s->A.cbj, a->cvi = (const int32_t *)keys;
  a->cej = (const int32_t *)(keys + 4 * nc), a->length = keys + 8 * nc;
  a->cstate = (const int32_t *)start, a->sgn = start + 8 * nc, a->N = start + 16 * nc, a->friction = start + 24 * nc;
  a->t_ref = more, a->cbonded = (const int32_t *)(more + 16 * nc), a->len = more + 24 * nc;
  a->geo = s->buf[B_CGEO], a->law = s->buf[B_CLAW];
}

cl_status cl_dda_solver_restart_states(cl_dda_solver *s, cl_error *err) {
  s->listed = -1; /* as set_states */
  if (!s->A.nc) return CL_OK;
  if (!s->start_kept)
    return cl_error_set(err, CL_ERR_ARG, "DDA solver: no start states kept (give them to cl_dda_solver_set_contacts)");
  return copy(s, s->buf[B_CSTATES], s->buf[B_CSTART], STATE_BYTES * s->A.nc, err);
}

cl_status cl_dda_solver_account(cl_dda_solver *s, const cl_dda_contact_fields *into, double *friction_work,
                                size_t *closed, cl_error *err) {
  const size_t nc = s->A.nc;
  *friction_work = 0, *closed = 0;
  if (!nc) return CL_OK;
  if (!s->start_kept)
    return cl_error_set(err, CL_ERR_ARG, "DDA solver: no anchors kept (give them to cl_dda_solver_set_contacts)");
  char *more = (char *)s->buf[B_CSTATES] + STATE_BYTES * nc;
  cl_dda_account_args a = {.n = s->A.n, .nc = nc, .cbi = s->A.cbi, .cbj = s->A.cbj, .cstate = s->A.cstate,
                           .csgn = s->A.csgn, .cN = s->A.cN, .cgeo = s->A.cgeo, .x = s->A.x, .cfric = s->A.cfric, .len = more + 24 * nc,
                           .ks = s->A.ks, .t_ref = more, .S = more + 8 * nc, .bonded = (int32_t *)(more + 16 * nc),
                           .work = more + 32 * nc, .closed = more + 40 * nc};
  if (into) {
    a.into_state = into->state, a.into_bonded = into->bonded, a.into_sgn = into->sgn, a.into_N = into->N;
    a.into_t_ref = into->t_ref, a.into_S = into->S;
  }
  const double *terms[2] = {a.work, a.closed};
  const size_t count[2] = {nc, nc};
  const int op[2] = {CL_REDUCE_SUM, CL_REDUCE_SUM};
  double sum[2];
  s->launches += 3, s->syncs += 1; /* the kernel and two reductions, read back together */
  CL_TRY(cl_k_dda_account(s->dev, CL_F64, &a, err));
  CL_TRY(cl_k_reduce_many(s->dev, 2, terms, count, op, sum, err));
  *friction_work = sum[0], *closed = (size_t)sum[1];
  return CL_OK;
}

cl_status cl_dda_solver_contacts_down(cl_dda_solver *s, cl_dda_contact_fields *c, cl_error *err) {
  const size_t nc = s->A.nc;
  if (!nc) return CL_OK;
  const size_t bytes = (STATE_BYTES + 20) * nc; /* the states, then anchor, shear force and bond */
  char *p = staging(s, bytes), *more = p + STATE_BYTES * nc;
  if (!p) return oom(err);
  CL_TRY(to_host(s, p, s->buf[B_CSTATES], bytes, err));
  memcpy(c->state, p, 4 * nc), memcpy(c->flips, p + 4 * nc, 4 * nc), memcpy(c->sgn, p + 8 * nc, 8 * nc);
  memcpy(c->N, p + 16 * nc, 8 * nc);
  memcpy(c->t_ref, more, 8 * nc), memcpy(c->S, more + 8 * nc, 8 * nc), memcpy(c->bonded, more + 16 * nc, 4 * nc);
  return CL_OK;
}

/* The rule listed `changed` more contacts on the device (open_close_ops.h): the host's count of the list. */
static void listed(cl_dda_solver *s, int changed) {
  if (s->listed >= 0) s->listed += changed;
}

cl_status cl_dda_solver_open_close(cl_dda_solver *s, int *changed, int *unsettled, cl_error *err) {
  double sc[CL_DDA_SCALARS];
  CL_TRY(run(s, CL_DDA_OP_OPEN_CLOSE, err));
  CL_TRY(to_host(s, sc, s->A.scal, sizeof sc, err));
  *changed = (int)sc[CL_DDA_S_CHANGED], *unsettled = (int)sc[CL_DDA_S_UNSETTLED];
  listed(s, *changed);
  return CL_OK;
}

/* After an assembly: the factors' check, left to the persistent solve's first dot where it runs (two
 * launches fewer). */
static cl_status assembled(cl_dda_solver *s, cl_error *err) {
  s->check_pending = s->persistent;
  return s->persistent ? CL_OK : check_factors(s, 0, err);
}

cl_status cl_dda_solver_assemble(cl_dda_solver *s, const int32_t *state, const double *friction, const void *Kdiag,
                                 const void *Fdiag, cl_error *err) {
  size_t nc = s->A.nc;
  if (nc && state) {
    CL_TRY(to_device(s, s->A.cstate, state, nc * sizeof *state, err));
    CL_TRY(to_device(s, s->A.cfric, friction, nc * sizeof *friction, err));
  }
  s->A.Kdiag = Kdiag, s->A.Fdiag = Fdiag;
  CL_TRY(run(s, CL_DDA_OP_SPRINGS, err));
  CL_TRY(run(s, CL_DDA_OP_GATHER, err)); /* the matrix, its diagonal blocks' factors and b */
  s->listed = 0, s->assemblies_full++; /* the rule's list is empty and is now the one to follow */
  return assembled(s, err);
}

/* The incremental assembly's limit: past nc / CL_DDA_INCREMENTAL_SHARE listed contacts the full one.
 * A listed contact's four blocks are re-summed from their whole share lists, ~2 diagonal blocks of
 * ~30 shares (case 1) and 2 off-diagonal ones of ~2: ~64 shares where the full gather sums 4 a
 * contact. Past nc / 16 listed contacts the incremental gather would sum more; nc / 32 keeps it under
 * half of the full one's (case 1 lists ~10 - 90 of 67 516 after an attempt's first iteration). */
#define CL_DDA_INCREMENTAL_SHARE 32

cl_status cl_dda_solver_assemble_changed(cl_dda_solver *s, cl_error *err) {
  const size_t nc = s->A.nc;
  if (!s->incremental || s->listed < 0 || (size_t)s->listed > nc / CL_DDA_INCREMENTAL_SHARE)
    return cl_dda_solver_assemble(s, NULL, NULL, s->A.Kdiag, s->A.Fdiag, err);
  if (!s->targets_ready) CL_TRY(run(s, CL_DDA_OP_SHARE_TARGETS, err)); /* once a step */
  s->targets_ready = 1;
  s->A.incremental = 1, s->A.nlisted = (size_t)s->listed;
  cl_status st = run(s, CL_DDA_OP_SPRINGS_CHANGED, err);
  if (st == CL_OK) st = run(s, CL_DDA_OP_GATHER, err); /* the claimed blocks, their factors, b */
  s->A.incremental = 0, s->A.nlisted = 0;
  CL_TRY(st);
  s->assemblies_changed++, s->contacts_listed += s->listed, s->listed = 0;
  return assembled(s, err);
}

cl_status cl_dda_solver_start_from(cl_dda_solver *s, const void *x0, cl_error *err) {
  size_t bytes = 6 * s->A.n * sizeof(double);
  return bytes ? copy(s, s->buf[B_X], x0, bytes, err) : CL_OK;
}

/* Host vector v (block-major) to device buffer k (SoA), or back. */
static cl_status vector_up(cl_dda_solver *s, int k, const double *v, cl_error *err) {
  size_t n = s->A.n;
  double *w = staging(s, 6 * n * sizeof *w);
  if (!w) return oom(err);
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 6; c++) w[c * n + i] = v[6 * i + c];
  return to_device(s, s->buf[k], w, 6 * n * sizeof *w, err);
}

static cl_status vector_down(cl_dda_solver *s, int k, double *v, cl_error *err) {
  size_t n = s->A.n;
  double *w = staging(s, 6 * n * sizeof *w);
  if (!w) return oom(err);
  CL_TRY(to_host(s, w, s->buf[k], 6 * n * sizeof *w, err));
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 6; c++) v[6 * i + c] = w[c * n + i];
  return CL_OK;
}

static cl_status product(cl_dda_solver *s, int parts, int in, int out, cl_error *err) {
  s->A.parts = parts, s->A.in = s->buf[in], s->A.out = s->buf[out];
  return run(s, CL_DDA_OP_SPMV, err);
}

cl_status cl_dda_solver_solution(cl_dda_solver *s, double *x, cl_error *err) {
  return s->A.n ? vector_down(s, B_X, x, err) : CL_OK;
}

cl_status cl_dda_solver_solution_to(cl_dda_solver *s, void *x_out, cl_error *err) {
  size_t bytes = 6 * s->A.n * sizeof(double);
  return bytes ? copy(s, x_out, s->buf[B_X], bytes, err) : CL_OK;
}

cl_status cl_dda_solver_spmv(cl_dda_solver *s, const double *x, double *y, cl_error *err) {
  if (s->A.n == 0) return CL_OK;
  CL_TRY(vector_up(s, B_P, x, err));
  CL_TRY(product(s, CL_DDA_WHOLE, B_P, B_Q, err));
  return vector_down(s, B_Q, y, err);
}

static cl_status block_solve(cl_dda_solver *s, int in, int out, cl_error *err) {
  s->A.in = s->buf[in], s->A.out = s->buf[out];
  return run(s, CL_DDA_OP_BLOCK_SOLVE, err);
}

/* z = M^-1 r. Block Jacobi: M = D. SSOR approximate inverse (Helfenstein & Koko, the paper's
 * SSOR-AI): with A = L + D + L^T, M^-1 = (I - D^-1 L^T) D^-1 (I - L D^-1), the first terms of
 * the Neumann series of SSOR's inverse; symmetric positive definite, and applied with two triangle
 * products and three diagonal solves (t: a work vector). */
static cl_status precondition(cl_dda_solver *s, cl_dda_preconditioner kind, cl_error *err) {
  if (kind == CL_DDA_BLOCK_JACOBI) return block_solve(s, B_R, B_Z, err);
  CL_TRY(block_solve(s, B_R, B_T, err));                /* t = D^-1 r */
  CL_TRY(product(s, CL_DDA_LOWER, B_T, B_Z, err));      /* z = L D^-1 r */
  s->A.in = s->buf[B_R], s->A.out = s->buf[B_Z];
  CL_TRY(run(s, CL_DDA_OP_SUBTRACT, err));              /* z = (I - L D^-1) r */
  CL_TRY(block_solve(s, B_Z, B_T, err));                /* t = D^-1 z */
  CL_TRY(product(s, CL_DDA_UPPER, B_T, B_Z, err));      /* z = L^T t */
  return run(s, CL_DDA_OP_SSOR_FINISH, err);            /* z = t - D^-1 L^T t */
}

/* The pipelined PCG's check of a solve stopped on the recurrence's residual (pcg_scalars.h): q = A x,
 * r = b - q and u = D^-1 r with the true r.r, and where it does not pass the recurrences' new start
 * from x, w = A u and m = D^-1 w (the restart's scalar step does nothing where the check passed):
 * 6 launches, two products. */
static cl_status pipelined_check(cl_dda_solver *s, cl_error *err) {
  CL_TRY(product(s, CL_DDA_WHOLE, B_X, B_Q, err));
  CL_TRY(run(s, CL_DDA_OP_PIPE_CHECK, err));
  CL_TRY(product(s, CL_DDA_WHOLE, B_U, B_W, err));
  return run(s, CL_DDA_OP_PIPE_RESTART, err);
}

/* One PCG iteration, a fixed sequence of launches that reads and writes its scalars on the device
 * (pcg_scalars.h) and does nothing once the solve has stopped: block Jacobi 6 launches (the update,
 * the block solve and the sums of r.z and r.r fused), SSOR-AI 13; the pipelined PCG 3 (n = A m, then
 * the row updates with m = D^-1 w and the sums of r.u, w.u and r.r fused, pcg_ops.h). */
static cl_status iteration(cl_dda_solver *s, cl_dda_preconditioner kind, cl_error *err) {
  if (s->A.pipelined) {
    CL_TRY(product(s, CL_DDA_WHOLE, B_M, B_T, err)); /* n = A m */
    return run(s, CL_DDA_OP_PIPE_STEP, err);         /* the updates, m, alpha, beta; stop? */
  }
  CL_TRY(product(s, CL_DDA_WHOLE, B_P, B_Q, err)); /* q = A p */
  CL_TRY(run(s, CL_DDA_OP_ALPHA, err));             /* alpha = r.z / p.q */
  if (kind == CL_DDA_BLOCK_JACOBI) {
    CL_TRY(run(s, CL_DDA_OP_STEP_JACOBI, err));     /* the three below in one pass */
  } else {
    CL_TRY(run(s, CL_DDA_OP_STEP, err));            /* x += alpha p, r -= alpha q */
    CL_TRY(precondition(s, kind, err));             /* z = M^-1 r */
    CL_TRY(run(s, CL_DDA_OP_BETA, err));            /* beta = r.z / the last r.z; stop? */
  }
  return run(s, CL_DDA_OP_DIRECTION, err);          /* p = z + beta p */
}

/* The solve on the device from its b and x, its scalars into sc. Where the device runs it as one
 * launch (s->persistent; pcg_persistent_cuda.cu) the host waits for it once; else the operations
 * are launched one by one and the host waits for the scalars once before the first iteration (a
 * warm start may need none) and then once every check_every iterations: a solve of k iterations
 * waits 1 + ceil(k / check_every) times and launches at most check_every - 1 idle iterations past
 * its stop, which change nothing. With rule, the open-close rule follows a converged solve before
 * the host's last look: in the same launch where the solve is one. */
static cl_status device_solve(cl_dda_solver *s, cl_dda_preconditioner kind, int rule, double *sc, cl_error *err) {
  const size_t bytes = CL_DDA_SCALARS * sizeof *sc;
  int ran = 0;
  s->A.persistent_blocks = s->persistent_blocks;
  s->A.m = s->buf[B_M], s->A.mnext = s->buf[B_M2]; /* the persistent solve's two m buffers */
  if (s->persistent) CL_TRY(cl_k_dda_pcg_persistent(s->dev, CL_F64, &s->A, (int)kind, rule, &ran, err));
  if (ran) {
    s->launches++, s->check_pending = 0;
    return to_host(s, sc, s->A.scal, bytes, err);
  }
  if (s->check_pending) CL_TRY(check_factors(s, 0, err)); /* no cooperative launch: as the assembly would */
  s->check_pending = 0;
  CL_TRY(run(s, CL_DDA_OP_DOT_BB, err));
  CL_TRY(product(s, CL_DDA_WHOLE, B_X, B_Q, err));
  CL_TRY(run(s, CL_DDA_OP_RESIDUAL, err)); /* r = b - A x */
  if (s->A.pipelined) { /* u = D^-1 r, w = A u (the start's one more product), m = D^-1 w */
    s->A.mnext = s->A.m; /* each pass reads its row's m before writing it */
    CL_TRY(block_solve(s, B_R, B_U, err));
    CL_TRY(product(s, CL_DDA_WHOLE, B_U, B_W, err));
    CL_TRY(run(s, CL_DDA_OP_PIPE_BEGIN, err));
  } else {
    CL_TRY(precondition(s, kind, err));
    CL_TRY(copy(s, s->buf[B_P], s->buf[B_Z], 6 * s->A.n * sizeof(double), err));
    CL_TRY(run(s, CL_DDA_OP_BEGIN, err));
  }
  const int every = s->check_every > 0 ? s->check_every : 1;
  for (;;) {
    CL_TRY(to_host(s, sc, s->A.scal, bytes, err));
    if (s->A.pipelined && cl_dda_pcg_to_check(sc)) {
      CL_TRY(pipelined_check(s, err));
      continue;
    }
    if (sc[CL_DDA_S_STATE] != CL_DDA_PCG_RUNNING) break;
    for (int k = 0; k < every; k++) CL_TRY(iteration(s, kind, err));
  }
  if (!rule || !cl_dda_pcg_converged(sc)) return CL_OK;
  CL_TRY(run(s, CL_DDA_OP_OPEN_CLOSE, err));
  return to_host(s, sc, s->A.scal, bytes, err);
}

/* cl_dda_pcg and cl_dda_solver_solve_open_close: the uploads, the solve (and the rule), the result. */
static cl_status solve(cl_dda_solver *s, const double *b, const double *x0, double *x, cl_dda_preconditioner kind,
                       double tol, double update_energy, int max_iterations, int rule, cl_dda_pcg_result *res,
                       int *changed, int *unsettled, cl_error *err) {
  size_t m = 6 * s->A.n;
  res->iterations = 0, res->converged = 1, res->residual = 0, res->initial_residual = 0;
  if (rule) *changed = *unsettled = 0;
  if (s->pipelined && kind != CL_DDA_BLOCK_JACOBI)
    return cl_error_set(err, CL_ERR_ARG, "DDA solver: the pipelined PCG runs with block Jacobi only (SSOR-AI's M^-1 "
                        "is two triangle products, not local to a block row): use the standard PCG with SSOR-AI");
  if (m == 0) return CL_OK;
  s->A.tol = tol, s->A.update_energy = update_energy, s->A.max_iterations = max_iterations;
  s->A.pipelined = s->pipelined;
  if (b) CL_TRY(vector_up(s, B_B, b, err));
  if (x0) CL_TRY(vector_up(s, B_X, x0, err));
  double sc[CL_DDA_SCALARS];
  CL_TRY(device_solve(s, kind, rule, sc, err));
  if (sc[CL_DDA_S_STATE] == CL_DDA_PCG_NOT_FACTORED) return not_positive_definite(s, err);
  if (sc[CL_DDA_S_STATE] == CL_DDA_PCG_ZERO_RHS) { /* x = 0, and the next warm start from it */
    s->launches++;
    CL_TRY(cl_k_fill(s->dev, CL_F64, s->buf[B_X], m, 0, err));
    if (x) memset(x, 0, m * sizeof *x);
    if (rule) CL_TRY(cl_dda_solver_open_close(s, changed, unsettled, err));
    return CL_OK;
  }
  const double bnorm = sqrt(sc[CL_DDA_S_BB]);
  res->iterations = (int)sc[CL_DDA_S_ITERATIONS];
  res->initial_residual = sqrt(sc[CL_DDA_S_RR0]) / bnorm;
  res->residual = sqrt(sc[CL_DDA_S_RR]) / bnorm;
  res->converged = cl_dda_pcg_converged(sc);
  if (rule && res->converged) {
    *changed = (int)sc[CL_DDA_S_CHANGED], *unsettled = (int)sc[CL_DDA_S_UNSETTLED];
    listed(s, *changed);
  }
  return x ? vector_down(s, B_X, x, err) : CL_OK;
}

cl_status cl_dda_pcg(cl_dda_solver *s, const double *b, const double *x0, double *x, cl_dda_preconditioner kind,
                     double tol, double update_energy, int max_iterations, cl_dda_pcg_result *res, cl_error *err) {
  return solve(s, b, x0, x, kind, tol, update_energy, max_iterations, 0, res, NULL, NULL, err);
}

cl_status cl_dda_solver_solve_open_close(cl_dda_solver *s, const double *x0, cl_dda_preconditioner kind, double tol,
                                         double update_energy, int max_iterations, cl_dda_pcg_result *res,
                                         int *changed, int *unsettled, cl_error *err) {
  return solve(s, NULL, x0, NULL, kind, tol, update_energy, max_iterations, 1, res, changed, unsettled, err);
}
