/* The communicator over MPI (Debian's Open MPI). MPI starts only under a launcher: without
 * one the job is a single rank and MPI is never initialised (a plain run pays nothing). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "comm.h"
#include "embedded.h"

static int started, rank, size = 1, local_rank, local_size = 1; /* local: the ranks of this host */
static char engine[MPI_MAX_LIBRARY_VERSION_STRING + 32];

/* Open MPI's mpirun, and PMI/PMIx launchers (srun, hydra), leave these in every rank. */
static int launched_by_mpirun(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

static void finalize(void) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

static cl_status mpi_failed(cl_error *err, const char *what, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return cl_error_set(err, CL_ERR_DEVICE, "%s failed on rank %d: %.*s", what, rank, len, text);
}

#define MPI_TRY(what, call)                        \
  do {                                             \
    int mpi_rc_ = (call);                          \
    if (mpi_rc_ != MPI_SUCCESS) return mpi_failed(err, what, mpi_rc_); \
  } while (0)

static uint64_t fnv(uint64_t h, const char *bytes, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)bytes[i]) * 1099511628211ull;
  return h;
}

/* The ranks must run one cleave: a model partitioned over builds that differ (kernels, defaults)
 * would not be one model. A 52-bit hash (FNV-1a) of the version, the build time and the kernel
 * headers (the physics), its max and -min over the ranks. */
static cl_status check_same_build(cl_error *err) {
  const char *build = CLEAVE_VERSION " " __DATE__ " " __TIME__;
  uint64_t h = fnv(1469598103934665603ull, build, strlen(build));
  for (const cl_embedded_file *e = cl_jit_headers; e->name; e++) h = fnv(h, e->source, e->size);
  double mine[2] = {(double)(h >> 12), -(double)(h >> 12)};
  MPI_TRY("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, mine, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  if (mine[0] != -mine[1])
    return cl_error_set(err, CL_ERR_UNAVAILABLE, "the %d ranks run different cleave builds (this one: cleave %s): "
                        "install the same build on every host of the job", size, build);
  return CL_OK;
}

cl_status cl_comm_init(cl_error *err) {
  if (started) return CL_OK;
  started = 1;
  int len = 0;
  MPI_Get_library_version(engine, &len);
  engine[strcspn(engine, ",\n")] = '\0'; /* "Open MPI v4.1.4" */
  if (!launched_by_mpirun()) {
    strcat(engine, " (not launched by mpirun: one rank)");
    return CL_OK;
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    MPI_TRY("MPI_Init", MPI_Init(NULL, NULL));
    atexit(finalize);
  }
  /* errors come back as codes and become cl_errors, not MPI's own abort */
  MPI_TRY("MPI_Comm_set_errhandler", MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_TRY("MPI_Comm_rank", MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_TRY("MPI_Comm_size", MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_Comm host;
  MPI_TRY("MPI_Comm_split_type", MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host));
  MPI_TRY("MPI_Comm_rank", MPI_Comm_rank(host, &local_rank));
  MPI_TRY("MPI_Comm_size", MPI_Comm_size(host, &local_size));
  MPI_Comm_free(&host);
  return check_same_build(err);
}

int cl_comm_rank(void) { return rank; }
int cl_comm_size(void) { return size; }
int cl_comm_local_rank(void) { return local_rank; }
int cl_comm_local_size(void) { return local_size; }
const char *cl_comm_engine(void) { return started ? engine : "MPI (not started)"; }

cl_status cl_comm_barrier(cl_error *err) {
  if (size == 1) return CL_OK;
  MPI_TRY("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
  return CL_OK;
}

static cl_status check_count(size_t count, const char *fn, cl_error *err) {
  if (count > INT_MAX) return cl_error_set(err, CL_ERR_ARG, "%s: %zu values is more than MPI's int count", fn, count);
  return CL_OK;
}

cl_status cl_comm_allreduce(double *values, size_t count, cl_comm_op op, cl_error *err) {
  if (size == 1 || count == 0) return CL_OK;
  CL_TRY(check_count(count, "cl_comm_allreduce", err));
  MPI_Op ops[] = {MPI_SUM, MPI_MIN, MPI_MAX};
  MPI_TRY("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_DOUBLE, ops[op], MPI_COMM_WORLD));
  return CL_OK;
}

cl_status cl_comm_broadcast(double *values, size_t count, int root, cl_error *err) {
  if (root < 0 || root >= size) return cl_error_set(err, CL_ERR_ARG, "cl_comm_broadcast: root %d is not a rank (0..%d)", root, size - 1);
  if (size == 1 || count == 0) return CL_OK;
  CL_TRY(check_count(count, "cl_comm_broadcast", err));
  MPI_TRY("MPI_Bcast", MPI_Bcast(values, (int)count, MPI_DOUBLE, root, MPI_COMM_WORLD));
  return CL_OK;
}

cl_status cl_comm_gather(const double *send, size_t count, double *recv, int root, cl_error *err) {
  if (root < 0 || root >= size) return cl_error_set(err, CL_ERR_ARG, "cl_comm_gather: root %d is not a rank (0..%d)", root, size - 1);
  if (size == 1) {
    if (count) memcpy(recv, send, count * sizeof *send);
    return CL_OK;
  }
  CL_TRY(check_count(count * (size_t)size, "cl_comm_gather", err));
  MPI_TRY("MPI_Gather", MPI_Gather(send, (int)count, MPI_DOUBLE, recv, (int)count, MPI_DOUBLE, root, MPI_COMM_WORLD));
  return CL_OK;
}

cl_status cl_comm_gatherv(const void *send, size_t bytes, void *recv, const size_t *counts, int root, cl_error *err) {
  if (root < 0 || root >= size) return cl_error_set(err, CL_ERR_ARG, "cl_comm_gatherv: root %d is not a rank (0..%d)", root, size - 1);
  if (size == 1) {
    if (bytes) memcpy(recv, send, bytes);
    return CL_OK;
  }
  if (bytes > INT_MAX) return cl_error_set(err, CL_ERR_ARG, "cl_comm_gatherv: %zu bytes from one rank (at most %d)", bytes, INT_MAX);
  int *ints = NULL, *displs = NULL;
  if (rank == root) {
    ints = malloc(2 * (size_t)size * sizeof *ints);
    if (!ints) return cl_error_set(err, CL_ERR_OOM, "cl_comm_gatherv: no memory for %d counts", size);
    displs = ints + size;
    size_t at = 0;
    for (int r = 0; r < size; r++) {
      if (counts[r] > INT_MAX || at > INT_MAX) {
        free(ints);
        return cl_error_set(err, CL_ERR_ARG, "cl_comm_gatherv: more than %d bytes gathered (MPI's int counts)", INT_MAX);
      }
      ints[r] = (int)counts[r], displs[r] = (int)at, at += counts[r];
    }
  }
  int rc = MPI_Gatherv(send, (int)bytes, MPI_BYTE, recv, ints, displs, MPI_BYTE, root, MPI_COMM_WORLD);
  free(ints);
  if (rc != MPI_SUCCESS) return mpi_failed(err, "MPI_Gatherv", rc);
  return CL_OK;
}

struct cl_comm_pending {
  int posted;
  MPI_Request requests[];
};

cl_status cl_comm_exchange_start(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                                 void *const *recv, const size_t *recv_bytes, cl_comm_pending **pending, cl_error *err) {
  *pending = NULL;
  if (npeers <= 0) return CL_OK;
  for (int p = 0; p < npeers; p++)
    if (send_bytes[p] > INT_MAX || recv_bytes[p] > INT_MAX)
      return cl_error_set(err, CL_ERR_ARG, "cl_comm_exchange: a message of more than %d bytes with rank %d", INT_MAX, peers[p]);
  cl_comm_pending *q = malloc(sizeof *q + 2 * (size_t)npeers * sizeof q->requests[0]);
  if (!q) return cl_error_set(err, CL_ERR_OOM, "cl_comm_exchange: no memory for %d requests", 2 * npeers);
  /* receives posted first, so that no send waits for its match */
  int rc = MPI_SUCCESS;
  q->posted = 0;
  for (int p = 0; p < npeers && rc == MPI_SUCCESS; p++) {
    rc = MPI_Irecv(recv[p], (int)recv_bytes[p], MPI_BYTE, peers[p], 0, MPI_COMM_WORLD, &q->requests[q->posted]);
    if (rc == MPI_SUCCESS) q->posted++;
  }
  for (int p = 0; p < npeers && rc == MPI_SUCCESS; p++) {
    rc = MPI_Isend(send[p], (int)send_bytes[p], MPI_BYTE, peers[p], 0, MPI_COMM_WORLD, &q->requests[q->posted]);
    if (rc == MPI_SUCCESS) q->posted++;
  }
  *pending = q;
  if (rc != MPI_SUCCESS) {
    cl_error ignored;
    cl_comm_exchange_finish(pending, &ignored); /* what was posted completes before the buffers go */
    return mpi_failed(err, "cl_comm_exchange: posting a message", rc);
  }
  return CL_OK;
}

cl_status cl_comm_exchange_finish(cl_comm_pending **pending, cl_error *err) {
  cl_comm_pending *q = *pending;
  if (!q) return CL_OK;
  int rc = MPI_Waitall(q->posted, q->requests, MPI_STATUSES_IGNORE);
  free(q);
  *pending = NULL;
  if (rc != MPI_SUCCESS) return mpi_failed(err, "cl_comm_exchange: MPI_Waitall", rc);
  return CL_OK;
}

cl_status cl_comm_exchange(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                           void *const *recv, const size_t *recv_bytes, cl_error *err) {
  cl_comm_pending *pending;
  CL_TRY(cl_comm_exchange_start(npeers, peers, send, send_bytes, recv, recv_bytes, &pending, err));
  return cl_comm_exchange_finish(&pending, err);
}

void cl_comm_abort(int code) {
  if (size > 1) MPI_Abort(MPI_COMM_WORLD, code);
}
