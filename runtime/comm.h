/* The communicator: the ranks of one job (MPI's world) and the few collective operations the
 * runtime needs. Built over Debian's Open MPI when CMake finds it (comm_mpi.c), else over a
 * single rank (comm_single.c). MPI is started only when the process was launched by mpirun
 * (its environment says so): a plain `cleave run` is one rank and never touches MPI. The
 * communicator is process-wide, as MPI's world is; every other runtime state is per cl_runtime. */
#ifndef CL_COMM_H
#define CL_COMM_H

#include <stddef.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cl_comm_op { CL_COMM_SUM = 0, CL_COMM_MIN = 1, CL_COMM_MAX = 2 } cl_comm_op;

/* Starts the communicator (idempotent): MPI_Init under mpirun, finalized at exit. */
cl_status cl_comm_init(cl_error *err);
int cl_comm_rank(void); /* 0-based; 0 before cl_comm_init */
int cl_comm_size(void); /* 1 before cl_comm_init or without MPI */
/* The ranks on this host (MPI_Comm_split_type, shared memory): this rank's index among them and
 * their number; 0 and 1 before cl_comm_init or without MPI. A rank takes GPU local_rank mod GPUs. */
int cl_comm_local_rank(void);
int cl_comm_local_size(void);
/* "Open MPI v4.1.4 ..." (the library's version string) or "none (one rank)". */
const char *cl_comm_engine(void);

cl_status cl_comm_barrier(cl_error *err);
/* values[0..count) := op over every rank's values, in place, on every rank. Sums of doubles
 * are added in rank order by MPI; a sum of counts below 2^53 is exact. */
cl_status cl_comm_allreduce(double *values, size_t count, cl_comm_op op, cl_error *err);
/* values[0..count) := root's, on every rank. */
cl_status cl_comm_broadcast(double *values, size_t count, int root, cl_error *err);
/* recv[r*count + i] := rank r's send[i] on rank `root` (recv may be NULL elsewhere). */
cl_status cl_comm_gather(const double *send, size_t count, double *recv, int root, cl_error *err);
/* Bytes of every rank to `root`: rank r's `bytes` land at recv + sum of counts[0..r) there
 * (counts: every rank's bytes, needed on root only; recv and counts may be NULL elsewhere). */
cl_status cl_comm_gatherv(const void *send, size_t bytes, void *recv, const size_t *counts, int root, cl_error *err);
/* Point-to-point exchange with `npeers` ranks: send[p] (send_bytes[p]) goes to peers[p],
 * recv[p] (recv_bytes[p]) comes from it; returns when all have arrived. Host memory. */
cl_status cl_comm_exchange(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                           void *const *recv, const size_t *recv_bytes, cl_error *err);
/* The same in two halves, so that work can run while the messages travel: _start posts them and
 * returns at once (*pending: NULL when there is nothing to wait for); _finish waits until all have
 * arrived and releases *pending. The buffers must stay untouched in between. */
typedef struct cl_comm_pending cl_comm_pending;
cl_status cl_comm_exchange_start(int npeers, const int *peers, void *const *send, const size_t *send_bytes,
                                 void *const *recv, const size_t *recv_bytes, cl_comm_pending **pending, cl_error *err);
cl_status cl_comm_exchange_finish(cl_comm_pending **pending, cl_error *err);
/* Ends every rank of the job with `code` (after a rank's error: no rank is left waiting). */
void cl_comm_abort(int code);

#ifdef __cplusplus
}
#endif

#endif
