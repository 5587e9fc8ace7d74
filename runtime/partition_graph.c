/* The graph partition of a point cloud (partition.h, cl_partition_graph) through Debian's METIS when
 * the build found it (CLEAVE_HAVE_METIS), and the halo plan read off the bond graph
 * (cl_halo_plan_graph): a rank's ghosts are exactly the other ranks' bond neighbours of its points. */
#include <stdlib.h>
#include <string.h>

#ifdef CLEAVE_HAVE_METIS
#include <metis.h>
#endif

#include "partition.h"

int cl_partition_graph_available(void) {
#ifdef CLEAVE_HAVE_METIS
  return 1;
#else
  return 0;
#endif
}

cl_status cl_partition_graph(size_t n, const uint32_t *offsets, const uint32_t *neighbors, int parts, int *owner,
                             cl_error *err) {
  if (parts < 1) return cl_error_set(err, CL_ERR_ARG, "cl_partition_graph: %d parts", parts);
  if (n < (size_t)parts)
    return cl_error_set(err, CL_ERR_ARG, "%d ranks for %zu points: a rank would own no point; use fewer ranks "
                        "(mpirun -np) or a finer dx", parts, n);
  if (parts == 1) {
    memset(owner, 0, n * sizeof *owner);
    return CL_OK;
  }
#ifdef CLEAVE_HAVE_METIS
  if (n > (size_t)IDX_MAX || offsets[n] > (uint64_t)IDX_MAX)
    return cl_error_set(err, CL_ERR_ARG, "cl_partition_graph: %zu points and %u bond entries exceed METIS's indices", n, offsets[n]);
  size_t entries = offsets[n];
  idx_t *xadj = malloc((n + 1) * sizeof *xadj), *adjncy = malloc((entries ? entries : 1) * sizeof *adjncy);
  idx_t *vwgt = malloc(n * sizeof *vwgt), *part = malloc(n * sizeof *part);
  if (!xadj || !adjncy || !vwgt || !part) {
    free(xadj), free(adjncy), free(vwgt), free(part);
    return cl_error_set(err, CL_ERR_OOM, "cl_partition_graph: no memory for a graph of %zu points", n);
  }
  for (size_t i = 0; i <= n; i++) xadj[i] = (idx_t)offsets[i];
  for (size_t k = 0; k < entries; k++) adjncy[k] = (idx_t)(neighbors[k] & CL_HALO_INDEX);
  /* a point weighs its bonds (the work of its row), at least 1 (a point without bonds still steps) */
  for (size_t i = 0; i < n; i++) vwgt[i] = offsets[i + 1] - offsets[i] ? (idx_t)(offsets[i + 1] - offsets[i]) : 1;
  idx_t nv = (idx_t)n, ncon = 1, nparts = parts, volume;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_VOL; /* the halo's volume: each ghost once per rank keeping it */
  options[METIS_OPTION_CONTIG] = 1;
  options[METIS_OPTION_SEED] = 1; /* deterministic (rank 0 computes it anyway) */
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_UFACTOR] = 1; /* parts within 0.1% of the mean weight: the step waits for the heaviest rank */
  int rc = METIS_PartGraphKway(&nv, &ncon, xadj, adjncy, vwgt, NULL, NULL, &nparts, NULL, NULL, options, &volume, part);
  if (rc == METIS_OK)
    for (size_t i = 0; i < n; i++) owner[i] = (int)part[i];
  free(xadj), free(adjncy), free(vwgt), free(part);
  if (rc != METIS_OK)
    return cl_error_set(err, rc == METIS_ERROR_MEMORY ? CL_ERR_OOM : CL_ERR_ARG,
                        "cl_partition_graph: METIS_PartGraphKway failed (%d) on %zu points in %d parts", rc, n, parts);
  /* METIS may leave a part empty on a graph of few points or components */
  int *held = calloc((size_t)parts, sizeof *held);
  if (!held) return cl_error_set(err, CL_ERR_OOM, "cl_partition_graph: no memory for %d parts", parts);
  for (size_t i = 0; i < n; i++) held[owner[i]] = 1;
  int empty = -1;
  for (int q = 0; q < parts && empty < 0; q++)
    if (!held[q]) empty = q;
  free(held);
  if (empty >= 0)
    return cl_error_set(err, CL_ERR_ARG, "the graph partition of %zu points in %d parts leaves rank %d without a point: "
                        "use fewer ranks or partition = \"rcb\"", n, parts, empty);
  return CL_OK;
#else
  (void)offsets, (void)neighbors, (void)owner;
  return cl_error_set(err, CL_ERR_UNAVAILABLE, "this cleave was built without METIS: install libmetis-dev and rebuild "
                      "(CLEAVE_METIS=AUTO or ON; scripts/setup.sh installs it), or use partition = \"rcb\"");
#endif
}

/* The distinct owners other than its own among point i's neighbours, into out; returns their number. */
static int other_owners(const uint32_t *offsets, const uint32_t *neighbors, const int *owner, size_t i, int *out) {
  int count = 0, mine = owner[i];
  for (uint32_t k = offsets[i]; k < offsets[i + 1]; k++) {
    int q = owner[neighbors[k] & CL_HALO_INDEX], known = q == mine;
    for (int c = 0; c < count && !known; c++) known = out[c] == q;
    if (!known) out[count++] = q;
  }
  return count;
}

cl_status cl_halo_plan_graph(size_t n, const uint32_t *offsets, const uint32_t *neighbors, const int *owner, int parts,
                             int rank, cl_halo_plan *plan, cl_error *err) {
  static const char who[] = "cl_halo_plan_graph";
  memset(plan, 0, sizeof *plan);
  plan->rank = rank, plan->parts = parts, plan->points = n;
  size_t widest = 0; /* the largest family: room for its distinct owners */
  for (size_t i = 0; i < n; i++)
    if (offsets[i + 1] - offsets[i] > widest) widest = offsets[i + 1] - offsets[i];
  size_t *recv = calloc((size_t)parts, sizeof *recv), *send = calloc((size_t)parts, sizeof *send);
  unsigned char *ghost = calloc(n ? n : 1, 1); /* ghost[j]: another rank's point with a bond to one of this rank's */
  int *seen = malloc((widest ? widest : 1) * sizeof *seen);
  uint32_t *local_of = malloc((n ? n : 1) * sizeof *local_of);
  cl_status st = CL_OK;
  if (!recv || !send || !ghost || !seen || !local_of) st = cl_error_set(err, CL_ERR_OOM, "%s: no memory for %zu points", who, n);
  for (size_t i = 0; i < n && st == CL_OK; i++) {
    if (owner[i] != rank) continue;
    local_of[i] = (uint32_t)plan->owned++;
    int count = other_owners(offsets, neighbors, owner, i, seen);
    for (int c = 0; c < count; c++) send[seen[c]]++;
    for (uint32_t k = offsets[i]; k < offsets[i + 1]; k++) {
      size_t j = neighbors[k] & CL_HALO_INDEX;
      if (owner[j] != rank && !ghost[j]) ghost[j] = 1, recv[owner[j]]++;
    }
  }
  if (st == CL_OK) st = cl_halo_plan_peers(plan, parts, recv, send, who, err);
  if (st == CL_OK) {
    size_t *recv_at = recv, *send_at = send; /* counts become running positions */
    cl_halo_plan_positions(plan, recv_at, send_at);
    size_t mine = 0;
    for (size_t i = 0; i < n; i++) { /* ascending global index: each group in the order its peer keeps it */
      if (owner[i] == rank) {
        plan->global[mine++] = i;
        int count = other_owners(offsets, neighbors, owner, i, seen);
        for (int c = 0; c < count; c++) plan->send_rows[send_at[seen[c]]++] = local_of[i];
      } else if (ghost[i]) {
        plan->global[recv_at[owner[i]]++] = i;
      }
    }
    st = cl_halo_plan_interior_first(plan, NULL, err);
  }
  free(recv), free(send), free(ghost), free(seen), free(local_of);
  if (st != CL_OK) cl_halo_plan_free(plan);
  return st;
}
