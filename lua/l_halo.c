/* cleave.stage.halo and the rows of a partitioned body: the halo plan's Lua face (cleave.halo_plan,
 * made by the partition bindings of l_partition.c), cl.comm.gather_rows / take_rows between a
 * rank's rows and the whole body's, and the stage that refreshes a field's ghost rows from their
 * owners. The stage packs the rows each peer needs on the device (a gather), copies them to host
 * buffers, exchanges them through MPI (runtime/comm.h) and copies what arrives into the ghost rows.
 * Debian's Open MPI is not CUDA-aware, hence the host buffers; between GPUs NCCL replaces the three
 * middle steps (runtime/halo_nccl.c). */
#include <stdlib.h>
#include <string.h>

#include "../kernels/pd/neighbors.h"
#include "../runtime/comm.h"
#include "../runtime/halo_nccl.h"
#include "../runtime/progress.h"
#include "l_halo.h"

#define PLAN_MT "cleave.halo_plan"
#define HALO_STAGE_MT "cleave.stage.halo"

static cl_lua_plan *check_plan(lua_State *L, int idx) { return luaL_checkudata(L, idx, PLAN_MT); }

static int plan_gc(lua_State *L) {
  cl_halo_plan_free(&check_plan(L, 1)->plan);
  return 0;
}

cl_lua_plan *cl_lua_plan_new(lua_State *L) {
  cl_lua_plan *p = lua_newuserdatauv(L, sizeof *p, 1);
  memset(p, 0, sizeof *p);
  luaL_setmetatable(L, PLAN_MT);
  return p;
}

void cl_lua_plan_finish(lua_State *L, int idx, cl_device_ref *device) {
  idx = lua_absindex(L, idx);
  cl_lua_plan *p = check_plan(L, idx);
  cl_error err;
  if (cl_field_create(device, CL_U32, p->plan.nsend ? p->plan.nsend : 1, 1, &p->send_rows, &err) != CL_OK)
    cl_lua_fail(L, &err);
  cl_lua_push_field(L, p->send_rows);
  if (p->plan.nsend && cl_field_upload(p->send_rows, p->plan.send_rows, &err) != CL_OK) cl_lua_fail(L, &err);
  lua_setiuservalue(L, idx, 1);
}

/* plan.owned, plan.interior (owned rows first that read no ghost), plan.n (owned + ghosts), plan.ghosts, plan.rank, plan.parts, plan.sent (rows sent per
 * exchange), plan.points (all ranks' points), plan.global (u32 field, new at each read; bodies below 2^32
 * points), plan.peers ({ rank, receive, send }...) */
static int plan_index(lua_State *L) {
  cl_lua_plan *p = check_plan(L, 1);
  const cl_halo_plan *h = &p->plan;
  const char *key = luaL_checkstring(L, 2);
  if (strcmp(key, "owned") == 0) lua_pushinteger(L, (lua_Integer)h->owned);
  else if (strcmp(key, "n") == 0) lua_pushinteger(L, (lua_Integer)h->local);
  else if (strcmp(key, "interior") == 0) lua_pushinteger(L, (lua_Integer)h->interior);
  else if (strcmp(key, "ghosts") == 0) lua_pushinteger(L, (lua_Integer)(h->local - h->owned));
  else if (strcmp(key, "rank") == 0) lua_pushinteger(L, h->rank);
  else if (strcmp(key, "parts") == 0) lua_pushinteger(L, h->parts);
  else if (strcmp(key, "sent") == 0) lua_pushinteger(L, (lua_Integer)h->nsend);
  else if (strcmp(key, "points") == 0) lua_pushinteger(L, (lua_Integer)h->points);
  else if (strcmp(key, "global") == 0) {
    /* fields have no 64-bit integer type: u32 while the body's indices fit (cl.comm.take_rows and
     * gather_rows work with the plan's 64-bit indices at any size) */
    if (h->points > UINT32_MAX)
      return luaL_error(L, "plan.global: the body's %I points have global indices above 2^32 - 1, which a u32 field "
                        "cannot hold: use cl.comm.take_rows / gather_rows with the plan", (LUAI_UACINT)h->points);
    cl_field *f;
    cl_error err;
    if (cl_field_create(p->send_rows->device, CL_U32, h->local, 1, &f, &err) != CL_OK) return cl_lua_fail(L, &err);
    cl_lua_push_field(L, f);
    uint32_t *ids = lua_newuserdatauv(L, (h->local ? h->local : 1) * sizeof *ids, 0);
    for (size_t i = 0; i < h->local; i++) ids[i] = (uint32_t)h->global[i];
    if (h->local && cl_field_upload(f, ids, &err) != CL_OK) return cl_lua_fail(L, &err);
    lua_pop(L, 1);
  } else if (strcmp(key, "peers") == 0) {
    lua_createtable(L, h->npeers, 0);
    for (int k = 0; k < h->npeers; k++) {
      lua_createtable(L, 0, 3);
      lua_pushinteger(L, h->peers[k].rank), lua_setfield(L, -2, "rank");
      lua_pushinteger(L, (lua_Integer)h->peers[k].recv_count), lua_setfield(L, -2, "receive");
      lua_pushinteger(L, (lua_Integer)h->peers[k].send_count), lua_setfield(L, -2, "send");
      lua_rawseti(L, -2, k + 1);
    }
  } else return luaL_error(L, "halo plan has no field '%s' (owned, interior, n, ghosts, points, rank, parts, sent, global, peers)", key);
  return 1;
}

static int plan_tostring(lua_State *L) {
  const cl_halo_plan *h = &check_plan(L, 1)->plan;
  lua_pushfstring(L, "halo_plan<rank %d of %d: %I owned, %I ghosts, %d peers>", h->rank, h->parts,
                  (LUAI_UACINT)h->owned, (LUAI_UACINT)(h->local - h->owned), h->npeers);
  return 1;
}

/* ---- gathering a body's rows to rank 0 ---------------------------------------- */

/* cl.comm.gather_rows(field, plan [, k]) -> on rank 0 a new field of every point of the partition
 * (plan's global rows) x k, each row from the rank owning it; nil on the others. The field holds a
 * row per local point, read as local points x k entries (k defaults to its components: a state of
 * k words per point stored as one column is read as k per point). Every rank must call it. */
static int gather_rows(lua_State *L) {
  const char *fn = "cleave.comm.gather_rows";
  cl_field *f = cl_lua_check_field(L, 1);
  cl_lua_plan *p = check_plan(L, 2);
  const cl_halo_plan *h = &p->plan;
  lua_Integer k = luaL_optinteger(L, 3, f->k);
  size_t entries = f->n * (size_t)f->k;
  if (k < 1 || entries % (size_t)k || entries / (size_t)k != h->local)
    return luaL_error(L, "%s: the field has %I entries, not %I local points x %I", fn, (LUAI_UACINT)entries,
                      (LUAI_UACINT)h->local, (LUAI_UACINT)k);
  size_t elem = cl_dtype_size(f->dtype), owned = h->owned, row = (size_t)k * elem;
  const char *host;
  cl_error err;
  if (cl_field_host(f, (const void **)&host, &err) != CL_OK) return cl_lua_fail(L, &err);
  char *send = lua_newuserdatauv(L, owned * row + 1, 0);
  for (lua_Integer c = 0; c < k; c++) memcpy(send + (size_t)c * owned * elem, host + (size_t)c * h->local * elem, owned * elem);
  int size = cl_comm_size(), rank = cl_comm_rank();
  double mine = (double)owned, *rows = lua_newuserdatauv(L, (size_t)size * sizeof *rows, 0);
  if (cl_comm_gather(&mine, 1, rows, 0, &err) != CL_OK) return cl_lua_fail(L, &err);
  size_t *id_bytes = NULL, *value_bytes = NULL;
  uint64_t *ids = NULL;
  char *values = NULL;
  if (rank == 0) {
    id_bytes = lua_newuserdatauv(L, 2 * (size_t)size * sizeof *id_bytes, 0), value_bytes = id_bytes + size;
    for (int r = 0; r < size; r++) id_bytes[r] = (size_t)rows[r] * sizeof *ids, value_bytes[r] = (size_t)rows[r] * row;
    ids = lua_newuserdatauv(L, h->points * sizeof *ids + 1, 0);
    values = lua_newuserdatauv(L, h->points * row + 1, 0);
  }
  if (cl_comm_gatherv(h->global, owned * sizeof *ids, ids, id_bytes, 0, &err) != CL_OK ||
      cl_comm_gatherv(send, owned * row, values, value_bytes, 0, &err) != CL_OK)
    return cl_lua_fail(L, &err);
  if (rank != 0) return 0;
  char *out = lua_newuserdatauv(L, h->points * row + 1, 0);
  size_t at = 0; /* rows of the ranks before r */
  for (int r = 0; r < size; r++) {
    size_t n = (size_t)rows[r];
    const char *from = values + at * row;
    for (size_t i = 0; i < n; i++)
      for (lua_Integer c = 0; c < k; c++)
        memcpy(out + ((size_t)c * h->points + ids[at + i]) * elem, from + ((size_t)c * n + i) * elem, elem);
    at += n;
  }
  cl_field *g;
  if (cl_field_create(f->device, f->dtype, h->points, (int)k, &g, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, g);
  if (h->points && cl_field_upload(g, out, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

/* cl.comm.take_rows(field, plan [, k]) -> new field of the plan's local rows x k, local row i from row
 * global[i] of a field of the whole body (plan.points rows, read as points x k entries as
 * gather_rows writes them: a checkpoint's arrays). No communication: the reverse of gather_rows. */
static int take_rows(lua_State *L) {
  const char *fn = "cleave.comm.take_rows";
  cl_field *f = cl_lua_check_field(L, 1);
  const cl_halo_plan *h = &check_plan(L, 2)->plan;
  lua_Integer k = luaL_optinteger(L, 3, f->k);
  size_t entries = f->n * (size_t)f->k;
  if (k < 1 || entries % (size_t)k || entries / (size_t)k != h->points)
    return luaL_error(L, "%s: the field has %I entries, not the body's %I points x %I", fn, (LUAI_UACINT)entries,
                      (LUAI_UACINT)h->points, (LUAI_UACINT)k);
  size_t elem = cl_dtype_size(f->dtype);
  const char *host;
  cl_error err;
  if (cl_field_host(f, (const void **)&host, &err) != CL_OK) return cl_lua_fail(L, &err);
  char *out = lua_newuserdatauv(L, h->local * (size_t)k * elem + 1, 0);
  for (lua_Integer c = 0; c < k; c++)
    for (size_t i = 0; i < h->local; i++)
      memcpy(out + ((size_t)c * h->local + i) * elem, host + ((size_t)c * h->points + h->global[i]) * elem, elem);
  cl_field *g;
  if (cl_field_create(f->device, f->dtype, h->local, (int)k, &g, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, g);
  if (h->local && cl_field_upload(g, out, &err) != CL_OK) return cl_lua_fail(L, &err);
  return 1;
}

/* ---- the stage ------------------------------------------------------------- */

typedef struct halo_stage {
  cl_stage stage;
  cl_field *field;
  cl_lua_plan *plan;
  cl_field *packed;          /* the rows to send, peer by peer, each peer's k components in turn */
  cl_field *arrived;         /* NCCL: the rows received, on the device (the layout of `in`) */
  int nccl;                  /* the exchange goes GPU to GPU through NCCL, else through MPI and `out`, `in` */
  unsigned char *out, *in;   /* host buffers of what is sent and received (same layout): pinned on cuda */
  void **send, **recv;       /* per peer: pointers into out and in */
  size_t *send_bytes, *recv_bytes;
  int *peers;
  cl_comm_pending *pending;  /* MPI: the exchange started and not yet finished */
} halo_stage;

/* The halo in two halves (halo_start, halo_finish), so that the rows that read no ghost can be
 * computed in between: the first gathers and sends (MPI: posts the messages and returns; NCCL:
 * queues the exchange on its own stream), the second waits (MPI: on the host; NCCL: the kernels'
 * stream waits for NCCL's) and fills the ghost rows. */
static cl_status halo_start(void *data, long step, double t, cl_error *err) {
  halo_stage *s = data;
  (void)step, (void)t;
  const cl_halo_plan *h = &s->plan->plan;
  cl_field *f = s->field;
  cl_device *d = &f->device->dev;
  size_t elem = cl_dtype_size(f->dtype), k = (size_t)f->k;
  char *packed = s->packed->data;
  const uint32_t *rows = s->plan->send_rows->data;
  for (int p = 0; p < h->npeers; p++) {
    const cl_halo_peer *peer = &h->peers[p];
    if (peer->send_count)
      CL_TRY(cl_pd_gather_rows_trusted(d, f->dtype, f->n, peer->send_count, f->k, f->data, rows + peer->send_offset,
                                       packed + peer->send_offset * k * elem, err)); /* rows < owned: the plan's */
  }
  if (s->nccl) return cl_nccl_exchange_start(h->npeers, s->peers, s->send, s->send_bytes, s->recv, s->recv_bytes, err);
  if (h->nsend) CL_TRY(d->to_host(d, s->out, packed, h->nsend * k * elem, err));
  if (s->pending) return cl_error_set(err, CL_ERR_ARG, "halo: started twice without halo_finish in between");
  return cl_comm_exchange_start(h->npeers, s->peers, s->send, s->send_bytes, s->recv, s->recv_bytes, &s->pending, err);
}

static cl_status halo_finish(void *data, long step, double t, cl_error *err) {
  halo_stage *s = data;
  (void)step, (void)t;
  const cl_halo_plan *h = &s->plan->plan;
  cl_field *f = s->field;
  cl_device *d = &f->device->dev;
  size_t elem = cl_dtype_size(f->dtype), k = (size_t)f->k;
  CL_TRY(s->nccl ? cl_nccl_exchange_finish(err) : cl_comm_exchange_finish(&s->pending, err));
  /* a peer's rows land in the ghost block it owns: rows owned + recv_offset.., per component */
  for (int p = 0; p < h->npeers; p++) {
    const cl_halo_peer *peer = &h->peers[p];
    for (size_t c = 0; c < k && peer->recv_count; c++) {
      char *dst = (char *)f->data + (c * f->n + h->owned + peer->recv_offset) * elem;
      size_t at = (peer->recv_offset * k + c * peer->recv_count) * elem, bytes = peer->recv_count * elem;
      if (s->nccl) CL_TRY(d->copy(d, dst, (char *)s->arrived->data + at, bytes, err));
      else CL_TRY(d->to_device(d, dst, s->in + at, bytes, err));
    }
  }
  cl_field_touch(f);
  return CL_OK;
}

static cl_status run_halo(void *data, long step, double t, cl_error *err) {
  CL_TRY(halo_start(data, step, t, err));
  return halo_finish(data, step, t, err);
}

static int halo_gc(lua_State *L) {
  halo_stage *s = luaL_checkudata(L, 1, HALO_STAGE_MT);
  cl_error ignored;
  cl_comm_exchange_finish(&s->pending, &ignored); /* no message left in flight into freed buffers */
  if (s->field) {
    cl_device *d = &s->field->device->dev; /* the field, kept by the stage's arguments, outlives it */
    d->host_release(d, s->out), d->host_release(d, s->in);
  }
  s->out = s->in = NULL;
  return 0;
}

static void *stage_buffer(lua_State *L, int stage, const char *name, size_t bytes) {
  void *b = lua_newuserdatauv(L, bytes ? bytes : 1, 0);
  lua_getiuservalue(L, stage, 1); /* the kept arguments: the buffer lives as long as the stage */
  lua_insert(L, -2);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
  return b;
}

static const char *const halo_args[] = {"field", "plan", "transport", NULL};

/* Whether the stage's exchange goes through NCCL (collective: every rank decides alike). "auto":
 * when the field is on a GPU and every rank has its own; "nccl": that or an error saying why. */
static int choose_nccl(lua_State *L, const char *fn, const char *transport, const cl_field *f) {
  int want = strcmp(transport, "nccl") == 0;
  if (!want && strcmp(transport, "auto") != 0) {
    if (strcmp(transport, "mpi") == 0) return 0;
    luaL_error(L, "%s: argument 'transport' must be \"auto\", \"mpi\" or \"nccl\", got \"%s\"", fn, transport);
  }
  if (want && f->device->dev.kind != CL_BACKEND_CUDA)
    luaL_error(L, "%s: transport = \"nccl\" moves GPU memory, but 'field' lives on %s: use cl.device \"cuda\" "
                  "or transport = \"mpi\"", fn, f->device->dev.name);
  if (cl_comm_size() == 1 || f->device->dev.kind != CL_BACKEND_CUDA) return 0; /* no exchange, or not on a GPU */
  cl_error why;
  if (cl_nccl_usable(cl_device_cuda_count(), &why)) return 1;
  if (want) luaL_error(L, "%s: transport = \"nccl\": %s", fn, why.msg);
  return 0;
}

/* cl.stage.halo{ field = f (a row per local point: plan.n rows), plan = cl.comm.partition{...},
 *   transport = "auto" | "mpi" | "nccl" }: copies each ghost row of f from the rank that owns the
 * point. Every rank runs it together. NCCL moves GPU memory directly ("auto": when the field is on
 * a GPU and every rank has its own); MPI goes through (pinned) host buffers. */
static int stage_halo(lua_State *L) {
  const char *fn = "cleave.stage.halo";
  cl_lua_check_args(L, 1, fn, halo_args);
  cl_field *f = cl_lua_req_field(L, 1, fn, "field");
  lua_getfield(L, 1, "plan");
  cl_lua_plan *plan = check_plan(L, -1);
  lua_pop(L, 1);
  const cl_halo_plan *h = &plan->plan;
  if (f->n != h->local)
    luaL_error(L, "%s: 'field' has %I rows, the plan %I local points (owned + ghosts): give a field of the "
                  "partitioned body", fn, (LUAI_UACINT)f->n, (LUAI_UACINT)h->local);
  if (!cl_device_same(&f->device->dev, &plan->send_rows->device->dev))
    luaL_error(L, "%s: 'field' lives on %s, the plan on %s", fn, f->device->dev.name, plan->send_rows->device->dev.name);
  int nccl = choose_nccl(L, fn, cl_lua_opt_string(L, 1, fn, "transport", "auto"), f);
  halo_stage *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, HALO_STAGE_MT);
  int stage = lua_gettop(L);
  cl_lua_stage_init(L, &s->stage, "halo", run_halo, s, &f->device->dev);
  s->field = f, s->plan = plan;
  size_t row = cl_dtype_size(f->dtype) * (size_t)f->k, ghosts = h->local - h->owned;
  cl_error err;
  if (cl_field_create(f->device, CL_U8, h->nsend > 0 ? h->nsend * row : 1, 1, &s->packed, &err) != CL_OK)
    cl_lua_fail(L, &err);
  cl_lua_push_field(L, s->packed);
  lua_getiuservalue(L, stage, 1);
  lua_insert(L, -2);
  lua_setfield(L, -2, "packed");
  lua_pop(L, 1);
  cl_device *d = &f->device->dev;
  s->nccl = nccl;
  if (nccl) { /* received on the device, then copied into the ghost rows */
    if (cl_field_create(f->device, CL_U8, ghosts > 0 ? ghosts * row : 1, 1, &s->arrived, &err) != CL_OK) cl_lua_fail(L, &err);
    cl_lua_push_field(L, s->arrived);
    lua_getiuservalue(L, stage, 1);
    lua_insert(L, -2);
    lua_setfield(L, -2, "arrived");
    lua_pop(L, 1);
  } else if (d->host_alloc(d, (void **)&s->out, h->nsend * row, &err) != CL_OK ||
             d->host_alloc(d, (void **)&s->in, ghosts * row, &err) != CL_OK) {
    cl_lua_fail(L, &err); /* __gc releases what was allocated */
  }
  unsigned char *out = nccl ? (unsigned char *)s->packed->data : s->out;
  unsigned char *in = nccl ? (unsigned char *)s->arrived->data : s->in;
  int np = h->npeers ? h->npeers : 1;
  s->send = stage_buffer(L, stage, "send", np * sizeof *s->send);
  s->recv = stage_buffer(L, stage, "recv", np * sizeof *s->recv);
  s->send_bytes = stage_buffer(L, stage, "send_bytes", np * sizeof *s->send_bytes);
  s->recv_bytes = stage_buffer(L, stage, "recv_bytes", np * sizeof *s->recv_bytes);
  s->peers = stage_buffer(L, stage, "peers", np * sizeof *s->peers);
  for (int p = 0; p < h->npeers; p++) {
    const cl_halo_peer *peer = &h->peers[p];
    s->peers[p] = peer->rank;
    s->send[p] = out + peer->send_offset * row, s->send_bytes[p] = peer->send_count * row;
    s->recv[p] = in + peer->recv_offset * row, s->recv_bytes[p] = peer->recv_count * row;
  }
  lua_settop(L, stage);
  return 1;
}

static const char *const bandwidth_args[] = {"bytes", "repeats", "transport", NULL};

/* cl.comm.bandwidth{ bytes = 2^26, repeats = 10, transport = "auto" | "mpi" | "nccl" } -> { seconds =,
 *   bandwidth = , transport = , partner = }: ranks 2p and 2p + 1 send each other `bytes` at once,
 * `repeats` times (after one exchange of warm-up); seconds per exchange and bytes per second in each
 * direction, this rank's (a rank without a partner: nil). NCCL moves buffers of the current GPU
 * ("auto": when it is one and every rank has its own), MPI host buffers. Every rank calls it. */
static int bandwidth(lua_State *L) {
  const char *fn = "cleave.comm.bandwidth";
  cl_lua_check_args(L, 1, fn, bandwidth_args);
  size_t bytes = (size_t)cl_lua_opt_integer_min(L, 1, fn, "bytes", (lua_Integer)1 << 26, 1);
  int repeats = (int)cl_lua_opt_integer_min(L, 1, fn, "repeats", 10, 1);
  const char *transport = cl_lua_opt_string(L, 1, fn, "transport", "auto");
  cl_runtime *rt = cl_lua_runtime(L);
  cl_field *buffers;
  cl_error err;
  if (cl_field_create(rt->device, CL_U8, bytes, 2, &buffers, &err) != CL_OK) return cl_lua_fail(L, &err);
  cl_lua_push_field(L, buffers); /* collected with the call's values */
  int nccl = choose_nccl(L, fn, transport, buffers);
  int rank = cl_comm_rank(), partner = rank ^ 1, has = partner < cl_comm_size();
  char *host = nccl ? NULL : lua_newuserdatauv(L, 2 * bytes, 0);
  char *base = nccl ? (char *)buffers->data : host;
  void *send = base, *recv = base + bytes;
  size_t count = bytes;
  double t0 = 0;
  for (int k = -1; k < repeats; k++) {
    if (k == 0) {
      if (cl_comm_barrier(&err) != CL_OK) return cl_lua_fail(L, &err);
      t0 = cl_monotonic_seconds();
    }
    cl_status st = nccl ? cl_nccl_exchange(has, &partner, &send, &count, &recv, &count, &err)
                        : cl_comm_exchange(has, &partner, &send, &count, &recv, &count, &err);
    if (st != CL_OK) return cl_lua_fail(L, &err);
  }
  double seconds = (cl_monotonic_seconds() - t0) / repeats;
  lua_createtable(L, 0, 4);
  lua_pushstring(L, nccl ? "nccl" : "mpi"), lua_setfield(L, -2, "transport");
  if (has) {
    lua_pushinteger(L, partner), lua_setfield(L, -2, "partner");
    lua_pushnumber(L, seconds), lua_setfield(L, -2, "seconds");
    lua_pushnumber(L, (double)bytes / seconds), lua_setfield(L, -2, "bandwidth");
  }
  return 1;
}

#define HALO_PART_MT "cleave.stage.halo_part"

static const char *const halo_part_args[] = {"halo", NULL};

static int halo_part(lua_State *L, const char *fn, const char *name, cl_status (*run)(void *, long, double, cl_error *)) {
  cl_lua_check_args(L, 1, fn, halo_part_args);
  lua_getfield(L, 1, "halo");
  halo_stage *h = luaL_testudata(L, -1, HALO_STAGE_MT);
  if (!h) luaL_error(L, "%s: 'halo' must be a stage of cl.stage.halo{...}", fn);
  lua_pop(L, 1);
  cl_stage *s = lua_newuserdatauv(L, sizeof *s, 1);
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, HALO_PART_MT);
  cl_lua_stage_init(L, s, name, run, h, h->stage.device); /* the kept arguments hold the halo stage */
  return 1;
}

/* cl.stage.halo_start{ halo = cl.stage.halo{...} } and cl.stage.halo_finish{ halo = }: the halo stage
 * in two halves, with work that reads no ghost row in between (MPI's messages travel meanwhile). Every
 * start is followed by its finish. */
static int stage_halo_start(lua_State *L) { return halo_part(L, "cleave.stage.halo_start", "halo_start", halo_start); }
static int stage_halo_finish(lua_State *L) { return halo_part(L, "cleave.stage.halo_finish", "halo_finish", halo_finish); }

/* Registers cl.comm's partitions (l_partition.c), gather_rows, take_rows and bandwidth, and
 * cl.stage.halo; the stack holds the module, then cl.comm. */
void cl_lua_open_halo(lua_State *L) {
  luaL_newmetatable(L, PLAN_MT);
  lua_pushcfunction(L, plan_gc), lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, plan_index), lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, plan_tostring), lua_setfield(L, -2, "__tostring");
  lua_pop(L, 1);
  cl_lua_stage_metatable(L, HALO_STAGE_MT);
  lua_pushcfunction(L, halo_gc), lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  cl_lua_open_partition(L);
  lua_pushcfunction(L, bandwidth);
  lua_setfield(L, -2, "bandwidth");
  lua_pushcfunction(L, gather_rows);
  lua_setfield(L, -2, "gather_rows");
  lua_pushcfunction(L, take_rows);
  lua_setfield(L, -2, "take_rows");
  cl_lua_stage_metatable(L, HALO_PART_MT);
  lua_pop(L, 1);
  lua_getfield(L, -2, "stage");
  lua_pushcfunction(L, stage_halo);
  lua_setfield(L, -2, "halo");
  lua_pushcfunction(L, stage_halo_start);
  lua_setfield(L, -2, "halo_start");
  lua_pushcfunction(L, stage_halo_finish);
  lua_setfield(L, -2, "halo_finish");
  lua_pop(L, 1);
}
