/* Recursive coordinate bisection and halo plans (partition.h). */
#include <stdlib.h>
#include <string.h>

#include "partition.h"

/* qsort has no context argument: the axis and coordinates being sorted on (set-up only, one
 * thread: the partition runs before any model exists) */
static const double *sort_x;
static size_t sort_n;
static int sort_axis;

static int by_coordinate(const void *a, const void *b) {
  uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
  double xi = sort_x[(size_t)sort_axis * sort_n + i], xj = sort_x[(size_t)sort_axis * sort_n + j];
  if (xi != xj) return xi < xj ? -1 : 1;
  return (i > j) - (i < j);
}

static cl_status bisect(uint32_t *idx, size_t count, int dim, const double *x, size_t n, const double *w,
                        int first, int parts, int *owner, cl_error *err) {
  if (parts == 1) {
    for (size_t k = 0; k < count; k++) owner[idx[k]] = first;
    return CL_OK;
  }
  if (count < (size_t)parts)
    return cl_error_set(err, CL_ERR_ARG, "%d ranks for %zu points: a rank would own no point; use fewer ranks "
                        "(mpirun -np) or a finer dx", parts, count);
  int axis = 0;
  double longest = -1;
  for (int c = 0; c < dim; c++) {
    double lo = x[(size_t)c * n + idx[0]], hi = lo;
    for (size_t k = 1; k < count; k++) {
      double v = x[(size_t)c * n + idx[k]];
      lo = v < lo ? v : lo, hi = v > hi ? v : hi;
    }
    if (hi - lo > longest) longest = hi - lo, axis = c;
  }
  sort_x = x, sort_n = n, sort_axis = axis;
  qsort(idx, count, sizeof *idx, by_coordinate);
  int left = parts / 2;
  double total = 0;
  for (size_t k = 0; k < count; k++) total += w ? w[idx[k]] : 1;
  /* the cut where the running weight comes nearest the left parts' share, each side keeping
   * at least as many points as it has parts */
  double target = total * left / parts, sum = 0, best = -1;
  size_t cut = (size_t)left;
  for (size_t k = 0; k < count; k++) {
    sum += w ? w[idx[k]] : 1;
    size_t m = k + 1;
    if (m < (size_t)left || count - m < (size_t)(parts - left)) continue;
    double miss = sum > target ? sum - target : target - sum;
    if (best < 0 || miss < best) best = miss, cut = m;
  }
  CL_TRY(bisect(idx, cut, dim, x, n, w, first, left, owner, err));
  return bisect(idx + cut, count - cut, dim, x, n, w, first + left, parts - left, owner, err);
}

cl_status cl_partition_rcb(size_t n, int dim, const double *x, const double *w, int parts, int *owner,
                           cl_error *err) {
  if (parts < 1 || dim < 1 || dim > 3) return cl_error_set(err, CL_ERR_ARG, "cl_partition_rcb: %d parts of %dD points", parts, dim);
  if (n > UINT32_MAX) return cl_error_set(err, CL_ERR_ARG, "cl_partition_rcb: %zu points (at most 2^32 - 1)", n);
  uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (!idx) return cl_error_set(err, CL_ERR_OOM, "cl_partition_rcb: no memory for %zu indices", n);
  for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
  cl_status st = bisect(idx, n, dim, x, n, w, 0, parts, owner, err);
  free(idx);
  return st;
}

/* Distance squared from point i to a box (lo, hi per axis; 0 inside). */
static double box_distance2(const double *x, size_t n, int dim, size_t i, const double *lo, const double *hi) {
  double d2 = 0;
  for (int c = 0; c < dim; c++) {
    double v = x[(size_t)c * n + i], d = v < lo[c] ? lo[c] - v : v > hi[c] ? v - hi[c] : 0;
    d2 += d * d;
  }
  return d2;
}

void cl_halo_plan_free(cl_halo_plan *plan) {
  free(plan->global), free(plan->send_rows), free(plan->peers);
  memset(plan, 0, sizeof *plan);
}

cl_status cl_halo_plan_peers(cl_halo_plan *plan, int parts, const size_t *recv, const size_t *send, const char *who,
                             cl_error *err) {
  size_t ghosts = 0;
  for (int q = 0; q < parts; q++) {
    ghosts += recv[q], plan->nsend += send[q];
    if (recv[q] || send[q]) plan->npeers++;
  }
  plan->local = plan->owned + ghosts;
  if (plan->local > CL_HALO_LOCAL_MAX)
    return cl_error_set(err, CL_ERR_ARG, "%s: rank %d would hold %zu points (%zu owned + %zu ghosts) but a rank holds at "
                        "most 2^32 - 1 (its local rows are 32-bit): use more ranks (mpirun -np) or a larger dx",
                        who, plan->rank, plan->local, plan->owned, ghosts);
  plan->global = malloc((plan->local ? plan->local : 1) * sizeof *plan->global);
  plan->send_rows = malloc((plan->nsend ? plan->nsend : 1) * sizeof *plan->send_rows);
  plan->peers = calloc(plan->npeers ? (size_t)plan->npeers : 1, sizeof *plan->peers);
  if (!plan->global || !plan->send_rows || !plan->peers)
    return cl_error_set(err, CL_ERR_OOM, "%s: no memory for %zu local points", who, plan->local);
  size_t roff = 0, soff = 0;
  int k = 0;
  for (int q = 0; q < parts; q++) {
    if (!recv[q] && !send[q]) continue;
    cl_halo_peer *peer = &plan->peers[k++];
    peer->rank = q, peer->recv_offset = roff, peer->recv_count = recv[q];
    peer->send_offset = soff, peer->send_count = send[q];
    roff += recv[q], soff += send[q];
  }
  return CL_OK;
}

void cl_halo_plan_positions(const cl_halo_plan *plan, size_t *recv_at, size_t *send_at) {
  for (int k = 0; k < plan->npeers; k++) {
    const cl_halo_peer *peer = &plan->peers[k];
    recv_at[peer->rank] = plan->owned + peer->recv_offset, send_at[peer->rank] = peer->send_offset;
  }
}

cl_status cl_halo_plan_make(size_t n, int dim, const double *x, const int *owner, int parts, int rank,
                            double reach, cl_halo_plan *plan, cl_error *err) {
  memset(plan, 0, sizeof *plan);
  plan->rank = rank, plan->parts = parts, plan->points = n;
  double *lo = malloc((size_t)parts * 3 * sizeof *lo), *hi = malloc((size_t)parts * 3 * sizeof *hi);
  size_t *recv = calloc((size_t)parts, sizeof *recv), *send = calloc((size_t)parts, sizeof *send);
  uint32_t *local_of = malloc((n ? n : 1) * sizeof *local_of); /* global -> local row of an owned point */
  if (!lo || !hi || !recv || !send || !local_of) {
    free(lo), free(hi), free(recv), free(send), free(local_of);
    return cl_error_set(err, CL_ERR_OOM, "cl_halo_plan_make: no memory for %d parts", parts);
  }
  for (int p = 0; p < parts; p++)
    for (int c = 0; c < 3; c++) lo[p * 3 + c] = 1e300, hi[p * 3 + c] = -1e300;
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < dim; c++) {
      double v = x[(size_t)c * n + i];
      int p = owner[i];
      if (v < lo[p * 3 + c]) lo[p * 3 + c] = v;
      if (v > hi[p * 3 + c]) hi[p * 3 + c] = v;
    }
  double r2 = reach * reach;
  /* count: owned points, ghosts from each rank, and points sent to each rank */
  for (size_t i = 0; i < n; i++) {
    int p = owner[i];
    if (p == rank) {
      local_of[i] = (uint32_t)plan->owned++;
      for (int q = 0; q < parts; q++)
        if (q != rank && box_distance2(x, n, dim, i, lo + q * 3, hi + q * 3) <= r2) send[q]++;
    } else if (box_distance2(x, n, dim, i, lo + rank * 3, hi + rank * 3) <= r2) {
      recv[p]++;
    }
  }
  cl_status st = cl_halo_plan_peers(plan, parts, recv, send, "cl_halo_plan_make", err);
  if (st == CL_OK) {
    size_t *recv_at = recv, *send_at = send; /* counts become running positions */
    cl_halo_plan_positions(plan, recv_at, send_at);
    size_t mine = 0;
    for (size_t i = 0; i < n; i++) {
      int p = owner[i];
      if (p == rank) {
        plan->global[mine++] = i;
        for (int q = 0; q < parts; q++)
          if (q != rank && box_distance2(x, n, dim, i, lo + q * 3, hi + q * 3) <= r2) plan->send_rows[send_at[q]++] = local_of[i];
      } else if (box_distance2(x, n, dim, i, lo + rank * 3, hi + rank * 3) <= r2) {
        plan->global[recv_at[p]++] = i;
      }
    }
  }
  free(lo), free(hi), free(recv), free(send), free(local_of);
  if (st == CL_OK) st = cl_halo_plan_interior_first(plan, NULL, err);
  if (st != CL_OK) cl_halo_plan_free(plan);
  return st;
}

cl_status cl_halo_plan_interior_first(cl_halo_plan *plan, uint32_t **to_new, cl_error *err) {
  size_t owned = plan->owned;
  uint32_t *map = calloc(owned ? owned : 1, sizeof *map);
  uint64_t *global = malloc((owned ? owned : 1) * sizeof *global);
  if (!map || !global) {
    free(map), free(global);
    return cl_error_set(err, CL_ERR_OOM, "cl_halo_plan_interior_first: no memory for %zu rows", owned);
  }
  for (size_t k = 0; k < plan->nsend; k++) map[plan->send_rows[k]] = 1; /* sent */
  size_t interior = 0;
  for (size_t i = 0; i < owned; i++) interior += !map[i];
  size_t inner = 0, outer = interior;
  for (size_t i = 0; i < owned; i++) map[i] = (uint32_t)(map[i] ? outer++ : inner++);
  for (size_t i = 0; i < owned; i++) global[map[i]] = plan->global[i];
  memcpy(plan->global, global, owned * sizeof *global);
  for (size_t k = 0; k < plan->nsend; k++) plan->send_rows[k] = map[plan->send_rows[k]];
  plan->interior = interior;
  free(global);
  if (to_new) *to_new = map;
  else free(map);
  return CL_OK;
}
